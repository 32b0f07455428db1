/* anchorkit_target_pose.h — AnchorKit's solvers: the poses of planar targets, markers and image
 * targets, from their pixels (target_pose.cpp). The rules of this boundary are written in
 * anchorkit_cv.h. */
#ifndef ANCHORKIT_TARGET_POSE_H
#define ANCHORKIT_TARGET_POSE_H

#include "anchorkit_pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pose of `count` square targets of side `side` metres from their 4 corners each (TL, TR, BR, BL
 * as in ak_marker_detection.corners), with OpenCV's SOLVEPNP_IPPE_SQUARE, each solution then
 * refined to the least squared pixel error through the camera's distortion. Both solutions of the
 * planar ambiguity are returned. The target frame is OpenCV's marker frame: origin at the centre,
 * +x toward the right edge, +y toward the top edge, +z out of the printed face; corners at
 * (-s/2, s/2, 0), (s/2, s/2, 0), (s/2, -s/2, 0), (-s/2, -s/2, 0). */
ak_status ak_solve_square_poses(const ak_camera *camera, double side, const float *corners, int count,
                                ak_square_pose *poses);

/* Pose of a planar target from count >= 4 correspondences: object points (x, y) in metres on the
 * target's plane (z = 0, OpenCV target frame: +x right, +y down the reference image, +z into the
 * target), image points in px. SOLVEPNP_IPPE, each solution refined to the least squared pixel
 * error: both solutions, best first (as ak_square_pose). */
ak_status ak_solve_planar_pose(const ak_camera *camera, const float *object_points, const float *image_points,
                               int count, ak_square_pose *pose);

#ifdef __cplusplus
}
#endif

#endif
