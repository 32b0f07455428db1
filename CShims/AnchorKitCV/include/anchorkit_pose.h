/* anchorkit_pose.h — AnchorKit's C boundary: the camera and a target's pose (their solvers:
 * anchorkit_target_pose.h, AnchorKitSolvers). The rules of this boundary are written in
 * anchorkit_cv.h, the umbrella header. */
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

#ifdef __cplusplus
}
#endif

#endif
