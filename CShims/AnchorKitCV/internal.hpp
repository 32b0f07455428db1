// internal.hpp — private to the AnchorKitCV target: the definitions behind the opaque handles of
// anchorkit_cv.h, and the error-reporting helpers every exported function goes through.
// Nothing here crosses the C boundary.
#ifndef ANCHORKIT_CV_INTERNAL_HPP
#define ANCHORKIT_CV_INTERNAL_HPP

#include "anchorkit_cv.h"

#include <opencv2/aruco.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

// ---------------------------------------------------------------- handles

// An 8-bit image, 1 or 3 channels, always continuous. Images are immutable once handed out
// (ak_image_pixels gives a const pointer), so `serial` — unique for the life of the process —
// identifies the pixels, e.g. for the renderer's texture cache.
struct ak_image {
    cv::Mat mat;
    uint64_t serial = 0;
};

struct ak_dictionary {
    cv::Ptr<cv::aruco::Dictionary> dict;
};

struct ak_marker_detector {
    cv::Ptr<cv::aruco::Dictionary> dict;           // shared with the ak_dictionary it came from
    cv::Ptr<cv::aruco::DetectorParameters> params;  // SUBPIX is done here, not by OpenCV (see markers.cpp)
    bool subpix = false;
    bool template_refinement = false;               // edges, then ECC against the ideal marker
    int subpix_window = 5;                          // the largest half-size; adapted per marker
    cv::Mat gray;                                   // reused BGR->gray buffer
    std::vector<std::vector<cv::Point2f>> corners;  // reused outputs
    std::vector<int> ids;
    uint64_t last_serial = 0;  // image of the results above: a retry with more capacity reuses them
};

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
    cv::Mat canvas;       // one instant - background; all zeros between instants
    bool canvas_dirty = false;  // an instant failed midway: zero the canvas before the next one
    cv::Mat warped;       // scratch for one layer's warped texture (canvas-sized, used via ROI headers)
    int instants = 0;
    bool begun = false;
    double background = 0;
    uint64_t frame = 0;   // incremented by begin(); drives cache eviction

    // Pre-filtered float copies of textures, converted to `channels`, keyed by ak_image::serial.
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

// ---------------------------------------------------------------- helpers

namespace akcv {

// Hard limit on image areas accepted as arguments (width * height).
constexpr int64_t kMaxPixels = 100LL * 1000 * 1000;

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
ak_status check_channels(const char *fn, int channels) noexcept;
ak_status check_size(const char *fn, int width, int height) noexcept;  // > 0 and <= kMaxPixels
ak_status check_image(const char *fn, const ak_image *image, const char *what) noexcept;
// A path that names an existing, readable regular file: AK_ERR_IO otherwise.
ak_status check_readable_file(const char *fn, const char *path) noexcept;

// Wraps a Mat (made continuous) into a new handle with a fresh serial.
ak_image *make_image(cv::Mat mat);

// `src` (8-bit, 1 or 3 channels) converted to `channels`; shares data when nothing changes.
cv::Mat to_channels(const cv::Mat &src, int channels);

}  // namespace akcv

#endif
