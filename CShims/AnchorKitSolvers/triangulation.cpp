// triangulation.cpp — ak_triangulate (anchorkit_world.h): points from two views, classified as
// good, too little parallax or badly reprojected.
#include "world_geometry.hpp"

using namespace akcv;
using namespace akcv::world;

extern "C" {

// ---------------------------------------------------------------- triangulation

void ak_triangulation_params_default(ak_triangulation_params *params) {
    if (!params) return;
    *params = ak_triangulation_params{2.0, 1.0};
}

ak_status ak_triangulate(const ak_pinhole *camera, const double camera1_from_world[12],
                         const double camera2_from_world[12], const float *pixels1, const float *pixels2, int count,
                         const ak_triangulation_params *params, double *points, double *errors,
                         double *parallax_degrees, uint8_t *checks, int *good_count) {
    static const char *fn = "ak_triangulate";
    return guarded(fn, [&]() -> ak_status {
        if (good_count) *good_count = 0;
        if (ak_status s = check_pinhole(fn, camera)) return s;
        if (!camera1_from_world || !camera2_from_world) return fail(AK_ERR_ARGUMENT, fn, "a pose is NULL");
        Pose c1, c2;
        if (ak_status s = read_pose(fn, camera1_from_world, "camera1_from_world", -1, c1)) return s;
        if (ak_status s = read_pose(fn, camera2_from_world, "camera2_from_world", -1, c2)) return s;
        if (ak_status s = check_count(fn, count, "count")) return s;
        const ak_triangulation_params p = given_or_default(params, ak_triangulation_params_default);
        if (!std::isfinite(p.max_reprojection_error) || !(p.max_reprojection_error > 0))
            return fail(AK_ERR_ARGUMENT, fn, "max_reprojection_error must be positive, got %g", p.max_reprojection_error);
        if (!(p.min_parallax_degrees >= 0 && p.min_parallax_degrees < 180))
            return fail(AK_ERR_ARGUMENT, fn, "min_parallax_degrees must be in [0, 180), got %g", p.min_parallax_degrees);
        if (count == 0) return AK_OK;
        if (!pixels1 || !pixels2) return fail(AK_ERR_ARGUMENT, fn, "pixels1 or pixels2 is NULL");
        if (ak_status s = check_pixels(fn, pixels1, count, "pixels1")) return s;
        if (ak_status s = check_pixels(fn, pixels2, count, "pixels2")) return s;

        const Views v(*camera, pixels1, pixels2, count);
        std::vector<int> all(count);
        for (int i = 0; i < count; ++i) all[i] = i;
        std::vector<Triangulated> tri;
        triangulate(*camera, c1, c2, v, all, tri);
        int good = 0;
        for (int i = 0; i < count; ++i) {
            const Triangulated &t = tri[i];
            const int check = classify(t, p.max_reprojection_error, p.min_parallax_degrees);
            if (check == AK_POINT_GOOD) ++good;
            if (points)
                for (int k = 0; k < 3; ++k) points[3 * i + k] = check == AK_POINT_GOOD ? t.X[k] : kNaN;
            if (errors) errors[i] = t.finite ? std::max(t.error1, t.error2) : kNaN;
            if (parallax_degrees) parallax_degrees[i] = t.parallax;
            if (checks) checks[i] = static_cast<uint8_t>(check);
        }
        if (good_count) *good_count = good;
        return AK_OK;
    });
}

}  // extern "C"
