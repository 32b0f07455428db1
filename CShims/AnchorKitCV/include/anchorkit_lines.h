/* anchorkit_lines.h — AnchorKit's C boundary: straight line segments.
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header. */
#ifndef ANCHORKIT_LINES_H
#define ANCHORKIT_LINES_H

#include "anchorkit_image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A straight edge: its two ends, pixels (OpenCV's: origin at the top-left pixel's centre), and
 * the mean gray level beside it on either side (left and right as seen walking from 1 to 2 with
 * +y down: left = the side of the normal (y2 - y1, x1 - x2)), from strips 3 to 8 px off it. */
typedef struct {
    float x1, y1, x2, y2;
    float left_gray, right_gray;
} ak_line_segment;

/* The straight edges of `image` at least `min_length` px long, longest first: OpenCV's Line
 * Segment Detector (von Gioi et al., standard refinement) on the gray image, with the pieces of
 * one edge that it breaks where other lines cross it (a wall's foot at each tile joint) joined
 * into one. Writes at most `capacity` into `out` and their number into `count`. */
ak_status ak_line_segments(const ak_image *image, float min_length, ak_line_segment *out, int capacity, int *count);

#ifdef __cplusplus
}
#endif

#endif
