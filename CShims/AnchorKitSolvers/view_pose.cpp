// view_pose.cpp — one rigid transform refined from points seen through several fixed cameras
// (ak_refine_view_pose, anchorkit_world.h): Levenberg-Marquardt on SE(3) with a Huber kernel.
#include "rigid.hpp"

#include <vector>

using namespace akcv;

namespace {

struct ViewPoint {
    int view;
    Vec3 x;   // object frame
    Vec2 px;
};

class ViewPoseRefiner {
public:
    ViewPoseRefiner(const ak_pinhole &camera, const std::vector<Pose> &views, const std::vector<ViewPoint> &points,
                    double huber)
        : K_(camera), views_(views), points_(points), huber_(huber) {}

    // Refines `pose` (middle_from_object) in at most `max_iterations` steps.
    ak_view_pose_result run(Pose &pose, int max_iterations) const {
        ak_view_pose_result out{};
        out.initial_rms = rms(pose, nullptr);
        MarquardtSchedule schedule(cost(pose));
        for (int it = 0; it < max_iterations; ++it) {
            ++out.iterations;
            Mat6 H = Mat6::Zero();
            Vec6 g = Vec6::Zero();
            for (const ViewPoint &p : points_) {
                const Vec3 y = pose.R * p.x + pose.t;  // middle frame
                const Pose &v = views_[p.view];
                const Vec3 Xc = v.R * y + v.t;
                Vec2 r;
                if (!residual(Xc, p.px, r)) continue;
                const double w = huber_weight(r.norm(), huber_);
                // The perturbation acts on y, and the camera rotates it: d Xc = R_v d y.
                const Mat26 J = left_perturbation_jacobian(projection_jacobian(K_, Xc) * v.R, y);
                H.noalias() += w * J.transpose() * J;
                g.noalias() += w * J.transpose() * r;
            }
            const Vec6 step = damped(H, schedule.lambda()).ldlt().solve(-g);
            if (!step.allFinite()) break;
            Pose next;
            const Mat3 dR = exp_so3(step.head<3>());
            next.R = dR * pose.R;
            next.t = dR * pose.t + step.tail<3>();
            if (schedule.takes(cost(next))) pose = next;
            if (schedule.done()) break;
        }
        out.final_rms = rms(pose, &out.behind);
        return out;
    }

private:
    const ak_pinhole K_;
    const std::vector<Pose> &views_;
    const std::vector<ViewPoint> &points_;
    const double huber_;

    bool residual(const Vec3 &Xc, const Vec2 &px, Vec2 &r) const { return pixel_residual(K_, Xc, px.x(), px.y(), r); }

    Vec3 in_camera(const Pose &pose, const ViewPoint &p) const {
        const Pose &v = views_[p.view];
        return v.R * (pose.R * p.x + pose.t) + v.t;
    }

    // Huber cost (a point behind its camera costs kBehindPenaltyPixels).
    double cost(const Pose &pose) const {
        double sum = 0;
        Vec2 r;
        for (const ViewPoint &p : points_)
            sum += huber_cost(residual(in_camera(pose, p), p.px, r) ? r.norm() : kBehindPenaltyPixels, huber_);
        return sum;
    }

    double rms(const Pose &pose, int *behind) const {
        double sum = 0;
        int n = 0, hidden = 0;
        Vec2 r;
        for (const ViewPoint &p : points_) {
            if (residual(in_camera(pose, p), p.px, r)) sum += r.squaredNorm(), ++n;
            else ++hidden;
        }
        if (behind) *behind = hidden;
        return n ? std::sqrt(sum / n) : 0;
    }
};

ak_status check_view_pose_params(const char *fn, const ak_view_pose_params &p) noexcept {
    if (p.max_iterations < 0 || p.max_iterations > 1000)
        return fail(AK_ERR_ARGUMENT, fn, "max_iterations must be in 0...1000, got %d", p.max_iterations);
    if (!(p.huber_threshold > 0) || !std::isfinite(p.huber_threshold))
        return fail(AK_ERR_ARGUMENT, fn, "huber_threshold must be positive and finite");
    return AK_OK;
}

}  // namespace

extern "C" {

void ak_view_pose_params_default(ak_view_pose_params *params) {
    if (params) *params = ak_view_pose_params{10, 2.0};
}

ak_status ak_refine_view_pose(const ak_pinhole *camera, const double *views, int view_count, const int *view_of,
                              const double *points, const float *pixels, int count, const ak_view_pose_params *params,
                              double *pose, ak_view_pose_result *result) {
    static const char *fn = "ak_refine_view_pose";
    return guarded(fn, [&]() -> ak_status {
        if (!result) return fail(AK_ERR_ARGUMENT, fn, "result is NULL");
        *result = ak_view_pose_result{};
        if (ak_status s = check_pinhole(fn, camera)) return s;
        if (ak_status s = check_count(fn, view_count, "view_count")) return s;
        if (ak_status s = check_count(fn, count, "count")) return s;
        const ak_view_pose_params p = given_or_default(params, ak_view_pose_params_default);
        if (ak_status s = check_view_pose_params(fn, p)) return s;
        if (!pose) return fail(AK_ERR_ARGUMENT, fn, "pose is NULL");
        if ((view_count > 0 && !views) || (count > 0 && (!view_of || !points || !pixels)))
            return fail(AK_ERR_ARGUMENT, fn, "views, view_of, points or pixels is NULL");
        if (ak_status s = check_pixels(fn, pixels, count, "pixels")) return s;
        Pose start;
        if (ak_status s = read_pose(fn, pose, "pose", -1, start)) return s;
        std::vector<Pose> cams(view_count);
        for (int v = 0; v < view_count; ++v)
            if (ak_status s = read_pose(fn, views + 12 * v, "view", v, cams[v])) return s;
        std::vector<ViewPoint> pts(count);
        for (int i = 0; i < count; ++i) {
            if (view_of[i] < 0 || view_of[i] >= view_count)
                return fail(AK_ERR_ARGUMENT, fn, "point %d: view %d is not in 0..<%d", i, view_of[i], view_count);
            pts[i] = ViewPoint{view_of[i], Vec3(points[3 * i], points[3 * i + 1], points[3 * i + 2]),
                               Vec2(pixels[2 * i], pixels[2 * i + 1])};
            if (!pts[i].x.allFinite()) return fail(AK_ERR_ARGUMENT, fn, "point %d must be finite", i);
        }
        *result = ViewPoseRefiner(*camera, cams, pts, p.huber_threshold).run(start, p.max_iterations);
        write_pose(start, pose);
        return AK_OK;
    });
}

}  // extern "C"
