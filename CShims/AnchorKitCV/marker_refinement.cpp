// marker_refinement.cpp — corner refinement of identified markers, after their candidates are
// found (markers.cpp): OpenCV's sub-pixel corners, border lines fitted to sub-pixel edges, and the
// marker's ideal picture aligned to the frame (template_align.cpp solves that alignment). Also the
// following of a known marker from predicted corners, which uses the same template.
#include "internal.hpp"

#include <opencv2/core/utility.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <functional>
#include <optional>

namespace akcv {

namespace {
// The side of one code module in pixels: the quad's mean side over `modules` (bits + borders).
double module_size(const std::vector<cv::Point2f> &quad, int modules) {
    double perimeter = 0;
    for (size_t k = 0; k < 4; ++k) perimeter += cv::norm(quad[k] - quad[(k + 1) % 4]);
    return perimeter / (4.0 * modules);
}

// The module's width across the sides that cross the marker's x and y axes, px (sides 0 and 2 run
// along x, 1 and 3 along y): the quad's area over the mean length of those sides, over `modules`.
// Blur is measured across the sides, so this is the scale that converts it into modules. For a
// rectangle it is the side along the axis over `modules`; for a sheared quad (a marker turned
// about its normal and seen obliquely, a diamond) it is less: its modules are thin slivers, and a
// template blurred as if they were as wide as they are long pulled the acute corners in
// (Benchmarks/README.md, "A code's template blurred across its modules").
cv::Vec2d axis_modules(const std::vector<cv::Point2f> &quad, int modules) {
    const double area = 0.5 * std::abs((quad[2] - quad[0]).cross(quad[3] - quad[1]));
    const double along_x = 0.5 * (cv::norm(quad[1] - quad[0]) + cv::norm(quad[2] - quad[3]));
    const double along_y = 0.5 * (cv::norm(quad[3] - quad[0]) + cv::norm(quad[2] - quad[1]));
    if (!(along_x > 0) || !(along_y > 0)) return cv::Vec2d(0, 0);
    return cv::Vec2d(area / along_y, area / along_x) / static_cast<double>(modules);
}

// Runs body(m, scratch) for every marker m of det.corners: in order on the detector's own buffers,
// or, with det.refinement_threads > 1 and at least two markers, one marker at a time on OpenCV's
// threads (the calling one included), each marker with buffers of its own. A marker takes 20-200 us, so
// even a small image's two or three markers gain from a second thread. Each marker's refinement reads
// and writes only its own entries, so the results are the same.
template <class Body>
void for_each_marker(ak_marker_detector &det, Body &&body) {
    const int count = static_cast<int>(det.corners.size());
    if (det.refinement_threads <= 1 || count < 2) {
        for (int m = 0; m < count; ++m) body(static_cast<size_t>(m), det.scratch);
        return;
    }
    cv::parallel_for_(cv::Range(0, count), [&](const cv::Range &range) {
        TemplateScratch scratch;
        for (int m = range.start; m < range.end; ++m) body(static_cast<size_t>(m), scratch);
    }, count);
}

// Corner refinement as OpenCV >= 4.7 does it (aruco_detector.cpp): the cornerSubPix half-window is
// min(refinement_window, max(1, round(0.3 * module size))), the module size being the mean side of
// the quad over markerSize + 2 border bits; criteria 50 iterations / 0.01 px.
void refine_quad_subpix(const ak_marker_detector &det, const cv::Mat &gray, std::vector<cv::Point2f> &quad) {
    const int modules = det.dict->markerSize + 2 * det.params->markerBorderBits;
    const cv::TermCriteria criteria(cv::TermCriteria::MAX_ITER | cv::TermCriteria::EPS,
                                    det.params->cornerRefinementMaxIterations, det.params->cornerRefinementMinAccuracy);
    const double module = module_size(quad, modules);
    const int win = std::min(det.subpix_window, std::max(1, cvRound(0.3 * module)));
    cv::cornerSubPix(gray, quad, cv::Size(win, win), cv::Size(-1, -1), criteria);
}
}  // namespace

void refine_subpix(ak_marker_detector &det, const cv::Mat &gray) {
    for (std::vector<cv::Point2f> &quad : det.corners)
        if (quad.size() == 4) refine_quad_subpix(det, gray, quad);
}

namespace {

// The Gaussian sigma (px) of edges whose rise over one pixel, at its steepest, is `rises` times
// their contrast: for an edge blurred by sigma that share is erf(0.5 / (sigma sqrt 2)). The
// median share is inverted by bisection. NaN without rises. Sharp edges measure 0.3-0.5 px (the
// pixels' own width and the bilinear interpolation that samples them): 0.3 on average on the
// real photos of `bench marker-photos`, 0.5 on markers-aruco-table, 0.95 on markers-blur.
double blur_of_rises(std::vector<double> &rises) {
    if (rises.empty()) return std::numeric_limits<double>::quiet_NaN();
    const auto mid = rises.begin() + static_cast<std::ptrdiff_t>(rises.size() / 2);
    std::nth_element(rises.begin(), mid, rises.end());
    const double share = std::min(0.999, std::max(0.05, *mid));
    double lo = 0.05, hi = 20;
    for (int i = 0; i < 40; ++i) {
        const double sigma = 0.5 * (lo + hi);
        (std::erf(0.5 / (sigma * std::sqrt(2.0))) > share ? lo : hi) = sigma;
    }
    return 0.5 * (lo + hi);
}

// A marker whose border band is narrower than this (px) across either pair of sides keeps the
// profile's ends as its edges' contrast: blurred, so thin a band's darkest point is its grey middle,
// and a rendered walk's 7 x 16 px marker (bands of 1.1 and 2.6 px) read there was followed at a
// template correlation under following's threshold for 12 more frames (Benchmarks/README.md, "A
// small marker's edge contrast read within its border").
constexpr double kLeastReadBand = 1.5;
// A thin band's contrast is the side's, read from its samples' darkest inside and lightest outside:
// this share of them read less. Beside a white module of the code a thin band does not reach its
// black; beside a black one it does.
constexpr double kSideContrastShare = 0.8;

// Edge refinement: the corners of a blurred square are rounded, and corner detectors
// (cornerSubPix included) settle 0.1-0.3 px inside them; the edges away from the corners are not
// rounded. So each side of the black border is located from sub-pixel gradient maxima along its
// normal (its middle 70 %), a line is fitted to them, and the corners become the intersections of
// adjacent lines. When a corner would move more than half a module, all keep their positions.
// The steepest rises also give the edges' blur (blur_of_rises), per direction: sides 1 and 3
// cross the marker's x axis, sides 0 and 2 its y axis (motion blurs one direction). `blur` gets
// them (NaN when a side cannot be located), whether or not the corners move. A rise is measured
// against the edge's contrast, read at the ends of the profile; where the border band is narrower
// than twice the profile's reach (a small marker's), the inner end falls on the code's next module,
// so the contrast is the side's instead, from the band's darkest and the margin's lightest
// (kSideContrastShare; Benchmarks/README.md, "A small marker's edge contrast read within its
// border").
// Edge points per side at most (one every 1.4 px along its middle 70 % below): a line and a blur
// measured from more only cost time (Benchmarks/README.md, "A crop's refinement made cheaper").
constexpr int kEdgePointsMax = 16;
void refine_quad_edges(const cv::Mat &gray, int modules, std::vector<cv::Point2f> &quad, cv::Vec2d &blur) {
    blur = cv::Vec2d::all(std::numeric_limits<double>::quiet_NaN());
    std::vector<double> rises[2];
    const double module = module_size(quad, modules);
    const double reach = std::min(4.0, std::max(2.0, 0.45 * module));
    const double step = 0.25;
    const int taps = static_cast<int>(std::ceil(reach / step));
    const cv::Vec2d band = axis_modules(quad, modules);  // the border's width across each axis's sides
    const bool readable = std::min(band[0], band[1]) >= kLeastReadBand;
    cv::Point2d centre(0, 0);
    for (const cv::Point2f &c : quad) centre += cv::Point2d(c.x, c.y) * 0.25;

    cv::Vec3d lines[4];  // a x + b y + c = 0, (a, b) unit
    std::vector<cv::Point2d> points;  // one side's edge points and their weights, reused
    std::vector<double> weights;
    std::vector<double> profile(static_cast<size_t>(2 * taps + 1));
    std::vector<double> side_rises, side_contrasts;  // a thin band's samples, reused
    bool ok = true;
    for (int k = 0; k < 4 && ok; ++k) {
        const cv::Point2d a(quad[k].x, quad[k].y), b(quad[(k + 1) % 4].x, quad[(k + 1) % 4].y);
        const double len = cv::norm(b - a);
        if (len < 4) { ok = false; break; }
        const cv::Point2d dir = (b - a) / len;
        const int axis = 1 - k % 2;  // sides 1 and 3 cross the x axis
        const bool thin = readable && 2 * reach > band[axis];
        cv::Point2d normal(-dir.y, dir.x);
        if (normal.dot(centre - a) > 0) normal = -normal;  // points outward, toward the white
        points.clear();
        weights.clear();
        const int samples = std::min(kEdgePointsMax, std::max(3, static_cast<int>(len * 0.7)));
        for (int i = 0; i < samples; ++i) {
            const double s = 0.15 + 0.7 * (i + 0.5) / samples;
            const cv::Point2d p = a + (b - a) * s;
            for (int t = -taps; t <= taps; ++t) {
                const cv::Point2d q = p + normal * (t * step);
                profile[static_cast<size_t>(t + taps)] = sample_gray(gray, q.x, q.y);
            }
            // Dark inside, light outside: the edge is the largest rise along the normal,
            // measured over +-half a pixel (a shorter baseline only adds noise).
            const int h = 2;
            int best = -1;
            double bestRise = 0;
            for (int t = h; t <= 2 * taps - h; ++t) {
                const double rise = profile[static_cast<size_t>(t + h)] - profile[static_cast<size_t>(t - h)];
                if (rise > bestRise) { bestRise = rise; best = t; }
            }
            if (best <= h || best >= 2 * taps - h) continue;
            const double gm = profile[static_cast<size_t>(best - 1 + h)] - profile[static_cast<size_t>(best - 1 - h)];
            const double g0 = bestRise;
            const double gp = profile[static_cast<size_t>(best + 1 + h)] - profile[static_cast<size_t>(best + 1 - h)];
            const double denom = gm - 2 * g0 + gp;
            const double offset = denom < 0 ? 0.5 * (gm - gp) / denom : 0.0;
            if (std::abs(offset) > 1) continue;
            points.push_back(p + normal * ((best - taps + offset) * step));
            weights.push_back(g0);
            if (thin) {
                side_rises.push_back(g0);
                side_contrasts.push_back(*std::max_element(profile.begin() + best, profile.end()) -
                                         *std::min_element(profile.begin(), profile.begin() + best + 1));
            } else if (profile.back() > profile.front()) {
                rises[axis].push_back(g0 / (profile.back() - profile.front()));
            }
        }
        if (!side_contrasts.empty()) {
            const double rank = kSideContrastShare * static_cast<double>(side_contrasts.size() - 1);
            const auto at = side_contrasts.begin() + static_cast<std::ptrdiff_t>(std::lround(rank));
            std::nth_element(side_contrasts.begin(), at, side_contrasts.end());
            if (*at > 0)
                for (double rise : side_rises) rises[axis].push_back(rise / *at);
            side_rises.clear();
            side_contrasts.clear();
        }
        if (points.size() < 3) { ok = false; break; }
        const WeightedLine line = fit_weighted_line(points, weights);
        const double nx = -std::sin(line.angle), ny = std::cos(line.angle);
        lines[k] = cv::Vec3d(nx, ny, -(nx * line.centre.x + ny * line.centre.y));
    }
    if (!ok) return;
    blur = cv::Vec2d(blur_of_rises(rises[0]), blur_of_rises(rises[1]));
    std::vector<cv::Point2f> refined(4);
    for (int k = 0; k < 4 && ok; ++k) {
        const cv::Vec3d &l1 = lines[(k + 3) % 4], &l2 = lines[k];  // corner k joins side k-1 and side k
        const double det2 = l1[0] * l2[1] - l1[1] * l2[0];
        if (std::abs(det2) < 1e-6) { ok = false; break; }
        const double x = (l1[1] * l2[2] - l2[1] * l1[2]) / det2;
        const double y = (l2[0] * l1[2] - l1[0] * l2[2]) / det2;
        if (std::hypot(x - quad[k].x, y - quad[k].y) > std::max(1.0, 0.5 * module)) { ok = false; break; }
        refined[k] = cv::Point2f(static_cast<float>(x), static_cast<float>(y));
    }
    if (ok) quad = refined;
}

}  // namespace

namespace {

// Template refinement: once a marker is identified its ideal picture is known, and aligning it to
// the image (align_template: a homography, invariant to gain and offset) lets every bit edge
// contribute, not only the four border lines, which matters most for small markers. The result is
// kept only if the fit converges and no corner moves by more than half a module. About 0.1 ms a
// marker, where OpenCV's findTransformECC, which smoothed and differentiated the whole crop at
// every iteration, took about 1 ms.
// Template pixels per module: at least 4 (a 2-3 px module is upsampled), at most 10 (a larger
// template costs time and adds no accuracy).
constexpr double kTemplatePixelsPerModuleMin = 4, kTemplatePixelsPerModuleMax = 10;
// ... at least 3 in still photos: following, which a coarser template cost a rendered walk's
// blurred, foreshortened marker, does not happen there, and a small tag's alignment has fewer
// samples to sum (Benchmarks/README.md, "A crop's refinement made cheaper").
constexpr double kStillTemplatePixelsPerModuleMin = 3;
// ... for codes of up to this many modules a side (markers: at most 10 with their border); larger
// ones get proportionally fewer, down to 2.
constexpr double kTemplateModulesFull = 10, kTemplatePixelsPerModuleFloor = 2;
// The template is blurred to look like the image, with a Gaussian per template axis whose sigma in
// image pixels is what refine_edges measured across the sides of that direction, less the
// template pixels' own width (variance 1/12 px^2). A template sharper or blurrier than the image
// biases the fit wherever the marker is not symmetric (one white bit between black ones, say): on
// markers-blur (motion-blurred one way) median corner error 0.097 px with ECC (one 3x3 Gaussian
// on both images), 0.098 with one sigma for both axes, 0.087 with one per axis. At least 0.5
// template px: thinner edges, a two-pixel band, converge badly, and 0.4 or 0.6 gave larger median
// errors on markers-aruco-table (0.044, 0.048 against 0.041 px) and markers-apriltag-far (0.060,
// 0.059 against 0.058 px). At most 3.
constexpr double kTemplateSigmaMin = 0.5, kTemplateSigmaMax = 3;
// Templates whose axes' blur correlates less than this (quads whose mean sides are within 6 degrees
// of square) are blurred along their axes alone, separably; the most correlation used (sides 11
// degrees apart) leaves each axis some blur of its own.
constexpr double kCorrelatedBlurFrom = 0.1, kMostBlurCorrelation = 0.98;
// A blur is taken as the same in every image direction when its variances across the two pairs of
// sides are within this ratio. Past it (motion blur, one way) the image's blur is stretched along
// a direction two measures cannot place, and the template keeps the blur along its axes alone: on
// a rendered walk's motion-blurred, foreshortened marker, the blur taken as round lowered the
// template's correlation below following's threshold (Benchmarks/README.md, "A code's template
// blurred in the image's directions").
constexpr double kRoundBlurRatio = 1.25;
// The blur assumed when the edges could not be measured (px).
constexpr double kUnmeasuredBlur = 0.7;
// Markers whose modules are under this many pixels (their template is upsampled) are aligned on the
// image smoothed by the 3x3 Gaussian ECC used (variance 0.5 px^2 per axis, added to the template's
// blur). On markers-apriltag-far (~20 px tags, MPEG-4 video) that brought the non-similarity part
// of the corner errors, which the poses' tilt rests on, from 0.029 to 0.026 px (ECC 0.026), and the
// rotation error median from 0.373-0.383 to 0.357 degrees (ECC 0.364); on larger markers it cost
// accuracy (markers-aruco-table, all smoothed: 0.041 -> 0.050 px).
constexpr double kSmoothedImageBelowModule = 4, kImageSmoothingVariance = 0.5;
// Samples: template pixels with at least this share of the strongest gradient (0.02 and 0.2 were
// as accurate to 0.001 px; 0.02 takes more samples, 0.2 more iterations).
constexpr double kTemplateGradientShare = 0.1;
// The fit stops when a step moves the template's outline less than this (px), a small part of the
// corner errors (0.04-0.09 px median on the committed sequences).
constexpr int kTemplateIterations = 30;
constexpr double kTemplateTolerance = 0.01;


// The correlation of the template's blur along its two axes that makes it an image blur the same
// in every direction: -cos of the angle between the directions the template's axes take in the
// image (the quad's mean sides). A marker turned about its normal and seen obliquely is a sheared
// quad, and an image blur round in the image is, in the template, stretched along the diagonal
// its short image diagonal comes from; blurred along the template's axes alone, the fit pulled the
// acute corners in (Benchmarks/README.md, "A code's template blurred in the image's directions").
// The per-axis sigmas already are that blur's spread along each template axis (axis_modules).
double blur_correlation(const std::vector<cv::Point2f> &quad) {
    const cv::Point2f x = (quad[1] - quad[0]) + (quad[2] - quad[3]), y = (quad[3] - quad[0]) + (quad[2] - quad[1]);
    const double lengths = cv::norm(x) * cv::norm(y);
    if (!(lengths > 0)) return 0;
    return std::clamp(-x.dot(y) / lengths, -kMostBlurCorrelation, kMostBlurCorrelation);
}

// The taps w[0..r] of a sampled Gaussian of standard deviation `sigma` (px), normalised over
// -r...r, with cv::GaussianBlur's extent for float images (2r + 1 = round(8 sigma + 1), made odd).
// Returns r (0 for sigma under 1/16 px: no blur).
int gaussian_taps(double sigma, std::vector<float> &w) {
    const int radius = (cvRound(sigma * 8 + 1) | 1) / 2;
    w.assign(static_cast<size_t>(radius) + 1, 1.0f);
    if (radius == 0) return 0;
    double total = 1;
    std::vector<double> exact(static_cast<size_t>(radius) + 1, 1.0);
    for (int i = 1; i <= radius; ++i) total += 2 * (exact[static_cast<size_t>(i)] = std::exp(-0.5 * i * i / (sigma * sigma)));
    for (int i = 0; i <= radius; ++i) w[static_cast<size_t>(i)] = static_cast<float>(exact[static_cast<size_t>(i)] / total);
    return radius;
}

// Blurs a float image in place by Gaussians of standard deviations sx along its rows and sy along
// its columns (px), borders replicated: cv::GaussianBlur's kernels, without its per-call set-up
// (kernels in software doubles, a filter engine), which cost more than the blur on a template of
// 40-60 px a side. `rows` is scratch.
void blur_along_axes(cv::Mat &image, double sx, double sy, std::vector<float> &rows) {
    CV_Assert(image.type() == CV_32F && image.isContinuous());
    const int w = image.cols, h = image.rows;
    std::vector<float> kx, ky;
    const int rx = gaussian_taps(sx, kx), ry = gaussian_taps(sy, ky);
    rows.resize(static_cast<size_t>(w) * h + static_cast<size_t>(w + 2 * rx));
    float *const line = &rows[static_cast<size_t>(w) * h];
    for (int y = 0; y < h; ++y) {
        const float *in = image.ptr<float>(y);
        std::fill(line, line + rx, in[0]);
        std::copy(in, in + w, line + rx);
        std::fill(line + rx + w, line + 2 * rx + w, in[w - 1]);
        float *out = &rows[static_cast<size_t>(y) * w];
        const float *centre = line + rx;
        for (int x = 0; x < w; ++x) out[x] = kx[0] * centre[x];
        for (int k = 1; k <= rx; ++k)
            for (int x = 0; x < w; ++x) out[x] += kx[static_cast<size_t>(k)] * (centre[x - k] + centre[x + k]);
    }
    for (int y = 0; y < h; ++y) {
        float *out = image.ptr<float>(y);
        const float *centre = &rows[static_cast<size_t>(y) * w];
        for (int x = 0; x < w; ++x) out[x] = ky[0] * centre[x];
        for (int k = 1; k <= ry; ++k) {
            const float *above = &rows[static_cast<size_t>(std::max(0, y - k)) * w];
            const float *below = &rows[static_cast<size_t>(std::min(h - 1, y + k)) * w];
            for (int x = 0; x < w; ++x) out[x] += ky[static_cast<size_t>(k)] * (above[x] + below[x]);
        }
    }
}

// Blurs `image` in place by a Gaussian of standard deviations sx, sy (px) along its axes and
// correlation rho between them, borders replicated: its covariance split into one along each axis,
// blurred separably (blur_along_axes), and one along a diagonal, (1, 1) or (1, -1), a
// one-dimensional discrete Gaussian whose taps fall on whole pixels. A covariance [[a, c], [c, b]] is
// (a - |c|) along x, (b - |c|) along y and |c| along the diagonal; where one axis has less
// variance than |c| (a quad both sheared and much longer one way), the diagonal takes what that
// axis has. `padded` and `rows` are scratch.
void correlated_gaussian_blur(cv::Mat &image, double sx, double sy, double rho, cv::Mat &padded, std::vector<float> &rows) {
    const double a = sx * sx, b = sy * sy;
    const double diagonal = std::min({std::abs(rho) * sx * sy, a, b});
    blur_along_axes(image, std::sqrt(a - diagonal), std::sqrt(b - diagonal), rows);
    // Lindeberg's discrete Gaussian, exp(-v) I_n(v): its variance is v exactly, where a Gaussian
    // sampled at whole steps has less than v below about one step (the diagonal's share is often
    // a fraction of a pixel squared).
    const int radius = static_cast<int>(std::ceil(4 * std::sqrt(diagonal)));
    if (radius < 1) return;
    std::vector<float> taps(static_cast<size_t>(2 * radius + 1));
    double total = 0;
    for (int n = -radius; n <= radius; ++n) {
        const double tap = std::exp(-diagonal) * std::cyl_bessel_i(static_cast<double>(std::abs(n)), diagonal);
        taps[static_cast<size_t>(n + radius)] = static_cast<float>(tap);
        total += tap;
    }
    for (float &tap : taps) tap = static_cast<float>(tap / total);
    const float *w = taps.data();
    cv::copyMakeBorder(image, padded, radius, radius, radius, radius, cv::BORDER_REPLICATE);
    // One tap further along the diagonal: a column right and a row down (positive correlation) or up.
    const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(padded.step1()) * (rho > 0 ? 1 : -1) + 1;
    for (int y = 0; y < image.rows; ++y) {
        float *out = image.ptr<float>(y);
        const float *centre = padded.ptr<float>(y + radius) + radius;
        for (int x = 0; x < image.cols; ++x) out[x] = w[radius] * centre[x];
        for (int t = 1; t <= radius; ++t) {
            const float *ahead = centre + t * stride, *behind = centre - t * stride;
            const float weight = w[radius + t];
            for (int x = 0; x < image.cols; ++x) out[x] += weight * (ahead[x] + behind[x]);
        }
    }
}

// Draws `code` (one pixel per module, borders included) into scratch.smooth at the scale of `quad`,
// blurred like an image whose edges have `blur` (Gaussian sigma, image px, across the sides of each
// code axis; see align_code_template). The blur is converted per axis, with the module's width
// along that axis: a code seen obliquely is foreshortened along one. With `blur_as_image`, a
// sheared quad's template is blurred with its axes correlated (blur_correlation) when the blur
// is about as wide across both pairs of sides. Its geometry goes to `placement` (H is left alone).
void draw_code_template(const cv::Mat &code, TemplateScratch &scratch, const std::vector<cv::Point2f> &quad,
                        cv::Vec2d blur, double sigma_cap, bool smooth_image, bool blur_as_image, double least_module_pixels,
                        TemplatePlacement &placement) {
    const int modules = code.cols;
    const double module = module_size(quad, modules);
    const cv::Vec2d across = axis_modules(quad, modules);
    // Codes of many modules (QR) keep their template about as large as a marker's: fewer template
    // pixels a module (the range shrinks in proportion above kTemplateModulesFull modules).
    const double shrink = std::min(1.0, kTemplateModulesFull / modules);
    const double least = std::max(kTemplatePixelsPerModuleFloor, least_module_pixels * shrink),
                 most = std::max(least, kTemplatePixelsPerModuleMax * shrink);
    const int ppm = static_cast<int>(std::lround(std::min(most, std::max(least, module))));
    const int side = modules * ppm, margin = std::max(2, ppm / 2);
    double sigma[2], variance[2];
    for (int a = 0; a < 2; ++a) {
        double b = std::isfinite(blur[a]) ? blur[a] : kUnmeasuredBlur;
        if (smooth_image) b = std::sqrt(b * b + kImageSmoothingVariance);
        variance[a] = b * b;
        const double in_template = b * ppm / across[a];
        sigma[a] = std::min(sigma_cap, std::max(kTemplateSigmaMin, std::sqrt(std::max(0.0, in_template * in_template - 1.0 / 12))));
    }
    // As cv::aruco::drawMarker draws a marker: each module a block of ppm x ppm pixels (what
    // cv::resize's INTER_NEAREST gives for a whole factor), in a white margin, straight into the
    // float image the blur reads.
    scratch.smooth.create(side + 2 * margin, side + 2 * margin, CV_32F);
    scratch.smooth.setTo(255);
    for (int y = 0; y < side; ++y) {
        const uchar *bits = code.ptr<uchar>(y / ppm);
        float *row = scratch.smooth.ptr<float>(margin + y) + margin;
        for (int c = 0; c < modules; ++c)
            for (int x = 0; x < ppm; ++x) *row++ = bits[c];
    }
    const bool isotropic = std::max(variance[0], variance[1]) <= kRoundBlurRatio * std::min(variance[0], variance[1]);
    const double correlation = blur_as_image && isotropic ? blur_correlation(quad) : 0;
    if (std::abs(correlation) < kCorrelatedBlurFrom)
        blur_along_axes(scratch.smooth, sigma[0], sigma[1], scratch.blurred);
    else
        correlated_gaussian_blur(scratch.smooth, sigma[0], sigma[1], correlation, scratch.padded, scratch.blurred);
    placement.side = side, placement.margin = margin;
}

// The region `box` of `gray` smoothed by the 3x3 binomial kernel ([1 2 1] / 4 along each axis, the
// kernel of cv::GaussianBlur with Size(3, 3)) into `out` (CV_8U), rounded half to even: neighbours
// outside the region are read from the image, mirrored at its edges (BORDER_REFLECT_101). OpenCV's
// call spent most of its time on a small marker's crop in setting up. `sums` is scratch.
void smooth_binomial(const cv::Mat &gray, cv::Rect box, cv::Mat &out, std::vector<uint16_t> &sums) {
    CV_Assert(gray.type() == CV_8U && gray.cols >= 2 && gray.rows >= 2 && box.width >= 2 && box.height >= 1 &&
              (cv::Rect(0, 0, gray.cols, gray.rows) & box) == box);
    const auto mirrored = [](int i, int n) { return cv::borderInterpolate(i, n, cv::BORDER_REFLECT_101); };
    const int w = box.width, h = box.height;
    // Each needed row's sums along x: rows box.y - 1 ... box.y + h.
    sums.resize(static_cast<size_t>(w) * (h + 2));
    const int left = mirrored(box.x - 1, gray.cols), right = mirrored(box.x + w, gray.cols);
    for (int r = 0; r < h + 2; ++r) {
        const uchar *p = gray.ptr<uchar>(mirrored(box.y - 1 + r, gray.rows));
        uint16_t *row = &sums[static_cast<size_t>(r) * w];
        const uchar *c = p + box.x;
        row[0] = static_cast<uint16_t>(p[left] + 2 * c[0] + c[1]);
        for (int x = 1; x < w - 1; ++x) row[x] = static_cast<uint16_t>(c[x - 1] + 2 * c[x] + c[x + 1]);
        row[w - 1] = static_cast<uint16_t>(c[w - 2] + 2 * c[w - 1] + p[right]);
    }
    out.create(h, w, CV_8U);
    for (int y = 0; y < h; ++y) {
        const uint16_t *a = &sums[static_cast<size_t>(y) * w], *b = a + w, *c = b + w;
        uchar *o = out.ptr<uchar>(y);
        for (int x = 0; x < w; ++x) {
            const int total = a[x] + 2 * b[x] + c[x];  // 16 times the mean
            o[x] = static_cast<uchar>((total + 7 + ((total >> 4) & 1)) >> 4);
        }
    }
}

// The outer corners of the template's code (TL, TR, BR, BL), template px: at margin - 0.5 and
// margin + side - 0.5.
std::array<cv::Point2f, 4> template_corners(const TemplatePlacement &placement) {
    const float lo = placement.margin - 0.5f, hi = placement.margin + placement.side - 0.5f;
    return {cv::Point2f(lo, lo), cv::Point2f(hi, lo), cv::Point2f(hi, hi), cv::Point2f(lo, hi)};
}

// The homography from the template's pixels to `quad` shifted by -origin.
cv::Matx33d template_to_quad(const TemplatePlacement &placement, const std::vector<cv::Point2f> &quad, cv::Point2f origin) {
    const std::array<cv::Point2f, 4> model = template_corners(placement);
    cv::Point2f local[4];
    for (int k = 0; k < 4; ++k) local[k] = quad[static_cast<size_t>(k)] - origin;
    return cv::Matx33d(cv::getPerspectiveTransform(model.data(), local));
}

}  // namespace

bool align_code_template(const cv::Mat &code, TemplateScratch &scratch, const cv::Mat &gray, std::vector<cv::Point2f> &quad,
                         cv::Vec2d blur, double sigma_cap, double reach, double tolerance, bool translation_only,
                         bool blur_as_image, double least_module_pixels, TemplatePlacement *fit) {
    const int modules = code.cols;
    const double module = module_size(quad, modules);
    if (!(module > 0)) return false;
    const bool smooth_image = module < kSmoothedImageBelowModule;
    TemplatePlacement placement;
    draw_code_template(code, scratch, quad, blur, sigma_cap, smooth_image, blur_as_image, least_module_pixels, placement);
    if (!prepare_template(scratch.smooth, kTemplateGradientShare, translation_only, scratch.model)) return false;

    cv::Point2f origin(0, 0);
    const cv::Mat *target = &gray;
    if (smooth_image) {
        cv::Rect box = cv::boundingRect(quad);
        const int pad = static_cast<int>(std::ceil((2 + reach) * module)) + 4;
        box = cv::Rect(box.x - pad, box.y - pad, box.width + 2 * pad, box.height + 2 * pad) & cv::Rect(0, 0, gray.cols, gray.rows);
        if (box.width < 8 || box.height < 8) return false;
        origin = cv::Point2f(static_cast<float>(box.x), static_cast<float>(box.y));
        smooth_binomial(gray, box, scratch.crop, scratch.sums);
        target = &scratch.crop;
    }
    const std::array<cv::Point2f, 4> model = template_corners(placement);
    cv::Matx33d H = template_to_quad(placement, quad, origin);
    const TemplateFit fitted = align_template(scratch.model, *target, H, kTemplateIterations, tolerance);
    if (!fitted.converged) return false;
    std::vector<cv::Point2f> out(4);
    for (int k = 0; k < 4; ++k) {
        const cv::Vec3d p = H * cv::Vec3d(model[k].x, model[k].y, 1);
        out[static_cast<size_t>(k)] = cv::Point2f(static_cast<float>(p[0] / p[2]), static_cast<float>(p[1] / p[2])) + origin;
        if (!(cv::norm(out[static_cast<size_t>(k)] - quad[static_cast<size_t>(k)]) <= reach * module)) return false;
    }
    quad = out;
    if (fit) {
        *fit = placement;
        fit->H = cv::Matx33d(1, 0, origin.x, 0, 1, origin.y, 0, 0, 1) * H;
    }
    return true;
}

bool refine_code_template(const cv::Mat &code, TemplateScratch &scratch, const cv::Mat &gray, std::vector<cv::Point2f> &quad,
                          cv::Vec2d blur, TemplatePlacement *fit, bool still) {
    return align_code_template(code, scratch, gray, quad, blur, kTemplateSigmaMax, 0.5, kTemplateTolerance, false, true,
                               still ? kStillTemplatePixelsPerModuleMin : kTemplatePixelsPerModuleMin, fit);
}

namespace {

// Marker `id`'s picture, one pixel per module (its border included), in scratch.modules.
const cv::Mat &marker_code(const ak_marker_detector &det, TemplateScratch &scratch, int id) {
    const int modules = det.dict->markerSize + 2 * det.params->markerBorderBits;
    cv::aruco::drawMarker(det.dict, id, modules, scratch.modules, det.params->markerBorderBits);
    return scratch.modules;
}

// Refines one identified quad, given the blur of its edges (refine_quad_edges): no corner may move
// more than half a module.
bool refine_quad_template(const ak_marker_detector &det, TemplateScratch &scratch, const cv::Mat &gray, int id,
                          std::vector<cv::Point2f> &quad, cv::Vec2d blur,
                          TemplatePlacement *fit = nullptr) {
    return refine_code_template(marker_code(det, scratch, id), scratch, gray, quad, blur, fit, det.still_photos);
}

// Detections' correlations are measured on every second template pixel each way: a quarter of the
// cost, and the correlation of a smooth template barely changes.
constexpr int kDetectionCorrelationStride = 2;

}  // namespace

double template_correlation(const cv::Mat &t, const cv::Mat &gray, const TemplatePlacement &fit, int stride) {
    double n = 0, st = 0, si = 0, stt = 0, sii = 0, sti = 0;
    for (int y = 0; y < t.rows; y += stride)
        for (int x = 0; x < t.cols; x += stride) {
            const cv::Vec3d p = fit.H * cv::Vec3d(x, y, 1);
            if (!(p[2] > 0)) continue;
            const double u = p[0] / p[2], v = p[1] / p[2];
            if (!(u >= 0 && v >= 0 && u <= gray.cols - 1.001 && v <= gray.rows - 1.001)) continue;
            const double a = t.at<float>(y, x), b = sample_gray(gray, u, v);
            n += 1, st += a, si += b, stt += a * a, sii += b * b, sti += a * b;
        }
    if (n * 3 * stride * stride < static_cast<double>(t.total())) return std::numeric_limits<double>::quiet_NaN();
    const double vt = stt - st * st / n, vi = sii - si * si / n, c = sti - st * si / n;
    return vt > 0 && vi > 0 ? c / std::sqrt(vt * vi) : 0.0;
}

namespace {

// Following: from predicted corners the template, blurred by about a module, is first moved without
// changing its shape (the prediction's shape is good; a blurred, foreshortened marker leaves a free
// homography room to deform), then aligned as a homography less blurred (the coarse stages), then
// refined as a detection is. A sharp template's basin spans about half a module; a blurred one's
// about one.
constexpr int kCoarseStages = 2;
// Template blur per coarse stage, in modules along each marker axis. Measured by following every
// marker of markers-blur-walk (frames 0, 7, 14 ...) from its true corners shifted by 1.5-5 px:
// 1.0 / 0.4 brought the most within 1 px (0.6-1.2 tried for the first).
constexpr double kFollowStageBlurModules[kCoarseStages] = {1.0, 0.4};
// ... and at most this, px: a large marker's prediction is off by a small part of a module.
constexpr double kFollowStageBlurMax[kCoarseStages] = {3.0, 1.5};
// How far each coarse stage may move a corner, modules; and its convergence tolerance, px.
constexpr double kFollowReach[kCoarseStages] = {2.0, 1.0};
constexpr double kFollowTolerance[kCoarseStages] = {0.1, 0.05};
// Templates this blurred are still drawn faithfully (the refinement's cap is lower).
constexpr double kFollowSigmaCap = 10;

}  // namespace

cv::Vec3d refine_markers(ak_marker_detector &det, const cv::Mat &gray) {
    const int modules = det.dict->markerSize + 2 * det.params->markerBorderBits;
    det.edge_blur.assign(det.corners.size(), cv::Vec2d::all(std::numeric_limits<double>::quiet_NaN()));
    det.correlations.assign(det.corners.size(), std::numeric_limits<float>::quiet_NaN());
    std::vector<cv::Vec3d> busy(det.corners.size());
    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::time_point from, Clock::time_point to) { return std::chrono::duration<double>(to - from).count(); };
    for_each_marker(det, [&](size_t m, TemplateScratch &scratch) {
        if (det.corners[m].size() != 4) return;
        std::vector<cv::Point2f> &quad = det.corners[m];
        const auto start = Clock::now();
        // AprilTag 3 has fitted a still photo's quads to their edges already: the edges below start
        // from its sub-pixel corners. Video keeps cornerSubPix: without it a rendered walk's far
        // markers had larger corner errors (Benchmarks/README.md, "Sub-pixel corners in the
        // markers' pass").
        if (det.subpix && !(det.still_photos && det.apriltag)) refine_quad_subpix(det, gray, quad);
        const auto cornered = Clock::now();
        refine_quad_edges(gray, modules, quad, det.edge_blur[m]);
        const auto edged = Clock::now();
        TemplatePlacement fit;
        if (refine_quad_template(det, scratch, gray, det.ids[m], quad, det.edge_blur[m], &fit) && det.template_correlation)
            det.correlations[m] = static_cast<float>(template_correlation(scratch.smooth, gray, fit, kDetectionCorrelationStride));
        busy[m] = cv::Vec3d(seconds(start, cornered), seconds(cornered, edged), seconds(edged, Clock::now()));
    });
    cv::Vec3d total(0, 0, 0);
    for (const cv::Vec3d &b : busy) total += b;
    return total;
}

// refine_template_from, also giving where the template was aligned.
static bool refine_placed_template(ak_marker_detector &det, const cv::Mat &gray, int id, std::vector<cv::Point2f> &quad,
                                   TemplatePlacement *fit) {
    // The edges are searched for only for their blur: the alignment starts from the corners given.
    std::vector<cv::Point2f> located = quad;
    cv::Vec2d blur;
    refine_quad_edges(gray, det.dict->markerSize + 2 * det.params->markerBorderBits, located, blur);
    return refine_quad_template(det, det.scratch, gray, id, quad, blur, fit);
}

bool refine_template_from(ak_marker_detector &det, const cv::Mat &gray, int id, std::vector<cv::Point2f> &quad) {
    return refine_placed_template(det, gray, id, quad, nullptr);
}

double follow_code(const cv::Mat &code, TemplateScratch &scratch, const cv::Mat &gray, std::vector<cv::Point2f> &quad,
                   const std::function<bool(std::vector<cv::Point2f> &, TemplatePlacement *)> &refine) {
    const int modules = code.cols;
    double correlation = std::numeric_limits<double>::quiet_NaN();
    if (!(module_size(quad, modules) > 0)) return correlation;
    // Coarse to fine; each stage starts where the last converged, and the finest that converges
    // gives the corners and the correlation (measured once, for that stage: its template is kept).
    std::vector<cv::Point2f> moved = quad;
    TemplatePlacement fit;
    std::optional<TemplatePlacement> finest;
    for (int stage = 0; stage <= kCoarseStages; ++stage) {
        bool aligned;
        if (stage < kCoarseStages) {
            cv::Vec2d blur = kFollowStageBlurModules[stage] * axis_modules(moved, modules);
            for (int a = 0; a < 2; ++a) blur[a] = std::min(blur[a], kFollowStageBlurMax[stage]);
            aligned = align_code_template(code, scratch, gray, moved, blur, kFollowSigmaCap, kFollowReach[stage], kFollowTolerance[stage],
                                          stage == 0, false, kTemplatePixelsPerModuleMin, &fit);
        } else {
            aligned = refine(moved, &fit);
        }
        if (!aligned) break;
        cv::swap(scratch.smooth, scratch.kept);
        finest = fit;
    }
    if (!finest) return correlation;
    correlation = template_correlation(scratch.kept, gray, *finest);
    if (std::isfinite(correlation)) quad = moved;
    return correlation;
}

double follow_marker(ak_marker_detector &det, const cv::Mat &gray, int id, std::vector<cv::Point2f> &quad) {
    // The code is drawn once here: the final stage's refinement redraws scratch.modules itself.
    const cv::Mat code = marker_code(det, det.scratch, id).clone();
    return follow_code(code, det.scratch, gray, quad, [&](std::vector<cv::Point2f> &moved, TemplatePlacement *fit) {
        return refine_placed_template(det, gray, id, moved, fit);
    });
}

}  // namespace akcv
