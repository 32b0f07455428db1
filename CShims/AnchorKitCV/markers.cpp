// markers.cpp — ArUco dictionaries, marker images and detection (OpenCV 4.6 contrib aruco).
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <limits>

using namespace akcv;

namespace {

constexpr int kMaxCustomMarkers = 100000;
constexpr int kMinMarkerBits = 2, kMaxMarkerBits = 16;

// Checks a custom dictionary's YAML before handing it to Dictionary::readDictionary, which in 4.6
// writes one byte per character of each marker string into a markersize x markersize Mat without
// checking the length (a too-long string overruns the buffer).
ak_status validate_dictionary_yaml(const char *fn, const char *path, const cv::FileNode &root) {
    if (!root.isMap()) return fail(AK_ERR_DECODE, fn, "%s: not a YAML/XML/JSON map", path);
    cv::FileNode n_markers = root["nmarkers"], n_size = root["markersize"];
    if (!n_markers.isInt() || !n_size.isInt())
        return fail(AK_ERR_DECODE, fn, "%s: missing integer fields nmarkers / markersize", path);
    const int count = static_cast<int>(n_markers), bits = static_cast<int>(n_size);
    if (count <= 0 || count > kMaxCustomMarkers)
        return fail(AK_ERR_DECODE, fn, "%s: nmarkers must be in 1...%d, got %d", path, kMaxCustomMarkers, count);
    if (bits < kMinMarkerBits || bits > kMaxMarkerBits)
        return fail(AK_ERR_DECODE, fn, "%s: markersize must be in %d...%d, got %d", path, kMinMarkerBits,
                    kMaxMarkerBits, bits);
    cv::FileNode n_corr = root["maxCorrectionBits"];
    if (!n_corr.empty() && (!n_corr.isInt() || static_cast<int>(n_corr) < 0))
        return fail(AK_ERR_DECODE, fn, "%s: maxCorrectionBits must be a non-negative integer", path);
    const size_t expected = static_cast<size_t>(bits) * static_cast<size_t>(bits);
    for (int i = 0; i < count; ++i) {
        const std::string key = "marker_" + std::to_string(i);
        cv::FileNode node = root[key];
        if (!node.isString()) return fail(AK_ERR_DECODE, fn, "%s: missing string %s", path, key.c_str());
        const std::string code = static_cast<std::string>(node);
        if (code.size() != expected)
            return fail(AK_ERR_DECODE, fn, "%s: %s has %zu bits, expected %zu", path, key.c_str(), code.size(), expected);
        if (code.find_first_not_of("01") != std::string::npos)
            return fail(AK_ERR_DECODE, fn, "%s: %s must contain only '0' and '1'", path, key.c_str());
    }
    return AK_OK;
}

// The side of one code module in pixels: the quad's mean side over `modules` (bits + borders).
double module_size(const std::vector<cv::Point2f> &quad, int modules) {
    double perimeter = 0;
    for (size_t k = 0; k < 4; ++k) perimeter += cv::norm(quad[k] - quad[(k + 1) % 4]);
    return perimeter / (4.0 * modules);
}

// Corner refinement as OpenCV >= 4.7 does it (aruco_detector.cpp): the cornerSubPix half-window is
// min(refinement_window, max(1, round(0.3 * module size))), the module size being the mean side of
// the quad over markerSize + 2 border bits; criteria 50 iterations / 0.01 px.
void refine_subpix(ak_marker_detector &det, const cv::Mat &gray) {
    const int modules = det.dict->markerSize + 2 * det.params->markerBorderBits;
    const cv::TermCriteria criteria(cv::TermCriteria::MAX_ITER | cv::TermCriteria::EPS,
                                    det.params->cornerRefinementMaxIterations, det.params->cornerRefinementMinAccuracy);
    for (std::vector<cv::Point2f> &quad : det.corners) {
        if (quad.size() != 4) continue;
        const double module = module_size(quad, modules);
        const int win = std::min(det.subpix_window, std::max(1, cvRound(0.3 * module)));
        cv::cornerSubPix(gray, quad, cv::Size(win, win), cv::Size(-1, -1), criteria);
    }
}


// Bilinear intensity at a sub-pixel position (pixel centres at integers), clamped to the image.
inline double sample(const cv::Mat &gray, double x, double y) {
    x = std::min(std::max(x, 0.0), gray.cols - 1.001);
    y = std::min(std::max(y, 0.0), gray.rows - 1.001);
    const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
    const double fx = x - x0, fy = y - y0;
    const uchar *r0 = gray.ptr<uchar>(y0), *r1 = gray.ptr<uchar>(y0 + 1);
    return (1 - fy) * ((1 - fx) * r0[x0] + fx * r0[x0 + 1]) + fy * ((1 - fx) * r1[x0] + fx * r1[x0 + 1]);
}

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

// Edge refinement: the corners of a blurred square are rounded, and corner detectors
// (cornerSubPix included) settle 0.1-0.3 px inside them; the edges away from the corners are not
// rounded. So each side of the black border is located from sub-pixel gradient maxima along its
// normal (its middle 70 %), a line is fitted to them, and the corners become the intersections of
// adjacent lines. When a corner would move more than half a module, all keep their positions.
// The steepest rises also give the edges' blur (blur_of_rises), per direction: sides 1 and 3
// cross the marker's x axis, sides 0 and 2 its y axis (motion blurs one direction). `blur` gets
// them (NaN when a side cannot be located), whether or not the corners move.
void refine_quad_edges(const cv::Mat &gray, int modules, std::vector<cv::Point2f> &quad, cv::Vec2d &blur) {
    blur = cv::Vec2d::all(std::numeric_limits<double>::quiet_NaN());
    std::vector<double> rises[2];
    const double module = module_size(quad, modules);
    const double reach = std::min(4.0, std::max(2.0, 0.45 * module));
    const double step = 0.25;
    const int taps = static_cast<int>(std::ceil(reach / step));
    cv::Point2d centre(0, 0);
    for (const cv::Point2f &c : quad) centre += cv::Point2d(c.x, c.y) * 0.25;

    cv::Vec3d lines[4];  // a x + b y + c = 0, (a, b) unit
    bool ok = true;
    for (int k = 0; k < 4 && ok; ++k) {
        const cv::Point2d a(quad[k].x, quad[k].y), b(quad[(k + 1) % 4].x, quad[(k + 1) % 4].y);
        const double len = cv::norm(b - a);
        if (len < 4) { ok = false; break; }
        const cv::Point2d dir = (b - a) / len;
        cv::Point2d normal(-dir.y, dir.x);
        if (normal.dot(centre - a) > 0) normal = -normal;  // points outward, toward the white
        std::vector<cv::Point2d> points;
        std::vector<double> weights;
        std::vector<double> profile(static_cast<size_t>(2 * taps + 1));
        const int samples = std::max(3, static_cast<int>(len * 0.7));
        for (int i = 0; i < samples; ++i) {
            const double s = 0.15 + 0.7 * (i + 0.5) / samples;
            const cv::Point2d p = a + (b - a) * s;
            for (int t = -taps; t <= taps; ++t) {
                const cv::Point2d q = p + normal * (t * step);
                profile[static_cast<size_t>(t + taps)] = sample(gray, q.x, q.y);
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
            const double contrast = profile.back() - profile.front();
            if (contrast > 0) rises[1 - k % 2].push_back(g0 / contrast);
        }
        if (points.size() < 3) { ok = false; break; }
        // Weighted total least squares: the line through the weighted centroid along the
        // principal direction.
        double sw = 0, mx = 0, my = 0;
        for (size_t i = 0; i < points.size(); ++i) { sw += weights[i]; mx += weights[i] * points[i].x; my += weights[i] * points[i].y; }
        mx /= sw; my /= sw;
        double sxx = 0, sxy = 0, syy = 0;
        for (size_t i = 0; i < points.size(); ++i) {
            const double dx = points[i].x - mx, dy = points[i].y - my;
            sxx += weights[i] * dx * dx; sxy += weights[i] * dx * dy; syy += weights[i] * dy * dy;
        }
        const double theta = 0.5 * std::atan2(2 * sxy, sxx - syy);  // direction of the line
        const double nx = -std::sin(theta), ny = std::cos(theta);
        lines[k] = cv::Vec3d(nx, ny, -(nx * mx + ny * my));
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

void refine_edges(ak_marker_detector &det, const cv::Mat &gray) {
    const int modules = det.dict->markerSize + 2 * det.params->markerBorderBits;
    det.edge_blur.assign(det.corners.size(), cv::Vec2d::all(std::numeric_limits<double>::quiet_NaN()));
    for (size_t m = 0; m < det.corners.size(); ++m)
        if (det.corners[m].size() == 4) refine_quad_edges(gray, modules, det.corners[m], det.edge_blur[m]);
}


// Template refinement: once a marker is identified its ideal picture is known, and aligning it to
// the image (align_template: a homography, invariant to gain and offset) lets every bit edge
// contribute, not only the four border lines, which matters most for small markers. The result is
// kept only if the fit converges and no corner moves by more than half a module. About 0.1 ms a
// marker, where OpenCV's findTransformECC, which smoothed and differentiated the whole crop at
// every iteration, took about 1 ms.
// Template pixels per module: at least 4 (a 2-3 px module is upsampled), at most 10 (a larger
// template costs time and adds no accuracy).
constexpr double kTemplatePixelsPerModuleMin = 4, kTemplatePixelsPerModuleMax = 10;
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

// Refines one identified quad, given the blur of its edges (refine_quad_edges). False, with `quad`
// unchanged, when the alignment does not converge or moves a corner more than half a module.
bool refine_quad_template(ak_marker_detector &det, const cv::Mat &gray, int id, std::vector<cv::Point2f> &quad,
                          cv::Vec2d blur) {
    const int modules = det.dict->markerSize + 2 * det.params->markerBorderBits;
    const double module = module_size(quad, modules);
    if (!(module > 0)) return false;
    const int ppm = static_cast<int>(std::lround(std::min(kTemplatePixelsPerModuleMax, std::max(kTemplatePixelsPerModuleMin, module))));
    const int side = modules * ppm, margin = std::max(2, ppm / 2);
    const bool smooth_image = module < kSmoothedImageBelowModule;
    double sigma[2];
    for (int a = 0; a < 2; ++a) {
        double b = std::isfinite(blur[a]) ? blur[a] : kUnmeasuredBlur;
        if (smooth_image) b = std::sqrt(b * b + kImageSmoothingVariance);
        const double in_template = b * ppm / module;
        sigma[a] = std::min(kTemplateSigmaMax, std::max(kTemplateSigmaMin, std::sqrt(std::max(0.0, in_template * in_template - 1.0 / 12))));
    }
    cv::aruco::drawMarker(det.dict, id, side, det.template_code, det.params->markerBorderBits);
    cv::copyMakeBorder(det.template_code, det.template_image, margin, margin, margin, margin, cv::BORDER_CONSTANT, cv::Scalar(255));
    det.template_image.convertTo(det.template_smooth, CV_32F);
    cv::GaussianBlur(det.template_smooth, det.template_smooth, cv::Size(0, 0), sigma[0], sigma[1], cv::BORDER_REPLICATE);
    if (!prepare_template(det.template_smooth, kTemplateGradientShare, det.template_model)) return false;

    cv::Point2f origin(0, 0);
    const cv::Mat *target = &gray;
    if (smooth_image) {
        cv::Rect box = cv::boundingRect(quad);
        const int pad = static_cast<int>(std::ceil(2 * module)) + 4;
        box = cv::Rect(box.x - pad, box.y - pad, box.width + 2 * pad, box.height + 2 * pad) & cv::Rect(0, 0, gray.cols, gray.rows);
        if (box.width < 8 || box.height < 8) return false;
        origin = cv::Point2f(static_cast<float>(box.x), static_cast<float>(box.y));
        cv::GaussianBlur(gray(box), det.template_crop, cv::Size(3, 3), 0, 0);
        target = &det.template_crop;
    }
    const float lo = margin - 0.5f, hi = margin + side - 0.5f;
    const cv::Point2f model[4] = {{lo, lo}, {hi, lo}, {hi, hi}, {lo, hi}};
    cv::Point2f local[4];
    for (int k = 0; k < 4; ++k) local[k] = quad[static_cast<size_t>(k)] - origin;
    cv::Matx33d H(cv::getPerspectiveTransform(model, local));
    if (!align_template(det.template_model, *target, H, kTemplateIterations, kTemplateTolerance).converged) return false;
    std::vector<cv::Point2f> out(4);
    for (int k = 0; k < 4; ++k) {
        const cv::Vec3d p = H * cv::Vec3d(model[k].x, model[k].y, 1);
        out[static_cast<size_t>(k)] = cv::Point2f(static_cast<float>(p[0] / p[2]), static_cast<float>(p[1] / p[2])) + origin;
        if (!(cv::norm(out[static_cast<size_t>(k)] - quad[static_cast<size_t>(k)]) <= 0.5 * module)) return false;
    }
    quad = out;
    return true;
}

void refine_template(ak_marker_detector &det, const cv::Mat &gray) {
    for (size_t m = 0; m < det.corners.size(); ++m)
        if (det.corners[m].size() == 4 && m < det.edge_blur.size()) refine_quad_template(det, gray, det.ids[m], det.corners[m], det.edge_blur[m]);
}

}  // namespace

extern "C" {

ak_status ak_dictionary_predefined(int predefined_id, ak_dictionary **out) {
    static const char *fn = "ak_dictionary_predefined";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (predefined_id < cv::aruco::DICT_4X4_50 || predefined_id > cv::aruco::DICT_APRILTAG_36h11)
            return fail(AK_ERR_ARGUMENT, fn, "predefined dictionary id must be in 0...20, got %d", predefined_id);
        std::unique_ptr<ak_dictionary> d(new ak_dictionary);
        d->dict = cv::aruco::getPredefinedDictionary(predefined_id);
        d->predefined = predefined_id;
        if (!d->dict || d->dict->bytesList.empty())
            return fail(AK_ERR_INTERNAL, fn, "OpenCV returned an empty dictionary for id %d", predefined_id);
        *out = d.release();
        return AK_OK;
    });
}

ak_status ak_dictionary_read(const char *path, ak_dictionary **out) {
    static const char *fn = "ak_dictionary_read";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_readable_file(fn, path)) return s;
        cv::FileStorage fs;
        try {
            if (!fs.open(path, cv::FileStorage::READ) || !fs.isOpened())
                return fail(AK_ERR_DECODE, fn, "cannot parse %s as OpenCV YAML/XML/JSON", path);
        } catch (const cv::Exception &e) {
            const char *err = e.err.empty() ? e.msg.c_str() : e.err.c_str();
            return fail(AK_ERR_DECODE, fn, "cannot parse %s as OpenCV YAML/XML/JSON: %s", path, err);
        }
        cv::FileNode root = fs.root();
        if (ak_status s = validate_dictionary_yaml(fn, path, root)) return s;
        // OpenCV 4.6: readDictionary is a member that replaces *this; maxCorrectionBits is optional
        // in the file and defaults to 0 (then only exact codes are accepted).
        auto dict = cv::makePtr<cv::aruco::Dictionary>();
        if (!dict->readDictionary(root) || dict->bytesList.empty())
            return fail(AK_ERR_DECODE, fn, "%s is not a valid dictionary", path);
        std::unique_ptr<ak_dictionary> d(new ak_dictionary);
        d->dict = dict;
        *out = d.release();
        return AK_OK;
    });
}

void ak_dictionary_free(ak_dictionary *dictionary) { delete dictionary; }

void ak_dictionary_info(const ak_dictionary *dictionary, int *marker_count, int *marker_bits) {
    const bool ok = dictionary && dictionary->dict;
    if (marker_count) *marker_count = ok ? dictionary->dict->bytesList.rows : 0;
    if (marker_bits) *marker_bits = ok ? dictionary->dict->markerSize : 0;
}

ak_status ak_marker_draw(const ak_dictionary *dictionary, int id, int side_pixels, int margin_pixels,
                         ak_image **out) {
    static const char *fn = "ak_marker_draw";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (!dictionary || !dictionary->dict) return fail(AK_ERR_ARGUMENT, fn, "dictionary is NULL");
        const cv::aruco::Dictionary &dict = *dictionary->dict;
        const int count = dict.bytesList.rows;
        if (id < 0 || id >= count)
            return fail(AK_ERR_ARGUMENT, fn, "marker id %d is outside the dictionary (0...%d)", id, count - 1);
        const int min_side = dict.markerSize + 2;  // one pixel per bit, border included
        if (side_pixels < min_side)
            return fail(AK_ERR_ARGUMENT, fn, "side_pixels must be at least %d for %dx%d markers, got %d", min_side,
                        dict.markerSize, dict.markerSize, side_pixels);
        if (margin_pixels < 0) return fail(AK_ERR_ARGUMENT, fn, "margin_pixels must be >= 0, got %d", margin_pixels);
        const int64_t total = static_cast<int64_t>(side_pixels) + 2 * static_cast<int64_t>(margin_pixels);
        if (total > 1000000 || total * total > kMaxPixels)
            return fail(AK_ERR_ARGUMENT, fn, "image too large: %lldx%lld", static_cast<long long>(total),
                        static_cast<long long>(total));
        cv::Mat code, img;
        cv::aruco::drawMarker(dictionary->dict, id, side_pixels, code, 1);
        cv::copyMakeBorder(code, img, margin_pixels, margin_pixels, margin_pixels, margin_pixels, cv::BORDER_CONSTANT,
                           cv::Scalar::all(255));
        *out = make_image(std::move(img));
        return AK_OK;
    });
}

void ak_marker_params_default(ak_marker_params *params) {
    if (!params) return;
    // OpenCV 4.6 defaults (cv::aruco::DetectorParameters()), except TEMPLATE refinement.
    *params = ak_marker_params{AK_CORNER_REFINE_TEMPLATE, 5, 0.03, 4.0, 0.03, 3, 23, 10, 0.6};
    try {
        cv::aruco::DetectorParameters d;
        params->refinement_window = d.cornerRefinementWinSize;
        params->min_marker_perimeter_rate = d.minMarkerPerimeterRate;
        params->max_marker_perimeter_rate = d.maxMarkerPerimeterRate;
        params->polygonal_approx_accuracy_rate = d.polygonalApproxAccuracyRate;
        params->adaptive_thresh_win_size_min = d.adaptiveThreshWinSizeMin;
        params->adaptive_thresh_win_size_max = d.adaptiveThreshWinSizeMax;
        params->adaptive_thresh_win_size_step = d.adaptiveThreshWinSizeStep;
        params->error_correction_rate = d.errorCorrectionRate;
    } catch (...) {
        // keep the literal defaults above
    }
}

ak_status ak_marker_detector_create(const ak_dictionary *dictionary, const ak_marker_params *params,
                                    ak_marker_detector **out) {
    static const char *fn = "ak_marker_detector_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (!dictionary || !dictionary->dict) return fail(AK_ERR_ARGUMENT, fn, "dictionary is NULL");
        const ak_marker_params p = given_or_default(params, ak_marker_params_default);
        if (p.corner_refinement < AK_CORNER_REFINE_NONE || p.corner_refinement > AK_CORNER_REFINE_TEMPLATE)
            return fail(AK_ERR_ARGUMENT, fn, "unknown corner_refinement %d", static_cast<int>(p.corner_refinement));
        if (p.refinement_window < 1 || p.refinement_window > 100)
            return fail(AK_ERR_ARGUMENT, fn, "refinement_window must be in 1...100, got %d", p.refinement_window);
        if (!(p.min_marker_perimeter_rate > 0) || !(p.max_marker_perimeter_rate > p.min_marker_perimeter_rate) ||
            !std::isfinite(p.max_marker_perimeter_rate))
            return fail(AK_ERR_ARGUMENT, fn, "need 0 < min_marker_perimeter_rate (%g) < max_marker_perimeter_rate (%g)",
                        p.min_marker_perimeter_rate, p.max_marker_perimeter_rate);
        if (!(p.polygonal_approx_accuracy_rate > 0) || !(p.polygonal_approx_accuracy_rate < 1))
            return fail(AK_ERR_ARGUMENT, fn, "polygonal_approx_accuracy_rate must be in (0, 1), got %g",
                        p.polygonal_approx_accuracy_rate);
        if (p.adaptive_thresh_win_size_min < 3 || p.adaptive_thresh_win_size_max < p.adaptive_thresh_win_size_min ||
            p.adaptive_thresh_win_size_step <= 0 || p.adaptive_thresh_win_size_max > 1001)
            return fail(AK_ERR_ARGUMENT, fn,
                        "need 3 <= adaptive_thresh_win_size_min (%d) <= adaptive_thresh_win_size_max (%d) <= 1001 and "
                        "adaptive_thresh_win_size_step (%d) > 0",
                        p.adaptive_thresh_win_size_min, p.adaptive_thresh_win_size_max, p.adaptive_thresh_win_size_step);
        if (!(p.error_correction_rate >= 0) || !(p.error_correction_rate <= 1))
            return fail(AK_ERR_ARGUMENT, fn, "error_correction_rate must be in [0, 1], got %g", p.error_correction_rate);

        std::unique_ptr<ak_marker_detector> det(new ak_marker_detector);
        det->dict = dictionary->dict;
        det->params = cv::aruco::DetectorParameters::create();
        cv::aruco::DetectorParameters &d = *det->params;
        switch (p.corner_refinement) {
        case AK_CORNER_REFINE_NONE: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_NONE; break;
        case AK_CORNER_REFINE_SUBPIX: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX; break;
        case AK_CORNER_REFINE_CONTOUR: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_CONTOUR; break;
        case AK_CORNER_REFINE_APRILTAG: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_APRILTAG; break;
        case AK_CORNER_REFINE_TEMPLATE: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX; break;
        }
        d.cornerRefinementWinSize = p.refinement_window;
        det->template_refinement = p.corner_refinement == AK_CORNER_REFINE_TEMPLATE;
        if (p.corner_refinement == AK_CORNER_REFINE_SUBPIX || p.corner_refinement == AK_CORNER_REFINE_TEMPLATE) {
            d.cornerRefinementMaxIterations = 50;
            d.cornerRefinementMinAccuracy = 0.01;
            // OpenCV 4.6 runs cornerSubPix with a fixed window, which for small markers reaches the
            // next marker's corners (up to ~5 px errors on the grid-board photo). We detect without
            // refinement and refine here with OpenCV >= 4.7's rule (see refine_subpix).
            d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_NONE;
            det->subpix = true;
            det->subpix_window = p.refinement_window;
        }
        d.minMarkerPerimeterRate = p.min_marker_perimeter_rate;
        d.maxMarkerPerimeterRate = p.max_marker_perimeter_rate;
        d.polygonalApproxAccuracyRate = p.polygonal_approx_accuracy_rate;
        d.adaptiveThreshWinSizeMin = p.adaptive_thresh_win_size_min;
        d.adaptiveThreshWinSizeMax = p.adaptive_thresh_win_size_max;
        d.adaptiveThreshWinSizeStep = p.adaptive_thresh_win_size_step;
        d.errorCorrectionRate = p.error_correction_rate;
        *out = det.release();
        return AK_OK;
    });
}

void ak_marker_detector_free(ak_marker_detector *detector) { delete detector; }

}  // extern "C"

namespace {

// The markers' ids and unrefined corners, into detector->corners / ids: from AprilTag 3 when the
// detector has one (quads searched at 1 / `decimation` of the resolution; its detections already in
// OpenCV's convention), else from OpenCV's ArUco detector.
void detect_candidates(ak_marker_detector &det, const cv::Mat &gray, double decimation) {
    if (!det.apriltag) {
        cv::aruco::detectMarkers(gray, det.dict, det.corners, det.ids, det.params);
        return;
    }
    detect_apriltags(*det.apriltag, gray, det.tags, decimation);
    for (const ak_apriltag_detection &tag : det.tags) {
        det.ids.push_back(tag.id);
        det.corners.push_back({{tag.corners[0], tag.corners[1]}, {tag.corners[2], tag.corners[3]},
                               {tag.corners[4], tag.corners[5]}, {tag.corners[6], tag.corners[7]}});
    }
}

// Detects in the whole image, or in `region` searched at `scale` times its resolution, then refines
// the corners on the full-resolution image. Results stay in detector->corners / ids. A region is
// upsampled for scale > 1; for scale < 1 AprilTag 3 searches it at full resolution with quads
// decimated by 1 / scale (its edges are fitted at full resolution), OpenCV in an area-averaged copy.
void run_detection(ak_marker_detector &det, const ak_image &image, const cv::Rect *region, double scale) {
    const cv::Mat *gray = &image.mat;
    if (image.mat.channels() == 3) {
        cv::cvtColor(image.mat, det.gray, cv::COLOR_BGR2GRAY);
        gray = &det.gray;
    }
    det.corners.clear();
    det.ids.clear();
    if (!region) {
        detect_candidates(det, *gray, 1);
    } else if (scale < 1 && det.apriltag) {
        detect_candidates(det, (*gray)(*region), 1 / scale);
        for (std::vector<cv::Point2f> &quad : det.corners)
            for (cv::Point2f &c : quad) c += cv::Point2f(static_cast<float>(region->x), static_cast<float>(region->y));
    } else {
        cv::Mat resampled;
        cv::resize((*gray)(*region), resampled, cv::Size(), scale, scale, scale > 1 ? cv::INTER_LINEAR : cv::INTER_AREA);
        detect_candidates(det, resampled, 1);
        // cv::resize maps pixel centres as x_resampled = (x + 0.5) * scale - 0.5.
        for (std::vector<cv::Point2f> &quad : det.corners)
            for (cv::Point2f &c : quad)
                c = cv::Point2f(static_cast<float>((c.x + 0.5) / scale - 0.5 + region->x),
                                static_cast<float>((c.y + 0.5) / scale - 0.5 + region->y));
    }
    if (det.subpix) refine_subpix(det, *gray);
    if (det.template_refinement) {
        refine_edges(det, *gray);
        refine_template(det, *gray);
    }
}

ak_status write_results(const char *fn, const ak_marker_detector &det, ak_marker_detection *detections, int capacity,
                        int *count) {
    const int found = static_cast<int>(det.ids.size());
    if (det.corners.size() != det.ids.size())
        return fail(AK_ERR_INTERNAL, fn, "OpenCV returned %zu corner sets for %d ids", det.corners.size(), found);
    for (int i = 0; i < found && i < capacity; ++i) {
        const std::vector<cv::Point2f> &c = det.corners[static_cast<size_t>(i)];
        if (c.size() != 4) return fail(AK_ERR_INTERNAL, fn, "OpenCV returned a marker with %zu corners", c.size());
        ak_marker_detection &d = detections[i];
        d.id = det.ids[static_cast<size_t>(i)];
        for (int k = 0; k < 4; ++k) {
            d.corners[2 * k] = c[static_cast<size_t>(k)].x;
            d.corners[2 * k + 1] = c[static_cast<size_t>(k)].y;
        }
    }
    *count = found;
    return AK_OK;
}

}  // namespace

extern "C" {

ak_status ak_marker_detector_detect(ak_marker_detector *detector, const ak_image *image,
                                    ak_marker_detection *detections, int capacity, int *count) {
    static const char *fn = "ak_marker_detector_detect";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_detect_arguments(fn, detector, image, detections, capacity, count)) return s;
        // Images are immutable and serials unique: the same serial means the same pixels, so a call
        // repeated with more capacity returns the previous results without detecting again.
        if (image->serial == 0 || image->serial != detector->last_serial) {
            detector->last_serial = 0;
            run_detection(*detector, *image, nullptr, 1);
            detector->last_serial = image->serial;
        }
        return write_results(fn, *detector, detections, capacity, count);
    });
}

ak_status ak_marker_detector_detect_region(ak_marker_detector *detector, const ak_image *image, int x, int y,
                                           int width, int height, double scale, ak_marker_detection *detections,
                                           int capacity, int *count) {
    static const char *fn = "ak_marker_detector_detect_region";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_detect_arguments(fn, detector, image, detections, capacity, count)) return s;
        if (!(scale >= 0.125 && scale <= 8)) return fail(AK_ERR_ARGUMENT, fn, "scale must be in 0.125...8, got %g", scale);
        const cv::Rect region = cv::Rect(x, y, width, height) & cv::Rect(0, 0, image->mat.cols, image->mat.rows);
        detector->last_serial = 0;  // the cached results are no longer the full frame's
        if (region.width < 8 || region.height < 8) return AK_OK;
        run_detection(*detector, *image, &region, scale);
        return write_results(fn, *detector, detections, capacity, count);
    });
}

ak_status ak_marker_detector_refine_template(ak_marker_detector *detector, const ak_image *image, int id,
                                            float corners[8], int *refined) {
    static const char *fn = "ak_marker_detector_refine_template";
    return guarded(fn, [&]() -> ak_status {
        if (refined) *refined = 0;
        if (!detector) return fail(AK_ERR_ARGUMENT, fn, "detector is NULL");
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (!corners || !refined) return fail(AK_ERR_ARGUMENT, fn, "corners or refined is NULL");
        const int count = detector->dict->bytesList.rows;
        if (id < 0 || id >= count) return fail(AK_ERR_ARGUMENT, fn, "marker id %d is not in the dictionary (0...%d)", id, count - 1);
        for (int i = 0; i < 8; ++i)
            if (!std::isfinite(corners[i])) return fail(AK_ERR_ARGUMENT, fn, "corners must be finite");
        const cv::Mat *gray = &image->mat;
        if (image->mat.channels() == 3) {
            cv::cvtColor(image->mat, detector->gray, cv::COLOR_BGR2GRAY);
            gray = &detector->gray;
        }
        std::vector<cv::Point2f> quad(4);
        for (int k = 0; k < 4; ++k) quad[static_cast<size_t>(k)] = cv::Point2f(corners[2 * k], corners[2 * k + 1]);
        // The edges are searched for only for their blur: the alignment starts from the corners given.
        std::vector<cv::Point2f> located = quad;
        cv::Vec2d blur;
        refine_quad_edges(*gray, detector->dict->markerSize + 2 * detector->params->markerBorderBits, located, blur);
        if (!refine_quad_template(*detector, *gray, id, quad, blur)) return AK_OK;
        for (int k = 0; k < 4; ++k) corners[2 * k] = quad[static_cast<size_t>(k)].x, corners[2 * k + 1] = quad[static_cast<size_t>(k)].y;
        *refined = 1;
        return AK_OK;
    });
}

}  // extern "C"
