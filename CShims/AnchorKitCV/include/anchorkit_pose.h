/* anchorkit_pose.h — AnchorKit's C boundary: camera & pose.
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header. */
#ifndef ANCHORKIT_POSE_H
#define ANCHORKIT_POSE_H

#include "anchorkit_markers.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double fx, fy, cx, cy;    /* px */
    double distortion[5];     /* OpenCV's k1, k2, p1, p2, k3 */
} ak_camera;

typedef struct {
    int solutions;            /* 0, 1 or 2 */
    double rotation[2][9];    /* camera_from_target, OpenCV camera convention, row-major */
    double translation[2][3]; /* metres, OpenCV camera convention */
    double error[2];          /* RMS reprojection error, px; solutions sorted by it, best first */
} ak_square_pose;

/* Pose of `count` square targets of side `side` metres from their 4 corners each (TL, TR, BR, BL
 * as in ak_marker_detection.corners), with OpenCV's SOLVEPNP_IPPE_SQUARE, each solution then
 * refined to the least squared pixel error through the camera's distortion. Both solutions of the
 * planar ambiguity are returned. The target frame is OpenCV's marker frame: origin at the centre,
 * +x toward the right edge, +y toward the top edge, +z out of the printed face; corners at
 * (-s/2, s/2, 0), (s/2, s/2, 0), (s/2, -s/2, 0), (-s/2, -s/2, 0). */
ak_status ak_solve_square_poses(const ak_camera *camera, double side, const float *corners, int count,
                                ak_square_pose *poses);

#ifdef __cplusplus
}
#endif

#endif
