// image.cpp — 8-bit gray/BGR (and BGRA overlay) images: decode, create, convert, resize, blur,
// encode.
#include "internal.hpp"

#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>

namespace akcv {

namespace {
std::atomic<uint64_t> g_next_serial{1};
// The longest motion blur ak_image_motion_blur makes (px): its kernel grows with the square.
constexpr double kMaxMotionBlur = 256;
}

ak_image *make_image(cv::Mat mat) {
    if (!mat.isContinuous()) mat = mat.clone();
    ak_image *image = new ak_image;
    image->mat = std::move(mat);
    image->serial = g_next_serial.fetch_add(1, std::memory_order_relaxed);
    return image;
}

cv::Mat to_channels(const cv::Mat &src, int channels) {
    if (src.channels() == channels) return src;
    static const int codes[5][5] = {
        {}, {0, 0, 0, cv::COLOR_GRAY2BGR, cv::COLOR_GRAY2BGRA}, {},
        {0, cv::COLOR_BGR2GRAY, 0, 0, cv::COLOR_BGR2BGRA}, {0, cv::COLOR_BGRA2GRAY, 0, cv::COLOR_BGRA2BGR, 0}};
    cv::Mat out;
    cv::cvtColor(src, out, codes[src.channels()][channels]);
    return out;
}

// An existing image file in a format whose header states a usable size (at most kMaxPixels):
// checked before imread, which would allocate the whole image first.
ak_status check_image_file(const char *fn, const char *path, ImageHeader &header) {
    if (ak_status s = check_readable_file(fn, path)) return s;
    switch (read_image_header(path, header)) {
    case HeaderCheck::unreadable: return fail(AK_ERR_IO, fn, "cannot open %s", path);
    case HeaderCheck::unknown_format:
        return fail(AK_ERR_DECODE, fn, "not an image in a supported format (PNG, JPEG, TIFF, BMP, WebP, PNM, PAM, Sun raster): %s", path);
    case HeaderCheck::bad_header: return fail(AK_ERR_DECODE, fn, "corrupt %s header: %s", header.format, path);
    case HeaderCheck::ok: break;
    }
    const long long w = header.width, h = header.height;
    if (w <= 0 || h <= 0 || w > kMaxPixels || h > kMaxPixels || w * h > kMaxPixels)
        return fail(AK_ERR_ARGUMENT, fn, "image too large or empty: %lldx%lld (limit %lld pixels): %s", w, h,
                    static_cast<long long>(kMaxPixels), path);
    return AK_OK;
}

}  // namespace akcv

using namespace akcv;

extern "C" {

ak_status ak_image_read(const char *path, int channels, ak_image **out) {
    static const char *fn = "ak_image_read";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_channels(fn, channels, true)) return s;
        ImageHeader header;
        if (ak_status s = check_image_file(fn, path, header)) return s;
        char problem[256];
        if (!image_file_is_whole(path, header, problem, sizeof problem))
            return fail(AK_ERR_DECODE, fn, "%s: %s", problem, path);
        // With alpha: whatever the file holds (gray, BGR, BGRA; 16-bit scaled to 8), then BGRA.
        cv::Mat mat = cv::imread(path, channels == 1 ? cv::IMREAD_GRAYSCALE
                                       : channels == 3 ? cv::IMREAD_COLOR : cv::IMREAD_UNCHANGED);
        if (mat.empty()) return fail(AK_ERR_DECODE, fn, "cannot decode image: %s", path);
        if (channels == 4) {
            if (mat.depth() == CV_16U) mat.convertTo(mat, CV_8U, 1.0 / 257);
            if (mat.depth() == CV_8U && mat.channels() != 4 && (mat.channels() == 1 || mat.channels() == 3))
                mat = to_channels(mat, 4);
        }
        if (static_cast<long long>(mat.cols) * mat.rows > kMaxPixels)
            return fail(AK_ERR_ARGUMENT, fn, "image too large: %dx%d (limit %lld pixels): %s", mat.cols, mat.rows,
                        static_cast<long long>(kMaxPixels), path);
        if (mat.depth() != CV_8U || mat.channels() != channels)
            return fail(AK_ERR_DECODE, fn, "unexpected decoded format for %s", path);
        *out = make_image(std::move(mat));
        return AK_OK;
    });
}

ak_status ak_image_probe(const char *path, int *width, int *height) {
    static const char *fn = "ak_image_probe";
    return guarded(fn, [&]() -> ak_status {
        if (!width || !height) return fail(AK_ERR_ARGUMENT, fn, "width or height is NULL");
        ImageHeader header;
        if (ak_status s = check_image_file(fn, path, header)) return s;
        *width = static_cast<int>(header.width);
        *height = static_cast<int>(header.height);
        return AK_OK;
    });
}

ak_status ak_image_create(int width, int height, int channels, const uint8_t *data, size_t stride,
                          uint8_t fill, ak_image **out) {
    static const char *fn = "ak_image_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_channels(fn, channels, true)) return s;
        if (ak_status s = check_size(fn, width, height)) return s;
        const size_t row_bytes = static_cast<size_t>(width) * static_cast<size_t>(channels);
        if (data && stride < row_bytes)
            return fail(AK_ERR_ARGUMENT, fn, "stride %zu is smaller than a row (%zu bytes)", stride, row_bytes);
        cv::Mat mat(height, width, CV_8UC(channels));
        if (data) {
            for (int y = 0; y < height; ++y)
                std::memcpy(mat.ptr(y), data + static_cast<size_t>(y) * stride, row_bytes);
        } else {
            mat.setTo(cv::Scalar::all(fill));
        }
        *out = make_image(std::move(mat));
        return AK_OK;
    });
}

void ak_image_free(ak_image *image) { delete image; }

void ak_image_info(const ak_image *image, int *width, int *height, int *channels) {
    if (width) *width = image ? image->mat.cols : 0;
    if (height) *height = image ? image->mat.rows : 0;
    if (channels) *channels = image ? image->mat.channels() : 0;
}

const uint8_t *ak_image_pixels(const ak_image *image, size_t *stride) {
    if (stride) *stride = image ? image->mat.step[0] : 0;
    return image ? image->mat.data : nullptr;
}

ak_status ak_image_convert(const ak_image *image, int channels, ak_image **out) {
    static const char *fn = "ak_image_convert";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_image(fn, image, "image", true)) return s;
        if (ak_status s = check_channels(fn, channels, true)) return s;
        cv::Mat converted = to_channels(image->mat, channels);
        // to_channels shares the data when nothing changes: the result must be a copy.
        if (converted.data == image->mat.data) converted = converted.clone();
        *out = make_image(std::move(converted));
        return AK_OK;
    });
}

ak_status ak_image_linear_mean(const ak_image *image, double rgb[3]) {
    static const char *fn = "ak_image_linear_mean";
    return guarded(fn, [&]() -> ak_status {
        if (!rgb) return fail(AK_ERR_ARGUMENT, fn, "rgb is NULL");
        if (ak_status s = check_image(fn, image, "image")) return s;
        static const std::array<double, 256> linear = [] {
            std::array<double, 256> table{};
            for (int v = 0; v < 256; ++v) {
                const double c = v / 255.0;
                table[static_cast<size_t>(v)] = c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
            }
            return table;
        }();
        const cv::Mat &m = image->mat;
        const int channels = m.channels(), step = std::max(1, std::max(m.cols, m.rows) / 160);
        double sum[3] = {0, 0, 0};
        long long samples = 0;
        for (int y = step / 2; y < m.rows; y += step) {
            const uint8_t *row = m.ptr<uint8_t>(y);
            for (int x = step / 2; x < m.cols; x += step) {
                const uint8_t *p = row + static_cast<size_t>(x) * channels;
                // OpenCV's order is B, G, R (A ignored); gray is all three.
                const uint8_t r = channels >= 3 ? p[2] : p[0], g = channels >= 3 ? p[1] : p[0], b = p[0];
                sum[0] += linear[r], sum[1] += linear[g], sum[2] += linear[b];
                ++samples;
            }
        }
        for (int c = 0; c < 3; ++c) rgb[c] = samples > 0 ? sum[c] / static_cast<double>(samples) : 0.0;
        return AK_OK;
    });
}

ak_status ak_image_resize(const ak_image *image, int width, int height, ak_image **out) {
    static const char *fn = "ak_image_resize";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (ak_status s = check_size(fn, width, height)) return s;
        const cv::Mat &src = image->mat;
        cv::Mat dst;
        const bool shrink_x = width < src.cols, shrink_y = height < src.rows;
        const bool grow_x = width > src.cols, grow_y = height > src.rows;
        if (!shrink_x && !shrink_y && !grow_x && !grow_y) {
            dst = src.clone();
        } else if ((shrink_x || shrink_y) && (grow_x || grow_y)) {
            // Shrinks one axis and grows the other: area-average the shrinking axis first, then
            // interpolate the growing one, so that neither axis aliases nor blocks.
            cv::Mat half;
            cv::resize(src, half, cv::Size(shrink_x ? width : src.cols, shrink_y ? height : src.rows), 0, 0,
                       cv::INTER_AREA);
            cv::resize(half, dst, cv::Size(width, height), 0, 0, cv::INTER_LINEAR);
        } else {
            cv::resize(src, dst, cv::Size(width, height), 0, 0,
                       (shrink_x || shrink_y) ? cv::INTER_AREA : cv::INTER_LINEAR);
        }
        *out = make_image(std::move(dst));
        return AK_OK;
    });
}

ak_status ak_image_warp_perspective(const ak_image *image, const double h[9], int width, int height, ak_image **out) {
    static const char *fn = "ak_image_warp_perspective";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (ak_status s = check_size(fn, width, height)) return s;
        if (!h) return fail(AK_ERR_ARGUMENT, fn, "h is NULL");
        for (int k = 0; k < 9; ++k)
            if (!std::isfinite(h[k])) return fail(AK_ERR_ARGUMENT, fn, "h must be finite");
        cv::Mat dst;
        cv::warpPerspective(image->mat, dst, cv::Mat(3, 3, CV_64F, const_cast<double *>(h)), cv::Size(width, height),
                            cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, cv::Scalar::all(128));
        *out = make_image(std::move(dst));
        return AK_OK;
    });
}

ak_status ak_image_motion_blur(const ak_image *image, double dx, double dy, ak_image **out) {
    static const char *fn = "ak_image_motion_blur";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_image(fn, image, "image")) return s;
        const double length = std::hypot(dx, dy);
        if (!std::isfinite(length) || length > kMaxMotionBlur)
            return fail(AK_ERR_ARGUMENT, fn, "the blur must be finite and at most %g px, got (%g, %g)", kMaxMotionBlur, dx, dy);
        // The segment's points, a quarter pixel apart, each splatted bilinearly into the kernel.
        const int half = static_cast<int>(std::ceil(length / 2)) + 1;
        cv::Mat kernel = cv::Mat::zeros(2 * half + 1, 2 * half + 1, CV_32F);
        const int steps = std::max(1, static_cast<int>(std::ceil(4 * length)));
        for (int k = 0; k <= steps; ++k) {
            const double t = length > 0 ? static_cast<double>(k) / steps - 0.5 : 0;
            const double x = half + t * dx, y = half + t * dy;
            const int x0 = static_cast<int>(std::floor(x)), y0 = static_cast<int>(std::floor(y));
            const float fx = static_cast<float>(x - x0), fy = static_cast<float>(y - y0);
            kernel.at<float>(y0, x0) += (1 - fx) * (1 - fy);
            kernel.at<float>(y0, x0 + 1) += fx * (1 - fy);
            kernel.at<float>(y0 + 1, x0) += (1 - fx) * fy;
            kernel.at<float>(y0 + 1, x0 + 1) += fx * fy;
        }
        kernel /= cv::sum(kernel)[0];
        cv::Mat dst;
        cv::filter2D(image->mat, dst, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
        *out = make_image(std::move(dst));
        return AK_OK;
    });
}

ak_status ak_image_write(const ak_image *image, const char *path) {
    static const char *fn = "ak_image_write";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_image(fn, image, "image", true)) return s;
        if (!path || !*path) return fail(AK_ERR_ARGUMENT, fn, "path is NULL or empty");
        if (!cv::haveImageWriter(path))
            return fail(AK_ERR_ARGUMENT, fn, "no image encoder for the extension of %s", path);
        if (!cv::imwrite(path, image->mat)) return fail(AK_ERR_IO, fn, "cannot write %s", path);
        return AK_OK;
    });
}

}  // extern "C"
