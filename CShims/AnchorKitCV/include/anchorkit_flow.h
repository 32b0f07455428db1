/* anchorkit_flow.h — AnchorKit's C boundary: optical flow.
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header. */
#ifndef ANCHORKIT_FLOW_H
#define ANCHORKIT_FLOW_H

#include "anchorkit_image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An image pyramid for pyramidal Lucas-Kanade, built once per frame and reused. */
typedef struct ak_flow_pyramid ak_flow_pyramid;

ak_status ak_flow_pyramid_build(const ak_image *image, int window, int levels, ak_flow_pyramid **out);
void ak_flow_pyramid_free(ak_flow_pyramid *pyramid);

/* Tracks `count` points (x,y interleaved) from `previous` to `next` (calcOpticalFlowPyrLK with
 * the given window and levels; `tracked` may hold initial guesses when `use_guesses` is 1).
 * status[i] = 1 where the point was found and passed a forward-backward check (tracked back from
 * `next` to `previous`, it lands within 1 px of where it started); error[i] = its mean absolute
 * photometric error. `error` may be NULL. Both pyramids must come from images of the same size,
 * built with the same window; the levels used are the fewer of the two. */
ak_status ak_flow_track(const ak_flow_pyramid *previous, const ak_flow_pyramid *next, const float *points, int count,
                        float *tracked, int use_guesses, uint8_t *status, float *error);

#ifdef __cplusplus
}
#endif

#endif
