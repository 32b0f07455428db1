/* anchorkit_homography.h — AnchorKit's C boundary: homographies.
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header. */
#ifndef ANCHORKIT_HOMOGRAPHY_H
#define ANCHORKIT_HOMOGRAPHY_H

#include "anchorkit_pose.h"
#include "anchorkit_image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    AK_ROBUST_RANSAC = 0,
    AK_ROBUST_LMEDS = 1,
    AK_ROBUST_RHO = 2,
    AK_ROBUST_USAC_DEFAULT = 3,
    AK_ROBUST_USAC_FAST = 4,
    AK_ROBUST_USAC_ACCURATE = 5,
    AK_ROBUST_USAC_MAGSAC = 6,
    AK_ROBUST_LEAST_SQUARES = 7   /* all points, no outlier rejection (refinement on inliers) */
} ak_robust_method;

/* The homography mapping `src` to `dst` (count points, x,y interleaved, px): H row-major,
 * dst ~ H src. `inliers` (count bytes, may be NULL) gets 1 for inliers; *inlier_count their
 * number. Fails with AK_ERR_ARGUMENT for fewer than 4 points; returns AK_OK with
 * *inlier_count = 0 when no homography is found. */
ak_status ak_find_homography(const float *src, const float *dst, int count, ak_robust_method method,
                             double threshold, int max_iterations, double confidence, double h[9], uint8_t *inliers,
                             int *inlier_count);

/* Refines H (reference px -> image px, row-major, in/out) by aligning `reference` (gray) to
 * `image` with ECC over the reference's full area (OpenCV's findTransformECC, homography
 * motion). The reference should be roughly the size of its footprint in the image (pass a
 * pyramid level and the matching H). *correlation gets the final ECC value (-1..1). Returns
 * AK_OK with *correlation = -2 when ECC does not converge (H unchanged). */
ak_status ak_refine_homography(const ak_image *reference, const ak_image *image, double h[9], int iterations,
                               double epsilon, double *correlation);

/* Zero-mean normalised cross-correlation between `reference` and the image warped into the
 * reference's frame by H^-1 (H: reference px -> image px), over the reference pixels that land
 * inside the image. *coverage gets that fraction (0..1). */
ak_status ak_homography_correlation(const ak_image *reference, const ak_image *image, const double h[9],
                                    double *correlation, double *coverage);

#ifdef __cplusplus
}
#endif

#endif
