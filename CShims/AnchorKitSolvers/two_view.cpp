// two_view.cpp — ak_two_view_initialise (anchorkit_world.h): ORB-SLAM's two-view initialisation,
// a homography and a fundamental matrix scored on the same matches, the better model decomposed
// and its pose refined by bundle adjustment.
#include "bundle_adjuster.hpp"

using namespace akcv;
using namespace akcv::world;

namespace {

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

}  // namespace

extern "C" {

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

}  // extern "C"
