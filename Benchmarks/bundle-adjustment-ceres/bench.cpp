// bench.cpp — AnchorKit bundle adjustment vs Ceres Solver on problems dumped by AK_DUMP_BA.
// (a) ours: ak_bundle_adjust from the repo's bundle_adjustment.cpp (unmodified HEAD copy) through its C API.
// (b) Ceres: angle-axis + translation per pose (camera_from_world), 3D points, fixed blocks constant,
//     HuberLoss(delta = huber_threshold), LM, Schur on points, same iteration caps / stages, then the
//     same outlier rule (drop observations over inlier_threshold or behind, re-solve).
// Usage: bench [--reps N] [--only-check] file...
#include "anchorkit_world.h"

#include <ceres/ceres.h>
#include <ceres/rotation.h>
#include <glog/logging.h>

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using Mat3 = Eigen::Matrix3d;
using Vec3 = Eigen::Vector3d;

struct Problem {
    std::string name;
    ak_pinhole cam{};
    int nc = 0, np = 0, no = 0;
    ak_bundle_params params{};
    std::vector<double> poses, points;  // input
    std::vector<uint8_t> pose_fixed, point_fixed;
    std::vector<ak_observation> obs;
    // dumped output
    int status = 0;
    std::vector<double> out_poses, out_points;
    std::vector<uint8_t> out_inliers;
    ak_bundle_result out_result{};
    long long dump_ns = 0;
};

template <class T> static void get(std::ifstream &f, T *v, size_t n) { f.read(reinterpret_cast<char *>(v), sizeof(T) * n); }
template <class T> static T get1(std::ifstream &f) { T v; get(f, &v, 1); return v; }

static bool load(const std::string &path, Problem &p) {
    std::ifstream f(path, std::ios::binary);
    char magic[8];
    f.read(magic, 8);
    if (!f || std::memcmp(magic, "AKBA0001", 8)) return false;
    p.name = path;
    get(f, &p.cam.fx, 1), get(f, &p.cam.fy, 1), get(f, &p.cam.cx, 1), get(f, &p.cam.cy, 1);
    p.nc = get1<int32_t>(f), p.np = get1<int32_t>(f), p.no = get1<int32_t>(f);
    p.params.max_iterations = get1<int32_t>(f);
    p.params.huber_threshold = get1<double>(f);
    p.params.inlier_threshold = get1<double>(f);
    p.params.reject_outliers = get1<int32_t>(f);
    p.poses.resize(12 * p.nc), p.pose_fixed.resize(p.nc), p.points.resize(3 * p.np), p.point_fixed.resize(p.np);
    get(f, p.poses.data(), p.poses.size()), get(f, p.pose_fixed.data(), p.nc);
    get(f, p.points.data(), p.points.size()), get(f, p.point_fixed.data(), p.np);
    p.obs.resize(p.no);
    for (auto &o : p.obs) o.camera = get1<int32_t>(f), o.point = get1<int32_t>(f), o.x = get1<float>(f), o.y = get1<float>(f);
    p.status = get1<int32_t>(f);
    p.out_poses.resize(12 * p.nc), p.out_points.resize(3 * p.np), p.out_inliers.resize(p.no);
    get(f, p.out_poses.data(), p.out_poses.size()), get(f, p.out_points.data(), p.out_points.size());
    get(f, p.out_inliers.data(), p.no);
    p.out_result.iterations = get1<int32_t>(f), p.out_result.accepted = get1<int32_t>(f);
    p.out_result.initial_rms = get1<double>(f), p.out_result.final_rms = get1<double>(f);
    p.out_result.inlier_rms = get1<double>(f), p.out_result.inlier_count = get1<int32_t>(f);
    p.dump_ns = get1<int64_t>(f);
    return bool(f);
}

// The same statistics as BundleAdjuster::rms: over observations in front of their camera; inliers
// are those with error < threshold (over ALL observations, rejected ones count again if explained).
struct Stats { double rms = 0, inlier_rms = 0, robust_cost = 0; int inliers = 0, front = 0; };
static Stats stats(const Problem &p, const std::vector<double> &poses, const std::vector<double> &points) {
    Stats s;
    double sum = 0, isum = 0;
    const double k = p.params.huber_threshold, thr = p.params.inlier_threshold;
    for (const auto &o : p.obs) {
        const double *P = &poses[12 * o.camera], *X = &points[3 * o.point];
        double xc[3];
        for (int r = 0; r < 3; ++r) xc[r] = P[4 * r] * X[0] + P[4 * r + 1] * X[1] + P[4 * r + 2] * X[2] + P[4 * r + 3];
        if (!(xc[2] > 0)) { s.robust_cost += 2 * k * 1e6 - k * k; continue; }
        const double rx = p.cam.fx * xc[0] / xc[2] + p.cam.cx - o.x, ry = p.cam.fy * xc[1] / xc[2] + p.cam.cy - o.y;
        const double e2 = rx * rx + ry * ry, e = std::sqrt(e2);
        s.robust_cost += e <= k ? e2 : 2 * k * e - k * k;
        sum += e2, ++s.front;
        if (e2 < thr * thr) isum += e2, ++s.inliers;
    }
    s.rms = s.front ? std::sqrt(sum / s.front) : 0;
    s.inlier_rms = s.inliers ? std::sqrt(isum / s.inliers) : 0;
    return s;
}

// ---------------------------------------------------------------- Ceres

struct Reprojection {
    Reprojection(const ak_pinhole &K, double x, double y) : K(K), x(x), y(y) {}
    template <class T> bool operator()(const T *pose, const T *X, T *r) const {
        T xc[3];
        ceres::AngleAxisRotatePoint(pose, X, xc);
        xc[0] += pose[3], xc[1] += pose[4], xc[2] += pose[5];
        if (!(xc[2] > T(0))) return false;  // behind: the step is rejected (ours: a 1e6 px penalty)
        r[0] = T(K.fx) * xc[0] / xc[2] + T(K.cx - x);
        r[1] = T(K.fy) * xc[1] / xc[2] + T(K.cy - y);
        return true;
    }
    ak_pinhole K;
    double x, y;
};

// The same residual with analytic Jacobians (pinhole projection x SO(3) left Jacobian of the angle-axis).
class ReprojectionAnalytic : public ceres::SizedCostFunction<2, 6, 3> {
public:
    ReprojectionAnalytic(const ak_pinhole &K, double x, double y) : K(K), x(x), y(y) {}
    bool Evaluate(double const *const *params, double *r, double **J) const override {
        const double *pose = params[0], *X = params[1];
        const Eigen::Map<const Vec3> w(pose);
        const double th = w.norm();
        Mat3 R;
        if (th < 1e-12) R = Mat3::Identity() + skew(w);
        else R = Eigen::AngleAxisd(th, w / th).toRotationMatrix();
        const Vec3 RX = R * Eigen::Map<const Vec3>(X);
        const Vec3 xc = RX + Vec3(pose[3], pose[4], pose[5]);
        if (!(xc.z() > 0)) return false;
        const double iz = 1 / xc.z();
        r[0] = K.fx * xc.x() * iz + K.cx - x;
        r[1] = K.fy * xc.y() * iz + K.cy - y;
        if (!J) return true;
        Eigen::Matrix<double, 2, 3> P;
        P << K.fx * iz, 0, -K.fx * xc.x() * iz * iz, 0, K.fy * iz, -K.fy * xc.y() * iz * iz;
        if (J[0]) {
            // d(R(w) X)/dw = -[R X]x Jl(w)
            const Mat3 W = skew(w);
            Mat3 Jl = Mat3::Identity();
            if (th > 1e-8) Jl += (1 - std::cos(th)) / (th * th) * W + (th - std::sin(th)) / (th * th * th) * W * W;
            else Jl += 0.5 * W;
            Eigen::Map<Eigen::Matrix<double, 2, 6, Eigen::RowMajor>> Jc(J[0]);
            Jc.leftCols<3>() = -P * skew(RX) * Jl;
            Jc.rightCols<3>() = P;
        }
        if (J[1]) {
            Eigen::Map<Eigen::Matrix<double, 2, 3, Eigen::RowMajor>> Jp(J[1]);
            Jp = P * R;
        }
        return true;
    }
private:
    static Mat3 skew(const Vec3 &v) {
        Mat3 m;
        m << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
        return m;
    }
    ak_pinhole K;
    double x, y;
};

struct CeresOutcome { int iterations = 0, successful = 0, stages = 0, dropped_behind = 0; bool ok = true; };

static void to_aa(const double *P, double *out6) {
    Mat3 R;
    R << P[0], P[1], P[2], P[4], P[5], P[6], P[8], P[9], P[10];
    Eigen::JacobiSVD<Mat3> svd(R, Eigen::ComputeFullU | Eigen::ComputeFullV);  // as read_pose
    R = svd.matrixU() * svd.matrixV().transpose();
    Eigen::AngleAxisd aa(R);
    const Vec3 w = aa.axis() * aa.angle();
    out6[0] = w[0], out6[1] = w[1], out6[2] = w[2], out6[3] = P[3], out6[4] = P[7], out6[5] = P[11];
}
static void from_aa(const double *in6, double *P) {
    double R[9];
    ceres::AngleAxisToRotationMatrix(in6, ceres::RowMajorAdapter3x3(R));
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) P[4 * r + c] = R[3 * r + c];
        P[4 * r + 3] = in6[3 + r];
    }
}

static bool in_front_error(const Problem &p, const double *pose6, const double *X, const ak_observation &o, double &e2) {
    double xc[3];
    ceres::AngleAxisRotatePoint(pose6, X, xc);
    xc[0] += pose6[3], xc[1] += pose6[4], xc[2] += pose6[5];
    if (!(xc[2] > 0)) return false;
    const double rx = p.cam.fx * xc[0] / xc[2] + p.cam.cx - o.x, ry = p.cam.fy * xc[1] / xc[2] + p.cam.cy - o.y;
    e2 = rx * rx + ry * ry;
    return std::isfinite(e2);
}

static CeresOutcome solve_ceres(const Problem &p, std::vector<double> &poses_out, std::vector<double> &points_out,
                                ceres::LinearSolverType solver, int threads, bool analytic, bool tight = false) {
    CeresOutcome out;
    std::vector<double> cams(6 * p.nc), pts(p.points);
    for (int c = 0; c < p.nc; ++c) to_aa(&p.poses[12 * c], &cams[6 * c]);
    int free_c = 0, free_p = 0;
    for (auto f : p.pose_fixed) free_c += !f;
    for (auto f : p.point_fixed) free_p += !f;

    auto stage = [&](const std::vector<uint8_t> &active, int max_iter) {
        ceres::Problem::Options po;
        po.loss_function_ownership = ceres::TAKE_OWNERSHIP;
        ceres::Problem problem(po);
        ceres::ParameterBlockOrdering *ordering = new ceres::ParameterBlockOrdering;
        int added = 0;
        for (int k = 0; k < p.no; ++k) {
            if (!active[k]) continue;
            const auto &o = p.obs[k];
            if (p.pose_fixed[o.camera] && p.point_fixed[o.point]) continue;  // constant term
            double e2;
            // Behind its camera at the start: a constant penalty in ours (never linearised); Ceres
            // cannot evaluate it, so it is left out.
            if (!in_front_error(p, &cams[6 * o.camera], &pts[3 * o.point], o, e2)) { ++out.dropped_behind; continue; }
            ceres::CostFunction *cf = analytic ? static_cast<ceres::CostFunction *>(new ReprojectionAnalytic(p.cam, o.x, o.y))
                : new ceres::AutoDiffCostFunction<Reprojection, 2, 6, 3>(new Reprojection(p.cam, o.x, o.y));
            problem.AddResidualBlock(cf,
                                     new ceres::HuberLoss(p.params.huber_threshold), &cams[6 * o.camera], &pts[3 * o.point]);
            ++added;
        }
        if (!added) { delete ordering; return; }
        for (int c = 0; c < p.nc; ++c)
            if (problem.HasParameterBlock(&cams[6 * c])) {
                if (p.pose_fixed[c]) problem.SetParameterBlockConstant(&cams[6 * c]);
                ordering->AddElementToGroup(&cams[6 * c], 1);
            }
        for (int i = 0; i < p.np; ++i)
            if (problem.HasParameterBlock(&pts[3 * i])) {
                if (p.point_fixed[i]) problem.SetParameterBlockConstant(&pts[3 * i]);
                ordering->AddElementToGroup(&pts[3 * i], 0);
            }
        ceres::Solver::Options opt;
        opt.linear_solver_type = solver;
        // Schur needs an elimination group of points; with no free point (or no free camera),
        // let Ceres choose.
        bool has_free_pt = false, has_free_cam = false;
        for (int i = 0; i < p.np; ++i) has_free_pt |= problem.HasParameterBlock(&pts[3 * i]) && !p.point_fixed[i];
        for (int c = 0; c < p.nc; ++c) has_free_cam |= problem.HasParameterBlock(&cams[6 * c]) && !p.pose_fixed[c];
        if (has_free_pt && has_free_cam) opt.linear_solver_ordering.reset(ordering);
        else delete ordering, opt.linear_solver_type = ceres::DENSE_QR;
        opt.max_num_iterations = max_iter;
        opt.function_tolerance = 1e-5;  // ours: kCostTolerance
        if (tight) opt.function_tolerance = 1e-15, opt.gradient_tolerance = 1e-20, opt.parameter_tolerance = 1e-15;
        opt.initial_trust_region_radius = 1e4;  // ours: lambda 1e-4
        opt.num_threads = threads;
        opt.logging_type = ceres::SILENT;
        opt.minimizer_progress_to_stdout = false;
        ceres::Solver::Summary summary;
        ceres::Solve(opt, &problem, &summary);
        if (std::getenv("BENCH_REPORT")) std::fprintf(stderr, "%s\n", summary.FullReport().c_str());
        out.iterations += summary.num_successful_steps + summary.num_unsuccessful_steps;
        out.successful += summary.num_successful_steps;
        out.ok = out.ok && summary.IsSolutionUsable();
        ++out.stages;
    };

    std::vector<uint8_t> active(p.no, 1);
    if (free_c + free_p > 0 && p.no > 0) {
        const bool reject = p.params.reject_outliers != 0;
        stage(active, reject ? std::min(p.params.max_iterations, 10) : (tight ? 500 : p.params.max_iterations));
        if (reject) {
            std::vector<uint8_t> keep(p.no, 0);
            int kept = 0;
            const double t2 = p.params.inlier_threshold * p.params.inlier_threshold;
            for (int k = 0; k < p.no; ++k) {
                double e2;
                const auto &o = p.obs[k];
                if (in_front_error(p, &cams[6 * o.camera], &pts[3 * o.point], o, e2) && e2 < t2) keep[k] = 1, ++kept;
            }
            if (kept < p.no) stage(keep, tight ? 500 : p.params.max_iterations);
        }
    }
    poses_out.assign(12 * p.nc, 0);
    for (int c = 0; c < p.nc; ++c) {
        if (p.pose_fixed[c]) std::copy(&p.poses[12 * c], &p.poses[12 * c] + 12, &poses_out[12 * c]);
        else from_aa(&cams[6 * c], &poses_out[12 * c]);
    }
    points_out = pts;
    return out;
}

// ---------------------------------------------------------------- comparison

static void pose_diff(const double *A, const double *B, double &rot_deg, double &centre_dist) {
    Mat3 Ra, Rb;
    Ra << A[0], A[1], A[2], A[4], A[5], A[6], A[8], A[9], A[10];
    Rb << B[0], B[1], B[2], B[4], B[5], B[6], B[8], B[9], B[10];
    const Vec3 ta(A[3], A[7], A[11]), tb(B[3], B[7], B[11]);
    const Mat3 D = Ra * Rb.transpose();
    rot_deg = std::acos(std::min(1.0, std::max(-1.0, (D.trace() - 1) / 2))) * 180 / M_PI;
    centre_dist = ((-Ra.transpose() * ta) - (-Rb.transpose() * tb)).norm();
}

// Scene scale: median distance from the free cameras' centres to the points they observe.
static double scene_scale(const Problem &p, const std::vector<double> &poses, const std::vector<double> &points) {
    std::vector<double> d;
    for (const auto &o : p.obs) {
        const double *P = &poses[12 * o.camera], *X = &points[3 * o.point];
        double xc[3];
        for (int r = 0; r < 3; ++r) xc[r] = P[4 * r] * X[0] + P[4 * r + 1] * X[1] + P[4 * r + 2] * X[2] + P[4 * r + 3];
        d.push_back(std::sqrt(xc[0] * xc[0] + xc[1] * xc[1] + xc[2] * xc[2]));
    }
    if (d.empty()) return 1;
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    return d[d.size() / 2];
}

// Stress variant: noisy start (points, poses) and gross outliers in a share of the observations.
static void perturb(Problem &p, unsigned seed, double rel_noise, double rot_deg, double outlier_share) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> n01(0, 1);
    std::uniform_real_distribution<double> u01(0, 1);
    std::vector<double> d;
    for (const auto &o : p.obs) {
        const double *P = &p.poses[12 * o.camera], *X = &p.points[3 * o.point];
        double xc[3];
        for (int r = 0; r < 3; ++r) xc[r] = P[4 * r] * X[0] + P[4 * r + 1] * X[1] + P[4 * r + 2] * X[2] + P[4 * r + 3];
        d.push_back(std::sqrt(xc[0] * xc[0] + xc[1] * xc[1] + xc[2] * xc[2]));
    }
    std::sort(d.begin(), d.end());
    const double scale = d.empty() ? 1 : d[d.size() / 2];
    for (int i = 0; i < p.np; ++i)
        if (!p.point_fixed[i])
            for (int k = 0; k < 3; ++k) p.points[3 * i + k] += rel_noise * scale * n01(rng);
    for (int c = 0; c < p.nc; ++c) {
        if (p.pose_fixed[c]) continue;
        double *P = &p.poses[12 * c];
        Mat3 R;
        R << P[0], P[1], P[2], P[4], P[5], P[6], P[8], P[9], P[10];
        const Vec3 w = Vec3(n01(rng), n01(rng), n01(rng)).normalized() * rot_deg * M_PI / 180;
        R = Eigen::AngleAxisd(w.norm(), w.normalized()).toRotationMatrix() * R;
        for (int r = 0; r < 3; ++r) {
            for (int k = 0; k < 3; ++k) P[4 * r + k] = R(r, k);
            P[4 * r + 3] += rel_noise * scale * n01(rng);
        }
    }
    for (auto &o : p.obs)
        if (u01(rng) < outlier_share) {
            const double a = 2 * M_PI * u01(rng), m = 10 + 40 * u01(rng);
            o.x += float(m * std::cos(a)), o.y += float(m * std::sin(a));
        }
}

static void max_pose_diff(const Problem &p, const std::vector<double> &A, const std::vector<double> &B, double &rot, double &ctr) {
    rot = 0, ctr = 0;
    for (int c = 0; c < p.nc; ++c) {
        if (p.pose_fixed[c]) continue;
        double a, d;
        pose_diff(&A[12 * c], &B[12 * c], a, d);
        rot = std::max(rot, a), ctr = std::max(ctr, d);
    }
}

static double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

int main(int argc, char **argv) {
    google::InitGoogleLogging(argv[0]);
    int reps = 3, perturb_seed = 0;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--perturb")) perturb_seed = std::atoi(argv[++i]);
        else files.push_back(argv[i]);
    }
    struct Variant { const char *name; ceres::LinearSolverType solver; int threads; bool analytic; };
    const Variant variants[] = {{"ceres_dense_t1", ceres::DENSE_SCHUR, 1, false},
                                {"ceres_sparse_t1", ceres::SPARSE_SCHUR, 1, false},
                                {"ceres_dense_t2", ceres::DENSE_SCHUR, 2, false},
                                {"ceres_sparse_t2", ceres::SPARSE_SCHUR, 2, false},
                                {"ceres_dense_analytic_t1", ceres::DENSE_SCHUR, 1, true},
                                {"ceres_dense_analytic_t2", ceres::DENSE_SCHUR, 2, true}};
    const int nv = sizeof variants / sizeof variants[0];
    // One CSV line per problem (and variant) on stdout.
    std::printf("file,nc,free_c,np,free_p,no,max_iter,huber,inlier_thr,reject,"
                "repro_pose_maxdiff,repro_point_maxdiff,repro_inliers_same,repro_iters_same,dump_ms,"
                "initial_rms,ours_ms,ours_iters,ours_inlier_rms,ours_inliers,ours_rms,ours_cost,scale,ref_cost,ref_inlier_rms,ref_inliers,"
                "ours_ref_rot_max_deg,ours_ref_ctr_max");
    for (int v = 0; v < nv; ++v)
        std::printf(",%s_ms,%s_iters,%s_inlier_rms,%s_inliers,%s_rms,%s_cost,%s_ok,%s_dropped_behind,%s_rot_med_deg,%s_rot_max_deg,"
                    "%s_ctr_med,%s_ctr_max,%s_pt_med,%s_pt_max,%s_ref_rot_max_deg,%s_ref_ctr_max",
                    variants[v].name, variants[v].name, variants[v].name, variants[v].name, variants[v].name, variants[v].name,
                    variants[v].name, variants[v].name, variants[v].name, variants[v].name, variants[v].name, variants[v].name,
                    variants[v].name, variants[v].name, variants[v].name, variants[v].name);
    std::printf("\n");
    for (const auto &path : files) {
        Problem p;
        if (!load(path, p)) { std::fprintf(stderr, "cannot read %s\n", path.c_str()); continue; }
        if (p.status != 0) { std::fprintf(stderr, "%s: dumped status %d, skipped\n", p.name.c_str(), p.status); continue; }
        if (perturb_seed) perturb(p, perturb_seed + unsigned(std::hash<std::string>()(p.name)), 0.01, 1.0, 0.05);
        // Reference optimum: Ceres to tight tolerances (stage 2 up to 500 iterations), not timed.
        std::vector<double> ref_poses, ref_points;
        solve_ceres(p, ref_poses, ref_points, ceres::DENSE_SCHUR, 1, true, true);
        int free_c = 0, free_p = 0;
        for (auto f : p.pose_fixed) free_c += !f;
        for (auto f : p.point_fixed) free_p += !f;

        // (a) ours, through the C API, repeated; also checks reproduction of the dump.
        std::vector<double> ours_poses, ours_points;
        std::vector<uint8_t> ours_inl(p.no);
        ak_bundle_result res{};
        std::vector<double> t_ours, t_var[nv];
        std::vector<double> vposes[nv], vpoints[nv];
        CeresOutcome vout[nv];
        for (int r = 0; r < reps; ++r) {
            ours_poses = p.poses, ours_points = p.points;
            double t0 = now_ms();
            ak_status s = ak_bundle_adjust(&p.cam, ours_poses.data(), p.pose_fixed.data(), p.nc, ours_points.data(),
                                           p.point_fixed.data(), p.np, p.obs.data(), p.no, &p.params, &res, ours_inl.data());
            t_ours.push_back(now_ms() - t0);
            if (s != AK_OK) std::fprintf(stderr, "%s: ours failed: %s\n", p.name.c_str(), ak_last_error());
            for (int v = 0; v < nv; ++v) {
                t0 = now_ms();
                vout[v] = solve_ceres(p, vposes[v], vpoints[v], variants[v].solver, variants[v].threads, variants[v].analytic);
                t_var[v].push_back(now_ms() - t0);
            }
        }
        double pmax = 0, qmax = 0;
        for (size_t i = 0; i < ours_poses.size(); ++i) pmax = std::max(pmax, std::abs(ours_poses[i] - p.out_poses[i]));
        for (size_t i = 0; i < ours_points.size(); ++i) qmax = std::max(qmax, std::abs(ours_points[i] - p.out_points[i]));
        const bool inl_same = ours_inl == p.out_inliers;
        const bool it_same = res.iterations == p.out_result.iterations && res.accepted == p.out_result.accepted &&
                             res.inlier_count == p.out_result.inlier_count;
        const Stats so = stats(p, ours_poses, ours_points);
        const Stats s0 = stats(p, p.poses, p.points);
        const double scale = scene_scale(p, ours_poses, ours_points);
        std::printf("%s,%d,%d,%d,%d,%d,%d,%g,%g,%d,%.3g,%.3g,%d,%d,%.4f,%.6f,%.4f,%d,%.6f,%d,%.6f,%.6g,%.6g", p.name.c_str(),
                    p.nc, free_c, p.np, free_p, p.no, p.params.max_iterations, p.params.huber_threshold,
                    p.params.inlier_threshold, p.params.reject_outliers, pmax, qmax, int(inl_same), int(it_same),
                    p.dump_ns / 1e6, s0.rms, median(t_ours), res.iterations, so.inlier_rms, so.inliers, so.rms, so.robust_cost,
                    scale);
        {
            const Stats sr = stats(p, ref_poses, ref_points);
            double a, d;
            max_pose_diff(p, ours_poses, ref_poses, a, d);
            std::printf(",%.6g,%.6f,%d,%.4g,%.4g", sr.robust_cost, sr.inlier_rms, sr.inliers, a, d);
        }
        for (int v = 0; v < nv; ++v) {
            const Stats sc = stats(p, vposes[v], vpoints[v]);
            std::vector<double> rot, ctr, ptd;
            for (int c = 0; c < p.nc; ++c) {
                if (p.pose_fixed[c]) continue;
                double a, d;
                pose_diff(&ours_poses[12 * c], &vposes[v][12 * c], a, d);
                rot.push_back(a), ctr.push_back(d);
            }
            for (int i = 0; i < p.np; ++i) {
                if (p.point_fixed[i]) continue;
                ptd.push_back(Vec3(ours_points[3 * i] - vpoints[v][3 * i], ours_points[3 * i + 1] - vpoints[v][3 * i + 1],
                                   ours_points[3 * i + 2] - vpoints[v][3 * i + 2]).norm());
            }
            auto mx = [](const std::vector<double> &x) { return x.empty() ? 0 : *std::max_element(x.begin(), x.end()); };
            std::printf(",%.4f,%d,%.6f,%d,%.6f,%.6g,%d,%d,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g", median(t_var[v]), vout[v].iterations,
                        sc.inlier_rms, sc.inliers, sc.rms, sc.robust_cost, int(vout[v].ok), vout[v].dropped_behind, median(rot),
                        mx(rot), median(ctr), mx(ctr), median(ptd), mx(ptd));
            double a, d;
            max_pose_diff(p, vposes[v], ref_poses, a, d);
            std::printf(",%.4g,%.4g", a, d);
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    return 0;
}
