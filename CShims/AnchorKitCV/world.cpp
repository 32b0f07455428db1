// world.cpp — the geometry behind monocular visual odometry (anchorkit_world.h): triangulation,
// ORB-SLAM's two-view initialisation with model selection, PnP with RANSAC, and local bundle
// adjustment (Levenberg-Marquardt with Eigen, Schur complement on the points).
#include "internal.hpp"

#include "anchorkit_world.h"
#include "rigid.hpp"

#include <opencv2/calib3d.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace akcv;

namespace {

// The reduced camera system is solved densely: (6 x free poses)^2 doubles, cubic time.
constexpr int kMaxFreePoses = 128;
constexpr double kRadToDeg = 180.0 / CV_PI;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Rays closer than this (ORB-SLAM's cos parallax > 0.99998) meet about as well behind a camera
// as in front of it: the sign of their depth says nothing about a pose hypothesis.
constexpr double kSignlessParallaxDegrees = 0.36;

// ORB-SLAM's chi-square thresholds (95 %): 2 degrees of freedom for a transfer error, 1 for a
// distance to an epipolar line. The fundamental score adds the 2-DOF value so that both models
// score an exact inlier equally.
constexpr double kChi2TwoDof = 5.991;
constexpr double kChi2OneDof = 3.841;

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    const double hi = v[mid];
    if (v.size() % 2) return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + mid));
}

// ---------------------------------------------------------------- triangulation

// Two views of the same points: pixels and normalised coordinates ((x - cx) / fx, (y - cy) / fy).
struct Views {
    std::vector<Vec2> px1, px2, n1, n2;

    Views(const ak_pinhole &cam, const float *p1, const float *p2, int count) {
        px1.resize(count), px2.resize(count), n1.resize(count), n2.resize(count);
        for (int i = 0; i < count; ++i) {
            px1[i] = Vec2(p1[2 * i], p1[2 * i + 1]);
            px2[i] = Vec2(p2[2 * i], p2[2 * i + 1]);
            n1[i] = Vec2((px1[i].x() - cam.cx) / cam.fx, (px1[i].y() - cam.cy) / cam.fy);
            n2[i] = Vec2((px2[i].x() - cam.cx) / cam.fx, (px2[i].y() - cam.cy) / cam.fy);
        }
    }
};

struct Triangulated {
    bool finite = false;     // false: the rays meet at no finite point
    Vec3 X = Vec3::Zero();   // world
    double depth1 = 0, depth2 = 0;
    double error1 = kNaN, error2 = kNaN;  // px
    double parallax = 0;     // degrees between the viewing rays
};

double reprojection_error(const ak_pinhole &cam, const Vec3 &Xc, const Vec2 &px) {
    // A point behind the camera still has a projective image (its mirror's): that is what the
    // two-view test compares for rays too close to tell front from back.
    if (Xc.z() == 0) return std::numeric_limits<double>::infinity();
    const Vec2 p(cam.fx * Xc.x() / Xc.z() + cam.cx, cam.fy * Xc.y() / Xc.z() + cam.cy);
    return (p - px).norm();
}

// Linear (DLT) triangulation of the points `which` in normalised coordinates, where it is
// well conditioned: OpenCV's triangulatePoints (an SVD per point, in the optimised library).
void triangulate(const ak_pinhole &cam, const Pose &c1, const Pose &c2, const Views &v, const std::vector<int> &which,
                 std::vector<Triangulated> &out) {
    const int n = static_cast<int>(which.size());
    out.assign(n, Triangulated{});
    if (n == 0) return;
    cv::Mat P1(3, 4, CV_64F), P2(3, 4, CV_64F);
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) P1.at<double>(r, c) = c1.R(r, c), P2.at<double>(r, c) = c2.R(r, c);
        P1.at<double>(r, 3) = c1.t[r], P2.at<double>(r, 3) = c2.t[r];
    }
    cv::Mat a(2, n, CV_64F), b(2, n, CV_64F);
    for (int k = 0; k < n; ++k) {
        const int i = which[k];
        a.at<double>(0, k) = v.n1[i].x(), a.at<double>(1, k) = v.n1[i].y();
        b.at<double>(0, k) = v.n2[i].x(), b.at<double>(1, k) = v.n2[i].y();
    }
    cv::Mat X4, X64;
    cv::triangulatePoints(P1, P2, a, b, X4);
    X4.convertTo(X64, CV_64F);
    if (X64.rows != 4 || X64.cols != n) CV_Error(cv::Error::StsInternal, "triangulatePoints returned an unexpected shape");

    const Mat3 R1t = c1.R.transpose(), R2t = c2.R.transpose();
    const Vec3 centre1 = -(R1t * c1.t), centre2 = -(R2t * c2.t);
    for (int k = 0; k < n; ++k) {
        const int i = which[k];
        Triangulated &t = out[k];
        // Without a finite point, the angle between the viewing rays themselves (near 0 for the
        // parallel rays that put a point at infinity).
        const Vec3 b1 = R1t * Vec3(v.n1[i].x(), v.n1[i].y(), 1), b2 = R2t * Vec3(v.n2[i].x(), v.n2[i].y(), 1);
        t.parallax = std::atan2(b1.cross(b2).norm(), b1.dot(b2)) * kRadToDeg;
        const Eigen::Vector4d h(X64.at<double>(0, k), X64.at<double>(1, k), X64.at<double>(2, k), X64.at<double>(3, k));
        if (!h.allFinite() || !(std::abs(h[3]) > 1e-12 * h.head<3>().norm())) continue;
        t.X = h.head<3>() / h[3];
        if (!t.X.allFinite()) continue;
        t.finite = true;
        // The angle the point subtends between the camera centres (ORB-SLAM's parallax): the same
        // as the rays' where they meet, but 0, not the rotation angle, for cameras that share a
        // centre.
        const Vec3 a1 = t.X - centre1, a2 = t.X - centre2;
        t.parallax = std::atan2(a1.cross(a2).norm(), a1.dot(a2)) * kRadToDeg;
        const Vec3 x1 = c1.R * t.X + c1.t, x2 = c2.R * t.X + c2.t;
        t.depth1 = x1.z(), t.depth2 = x2.z();
        t.error1 = reprojection_error(cam, x1, v.px1[i]);
        t.error2 = reprojection_error(cam, x2, v.px2[i]);
    }
}

int classify(const Triangulated &t, double max_error, double min_parallax) {
    if (!t.finite) return AK_POINT_DEGENERATE;
    if (!(t.depth1 > 0 && t.depth2 > 0)) return AK_POINT_BEHIND;
    if (!(t.error1 <= max_error && t.error2 <= max_error)) return AK_POINT_REPROJECTION;
    if (!(t.parallax >= min_parallax)) return AK_POINT_LOW_PARALLAX;
    return AK_POINT_GOOD;
}

// ORB-SLAM's test of a pose hypothesis: a point supports it when it reprojects well in both
// views and, unless its rays are nearly parallel, lies in front of both cameras.
bool consistent(const Triangulated &t, double max_error) {
    if (!t.finite || !(t.error1 <= max_error && t.error2 <= max_error)) return false;
    return t.parallax < kSignlessParallaxDegrees || (t.depth1 > 0 && t.depth2 > 0);
}

// ---------------------------------------------------------------- bundle adjustment

struct Observation {
    int cam = 0, pt = 0;
    double x = 0, y = 0;
};

struct BundleOutcome {
    int iterations = 0, accepted = 0, inlier_count = 0;
    double initial_rms = 0, final_rms = 0, inlier_rms = 0;
};

// Steps of the robust stage that precedes outlier rejection (see BundleAdjuster::run).
constexpr int kRobustStageIterations = 10;

class BundleAdjuster {
public:
    BundleAdjuster(const ak_pinhole &camera, std::vector<Pose> &poses, const std::vector<uint8_t> &pose_fixed,
                   std::vector<Vec3> &points, const std::vector<uint8_t> &point_fixed,
                   const std::vector<Observation> &observations, double huber)
        : K_(camera), poses_(poses), points_(points), obs_(observations), huber_(huber) {
        cam_free_.assign(poses.size(), -1);
        for (size_t c = 0; c < poses.size(); ++c)
            if (!pose_fixed[c]) cam_free_[c] = free_cams_++;
        pt_free_.assign(points.size(), -1);
        for (size_t p = 0; p < points.size(); ++p)
            if (!point_fixed[p]) pt_free_[p] = free_pts_++;
    }

    // Converges with every observation, then (with `reject_outliers`) drops the observations
    // that still miss by more than `inlier_threshold` and converges again, as ORB-SLAM's local
    // BA does: the Huber kernel only bounds an outlier's pull, it does not remove it.
    BundleOutcome run(int max_iterations, double inlier_threshold, bool reject_outliers, uint8_t *inliers) {
        BundleOutcome out;
        out.initial_rms = rms(nullptr, 0, nullptr);
        active_.assign(obs_.size(), 1);
        if (free_cams_ + free_pts_ > 0 && !obs_.empty()) {
            // Before a rejection stage, the first only has to separate the outliers: with them,
            // Huber's IRLS creeps toward its minimum for many steps (ORB-SLAM stops it at 5).
            optimise(reject_outliers ? std::min(max_iterations, kRobustStageIterations) : max_iterations, out);
            if (reject_outliers) {
                std::vector<uint8_t> keep(obs_.size(), 0);
                int kept = 0;
                rms(keep.data(), inlier_threshold, &kept);
                if (kept < static_cast<int>(obs_.size())) {
                    active_ = keep;
                    optimise(max_iterations, out);
                }
            }
        }
        int n = 0;
        out.final_rms = rms(nullptr, 0, nullptr);
        out.inlier_rms = rms(inliers, inlier_threshold, &n);
        out.inlier_count = n;
        return out;
    }

private:
    const ak_pinhole K_;
    std::vector<Pose> &poses_;
    std::vector<Vec3> &points_;
    const std::vector<Observation> &obs_;
    std::vector<uint8_t> active_;  // observations in the cost (0: rejected as outliers)
    const double huber_;
    std::vector<int> cam_free_, pt_free_;
    int free_cams_ = 0, free_pts_ = 0;

    // The linearisation at the current estimate (IRLS: Huber weights folded in).
    std::vector<Mat6> U_;     // per free pose: sum w Jc^T Jc
    std::vector<Vec6> gc_;    // per free pose: sum w Jc^T r
    std::vector<Mat3> V_;     // per free point: sum w Jp^T Jp
    std::vector<Vec3> gp_;    // per free point: sum w Jp^T r
    std::vector<Mat63> W_;    // per observation: w Jc^T Jp (both free)
    std::vector<int> pt_obs_start_, pt_obs_;  // per free point: its observations with a free pose (CSR)

    bool residual(const Pose &c, const Vec3 &X, const Observation &o, Vec3 &Xc, Vec2 &r) const {
        Xc = c.R * X + c.t;
        return pixel_residual(K_, Xc, o.x, o.y, r);
    }

    double rho(double e) const { return huber_cost(e, huber_); }

    double cost(const std::vector<Pose> &poses, const std::vector<Vec3> &points) const {
        double sum = 0;
        Vec3 Xc;
        Vec2 r;
        for (size_t k = 0; k < obs_.size(); ++k) {
            if (!active_[k]) continue;
            const Observation &o = obs_[k];
            sum += residual(poses[o.cam], points[o.pt], o, Xc, r) ? rho(r.norm()) : rho(kBehindPenaltyPixels);
        }
        return sum;
    }

    // RMS over the observations in front of their camera; with `count`, only over those under
    // `threshold` (the inliers: their number goes to *count, and `flags` gets the test of each).
    double rms(uint8_t *flags, double threshold, int *count) const {
        double sum = 0;
        int n = 0;
        Vec3 Xc;
        Vec2 r;
        for (size_t k = 0; k < obs_.size(); ++k) {
            const Observation &o = obs_[k];
            bool ok = residual(poses_[o.cam], points_[o.pt], o, Xc, r);
            const double e2 = ok ? r.squaredNorm() : 0;
            if (count) ok = ok && e2 < threshold * threshold;
            if (flags) flags[k] = ok ? 1 : 0;
            if (ok) sum += e2, ++n;
        }
        if (count) *count = n;
        return n ? std::sqrt(sum / n) : 0;
    }

    void linearise() {
        U_.assign(free_cams_, Mat6::Zero());
        gc_.assign(free_cams_, Vec6::Zero());
        V_.assign(free_pts_, Mat3::Zero());
        gp_.assign(free_pts_, Vec3::Zero());
        W_.resize(obs_.size());
        std::vector<int> per_point(free_pts_ + 1, 0);
        std::vector<uint8_t> coupled(obs_.size(), 0);
        Vec3 Xc;
        Vec2 r;
        for (size_t k = 0; k < obs_.size(); ++k) {
            const Observation &o = obs_[k];
            const int cf = cam_free_[o.cam], pf = pt_free_[o.pt];
            if ((cf < 0 && pf < 0) || !active_[k]) continue;
            const Pose &c = poses_[o.cam];
            if (!residual(c, points_[o.pt], o, Xc, r)) continue;
            const double e = r.norm();
            const double w = huber_weight(e, huber_);
            const Mat23 Jproj = projection_jacobian(K_, Xc);
            Mat26 Jc;
            if (cf >= 0) {
                Jc = left_perturbation_jacobian(Jproj, Xc);
                U_[cf].noalias() += w * Jc.transpose() * Jc;
                gc_[cf].noalias() += w * Jc.transpose() * r;
            }
            if (pf >= 0) {
                const Mat23 Jp = Jproj * c.R;
                V_[pf].noalias() += w * Jp.transpose() * Jp;
                gp_[pf].noalias() += w * Jp.transpose() * r;
                if (cf >= 0) {
                    W_[k].noalias() = w * Jc.transpose() * Jp;
                    coupled[k] = 1;
                    ++per_point[pf + 1];
                }
            }
        }
        for (int p = 0; p < free_pts_; ++p) per_point[p + 1] += per_point[p];
        pt_obs_start_ = per_point;
        pt_obs_.assign(per_point[free_pts_], 0);
        std::vector<int> fill(per_point.begin(), per_point.end() - 1);
        for (size_t k = 0; k < obs_.size(); ++k)
            if (coupled[k]) pt_obs_[fill[pt_free_[obs_[k].pt]]++] = static_cast<int>(k);
    }


    // The damped step: the Schur complement eliminates the points, the reduced camera system is
    // solved densely, then each point's step follows from its 3x3 block.
    bool solve(double lambda, Eigen::VectorXd &dc, std::vector<Vec3> &dp) {
        const int nc = 6 * free_cams_;
        Eigen::MatrixXd S = Eigen::MatrixXd::Zero(nc, nc);
        Eigen::VectorXd rhs(nc);
        for (int c = 0; c < free_cams_; ++c) {
            S.block<6, 6>(6 * c, 6 * c) = damped(U_[c], lambda);
            rhs.segment<6>(6 * c) = -gc_[c];
        }
        std::vector<Mat3> Vinv(free_pts_);
        std::vector<Mat63> Y;
        for (int p = 0; p < free_pts_; ++p) {
            bool invertible = false;
            damped(V_[p], lambda).computeInverseWithCheck(Vinv[p], invertible, 1e-300);
            if (!invertible || !Vinv[p].allFinite()) return false;
            const int b = pt_obs_start_[p], e = pt_obs_start_[p + 1];
            Y.resize(e - b);
            for (int a = b; a < e; ++a) {
                const int k = pt_obs_[a], ca = cam_free_[obs_[k].cam];
                Y[a - b].noalias() = W_[k] * Vinv[p];
                rhs.segment<6>(6 * ca).noalias() += Y[a - b] * gp_[p];
                for (int l = b; l < e; ++l) {
                    const int cb = cam_free_[obs_[pt_obs_[l]].cam];
                    if (cb < ca) continue;  // the upper triangle is enough for LDLT
                    S.block<6, 6>(6 * ca, 6 * cb).noalias() -= Y[a - b] * W_[pt_obs_[l]].transpose();
                }
            }
        }
        dc.resize(nc);
        if (nc > 0) {
            Eigen::LDLT<Eigen::MatrixXd, Eigen::Upper> ldlt(S);
            if (ldlt.info() != Eigen::Success) return false;
            dc = ldlt.solve(rhs);
            if (!dc.allFinite()) return false;
        }
        dp.assign(free_pts_, Vec3::Zero());
        for (int p = 0; p < free_pts_; ++p) {
            Vec3 g = -gp_[p];
            for (int a = pt_obs_start_[p]; a < pt_obs_start_[p + 1]; ++a) {
                const int k = pt_obs_[a];
                g.noalias() -= W_[k].transpose() * dc.segment<6>(6 * cam_free_[obs_[k].cam]);
            }
            dp[p] = Vinv[p] * g;
            if (!dp[p].allFinite()) return false;
        }
        return true;
    }

    void optimise(int max_iterations, BundleOutcome &out) {
        double current = cost(poses_, points_);
        double lambda = 1e-4, nu = 2;
        bool stale = true;  // the linearisation is not at the current estimate
        Eigen::VectorXd dc;
        std::vector<Vec3> dp;
        std::vector<Pose> poses;
        std::vector<Vec3> points;
        for (int tried = 0; tried < max_iterations; ++tried) {
            if (stale) linearise(), stale = false;
            ++out.iterations;
            if (!solve(lambda, dc, dp)) {
                lambda *= nu, nu *= 2;
                if (lambda > 1e16) break;
                continue;
            }
            poses = poses_;
            points = points_;
            double step = 0;
            for (size_t c = 0; c < poses.size(); ++c) {
                const int f = cam_free_[c];
                if (f < 0) continue;
                const Vec3 w = dc.segment<3>(6 * f), v = dc.segment<3>(6 * f + 3);
                const Mat3 dR = exp_so3(w);
                poses[c].R = dR * poses[c].R;
                poses[c].t = dR * poses[c].t + v;
                step = std::max(step, std::max(w.cwiseAbs().maxCoeff(), v.cwiseAbs().maxCoeff()));
            }
            for (size_t p = 0; p < points.size(); ++p) {
                const int f = pt_free_[p];
                if (f < 0) continue;
                points[p] += dp[f];
                step = std::max(step, dp[f].cwiseAbs().maxCoeff());
            }
            const double next = cost(poses, points);
            if (std::isfinite(next) && next < current) {
                const double decrease = current - next;
                poses_.swap(poses);
                points_.swap(points);
                ++out.accepted;
                stale = true;
                lambda = std::max(lambda / 3, 1e-12), nu = 2;
                const bool converged = decrease <= kCostTolerance * current || step < 1e-12;
                current = next;
                if (converged) break;
            } else {
                lambda *= nu, nu *= 2;
                if (lambda > 1e16) break;
            }
        }
        // Keep rotations orthonormal after many small exponential updates.
        for (size_t c = 0; c < poses_.size(); ++c) {
            if (cam_free_[c] < 0) continue;
            Eigen::JacobiSVD<Mat3> svd(poses_[c].R, Eigen::ComputeFullU | Eigen::ComputeFullV);
            poses_[c].R = svd.matrixU() * svd.matrixV().transpose();
        }
    }
};

ak_status check_bundle_params(const char *fn, const ak_bundle_params &p) noexcept {
    if (p.max_iterations < 0 || p.max_iterations > 10000)
        return fail(AK_ERR_ARGUMENT, fn, "max_iterations must be in 0...10000, got %d", p.max_iterations);
    if (!std::isfinite(p.huber_threshold) || !(p.huber_threshold > 0))
        return fail(AK_ERR_ARGUMENT, fn, "huber_threshold must be positive, got %g", p.huber_threshold);
    if (!std::isfinite(p.inlier_threshold) || !(p.inlier_threshold > 0))
        return fail(AK_ERR_ARGUMENT, fn, "inlier_threshold must be positive, got %g", p.inlier_threshold);
    if (p.reject_outliers != 0 && p.reject_outliers != 1)
        return fail(AK_ERR_ARGUMENT, fn, "reject_outliers must be 0 or 1, got %d", p.reject_outliers);
    return AK_OK;
}

// ---------------------------------------------------------------- two-view model scores

// ORB-SLAM's CheckHomography: transfer errors both ways, each truncated at the 2-DOF chi-square
// value; a point is an inlier when both pass.
double score_homography(const cv::Matx33d &H21, const Views &v, double sigma, std::vector<uint8_t> &in) {
    const int n = static_cast<int>(v.px1.size());
    in.assign(n, 0);
    if (!cv::checkRange(H21) || std::abs(cv::determinant(H21)) < 1e-15) return 0;
    const cv::Matx33d H12 = H21.inv();
    const double inv_s2 = 1 / (sigma * sigma);
    auto chi2 = [&](const cv::Matx33d &H, const Vec2 &from, const Vec2 &to) {
        const cv::Vec3d p = H * cv::Vec3d(from.x(), from.y(), 1);
        if (!(std::abs(p[2]) > 1e-12)) return std::numeric_limits<double>::infinity();
        const double dx = p[0] / p[2] - to.x(), dy = p[1] / p[2] - to.y();
        return (dx * dx + dy * dy) * inv_s2;
    };
    double score = 0;
    for (int i = 0; i < n; ++i) {
        bool inlier = true;
        const double c2 = chi2(H21, v.px1[i], v.px2[i]);
        if (c2 > kChi2TwoDof || !std::isfinite(c2)) inlier = false;
        else score += kChi2TwoDof - c2;
        const double c1 = chi2(H12, v.px2[i], v.px1[i]);
        if (c1 > kChi2TwoDof || !std::isfinite(c1)) inlier = false;
        else score += kChi2TwoDof - c1;
        in[i] = inlier ? 1 : 0;
    }
    return score;
}

// ORB-SLAM's CheckFundamental: distances to the epipolar lines both ways, tested at the 1-DOF
// chi-square value and scored against the 2-DOF one.
double score_fundamental(const cv::Matx33d &F21, const Views &v, double sigma, std::vector<uint8_t> &in) {
    const int n = static_cast<int>(v.px1.size());
    in.assign(n, 0);
    if (!cv::checkRange(F21)) return 0;
    const double inv_s2 = 1 / (sigma * sigma);
    auto chi2 = [&](const cv::Vec3d &line, const Vec2 &p) {
        const double d2 = line[0] * line[0] + line[1] * line[1];
        if (!(d2 > 0)) return std::numeric_limits<double>::infinity();
        const double num = line[0] * p.x() + line[1] * p.y() + line[2];
        return num * num / d2 * inv_s2;
    };
    double score = 0;
    for (int i = 0; i < n; ++i) {
        bool inlier = true;
        const cv::Vec3d x1(v.px1[i].x(), v.px1[i].y(), 1), x2(v.px2[i].x(), v.px2[i].y(), 1);
        const double c2 = chi2(F21 * x1, v.px2[i]);
        if (c2 > kChi2OneDof || !std::isfinite(c2)) inlier = false;
        else score += kChi2TwoDof - c2;
        const double c1 = chi2(F21.t() * x2, v.px1[i]);
        if (c1 > kChi2OneDof || !std::isfinite(c1)) inlier = false;
        else score += kChi2TwoDof - c1;
        in[i] = inlier ? 1 : 0;
    }
    return score;
}

struct Hypothesis {
    Pose pose;  // camera2_from_camera1, unit translation
    int consistent = 0;
    double median_parallax = 0;
    int order = 0;  // as decomposed: ties keep it, so results do not depend on the sort
};

void evaluate(const ak_pinhole &cam, const Views &v, const std::vector<int> &inliers, double max_error,
              Hypothesis &h, std::vector<Triangulated> &scratch) {
    triangulate(cam, Pose{}, h.pose, v, inliers, scratch);
    std::vector<double> parallax;
    for (const Triangulated &t : scratch)
        if (consistent(t, max_error)) parallax.push_back(t.parallax);
    h.consistent = static_cast<int>(parallax.size());
    h.median_parallax = median(std::move(parallax));
}

ak_status check_two_view_params(const char *fn, const ak_two_view_params &p) noexcept {
    if (!std::isfinite(p.sigma) || !(p.sigma > 0)) return fail(AK_ERR_ARGUMENT, fn, "sigma must be positive, got %g", p.sigma);
    if (!(p.homography_ratio >= 0 && p.homography_ratio <= 1))
        return fail(AK_ERR_ARGUMENT, fn, "homography_ratio must be in 0...1, got %g", p.homography_ratio);
    if (!(p.confidence > 0 && p.confidence < 1))
        return fail(AK_ERR_ARGUMENT, fn, "confidence must be in (0, 1), got %g", p.confidence);
    if (p.max_iterations < 1 || p.max_iterations > 1000000)
        return fail(AK_ERR_ARGUMENT, fn, "max_iterations must be in 1...1000000, got %d", p.max_iterations);
    if (!std::isfinite(p.max_reprojection_error) || !(p.max_reprojection_error > 0))
        return fail(AK_ERR_ARGUMENT, fn, "max_reprojection_error must be positive, got %g", p.max_reprojection_error);
    if (!(p.min_parallax_degrees >= 0 && p.min_parallax_degrees < 180))
        return fail(AK_ERR_ARGUMENT, fn, "min_parallax_degrees must be in [0, 180), got %g", p.min_parallax_degrees);
    if (!(p.min_point_parallax_degrees >= 0 && p.min_point_parallax_degrees < 180))
        return fail(AK_ERR_ARGUMENT, fn, "min_point_parallax_degrees must be in [0, 180), got %g",
                    p.min_point_parallax_degrees);
    if (p.min_triangulated < 0) return fail(AK_ERR_ARGUMENT, fn, "min_triangulated must be >= 0, got %d", p.min_triangulated);
    if (!(p.ambiguity_ratio > 0 && p.ambiguity_ratio <= 1))
        return fail(AK_ERR_ARGUMENT, fn, "ambiguity_ratio must be in (0, 1], got %g", p.ambiguity_ratio);
    if (p.refine != 0 && p.refine != 1) return fail(AK_ERR_ARGUMENT, fn, "refine must be 0 or 1, got %d", p.refine);
    return AK_OK;
}

// Bundle adjustment of a two-view reconstruction (camera 1 fixed at the origin) on the points
// that triangulate well: the RANSAC models are fitted to minimal samples and decomposed
// analytically, so their pose is noisier than the inliers allow. The baseline is rescaled to 1.
Pose refine_two_view(const ak_pinhole &cam, const Views &v, const std::vector<int> &inliers, const Pose &pose,
                     const ak_two_view_params &p) {
    std::vector<Triangulated> tri;
    triangulate(cam, Pose{}, pose, v, inliers, tri);
    std::vector<Vec3> points;
    std::vector<Observation> obs;
    for (size_t k = 0; k < inliers.size(); ++k) {
        if (classify(tri[k], p.max_reprojection_error, p.min_point_parallax_degrees) != AK_POINT_GOOD) continue;
        const int i = inliers[k], pt = static_cast<int>(points.size());
        points.push_back(tri[k].X);
        obs.push_back(Observation{0, pt, v.px1[i].x(), v.px1[i].y()});
        obs.push_back(Observation{1, pt, v.px2[i].x(), v.px2[i].y()});
    }
    if (points.size() < 8) return pose;
    std::vector<Pose> poses = {Pose{}, pose};
    const std::vector<uint8_t> pose_fixed = {1, 0}, point_fixed(points.size(), 0);
    BundleAdjuster ba(cam, poses, pose_fixed, points, point_fixed, obs, std::sqrt(kChi2TwoDof) * p.sigma);
    const BundleOutcome out = ba.run(10, std::sqrt(kChi2TwoDof) * p.sigma, true, nullptr);
    const double scale = poses[1].t.norm();
    if (!(out.final_rms <= out.initial_rms) || !(scale > 1e-12) || !poses[1].R.allFinite()) return pose;
    poses[1].t /= scale;
    return poses[1];
}

void clear_two_view(ak_two_view_result &r, int count, uint8_t *inliers, double *points) {
    r.model = AK_TWO_VIEW_NONE;
    for (int i = 0; i < 9; ++i) r.rotation[i] = (i % 4 == 0) ? 1 : 0;
    for (double &t : r.translation) t = 0;
    r.triangulated_count = 0;
    if (inliers) std::memset(inliers, 0, static_cast<size_t>(count));
    if (points)
        for (int i = 0; i < 3 * count; ++i) points[i] = kNaN;
}

ak_status check_pnp_params(const char *fn, const ak_pnp_params &p) noexcept {
    const int m = enum_value(p.method);
    if (m != AK_PNP_EPNP && m != AK_PNP_SQPNP) return fail(AK_ERR_ARGUMENT, fn, "unknown PnP method %d", m);
    if (!std::isfinite(p.reprojection_threshold) || !(p.reprojection_threshold > 0))
        return fail(AK_ERR_ARGUMENT, fn, "reprojection_threshold must be positive, got %g", p.reprojection_threshold);
    if (!(p.confidence > 0 && p.confidence < 1))
        return fail(AK_ERR_ARGUMENT, fn, "confidence must be in (0, 1), got %g", p.confidence);
    if (p.max_iterations < 1 || p.max_iterations > 1000000)
        return fail(AK_ERR_ARGUMENT, fn, "max_iterations must be in 1...1000000, got %d", p.max_iterations);
    if (p.min_inliers < 0) return fail(AK_ERR_ARGUMENT, fn, "min_inliers must be >= 0, got %d", p.min_inliers);
    return AK_OK;
}

cv::Matx33d camera_matrix(const ak_pinhole &c) { return cv::Matx33d(c.fx, 0, c.cx, 0, c.fy, c.cy, 0, 0, 1); }

}  // namespace

extern "C" {

// ---------------------------------------------------------------- triangulation

void ak_triangulation_params_default(ak_triangulation_params *params) {
    if (!params) return;
    *params = ak_triangulation_params{2.0, 1.0};
}

ak_status ak_triangulate(const ak_pinhole *camera, const double camera1_from_world[12],
                         const double camera2_from_world[12], const float *pixels1, const float *pixels2, int count,
                         const ak_triangulation_params *params, double *points, double *errors,
                         double *parallax_degrees, uint8_t *checks, int *good_count) {
    static const char *fn = "ak_triangulate";
    return guarded(fn, [&]() -> ak_status {
        if (good_count) *good_count = 0;
        if (ak_status s = check_pinhole(fn, camera)) return s;
        if (!camera1_from_world || !camera2_from_world) return fail(AK_ERR_ARGUMENT, fn, "a pose is NULL");
        Pose c1, c2;
        if (ak_status s = read_pose(fn, camera1_from_world, "camera1_from_world", -1, c1)) return s;
        if (ak_status s = read_pose(fn, camera2_from_world, "camera2_from_world", -1, c2)) return s;
        if (ak_status s = check_count(fn, count, "count")) return s;
        const ak_triangulation_params p = given_or_default(params, ak_triangulation_params_default);
        if (!std::isfinite(p.max_reprojection_error) || !(p.max_reprojection_error > 0))
            return fail(AK_ERR_ARGUMENT, fn, "max_reprojection_error must be positive, got %g", p.max_reprojection_error);
        if (!(p.min_parallax_degrees >= 0 && p.min_parallax_degrees < 180))
            return fail(AK_ERR_ARGUMENT, fn, "min_parallax_degrees must be in [0, 180), got %g", p.min_parallax_degrees);
        if (count == 0) return AK_OK;
        if (!pixels1 || !pixels2) return fail(AK_ERR_ARGUMENT, fn, "pixels1 or pixels2 is NULL");
        if (ak_status s = check_pixels(fn, pixels1, count, "pixels1")) return s;
        if (ak_status s = check_pixels(fn, pixels2, count, "pixels2")) return s;

        const Views v(*camera, pixels1, pixels2, count);
        std::vector<int> all(count);
        for (int i = 0; i < count; ++i) all[i] = i;
        std::vector<Triangulated> tri;
        triangulate(*camera, c1, c2, v, all, tri);
        int good = 0;
        for (int i = 0; i < count; ++i) {
            const Triangulated &t = tri[i];
            const int check = classify(t, p.max_reprojection_error, p.min_parallax_degrees);
            if (check == AK_POINT_GOOD) ++good;
            if (points)
                for (int k = 0; k < 3; ++k) points[3 * i + k] = check == AK_POINT_GOOD ? t.X[k] : kNaN;
            if (errors) errors[i] = t.finite ? std::max(t.error1, t.error2) : kNaN;
            if (parallax_degrees) parallax_degrees[i] = t.parallax;
            if (checks) checks[i] = static_cast<uint8_t>(check);
        }
        if (good_count) *good_count = good;
        return AK_OK;
    });
}

// ---------------------------------------------------------------- two-view initialisation

void ak_two_view_params_default(ak_two_view_params *params) {
    if (!params) return;
    // ambiguity_ratio 0.9, not ORB-SLAM's 0.75: the second physical pose of a homography seen
    // while moving sideways keeps 70-80 % of the points in front, but each one it puts behind a
    // camera with real parallax is decisive evidence against it.
    *params = ak_two_view_params{1.0, 0.45, 0.999, 2000, 2.0, 1.0, 0.5, 50, 0.9, 1};
}

ak_status ak_two_view_initialise(const ak_pinhole *camera, const float *pixels1, const float *pixels2, int count,
                                 const ak_two_view_params *params, ak_two_view_result *result, uint8_t *inliers,
                                 double *points) {
    static const char *fn = "ak_two_view_initialise";
    return guarded(fn, [&]() -> ak_status {
        if (!result) return fail(AK_ERR_ARGUMENT, fn, "result is NULL");
        ak_two_view_result &r = *result;
        r = ak_two_view_result{};
        r.failure = AK_TWO_VIEW_TOO_FEW_POINTS;
        clear_two_view(r, 0, nullptr, nullptr);
        if (ak_status s = check_pinhole(fn, camera)) return s;
        if (ak_status s = check_count(fn, count, "count")) return s;
        const ak_two_view_params p = given_or_default(params, ak_two_view_params_default);
        if (ak_status s = check_two_view_params(fn, p)) return s;
        if (count > 0 && (!pixels1 || !pixels2)) return fail(AK_ERR_ARGUMENT, fn, "pixels1 or pixels2 is NULL");
        if (ak_status s = check_pixels(fn, pixels1, count, "pixels1")) return s;
        if (ak_status s = check_pixels(fn, pixels2, count, "pixels2")) return s;
        clear_two_view(r, count, inliers, points);
        if (count < 8) return AK_OK;

        const Views v(*camera, pixels1, pixels2, count);
        const cv::Matx33d K = camera_matrix(*camera);
        std::vector<cv::Point2d> p1(count), p2(count);
        for (int i = 0; i < count; ++i) p1[i] = {v.px1[i].x(), v.px1[i].y()}, p2[i] = {v.px2[i].x(), v.px2[i].y()};

        // Both models on the same matches; a degenerate configuration (OpenCV throws on some)
        // just leaves that model without a score.
        cv::Matx33d H(0, 0, 0, 0, 0, 0, 0, 0, 0), E = H;
        bool has_h = false, has_e = false;
        try {
            const cv::Mat h = cv::findHomography(p1, p2, cv::RANSAC, std::sqrt(kChi2TwoDof) * p.sigma, cv::noArray(),
                                                 p.max_iterations, p.confidence);
            if (h.rows == 3 && h.cols == 3) {
                cv::Mat h64;
                h.convertTo(h64, CV_64F);
                has_h = normalised(cv::Matx33d(h64.ptr<double>()), H);
            }
        } catch (const cv::Exception &) {
        }
        try {
            const cv::Mat e = cv::findEssentialMat(p1, p2, K, cv::RANSAC, p.confidence, std::sqrt(kChi2OneDof) * p.sigma,
                                                   p.max_iterations, cv::noArray());
            // Several solutions come stacked (3k x 3) when the data cannot tell them apart: the
            // first is kept, the scores below judge it.
            if (e.rows >= 3 && e.rows % 3 == 0 && e.cols == 3) {
                cv::Mat e64;
                e.rowRange(0, 3).convertTo(e64, CV_64F);
                E = cv::Matx33d(e64.ptr<double>());
                has_e = cv::checkRange(E) && cv::norm(E) > 0;
            }
        } catch (const cv::Exception &) {
        }
        std::vector<uint8_t> in_h, in_f;
        const double s_h = has_h ? score_homography(H, v, p.sigma, in_h) : 0;
        const cv::Matx33d Kinv = K.inv();
        const double s_f = has_e ? score_fundamental(Kinv.t() * E * Kinv, v, p.sigma, in_f) : 0;
        if (!(s_h + s_f > 0)) return AK_OK;
        r.homography_score_ratio = s_h / (s_h + s_f);
        const bool use_h = r.homography_score_ratio > p.homography_ratio;
        const std::vector<uint8_t> &in = use_h ? in_h : in_f;
        std::vector<int> inlier_index;
        for (int i = 0; i < count; ++i)
            if (in[i]) inlier_index.push_back(i);
        r.inlier_count = static_cast<int>(inlier_index.size());
        const int needed = std::max(p.min_triangulated, 8);
        if (r.inlier_count < needed) return AK_OK;

        // The pose hypotheses of the chosen model (camera2_from_camera1, unit translation).
        std::vector<Hypothesis> hyps;
        if (use_h) {
            std::vector<cv::Mat> Rs, ts, normals;
            cv::decomposeHomographyMat(H, K, Rs, ts, normals);
            for (size_t s = 0; s < Rs.size() && s < ts.size(); ++s) {
                cv::Mat R64, t64;
                Rs[s].convertTo(R64, CV_64F);
                ts[s].convertTo(t64, CV_64F);
                Hypothesis h;
                for (int i = 0; i < 3; ++i) {
                    for (int j = 0; j < 3; ++j) h.pose.R(i, j) = R64.at<double>(i, j);
                    h.pose.t[i] = t64.at<double>(i);
                }
                // t here is the translation over the plane's distance: zero for a pure rotation,
                // whose hypotheses cannot be triangulated at all.
                const double norm = h.pose.t.norm();
                if (!(norm > 1e-12) || !h.pose.R.allFinite()) continue;
                h.pose.t /= norm;
                hyps.push_back(h);
            }
        } else {
            cv::Mat R1, R2, t;
            cv::decomposeEssentialMat(E, R1, R2, t);
            for (const cv::Mat &R : {R1, R2}) {
                for (double sign : {1.0, -1.0}) {
                    Hypothesis h;
                    for (int i = 0; i < 3; ++i) {
                        for (int j = 0; j < 3; ++j) h.pose.R(i, j) = R.at<double>(i, j);
                        h.pose.t[i] = sign * t.at<double>(i);
                    }
                    hyps.push_back(h);
                }
            }
        }
        if (hyps.empty()) {
            r.failure = AK_TWO_VIEW_LOW_PARALLAX;
            return AK_OK;
        }
        std::vector<Triangulated> tri;
        for (Hypothesis &h : hyps) evaluate(*camera, v, inlier_index, p.max_reprojection_error, h, tri);
        for (size_t s = 0; s < hyps.size(); ++s) hyps[s].order = static_cast<int>(s);
        std::sort(hyps.begin(), hyps.end(), [](const Hypothesis &a, const Hypothesis &b) {
            return a.consistent != b.consistent ? a.consistent > b.consistent : a.order < b.order;
        });
        const Hypothesis &best = hyps[0];
        r.median_parallax_degrees = best.median_parallax;
        if (best.consistent < needed) return AK_OK;
        if (best.median_parallax < p.min_parallax_degrees) {
            r.failure = AK_TWO_VIEW_LOW_PARALLAX;
            return AK_OK;
        }
        const bool rival = hyps.size() > 1 && hyps[1].consistent > p.ambiguity_ratio * best.consistent;
        if (rival || best.consistent < 0.9 * r.inlier_count) {
            r.failure = AK_TWO_VIEW_AMBIGUOUS;
            return AK_OK;
        }

        const Pose pose = p.refine ? refine_two_view(*camera, v, inlier_index, best.pose, p) : best.pose;
        triangulate(*camera, Pose{}, pose, v, inlier_index, tri);
        std::vector<double> parallax;
        int good = 0;
        for (const Triangulated &t : tri) {
            if (consistent(t, p.max_reprojection_error)) parallax.push_back(t.parallax);
            if (classify(t, p.max_reprojection_error, p.min_point_parallax_degrees) == AK_POINT_GOOD) ++good;
        }
        r.median_parallax_degrees = median(parallax);
        if (good < needed) {
            r.failure = static_cast<int>(parallax.size()) >= needed ? AK_TWO_VIEW_LOW_PARALLAX : AK_TWO_VIEW_TOO_FEW_POINTS;
            return AK_OK;
        }

        r.model = use_h ? AK_TWO_VIEW_HOMOGRAPHY : AK_TWO_VIEW_ESSENTIAL;
        r.failure = AK_TWO_VIEW_SUCCESS;
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) r.rotation[3 * i + j] = pose.R(i, j);
            r.translation[i] = pose.t[i];
        }
        r.triangulated_count = good;
        for (size_t k = 0; k < inlier_index.size(); ++k) {
            const int i = inlier_index[k];
            if (inliers) inliers[i] = 1;
            if (points && classify(tri[k], p.max_reprojection_error, p.min_point_parallax_degrees) == AK_POINT_GOOD)
                for (int c = 0; c < 3; ++c) points[3 * i + c] = tri[k].X[c];
        }
        return AK_OK;
    });
}

// ---------------------------------------------------------------- PnP

void ak_pnp_params_default(ak_pnp_params *params) {
    if (!params) return;
    *params = ak_pnp_params{AK_PNP_EPNP, 2.0, 0.999, 300, 10};
}

ak_status ak_solve_pnp(const ak_pinhole *camera, const double *points, const float *pixels, int count,
                       const double *initial_camera_from_world, const ak_pnp_params *params, ak_pnp_result *result,
                       uint8_t *inliers) {
    static const char *fn = "ak_solve_pnp";
    return guarded(fn, [&]() -> ak_status {
        if (!result) return fail(AK_ERR_ARGUMENT, fn, "result is NULL");
        *result = ak_pnp_result{};
        identity_pose(result->camera_from_world);
        if (ak_status s = check_pinhole(fn, camera)) return s;
        if (ak_status s = check_count(fn, count, "count")) return s;
        const ak_pnp_params p = given_or_default(params, ak_pnp_params_default);
        if (ak_status s = check_pnp_params(fn, p)) return s;
        if (count > 0 && (!points || !pixels)) return fail(AK_ERR_ARGUMENT, fn, "points or pixels is NULL");
        for (int i = 0; i < 3 * count; ++i)
            if (!std::isfinite(points[i])) return fail(AK_ERR_ARGUMENT, fn, "points must be finite (point %d)", i / 3);
        if (ak_status s = check_pixels(fn, pixels, count, "pixels")) return s;
        Pose guess;
        if (initial_camera_from_world)
            if (ak_status s = read_pose(fn, initial_camera_from_world, "initial_camera_from_world", -1, guess)) return s;
        if (inliers) std::memset(inliers, 0, static_cast<size_t>(count));
        // Fewer than 6 points leave RANSAC nothing to reject outliers with.
        if (count < std::max(p.min_inliers, 6)) return AK_OK;

        std::vector<cv::Point3d> object(count);
        std::vector<cv::Point2d> image(count);
        for (int i = 0; i < count; ++i) {
            object[i] = {points[3 * i], points[3 * i + 1], points[3 * i + 2]};
            image[i] = {pixels[2 * i], pixels[2 * i + 1]};
        }
        const cv::Matx33d K = camera_matrix(*camera);
        cv::Mat rvec = cv::Mat::zeros(3, 1, CV_64F), tvec = cv::Mat::zeros(3, 1, CV_64F);
        if (initial_camera_from_world) {
            cv::Matx33d R;
            for (int i = 0; i < 3; ++i) {
                for (int j = 0; j < 3; ++j) R(i, j) = guess.R(i, j);
                tvec.at<double>(i) = guess.t[i];
            }
            cv::Rodrigues(R, rvec);
        }
        const int flags = initial_camera_from_world ? cv::SOLVEPNP_ITERATIVE
                          : enum_value(p.method) == AK_PNP_SQPNP ? cv::SOLVEPNP_SQPNP
                                                                 : cv::SOLVEPNP_EPNP;
        std::vector<int> ransac_inliers;
        bool ok = false;
        try {
            ok = cv::solvePnPRansac(object, image, K, cv::noArray(), rvec, tvec, initial_camera_from_world != nullptr,
                                    p.max_iterations, static_cast<float>(p.reprojection_threshold), p.confidence,
                                    ransac_inliers, flags);
        } catch (const cv::Exception &) {
            // Degenerate points (all coincident or collinear) have no pose.
            return AK_OK;
        }
        if (!ok || static_cast<int>(ransac_inliers.size()) < std::max(p.min_inliers, 4)) return AK_OK;
        rvec.convertTo(rvec, CV_64F);
        tvec.convertTo(tvec, CV_64F);
        if (!cv::checkRange(rvec) || !cv::checkRange(tvec)) return AK_OK;

        // Refine on the inliers, re-classify every point with the refined pose, and again until
        // the inlier set settles: RANSAC's set belongs to a pose from a minimal sample.
        std::vector<uint8_t> mask(count, 0);
        for (int i : ransac_inliers)
            if (i >= 0 && i < count) mask[i] = 1;
        const double thr2 = p.reprojection_threshold * p.reprojection_threshold;
        std::vector<cv::Point2d> projected;
        double sum = 0;
        int n = 0;
        for (int round = 0; round < 4; ++round) {
            std::vector<cv::Point3d> obj;
            std::vector<cv::Point2d> img;
            for (int i = 0; i < count; ++i)
                if (mask[i]) obj.push_back(object[i]), img.push_back(image[i]);
            if (static_cast<int>(obj.size()) < std::max(p.min_inliers, 4)) return AK_OK;
            cv::solvePnPRefineLM(obj, img, K, cv::noArray(), rvec, tvec,
                                 cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 30, 1e-10));
            if (!cv::checkRange(rvec) || !cv::checkRange(tvec)) return AK_OK;
            cv::Matx33d R;
            cv::Rodrigues(rvec, R);
            const cv::Vec3d t(tvec.at<double>(0), tvec.at<double>(1), tvec.at<double>(2));
            bool changed = false;
            sum = 0, n = 0;
            for (int i = 0; i < count; ++i) {
                const cv::Vec3d xc = R * cv::Vec3d(object[i].x, object[i].y, object[i].z) + t;
                bool in = false;
                double e2 = 0;
                if (xc[2] > 0) {
                    const double dx = camera->fx * xc[0] / xc[2] + camera->cx - image[i].x;
                    const double dy = camera->fy * xc[1] / xc[2] + camera->cy - image[i].y;
                    e2 = dx * dx + dy * dy;
                    in = e2 <= thr2;
                }
                if (in != static_cast<bool>(mask[i])) changed = true;
                mask[i] = in ? 1 : 0;
                if (in) sum += e2, ++n;
            }
            if (!changed) break;
        }
        if (n < std::max(p.min_inliers, 4)) return AK_OK;

        cv::Matx33d R;
        cv::Rodrigues(rvec, R);
        Pose pose;
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) pose.R(i, j) = R(i, j);
            pose.t[i] = tvec.at<double>(i);
        }
        write_pose(pose, result->camera_from_world);
        result->found = 1;
        result->inlier_count = n;
        result->rms_error = std::sqrt(sum / n);
        if (inliers) std::memcpy(inliers, mask.data(), static_cast<size_t>(count));
        return AK_OK;
    });
}

// ---------------------------------------------------------------- bundle adjustment

void ak_bundle_params_default(ak_bundle_params *params) {
    if (!params) return;
    const double huber = std::sqrt(kChi2TwoDof);  // ORB-SLAM's, for 1 px noise
    *params = ak_bundle_params{20, huber, huber, 1};
}

ak_status ak_bundle_adjust(const ak_pinhole *camera, double *camera_from_world, const uint8_t *pose_fixed,
                           int pose_count, double *points, const uint8_t *point_fixed, int point_count,
                           const ak_observation *observations, int observation_count, const ak_bundle_params *params,
                           ak_bundle_result *result, uint8_t *inliers) {
    static const char *fn = "ak_bundle_adjust";
    return guarded(fn, [&]() -> ak_status {
        if (!result) return fail(AK_ERR_ARGUMENT, fn, "result is NULL");
        *result = ak_bundle_result{};
        if (ak_status s = check_pinhole(fn, camera)) return s;
        if (ak_status s = check_count(fn, pose_count, "pose_count")) return s;
        if (ak_status s = check_count(fn, point_count, "point_count")) return s;
        if (ak_status s = check_count(fn, observation_count, "observation_count")) return s;
        const ak_bundle_params p = given_or_default(params, ak_bundle_params_default);
        if (ak_status s = check_bundle_params(fn, p)) return s;
        if ((pose_count > 0 && !camera_from_world) || (point_count > 0 && !points) ||
            (observation_count > 0 && !observations))
            return fail(AK_ERR_ARGUMENT, fn, "camera_from_world, points or observations is NULL");

        std::vector<Pose> poses(pose_count);
        std::vector<uint8_t> fixed_pose(pose_count, 0), fixed_point(point_count, 0);
        int free_poses = 0;
        bool any_fixed = false;
        for (int c = 0; c < pose_count; ++c) {
            if (ak_status s = read_pose(fn, camera_from_world + 12 * c, "pose", c, poses[c])) return s;
            fixed_pose[c] = pose_fixed && pose_fixed[c] ? 1 : 0;
            any_fixed = any_fixed || fixed_pose[c];
            free_poses += fixed_pose[c] ? 0 : 1;
        }
        std::vector<Vec3> pts(point_count);
        for (int i = 0; i < point_count; ++i) {
            pts[i] = Vec3(points[3 * i], points[3 * i + 1], points[3 * i + 2]);
            if (!pts[i].allFinite()) return fail(AK_ERR_ARGUMENT, fn, "point %d must be finite", i);
            fixed_point[i] = point_fixed && point_fixed[i] ? 1 : 0;
            any_fixed = any_fixed || fixed_point[i];
        }
        if (!any_fixed && pose_count + point_count > 0)
            return fail(AK_ERR_ARGUMENT, fn,
                        "no pose and no point is fixed: the solution could drift freely (fix at least one pose)");
        if (free_poses > kMaxFreePoses)
            return fail(AK_ERR_ARGUMENT, fn, "%d free poses: at most %d (the camera system is solved densely)", free_poses,
                        kMaxFreePoses);
        std::vector<Observation> obs(observation_count);
        for (int k = 0; k < observation_count; ++k) {
            const ak_observation &o = observations[k];
            if (o.camera < 0 || o.camera >= pose_count)
                return fail(AK_ERR_ARGUMENT, fn, "observation %d: camera index %d is not in 0..<%d", k, o.camera, pose_count);
            if (o.point < 0 || o.point >= point_count)
                return fail(AK_ERR_ARGUMENT, fn, "observation %d: point index %d is not in 0..<%d", k, o.point, point_count);
            if (!std::isfinite(o.x) || !std::isfinite(o.y))
                return fail(AK_ERR_ARGUMENT, fn, "observation %d: pixel must be finite", k);
            obs[k] = Observation{o.camera, o.point, o.x, o.y};
        }

        BundleAdjuster ba(*camera, poses, fixed_pose, pts, fixed_point, obs, p.huber_threshold);
        const BundleOutcome out = ba.run(p.max_iterations, p.inlier_threshold, p.reject_outliers != 0, inliers);
        for (int c = 0; c < pose_count; ++c)
            if (!fixed_pose[c]) write_pose(poses[c], camera_from_world + 12 * c);
        for (int i = 0; i < point_count; ++i)
            if (!fixed_point[i])
                for (int k = 0; k < 3; ++k) points[3 * i + k] = pts[i][k];
        result->iterations = out.iterations;
        result->accepted = out.accepted;
        result->initial_rms = out.initial_rms;
        result->final_rms = out.final_rms;
        result->inlier_rms = out.inlier_rms;
        result->inlier_count = out.inlier_count;
        return AK_OK;
    });
}

}  // extern "C"
