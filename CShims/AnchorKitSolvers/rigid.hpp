// rigid.hpp — private to the AnchorKitSolvers target: the rigid-pose helpers shared by its solvers
// (triangulation.cpp, two_view.cpp, pnp.cpp, bundle_adjustment.cpp, view_pose.cpp,
// pose_refinement.cpp, target_pose.cpp). Poses are camera_from_world, [R | t] as 12 row-major
// doubles at the C boundary; camera space is OpenCV's (+x right, +y down, +z forward).
#ifndef ANCHORKIT_CV_RIGID_HPP
#define ANCHORKIT_CV_RIGID_HPP

#include "anchorkit_world.h"
#include "../AnchorKitCV/internal.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

namespace akcv {

using Mat3 = Eigen::Matrix3d;
using Vec3 = Eigen::Vector3d;
using Vec2 = Eigen::Vector2d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat63 = Eigen::Matrix<double, 6, 3>;
using Mat26 = Eigen::Matrix<double, 2, 6>;
using Mat23 = Eigen::Matrix<double, 2, 3>;

// camera_from_world: x_camera = R x_world + t.
struct Pose {
    Mat3 R = Mat3::Identity();
    Vec3 t = Vec3::Zero();
};

inline ak_status check_pinhole(const char *fn, const ak_pinhole *camera) noexcept {
    if (!camera) return fail(AK_ERR_ARGUMENT, fn, "camera is NULL");
    return akcv::check_pinhole(fn, camera->fx, camera->fy, camera->cx, camera->cy);
}

inline ak_status check_count(const char *fn, int count, const char *what) noexcept {
    if (count < 0 || count > kMaxPoints)
        return fail(AK_ERR_ARGUMENT, fn, "%s must be in 0...%d, got %d", what, kMaxPoints, count);
    return AK_OK;
}

inline ak_status check_pixels(const char *fn, const float *pixels, int count, const char *what) noexcept {
    for (int i = 0; i < 2 * count; ++i)
        if (!std::isfinite(pixels[i])) return fail(AK_ERR_ARGUMENT, fn, "%s must be finite (point %d)", what, i / 2);
    return AK_OK;
}

// A rotation from 9 doubles, row-major with rows `stride` doubles apart (3: a 3x3 matrix; 4: the
// rotation of a 3x4 pose). Callers accumulate rounding (and Swift's Transform accepts 1e-3), so
// near-rotations are accepted and projected onto SO(3) by SVD.
inline ak_status read_rotation(const char *fn, const double *p, int stride, const char *what, int index, Mat3 &out) noexcept {
    Mat3 R;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            R(r, c) = p[stride * r + c];
            if (!std::isfinite(R(r, c))) {
                if (index < 0) return fail(AK_ERR_ARGUMENT, fn, "%s must be finite", what);
                return fail(AK_ERR_ARGUMENT, fn, "%s %d must be finite", what, index);
            }
        }
    const double off = (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff();
    if (!(off < 1e-3) || !(R.determinant() > 0)) {
        if (index < 0) return fail(AK_ERR_ARGUMENT, fn, "%s is not a rotation (orthonormal, det +1)", what);
        return fail(AK_ERR_ARGUMENT, fn, "%s %d is not a rotation (orthonormal, det +1)", what, index);
    }
    Eigen::JacobiSVD<Mat3> svd(R, Eigen::ComputeFullU | Eigen::ComputeFullV);
    out = svd.matrixU() * svd.matrixV().transpose();
    return AK_OK;
}

// A rigid pose from 12 row-major doubles ([R | t]).
inline ak_status read_pose(const char *fn, const double *p, const char *what, int index, Pose &out) noexcept {
    for (int r = 0; r < 3; ++r)
        if (!std::isfinite(p[4 * r + 3])) {
            if (index < 0) return fail(AK_ERR_ARGUMENT, fn, "%s must be finite", what);
            return fail(AK_ERR_ARGUMENT, fn, "%s %d must be finite", what, index);
        }
    if (ak_status s = read_rotation(fn, p, 4, what, index, out.R)) return s;
    out.t = Vec3(p[3], p[7], p[11]);
    return AK_OK;
}

inline void write_pose(const Pose &pose, double *p) {
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) p[4 * r + c] = pose.R(r, c);
        p[4 * r + 3] = pose.t[r];
    }
}

inline void identity_pose(double *p) { write_pose(Pose{}, p); }

inline Mat3 skew(const Vec3 &v) {
    Mat3 m;
    m << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
    return m;
}

// The rotation exp([w]x) (Rodrigues); first order below 1e-12 rad where the axis is undefined.
inline Mat3 exp_so3(const Vec3 &w) {
    const double angle = w.norm();
    if (angle < 1e-12) return Mat3::Identity() + skew(w);
    return Eigen::AngleAxisd(angle, w / angle).toRotationMatrix();
}

// The cost of a point behind its camera: far above any pixel error, so that a step that hides
// points behind a camera never looks like an improvement.
constexpr double kBehindPenaltyPixels = 1e6;
// Converged when a step lowers the cost by less than this fraction: a 1e-5 share of the squared
// error moves no pixel visibly.
constexpr double kCostTolerance = 1e-5;

// The rotation vector of R (the inverse of exp_so3).
inline Vec3 log_so3(const Mat3 &R) {
    const Eigen::AngleAxisd aa(R);
    return aa.angle() * aa.axis();
}

// Huber's loss of a residual of norm `e` (px) with threshold `k`, and its weight in iteratively
// reweighted least squares.
inline double huber_cost(double e, double k) { return e <= k ? e * e : 2 * k * e - k * k; }
inline double huber_weight(double e, double k) { return e <= k ? 1.0 : k / e; }

// The residual, projection of camera point Xc less the pixel (x, y); false behind the camera or
// when not finite.
inline bool pixel_residual(const ak_pinhole &K, const Vec3 &Xc, double x, double y, Vec2 &r) {
    if (!(Xc.z() > 0)) return false;
    r = Vec2(K.fx * Xc.x() / Xc.z() + K.cx - x, K.fy * Xc.y() / Xc.z() + K.cy - y);
    return r.allFinite();
}

// Marquardt's damping, scaled by the curvature itself (clamped as Ceres does) so that the step is
// invariant to the units of each parameter.
template <class M>
M damped(const M &m, double lambda) {
    M out = m;
    for (int i = 0; i < m.rows(); ++i) out(i, i) += lambda * std::min(std::max(m(i, i), 1e-6), 1e32);
    return out;
}

// Levenberg-Marquardt's step control: a step that lowers the cost is taken and the damping
// eased; one that does not is refused and the damping raised. The solve is done once a taken step
// lowered the cost by less than kCostTolerance of it, or the damping ran out.
class MarquardtSchedule {
public:
    explicit MarquardtSchedule(double cost) : current_(cost) {}
    double lambda() const { return lambda_; }
    // Whether a step to a position of cost `cost` is taken.
    bool takes(double cost) {
        if (cost < current_) {
            converged_ = current_ - cost < kCostTolerance * current_;
            current_ = cost;
            lambda_ = std::max(lambda_ / 10, 1e-12);
            return true;
        }
        lambda_ *= 10;
        return false;
    }
    bool done() const { return converged_ || lambda_ > 1e8; }

private:
    double current_, lambda_ = 1e-4;
    bool converged_ = false;
};

// d pixel / d camera point of a pinhole projection at camera point Xc (in front: Xc.z() > 0).
inline Mat23 projection_jacobian(const ak_pinhole &K, const Vec3 &Xc) {
    const double iz = 1 / Xc.z();
    Mat23 J;
    J << K.fx * iz, 0, -K.fx * Xc.x() * iz * iz, 0, K.fy * iz, -K.fy * Xc.y() * iz * iz;
    return J;
}

// d pixel / d(dw, dv) for the left perturbation x' = exp([dw]x) x + dv of the point x that
// projects with `projection` (projection_jacobian at the camera point): d x / d(dw, dv) = [-[x]x, I].
inline Mat26 left_perturbation_jacobian(const Mat23 &projection, const Vec3 &x) {
    Mat26 J;
    J.leftCols<3>() = -projection * skew(x);
    J.rightCols<3>() = projection;
    return J;
}

// A rotation known from elsewhere (a gyroscope), and its weight in squared pixels per squared
// radian: refine_pose's cost then also has weight * |log(R rotation^T)|^2.
struct RotationPrior {
    Mat3 rotation;
    double weight;
};

// Refines camera_from_object (R, t; OpenCV camera axes) to the least squared pixel error of
// `object` seen at `image` through K and OpenCV's 5 distortion coefficients (pose_refinement.cpp),
// and with `prior` to its rotation prior's term as well: Levenberg-Marquardt in at most
// `max_iterations` steps, never with a point behind the camera. Returns the RMS pixel error at
// the result; NaN (R, t untouched) when the start has a point behind the camera.
double refine_pose(const cv::Matx33d &K, const cv::Matx<double, 1, 5> &distortion, const std::vector<cv::Point3d> &object,
                   const std::vector<cv::Point2d> &image, cv::Matx33d &R, cv::Vec3d &t, int max_iterations,
                   const RotationPrior *prior = nullptr);

}  // namespace akcv

#endif
