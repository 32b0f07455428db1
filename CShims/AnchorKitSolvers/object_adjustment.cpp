// object_adjustment.cpp — one rigid object and the cameras that saw it, refined together against
// fixed world points (ak_adjust_object_and_views, anchorkit_world.h): Levenberg-Marquardt on
// SE(3)^(views + 1) with a Huber kernel, a dense solve of the 6 (views + 1) normal equations.
//
// Why not the bundle adjuster: it refines free points, and an object of known size (a printed
// target) seen from nearly one direction leaves its corners free to slide along their rays; held
// rigid, its few parameters are fixed by every view at once.
#include "rigid.hpp"

#include <Eigen/Dense>
#include <vector>

using namespace akcv;

namespace {

struct Sighting {
    int view;
    Vec3 x;   // world frame (fixed points) or object frame (the object's)
    Vec2 px;
};

constexpr int kMaxViews = 256;

class ObjectAdjuster {
public:
    ObjectAdjuster(const ak_pinhole &camera, const std::vector<Sighting> &fixed, const std::vector<Sighting> &object, double huber)
        : K_(camera), fixed_(fixed), object_(object), huber_(huber) {}

    // Refines `views` (camera_from_world) and `pose` (world_from_object) in at most `max_iterations` steps.
    ak_view_pose_result run(std::vector<Pose> &views, Pose &pose, int max_iterations) const {
        ak_view_pose_result out{};
        out.initial_rms = rms(views, pose, nullptr);
        const int n = 6 * (static_cast<int>(views.size()) + 1), o = n - 6;  // the object's block last
        MarquardtSchedule schedule(cost(views, pose));
        for (int it = 0; it < max_iterations; ++it) {
            ++out.iterations;
            Eigen::MatrixXd H = Eigen::MatrixXd::Zero(n, n);
            Eigen::VectorXd g = Eigen::VectorXd::Zero(n);
            Vec2 r;
            for (const Sighting &s : fixed_) {
                const Pose &v = views[s.view];
                const Vec3 Xc = v.R * s.x + v.t;
                if (!pixel_residual(K_, Xc, s.px.x(), s.px.y(), r)) continue;
                const double w = huber_weight(r.norm(), huber_);
                const Mat26 Jc = left_perturbation_jacobian(projection_jacobian(K_, Xc), Xc);
                H.block<6, 6>(6 * s.view, 6 * s.view).noalias() += w * Jc.transpose() * Jc;
                g.segment<6>(6 * s.view).noalias() += w * Jc.transpose() * r;
            }
            for (const Sighting &s : object_) {
                const Pose &v = views[s.view];
                const Vec3 y = pose.R * s.x + pose.t;  // world frame
                const Vec3 Xc = v.R * y + v.t;
                if (!pixel_residual(K_, Xc, s.px.x(), s.px.y(), r)) continue;
                const double w = huber_weight(r.norm(), huber_);
                const Mat23 P = projection_jacobian(K_, Xc);
                const Mat26 Jc = left_perturbation_jacobian(P, Xc);
                // The object's perturbation acts on y, which the camera rotates: d Xc = R_v d y.
                const Mat26 Jo = left_perturbation_jacobian(P * v.R, y);
                const int c = 6 * s.view;
                H.block<6, 6>(c, c).noalias() += w * Jc.transpose() * Jc;
                H.block<6, 6>(o, o).noalias() += w * Jo.transpose() * Jo;
                H.block<6, 6>(c, o).noalias() += w * Jc.transpose() * Jo;
                H.block<6, 6>(o, c).noalias() += w * Jo.transpose() * Jc;
                g.segment<6>(c).noalias() += w * Jc.transpose() * r;
                g.segment<6>(o).noalias() += w * Jo.transpose() * r;
            }
            const Eigen::VectorXd step = damped(H, schedule.lambda()).ldlt().solve(-g);
            if (!step.allFinite()) break;
            std::vector<Pose> next_views = views;
            for (size_t k = 0; k < views.size(); ++k) next_views[k] = moved(views[k], step.segment<6>(6 * static_cast<int>(k)));
            const Pose next = moved(pose, step.segment<6>(o));
            if (schedule.takes(cost(next_views, next))) views = next_views, pose = next;
            if (schedule.done()) break;
        }
        out.final_rms = rms(views, pose, &out.behind);
        return out;
    }

private:
    const ak_pinhole K_;
    const std::vector<Sighting> &fixed_, &object_;
    const double huber_;

    // The left perturbation pose <- (exp([dw]x), dv) pose.
    static Pose moved(const Pose &p, const Vec6 &d) {
        const Mat3 dR = exp_so3(d.head<3>());
        Pose out;
        out.R = dR * p.R;
        out.t = dR * p.t + d.tail<3>();
        return out;
    }

    // Calls f(residual valid, residual) for every sighting, fixed points first.
    template <class F> void each(const std::vector<Pose> &views, const Pose &pose, F f) const {
        Vec2 r;
        for (const Sighting &s : fixed_) {
            const Pose &v = views[s.view];
            f(pixel_residual(K_, v.R * s.x + v.t, s.px.x(), s.px.y(), r), r);
        }
        for (const Sighting &s : object_) {
            const Pose &v = views[s.view];
            f(pixel_residual(K_, v.R * (pose.R * s.x + pose.t) + v.t, s.px.x(), s.px.y(), r), r);
        }
    }

    // Huber cost (a point behind its camera costs kBehindPenaltyPixels).
    double cost(const std::vector<Pose> &views, const Pose &pose) const {
        double sum = 0;
        each(views, pose, [&](bool ok, const Vec2 &r) { sum += huber_cost(ok ? r.norm() : kBehindPenaltyPixels, huber_); });
        return sum;
    }

    // RMS over the object's sightings in front of their camera (the fixed points' are the views' own).
    double rms(const std::vector<Pose> &views, const Pose &pose, int *behind) const {
        double sum = 0;
        int count = 0, hidden = 0;
        Vec2 r;
        for (const Sighting &s : object_) {
            const Pose &v = views[s.view];
            if (pixel_residual(K_, v.R * (pose.R * s.x + pose.t) + v.t, s.px.x(), s.px.y(), r)) sum += r.squaredNorm(), ++count;
            else ++hidden;
        }
        if (behind) *behind = hidden;
        return count ? std::sqrt(sum / count) : 0;
    }
};

ak_status read_sightings(const char *fn, const char *what, const int *view_of, const double *points, const float *pixels,
                         int count, int view_count, std::vector<Sighting> &out) {
    if (ak_status s = check_count(fn, count, what)) return s;
    if (count > 0 && (!view_of || !points || !pixels)) return fail(AK_ERR_ARGUMENT, fn, "%s: view_of, points or pixels is NULL", what);
    if (ak_status s = check_pixels(fn, pixels, count, what)) return s;
    out.resize(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
        if (view_of[i] < 0 || view_of[i] >= view_count)
            return fail(AK_ERR_ARGUMENT, fn, "%s %d: view %d is not in 0..<%d", what, i, view_of[i], view_count);
        out[i] = Sighting{view_of[i], Vec3(points[3 * i], points[3 * i + 1], points[3 * i + 2]), Vec2(pixels[2 * i], pixels[2 * i + 1])};
        if (!out[i].x.allFinite()) return fail(AK_ERR_ARGUMENT, fn, "%s %d must be finite", what, i);
    }
    return AK_OK;
}

}  // namespace

extern "C" {

ak_status ak_adjust_object_and_views(const ak_pinhole *camera, double *views, int view_count, double *object,
                                     const int *fixed_view, const double *fixed_points, const float *fixed_pixels, int fixed_count,
                                     const int *object_view, const double *object_points, const float *object_pixels,
                                     int object_count, const ak_view_pose_params *params, ak_view_pose_result *result) {
    static const char *fn = "ak_adjust_object_and_views";
    return guarded(fn, [&]() -> ak_status {
        if (!result) return fail(AK_ERR_ARGUMENT, fn, "result is NULL");
        *result = ak_view_pose_result{};
        if (ak_status s = check_pinhole(fn, camera)) return s;
        if (view_count < 1 || view_count > kMaxViews)
            return fail(AK_ERR_ARGUMENT, fn, "view_count must be in 1...%d, got %d", kMaxViews, view_count);
        if (!views || !object) return fail(AK_ERR_ARGUMENT, fn, "views or object is NULL");
        const ak_view_pose_params p = given_or_default(params, ak_view_pose_params_default);
        if (p.max_iterations < 0 || p.max_iterations > 1000)
            return fail(AK_ERR_ARGUMENT, fn, "max_iterations must be in 0...1000, got %d", p.max_iterations);
        if (!(p.huber_threshold > 0) || !std::isfinite(p.huber_threshold))
            return fail(AK_ERR_ARGUMENT, fn, "huber_threshold must be positive and finite");
        if (fixed_count < 1) return fail(AK_ERR_ARGUMENT, fn, "at least one fixed point is needed (the gauge)");
        std::vector<Sighting> fixed, own;
        if (ak_status s = read_sightings(fn, "fixed point", fixed_view, fixed_points, fixed_pixels, fixed_count, view_count, fixed)) return s;
        if (ak_status s = read_sightings(fn, "object point", object_view, object_points, object_pixels, object_count, view_count, own)) return s;
        Pose pose;
        if (ak_status s = read_pose(fn, object, "object", -1, pose)) return s;
        std::vector<Pose> cams(static_cast<size_t>(view_count));
        for (int v = 0; v < view_count; ++v)
            if (ak_status s = read_pose(fn, views + 12 * v, "view", v, cams[static_cast<size_t>(v)])) return s;
        *result = ObjectAdjuster(*camera, fixed, own, p.huber_threshold).run(cams, pose, p.max_iterations);
        write_pose(pose, object);
        for (int v = 0; v < view_count; ++v) write_pose(cams[static_cast<size_t>(v)], views + 12 * v);
        return AK_OK;
    });
}

}  // extern "C"
