// lines.cpp — straight line segments (OpenCV's Line Segment Detector) with the gray level on
// either side of each, for edges where surfaces meet (a wall's foot on a plain floor).
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

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

// Collinear pieces joined into one edge (merge_collinear): where the detector breaks a faint edge
// at every crossing line (a wall's foot at each tile joint: pieces of 30-40 px, 5 px apart), the
// pieces are at least this long (px; shorter ones are texture), point the same way (within this
// angle, so the same side is dark), lie within this distance of the growing edge's line and
// leave at most this gap between them, and see the same two shades beside them (each side's
// strip mean within this many gray levels of the first piece's: one surface meeting another, not
// a box's edge continued by a texture's line).
constexpr float kMergePieceMin = 10.f, kMergeAngleDeg = 2.f, kMergeOffset = 1.5f, kMergeGap = 10.f, kMergeShade = 10.f;

struct Piece {
    cv::Point2f a, b;
    float length;
    // The strip means beside it (strip_mean), measured when a join is first weighed.
    bool measured = false;
    float left = -1, right = -1;

    void measure(const cv::Mat &gray) {
        if (measured) return;
        const cv::Point2f d = (b - a) / length, n(d.y, -d.x);
        left = strip_mean(gray, a, b, n), right = strip_mean(gray, a, b, -n);
        measured = true;
    }
};

// Longest first; ties by position, so that an order never depends on the detector's.
bool longer_first(const Piece &x, const Piece &y) {
    if (x.length != y.length) return x.length > y.length;
    return std::tie(x.a.x, x.a.y, x.b.x, x.b.y) < std::tie(y.a.x, y.a.y, y.b.x, y.b.y);
}

// Joins the pieces of `lines` that continue one another (see kMergeGap): longest first, each
// edge grows along its first piece's line by every piece that meets the conditions, until none
// does, and becomes the line fitted to its pieces' ends (weighted by their lengths), from the
// first end's projection to the last. Pieces shorter than kMergePieceMin are left as they are.
std::vector<Piece> merge_collinear(const cv::Mat &gray, const std::vector<cv::Vec4f> &lines) {
    std::vector<Piece> pieces, merged;
    for (const cv::Vec4f &l : lines) {
        const Piece p{{l[0], l[1]}, {l[2], l[3]}, std::hypot(l[2] - l[0], l[3] - l[1])};
        (p.length >= kMergePieceMin ? pieces : merged).push_back(p);
    }
    std::sort(pieces.begin(), pieces.end(), longer_first);
    const float cos_max = std::cos(kMergeAngleDeg * static_cast<float>(CV_PI) / 180);
    std::vector<char> used(pieces.size(), 0);
    std::vector<size_t> members;
    for (size_t i = 0; i < pieces.size(); ++i) {
        if (used[i]) continue;
        used[i] = 1;
        const cv::Point2f o = pieces[i].a, d = (pieces[i].b - pieces[i].a) / pieces[i].length, n(-d.y, d.x);
        float lo = 0, hi = pieces[i].length;
        members.assign(1, i);
        for (bool grew = true; grew;) {
            grew = false;
            for (size_t j = i + 1; j < pieces.size(); ++j) {
                Piece &p = pieces[j];
                if (used[j] || (p.b - p.a).dot(d) < cos_max * p.length) continue;
                if (std::abs((p.a - o).dot(n)) > kMergeOffset || std::abs((p.b - o).dot(n)) > kMergeOffset) continue;
                const float s0 = (p.a - o).dot(d), s1 = (p.b - o).dot(d);
                if (std::max(std::min(s0, s1) - hi, lo - std::max(s0, s1)) > kMergeGap) continue;
                pieces[i].measure(gray), p.measure(gray);
                if (std::abs(p.left - pieces[i].left) > kMergeShade || std::abs(p.right - pieces[i].right) > kMergeShade) continue;
                used[j] = 1;
                members.push_back(j);
                lo = std::min(lo, std::min(s0, s1)), hi = std::max(hi, std::max(s0, s1));
                grew = true;
            }
        }
        if (members.size() == 1) {
            merged.push_back(pieces[i]);
            continue;
        }
        // The line through the pieces' ends, each end weighted by its piece's length.
        std::vector<cv::Point2f> ends;
        std::vector<double> weights;
        for (size_t k : members)
            for (const cv::Point2f &q : {pieces[k].a, pieces[k].b}) ends.push_back(q), weights.push_back(pieces[k].length);
        const WeightedLine line = fit_weighted_line(ends, weights);
        cv::Point2f e(static_cast<float>(std::cos(line.angle)), static_cast<float>(std::sin(line.angle)));
        if (e.dot(d) < 0) e = -e;
        const cv::Point2f centre(static_cast<float>(line.centre.x), static_cast<float>(line.centre.y));
        float first = std::numeric_limits<float>::max(), last = -first;
        for (size_t k : members)
            for (const cv::Point2f &q : {pieces[k].a, pieces[k].b}) first = std::min(first, (q - centre).dot(e)), last = std::max(last, (q - centre).dot(e));
        merged.push_back({centre + e * first, centre + e * last, last - first});
    }
    return merged;
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
        std::vector<Piece> kept;
        for (const Piece &p : merge_collinear(gray, lines))
            if (p.length >= min_length) kept.push_back(p);
        std::sort(kept.begin(), kept.end(), longer_first);
        const int n = std::min(capacity, static_cast<int>(kept.size()));
        for (int i = 0; i < n; ++i) {
            Piece &p = kept[static_cast<size_t>(i)];
            p.measure(gray);
            out[i] = {p.a.x, p.a.y, p.b.x, p.b.y, p.left, p.right};
        }
        *count = n;
        return AK_OK;
    });
}

}  // extern "C"
