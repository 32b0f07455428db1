// bundle_adjustment.cpp — ak_bundle_adjust (anchorkit_world.h): local bundle adjustment of free
// poses and points (bundle_adjuster.hpp).
#include "bundle_adjuster.hpp"

using namespace akcv;
using namespace akcv::world;

namespace {

// The reduced camera system is solved densely: (6 x free poses)^2 doubles, cubic time.
constexpr int kMaxFreePoses = 128;

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

}  // namespace

extern "C" {

// ---------------------------------------------------------------- bundle adjustment

void ak_bundle_params_default(ak_bundle_params *params) {
    if (!params) return;
    const double huber = std::sqrt(kChi2TwoDof);  // ORB-SLAM's, for 1 px noise
    *params = ak_bundle_params{20, huber, huber, 1};
}

ak_status ak_bundle_adjust(const ak_pinhole *camera, double *camera_from_world, const uint8_t *pose_fixed,
                           int pose_count, double *points, const uint8_t *point_fixed, int point_count,
                           const ak_observation *observations, int observation_count,
                           const ak_rotation_link *links, int link_count, const ak_bundle_params *params,
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

        if (ak_status s = check_count(fn, link_count, "link_count")) return s;
        if (link_count > 0 && !links) return fail(AK_ERR_ARGUMENT, fn, "links is NULL");
        std::vector<RotationLink> turns(link_count);
        for (int k = 0; k < link_count; ++k) {
            const ak_rotation_link &l = links[k];
            if (l.from < 0 || l.from >= pose_count || l.to < 0 || l.to >= pose_count || l.from == l.to)
                return fail(AK_ERR_ARGUMENT, fn, "link %d: poses %d and %d are not two of 0..<%d", k, l.from, l.to, pose_count);
            if (!std::isfinite(l.sigma) || !(l.sigma > 0)) return fail(AK_ERR_ARGUMENT, fn, "link %d: sigma must be positive", k);
            turns[k] = RotationLink{l.from, l.to, Mat3::Identity(), l.sigma};
            if (ak_status s = read_rotation(fn, l.turn, 3, "link turn", k, turns[k].turn)) return s;
        }
        BundleAdjuster ba(*camera, poses, fixed_pose, pts, fixed_point, obs, p.huber_threshold, turns);
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
