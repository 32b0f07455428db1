/*
 * anchorkit_cv.h — the plain C boundary between AnchorKit (Swift) and OpenCV/Eigen (C++).
 *
 * Rules of this boundary:
 *  - Opaque handles, POD structs, status codes. Nothing OpenCV-typed crosses it.
 *  - Every C++ exception is caught inside; a failing call returns a non-zero `ak_status`
 *    and leaves a one-line, human-readable message in `ak_last_error()` (thread-local).
 *  - Calls are made per frame (or per batch), never per point.
 *  - Images are 8-bit, 1 (gray) or 3 (BGR, OpenCV's channel order) channels, rows contiguous.
 *  - Pixel coordinates follow OpenCV: origin at the top-left pixel's centre, x right, y down.
 *  - 3x3 matrices are passed as 9 doubles in ROW-major order (OpenCV's cv::Mat order).
 *  - Camera-space quantities here are in OpenCV's camera convention (+x right, +y down,
 *    +z forward). The Swift side converts to ARKit's (+y up, looking along -z).
 */
#ifndef ANCHORKIT_CV_H
#define ANCHORKIT_CV_H

/* One header per family; this one includes them all. */
#include "anchorkit_status.h"
#include "anchorkit_image.h"
#include "anchorkit_video.h"
#include "anchorkit_markers.h"
#include "anchorkit_codes.h"
#include "anchorkit_pose.h"
#include "anchorkit_features.h"
#include "anchorkit_homography.h"
#include "anchorkit_flow.h"
#include "anchorkit_lines.h"
#include "anchorkit_linalg.h"

#endif
