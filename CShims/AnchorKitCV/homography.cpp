// homography.cpp — homographies of planar targets: robust estimation from correspondences, ECC
// refinement against the reference image, a photometric check, and the pose from a planar target.
#include "internal.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace akcv;

namespace {

int to_cv_method(int method) {
    switch (method) {
    case AK_ROBUST_RANSAC: return cv::RANSAC;
    case AK_ROBUST_LMEDS: return cv::LMEDS;
    case AK_ROBUST_RHO: return cv::RHO;
    case AK_ROBUST_USAC_DEFAULT: return cv::USAC_DEFAULT;
    case AK_ROBUST_USAC_FAST: return cv::USAC_FAST;
    case AK_ROBUST_USAC_ACCURATE: return cv::USAC_ACCURATE;
    case AK_ROBUST_USAC_MAGSAC: return cv::USAC_MAGSAC;
    case AK_ROBUST_LEAST_SQUARES: return 0;
    }
    return -1;
}

// Reference pixels (x, y) of `size` whose image H (x, y, 1) lies in front (the same side of the
// vanishing line as the reference's centre) and inside [0, cols-1] x [0, rows-1].
cv::Mat valid_mask(const cv::Matx33d &H, cv::Size size, cv::Size image) {
    cv::Mat mask(size, CV_8U, cv::Scalar(0));
    const double cx = 0.5 * (size.width - 1), cy = 0.5 * (size.height - 1);
    const double wc = H(2, 0) * cx + H(2, 1) * cy + H(2, 2);
    if (!(std::abs(wc) > 1e-12)) return mask;
    const double sign = wc > 0 ? 1.0 : -1.0;
    const double xmax = image.width - 1, ymax = image.height - 1;
    for (int y = 0; y < size.height; ++y) {
        uchar *m = mask.ptr<uchar>(y);
        for (int x = 0; x < size.width; ++x) {
            const double w = H(2, 0) * x + H(2, 1) * y + H(2, 2);
            if (!(w * sign > 1e-12)) continue;
            const double u = (H(0, 0) * x + H(0, 1) * y + H(0, 2)) / w;
            const double v = (H(1, 0) * x + H(1, 1) * y + H(1, 2)) / w;
            if (u >= 0 && u <= xmax && v >= 0 && v <= ymax) m[x] = 1;
        }
    }
    return mask;
}

}  // namespace

namespace akcv {

bool reference_quad(const cv::Matx33d &H, int width, int height, cv::Point2d quad[4]) {
    const double rw = width - 1, rh = height - 1;
    const cv::Point2d model[4] = {{0, 0}, {rw, 0}, {rw, rh}, {0, rh}};
    for (int k = 0; k < 4; ++k) {
        const cv::Vec3d p = H * cv::Vec3d(model[k].x, model[k].y, 1);
        if (!(p[2] > 1e-9)) return false;  // behind the camera or on the vanishing line
        quad[k] = cv::Point2d(p[0] / p[2], p[1] / p[2]);
        if (!std::isfinite(quad[k].x) || !std::isfinite(quad[k].y) || std::abs(quad[k].x) > 1e7 || std::abs(quad[k].y) > 1e7)
            return false;
    }
    return true;
}

bool footprint_crop(const cv::Point2d quad[4], cv::Size image, cv::Rect &crop, double &area, cv::Rect2d &box) {
    area = 0;
    double x0 = quad[0].x, x1 = x0, y0 = quad[0].y, y1 = y0;
    for (int k = 0; k < 4; ++k) {
        area += quad[k].x * quad[(k + 1) % 4].y - quad[(k + 1) % 4].x * quad[k].y;
        x0 = std::min(x0, quad[k].x), x1 = std::max(x1, quad[k].x);
        y0 = std::min(y0, quad[k].y), y1 = std::max(y1, quad[k].y);
    }
    area = std::abs(area) / 2;
    box = cv::Rect2d(x0, y0, x1 - x0, y1 - y0);
    if (area < 16) return false;
    const double margin = std::max(8.0, 0.1 * std::max(x1 - x0, y1 - y0));
    const int cx0 = std::max(0, static_cast<int>(std::floor(x0 - margin)));
    const int cy0 = std::max(0, static_cast<int>(std::floor(y0 - margin)));
    const int cx1 = std::min(image.width, static_cast<int>(std::ceil(x1 + margin)) + 1);
    const int cy1 = std::min(image.height, static_cast<int>(std::ceil(y1 + margin)) + 1);
    if (cx1 - cx0 < 8 || cy1 - cy0 < 8) return false;
    crop = cv::Rect(cx0, cy0, cx1 - cx0, cy1 - cy0);
    return true;
}

}  // namespace akcv

extern "C" {

ak_status ak_find_homography(const float *src, const float *dst, int count, ak_robust_method method,
                             double threshold, int max_iterations, double confidence, double h[9], uint8_t *inliers,
                             int *inlier_count) {
    static const char *fn = "ak_find_homography";
    return guarded(fn, [&]() -> ak_status {
        if (inlier_count) *inlier_count = 0;
        if (!src || !dst || !h || !inlier_count) return fail(AK_ERR_ARGUMENT, fn, "src, dst, h or inlier_count is NULL");
        if (count < 4 || count > kMaxPoints)
            return fail(AK_ERR_ARGUMENT, fn, "count must be in 4...%d, got %d", kMaxPoints, count);
        const int m = enum_value(method);
        const int cv_method = to_cv_method(m);
        if (cv_method < 0) return fail(AK_ERR_ARGUMENT, fn, "unknown robust method %d", m);
        if (m != AK_ROBUST_LEAST_SQUARES) {
            if (m != AK_ROBUST_LMEDS && (!std::isfinite(threshold) || !(threshold > 0)))
                return fail(AK_ERR_ARGUMENT, fn, "threshold must be positive, got %g", threshold);
            if (max_iterations < 1) return fail(AK_ERR_ARGUMENT, fn, "max_iterations must be >= 1, got %d", max_iterations);
            if (!(confidence > 0 && confidence < 1))
                return fail(AK_ERR_ARGUMENT, fn, "confidence must be in (0, 1), got %g", confidence);
        }
        for (int i = 0; i < 2 * count; ++i)
            if (!std::isfinite(src[i]) || !std::isfinite(dst[i]))
                return fail(AK_ERR_ARGUMENT, fn, "point coordinates must be finite (point %d)", i / 2);
        if (inliers) std::memset(inliers, 0, static_cast<size_t>(count));

        const cv::Mat s(count, 1, CV_32FC2, const_cast<float *>(src));
        const cv::Mat d(count, 1, CV_32FC2, const_cast<float *>(dst));
        cv::Mat mask;
        const cv::Mat H = cv::findHomography(s, d, cv_method, threshold, mask, max_iterations, confidence);
        if (H.empty() || H.rows != 3 || H.cols != 3) return AK_OK;
        cv::Mat H64;
        H.convertTo(H64, CV_64F);
        cv::Matx33d Hn;
        if (!normalised(cv::Matx33d(H64.ptr<double>()), Hn)) return AK_OK;
        int n = 0;
        if (mask.total() == static_cast<size_t>(count) && mask.type() == CV_8U) {
            const uchar *m = mask.ptr<uchar>();
            for (int i = 0; i < count; ++i) {
                const uint8_t in = m[i] ? 1 : 0;
                if (inliers) inliers[i] = in;
                n += in;
            }
        } else {
            // No mask from OpenCV: every point was used.
            if (inliers) std::memset(inliers, 1, static_cast<size_t>(count));
            n = count;
        }
        for (int i = 0; i < 9; ++i) h[i] = Hn.val[i];
        *inlier_count = n;
        return AK_OK;
    });
}

ak_status ak_refine_homography(const ak_image *reference, const ak_image *image, double h[9], int iterations,
                               double epsilon, double *correlation) {
    static const char *fn = "ak_refine_homography";
    return guarded(fn, [&]() -> ak_status {
        if (correlation) *correlation = -2;
        if (ak_status s = check_image(fn, reference, "reference")) return s;
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (!h || !correlation) return fail(AK_ERR_ARGUMENT, fn, "h or correlation is NULL");
        if (!finite9(h)) return fail(AK_ERR_ARGUMENT, fn, "h must be finite");
        if (iterations < 1 || iterations > 10000)
            return fail(AK_ERR_ARGUMENT, fn, "iterations must be in 1...10000, got %d", iterations);
        if (!std::isfinite(epsilon) || epsilon < 0) return fail(AK_ERR_ARGUMENT, fn, "epsilon must be >= 0, got %g", epsilon);
        if (reference->mat.cols < 4 || reference->mat.rows < 4)
            return fail(AK_ERR_ARGUMENT, fn, "reference is too small: %dx%d", reference->mat.cols, reference->mat.rows);

        cv::Matx33d H;
        if (!normalised(cv::Matx33d(h), H)) return AK_OK;  // h22 = 0: the reference origin at infinity

        // The reference's corners in the image: all in front, a non-degenerate quad.
        cv::Point2d quad[4];
        cv::Rect crop;
        cv::Rect2d box;
        double area = 0;
        if (!reference_quad(H, reference->mat.cols, reference->mat.rows, quad) ||
            !footprint_crop(quad, image->mat.size(), crop, area, box))
            return AK_OK;
        const cv::Rect2d inside = box & cv::Rect2d(0, 0, image->mat.cols - 1.0, image->mat.rows - 1.0);
        if (!(box.area() > 0) || inside.area() < 0.5 * box.area()) return AK_OK;  // mostly outside the image
        // ECC computes the gradients of its whole input image: it gets only the crop.
        const int cx0 = crop.x, cy0 = crop.y;
        const cv::Matx33d to_crop(1, 0, -cx0, 0, 1, -cy0, 0, 0, 1), from_crop(1, 0, cx0, 0, 1, cy0, 0, 0, 1);
        cv::Matx33d local;
        if (!normalised(to_crop * H, local)) return AK_OK;
        cv::Mat warp;
        cv::Mat(local).convertTo(warp, CV_32F);

        const cv::Mat ref = to_channels(reference->mat, 1);
        const cv::Mat img = to_channels(image->mat, 1);
        double rho = -2;
        try {
            rho = cv::findTransformECC(ref, img(crop), warp, cv::MOTION_HOMOGRAPHY,
                                       cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, iterations, epsilon),
                                       cv::noArray(), 3);
        } catch (const cv::Exception &e) {
            if (e.code == cv::Error::StsNoConv) return AK_OK;  // did not converge: h unchanged
            throw;
        }
        cv::Mat warp64;
        warp.convertTo(warp64, CV_64F);
        cv::Matx33d out;
        if (!std::isfinite(rho) || !normalised(from_crop * cv::Matx33d(warp64.ptr<double>()), out)) return AK_OK;
        for (int i = 0; i < 9; ++i) h[i] = out.val[i];
        *correlation = rho;
        return AK_OK;
    });
}

ak_status ak_homography_correlation(const ak_image *reference, const ak_image *image, const double h[9],
                                    double *correlation, double *coverage) {
    static const char *fn = "ak_homography_correlation";
    return guarded(fn, [&]() -> ak_status {
        if (correlation) *correlation = 0;
        if (coverage) *coverage = 0;
        if (ak_status s = check_image(fn, reference, "reference")) return s;
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (!h || !correlation || !coverage) return fail(AK_ERR_ARGUMENT, fn, "h, correlation or coverage is NULL");
        if (!finite9(h)) return fail(AK_ERR_ARGUMENT, fn, "h must be finite");
        const cv::Matx33d H(h);

        const cv::Mat ref = to_channels(reference->mat, 1);
        const cv::Mat img = to_channels(image->mat, 1);
        const cv::Mat mask = valid_mask(H, ref.size(), img.size());
        const int n = cv::countNonZero(mask);
        *coverage = static_cast<double>(n) / static_cast<double>(ref.total());
        if (n < 2) return AK_OK;

        cv::Mat warped;
        cv::warpPerspective(img, warped, cv::Mat(H), ref.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                            cv::BORDER_CONSTANT, cv::Scalar(0));
        // Two passes (means, then centred sums): no cancellation on large, flat areas.
        double sr = 0, si = 0;
        for (int y = 0; y < ref.rows; ++y) {
            const uchar *r = ref.ptr<uchar>(y), *w = warped.ptr<uchar>(y), *m = mask.ptr<uchar>(y);
            for (int x = 0; x < ref.cols; ++x)
                if (m[x]) sr += r[x], si += w[x];
        }
        const double mr = sr / n, mi = si / n;
        double srr = 0, sii = 0, sri = 0;
        for (int y = 0; y < ref.rows; ++y) {
            const uchar *r = ref.ptr<uchar>(y), *w = warped.ptr<uchar>(y), *m = mask.ptr<uchar>(y);
            for (int x = 0; x < ref.cols; ++x) {
                if (!m[x]) continue;
                const double a = r[x] - mr, b = w[x] - mi;
                srr += a * a, sii += b * b, sri += a * b;
            }
        }
        const double denom = std::sqrt(srr * sii);
        *correlation = denom > 1e-9 ? std::max(-1.0, std::min(1.0, sri / denom)) : 0.0;
        return AK_OK;
    });
}

}  // extern "C"
