// align.cpp — sparse inverse-compositional alignment of a planar reference to a frame (Baker &
// Matthews, "Lucas-Kanade 20 Years On", 2004), with an affine brightness model and Huber weights.
//
// Why not ECC every frame: cv::findTransformECC smooths and differentiates its whole input and
// re-derives the Jacobian from the warped image at every iteration. Inverse compositional keeps the
// reference's gradients fixed, so they are computed once per reference level; and a few thousand
// strong-gradient samples carry nearly all of the alignment's information.
#include "../AnchorKitCV/internal.hpp"
#include "anchorkit_alignment.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace akcv;

namespace {

constexpr int kMaxSamples = 1000 * 1000;
constexpr int kParameters = 8;
// Samples are taken on a grid of cells this many pixels wide, at most one per cell, so that a
// single strong edge cannot take all of them.
constexpr int kCell = 3;
// The smallest gradient a sample may have, gray levels per pixel: flat areas add noise, not signal.
constexpr float kMinGradient = 2.0f;

// Bilinear sample of a CV_32F image at (x, y); the caller guarantees 0 <= x < cols-1, 0 <= y < rows-1.
inline float bilinear(const cv::Mat &img, double x, double y) {
    const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
    const float fx = static_cast<float>(x - x0), fy = static_cast<float>(y - y0);
    const float *r0 = img.ptr<float>(y0) + x0, *r1 = img.ptr<float>(y0 + 1) + x0;
    return (r0[0] * (1 - fx) + r0[1] * fx) * (1 - fy) + (r1[0] * (1 - fx) + r1[1] * fx) * fy;
}

// The noise level of residuals (gray levels) from their magnitudes' lower quartile, which
// stays on the aligned samples while up to ~70 % are occluded (the median, MAD's choice, leaves
// them at 50 %): |r| of Gaussian noise has its quartile at 0.3186 sigma. At least one gray level,
// the quantisation step. Reorders `magnitudes`.
double robust_sigma(std::vector<float> &magnitudes) {
    if (magnitudes.empty()) return 1.0;
    const auto q = magnitudes.begin() + static_cast<std::ptrdiff_t>(magnitudes.size() / 4);
    std::nth_element(magnitudes.begin(), q, magnitudes.end());
    return std::max(1.0, *q / 0.3186);
}

// Fits sampled ≈ gain * reference + offset by iteratively reweighted least squares with Tukey's
// biweight (4.685 robust sigmas), so that an occluder's samples do not bend the fit. `weight`
// holds each sample's prior weight (from the previous iteration); when it is empty the fit starts
// from gain 1 and the median offset. On return `residual` holds (sampled - offset) / gain -
// reference (reference gray levels), `weight` the final weights and `sigma` the residuals' robust
// noise level, `gain_out` and `offset_out` the fit. False when the samples do not follow the reference (gain <= 0.05, flat).
bool fit_brightness(const std::vector<float> &reference, const std::vector<float> &sampled, std::vector<float> &weight,
                    std::vector<float> &residual, double &sigma, double &gain_out, double &offset_out) {
    const size_t m = reference.size();
    std::vector<float> magnitude(m);
    residual.resize(m);
    auto reweight = [&](double gain, double offset) {
        for (size_t j = 0; j < m; ++j) {
            residual[j] = static_cast<float>((sampled[j] - offset) / gain - reference[j]);
            magnitude[j] = std::abs(residual[j]);
        }
        std::vector<float> scratch = magnitude;
        sigma = robust_sigma(scratch);
        const double k = 4.685 * sigma;
        weight.resize(m);
        for (size_t j = 0; j < m; ++j) {
            const double q = magnitude[j] < k ? 1 - (magnitude[j] / k) * (magnitude[j] / k) : 0.0;
            weight[j] = static_cast<float>(q * q);
        }
    };
    if (weight.size() != m) {
        for (size_t j = 0; j < m; ++j) magnitude[j] = sampled[j] - reference[j];
        const auto mid = magnitude.begin() + static_cast<std::ptrdiff_t>(m / 2);
        std::nth_element(magnitude.begin(), mid, magnitude.end());
        reweight(1.0, *mid);
    }
    for (int round = 0; round < 3; ++round) {
        double sw = 0, st = 0, si = 0;
        for (size_t j = 0; j < m; ++j) sw += weight[j], st += weight[j] * reference[j], si += weight[j] * sampled[j];
        if (!(sw > kParameters * 4 * 0.5)) return false;
        const double mt = st / sw, mi = si / sw;
        double stt = 0, sti = 0;
        for (size_t j = 0; j < m; ++j) {
            const double dt = reference[j] - mt;
            stt += weight[j] * dt * dt, sti += weight[j] * dt * (sampled[j] - mi);
        }
        if (!(stt > 1e-9)) return false;
        const double gain = sti / stt;
        if (!(gain > 0.05)) return false;  // anti-correlated or flat: not the reference
        gain_out = gain, offset_out = mi - gain * mt;
        reweight(gain_out, offset_out);
    }
    return true;
}

}  // namespace

extern "C" {

ak_status ak_aligner_create(const ak_image *reference, int max_samples, ak_aligner **out) {
    static const char *fn = "ak_aligner_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_image(fn, reference, "reference")) return s;
        if (max_samples < 16 || max_samples > kMaxSamples)
            return fail(AK_ERR_ARGUMENT, fn, "max_samples must be in 16...%d, got %d", kMaxSamples, max_samples);
        const cv::Mat gray = to_channels(reference->mat, 1);
        if (gray.cols < 8 || gray.rows < 8)
            return fail(AK_ERR_ARGUMENT, fn, "reference is too small: %dx%d", gray.cols, gray.rows);

        // The same smoothing is applied to the frame before sampling (ak_aligner_align).
        cv::Mat smooth, gx, gy;
        gray.convertTo(smooth, CV_32F);
        cv::GaussianBlur(smooth, smooth, cv::Size(3, 3), 0, 0, cv::BORDER_REPLICATE);
        cv::Sobel(smooth, gx, CV_32F, 1, 0, 3, 1.0 / 8, 0, cv::BORDER_REPLICATE);
        cv::Sobel(smooth, gy, CV_32F, 0, 1, 3, 1.0 / 8, 0, cv::BORDER_REPLICATE);

        // The strongest pixel of each cell (1-pixel border excluded: its gradient is one-sided).
        struct Candidate { int x, y; float strength; };
        std::vector<Candidate> candidates;
        for (int y0 = 1; y0 < gray.rows - 1; y0 += kCell) {
            for (int x0 = 1; x0 < gray.cols - 1; x0 += kCell) {
                Candidate best{-1, -1, kMinGradient * kMinGradient};
                for (int y = y0; y < std::min(y0 + kCell, gray.rows - 1); ++y) {
                    const float *px = gx.ptr<float>(y), *py = gy.ptr<float>(y);
                    for (int x = x0; x < std::min(x0 + kCell, gray.cols - 1); ++x) {
                        const float m = px[x] * px[x] + py[x] * py[x];
                        if (m > best.strength) best = {x, y, m};
                    }
                }
                if (best.x >= 0) candidates.push_back(best);
            }
        }
        if (static_cast<int>(candidates.size()) > max_samples) {
            std::nth_element(candidates.begin(), candidates.begin() + max_samples, candidates.end(),
                             [](const Candidate &a, const Candidate &b) { return a.strength > b.strength; });
            candidates.resize(static_cast<size_t>(max_samples));
        }

        std::unique_ptr<ak_aligner> a(new ak_aligner);
        a->width = gray.cols;
        a->height = gray.rows;
        a->cx = (gray.cols - 1) / 2.0;
        a->cy = (gray.rows - 1) / 2.0;
        a->s = std::max(gray.cols, gray.rows) / 2.0;
        const size_t n = candidates.size();
        a->un.resize(n), a->vn.resize(n), a->value.resize(n), a->descent.resize(n * kParameters);
        for (size_t k = 0; k < n; ++k) {
            const Candidate &c = candidates[k];
            const double u = (c.x - a->cx) / a->s, v = (c.y - a->cy) / a->s;
            // Gradient with respect to the normalised coordinates.
            const double gu = a->s * gx.at<float>(c.y, c.x), gv = a->s * gy.at<float>(c.y, c.x);
            const double radial = gu * u + gv * v;
            const double row[kParameters] = {gu * u, gv * u, gu * v, gv * v, gu, gv, -u * radial, -v * radial};
            a->un[k] = static_cast<float>(u);
            a->vn[k] = static_cast<float>(v);
            a->value[k] = smooth.at<float>(c.y, c.x);
            for (int j = 0; j < kParameters; ++j) a->descent[k * kParameters + j] = static_cast<float>(row[j]);
        }
        *out = a.release();
        return AK_OK;
    });
}

void ak_aligner_free(ak_aligner *aligner) { delete aligner; }

ak_status ak_aligner_align(const ak_aligner *aligner, const ak_image *image, double h[9], int iterations,
                           double epsilon, double *correlation, double *coverage) {
    static const char *fn = "ak_aligner_align";
    return guarded(fn, [&]() -> ak_status {
        if (correlation) *correlation = -2;
        if (coverage) *coverage = 0;
        if (!aligner) return fail(AK_ERR_ARGUMENT, fn, "aligner is NULL");
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (!h || !correlation || !coverage) return fail(AK_ERR_ARGUMENT, fn, "h, correlation or coverage is NULL");
        if (!finite9(h)) return fail(AK_ERR_ARGUMENT, fn, "h must be finite");
        if (iterations < 1 || iterations > 10000)
            return fail(AK_ERR_ARGUMENT, fn, "iterations must be in 1...10000, got %d", iterations);
        if (!std::isfinite(epsilon) || epsilon < 0) return fail(AK_ERR_ARGUMENT, fn, "epsilon must be >= 0, got %g", epsilon);
        const ak_aligner &a = *aligner;
        const size_t n = a.un.size();
        if (n < static_cast<size_t>(kParameters) * 4) return AK_OK;  // a featureless reference: nothing to align

        cv::Matx33d H;
        if (!normalised(cv::Matx33d(h), H)) return AK_OK;
        cv::Point2d quad[4];
        cv::Rect box_crop;
        cv::Rect2d box;
        double area = 0;
        if (!reference_quad(H, a.width, a.height, quad) || !footprint_crop(quad, image->mat.size(), box_crop, area, box)) return AK_OK;
        // Only the footprint (plus room to move) is smoothed: the frame outside it is never sampled.
        const int cx0 = box_crop.x, cy0 = box_crop.y;
        cv::Mat crop;
        to_channels(image->mat, 1)(box_crop).convertTo(crop, CV_32F);
        // Match the reference's smoothing, measured in frame pixels: the reference was blurred by
        // ~0.85 of its own pixels, and one reference pixel spans `scale` frame pixels.
        const double scale = std::sqrt(area / (static_cast<double>(a.width) * a.height));
        const double blur = std::min(4.0, std::max(0.85, 0.85 * scale));
        cv::GaussianBlur(crop, crop, cv::Size(0, 0), blur, blur, cv::BORDER_REPLICATE);

        // Hn: normalised reference coordinates -> crop pixels.
        const cv::Matx33d denormalise(a.s, 0, a.cx, 0, a.s, a.cy, 0, 0, 1);
        const cv::Matx33d to_crop(1, 0, -cx0, 0, 1, -cy0, 0, 0, 1), from_crop(1, 0, cx0, 0, 1, cy0, 0, 0, 1);
        cv::Matx33d Hn = to_crop * H * denormalise;
        const cv::Matx33d normalise = denormalise.inv();

        std::vector<int> inside;
        std::vector<float> values, sampled, residual, weight, prior(n, 1.0f);
        inside.reserve(n), values.reserve(n), sampled.reserve(n);
        const double xmax = crop.cols - 1.0001, ymax = crop.rows - 1.0001;
        auto sample = [&](const cv::Matx33d &M) {
            inside.clear(), values.clear(), sampled.clear();
            for (size_t k = 0; k < n; ++k) {
                const double u = a.un[k], v = a.vn[k];
                const double z = M(2, 0) * u + M(2, 1) * v + M(2, 2);
                if (!(z > 1e-9)) continue;
                const double x = (M(0, 0) * u + M(0, 1) * v + M(0, 2)) / z;
                const double y = (M(1, 0) * u + M(1, 1) * v + M(1, 2)) / z;
                if (!(x >= 0 && y >= 0 && x < xmax && y < ymax)) continue;
                inside.push_back(static_cast<int>(k));
                values.push_back(a.value[k]);
                sampled.push_back(bilinear(crop, x, y));
            }
            // Under a quarter of the samples in view is too little to trust, and the parameters
            // of a sliver are ill-conditioned.
            return inside.size() * 4 >= n && inside.size() >= static_cast<size_t>(kParameters) * 4;
        };

        for (int it = 0; it < iterations; ++it) {
            if (!sample(Hn)) return AK_OK;
            const size_t m = inside.size();
            // Brightness, with each sample's weight from the previous iteration as the prior.
            weight.clear();
            if (it > 0)
                for (size_t j = 0; j < m; ++j) weight.push_back(prior[static_cast<size_t>(inside[j])]);
            double sigma = 1, gain = 1, offset = 0;
            if (!fit_brightness(values, sampled, weight, residual, sigma, gain, offset)) return AK_OK;
            // The truncated quadratic this iteration must lower: min(r, k)^2 per sample, a sample
            // out of view counting as k^2. It keeps a step from running off where the occluder's
            // pull outweighs the picture's (large occluders, far starts).
            const double cap = 4.685 * sigma;
            auto cost = [&](const std::vector<float> &r) {
                double c = static_cast<double>(n - r.size()) * cap * cap;
                for (float x : r) c += std::min<double>(x * x, cap * cap);
                return c;
            };
            const double current = cost(residual);
            std::fill(prior.begin(), prior.end(), 1.0f);
            for (size_t j = 0; j < m; ++j) prior[static_cast<size_t>(inside[j])] = weight[j];
            // The step: Huber weights (1.345 sigma) on the first iteration, where a sample may be
            // off only because the start is; Tukey's after, which ignore occluders.
            if (it == 0) {
                const double k = 1.345 * sigma;
                for (size_t j = 0; j < m; ++j) {
                    const double r = std::abs(residual[j]);
                    weight[j] = static_cast<float>(r <= k ? 1.0 : k / r);
                }
            }

            cv::Matx<double, kParameters, kParameters> hessian = cv::Matx<double, kParameters, kParameters>::zeros();
            cv::Vec<double, kParameters> gradient = cv::Vec<double, kParameters>::all(0);
            for (size_t j = 0; j < m; ++j) {
                const float *sd = &a.descent[static_cast<size_t>(inside[j]) * kParameters];
                const double w = weight[j], wr = w * residual[j];
                for (int r = 0; r < kParameters; ++r) {
                    gradient[r] += wr * sd[r];
                    const double wsd = w * sd[r];
                    for (int c = r; c < kParameters; ++c) hessian(r, c) += wsd * sd[c];
                }
            }
            for (int r = 0; r < kParameters; ++r)
                for (int c = 0; c < r; ++c) hessian(r, c) = hessian(c, r);
            cv::Vec<double, kParameters> step;
            if (!cv::solve(hessian, gradient, step, cv::DECOMP_CHOLESKY) || !cv::checkRange(step)) return AK_OK;

            // Inverse compositional update, W(p) <- W(p) o W(step)^-1, halved until it lowers the cost.
            cv::Matx33d next;
            bool lowered = false;
            for (int halving = 0; halving < 5 && !lowered; ++halving, step *= 0.5) {
                if (!normalised(Hn * warp_of(step.val).inv(), next)) return AK_OK;
                if (!sample(next)) continue;
                std::vector<float> trial(inside.size());
                for (size_t j = 0; j < inside.size(); ++j)
                    trial[j] = static_cast<float>((sampled[j] - offset) / gain - values[j]);
                lowered = cost(trial) < current;
            }
            if (!lowered) break;  // at a minimum of the cost (or stuck): keep Hn
            cv::Point2d before[4], after[4];
            if (!reference_quad(from_crop * Hn * normalise, a.width, a.height, before) ||
                !reference_quad(from_crop * next * normalise, a.width, a.height, after))
                return AK_OK;
            Hn = next;
            double moved = 0;
            for (int k = 0; k < 4; ++k) moved = std::max(moved, cv::norm(after[k] - before[k]));
            if (moved < epsilon) break;
        }

        // The verdict: the correlation of the samples that agree with the fit (within 4.685 robust
        // sigmas, as Tukey's weight has it), and their share of all samples. An occluder lowers
        // the share but not the correlation; a wrong fit leaves a broad residual spread in which
        // nearly everything "agrees" and the correlation is low.
        if (!sample(Hn)) return AK_OK;
        const size_t m = inside.size();
        weight.clear();
        for (size_t j = 0; j < m; ++j) weight.push_back(prior[static_cast<size_t>(inside[j])]);
        double sigma = 1, gain = 1, offset = 0;
        if (!fit_brightness(values, sampled, weight, residual, sigma, gain, offset)) return AK_OK;
        std::vector<char> agrees(m);
        size_t agreeing = 0;
        for (size_t j = 0; j < m; ++j) agreeing += (agrees[j] = weight[j] > 0);
        double at = 0, ai = 0;
        for (size_t j = 0; j < m; ++j)
            if (agrees[j]) at += a.value[inside[j]], ai += sampled[j];
        if (agreeing < static_cast<size_t>(kParameters) * 4) return AK_OK;
        const double mt = at / agreeing, mi = ai / agreeing;
        double ctt = 0, cii = 0, cti = 0;
        for (size_t j = 0; j < m; ++j) {
            if (!agrees[j]) continue;
            const double dt = a.value[inside[j]] - mt, di = sampled[j] - mi;
            ctt += dt * dt, cii += di * di, cti += dt * di;
        }
        cv::Matx33d out;
        if (!(ctt * cii > 1e-12) || !normalised(from_crop * Hn * normalise, out)) return AK_OK;
        for (int i = 0; i < 9; ++i) h[i] = out.val[i];
        *correlation = std::max(-1.0, std::min(1.0, cti / std::sqrt(ctt * cii)));
        *coverage = static_cast<double>(agreeing) / static_cast<double>(n);
        return AK_OK;
    });
}

}  // extern "C"
