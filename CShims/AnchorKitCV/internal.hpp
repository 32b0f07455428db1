// internal.hpp — private to the AnchorKitCV target: the definitions behind the opaque handles of
// anchorkit_cv.h, and the error-reporting helpers every exported function goes through.
// Nothing here crosses the C boundary.
#ifndef ANCHORKIT_CV_INTERNAL_HPP
#define ANCHORKIT_CV_INTERNAL_HPP

#include "anchorkit_apriltag.h"
#include "anchorkit_cv.h"
#include "binary_lsh.hpp"

#include <opencv2/aruco.hpp>
#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

// ---------------------------------------------------------------- template alignment (template_align.cpp)

namespace akcv {

// A template prepared for align_template (template_align.cpp documents the conventions): the
// pixels where its gradient is strong, each with its row [SD (8), T, 1] of the design matrix.
struct TemplateModel {
    static constexpr int kRowStride = 12;  // 10 values, padded for vector loads
    int width = 0, height = 0;
    int count = 0;                      // samples
    double cx = 0, cy = 0, s = 1;       // u = (x - cx) / s, v = (y - cy) / s
    std::vector<float> u, v;            // normalised sample coordinates
    std::vector<float> rows;            // count x kRowStride
    cv::Matx<double, 10, 10> inverse;   // (A^T A)^-1
    cv::Matx22d brightness;             // the inverse of A^T A's gain-and-offset block
    std::vector<float> gradients;       // prepare_template's scratch, kept for its capacity
    bool translation_only = false;      // only the homography's translation moves (the rest stays)
};
struct TemplateFit {
    bool converged = false;  // a step moved the template's outline less than the tolerance
    int iterations = 0;
    double gain = 0;         // image ~ gain * template + offset, when converged
};
// `smoothed`: the template (CV_32F, continuous), smoothed as the image it will be compared with.
// Samples are the pixels whose gradient is at least `min_gradient_fraction` of the largest. False
// when too few remain or their normal matrix is singular. `model`'s buffers are reused. With
// `translation_only`, align_template moves the template without changing its shape.
bool prepare_template(const cv::Mat &smoothed, double min_gradient_fraction, bool translation_only, TemplateModel &model);
// Refines H (template pixels -> pixels of `image`, CV_8U) in at most `max_iterations`, until a
// step moves the template's outline less than `tolerance` px. H is changed only when the fit
// converges.
TemplateFit align_template(const TemplateModel &model, const cv::Mat &image, cv::Matx33d &H, int max_iterations,
                           double tolerance);

}  // namespace akcv

namespace akcv {

// The buffers a template refinement reuses from marker to marker (one set per thread refining):
// the template's model, its code, its smoothed picture, and the smoothed image crop.
struct TemplateScratch {
    TemplateModel model;
    cv::Mat modules;  // a marker's picture at one pixel per module
    cv::Mat smooth, crop;
    cv::Mat padded;  // the template with its borders replicated, for correlated_gaussian_blur
    std::vector<float> blurred;  // the template blurred along its rows, for blur_along_axes
    std::vector<uint16_t> sums;  // the image crop's sums along its rows, for smooth_binomial
    cv::Mat kept;  // following: the template of the finest stage aligned so far
};

// Where a drawn code template lies: its geometry, and where it was aligned.
struct TemplatePlacement {
    int side = 0, margin = 0;  // template px: the code with its border, and the white quiet zone
    cv::Matx33d H;             // template px -> image px
};

// Template alignment of any square code whose picture is known (marker_refinement.cpp): `code` is
// that picture at one pixel per module (0 black, 255 white; a marker's border or a QR code's
// finder patterns included), `quad` its outer corners (TL, TR, BR, BL, image px).
// The ideal picture, blurred by `blur` (Gaussian sigma per code axis, image px; NaN: unmeasured)
// at the scale of `quad`, aligned to `gray` from `quad`. False, with `quad` unchanged, when the
// alignment does not converge or moves a corner more than `reach` modules. `sigma_cap`: the most
// template blur allowed (template px). `blur_as_image`: a blur about as wide across both pairs of
// sides is taken as the same in every image direction, and a sheared quad's template is blurred
// with its axes correlated (the refinement); otherwise along the code's axes alone (following's
// coarse stages, whose blur is in modules). On success `fit` (when not null) gets the template's
// geometry for template_correlation. `least_module_pixels`: the fewest template pixels a module has
// (a smaller module is upsampled to it).
bool align_code_template(const cv::Mat &code, TemplateScratch &scratch, const cv::Mat &gray, std::vector<cv::Point2f> &quad,
                         cv::Vec2d blur, double sigma_cap, double reach, double tolerance, bool translation_only,
                         bool blur_as_image, double least_module_pixels, TemplatePlacement *fit);
// The detection refinement: no corner may move more than half a module. `still`: for an unrelated
// still photo (coarser templates of small codes: ak_marker_params.still_photos).
bool refine_code_template(const cv::Mat &code, TemplateScratch &scratch, const cv::Mat &gray, std::vector<cv::Point2f> &quad,
                          cv::Vec2d blur, TemplatePlacement *fit, bool still = false);
// Pearson correlation between a template `t` (CV_32F) placed by `fit` and the image under it,
// over the template pixels (every `stride`-th each way) that fall inside the image; NaN when
// fewer than a third do.
double template_correlation(const cv::Mat &t, const cv::Mat &gray, const TemplatePlacement &fit, int stride = 1);
// Follows a code from predicted corners: its template moved, then aligned coarse to fine, then
// `refine` (the detection refinement from there). The correlation of the finest template that
// aligned with the image, `quad` replaced; NaN (quad unchanged) when none did.
double follow_code(const cv::Mat &code, TemplateScratch &scratch, const cv::Mat &gray, std::vector<cv::Point2f> &quad,
                   const std::function<bool(std::vector<cv::Point2f> &, TemplatePlacement *)> &refine);

}  // namespace akcv

// ---------------------------------------------------------------- handles

// An 8-bit image, 1 or 3 channels (4, BGRA with straight alpha, for overlay textures), always continuous. Images are immutable once handed out
// (ak_image_pixels gives a const pointer), so `serial` — unique for the life of the process —
// identifies the pixels, e.g. for the renderer's texture cache.
struct ak_image {
    cv::Mat mat;
    uint64_t serial = 0;
};

struct ak_dictionary {
    cv::Ptr<cv::aruco::Dictionary> dict;
    int predefined = -1;  // cv::aruco::PREDEFINED_DICTIONARY_NAME, or -1 for a custom dictionary
};

struct ak_marker_detector {
    cv::Ptr<cv::aruco::Dictionary> dict;           // shared with the ak_dictionary it came from
    cv::Ptr<cv::aruco::DetectorParameters> params;  // SUBPIX is done here, not by OpenCV (see markers.cpp)
    bool subpix = false;
    bool template_refinement = false;               // edges, then the ideal marker aligned (template_align.cpp)
    bool template_correlation = false;              // ... and its correlation with the image measured
    bool still_photos = false;                      // ... for unrelated photos (ak_marker_params.still_photos)
    int subpix_window = 5;                          // the largest half-size; adapted per marker
    cv::Mat gray;                                   // reused BGR->gray buffer
    std::vector<std::vector<cv::Point2f>> corners;  // reused outputs
    std::vector<int> ids;
    // Template refinement (markers.cpp): per marker the blur of its edges across its x and y axes
    // (Gaussian sigma, px; NaN when unmeasured), and buffers reused from marker to marker.
    std::vector<cv::Vec2d> edge_blur;
    std::vector<float> correlations;  // per marker, of its template refinement (NaN: none)
    akcv::TemplateScratch scratch;
    // Above 1, the markers of one image are refined on OpenCV's threads (their refinements are
    // independent).
    int refinement_threads = 1;
    uint64_t last_serial = 0;  // image of the results above: a retry with more capacity reuses them
    // Set for DICT_APRILTAG_* when AprilTag 3 finds the candidates instead of cv::aruco (apriltag.cpp).
    std::unique_ptr<ak_apriltag_detector, void (*)(ak_apriltag_detector *)> apriltag{nullptr, ak_apriltag_detector_free};
    std::vector<ak_apriltag_detection> tags;  // reused AprilTag 3 output
    ak_marker_profile profile{};              // time per stage (ak_marker_detector_profile)
};

// ---------------------------------------------------------------- marker refinement (marker_refinement.cpp)
namespace akcv {
// In place on det.corners (ids in det.ids), on the full-resolution gray image: OpenCV >= 4.7's
// sub-pixel corners (refine_subpix); or (refine_markers) each marker's sub-pixel corners (when
// det.subpix), its border lines fitted to sub-pixel edges (also measuring its edge blur into
// det.edge_blur), then its ideal picture aligned, marker by marker on det.refinement_threads.
// refine_markers returns the time spent in each of those three steps, summed over the markers and
// threads (s): a split of the pass's wall time for the profile.
void refine_subpix(ak_marker_detector &det, const cv::Mat &gray);
cv::Vec3d refine_markers(ak_marker_detector &det, const cv::Mat &gray);
// Template refinement of one marker from the corners given (TL, TR, BR, BL); false (quad unchanged)
// when it does not converge within half a module.
bool refine_template_from(ak_marker_detector &det, const cv::Mat &gray, int id, std::vector<cv::Point2f> &quad);
// Follows marker `id` from predicted corners (ak_marker_detector_follow): the correlation of the
// aligned template with the image, quad replaced; NaN (quad unchanged) when the alignment fails.
double follow_marker(ak_marker_detector &det, const cv::Mat &gray, int id, std::vector<cv::Point2f> &quad);
}  // namespace akcv

// ---------------------------------------------------------------- QR refinement (qr_refinement.cpp)
namespace akcv {
// Modules per side of the QR code whose corners (TL, TR, BR, BL) are roughly `quad`, measured along
// each finder pattern's diagonal; 0 when fewer than two finder patterns read as one.
int estimate_qr_modules(const cv::Mat &gray, const cv::Point2f quad[4]);
// `quad` replaced by the homography fitted to the finder patterns' sub-pixel corners (true) or left
// as it is (false: too small, too few corners, a poor fit, or a corner moved further than
// `max_shift_modules` modules).
bool refine_qr(const cv::Mat &gray, int modules, cv::Point2f quad[4], double max_shift_modules);
// The picture of the n-module QR code at `quad`, one pixel per module (0 black, 255 white): its
// function patterns as the standard draws them, every other module sampled at its centre and
// thresholded halfway between the finder patterns' black and white. False when the finder patterns
// show too little contrast.
bool sample_qr_code(const cv::Mat &gray, int n, const cv::Point2f quad[4], cv::Mat &code);
}  // namespace akcv
struct ak_video_reader {
    cv::VideoCapture cap;
    cv::Mat first;           // the frame decoded by open() to check decodability
    bool has_first = false;  // returned by the first read()
};

struct ak_video_writer {
    cv::VideoWriter writer;
    cv::Size size;
    cv::Mat bgr;  // reused gray->BGR buffer
};

struct ak_renderer {
    int width = 0, height = 0, channels = 0, ss = 1;
    // Both buffers hold values relative to the background: a pixel no layer touches stays 0, so an
    // instant costs in proportion to its layers' footprint, not to the canvas size.
    cv::Mat accum;        // CV_32FC(channels), (width*ss) x (height*ss): sum of instants - background
    cv::Rect accum_dirty; // where accum may be non-zero (the union of the bands drawn since begin)
    cv::Mat canvas;       // one instant - background; all zeros between instants
    bool canvas_dirty = false;  // an instant failed midway: zero the canvas before the next one
    cv::Mat warped;       // scratch for one layer's warped texture (canvas-sized, used via ROI headers)
    int instants = 0;
    bool begun = false;
    double background = 0;
    cv::Mat background_image;  // CV_8UC(channels): begun over a picture (else empty: `background`)
    cv::Mat warped_alpha;      // scratch like `warped`, channels + 1 (premultiplied colour, alpha)
    uint64_t frame = 0;   // incremented by begin(); drives cache eviction

    // Pre-filtered float copies of textures, converted to `channels` (plus alpha, premultiplied,
    // for BGRA textures: filtering straight alpha would bleed hidden colours), keyed by ak_image::serial.
    // Per texture: levels keyed by (kx, ky) = log2 of the downscale factor along u and v.
    struct TextureEntry {
        uint64_t last_frame = 0;
        std::map<std::pair<int, int>, cv::Mat> levels;
        size_t bytes = 0;
    };
    std::unordered_map<uint64_t, TextureEntry> textures;
    size_t texture_bytes = 0;

    // finish() scratch
    cv::Mat mean, small, noise, vignette;
    double vignette_amount = -1;
};

// Keypoints and their ORB descriptors: descriptors is keypoints.size() x 32 CV_8U, continuous
// (empty when there are no keypoints).
struct ak_features {
    std::vector<cv::KeyPoint> keypoints;
    cv::Mat descriptors;
};

// The descriptors of every reference stacked in one matrix; row r belongs to reference i where
// offsets[i] <= r < offsets[i + 1] (offsets has count + 1 entries; empty references are allowed).
struct ak_feature_index {
    ak_index_kind kind = AK_INDEX_BRUTE_FORCE;
    cv::Mat descriptors;                 // total x 32 CV_8U (the LSH tables index it in place)
    std::vector<int> offsets;
    std::unique_ptr<akcv::BinaryLsh> lsh;  // LSH (null when there are no descriptors)
};

// A pyramid from cv::buildOpticalFlowPyramid with derivatives (2 Mats per level: image, then
// its Scharr derivatives as CV_16SC2), for calcOpticalFlowPyrLK.
struct ak_flow_pyramid {
    std::vector<cv::Mat> pyramid;
    cv::Size size;   // of level 0
    int window = 0;  // LK window side, px
    int levels = 0;  // maxLevel actually built (may be fewer than asked for small images)
};

// A reference prepared for sparse inverse-compositional alignment (align.cpp). Sample k sits at
// reference pixel (u, v) = (cx + s * un[k], cy + s * vn[k]); normalised coordinates keep the
// 8 homography parameters of similar magnitude.
struct ak_aligner {
    int width = 0, height = 0;
    double cx = 0, cy = 0, s = 1;
    std::vector<float> un, vn;   // normalised sample coordinates
    std::vector<float> value;    // the smoothed reference at each sample (gray levels)
    std::vector<float> descent;  // 8 steepest-descent entries per sample (gray levels per parameter)
};

// ---------------------------------------------------------------- helpers

namespace akcv {

// Adds the wall-clock time from its construction to stop() (or to the end of its scope) to
// `total`, in seconds: a handle's time profile (ak_marker_detector_profile, ak_code_reader_profile).
class StageTimer {
public:
    explicit StageTimer(double &total) : total_(&total), start_(std::chrono::steady_clock::now()) {}
    StageTimer(const StageTimer &) = delete;
    StageTimer &operator=(const StageTimer &) = delete;
    ~StageTimer() { stop(); }

    void stop() {
        if (!total_) return;
        *total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        total_ = nullptr;
    }

private:
    double *total_;
    std::chrono::steady_clock::time_point start_;
};


// Hard limit on image areas accepted as arguments (width * height).
constexpr int64_t kMaxPixels = 100LL * 1000 * 1000;
// Arrays of points larger than this are refused as arguments (a corrupt count, not a workload).
constexpr int kMaxPoints = 10 * 1000 * 1000;

// Records "<fn>: <formatted message>" as this thread's last error (newlines flattened, never
// allocates, never throws) and returns `status`.
#if defined(__GNUC__) || defined(__clang__)
#define AKCV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define AKCV_PRINTF(f, a)
#endif
AKCV_PRINTF(3, 4) ak_status fail(ak_status status, const char *fn, const char *fmt, ...) noexcept;

// The message recorded for a cv::Exception: code, err and OpenCV function, on one line.
ak_status fail_opencv(const char *fn, const cv::Exception &e) noexcept;

// Runs `body` (returning ak_status) and turns every C++ exception into a status + message.
template <class Body>
ak_status guarded(const char *fn, Body &&body) noexcept {
    try {
        return body();
    } catch (const cv::Exception &e) {
        return fail_opencv(fn, e);
    } catch (const std::bad_alloc &) {
        return fail(AK_ERR_INTERNAL, fn, "out of memory (std::bad_alloc)");
    } catch (const std::exception &e) {
        return fail(AK_ERR_INTERNAL, fn, "C++ exception: %s", e.what());
    } catch (...) {
        return fail(AK_ERR_INTERNAL, fn, "unknown C++ exception");
    }
}

// Argument checks; each returns AK_OK or records the failure.
// `alpha`: 4 channels (BGRA) are accepted too (images that are only read, written or painted).
ak_status check_channels(const char *fn, int channels, bool alpha = false) noexcept;
ak_status check_size(const char *fn, int width, int height) noexcept;  // > 0 and <= kMaxPixels
ak_status check_image(const char *fn, const ak_image *image, const char *what, bool alpha = false) noexcept;
// The arguments of a detect call (markers, tags): *count set to 0, a detector, an image, and room
// for `capacity` results at `detections`.
ak_status check_detect_arguments(const char *fn, const void *detector, const ak_image *image, const void *detections,
                                 int capacity, int *count) noexcept;
// A path that names an existing, readable regular file: AK_ERR_IO otherwise.
ak_status check_readable_file(const char *fn, const char *path) noexcept;

// Pinhole intrinsics: positive finite focal lengths, a finite principal point; a camera: those and
// finite distortion coefficients.
ak_status check_pinhole(const char *fn, double fx, double fy, double cx, double cy) noexcept;
ak_status check_camera(const char *fn, const ak_camera *camera) noexcept;

// The integer in a C enum argument, read without loading it as the enum type: the caller (C,
// Swift) may pass any int, and a C++ load of a value outside the enumerators' range is undefined.
template <class E>
int enum_value(const E &e) noexcept {
    static_assert(std::is_enum<E>::value, "enum_value takes an enum");
    std::underlying_type_t<E> v;
    std::memcpy(&v, &e, sizeof v);
    return static_cast<int>(v);
}

// The caller's parameters, or the defaults when it passed NULL.
template <class Params> Params given_or_default(const Params *given, void (*defaults)(Params *)) {
    Params p;
    if (given) p = *given; else defaults(&p);
    return p;
}

// SplitMix64 (Steele, Lea and Flood): a well-mixed 64-bit value from `state`. As a generator, the
// state advances by kSplitMixIncrement per draw; as a hash, it turns a seed into an RNG state.
constexpr uint64_t kSplitMixIncrement = 0x9E3779B97F4A7C15ull;
inline uint64_t splitmix64(uint64_t state) noexcept {
    uint64_t x = state + kSplitMixIncrement;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// True when all 9 entries of a row-major 3x3 matrix are finite.
inline bool finite9(const double h[9]) noexcept {
    for (int i = 0; i < 9; ++i)
        if (!std::isfinite(h[i])) return false;
    return true;
}

// A homography divided by h22 (when it is usable), so that stored homographies are comparable.
inline bool normalised(const cv::Matx33d &in, cv::Matx33d &out) {
    const double s = in(2, 2);
    if (!std::isfinite(s) || std::abs(s) < 1e-12) return false;
    out = in * (1.0 / s);
    return cv::checkRange(out);
}

// The weighted total least squares line through `points` (weights > 0): it passes through their
// weighted centroid along the principal direction of their weighted scatter, at `angle` radians
// from +x (in (-pi/2, pi/2]). The edges of markers (marker_refinement.cpp) and the joined pieces
// of straight edges (lines.cpp) are fitted with it.
struct WeightedLine {
    cv::Point2d centre;
    double angle;
};
template <class Point>
WeightedLine fit_weighted_line(const std::vector<Point> &points, const std::vector<double> &weights) {
    double sw = 0, mx = 0, my = 0;
    for (size_t i = 0; i < points.size(); ++i) sw += weights[i], mx += weights[i] * points[i].x, my += weights[i] * points[i].y;
    mx /= sw, my /= sw;
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < points.size(); ++i) {
        const double dx = points[i].x - mx, dy = points[i].y - my;
        sxx += weights[i] * dx * dx, sxy += weights[i] * dx * dy, syy += weights[i] * dy * dy;
    }
    return {cv::Point2d(mx, my), 0.5 * std::atan2(2 * sxy, sxx - syy)};
}

// The 8-parameter warp of the inverse-compositional aligners (align.cpp, template_align.cpp), on
// normalised coordinates: W(p) = [[1 + p0, p2, p4], [p1, 1 + p3, p5], [p6, p7, 1]], W(0) = I.
inline cv::Matx33d warp_of(const double p[8]) {
    return cv::Matx33d(1 + p[0], p[2], p[4], p[1], 1 + p[3], p[5], p[6], p[7], 1);
}

// The corners of a width x height reference (pixel centres (0,0) ... (w-1,h-1), clockwise from
// the top-left) mapped by H: false unless all four are in front (w > 0) and finite (homography.cpp).
bool reference_quad(const cv::Matx33d &H, int width, int height, cv::Point2d quad[4]);

// Where an alignment of a reference whose corners land on `quad` samples an image of `image`
// size: the quad's bounding box plus a margin for the fit to move in (max(8, 10 %) px), clipped
// to the image. False when the quad is degenerate (area under 16 px²) or the crop under 8 px a
// side. `area` gets the quad's area, `box` its unclipped bounding box (homography.cpp).
bool footprint_crop(const cv::Point2d quad[4], cv::Size image, cv::Rect &crop, double &area, cv::Rect2d &box);

// What an image file's header states, read without decoding (imagefile.cpp). `complete` is false
// for a JPEG whose end-of-image marker is missing.
struct ImageHeader {
    const char *format = nullptr;  // "PNG", "JPEG", "TIFF", ...; null when not recognised
    long long width = -1, height = -1;
    bool complete = true;
};
enum class HeaderCheck { ok, unreadable, unknown_format, bad_header };
// The format and pixel size of PNG, JPEG, TIFF (and BigTIFF), BMP, WebP, PNM/PFM, PAM and Sun
// raster files, OpenCV's readers whose headers state a size.
HeaderCheck read_image_header(const char *path, ImageHeader &header);
// False (with the problem written to `problem`) for a PNG with a missing chunk or a CRC error, or
// a JPEG that is cut short or whose data libjpeg finds corrupt; true for other formats.
bool image_file_is_whole(const char *path, const ImageHeader &header, char *problem, size_t capacity);

// The tags AprilTag 3 finds in an 8-bit gray image, converted to AnchorKit's convention (see
// anchorkit_apriltag.h), into `tags` (cleared first), quads searched at 1 / `decimation` of the
// resolution or the detector's own decimation if larger (apriltag.cpp).
void detect_apriltags(ak_apriltag_detector &detector, const cv::Mat &gray, std::vector<ak_apriltag_detection> &tags,
                      double decimation);

// `image` (8-bit gray or BGR) as gray: itself when it is gray, else converted into `buffer` (a
// handle's reused buffer) and that returned.
inline const cv::Mat &gray_of(const cv::Mat &image, cv::Mat &buffer) {
    if (image.channels() != 3) return image;
    cv::cvtColor(image, buffer, cv::COLOR_BGR2GRAY);
    return buffer;
}

// Bilinear intensity of an 8-bit gray image at a sub-pixel position (pixel centres at integers),
// the position clamped to the image.
inline double sample_gray(const cv::Mat &gray, double x, double y) {
    x = std::min(std::max(x, 0.0), gray.cols - 1.001);
    y = std::min(std::max(y, 0.0), gray.rows - 1.001);
    const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
    const double fx = x - x0, fy = y - y0;
    const uchar *r0 = gray.ptr<uchar>(y0), *r1 = gray.ptr<uchar>(y0 + 1);
    return (1 - fy) * ((1 - fx) * r0[x0] + fx * r0[x0 + 1]) + fy * ((1 - fx) * r1[x0] + fx * r1[x0 + 1]);
}

// Wraps a Mat (made continuous) into a new handle with a fresh serial.
ak_image *make_image(cv::Mat mat);

// `src` (8-bit, 1, 3 or 4 channels) converted to `channels` (1, 3 or 4: BGRA, opaque when `src`
// has no alpha); shares data when nothing changes.
cv::Mat to_channels(const cv::Mat &src, int channels);

}  // namespace akcv

#endif
