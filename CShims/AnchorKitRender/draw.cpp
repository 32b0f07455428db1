// draw.cpp — anti-aliased strokes and text over frames (debug views), and label cards (overlay
// content that is a coloured quad with text).

// The shim's private definitions (ak_image, guarded calls): this target extends AnchorKitCV.
#include "../AnchorKitCV/internal.hpp"
#include "anchorkit_render.h"

#include <algorithm>
#include <string>

using namespace akcv;

namespace {

constexpr int kShift = 4;  // fixed-point bits: OpenCV's drawing takes sub-pixel positions this way
constexpr double kOne = 1 << kShift;
constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;

cv::Point fixed(double x, double y) {
    // Clamped so that far-away points (a ray nearly parallel to the image plane) cannot overflow.
    const double limit = 1e6;
    return {static_cast<int>(std::lround(std::clamp(x, -limit, limit) * kOne)),
            static_cast<int>(std::lround(std::clamp(y, -limit, limit) * kOne))};
}

// The Hershey fonts draw printable ASCII only: every other character (a UTF-8 sequence of 2-4
// bytes, or a control byte) becomes one '?'.
std::string printable(const char *text) {
    std::string s;
    for (const char *p = text ? text : ""; *p; ++p) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if ((c & 0xC0) == 0x80) continue;  // a continuation byte: its character is already a '?'
        s.push_back(c >= 32 && c <= 126 ? static_cast<char>(c) : '?');
    }
    return s;
}

// Font scale and stroke thickness for capitals `height` px tall.
void font_for(double height, double &scale, int &thickness) {
    thickness = std::max(1, static_cast<int>(std::lround(height / 10)));
    scale = cv::getFontScaleFromHeight(kFont, std::max(1, static_cast<int>(std::lround(height))), thickness);
}

}  // namespace

extern "C" {

ak_status ak_image_draw(const ak_image *image, const ak_stroke *strokes, int stroke_count, const ak_label *labels,
                        int label_count, ak_image **out) {
    static const char *fn = "ak_image_draw";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (stroke_count < 0 || (stroke_count > 0 && !strokes)) return fail(AK_ERR_ARGUMENT, fn, "bad strokes");
        if (label_count < 0 || (label_count > 0 && !labels)) return fail(AK_ERR_ARGUMENT, fn, "bad labels");
        for (int i = 0; i < stroke_count; ++i) {
            const ak_stroke &k = strokes[i];
            if (k.count < 1 || !k.points) return fail(AK_ERR_ARGUMENT, fn, "stroke %d has no points", i);
            if (!(k.thickness > 0 && k.thickness < 1000)) return fail(AK_ERR_ARGUMENT, fn, "stroke %d: thickness %g", i, k.thickness);
            for (int j = 0; j < 2 * k.count; ++j)
                if (!std::isfinite(k.points[j])) return fail(AK_ERR_ARGUMENT, fn, "stroke %d: point %d is not finite", i, j / 2);
        }
        for (int i = 0; i < label_count; ++i) {
            const ak_label &l = labels[i];
            if (!(std::isfinite(l.x) && std::isfinite(l.y) && l.height > 0 && l.height < 1000))
                return fail(AK_ERR_ARGUMENT, fn, "label %d: bad position or height", i);
        }
        cv::Mat canvas = to_channels(image->mat, 3).clone();
        for (int i = 0; i < stroke_count; ++i) {
            const ak_stroke &k = strokes[i];
            const cv::Scalar colour(k.bgr[0], k.bgr[1], k.bgr[2]);
            if (k.count == 1) {
                const int radius = std::max(1, static_cast<int>(std::lround(k.thickness * kOne / 2)));
                cv::circle(canvas, fixed(k.points[0], k.points[1]), radius, colour, cv::FILLED, cv::LINE_AA, kShift);
                continue;
            }
            std::vector<cv::Point> line;
            for (int j = 0; j < k.count; ++j) line.push_back(fixed(k.points[2 * j], k.points[2 * j + 1]));
            const int width = std::max(1, static_cast<int>(std::lround(k.thickness)));
            cv::polylines(canvas, line, k.closed != 0, colour, width, cv::LINE_AA, kShift);
        }
        for (int i = 0; i < label_count; ++i) {
            const ak_label &l = labels[i];
            const std::string text = printable(l.text);
            if (text.empty()) continue;
            double scale;
            int thickness, baseline = 0;
            font_for(l.height, scale, thickness);
            const cv::Point origin(static_cast<int>(std::lround(l.x)), static_cast<int>(std::lround(l.y)));
            if (l.backdrop) {
                const cv::Size size = cv::getTextSize(text, kFont, scale, thickness, &baseline);
                const int pad = std::max(2, size.height / 4);
                cv::Rect box(origin.x - pad, origin.y - size.height - pad, size.width + 2 * pad, size.height + baseline + 2 * pad);
                box &= cv::Rect(0, 0, canvas.cols, canvas.rows);
                if (box.area() > 0) {
                    cv::Mat part = canvas(box);
                    part.convertTo(part, -1, 0.4);  // darken to 40 %
                }
            }
            cv::putText(canvas, text, origin, kFont, scale, cv::Scalar(l.bgr[0], l.bgr[1], l.bgr[2]), thickness, cv::LINE_AA);
        }
        *out = make_image(std::move(canvas));
        return AK_OK;
    });
}

ak_status ak_image_card(int width, int height, const uint8_t bgra[4], const char *label, ak_image **out) {
    static const char *fn = "ak_image_card";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (!bgra) return fail(AK_ERR_ARGUMENT, fn, "bgra is NULL");
        if (ak_status s = check_size(fn, width, height)) return s;
        cv::Mat card(height, width, CV_8UC4, cv::Scalar(bgra[0], bgra[1], bgra[2], bgra[3]));
        const std::string text = printable(label);
        if (!text.empty()) {
            // Rec. 601 luma of the fill decides black or white text.
            const double luma = 0.114 * bgra[0] + 0.587 * bgra[1] + 0.299 * bgra[2];
            const cv::Scalar ink = luma > 140 ? cv::Scalar(0, 0, 0, 255) : cv::Scalar(255, 255, 255, 255);
            // The largest capitals height whose line fits 85 % of the width and 60 % of the height.
            double scale;
            int thickness, baseline = 0;
            double h = 0.6 * height;
            font_for(h, scale, thickness);
            cv::Size size = cv::getTextSize(text, kFont, scale, thickness, &baseline);
            if (size.width > 0.85 * width) {
                h *= 0.85 * width / size.width;
                font_for(h, scale, thickness);
                size = cv::getTextSize(text, kFont, scale, thickness, &baseline);
            }
            const cv::Point origin((width - size.width) / 2, (height + size.height) / 2);
            cv::putText(card, text, origin, kFont, scale, ink, thickness, cv::LINE_AA);
        }
        *out = make_image(std::move(card));
        return AK_OK;
    });
}

}  // extern "C"
