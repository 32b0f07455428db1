// flow.cpp — pyramidal Lucas-Kanade tracking of sparse points between consecutive frames, with a
// forward-backward consistency check.
#include "internal.hpp"

#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace akcv;

namespace {

constexpr int kMinWindow = 3, kMaxWindow = 255, kMaxLevels = 16;
// A point tracked forward then back from its new position must land within this distance (px) of
// where it started, or it is reported lost.
constexpr double kMaxForwardBackwardError = 1.0;

const cv::TermCriteria kCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 30, 0.01);

}  // namespace

extern "C" {

ak_status ak_flow_pyramid_build(const ak_image *image, int window, int levels, ak_flow_pyramid **out) {
    static const char *fn = "ak_flow_pyramid_build";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (window < kMinWindow || window > kMaxWindow)
            return fail(AK_ERR_ARGUMENT, fn, "window must be in %d...%d, got %d", kMinWindow, kMaxWindow, window);
        if (levels < 0 || levels > kMaxLevels)
            return fail(AK_ERR_ARGUMENT, fn, "levels must be in 0...%d, got %d", kMaxLevels, levels);
        std::unique_ptr<ak_flow_pyramid> p(new ak_flow_pyramid);
        const cv::Mat gray = to_channels(image->mat, 1);
        const int built = cv::buildOpticalFlowPyramid(gray, p->pyramid, cv::Size(window, window), levels, true);
        if (built < 0 || p->pyramid.size() < 2 * static_cast<size_t>(built + 1))
            return fail(AK_ERR_INTERNAL, fn, "OpenCV built %zu pyramid images for %d levels", p->pyramid.size(), built);
        p->size = gray.size();
        p->window = window;
        p->levels = built;
        *out = p.release();
        return AK_OK;
    });
}

void ak_flow_pyramid_free(ak_flow_pyramid *pyramid) { delete pyramid; }

ak_status ak_flow_track(const ak_flow_pyramid *previous, const ak_flow_pyramid *next, const float *points, int count,
                        float *tracked, int use_guesses, uint8_t *status, float *error) {
    static const char *fn = "ak_flow_track";
    return guarded(fn, [&]() -> ak_status {
        if (!previous || !next) return fail(AK_ERR_ARGUMENT, fn, "previous or next is NULL");
        if (count < 0 || count > kMaxPoints) return fail(AK_ERR_ARGUMENT, fn, "count must be in 0...%d, got %d", kMaxPoints, count);
        if (count == 0) return AK_OK;
        if (!points || !tracked || !status) return fail(AK_ERR_ARGUMENT, fn, "points, tracked or status is NULL");
        if (previous->size != next->size)
            return fail(AK_ERR_ARGUMENT, fn, "the pyramids are of different images: %dx%d and %dx%d", previous->size.width,
                        previous->size.height, next->size.width, next->size.height);
        if (previous->window != next->window)
            return fail(AK_ERR_ARGUMENT, fn, "the pyramids were built for different windows: %d and %d", previous->window,
                        next->window);
        if (use_guesses != 0 && use_guesses != 1) return fail(AK_ERR_ARGUMENT, fn, "use_guesses must be 0 or 1, got %d", use_guesses);

        // Copies first: `tracked` may alias `points`.
        std::vector<cv::Point2f> from(static_cast<size_t>(count)), to(static_cast<size_t>(count)), guess;
        for (int i = 0; i < count; ++i) {
            from[static_cast<size_t>(i)] = cv::Point2f(points[2 * i], points[2 * i + 1]);
            if (!std::isfinite(points[2 * i]) || !std::isfinite(points[2 * i + 1]))
                return fail(AK_ERR_ARGUMENT, fn, "point coordinates must be finite (point %d)", i);
            if (use_guesses) {
                to[static_cast<size_t>(i)] = cv::Point2f(tracked[2 * i], tracked[2 * i + 1]);
                if (!std::isfinite(tracked[2 * i]) || !std::isfinite(tracked[2 * i + 1]))
                    return fail(AK_ERR_ARGUMENT, fn, "initial guesses must be finite (point %d)", i);
            }
        }
        if (use_guesses) guess = to;
        const cv::Size win(previous->window, previous->window);
        const int levels = std::min(previous->levels, next->levels);
        std::vector<uchar> st;
        std::vector<float> err;
        cv::calcOpticalFlowPyrLK(previous->pyramid, next->pyramid, from, to, st, err, win, levels, kCriteria,
                                 use_guesses ? cv::OPTFLOW_USE_INITIAL_FLOW : 0);
        if (st.size() != from.size() || to.size() != from.size() || err.size() != from.size())
            return fail(AK_ERR_INTERNAL, fn, "calcOpticalFlowPyrLK returned %zu results for %d points", st.size(), count);

        // Forward-backward check on the points found: track them back from `next` to `previous`.
        // With guesses, the backward pass starts from the guessed motion reversed (the prior, not
        // the answer): without it, a motion too large for the pyramid would fail only backwards.
        std::vector<int> found;
        std::vector<cv::Point2f> fwd, back;
        for (int i = 0; i < count; ++i) {
            const size_t k = static_cast<size_t>(i);
            if (!st[k]) continue;
            found.push_back(i);
            fwd.push_back(to[k]);
            if (use_guesses) back.push_back(to[k] - (guess[k] - from[k]));
        }
        if (!found.empty()) {
            std::vector<uchar> st_back;
            std::vector<float> err_back;
            cv::calcOpticalFlowPyrLK(next->pyramid, previous->pyramid, fwd, back, st_back, err_back, win, levels, kCriteria,
                                     use_guesses ? cv::OPTFLOW_USE_INITIAL_FLOW : 0);
            if (st_back.size() != fwd.size() || back.size() != fwd.size())
                return fail(AK_ERR_INTERNAL, fn, "calcOpticalFlowPyrLK returned %zu results for %zu points", st_back.size(), fwd.size());
            for (size_t k = 0; k < found.size(); ++k) {
                const size_t i = static_cast<size_t>(found[k]);
                const cv::Point2f d = back[k] - from[i];
                if (!st_back[k] || !(std::sqrt(d.x * d.x + d.y * d.y) <= kMaxForwardBackwardError)) st[i] = 0;
            }
        }
        for (int i = 0; i < count; ++i) {
            const size_t k = static_cast<size_t>(i);
            tracked[2 * i] = to[k].x;
            tracked[2 * i + 1] = to[k].y;
            status[i] = st[k] ? 1 : 0;
            if (error) error[i] = err[k];
        }
        return AK_OK;
    });
}

}  // extern "C"
