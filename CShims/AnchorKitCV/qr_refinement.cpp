// qr_refinement.cpp — the steps of a QR code's sub-pixel corners that are particular to QR codes
// (codes.cpp strings them together; the template alignment that ends them is the markers', in
// marker_refinement.cpp). A decoder's corners are whole pixels (zxing-cpp) and its fourth corner,
// where no finder pattern is, is extrapolated; zxing does not say how many modules the code has.
// - estimate_qr_modules: the modules per side, from the 1:1:3:1:1 runs along each finder pattern's
//   diagonal.
// - refine_qr: each finder pattern has twelve true corners (its outer square, the inner corners
//   of its ring, its centre square) at known module coordinates: refined with cv::cornerSubPix
//   and fitted with one homography, they give all four corners, the fourth included, to a
//   fraction of a module (from codes of 2 px a module).
// - sample_qr_code: the code's picture (one pixel per module) read through those corners, the
//   template then aligned to the image.
#include "internal.hpp"

#include <opencv2/calib3d.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace akcv {

namespace {

// The module-space origins of the three finder patterns (TL, TR, BL) of an n-module symbol.
std::array<cv::Point2d, 3> finder_origins(int n) { return {cv::Point2d(0, 0), cv::Point2d(n - 7, 0), cv::Point2d(0, n - 7)}; }

// Twelve corners of a finder pattern, module offsets from its origin: outer square, the ring's
// inner corners, the centre square.
constexpr std::array<std::array<double, 2>, 12> kFinderCorners = {{
    {0, 0}, {7, 0}, {7, 7}, {0, 7}, {1, 1}, {6, 1}, {6, 6}, {1, 6}, {2, 2}, {5, 2}, {5, 5}, {2, 5}}};

cv::Point2d apply(const cv::Matx33d &H, cv::Point2d p) {
    const cv::Vec3d q = H * cv::Vec3d(p.x, p.y, 1);
    return cv::Point2d(q[0] / q[2], q[1] / q[2]);
}

// The side of one module around module-space point `c`, px (the square root of its image area).
double module_pixels(const cv::Matx33d &H, cv::Point2d c) {
    const cv::Point2d a = apply(H, c + cv::Point2d(-0.5, -0.5)), b = apply(H, c + cv::Point2d(0.5, -0.5)),
                      d = apply(H, c + cv::Point2d(0.5, 0.5)), e = apply(H, c + cv::Point2d(-0.5, 0.5));
    const double area = 0.5 * std::abs((a.x * b.y - b.x * a.y) + (b.x * d.y - d.x * b.y) + (d.x * e.y - e.x * d.y) +
                                       (e.x * a.y - a.x * e.y));
    return std::sqrt(area);
}

// Bilinear gray level at (x, y), pixel centres at integers; -1 outside the image.
double sample(const cv::Mat &gray, double x, double y) {
    return x >= 0 && y >= 0 && x <= gray.cols - 1 && y <= gray.rows - 1 ? sample_gray(gray, x, y) : -1;
}

cv::Matx33d quad_homography(const cv::Point2f quad[4], double side) {
    const cv::Point2f square[4] = {{0, 0}, {static_cast<float>(side), 0}, {static_cast<float>(side), static_cast<float>(side)},
                                   {0, static_cast<float>(side)}};
    return cv::Matx33d(cv::getPerspectiveTransform(square, quad));
}

// One refinement from the homography H (module space -> pixels): the finder corners refined and
// refitted. False when a finder pattern is under 2 px a module or keeps too few corners, or the
// fit is poor.
bool refine_once(const cv::Mat &gray, int n, const cv::Matx33d &H, double max_shift_modules, cv::Matx33d &refined) {
    std::vector<cv::Point2f> module_points, image_points;
    std::vector<int> finder_of;
    double mean_module = 0;
    const auto origins = finder_origins(n);
    for (int f = 0; f < 3; ++f) {
        const double m = module_pixels(H, origins[f] + cv::Point2d(3.5, 3.5));
        if (!(m >= 2.0)) return false;
        mean_module += m / 3;
        const int w = std::clamp(static_cast<int>(0.45 * m), 1, 12);
        std::vector<cv::Point2f> predicted, modules;
        for (const auto &c : kFinderCorners) {
            const cv::Point2d mp = origins[f] + cv::Point2d(c[0], c[1]);
            const cv::Point2d p = apply(H, mp);
            // cornerSubPix needs its whole window (and one more pixel for gradients) inside the image.
            if (!(p.x >= w + 1 && p.y >= w + 1 && p.x <= gray.cols - w - 2 && p.y <= gray.rows - w - 2)) continue;
            predicted.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
            modules.emplace_back(static_cast<float>(mp.x), static_cast<float>(mp.y));
        }
        if (predicted.size() < 5) return false;
        std::vector<cv::Point2f> moved = predicted;
        cv::cornerSubPix(gray, moved, cv::Size(w, w), cv::Size(-1, -1),
                         cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 40, 0.01));
        for (size_t k = 0; k < moved.size(); ++k) {
            if (!(cv::norm(moved[k] - predicted[k]) <= max_shift_modules * m)) continue;
            module_points.push_back(modules[k]);
            image_points.push_back(moved[k]);
            finder_of.push_back(f);
        }
    }
    if (module_points.size() < 15) return false;
    cv::Mat mask;
    const cv::Mat fitted = cv::findHomography(module_points, image_points, cv::RANSAC, std::max(0.5, 0.25 * mean_module), mask, 2000, 0.999);
    if (fitted.empty()) return false;
    cv::Matx33d G(fitted);
    std::array<int, 3> inliers{};
    double sum = 0;
    int count = 0;
    for (size_t k = 0; k < module_points.size(); ++k) {
        if (!mask.at<uint8_t>(static_cast<int>(k))) continue;
        ++inliers[finder_of[k]];
        const cv::Point2d r = apply(G, module_points[k]) - cv::Point2d(image_points[k]);
        sum += r.dot(r);
        ++count;
    }
    if (*std::min_element(inliers.begin(), inliers.end()) < 4) return false;
    if (!(std::sqrt(sum / count) <= std::max(0.35, 0.2 * mean_module))) return false;
    refined = G;
    return true;
}

}  // namespace

int estimate_qr_modules(const cv::Mat &gray, const cv::Point2f quad[4]) {
    const cv::Matx33d H = quad_homography(quad, 1.0);
    // From each finder pattern's outer corner inward along the symbol's diagonal: its black, white,
    // black (3), white, black runs span 7 modules.
    const std::array<cv::Point2d, 3> origin = {cv::Point2d(0, 0), cv::Point2d(1, 0), cv::Point2d(0, 1)};
    const std::array<cv::Point2d, 3> inward = {cv::Point2d(1, 1), cv::Point2d(-1, 1), cv::Point2d(1, -1)};
    std::vector<double> estimates;
    for (int f = 0; f < 3; ++f) {
        const double t0 = -0.03, t1 = 0.4;
        const double length = cv::norm(apply(H, origin[f] + t1 * inward[f]) - apply(H, origin[f] + t0 * inward[f]));
        const int steps = std::clamp(static_cast<int>(length / 0.25), 16, 4000);
        std::vector<double> values(steps + 1);
        double lo = 255, hi = 0;
        bool inside = true;
        for (int s = 0; s <= steps; ++s) {
            const double t = t0 + (t1 - t0) * s / steps;
            const cv::Point2d p = apply(H, origin[f] + t * inward[f]);
            values[s] = sample(gray, p.x, p.y);
            if (values[s] < 0) { inside = false; break; }
            lo = std::min(lo, values[s]);
            hi = std::max(hi, values[s]);
        }
        if (!inside || hi - lo < 20) continue;
        const double threshold = 0.5 * (lo + hi);
        // Runs after any leading white (quiet zone): [start, end) in samples, alternating from black.
        std::vector<std::pair<int, int>> runs;
        int s = 0;
        while (s <= steps && values[s] >= threshold) ++s;
        while (s <= steps && runs.size() < 5) {
            const bool black = values[s] < threshold;
            const int start = s;
            while (s <= steps && (values[s] < threshold) == black) ++s;
            if (s > steps) break;  // a run cut by the end of the scan
            runs.emplace_back(start, s);
        }
        if (runs.size() < 5) continue;
        const double span = runs[4].second - runs[0].first;
        const double unit = span / 7.0;
        const double expected[5] = {1, 1, 3, 1, 1};
        bool pattern = true;
        for (int r = 0; r < 5; ++r) {
            const double len = runs[r].second - runs[r].first;
            if (len < 0.5 * expected[r] * unit || len > 1.5 * expected[r] * unit) pattern = false;
        }
        if (!pattern) continue;
        estimates.push_back(7.0 / (span * (t1 - t0) / steps));
    }
    if (estimates.size() < 2) return 0;
    std::sort(estimates.begin(), estimates.end());
    if (estimates.back() - estimates.front() > 3) return 0;
    double mean = 0;
    for (double e : estimates) mean += e / estimates.size();
    const int version = static_cast<int>(std::lround((mean - 17) / 4));
    if (version < 1 || version > 40) return 0;
    const int n = 17 + 4 * version;
    return std::abs(mean - n) <= 1.2 ? n : 0;
}

bool refine_qr(const cv::Mat &gray, int modules, cv::Point2f quad[4], double max_shift_modules) {
    cv::Matx33d H = quad_homography(quad, modules), refined;
    bool ok = false;
    // A second round starts from the first's fit: corners predicted far off converge then.
    for (int round = 0; round < 2; ++round) {
        if (!refine_once(gray, modules, H, round == 0 ? max_shift_modules : 0.5, refined)) break;
        ok = true;
        const double moved = cv::norm(apply(refined, cv::Point2d(0, 0)) - apply(H, cv::Point2d(0, 0)));
        H = refined;
        if (moved < 0.05) break;
    }
    if (!ok) return false;
    const double side = modules;
    const cv::Point2d corners[4] = {apply(H, {0, 0}), apply(H, {side, 0}), apply(H, {side, side}), apply(H, {0, side})};
    const double m = module_pixels(H, cv::Point2d(side / 2, side / 2));
    for (int k = 0; k < 4; ++k) {
        if (!std::isfinite(corners[k].x) || !std::isfinite(corners[k].y)) return false;
        if (cv::norm(corners[k] - cv::Point2d(quad[k])) > max_shift_modules * m + 1) return false;
    }
    for (int k = 0; k < 4; ++k) quad[k] = cv::Point2f(static_cast<float>(corners[k].x), static_cast<float>(corners[k].y));
    return true;
}

namespace {

// Whether module (x, y) of an n-module QR code is a function module whose colour is fixed: the
// finder patterns with their separators, and the timing patterns; `black` gets that colour.
bool fixed_module(int n, int x, int y, bool &black) {
    const int origins[3][2] = {{0, 0}, {n - 7, 0}, {0, n - 7}};
    for (const auto &o : origins) {
        const int a = x - o[0], b = y - o[1];
        if (a >= -1 && a <= 7 && b >= -1 && b <= 7) {
            black = a >= 0 && a <= 6 && b >= 0 && b <= 6 && (a == 0 || a == 6 || b == 0 || b == 6 || (a >= 2 && a <= 4 && b >= 2 && b <= 4));
            return true;
        }
    }
    if (y == 6 && x >= 8 && x <= n - 9) { black = x % 2 == 0; return true; }
    if (x == 6 && y >= 8 && y <= n - 9) { black = y % 2 == 0; return true; }
    return false;
}

}  // namespace

bool sample_qr_code(const cv::Mat &gray, int n, const cv::Point2f quad[4], cv::Mat &code) {
    const cv::Matx33d H = quad_homography(quad, n);
    cv::Mat values(n, n, CV_64F);
    double black_sum = 0, white_sum = 0;
    int blacks = 0, whites = 0;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const cv::Point2d p = apply(H, cv::Point2d(x + 0.5, y + 0.5));
            const double v = sample(gray, p.x, p.y);
            values.at<double>(y, x) = v;
            bool black;
            if (v < 0 || !fixed_module(n, x, y, black)) continue;
            (black ? black_sum : white_sum) += v;
            ++(black ? blacks : whites);
        }
    if (blacks < 20 || whites < 20) return false;
    const double dark = black_sum / blacks, light = white_sum / whites;
    if (!(light - dark >= 10)) return false;
    const double threshold = 0.5 * (dark + light);
    code.create(n, n, CV_8U);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            bool black;
            const double v = values.at<double>(y, x);
            if (!fixed_module(n, x, y, black)) black = v >= 0 ? v < threshold : false;
            code.at<uint8_t>(y, x) = black ? 0 : 255;
        }
    return true;
}

}  // namespace akcv
