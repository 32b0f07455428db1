// linalg.cpp — small dense linear algebra (Eigen) and convex hulls (OpenCV) for the Swift side:
// thin wrappers, one call per decomposition.
#include "internal.hpp"

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>

using namespace akcv;

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

bool all_finite(const double *values, int count) {
    for (int i = 0; i < count; ++i)
        if (!std::isfinite(values[i])) return false;
    return true;
}

}  // namespace

extern "C" {

ak_status ak_symmetric_eigen(const double *a, int n, double *values, double *vectors) {
    const char *fn = "ak_symmetric_eigen";
    return guarded(fn, [&]() -> ak_status {
        if (!a || !values || !vectors) return fail(AK_ERR_ARGUMENT, fn, "null argument");
        if (n < 1 || n > 16) return fail(AK_ERR_ARGUMENT, fn, "size must be in 1...16, got %d", n);
        if (!all_finite(a, n * n)) return fail(AK_ERR_ARGUMENT, fn, "the matrix has a non-finite element");
        const Eigen::Map<const RowMatrix> m(a, n, n);
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(m);
        if (solver.info() != Eigen::Success) return fail(AK_ERR_INTERNAL, fn, "the eigen-solver did not converge");
        for (int i = 0; i < n; ++i) {
            values[i] = solver.eigenvalues()(i);
            for (int k = 0; k < n; ++k) vectors[i * n + k] = solver.eigenvectors()(k, i);
        }
        return AK_OK;
    });
}

ak_status ak_invert(const double *a, int n, double *inverse, int *invertible) {
    const char *fn = "ak_invert";
    return guarded(fn, [&]() -> ak_status {
        if (!a || !inverse || !invertible) return fail(AK_ERR_ARGUMENT, fn, "null argument");
        *invertible = 0;
        if (n < 1 || n > 64) return fail(AK_ERR_ARGUMENT, fn, "size must be in 1...64, got %d", n);
        if (!all_finite(a, n * n)) return fail(AK_ERR_ARGUMENT, fn, "the matrix has a non-finite element");
        const Eigen::FullPivLU<RowMatrix> lu(Eigen::Map<const RowMatrix>(a, n, n));
        if (!lu.isInvertible()) return AK_OK;
        Eigen::Map<RowMatrix>(inverse, n, n) = lu.inverse();
        *invertible = 1;
        return AK_OK;
    });
}

ak_status ak_similarity_fit(const double *source, const double *target, int count, int with_scale, double *scale,
                            double rotation[9], double translation[3]) {
    const char *fn = "ak_similarity_fit";
    return guarded(fn, [&]() -> ak_status {
        if (!source || !target || !scale || !rotation || !translation) return fail(AK_ERR_ARGUMENT, fn, "null argument");
        if (count < 3) return fail(AK_ERR_ARGUMENT, fn, "needs 3 pairs or more, got %d", count);
        if (!all_finite(source, 3 * count) || !all_finite(target, 3 * count))
            return fail(AK_ERR_ARGUMENT, fn, "a point has a non-finite coordinate");
        // Points as the columns of 3 x count matrices (the x, y, z triples are column-major).
        const Eigen::Map<const Eigen::Matrix3Xd> src(source, 3, count), dst(target, 3, count);
        const Eigen::Matrix4d t = Eigen::umeyama(src, dst, with_scale != 0);
        const Eigen::Matrix3d scaled = t.topLeftCorner<3, 3>();
        const double s = with_scale ? std::cbrt(scaled.determinant()) : 1.0;
        *scale = s;
        Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> r(rotation);
        Eigen::Map<Eigen::Vector3d> shift(translation);
        r = scaled / s;
        shift = t.topRightCorner<3, 1>();
        return AK_OK;
    });
}

ak_status ak_rotation_from_vector(const double v[3], double rotation[9]) {
    const char *fn = "ak_rotation_from_vector";
    return guarded(fn, [&]() -> ak_status {
        if (!v || !rotation) return fail(AK_ERR_ARGUMENT, fn, "null argument");
        if (!all_finite(v, 3)) return fail(AK_ERR_ARGUMENT, fn, "the rotation vector has a non-finite element");
        cv::Matx33d r;
        cv::Rodrigues(cv::Vec3d(v[0], v[1], v[2]), r);
        for (int i = 0; i < 9; ++i) rotation[i] = r.val[i];
        return AK_OK;
    });
}

ak_status ak_convex_hull(const double *points, int count, int *hull, int *hull_count) {
    const char *fn = "ak_convex_hull";
    return guarded(fn, [&]() -> ak_status {
        if (!hull_count) return fail(AK_ERR_ARGUMENT, fn, "null argument");
        *hull_count = 0;
        if (count < 0 || (count > 0 && (!points || !hull))) return fail(AK_ERR_ARGUMENT, fn, "null or negative points");
        if (!all_finite(points, 2 * count)) return fail(AK_ERR_ARGUMENT, fn, "a point has a non-finite coordinate");
        if (count == 0) return AK_OK;
        double mx = 0, my = 0;
        for (int i = 0; i < count; ++i) { mx += points[2 * i]; my += points[2 * i + 1]; }
        mx /= count; my /= count;
        std::vector<cv::Point2f> centred(count);
        for (int i = 0; i < count; ++i)
            centred[i] = cv::Point2f(static_cast<float>(points[2 * i] - mx), static_cast<float>(points[2 * i + 1] - my));
        std::vector<int> indices;
        // OpenCV states the orientation in axes with +y up, as the header does.
        cv::convexHull(centred, indices, /*clockwise=*/false, /*returnPoints=*/false);
        for (size_t i = 0; i < indices.size(); ++i) hull[i] = indices[i];
        *hull_count = static_cast<int>(indices.size());
        return AK_OK;
    });
}

}  // extern "C"
