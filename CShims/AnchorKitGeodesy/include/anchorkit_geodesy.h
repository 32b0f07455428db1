/*
 * anchorkit_geodesy.h — geodesy on the WGS84 ellipsoid, through GeographicLib (geodesy.cpp).
 *
 * The rules of anchorkit_cv.h hold here too (plain C, every C++ exception caught inside, a
 * one-line thread-local message on failure, whole arrays per call), but this target has its own
 * return codes: sharing ak_status would make it depend on AnchorKitCV, and so on OpenCV.
 *
 *  - Geodetic points are (latitude, longitude, height) triples: degrees north, degrees east,
 *    metres above the WGS84 ellipsoid. Latitudes must lie within [-90, 90]; any finite longitude
 *    is accepted (results are reduced to [-180, 180]).
 *  - Local points are (east, north, up) triples in metres, in the frame tangent to the ellipsoid
 *    at the origin (up along the ellipsoid's normal there).
 *  - Azimuths are degrees clockwise from true north, returned in [-180, 180].
 */
#ifndef ANCHORKIT_GEODESY_H
#define ANCHORKIT_GEODESY_H

#ifdef __cplusplus
extern "C" {
#endif

#define AK_GEODESY_OK 0
#define AK_GEODESY_ERR_ARGUMENT 1 /* a parameter is invalid (NULL, not finite, latitude beyond ±90°), or
                                     GeographicLib rejected one (GeographicLib::GeographicErr) */
#define AK_GEODESY_ERR_INTERNAL 2 /* any other C++ exception (e.g. std::bad_alloc) */

/* The message of the last failing call on this thread ("" if none). Never NULL. */
const char *ak_geodesy_last_error(void);

/* `count` geodetic points (lla, 3 doubles each) to east-north-up metres (enu, 3 doubles each)
 * in the tangent frame at (lat0, lon0, h0). */
int ak_enu_from_geodetic(double lat0, double lon0, double h0, const double *lla, int count, double *enu);

/* The reverse: `count` east-north-up points at (lat0, lon0, h0) to geodetic points. */
int ak_geodetic_from_enu(double lat0, double lon0, double h0, const double *enu, int count, double *lla);

/* The shortest path on the ellipsoid from point 1 to point 2: its length (metres) and its
 * azimuths at either end (azimuth2: the direction of travel on arrival). */
int ak_geodesic_inverse(double lat1, double lon1, double lat2, double lon2, double *distance, double *azimuth1,
                        double *azimuth2);

/* Where the geodesic leaving point 1 at azimuth1 arrives after `distance` metres (negative:
 * backwards), and its azimuth there. */
int ak_geodesic_direct(double lat1, double lon1, double azimuth1, double distance, double *lat2, double *lon2,
                       double *azimuth2);

#ifdef __cplusplus
}
#endif

#endif
