// The C++ solvers' own tests (anchorkit_solvers.h: world geometry with and without a gyroscope's
// turns, an object and its views, alignment, plane sweep; anchorkit_pose.h: a square's pose
// refined), on known cases: each solver
// gets what it should recover exactly (noise-free geometry) or to a stated tolerance (noise,
// outliers). Prints one line per check and exits non-zero when any fails. `swift test` runs it
// (SolverTests.swift).
#include "anchorkit_solvers.h"
#include "anchorkit_pose.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char *what, double value, double limit) {
    std::printf("%s %s: %.3g (limit %.3g)\n", ok ? "ok  " : "FAIL", what, value, limit);
    if (!ok) ++failures;
}

const ak_pinhole kCamera{500, 500, 320, 240};

// A pose [R | t] row-major from a rotation about axis (unit) by angle (rad) and a translation.
std::vector<double> pose(double ax, double ay, double az, double angle, double tx, double ty, double tz) {
    const double c = std::cos(angle), s = std::sin(angle), C = 1 - c;
    return {c + ax * ax * C,      ax * ay * C - az * s, ax * az * C + ay * s, tx,
            ay * ax * C + az * s, c + ay * ay * C,      ay * az * C - ax * s, ty,
            az * ax * C - ay * s, az * ay * C + ax * s, c + az * az * C,      tz};
}

// The pixel of world point X under camera_from_world P; false behind the camera.
bool project(const std::vector<double> &P, const double *X, float *px) {
    double c[3];
    for (int r = 0; r < 3; ++r) c[r] = P[4 * r] * X[0] + P[4 * r + 1] * X[1] + P[4 * r + 2] * X[2] + P[4 * r + 3];
    if (c[2] <= 0) return false;
    px[0] = static_cast<float>(kCamera.fx * c[0] / c[2] + kCamera.cx);
    px[1] = static_cast<float>(kCamera.fy * c[1] / c[2] + kCamera.cy);
    return true;
}

// Points spread 3-6 m in front of the origin camera.
std::vector<double> scene(int count, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> xy(-2, 2), z(3, 6);
    std::vector<double> X;
    for (int i = 0; i < count; ++i) X.insert(X.end(), {xy(random), xy(random), z(random)});
    return X;
}

double max_abs_difference(const double *a, const double *b, int n) {
    double m = 0;
    for (int i = 0; i < n; ++i) m = std::fmax(m, std::fabs(a[i] - b[i]));
    return m;
}

void triangulation() {
    const std::vector<double> P1 = pose(0, 1, 0, 0, 0, 0, 0), P2 = pose(0, 1, 0, 0.1, -0.5, 0, 0.05);
    const std::vector<double> X = scene(50, 1);
    std::vector<float> px1(100), px2(100);
    for (int i = 0; i < 50; ++i) { project(P1, &X[3 * i], &px1[2 * i]); project(P2, &X[3 * i], &px2[2 * i]); }
    std::vector<double> out(150);
    int good = 0;
    const bool ran = ak_triangulate(&kCamera, P1.data(), P2.data(), px1.data(), px2.data(), 50, nullptr, out.data(), nullptr,
                                    nullptr, nullptr, &good) == AK_OK;
    check(ran && good == 50, "triangulation: points kept of 50", good, 50);
    // Pixels are floats (about 1e-5 px), so the points are exact to about 1e-4 m at 6 m.
    check(ran && max_abs_difference(out.data(), X.data(), 150) < 1e-3, "triangulation: largest point error, m",
          max_abs_difference(out.data(), X.data(), 150), 1e-3);
}

void pnp() {
    const std::vector<double> truth = pose(0.3, 0.9, 0.3162, 0.2, 0.1, -0.2, 0.3);
    const std::vector<double> X = scene(100, 2);
    std::vector<float> px(200);
    for (int i = 0; i < 100; ++i) project(truth, &X[3 * i], &px[2 * i]);
    // A fifth of the matches are wrong by tens of pixels.
    for (int i = 0; i < 100; i += 5) { px[2 * i] += 40; px[2 * i + 1] -= 25; }
    ak_pnp_result result{};
    std::vector<uint8_t> inliers(100);
    const bool ran = ak_solve_pnp(&kCamera, X.data(), px.data(), 100, nullptr, nullptr, nullptr, &result, inliers.data()) == AK_OK;
    int flagged = 0;
    for (int i = 0; i < 100; ++i) flagged += (i % 5 == 0) != (inliers[i] == 0);
    check(ran && result.found && result.inlier_count == 80, "PnP: inliers of 80 true, 20 wrong", result.inlier_count, 80);
    check(flagged == 0, "PnP: matches misclassified", flagged, 0);
    check(ran && max_abs_difference(result.camera_from_world, truth.data(), 12) < 1e-4, "PnP: largest pose element error",
          max_abs_difference(result.camera_from_world, truth.data(), 12), 1e-4);
}

void two_view() {
    // Camera 2 moved 0.4 m sideways and turned 5 degrees: a general (non-planar) scene.
    const std::vector<double> P1 = pose(0, 1, 0, 0, 0, 0, 0), P2 = pose(0, 1, 0, 0.087, -0.4, 0, 0);
    const std::vector<double> X = scene(200, 3);
    std::vector<float> px1(400), px2(400);
    for (int i = 0; i < 200; ++i) { project(P1, &X[3 * i], &px1[2 * i]); project(P2, &X[3 * i], &px2[2 * i]); }
    ak_two_view_result result{};
    const bool ran = ak_two_view_initialise(&kCamera, px1.data(), px2.data(), 200, nullptr, &result, nullptr, nullptr) == AK_OK;
    check(ran && result.failure == AK_TWO_VIEW_SUCCESS && result.model == AK_TWO_VIEW_ESSENTIAL,
          "two-view: essential model chosen (2) and successful (0)", result.model * 10 + result.failure, 20);
    double rotation_error = 0;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) rotation_error = std::fmax(rotation_error, std::fabs(result.rotation[3 * r + c] - P2[4 * r + c]));
    check(ran && rotation_error < 1e-4, "two-view: largest rotation element error", rotation_error, 1e-4);
    // The translation is recovered up to scale: unit length along (-1, 0, 0).
    const double direction_error = std::fabs(result.translation[0] + 1) + std::fabs(result.translation[1]) + std::fabs(result.translation[2]);
    check(ran && direction_error < 1e-3, "two-view: translation direction error", direction_error, 1e-3);
}

// Three cameras see 60 points 3-6 m away (the bundle adjustment's cases).
struct ThreeViews {
    std::vector<std::vector<double>> truth;
    int points = 60;
    std::vector<double> X;
    std::vector<ak_observation> observations;
    // The first pose and three points are fixed: they set the frame and the scale.
    static constexpr uint8_t pose_fixed[3] = {1, 0, 0};
    std::vector<uint8_t> point_fixed() const {
        std::vector<uint8_t> fixed(static_cast<size_t>(points), 0);
        fixed[0] = fixed[1] = fixed[2] = 1;
        return fixed;
    }
    // The true poses one after another, 12 values each, as ak_bundle_adjust takes them.
    std::vector<double> poses() const {
        std::vector<double> all;
        for (const auto &p : truth) all.insert(all.end(), p.begin(), p.end());
        return all;
    }
};

ThreeViews three_views() {
    ThreeViews v;
    v.truth = {pose(0, 1, 0, 0, 0, 0, 0), pose(0, 1, 0, 0.05, -0.3, 0, 0), pose(1, 0, 0, 0.04, -0.3, 0.2, 0.1)};
    v.X = scene(v.points, 4);
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < v.points; ++i) {
            float px[2];
            if (project(v.truth[c], &v.X[3 * i], px)) v.observations.push_back({c, i, px[0], px[1]});
        }
    return v;
}

void bundle_adjustment() {
    // Three cameras see 60 points; the last two poses and every point start perturbed, the first
    // pose and three points are fixed (they set the frame and the scale).
    const ThreeViews views = three_views();
    const auto &[truth, points, X, observations] = views;
    std::vector<double> poses = views.poses(), start = X;
    std::mt19937 random(5);
    std::normal_distribution<double> noise(0, 0.02);
    for (int k = 12; k < 36; ++k) if (k % 4 == 3) poses[static_cast<size_t>(k)] += noise(random);  // translations
    for (int i = 9; i < 3 * points; ++i) start[static_cast<size_t>(i)] += noise(random);
    const std::vector<uint8_t> point_fixed = views.point_fixed();
    ak_bundle_result result{};
    const bool ran = ak_bundle_adjust(&kCamera, poses.data(), ThreeViews::pose_fixed, 3, start.data(), point_fixed.data(), points,
                                      observations.data(), static_cast<int>(observations.size()), nullptr, 0, nullptr, &result,
                                      nullptr) == AK_OK;
    check(ran && result.initial_rms > 1, "bundle adjustment: starting RMS, px (perturbed)", result.initial_rms, 1);
    check(ran && result.final_rms < 1e-3, "bundle adjustment: final RMS, px", result.final_rms, 1e-3);
    check(ran && max_abs_difference(start.data(), X.data(), 3 * points) < 1e-3, "bundle adjustment: largest point error, m",
          max_abs_difference(start.data(), X.data(), 3 * points), 1e-3);
}

// A far, narrow scene leaves a sideways step and a turn nearly alike: with pixel noise PnP trades
// one for the other. The true rotation given as a prior (a gyroscope's turn) takes that away.
void pnp_rotation_prior() {
    const std::vector<double> truth = pose(0, 1, 0, 0.05, 0.4, 0.1, 0.2);
    std::mt19937 random(6);
    std::uniform_real_distribution<double> xy(-1.5, 1.5), z(12, 15);
    std::normal_distribution<double> noise(0, 0.5);
    std::vector<double> X;
    for (int i = 0; i < 60; ++i) X.insert(X.end(), {xy(random), xy(random), z(random)});
    std::vector<float> px(120);
    for (int i = 0; i < 60; ++i) {
        project(truth, &X[3 * i], &px[2 * i]);
        px[2 * i] += static_cast<float>(noise(random)), px[2 * i + 1] += static_cast<float>(noise(random));
    }
    const double rotation[9] = {truth[0], truth[1], truth[2], truth[4], truth[5], truth[6], truth[8], truth[9], truth[10]};
    ak_pnp_params params;
    ak_pnp_params_default(&params);
    params.rotation_prior_sigma = 1e-5;
    double error[2] = {0, 0};  // sideways (x) translation error
    bool ran = true;
    for (int with = 0; with < 2; ++with) {
        ak_pnp_result result{};
        ran = ran && ak_solve_pnp(&kCamera, X.data(), px.data(), 60, nullptr, with ? rotation : nullptr, &params, &result,
                                  nullptr) == AK_OK && result.found;
        error[with] = std::fabs(result.camera_from_world[3] - truth[3]);
    }
    check(ran && error[0] > 0.005, "PnP, far scene, 0.5 px noise: sideways translation error without a rotation prior, m", error[0], 0.005);
    check(ran && error[1] < error[0] / 5, "PnP, far scene: the same with the true rotation as prior, m (a fifth of it)", error[1],
          error[0] / 5);
}

// Links between poses (a gyroscope's turns) hold the poses' rotations: with exact links and
// perturbed rotations the adjustment returns to the truth; a link refers to two of the poses.
void bundle_adjustment_links() {
    const ThreeViews views = three_views();
    const auto &[truth, points, X, observations] = views;
    // turn = R_to R_from^T, row-major.
    std::vector<ak_rotation_link> links;
    for (int c = 1; c < 3; ++c) {
        ak_rotation_link l{c - 1, c, {}, 1e-4};
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) {
                double sum = 0;
                for (int m = 0; m < 3; ++m) sum += truth[c][4 * r + m] * truth[c - 1][4 * k + m];
                l.turn[3 * r + k] = sum;
            }
        links.push_back(l);
    }
    std::vector<double> poses = views.poses(), start = X;
    // The free poses turned by 0.02 rad about z and moved.
    for (int c = 1; c < 3; ++c) {
        const std::vector<double> turned = pose(0, 0, 1, 0.02, 0, 0, 0);
        double R[9];
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) {
                double sum = 0;
                for (int m = 0; m < 3; ++m) sum += turned[4 * r + m] * poses[12 * c + 4 * m + k];
                R[3 * r + k] = sum;
            }
        for (int r = 0; r < 3; ++r) {
            for (int k = 0; k < 3; ++k) poses[12 * c + 4 * r + k] = R[3 * r + k];
            poses[12 * c + 4 * r + 3] += 0.02;
        }
    }
    const uint8_t *pose_fixed = ThreeViews::pose_fixed;
    const std::vector<uint8_t> point_fixed = views.point_fixed();
    ak_bundle_result result{};
    const bool ran = ak_bundle_adjust(&kCamera, poses.data(), pose_fixed, 3, start.data(), point_fixed.data(), points, observations.data(),
                                      static_cast<int>(observations.size()), links.data(), 2, nullptr, &result, nullptr) == AK_OK;
    const std::vector<double> all = views.poses();
    check(ran && result.final_rms < 1e-3, "bundle adjustment with turns: final RMS, px", result.final_rms, 1e-3);
    check(ran && max_abs_difference(poses.data(), all.data(), 36) < 1e-4, "bundle adjustment with turns: largest pose element error",
          max_abs_difference(poses.data(), all.data(), 36), 1e-4);
    links[1].to = 3;
    const ak_status status = ak_bundle_adjust(&kCamera, poses.data(), pose_fixed, 3, start.data(), point_fixed.data(), points,
                                              observations.data(), static_cast<int>(observations.size()), links.data(), 2,
                                              nullptr, &result, nullptr);
    check(status == AK_ERR_ARGUMENT, "bundle adjustment with turns: a turn to pose 3 of 3 is refused (status)", status, AK_ERR_ARGUMENT);
}

void view_pose() {
    // A camera's pose from known map points (one view, the identity), started 5 cm and 2 degrees off.
    const std::vector<double> truth = pose(0, 0, 1, 0.1, 0.2, 0.1, 0.2);
    const std::vector<double> X = scene(40, 6);
    std::vector<float> px(80);
    for (int i = 0; i < 40; ++i) project(truth, &X[3 * i], &px[2 * i]);
    std::vector<double> estimate = pose(0, 0, 1, 0.135, 0.25, 0.1, 0.2);
    const std::vector<double> identity = pose(0, 0, 1, 0, 0, 0, 0);
    const std::vector<int> view_of(40, 0);
    ak_view_pose_result result{};
    const bool ran = ak_refine_view_pose(&kCamera, identity.data(), 1, view_of.data(), X.data(), px.data(), 40, nullptr, estimate.data(),
                                         &result) == AK_OK;
    check(ran && max_abs_difference(estimate.data(), truth.data(), 12) < 1e-4, "view pose: largest pose element error",
          max_abs_difference(estimate.data(), truth.data(), 12), 1e-4);
}

void object_and_views() {
    // A 20 cm square 2.5 m away and a fixed one beside it, seen by 6 cameras along a line; the
    // square started 5 cm and 3 degrees off, the cameras 1 degree and 2 cm off: all recovered.
    const double side = 0.2;
    const double square[12] = {-side / 2, -side / 2, 0, side / 2, -side / 2, 0, side / 2, side / 2, 0, -side / 2, side / 2, 0};
    const std::vector<double> object_truth = pose(0, 1, 0, 0.3, 0.4, 0.1, 2.5);
    std::vector<double> fixed_world(12);
    for (int k = 0; k < 4; ++k) {  // the fixed square, 0.8 m to the left, facing the cameras
        fixed_world[3 * k] = square[3 * k] - 0.4, fixed_world[3 * k + 1] = square[3 * k + 1], fixed_world[3 * k + 2] = 2.5;
    }
    std::vector<double> object_world(12);
    for (int k = 0; k < 4; ++k)
        for (int r = 0; r < 3; ++r)
            object_world[3 * k + r] = object_truth[4 * r] * square[3 * k] + object_truth[4 * r + 1] * square[3 * k + 1] +
                                      object_truth[4 * r + 2] * square[3 * k + 2] + object_truth[4 * r + 3];
    const int views = 6;
    std::vector<double> truths, starts;
    std::vector<int> fixed_view, object_view;
    std::vector<double> fixed_points, object_points;
    std::vector<float> fixed_pixels, object_pixels;
    for (int v = 0; v < views; ++v) {
        const std::vector<double> truth = pose(0, 1, 0, 0.02 * v, -0.2 + 0.08 * v, 0, 0);
        const std::vector<double> start = pose(std::cos(v), std::sin(v), 0, M_PI / 180, -0.18 + 0.08 * v, 0.02, 0);
        truths.insert(truths.end(), truth.begin(), truth.end());
        starts.insert(starts.end(), start.begin(), start.end());
        float px[2];
        for (int k = 0; k < 4; ++k) {
            if (project(truth, &fixed_world[3 * k], px)) {
                fixed_view.push_back(v), fixed_pixels.insert(fixed_pixels.end(), px, px + 2);
                fixed_points.insert(fixed_points.end(), &fixed_world[3 * k], &fixed_world[3 * k] + 3);
            }
            if (project(truth, &object_world[3 * k], px)) {
                object_view.push_back(v), object_pixels.insert(object_pixels.end(), px, px + 2);
                object_points.insert(object_points.end(), square + 3 * k, square + 3 * k + 3);
            }
        }
    }
    std::vector<double> object = pose(0, 1, 0, 0.3 + 3 * M_PI / 180, 0.45, 0.08, 2.52);
    ak_view_pose_result result{};
    const bool ran = ak_adjust_object_and_views(&kCamera, starts.data(), views, object.data(), fixed_view.data(), fixed_points.data(),
                                                fixed_pixels.data(), static_cast<int>(fixed_view.size()), object_view.data(),
                                                object_points.data(), object_pixels.data(), static_cast<int>(object_view.size()),
                                                nullptr, &result) == AK_OK;
    check(ran && result.initial_rms > 5, "object and views: starting RMS, px (perturbed)", result.initial_rms, 5);
    check(ran && max_abs_difference(object.data(), object_truth.data(), 12) < 1e-4, "object and views: largest object pose element error",
          max_abs_difference(object.data(), object_truth.data(), 12), 1e-4);
    check(ran && max_abs_difference(starts.data(), truths.data(), 12 * views) < 1e-4, "object and views: largest camera pose element error",
          max_abs_difference(starts.data(), truths.data(), 12 * views), 1e-4);
    // Nothing fixed: the world is not held, and that is an error.
    const ak_status status = ak_adjust_object_and_views(&kCamera, starts.data(), views, object.data(), nullptr, nullptr, nullptr, 0,
                                                        object_view.data(), object_points.data(), object_pixels.data(),
                                                        static_cast<int>(object_view.size()), nullptr, &result);
    check(status == AK_ERR_ARGUMENT, "object and views: no fixed point is refused (status)", status, AK_ERR_ARGUMENT);
}

// A smooth texture with gradients in every direction (gray levels 18-238), at real coordinates.
double texture(double u, double v) {
    return 128 + 55 * std::sin(0.21 * u + 0.13 * v) + 45 * std::cos(0.17 * u - 0.23 * v) + 10 * std::sin(0.05 * u * v / 40);
}

// A gray image whose pixel (x, y) is texture(source(x, y)).
template <typename Map> ak_image *picture(int width, int height, Map source) {
    std::vector<uint8_t> pixels(static_cast<size_t>(width) * height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double u, v;
            source(x, y, u, v);
            pixels[static_cast<size_t>(y) * width + x] = static_cast<uint8_t>(std::lround(texture(u, v)));
        }
    ak_image *image = nullptr;
    return ak_image_create(width, height, 1, pixels.data(), width, 0, &image) == AK_OK ? image : nullptr;
}

void alignment() {
    // The reference (120 x 90) seen in a 320 x 240 frame through a known homography; the
    // aligner starts 3 px off at every corner and must come back to it.
    const double H[9] = {1.3, 0.12, 70, -0.05, 1.2, 40, 0.0004, -0.0002, 1};
    ak_image *reference = picture(120, 90, [](int x, int y, double &u, double &v) { u = x; v = y; });
    ak_image *frame = picture(320, 240, [&](int x, int y, double &u, double &v) {
        // H⁻¹ (x, y) by solving the 2x2 system of the projective map.
        const double a = H[0] - H[6] * x, b = H[1] - H[7] * x, c = x * H[8] - H[2];
        const double d = H[3] - H[6] * y, e = H[4] - H[7] * y, f = y * H[8] - H[5];
        const double det = a * e - b * d;
        u = (c * e - b * f) / det; v = (a * f - c * d) / det;
    });
    ak_aligner *aligner = nullptr;
    bool ran = reference && frame && ak_aligner_create(reference, 2000, &aligner) == AK_OK;
    double h[9] = {1.3, 0.12, 73, -0.05, 1.2, 37, 0.0004, -0.0002, 1}, correlation = 0, coverage = 0;
    ran = ran && ak_aligner_align(aligner, frame, h, 50, 1e-4, &correlation, &coverage) == AK_OK;
    double worst = 0;
    const double corners[4][2] = {{0, 0}, {119, 0}, {119, 89}, {0, 89}};
    for (const auto &p : corners) {
        const double w1 = H[6] * p[0] + H[7] * p[1] + H[8], w2 = h[6] * p[0] + h[7] * p[1] + h[8];
        const double dx = (h[0] * p[0] + h[1] * p[1] + h[2]) / w2 - (H[0] * p[0] + H[1] * p[1] + H[2]) / w1;
        const double dy = (h[3] * p[0] + h[4] * p[1] + h[5]) / w2 - (H[3] * p[0] + H[4] * p[1] + H[5]) / w1;
        worst = std::fmax(worst, std::hypot(dx, dy));
    }
    check(ran && worst < 0.05, "alignment: largest corner error after 3 px start, px", worst, 0.05);
    check(ran && correlation > 0.99, "alignment: correlation", correlation, 0.99);
    ak_aligner_free(aligner);
    ak_image_free(reference);
    ak_image_free(frame);
}

void plane_sweep() {
    // The other view is the reference moved 3 px right: of shifts 0..6 px, every block must
    // score best under 3, with a correlation of about 1 (the right column, which 3 px takes out
    // of the other view, is not scored there).
    ak_image *reference = picture(160, 120, [](int x, int y, double &u, double &v) { u = x; v = y; });
    ak_image *other = picture(160, 120, [](int x, int y, double &u, double &v) { u = x - 3; v = y; });
    const int count = 7, patch = 16, blocks = (160 / patch) * (120 / patch);
    std::vector<double> homographies;
    for (int k = 0; k < count; ++k) homographies.insert(homographies.end(), {1, 0, double(k), 0, 1, 0, 0, 0, 1});
    std::vector<float> scores(static_cast<size_t>(count) * blocks);
    const bool ran = reference && other &&
                     ak_plane_sweep(reference, other, homographies.data(), count, patch, 2, scores.data()) == AK_OK;
    int right = 0, scored = 0;
    double weakest = 1;
    for (int b = 0; b < blocks; ++b) {
        if (std::isnan(scores[3 * blocks + b])) continue;
        int best = -1;
        for (int k = 0; k < count; ++k)
            if (!std::isnan(scores[k * blocks + b]) && (best < 0 || scores[k * blocks + b] > scores[best * blocks + b])) best = k;
        if (best < 0) continue;
        ++scored;
        if (best == 3) { ++right; weakest = std::fmin(weakest, scores[3 * blocks + b]); }
    }
    check(ran && scored >= blocks - 120 / patch && right == scored, "plane sweep: blocks whose best shift is the true 3 px", right, scored);
    check(ran && weakest > 0.99, "plane sweep: weakest correlation at the true shift", weakest, 0.99);
    ak_image_free(reference);
    ak_image_free(other);
}

// A square's pose through a distorting camera (OpenCV's 5-coefficient model, written out here):
// from exact corners the best solution is the true pose; from corners off by a third of a pixel
// it is a minimum of the squared pixel error (no small turn or shift lowers it) and its error is
// that of its own pose (pose_refinement.cpp).
const ak_camera kDistorted{600, 600, 320, 240, {0.08, -0.15, 0.001, -0.002, 0.03}};

bool distorted_pixel(const double *R, const double *t, const double X[3], double px[2]) {
    double c[3];
    for (int r = 0; r < 3; ++r) c[r] = R[3 * r] * X[0] + R[3 * r + 1] * X[1] + R[3 * r + 2] * X[2] + t[r];
    if (c[2] <= 0) return false;
    const double x = c[0] / c[2], y = c[1] / c[2], r2 = x * x + y * y;
    const double *k = kDistorted.distortion;
    const double radial = 1 + k[0] * r2 + k[1] * r2 * r2 + k[4] * r2 * r2 * r2;
    px[0] = kDistorted.fx * (x * radial + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x)) + kDistorted.cx;
    px[1] = kDistorted.fy * (y * radial + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y) + kDistorted.cy;
    return true;
}

// RMS pixel error of the square of side `side` at (R, t) against `corners`.
double square_rms(const double *R, const double *t, double side, const float corners[8]) {
    const double h = side / 2, X[4][3] = {{-h, h, 0}, {h, h, 0}, {h, -h, 0}, {-h, -h, 0}};
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
        double px[2];
        if (!distorted_pixel(R, t, X[k], px)) return INFINITY;
        sum += (px[0] - corners[2 * k]) * (px[0] - corners[2 * k]) + (px[1] - corners[2 * k + 1]) * (px[1] - corners[2 * k + 1]);
    }
    return std::sqrt(sum / 4);
}

void square_pose() {
    const double side = 0.1;
    const std::vector<double> P = pose(0.3, 0.9, 0.3162, 0.5, 0.05, -0.02, 0.6);
    const double R[9] = {P[0], P[1], P[2], P[4], P[5], P[6], P[8], P[9], P[10]}, t[3] = {P[3], P[7], P[11]};
    const double h = side / 2, X[4][3] = {{-h, h, 0}, {h, h, 0}, {h, -h, 0}, {-h, -h, 0}};
    float corners[8];
    for (int k = 0; k < 4; ++k) {
        double px[2];
        distorted_pixel(R, t, X[k], px);
        corners[2 * k] = static_cast<float>(px[0]), corners[2 * k + 1] = static_cast<float>(px[1]);
    }
    ak_square_pose exact{};
    const bool ran = ak_solve_square_poses(&kDistorted, side, corners, 1, &exact) == AK_OK && exact.solutions >= 1;
    const double pose_error = ran ? std::fmax(max_abs_difference(exact.rotation[0], R, 9), max_abs_difference(exact.translation[0], t, 3)) : INFINITY;
    // The corners are floats, rounded by up to 1.5e-5 px: the tilt of a 100 px square moves by
    // about 1e-6 rad for that.
    check(pose_error < 1e-5, "square pose, exact corners: largest pose element error", pose_error, 1e-5);

    const float offsets[8] = {0.3f, -0.2f, -0.3f, 0.1f, 0.2f, 0.3f, -0.1f, -0.3f};
    for (int i = 0; i < 8; ++i) corners[i] += offsets[i];
    ak_square_pose noisy{};
    const bool solved = ak_solve_square_poses(&kDistorted, side, corners, 1, &noisy) == AK_OK && noisy.solutions >= 1;
    const double rms = solved ? square_rms(noisy.rotation[0], noisy.translation[0], side, corners) : INFINITY;
    check(std::fabs(rms - noisy.error[0]) < 1e-9, "square pose, noisy corners: stated error less its pose's (px)",
          std::fabs(rms - noisy.error[0]), 1e-9);
    // Turns of 1e-5 rad about each axis and shifts of 1e-6 m along each: none lowers the error.
    double lowest = INFINITY;
    for (int axis = 0; axis < 6; ++axis)
        for (double sign : {-1.0, 1.0}) {
            double Rm[9], tm[3];
            for (int i = 0; i < 9; ++i) Rm[i] = noisy.rotation[0][i];
            for (int i = 0; i < 3; ++i) tm[i] = noisy.translation[0][i];
            if (axis < 3) {
                const double a = sign * 1e-5;
                const std::vector<double> turn = pose(axis == 0, axis == 1, axis == 2, a, 0, 0, 0);
                double turned[9];
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c)
                        turned[3 * r + c] = turn[4 * r] * Rm[c] + turn[4 * r + 1] * Rm[3 + c] + turn[4 * r + 2] * Rm[6 + c];
                for (int i = 0; i < 9; ++i) Rm[i] = turned[i];
            } else {
                tm[axis - 3] += sign * 1e-6;
            }
            lowest = std::fmin(lowest, square_rms(Rm, tm, side, corners) - rms);
        }
    check(lowest > -1e-9, "square pose, noisy corners: least change of the error by a small move (px)", lowest, -1e-9);
}

void bad_arguments() {
    // Invalid input is an error status with a message, never a crash.
    ak_pnp_params params;
    ak_pnp_params_default(&params);
    params.confidence = 2;
    ak_pnp_result result{};
    const double X[3] = {0, 0, 1};
    const float px[2] = {320, 240};
    const ak_status status = ak_solve_pnp(&kCamera, X, px, 1, nullptr, nullptr, &params, &result, nullptr);
    check(status == AK_ERR_ARGUMENT, "bad arguments: PnP confidence 2 is refused (status)", status, AK_ERR_ARGUMENT);
}

}  // namespace

int main() {
    triangulation();
    pnp();
    two_view();
    bundle_adjustment();
    pnp_rotation_prior();
    bundle_adjustment_links();
    view_pose();
    object_and_views();
    alignment();
    plane_sweep();
    square_pose();
    bad_arguments();
    std::printf("%s: %d check(s) failed\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
