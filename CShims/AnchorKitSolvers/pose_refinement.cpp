// pose_refinement.cpp — a camera_from_object pose refined to the least squared pixel error of its
// points, through a pinhole camera with OpenCV's five distortion coefficients (k1, k2, p1, p2,
// k3): Levenberg-Marquardt on SE(3) with the projection's Jacobian written out.
//
// It minimises what cv::solvePnPRefineLM minimises, for the few points of a marker or an image
// target and for world tracking's PnP inliers (pnp.cpp, a pinhole): OpenCV's general solver
// computes projectPoints' Jacobians for every camera parameter and allocates its matrices at
// every iteration, which for four points costs an order of magnitude more than the fit itself
// (Benchmarks/README.md, "Poses refined without OpenCV's general solver"); this one also runs
// to convergence rather than to an iteration count.
//
// Conventions: OpenCV's camera axes (+x right, +y down, +z forward); x_camera = R x_object + t;
// pixel centres at integers. A step perturbs the pose on the left: R <- exp([w]x) R,
// t <- exp([w]x) t + v, so that the camera point moves by w x X_c + v.
#include "rigid.hpp"

#include <cmath>
#include <limits>

namespace akcv {

namespace {

// Pixel of camera point X and its Jacobian d(pixel)/d(X); false behind the camera.
bool project(const cv::Matx33d &K, const cv::Matx<double, 1, 5> &d, const cv::Vec3d &X, cv::Vec2d &pixel,
             cv::Matx23d *jacobian) {
    if (!(X[2] > 0)) return false;
    const double iz = 1 / X[2], x = X[0] * iz, y = X[1] * iz;
    const double k1 = d(0), k2 = d(1), p1 = d(2), p2 = d(3), k3 = d(4);
    const double r2 = x * x + y * y;
    const double radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3));
    const double xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x);
    const double yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y;
    const double fx = K(0, 0), fy = K(1, 1);
    pixel = cv::Vec2d(fx * xd + K(0, 2), fy * yd + K(1, 2));
    if (jacobian) {
        const double dradial = k1 + r2 * (2 * k2 + 3 * k3 * r2);  // d(radial) / d(r2)
        // d(xd, yd) / d(x, y)
        const double a = radial + 2 * x * x * dradial + 2 * p1 * y + 6 * p2 * x;
        const double b = 2 * x * y * dradial + 2 * p1 * x + 2 * p2 * y;
        const double c = radial + 2 * y * y * dradial + 6 * p1 * y + 2 * p2 * x;
        // d(x, y) / d(X) = [1/z, 0, -x/z; 0, 1/z, -y/z]
        *jacobian = cv::Matx23d(fx * a * iz, fx * b * iz, -fx * (a * x + b * y) * iz,
                                fy * b * iz, fy * c * iz, -fy * (b * x + c * y) * iz);
    }
    return std::isfinite(pixel[0]) && std::isfinite(pixel[1]);
}

// log(R prior^T): the rotation's departure from the prior, as a left perturbation.
Vec3 prior_residual(const cv::Matx33d &R, const RotationPrior &prior) {
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> rotation(R.val);  // Matx: row-major
    return log_so3(rotation * prior.rotation.transpose());
}

// Sum of squared pixel errors and the prior's term; infinite when a point is behind the camera.
double cost(const cv::Matx33d &K, const cv::Matx<double, 1, 5> &d, const std::vector<cv::Point3d> &object,
            const std::vector<cv::Point2d> &image, const cv::Matx33d &R, const cv::Vec3d &t, const RotationPrior *prior) {
    double sum = prior ? prior->weight * prior_residual(R, *prior).squaredNorm() : 0;
    for (size_t i = 0; i < object.size(); ++i) {
        cv::Vec2d p;
        if (!project(K, d, R * cv::Vec3d(object[i].x, object[i].y, object[i].z) + t, p, nullptr))
            return std::numeric_limits<double>::infinity();
        sum += (p[0] - image[i].x) * (p[0] - image[i].x) + (p[1] - image[i].y) * (p[1] - image[i].y);
    }
    return sum;
}

// Marquardt's damping, scaled by the curvature itself, and its schedule.
constexpr double kInitialDamping = 1e-3, kDampingUp = 10, kDampingDown = 0.1, kMaxDamping = 1e12;
// Converged when a step lowers the cost by less than this share, or moves no point by more than
// this many pixels' worth (the parameters' own scale is the Jacobian's).
constexpr double kRelativeDecrease = 1e-12, kTinyStep = 1e-10;

}  // namespace

double refine_pose(const cv::Matx33d &K, const cv::Matx<double, 1, 5> &distortion, const std::vector<cv::Point3d> &object,
                   const std::vector<cv::Point2d> &image, cv::Matx33d &R, cv::Vec3d &t, int max_iterations,
                   const RotationPrior *prior) {
    double current = cost(K, distortion, object, image, R, t, prior);
    if (!std::isfinite(current)) return std::numeric_limits<double>::quiet_NaN();
    const auto rms = [&] { return std::sqrt(current / static_cast<double>(object.size())); };
    double lambda = kInitialDamping;
    for (int it = 0; it < max_iterations && current > 0; ++it) {
        Mat6 H = Mat6::Zero();
        Vec6 g = Vec6::Zero();
        for (size_t i = 0; i < object.size(); ++i) {
            const cv::Vec3d X = R * cv::Vec3d(object[i].x, object[i].y, object[i].z) + t;
            cv::Vec2d p;
            cv::Matx23d J;
            if (!project(K, distortion, X, p, &J)) return std::numeric_limits<double>::quiet_NaN();
            const Eigen::Map<const Eigen::Matrix<double, 2, 3, Eigen::RowMajor>> projection(J.val);  // Matx: row-major
            const Mat26 A = left_perturbation_jacobian(projection, Vec3(X[0], X[1], X[2]));
            H.noalias() += A.transpose() * A;
            g.noalias() += A.transpose() * Vec2(p[0] - image[i].x, p[1] - image[i].y);
        }
        if (prior) {
            // d log(exp(w) R prior^T) / dw is the identity to first order.
            H.topLeftCorner<3, 3>().diagonal().array() += prior->weight;
            g.head<3>() += prior->weight * prior_residual(R, *prior);
        }
        bool stepped = false;
        while (lambda < kMaxDamping) {
            Mat6 damped = H;
            damped.diagonal() *= 1 + lambda;
            const Vec6 step = -damped.ldlt().solve(g);
            if (!step.allFinite()) { lambda *= kDampingUp; continue; }
            const Mat3 w = exp_so3(step.head<3>());
            const cv::Matx33d turn(w(0, 0), w(0, 1), w(0, 2), w(1, 0), w(1, 1), w(1, 2), w(2, 0), w(2, 1), w(2, 2));
            const cv::Matx33d R2 = turn * R;
            const cv::Vec3d t2 = turn * t + cv::Vec3d(step[3], step[4], step[5]);
            const double next = cost(K, distortion, object, image, R2, t2, prior);
            if (next < current) {
                const double decrease = current - next;
                const double moved = std::sqrt(std::max(0.0, static_cast<double>(step.dot(H * step))));
                R = R2, t = t2, current = next;
                lambda = std::max(lambda * kDampingDown, 1e-12);
                stepped = true;
                if (decrease <= kRelativeDecrease * next || moved <= kTinyStep) return rms();
                break;
            }
            lambda *= kDampingUp;
        }
        if (!stepped) break;  // no step lowers the cost: a minimum to the precision of doubles
    }
    return rms();
}

}  // namespace akcv
