// target_pose.cpp — the poses of planar targets (ak_solve_square_poses, ak_solve_planar_pose;
// anchorkit_target_pose.h): OpenCV's IPPE for both solutions of the planar ambiguity, each then
// refined to the least squared pixel error through the camera's distortion (refine_pose,
// pose_refinement.cpp).
#include "anchorkit_target_pose.h"
#include "rigid.hpp"

#include <opencv2/calib3d.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace akcv;

namespace {

cv::Matx33d camera_matrix(const ak_camera &c) { return cv::Matx33d(c.fx, 0, c.cx, 0, c.fy, c.cy, 0, 0, 1); }

cv::Matx<double, 1, 5> distortion(const ak_camera &c) {
    return cv::Matx<double, 1, 5>(c.distortion[0], c.distortion[1], c.distortion[2], c.distortion[3], c.distortion[4]);
}

void clear_pose(ak_square_pose &p) {
    p.solutions = 0;
    for (int s = 0; s < 2; ++s) {
        for (double &v : p.rotation[s]) v = 0;
        for (double &v : p.translation[s]) v = 0;
        p.error[s] = 0;
    }
}

// A cap above the steps Levenberg-Marquardt takes from an IPPE solution to converge
// (Benchmarks/README.md, "Poses refined without OpenCV's general solver").
constexpr int kRefinementIterations = 50;

// Both IPPE solutions, finite ones only, sorted by RMS reprojection error (0 when degenerate).
void solve_ippe(const ak_camera &camera, const std::vector<cv::Point3d> &object, const std::vector<cv::Point2d> &image,
                int flag, ak_square_pose &pose) {
    clear_pose(pose);
    const cv::Matx33d K = camera_matrix(camera);
    const cv::Matx<double, 1, 5> dist = distortion(camera);
    std::vector<cv::Mat> rvecs, tvecs;
    cv::Mat errors;
    int n = 0;
    try {
        n = cv::solvePnPGeneric(object, image, K, dist, rvecs, tvecs, false, static_cast<cv::SolvePnPMethod>(flag),
                                cv::noArray(), cv::noArray(), errors);
    } catch (const cv::Exception &) {
        // Degenerate input (collinear or coincident points) has no pose: 0 solutions.
        return;
    }
    struct Solution {
        cv::Matx33d R;
        cv::Vec3d t;
        double err;
    };
    Solution sol[2];
    int kept = 0;
    cv::Mat err64, r64, t64;
    errors.convertTo(err64, CV_64F);
    const int available = std::min({n, 2, static_cast<int>(rvecs.size()), static_cast<int>(tvecs.size())});
    for (int s = 0; s < available; ++s) {
        rvecs[s].convertTo(r64, CV_64F);
        tvecs[s].convertTo(t64, CV_64F);
        if (r64.total() != 3 || t64.total() != 3) continue;
        cv::Vec3d r(r64.ptr<double>()), t(t64.ptr<double>());
        double err = (s < static_cast<int>(err64.total())) ? err64.ptr<double>()[s]
                                                                 : std::numeric_limits<double>::quiet_NaN();
        if (!cv::checkRange(r) || !cv::checkRange(t) || !std::isfinite(err)) continue;
        // IPPE is analytic, from the homography's Jacobian at one point: when the pixels are not
        // exactly a rigid view of the object (noise, rounding), it does not minimise their
        // reprojection error. Levenberg-Marquardt from each solution does, within its basin.
        cv::Matx33d R;
        cv::Rodrigues(r, R);
        cv::Matx33d refinedR = R;
        cv::Vec3d refinedT = t;
        const double refined = refine_pose(K, dist, object, image, refinedR, refinedT, kRefinementIterations);
        if (std::isfinite(refined)) R = refinedR, t = refinedT, err = refined;
        sol[kept++] = Solution{R, t, err};
    }
    if (kept == 2 && sol[1].err < sol[0].err) std::swap(sol[0], sol[1]);
    pose.solutions = kept;
    for (int s = 0; s < kept; ++s) {
        for (int i = 0; i < 9; ++i) pose.rotation[s][i] = sol[s].R.val[i];  // Matx is row-major
        for (int i = 0; i < 3; ++i) pose.translation[s][i] = sol[s].t[i];
        pose.error[s] = sol[s].err;
    }
}

}  // namespace

extern "C" {

ak_status ak_solve_square_poses(const ak_camera *camera, double side, const float *corners, int count,
                                ak_square_pose *poses) {
    static const char *fn = "ak_solve_square_poses";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_camera(fn, camera)) return s;
        if (!std::isfinite(side) || side <= 0) return fail(AK_ERR_ARGUMENT, fn, "side must be positive, got %g", side);
        if (count < 0) return fail(AK_ERR_ARGUMENT, fn, "count must be >= 0, got %d", count);
        if (count == 0) return AK_OK;
        if (!corners || !poses) return fail(AK_ERR_ARGUMENT, fn, "corners or poses is NULL");
        for (int i = 0; i < 8 * count; ++i)
            if (!std::isfinite(corners[i])) return fail(AK_ERR_ARGUMENT, fn, "corner coordinates must be finite (marker %d)", i / 8);

        const double h = side / 2;
        const std::vector<cv::Point3d> object = {{-h, h, 0}, {h, h, 0}, {h, -h, 0}, {-h, -h, 0}};
        std::vector<cv::Point2d> image(4);

        for (int m = 0; m < count; ++m) {
            ak_square_pose &pose = poses[m];
            for (int k = 0; k < 4; ++k) image[k] = cv::Point2d(corners[8 * m + 2 * k], corners[8 * m + 2 * k + 1]);
            solve_ippe(*camera, object, image, cv::SOLVEPNP_IPPE_SQUARE, pose);
        }
        return AK_OK;
    });
}

ak_status ak_solve_planar_pose(const ak_camera *camera, const float *object_points, const float *image_points,
                               int count, ak_square_pose *pose) {
    static const char *fn = "ak_solve_planar_pose";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_camera(fn, camera)) return s;
        if (!object_points || !image_points || !pose)
            return fail(AK_ERR_ARGUMENT, fn, "object_points, image_points or pose is NULL");
        if (count < 4 || count > kMaxPoints)
            return fail(AK_ERR_ARGUMENT, fn, "count must be in 4...%d, got %d", kMaxPoints, count);
        std::vector<cv::Point3d> object(static_cast<size_t>(count));
        std::vector<cv::Point2d> pixels(static_cast<size_t>(count));
        for (int i = 0; i < count; ++i) {
            const float ox = object_points[2 * i], oy = object_points[2 * i + 1];
            const float px = image_points[2 * i], py = image_points[2 * i + 1];
            if (!std::isfinite(ox) || !std::isfinite(oy) || !std::isfinite(px) || !std::isfinite(py))
                return fail(AK_ERR_ARGUMENT, fn, "point coordinates must be finite (point %d)", i);
            object[static_cast<size_t>(i)] = cv::Point3d(ox, oy, 0);
            pixels[static_cast<size_t>(i)] = cv::Point2d(px, py);
        }
        solve_ippe(*camera, object, pixels, cv::SOLVEPNP_IPPE, *pose);
        return AK_OK;
    });
}

}  // extern "C"
