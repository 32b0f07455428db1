// pnp.cpp — ak_solve_pnp (anchorkit_world.h): a camera pose from map points and their pixels,
// RANSAC over OpenCV's PnP solvers and a refinement on the inliers (refine_pose, pose_refinement.cpp).
#include "world_geometry.hpp"

using namespace akcv;
using namespace akcv::world;

namespace {

// Levenberg-Marquardt steps of the refinement on each inlier set (it stops sooner once converged).
constexpr int kRefinementIterations = 30;

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
    if (!std::isfinite(p.rotation_prior_sigma) || !(p.rotation_prior_sigma > 0))
        return fail(AK_ERR_ARGUMENT, fn, "rotation_prior_sigma must be positive, got %g", p.rotation_prior_sigma);
    return AK_OK;
}


}  // namespace

extern "C" {

// ---------------------------------------------------------------- PnP

void ak_pnp_params_default(ak_pnp_params *params) {
    if (!params) return;
    *params = ak_pnp_params{AK_PNP_EPNP, 2.0, 0.999, 300, 10, 0.001};
}

ak_status ak_solve_pnp(const ak_pinhole *camera, const double *points, const float *pixels, int count,
                       const double *initial_camera_from_world, const double *rotation_prior,
                       const ak_pnp_params *params, ak_pnp_result *result, uint8_t *inliers) {
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
        RotationPrior prior{Mat3::Identity(), 1 / (p.rotation_prior_sigma * p.rotation_prior_sigma)};
        if (rotation_prior)
            if (ak_status s = read_rotation(fn, rotation_prior, 3, "rotation_prior", -1, prior.rotation)) return s;
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
        cv::Matx33d R;
        cv::Rodrigues(rvec, R);
        cv::Vec3d t(tvec.at<double>(0), tvec.at<double>(1), tvec.at<double>(2));
        const cv::Matx<double, 1, 5> pinhole = cv::Matx<double, 1, 5>::zeros();

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
            // A start with an inlier behind the camera has no pose (NaN); else R, t are refined.
            if (!std::isfinite(refine_pose(K, pinhole, obj, img, R, t, kRefinementIterations, rotation_prior ? &prior : nullptr)))
                return AK_OK;
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

        Pose pose;
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) pose.R(i, j) = R(i, j);
            pose.t[i] = t[i];
        }
        write_pose(pose, result->camera_from_world);
        result->found = 1;
        result->inlier_count = n;
        result->rms_error = std::sqrt(sum / n);
        if (inliers) std::memcpy(inliers, mask.data(), static_cast<size_t>(count));
        return AK_OK;
    });
}

}  // extern "C"
