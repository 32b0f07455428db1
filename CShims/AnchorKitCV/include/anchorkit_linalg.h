/* anchorkit_linalg.h — AnchorKit's C boundary: small dense linear algebra and plane geometry,
 * from Eigen and OpenCV rather than written again.
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header; in addition,
 * every matrix here is ROW-major doubles, and rotations act on column vectors (x' = R x). */
#ifndef ANCHORKIT_LINALG_H
#define ANCHORKIT_LINALG_H

#include "anchorkit_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Eigen-decomposition of the symmetric n x n matrix `a` (1 <= n <= 16; only its lower triangle
 * is read): values[i] ascending, unit vectors[i * n + k] = component k of the vector of
 * values[i] (Eigen's SelfAdjointEigenSolver). */
ak_status ak_symmetric_eigen(const double *a, int n, double *values, double *vectors);

/* The inverse of the n x n matrix `a` (1 <= n <= 64) into `inverse`, by LU decomposition with
 * full pivoting (Eigen's FullPivLU). *invertible gets 0, and `inverse` is left unchanged, when
 * `a` is singular to working precision. */
ak_status ak_invert(const double *a, int n, double *inverse, int *invertible);

/* The least-squares similarity target ~ scale R source + t of `count` >= 3 pairs of 3-D points
 * (x, y, z triples), Umeyama's method (Eigen's umeyama); `with_scale` 0 fixes the scale at 1.
 * rotation: 9 doubles; translation: 3. The caller ensures the source has extent. */
ak_status ak_similarity_fit(const double *source, const double *target, int count, int with_scale, double *scale,
                            double rotation[9], double translation[3]);

/* The rotation exp([v]x) of the rotation vector v (axis times angle, radians; OpenCV's
 * Rodrigues). Not its inverse: Rodrigues returns zero for rotations under about 1e-5 rad. */
ak_status ak_rotation_from_vector(const double v[3], double rotation[9]);

/* The convex hull of `count` 2-D points (x, y pairs): indices into the points, counter-clockwise
 * with +y up, in `hull` (room for `count`), *hull_count of them (OpenCV's convexHull). The
 * hull is computed on the points less their mean, in single precision; the indices pick the
 * caller's exact points. */
ak_status ak_convex_hull(const double *points, int count, int *hull, int *hull_count);

#ifdef __cplusplus
}
#endif

#endif
