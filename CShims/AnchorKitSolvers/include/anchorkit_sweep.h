/* anchorkit_sweep.h — AnchorKit's solvers: plane sweep and block scores of two views (sweep.cpp).
 * The rules of this boundary are written in anchorkit_cv.h. */
#ifndef ANCHORKIT_SWEEP_H
#define ANCHORKIT_SWEEP_H

#include "anchorkit_cv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Plane sweep: how well each patch of `reference` agrees with `other` under each of `count`
 * plane-induced homographies (row-major 3x3 each, reference px -> other px). The reference is
 * tiled in `patch` x `patch` blocks (columns = width / patch, rows = height / patch, row-major);
 * scores[k * rows * columns + block] gets the zero-mean normalised cross-correlation of the
 * block with `other` warped by H_k, or NaN where the block maps partly outside `other` (or
 * behind it) or either side's standard deviation is under `min_std` gray levels (no texture to
 * judge by). Both images 8-bit gray or BGR (compared in gray). One call per view pair. */
ak_status ak_plane_sweep(const ak_image *reference, const ak_image *other, const double *homographies, int count,
                         int patch, double min_std, float *scores);

/* Scores of single blocks, each under its own homography: block k has its top-left pixel at
 * (corners[2k], corners[2k+1]) of `reference` and side `patch`; scores[k] as in ak_plane_sweep
 * (NaN outside `other`, or too flat). */
ak_status ak_block_scores(const ak_image *reference, const ak_image *other, const int *corners, const double *homographies,
                          int count, int patch, double min_std, float *scores);

#ifdef __cplusplus
}
#endif

#endif
