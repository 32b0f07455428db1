// status.cpp — failures recorded as the thread's last error (anchorkit_last_error.h) and the
// argument checks shared by all files.
#include "internal.hpp"

#include "anchorkit_last_error.h"

#include <opencv2/core/utils/logger.hpp>

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace {

// Every failure reaches the caller as a status and a one-line message, so OpenCV's own log lines
// (warnings from decoders and back ends, printed to stderr) would only repeat or garble them.
// Set when the shim is loaded, before any OpenCV call of ours.
[[maybe_unused]] const bool g_opencv_silenced = [] {
    cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
    return true;
}();

}  // namespace

extern "C" const char *ak_last_error(void) { return ak_recorded_error(); }

namespace akcv {

ak_status fail(ak_status status, const char *fn, const char *fmt, ...) noexcept {
    va_list args;
    va_start(args, fmt);
    ak_record_error(fn ? fn : "anchorkit_cv", fmt, args);
    va_end(args);
    return status;
}

ak_status fail_opencv(const char *fn, const cv::Exception &e) noexcept {
    // cv::Exception::what() is multi-line and starts with the build path; err + func is enough.
    const char *err = e.err.empty() ? e.msg.c_str() : e.err.c_str();
    const char *where = e.func.empty() ? "?" : e.func.c_str();
    return fail(AK_ERR_OPENCV, fn, "OpenCV error %d in %s: %s", e.code, where, err);
}

ak_status check_channels(const char *fn, int channels, bool alpha) noexcept {
    if (channels != 1 && channels != 3 && !(alpha && channels == 4))
        return fail(AK_ERR_ARGUMENT, fn, alpha ? "channels must be 1 (gray), 3 (BGR) or 4 (BGRA), got %d" : "channels must be 1 (gray) or 3 (BGR), got %d", channels);
    return AK_OK;
}

ak_status check_size(const char *fn, int width, int height) noexcept {
    if (width <= 0 || height <= 0)
        return fail(AK_ERR_ARGUMENT, fn, "width and height must be positive, got %dx%d", width, height);
    if (static_cast<int64_t>(width) * height > kMaxPixels)
        return fail(AK_ERR_ARGUMENT, fn, "image too large: %dx%d (limit %lld pixels)", width, height,
                    static_cast<long long>(kMaxPixels));
    return AK_OK;
}

ak_status check_image(const char *fn, const ak_image *image, const char *what, bool alpha) noexcept {
    if (!image) return fail(AK_ERR_ARGUMENT, fn, "%s is NULL", what);
    const int c = image->mat.empty() ? 0 : image->mat.channels();
    if (image->mat.empty() || image->mat.depth() != CV_8U || !(c == 1 || c == 3 || (alpha && c == 4)))
        return fail(AK_ERR_ARGUMENT, fn, alpha ? "%s is not an 8-bit 1-, 3- or 4-channel image" : "%s is not an 8-bit 1- or 3-channel image", what);
    return AK_OK;
}

ak_status check_detect_arguments(const char *fn, const void *detector, const ak_image *image, const void *detections,
                                 int capacity, int *count) noexcept {
    if (count) *count = 0;
    if (!count) return fail(AK_ERR_ARGUMENT, fn, "count is NULL");
    if (!detector) return fail(AK_ERR_ARGUMENT, fn, "detector is NULL");
    if (ak_status s = check_image(fn, image, "image")) return s;
    if (capacity < 0) return fail(AK_ERR_ARGUMENT, fn, "capacity must be >= 0, got %d", capacity);
    if (capacity > 0 && !detections) return fail(AK_ERR_ARGUMENT, fn, "detections is NULL but capacity is %d", capacity);
    return AK_OK;
}

ak_status check_readable_file(const char *fn, const char *path) noexcept {
    if (!path) return fail(AK_ERR_ARGUMENT, fn, "path is NULL");
    if (!*path) return fail(AK_ERR_ARGUMENT, fn, "path is empty");
    struct stat st;
    if (::stat(path, &st) != 0) {
        int err = errno;
        if (err == ENOENT || err == ENOTDIR) return fail(AK_ERR_IO, fn, "no such file: %s", path);
        return fail(AK_ERR_IO, fn, "cannot access %s: %s", path, std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) return fail(AK_ERR_IO, fn, "is a directory, not a file: %s", path);
    std::FILE *f = std::fopen(path, "rb");
    if (!f) {
        int err = errno;
        return fail(AK_ERR_IO, fn, "cannot open %s: %s", path, std::strerror(err));
    }
    std::fclose(f);
    return AK_OK;
}

ak_status check_pinhole(const char *fn, double fx, double fy, double cx, double cy) noexcept {
    if (!std::isfinite(fx) || !std::isfinite(fy) || fx <= 0 || fy <= 0)
        return fail(AK_ERR_ARGUMENT, fn, "fx and fy must be positive and finite, got %g, %g", fx, fy);
    if (!std::isfinite(cx) || !std::isfinite(cy)) return fail(AK_ERR_ARGUMENT, fn, "cx and cy must be finite");
    return AK_OK;
}

ak_status check_camera(const char *fn, const ak_camera *camera) noexcept {
    if (!camera) return fail(AK_ERR_ARGUMENT, fn, "camera is NULL");
    if (ak_status s = check_pinhole(fn, camera->fx, camera->fy, camera->cx, camera->cy)) return s;
    for (double k : camera->distortion)
        if (!std::isfinite(k)) return fail(AK_ERR_ARGUMENT, fn, "distortion coefficients must be finite");
    return AK_OK;
}

}  // namespace akcv
