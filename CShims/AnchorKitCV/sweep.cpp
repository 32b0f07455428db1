// sweep.cpp — plane sweep: per-patch photo-consistency of two views under many plane homographies
// (ak_plane_sweep). Block statistics are block means taken with INTER_AREA resizing at an exact
// integer factor, which averages each block exactly; every hypothesis costs one warp and three
// reductions over the image, whatever the number of blocks.
#include "internal.hpp"

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

cv::Mat block_means(const cv::Mat &m, int columns, int rows) {
    cv::Mat out;
    cv::resize(m, out, cv::Size(columns, rows), 0, 0, cv::INTER_AREA);
    return out;
}

}  // namespace

ak_status ak_plane_sweep(const ak_image *reference, const ak_image *other, const double *homographies, int count,
                         int patch, double min_std, float *scores) {
    static const char *fn = "ak_plane_sweep";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_image(fn, reference, "reference")) return s;
        if (ak_status s = check_image(fn, other, "other")) return s;
        if (!homographies || !scores || count < 0) return fail(AK_ERR_ARGUMENT, fn, "homographies or scores is NULL, or count < 0");
        if (patch < 2) return fail(AK_ERR_ARGUMENT, fn, "patch must be at least 2 pixels");
        const int columns = reference->mat.cols / patch, rows = reference->mat.rows / patch;
        if (columns < 1 || rows < 1) return fail(AK_ERR_ARGUMENT, fn, "the reference is smaller than one patch");
        for (int i = 0; i < 9 * count; ++i)
            if (!std::isfinite(homographies[i])) return fail(AK_ERR_ARGUMENT, fn, "homographies must be finite");

        const cv::Rect tiled(0, 0, columns * patch, rows * patch);
        cv::Mat a, b;
        to_channels(reference->mat, 1)(tiled).convertTo(a, CV_32F);
        to_channels(other->mat, 1).convertTo(b, CV_32F);
        const cv::Mat meanA = block_means(a, columns, rows), meanAA = block_means(a.mul(a), columns, rows);
        const float minVar = static_cast<float>(min_std * min_std);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        cv::Mat warped, product;
        for (int k = 0; k < count; ++k) {
            const cv::Matx33d H(homographies + 9 * k);
            float *out = scores + static_cast<size_t>(k) * rows * columns;
            cv::warpPerspective(b, warped, cv::Mat(H), tiled.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                                cv::BORDER_CONSTANT, cv::Scalar(0));
            cv::multiply(a, warped, product);
            const cv::Mat meanB = block_means(warped, columns, rows), meanAB = block_means(product, columns, rows);
            cv::multiply(warped, warped, product);
            const cv::Mat meanBB = block_means(product, columns, rows);
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < columns; ++c) {
                    float &score = out[r * columns + c];
                    score = nan;
                    if (!block_inside(H, c * patch, r * patch, patch - 1, b.size())) continue;
                    const float ma = meanA.at<float>(r, c), mb = meanB.at<float>(r, c);
                    const float va = meanAA.at<float>(r, c) - ma * ma, vb = meanBB.at<float>(r, c) - mb * mb;
                    if (va < minVar || vb < minVar) continue;
                    score = std::max(-1.0f, std::min(1.0f, (meanAB.at<float>(r, c) - ma * mb) / std::sqrt(va * vb)));
                }
        }
        return AK_OK;
    });
}
