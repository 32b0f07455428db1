// sweep.cpp — plane sweep: per-patch photo-consistency of two views under many plane homographies
// (ak_plane_sweep). Every hypothesis costs one pass over the blocks it can score.
#include "../AnchorKitCV/internal.hpp"
#include "anchorkit_sweep.h"

#include <limits>

using namespace akcv;

namespace {

// True when all four corners of the block map in front of the other camera and inside its image:
// a homography maps the (convex) block to a convex quadrilateral when no corner crosses w = 0.
bool block_inside(const cv::Matx33d &H, double x0, double y0, double side, const cv::Size &other) {
    const double xs[2] = {x0, x0 + side}, ys[2] = {y0, y0 + side};
    for (double x : xs)
        for (double y : ys) {
            const double w = H(2, 0) * x + H(2, 1) * y + H(2, 2);
            if (!(w > 1e-9)) return false;
            const double u = (H(0, 0) * x + H(0, 1) * y + H(0, 2)) / w, v = (H(1, 0) * x + H(1, 1) * y + H(1, 2)) / w;
            if (!(u >= 0 && v >= 0 && u <= other.width - 1 && v <= other.height - 1)) return false;
        }
    return true;
}

// Adds one row of a block to its sums: `patch` pixels of the reference row `p` from x0, and
// the other image `b` sampled bilinearly where H takes them. Across a block H is affine to far
// below a pixel: the row's ends are mapped exactly, the pixels between by linear steps.
void accumulate_row(const float *p, const cv::Mat &b, const cv::Matx33d &H, int x0, int y, int patch, float &sb,
                    float &sbb, float &sab) {
    const int maxX = b.cols - 1, maxY = b.rows - 1;
    const double w0 = H(2, 0) * x0 + H(2, 1) * y + H(2, 2), w1 = w0 + H(2, 0) * (patch - 1);
    const double u0 = (H(0, 0) * x0 + H(0, 1) * y + H(0, 2)) / w0, v0 = (H(1, 0) * x0 + H(1, 1) * y + H(1, 2)) / w0;
    const double u1 = (H(0, 0) * (x0 + patch - 1) + H(0, 1) * y + H(0, 2)) / w1;
    const double v1 = (H(1, 0) * (x0 + patch - 1) + H(1, 1) * y + H(1, 2)) / w1;
    const float du = static_cast<float>((u1 - u0) / (patch - 1)), dv = static_cast<float>((v1 - v0) / (patch - 1));
    float u = static_cast<float>(u0), v = static_cast<float>(v0);
    for (int x = x0; x < x0 + patch; ++x, u += du, v += dv) {
        const int iu = std::min(std::max(static_cast<int>(u), 0), maxX), iv = std::min(std::max(static_cast<int>(v), 0), maxY);
        const float fu = u - iu, fv = v - iv;
        const int ju = std::min(iu + 1, maxX);
        const float *r0 = b.ptr<float>(iv), *r1 = b.ptr<float>(std::min(iv + 1, maxY));
        const float top = r0[iu] + fu * (r0[ju] - r0[iu]), bottom = r1[iu] + fu * (r1[ju] - r1[iu]);
        const float w = top + fv * (bottom - top);
        sb += w, sbb += w * w, sab += p[x] * w;
    }
}

// Zero-mean NCC from a block's sums over `area` pixels (reference mean and variance given); NaN
// when the other side's variance is under `min_var`.
float correlation(double sumB, double sumBB, double sumAB, double area, double meanA, double varA, double min_var) {
    const double mb = sumB / area, vb = sumBB / area - mb * mb;
    if (vb < min_var) return std::numeric_limits<float>::quiet_NaN();
    const double covariance = sumAB / area - meanA * mb;
    return static_cast<float>(std::max(-1.0, std::min(1.0, covariance / std::sqrt(varA * vb))));
}

// The arguments both entry points share: two images, `count` >= 0 finite homographies, a patch of
// 2 pixels or more.
ak_status check_pair(const char *fn, const ak_image *reference, const ak_image *other, const double *homographies,
                     int count, int patch) {
    if (ak_status s = check_image(fn, reference, "reference")) return s;
    if (ak_status s = check_image(fn, other, "other")) return s;
    if (count < 0 || patch < 2) return fail(AK_ERR_ARGUMENT, fn, "count must be >= 0 and patch >= 2");
    if (count > 0 && !homographies) return fail(AK_ERR_ARGUMENT, fn, "homographies is NULL");
    for (int k = 0; k < count; ++k)
        if (!finite9(homographies + 9 * k)) return fail(AK_ERR_ARGUMENT, fn, "homographies must be finite");
    return AK_OK;
}

// The reference's gray levels as float, cropped to `size`.
cv::Mat as_float(const ak_image *image, cv::Size size) {
    cv::Mat out;
    to_channels(image->mat, 1)(cv::Rect(cv::Point(0, 0), size)).convertTo(out, CV_32F);
    return out;
}

}  // namespace

ak_status ak_plane_sweep(const ak_image *reference, const ak_image *other, const double *homographies, int count,
                         int patch, double min_std, float *scores) {
    static const char *fn = "ak_plane_sweep";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_pair(fn, reference, other, homographies, count, patch)) return s;
        if (count > 0 && !scores) return fail(AK_ERR_ARGUMENT, fn, "scores is NULL");
        const int columns = reference->mat.cols / patch, rows = reference->mat.rows / patch;
        if (columns < 1 || rows < 1) return fail(AK_ERR_ARGUMENT, fn, "the reference is smaller than one patch");

        const cv::Rect tiled(0, 0, columns * patch, rows * patch);
        const cv::Mat a = as_float(reference, tiled.size()), b = as_float(other, other->mat.size());
        const int blocks = rows * columns;
        const double area = static_cast<double>(patch) * patch;
        // The reference's block means and variances, once.
        std::vector<double> meanA(blocks, 0), varA(blocks, 0);
        for (int y = 0; y < a.rows; ++y) {
            const float *p = a.ptr<float>(y);
            for (int x = 0; x < a.cols; ++x) {
                const int k = (y / patch) * columns + x / patch;
                meanA[k] += p[x], varA[k] += static_cast<double>(p[x]) * p[x];
            }
        }
        for (int k = 0; k < blocks; ++k) meanA[k] /= area, varA[k] = varA[k] / area - meanA[k] * meanA[k];
        const double minVar = min_std * min_std;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::vector<uint8_t> inside(blocks);
        std::vector<double> sumB(blocks), sumBB(blocks), sumAB(blocks);
        for (int h = 0; h < count; ++h) {
            const cv::Matx33d H(homographies + 9 * h);
            float *out = scores + static_cast<size_t>(h) * blocks;
            std::fill(out, out + blocks, nan);
            // Blocks that map partly outside the other view (or behind it: the sky above a
            // floor's horizon) are not scored; nor are flat ones.
            int first = rows, last = -1;
            for (int k = 0; k < blocks; ++k) {
                inside[k] = varA[k] >= minVar && block_inside(H, (k % columns) * patch, (k / columns) * patch, patch - 1, b.size());
                if (inside[k]) first = std::min(first, k / columns), last = std::max(last, k / columns);
            }
            if (last < first) continue;
            std::fill(sumB.begin(), sumB.end(), 0.0);
            std::fill(sumBB.begin(), sumBB.end(), 0.0);
            std::fill(sumAB.begin(), sumAB.end(), 0.0);
            // Each scored block's pixels, sampled bilinearly in the other image where H takes
            // them (all inside it: block_inside), in one pass (a general warp of the whole image
            // costs several times more).
            for (int y = first * patch; y < (last + 1) * patch; ++y) {
                const int row = (y / patch) * columns;
                for (int c = 0; c < columns; ++c) {
                    if (!inside[row + c]) continue;
                    float sb = 0, sbb = 0, sab = 0;
                    accumulate_row(a.ptr<float>(y), b, H, c * patch, y, patch, sb, sbb, sab);
                    sumB[row + c] += sb, sumBB[row + c] += sbb, sumAB[row + c] += sab;
                }
            }
            for (int k = 0; k < blocks; ++k)
                if (inside[k]) out[k] = correlation(sumB[k], sumBB[k], sumAB[k], area, meanA[k], varA[k], minVar);
        }
        return AK_OK;
    });
}

ak_status ak_block_scores(const ak_image *reference, const ak_image *other, const int *corners, const double *homographies,
                          int count, int patch, double min_std, float *scores) {
    static const char *fn = "ak_block_scores";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_pair(fn, reference, other, homographies, count, patch)) return s;
        if (count > 0 && (!corners || !scores)) return fail(AK_ERR_ARGUMENT, fn, "corners or scores is NULL");
        const cv::Mat a = as_float(reference, reference->mat.size()), b = as_float(other, other->mat.size());
        const double area = static_cast<double>(patch) * patch, minVar = min_std * min_std;
        for (int k = 0; k < count; ++k) {
            const int x0 = corners[2 * k], y0 = corners[2 * k + 1];
            const cv::Matx33d H(homographies + 9 * k);
            scores[k] = std::numeric_limits<float>::quiet_NaN();
            if (x0 < 0 || y0 < 0 || x0 + patch > a.cols || y0 + patch > a.rows || !block_inside(H, x0, y0, patch - 1, b.size()))
                continue;
            double sa = 0, saa = 0;
            float sb = 0, sbb = 0, sab = 0;
            for (int y = y0; y < y0 + patch; ++y) {
                const float *p = a.ptr<float>(y);
                for (int x = x0; x < x0 + patch; ++x) sa += p[x], saa += static_cast<double>(p[x]) * p[x];
                accumulate_row(p, b, H, x0, y, patch, sb, sbb, sab);
            }
            const double meanA = sa / area, varA = saa / area - meanA * meanA;
            if (varA >= minVar) scores[k] = correlation(sb, sbb, sab, area, meanA, varA, minVar);
        }
        return AK_OK;
    });
}
