/*
 * anchorkit_world.h — the numerical primitives of monocular visual odometry, one file each:
 * two-view initialisation with model selection (two_view.cpp), triangulation (triangulation.cpp),
 * PnP with RANSAC (pnp.cpp), local bundle adjustment (bundle_adjustment.cpp) and one pose seen
 * through several views (view_pose.cpp). Their tests: Tests/SolverTests (C++).
 *
 * The rules of anchorkit_cv.h apply (status codes, ak_last_error(), whole arrays per call, no
 * OpenCV types), and in addition:
 *  - Cameras are pinhole (ak_pinhole): pixels must already be undistorted.
 *  - Camera space is OpenCV's: +x right, +y down, +z forward (the camera looks along +z).
 *  - A pose is `camera_from_world` as 12 doubles, the 3x4 matrix [R | t] in ROW-major order
 *    (r00 r01 r02 t0, r10 r11 r12 t1, r20 r21 r22 t2): x_camera = R x_world + t.
 *  - Pixels are float x, y pairs (px); 3D points are double x, y, z triples (world units).
 *  - Geometry that is degenerate for valid input (too few points, no parallax, an ambiguous
 *    pose) is reported in the result, not as an error: errors are for invalid arguments.
 */
#ifndef ANCHORKIT_WORLD_H
#define ANCHORKIT_WORLD_H

#include "anchorkit_cv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pinhole camera: focal lengths and principal point, px. No distortion. */
typedef struct {
    double fx, fy, cx, cy;
} ak_pinhole;

/* ---------------------------------------------------------------- triangulation */

/* Why a triangulated point was rejected; the first failing check in this order. */
typedef enum {
    AK_POINT_GOOD = 0,
    AK_POINT_DEGENERATE = 1,    /* the rays do not meet at a finite point (parallel, or a camera centre) */
    AK_POINT_BEHIND = 2,        /* behind either camera */
    AK_POINT_REPROJECTION = 3,  /* reprojection error above the limit in either view */
    AK_POINT_LOW_PARALLAX = 4   /* the two viewing rays are closer than the minimum angle */
} ak_point_check;

typedef struct {
    double max_reprojection_error; /* px, in each view; default 2 */
    double min_parallax_degrees;   /* angle between the two viewing rays; default 1 */
} ak_triangulation_params;

void ak_triangulation_params_default(ak_triangulation_params *params);

/* Triangulates `count` points seen at pixels1[i] by camera 1 and pixels2[i] by camera 2 (both
 * with intrinsics `camera`; poses camera_from_world) by linear DLT in normalised coordinates.
 * Outputs, each may be NULL: `points` (3 * count) the world point, NaN where rejected; `errors`
 * (count) the larger of the two reprojection errors, px (NaN when degenerate); `parallax_degrees`
 * (count) the angle the point subtends between the two camera centres (for a degenerate point,
 * the angle between its viewing rays); `checks` (count) an ak_point_check per point;
 * *good_count the number of AK_POINT_GOOD. `params` NULL means the defaults. Cameras that share
 * a centre are not an error: every point then fails a check. */
ak_status ak_triangulate(const ak_pinhole *camera, const double camera1_from_world[12],
                         const double camera2_from_world[12], const float *pixels1, const float *pixels2, int count,
                         const ak_triangulation_params *params, double *points, double *errors,
                         double *parallax_degrees, uint8_t *checks, int *good_count);

/* ---------------------------------------------------------------- two-view initialisation */

typedef enum {
    AK_TWO_VIEW_NONE = 0,        /* no reconstruction: see ak_two_view_failure */
    AK_TWO_VIEW_HOMOGRAPHY = 1,  /* the pose came from a homography (a planar or distant scene) */
    AK_TWO_VIEW_ESSENTIAL = 2    /* the pose came from an essential matrix (a general scene) */
} ak_two_view_model;

typedef enum {
    AK_TWO_VIEW_SUCCESS = 0,
    AK_TWO_VIEW_TOO_FEW_POINTS = 1, /* too few correspondences, model inliers or good points */
    AK_TWO_VIEW_LOW_PARALLAX = 2,   /* median parallax under the minimum: pure rotation, tiny baseline */
    AK_TWO_VIEW_AMBIGUOUS = 3       /* several poses explain the inliers about as well, or none explains
                                     * 90 % of them */
} ak_two_view_failure;

typedef struct {
    double sigma;                      /* px, the pixel noise the chi-square tests assume; default 1 */
    double homography_ratio;           /* choose H when S_H / (S_H + S_F) exceeds it; default 0.45 */
    double confidence;                 /* RANSAC; default 0.999 */
    int max_iterations;                /* RANSAC; default 2000 */
    double max_reprojection_error;     /* px, in each view, for a point to count; default 2 */
    double min_parallax_degrees;       /* of the median consistent inlier; default 1 */
    double min_point_parallax_degrees; /* per output point (below it: NaN); default 0.5 */
    int min_triangulated;              /* good points needed; default 50 */
    double ambiguity_ratio;            /* runner-up / best consistent counts above it: ambiguous; default 0.9 */
    int refine;                        /* 1: bundle-adjust pose and points on the inliers; default 1 */
} ak_two_view_params;

void ak_two_view_params_default(ak_two_view_params *params);

typedef struct {
    ak_two_view_model model;          /* NONE when failure != SUCCESS */
    ak_two_view_failure failure;
    double rotation[9];               /* camera2_from_camera1, row-major; identity when NONE */
    double translation[3];            /* camera2_from_camera1, unit length (the map's scale); 0 when NONE */
    double homography_score_ratio;    /* R_H = S_H / (S_H + S_F), 0..1 (0 when nothing was scored) */
    double median_parallax_degrees;   /* of the inliers consistent with the best pose (also on failure) */
    int inlier_count;                 /* inliers of the chosen (or tried) model */
    int triangulated_count;           /* finite points written */
} ak_two_view_result;

/* Initialises a map from `count` matches (pixels1[i] in frame 1 <-> pixels2[i] in frame 2) seen by
 * one camera, as ORB-SLAM does: a homography and an essential matrix are estimated with RANSAC
 * (thresholds sqrt(5.991) sigma px for the transfer error, sqrt(3.841) sigma px for the distance
 * to the epipolar line) and scored by their symmetric transfer errors with truncated chi-square
 * scores; the homography is chosen when R_H > homography_ratio. Its candidate poses come from
 * decomposeHomographyMat or decomposeEssentialMat (all four scored alike: recoverPose would keep
 * the best without saying how close the runner-up came), and the one under which most inliers
 * triangulate in front of both cameras with a small reprojection error wins. With `refine`, pose
 * and points are then bundle-adjusted (camera 1 fixed) and the inliers triangulated again with
 * the refined pose. Outputs, each may be NULL: `inliers` (count) 1
 * for the chosen model's inliers; `points` (3 * count) in camera 1's frame, in units of the
 * baseline, NaN where rejected (an outlier, behind either camera, reprojection error above the
 * limit, parallax under min_point_parallax_degrees). On failure every flag is 0 and every point
 * NaN. Fewer than 8 matches is a failure (TOO_FEW_POINTS), not an error. */
ak_status ak_two_view_initialise(const ak_pinhole *camera, const float *pixels1, const float *pixels2, int count,
                                 const ak_two_view_params *params, ak_two_view_result *result, uint8_t *inliers,
                                 double *points);

/* ---------------------------------------------------------------- PnP */

typedef enum {
    AK_PNP_EPNP = 0,   /* EPnP on the inliers */
    AK_PNP_SQPNP = 1   /* SQPnP on the inliers (globally optimal, slower) */
} ak_pnp_method;

typedef struct {
    ak_pnp_method method;          /* solver run on the RANSAC inliers (samples use EPnP); default EPNP */
    double reprojection_threshold; /* px: inlier test; default 2 */
    double confidence;             /* RANSAC; default 0.999 */
    int max_iterations;            /* RANSAC; default 300 */
    int min_inliers;               /* fewer: not found; default 10 */
    double rotation_prior_sigma;   /* rad: how far the rotation may stray from `rotation_prior` as
                                      much as a point may stray by 1 px; default 0.001 */
} ak_pnp_params;

void ak_pnp_params_default(ak_pnp_params *params);

typedef struct {
    int found;                      /* 1 when a pose with at least min_inliers inliers was found */
    double camera_from_world[12];   /* [R | t] row-major; identity when not found */
    int inlier_count;
    double rms_error;               /* px, RMS reprojection error of the inliers */
} ak_pnp_result;

/* The pose of a camera from `count` world points (3 * count doubles) and their pixels, with
 * solvePnPRansac, then Levenberg-Marquardt on SE(3) on the inliers (the refinement of the marker
 * poses, pose_refinement.cpp), re-classifying the points with the refined pose.
 * `initial_camera_from_world` (12 doubles, may be NULL) is a guess
 * (e.g. a motion model's): RANSAC's final solve is then SOLVEPNP_ITERATIVE from it. `inliers`
 * (count, may be NULL) gets 1 for inliers of the returned pose. `rotation_prior` (9 doubles,
 * row-major, may be NULL) is a camera_from_world rotation known from elsewhere (a gyroscope's turn
 * from the last pose): the refinement also weighs the rotation's departure from it (params'
 * rotation_prior_sigma), which keeps a far scene's lateral motion from being taken for a turn.
 * Too few points or inliers give found = 0, not an error. */
ak_status ak_solve_pnp(const ak_pinhole *camera, const double *points, const float *pixels, int count,
                       const double *initial_camera_from_world, const double *rotation_prior,
                       const ak_pnp_params *params, ak_pnp_result *result, uint8_t *inliers);

/* ---------------------------------------------------------------- bundle adjustment */

typedef struct {
    int camera;   /* index into the poses */
    int point;    /* index into the points */
    float x, y;   /* px */
} ak_observation;

/* A turn between two poses known from elsewhere (a gyroscope): camera `to`'s rotation times the
 * transpose of camera `from`'s (both camera_from_world) should be `turn` (row-major), within
 * `sigma` radians (weighed as a pixel error of 1 px is). */
typedef struct {
    int from, to;
    double turn[9];
    double sigma;
} ak_rotation_link;

typedef struct {
    int max_iterations;       /* Levenberg-Marquardt steps tried (accepted or not) per stage; default 20
                               * (a first stage followed by rejection stops at 10) */
    double huber_threshold;   /* px: residuals beyond it weigh linearly, not quadratically; default 2.45 */
    double inlier_threshold;  /* px: the per-observation inlier test; default 2.45 */
    int reject_outliers;      /* 1: after converging, drop the observations over inlier_threshold and
                               * converge again without them (a second stage); default 1 */
} ak_bundle_params;

void ak_bundle_params_default(ak_bundle_params *params);

typedef struct {
    int iterations;       /* steps tried, both stages */
    int accepted;         /* steps that lowered the robust cost */
    double initial_rms;   /* px, RMS reprojection error of the observations in front of their camera, before */
    double final_rms;     /* px, the same after */
    double inlier_rms;    /* px, after, over the inliers only */
    int inlier_count;     /* observations in front of their camera with error under inlier_threshold
                           * (a rejected observation counts again if the final estimate explains it) */
} ak_bundle_result;

/* Local bundle adjustment: refines `pose_count` poses (camera_from_world, 12 doubles each, in
 * place) and `point_count` world points (3 doubles each, in place) to minimise the Huber-robust
 * reprojection error of `observation_count` observations, by Levenberg-Marquardt with the Schur
 * complement on the points and a dense solve of the reduced camera system (for local windows: at
 * most 128 free poses). Poses are updated on SE(3): R <- exp([w]x) R, t <- exp([w]x) t + v.
 * `pose_fixed` / `point_fixed` (may be NULL: none fixed) hold 1 for parameters kept constant; at
 * least one pose or point must be fixed (with a single fixed pose the scale stays free: the
 * damping keeps it near its start). Observations behind their camera are ignored while they stay
 * there. `links` (link_count, may be NULL when 0) add the squared angle between each link's turn
 * and its poses' turn, over its sigma squared, to the cost. `inliers` (observation_count, may be
 * NULL) gets the final inlier flags. On an error the poses and points are unchanged. */
ak_status ak_bundle_adjust(const ak_pinhole *camera, double *camera_from_world, const uint8_t *pose_fixed,
                           int pose_count, double *points, const uint8_t *point_fixed, int point_count,
                           const ak_observation *observations, int observation_count,
                           const ak_rotation_link *links, int link_count, const ak_bundle_params *params,
                           ak_bundle_result *result, uint8_t *inliers);

/* ---------------------------------------------------------------- one pose through several views (view_pose.cpp) */

typedef struct {
    int max_iterations;      /* Levenberg-Marquardt steps tried (accepted or not); default 10 */
    double huber_threshold;  /* px: residuals beyond it weigh linearly, not quadratically; default 2 */
} ak_view_pose_params;

void ak_view_pose_params_default(ak_view_pose_params *params);

typedef struct {
    int iterations;      /* steps tried */
    double initial_rms;  /* px, RMS reprojection error of the points in front of their camera, before */
    double final_rms;    /* px, the same after */
    int behind;          /* points behind their camera after the refinement (ignored by the cost) */
} ak_view_pose_result;

/* Refines one rigid transform `pose` (12 doubles, in place: [R | t] row-major, `middle_from_object`)
 * that `count` object points (3 * count doubles, object frame) are seen through, each by one of
 * `view_count` fixed cameras `views` (12 doubles each, `camera_from_middle`): point i projects
 * to pixels[i] through camera view_of[i]. It minimises the Huber-robust reprojection error by
 * Levenberg-Marquardt with the left perturbation pose <- (exp([dw]x), dv) pose.
 * Two uses: a camera's pose from points of a known map (one view, the identity; pose =
 * camera_from_map), and an object's pose in a map from several camera poses of that map (views
 * = camera_from_map; pose = map_from_object). `pose` is unchanged when no step lowers the cost. */
ak_status ak_refine_view_pose(const ak_pinhole *camera, const double *views, int view_count, const int *view_of,
                              const double *points, const float *pixels, int count, const ak_view_pose_params *params,
                              double *pose, ak_view_pose_result *result);

/* ---------------------------------------------------------------- an object and its views together (object_adjustment.cpp) */

/* Refines one rigid object `object` (12 doubles, in place: `world_from_object`) and the
 * `view_count` cameras that saw it `views` (12 doubles each, in place: `camera_from_world`)
 * together: `object_count` object points (object frame) project to object_pixels through camera
 * object_view[i], and `fixed_count` (at least one: they fix the world) world points, held,
 * project to fixed_pixels through camera fixed_view[i]. Huber-robust reprojection error,
 * Levenberg-Marquardt with left perturbations, as ak_refine_view_pose; `result` as there, its
 * RMS over the object's points. Unchanged when no step lowers the cost. */
ak_status ak_adjust_object_and_views(const ak_pinhole *camera, double *views, int view_count, double *object,
                                     const int *fixed_view, const double *fixed_points, const float *fixed_pixels, int fixed_count,
                                     const int *object_view, const double *object_points, const float *object_pixels,
                                     int object_count, const ak_view_pose_params *params, ak_view_pose_result *result);

#ifdef __cplusplus
}
#endif

#endif
