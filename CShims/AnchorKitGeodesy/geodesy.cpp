// geodesy.cpp — anchorkit_geodesy.h over GeographicLib's LocalCartesian and Geodesic::WGS84().
#include "anchorkit_geodesy.h"
#include "anchorkit_last_error.h"

#include <GeographicLib/Constants.hpp>
#include <GeographicLib/Geodesic.hpp>
#include <GeographicLib/LocalCartesian.hpp>

#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <exception>

namespace {

__attribute__((format(printf, 3, 4))) int fail(int code, const char *fn, const char *fmt, ...) noexcept {
    va_list args;
    va_start(args, fmt);
    ak_record_error(fn, fmt, args);
    va_end(args);
    return code;
}

// GeographicLib answers NaN rather than throwing for a latitude beyond ±90° or a NaN input, so
// every input is checked here. The message names the value: `what` ("origin", "start"), or
// "point <index>" when index >= 0.
int check_geodetic(const char *fn, const char *what, int index, double lat, double lon, double h) {
    if (std::isfinite(lat) && std::fabs(lat) <= 90 && std::isfinite(lon) && std::isfinite(h)) return AK_GEODESY_OK;
    char name[32];
    if (index < 0) std::snprintf(name, sizeof name, "%s", what);
    else std::snprintf(name, sizeof name, "%s %d", what, index);
    if (!std::isfinite(lat) || std::fabs(lat) > 90)
        return fail(AK_GEODESY_ERR_ARGUMENT, fn, "%s latitude %.15g is outside [-90, 90] degrees", name, lat);
    if (!std::isfinite(lon)) return fail(AK_GEODESY_ERR_ARGUMENT, fn, "%s longitude %.15g is not finite", name, lon);
    return fail(AK_GEODESY_ERR_ARGUMENT, fn, "%s height %.15g is not finite", name, h);
}

int check_array(const char *fn, const void *in, const void *out, int count) {
    if (count < 0) return fail(AK_GEODESY_ERR_ARGUMENT, fn, "count must be >= 0, got %d", count);
    if (count > 0 && (!in || !out)) return fail(AK_GEODESY_ERR_ARGUMENT, fn, "%s is NULL", in ? "output" : "input");
    return AK_GEODESY_OK;
}

template <typename Body> int guarded(const char *fn, Body body) noexcept {
    try {
        return body();
    } catch (const GeographicLib::GeographicErr &e) {
        return fail(AK_GEODESY_ERR_ARGUMENT, fn, "GeographicLib: %s", e.what());
    } catch (const std::exception &e) {
        return fail(AK_GEODESY_ERR_INTERNAL, fn, "%s", e.what());
    } catch (...) {
        return fail(AK_GEODESY_ERR_INTERNAL, fn, "unknown C++ exception");
    }
}

}  // namespace

extern "C" const char *ak_geodesy_last_error(void) { return ak_recorded_error(); }

extern "C" int ak_enu_from_geodetic(double lat0, double lon0, double h0, const double *lla, int count, double *enu) {
    static const char *fn = "ak_enu_from_geodetic";
    return guarded(fn, [&] {
        if (int s = check_geodetic(fn, "origin", -1, lat0, lon0, h0)) return s;
        if (int s = check_array(fn, lla, enu, count)) return s;
        // All inputs are checked before any output is written: a failing call leaves enu as it was.
        for (int i = 0; i < count; ++i)
            if (int s = check_geodetic(fn, "point", i, lla[3 * i], lla[3 * i + 1], lla[3 * i + 2])) return s;
        const GeographicLib::LocalCartesian frame(lat0, lon0, h0);
        for (int i = 0; i < count; ++i)
            frame.Forward(lla[3 * i], lla[3 * i + 1], lla[3 * i + 2], enu[3 * i], enu[3 * i + 1], enu[3 * i + 2]);
        return AK_GEODESY_OK;
    });
}

extern "C" int ak_geodetic_from_enu(double lat0, double lon0, double h0, const double *enu, int count, double *lla) {
    static const char *fn = "ak_geodetic_from_enu";
    return guarded(fn, [&] {
        if (int s = check_geodetic(fn, "origin", -1, lat0, lon0, h0)) return s;
        if (int s = check_array(fn, enu, lla, count)) return s;
        for (int i = 0; i < count; ++i)
            if (!std::isfinite(enu[3 * i]) || !std::isfinite(enu[3 * i + 1]) || !std::isfinite(enu[3 * i + 2]))
                return fail(AK_GEODESY_ERR_ARGUMENT, fn, "point %d (%.15g, %.15g, %.15g) is not finite", i, enu[3 * i],
                            enu[3 * i + 1], enu[3 * i + 2]);
        const GeographicLib::LocalCartesian frame(lat0, lon0, h0);
        for (int i = 0; i < count; ++i)
            frame.Reverse(enu[3 * i], enu[3 * i + 1], enu[3 * i + 2], lla[3 * i], lla[3 * i + 1], lla[3 * i + 2]);
        return AK_GEODESY_OK;
    });
}

extern "C" int ak_geodesic_inverse(double lat1, double lon1, double lat2, double lon2, double *distance,
                                   double *azimuth1, double *azimuth2) {
    static const char *fn = "ak_geodesic_inverse";
    return guarded(fn, [&] {
        if (int s = check_geodetic(fn, "start", -1, lat1, lon1, 0)) return s;
        if (int s = check_geodetic(fn, "end", -1, lat2, lon2, 0)) return s;
        if (!distance || !azimuth1 || !azimuth2) return fail(AK_GEODESY_ERR_ARGUMENT, fn, "an output is NULL");
        GeographicLib::Geodesic::WGS84().Inverse(lat1, lon1, lat2, lon2, *distance, *azimuth1, *azimuth2);
        return AK_GEODESY_OK;
    });
}

extern "C" int ak_geodesic_direct(double lat1, double lon1, double azimuth1, double distance, double *lat2,
                                  double *lon2, double *azimuth2) {
    static const char *fn = "ak_geodesic_direct";
    return guarded(fn, [&] {
        if (int s = check_geodetic(fn, "start", -1, lat1, lon1, 0)) return s;
        if (!std::isfinite(azimuth1)) return fail(AK_GEODESY_ERR_ARGUMENT, fn, "azimuth %.15g is not finite", azimuth1);
        if (!std::isfinite(distance)) return fail(AK_GEODESY_ERR_ARGUMENT, fn, "distance %.15g is not finite", distance);
        if (!lat2 || !lon2 || !azimuth2) return fail(AK_GEODESY_ERR_ARGUMENT, fn, "an output is NULL");
        GeographicLib::Geodesic::WGS84().Direct(lat1, lon1, azimuth1, distance, *lat2, *lon2, *azimuth2);
        return AK_GEODESY_OK;
    });
}
