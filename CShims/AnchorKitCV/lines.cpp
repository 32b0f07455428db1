// lines.cpp — straight line segments (OpenCV's Line Segment Detector) with the gray level on
// either side of each, for edges where surfaces meet (a wall's foot on a plain floor).
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

using namespace akcv;

namespace {

constexpr int kMaxCapacity = 1000 * 1000;
// The strips whose mean gray level is measured on either side of a segment: from 3 px off it
// (past the edge's own blur) to 8 px.
constexpr float kStripNear = 3.f, kStripFar = 8.f;

// Mean gray level of the strip beside segment a-b on the side of unit normal n.
float strip_mean(const cv::Mat &gray, cv::Point2f a, cv::Point2f b, cv::Point2f n) {
    const float length = static_cast<float>(cv::norm(b - a));
    const int along = std::max(2, static_cast<int>(length / 2));
    double sum = 0;
    int count = 0;
    for (int i = 0; i <= along; ++i) {
        const cv::Point2f p = a + (b - a) * (static_cast<float>(i) / along);
        for (float d = kStripNear; d <= kStripFar; d += 1.f) {
            const int x = cvRound(p.x + n.x * d), y = cvRound(p.y + n.y * d);
            if (x < 0 || y < 0 || x >= gray.cols || y >= gray.rows) continue;
            sum += gray.at<uint8_t>(y, x);
            ++count;
        }
    }
    return count > 0 ? static_cast<float>(sum / count) : -1.f;
}

}  // namespace

extern "C" {

ak_status ak_line_segments(const ak_image *image, float min_length, ak_line_segment *out, int capacity, int *count) {
    static const char *fn = "ak_line_segments";
    return guarded(fn, [&]() -> ak_status {
        if (!count) return fail(AK_ERR_ARGUMENT, fn, "count is NULL");
        *count = 0;
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (capacity < 0 || capacity > kMaxCapacity) return fail(AK_ERR_ARGUMENT, fn, "capacity must be in 0...%d, got %d", kMaxCapacity, capacity);
        if (capacity > 0 && !out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        if (!std::isfinite(min_length) || min_length < 0) return fail(AK_ERR_ARGUMENT, fn, "min_length must be >= 0");
        cv::Mat buffer;
        const cv::Mat &gray = gray_of(image->mat, buffer);
        std::vector<cv::Vec4f> lines;
        cv::createLineSegmentDetector(cv::LSD_REFINE_STD)->detect(gray, lines);
        std::vector<std::pair<float, cv::Vec4f>> kept;
        for (const cv::Vec4f &l : lines) {
            const float length = std::hypot(l[2] - l[0], l[3] - l[1]);
            if (length >= min_length) kept.push_back({length, l});
        }
        // Longest first; ties by position, so that the order never depends on the detector's.
        std::sort(kept.begin(), kept.end(), [](const auto &a, const auto &b) {
            if (a.first != b.first) return a.first > b.first;
            return std::lexicographical_compare(a.second.val, a.second.val + 4, b.second.val, b.second.val + 4);
        });
        const int n = std::min(capacity, static_cast<int>(kept.size()));
        for (int i = 0; i < n; ++i) {
            const cv::Vec4f &l = kept[i].second;
            const cv::Point2f a(l[0], l[1]), b(l[2], l[3]);
            const cv::Point2f d = (b - a) / kept[i].first, left(d.y, -d.x);
            out[i] = {l[0], l[1], l[2], l[3], strip_mean(gray, a, b, left), strip_mean(gray, a, b, -left)};
        }
        *count = n;
        return AK_OK;
    });
}

}  // extern "C"
