// bundle_adjuster.hpp — local bundle adjustment (Levenberg-Marquardt with Eigen, Schur complement
// on the points; optionally turns between poses known from a gyroscope), used by ak_bundle_adjust
// (bundle_adjustment.cpp) and by the two-view initialisation's refinement (two_view.cpp). Private
// to AnchorKitSolvers.
#ifndef ANCHORKIT_CV_BUNDLE_ADJUSTER_HPP
#define ANCHORKIT_CV_BUNDLE_ADJUSTER_HPP

#include "world_geometry.hpp"

#include <utility>

namespace akcv {
namespace world {

// ---------------------------------------------------------------- bundle adjustment

struct Observation {
    int cam = 0, pt = 0;
    double x = 0, y = 0;
};

// A turn between two poses known from elsewhere (a gyroscope): poses[to].R poses[from].R^T should
// be `turn`, within `sigma` radians (as a pixel error of 1 px weighs).
struct RotationLink {
    int from = 0, to = 0;
    Mat3 turn = Mat3::Identity();
    double sigma = 1;
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
                   const std::vector<Observation> &observations, double huber, std::vector<RotationLink> links = {})
        : K_(camera), poses_(poses), points_(points), obs_(observations), huber_(huber), links_(std::move(links)) {
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
    const std::vector<RotationLink> links_;
    std::vector<int> cam_free_, pt_free_;
    int free_cams_ = 0, free_pts_ = 0;

    // The linearisation at the current estimate (IRLS: Huber weights folded in).
    std::vector<Mat6> U_;     // per free pose: sum w Jc^T Jc
    std::vector<Vec6> gc_;    // per free pose: sum w Jc^T r
    std::vector<Mat3> V_;     // per free point: sum w Jp^T Jp
    std::vector<Vec3> gp_;    // per free point: sum w Jp^T r
    std::vector<Mat63> W_;    // per observation: w Jc^T Jp (both free)
    std::vector<int> pt_obs_start_, pt_obs_;  // per free point: its observations with a free pose (CSR)
    struct LinkBlock {
        int from, to;  // free pose numbers
        Mat3 H;        // the rotations' coupling: d(from)^T H d(to)
    };
    std::vector<LinkBlock> link_blocks_;

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
        for (const RotationLink &l : links_) sum += link_residual(poses, l).squaredNorm() / (l.sigma * l.sigma);
        return sum;
    }

    // log(R_to R_from^T turn^T): the poses' turn against the link's, as a left perturbation of R_to.
    static Vec3 link_residual(const std::vector<Pose> &poses, const RotationLink &l) {
        return log_so3(poses[l.to].R * poses[l.from].R.transpose() * l.turn.transpose());
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
        // Links: to first order, d r = w_to - R_to R_from^T w_from (left perturbations).
        link_blocks_.clear();
        for (const RotationLink &l : links_) {
            const int ft = cam_free_[l.to], ff = cam_free_[l.from];
            if (ft < 0 && ff < 0) continue;
            const double w = 1 / (l.sigma * l.sigma);
            const Vec3 r = link_residual(poses_, l);
            const Mat3 A = -(poses_[l.to].R * poses_[l.from].R.transpose());
            if (ft >= 0) {
                U_[ft].topLeftCorner<3, 3>().diagonal().array() += w;
                gc_[ft].head<3>() += w * r;
            }
            if (ff >= 0) {
                U_[ff].topLeftCorner<3, 3>().noalias() += w * A.transpose() * A;
                gc_[ff].head<3>().noalias() += w * A.transpose() * r;
            }
            if (ft >= 0 && ff >= 0) link_blocks_.push_back({ff, ft, w * A.transpose()});  // d(from)^T H d(to)
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
        for (const LinkBlock &b : link_blocks_) {
            if (b.from < b.to) S.block<3, 3>(6 * b.from, 6 * b.to) += b.H;  // the upper triangle is enough for LDLT
            else S.block<3, 3>(6 * b.to, 6 * b.from) += b.H.transpose();
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

}  // namespace world
}  // namespace akcv

#endif
