/* anchorkit_alignment.h — AnchorKit's solvers: a planar reference aligned to a frame (align.cpp).
 * The rules of this boundary are written in anchorkit_cv.h. */
#ifndef ANCHORKIT_ALIGNMENT_H
#define ANCHORKIT_ALIGNMENT_H

#include "anchorkit_cv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A reference prepared for fast, repeated alignment (sparse inverse-compositional Lucas-Kanade,
 * Baker & Matthews 2004): up to `max_samples` of its strongest-gradient pixels, spread over the
 * picture, with their steepest-descent rows computed once. */
typedef struct ak_aligner ak_aligner;

ak_status ak_aligner_create(const ak_image *reference, int max_samples, ak_aligner **out);
void ak_aligner_free(ak_aligner *aligner);

/* Refines H (reference px -> image px, row-major, in/out) so that the reference's samples match
 * `image`, with an affine brightness model (gain and offset) and Huber weights that discount
 * occluded samples. Stops after `iterations` or when no corner moves more than `epsilon` px.
 * *correlation gets the zero-mean normalised cross-correlation (-1..1) of the samples in view
 * that agree with the fit (residual under 4.685 robust sigmas: not occluded), *coverage the
 * share of all samples they make up (0..1). Returns AK_OK with *correlation = -2 when
 * the alignment fails (too few samples in view, a degenerate H): H is then unchanged. */
ak_status ak_aligner_align(const ak_aligner *aligner, const ak_image *image, double h[9], int iterations,
                           double epsilon, double *correlation, double *coverage);

#ifdef __cplusplus
}
#endif

#endif
