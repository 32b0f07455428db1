// template_align.cpp — aligns a small template (the ideal picture of a marker) to an 8-bit gray
// image: inverse-compositional Gauss-Newton (Baker & Matthews, "Lucas-Kanade 20 Years On", 2004)
// for an 8-parameter homography, invariant to the image's gain and offset.
//
// Conventions:
// - Pixel centres at integer coordinates in the template and in the image (OpenCV's).
// - H maps template pixels to image pixels; it is returned with H(2,2) = 1.
// - The warp acts on normalised template coordinates u = (x - cx) / s, v = (y - cy) / s (cx, cy
//   the template's centre, s half its larger side), so that the 8 parameters have similar
//   magnitudes: W(u, v; p) = [[1 + p0, p2, p4], [p1, 1 + p3, p5], [p6, p7, 1]] (u, v, 1).
//   An iteration composes H <- H o W(dp)^-1.
// - Brightness: the warped image I(W(x)) is modelled as g T(x) + o. With the template linearised,
//   T(W(x; dp)) ~ T(x) + SD(x) dp (SD: the steepest-descent rows, gradient times dW/dp), the
//   unknowns (g dp, g, o) enter linearly with the design matrix A = [SD, T, 1], which depends on
//   the template alone: (A^T A)^-1 is computed once per template, and an iteration costs one
//   bilinear sample and one 10-term product per sample. The fixed point, A^T (I(W(x)) - g T - o)
//   = 0, minimises |I(W(x)) - g T - o|^2 over warp, gain and offset, i.e. |I_c|^2 (1 - rho^2)
//   with rho the correlation ECC maximises (I_c: the samples less their mean).
// - Samples: the template pixels whose gradient is at least a fraction of the largest; flat
//   pixels add nothing to the warp's terms.
// - Step control: a position is kept only if its cost (that squared residual, gain and offset
//   refitted) is below the last kept one's; otherwise the step from there is halved. Plain
//   Gauss-Newton can settle into a growing two-cycle (seen on 20 px tags with thin templates).
// - Step length: where a step turns back along the last one (the last overshot: a template
//   blurred or sampled unlike the image makes Gauss-Newton's steps too long), its length is
//   divided by 1 + r, r the share of the last step it takes back: the overshoot that ratio
//   implies along that direction, were the error linear in the step.
// - Deterministic: a fixed order of operations, no threads, no randomness.
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace akcv {

namespace {

constexpr int kParameters = 8;
constexpr int kUnknowns = kParameters + 2;  // + gain and offset
constexpr int kStride = TemplateModel::kRowStride;
// Fewer samples than this leave the 10 unknowns ill-determined.
constexpr int kMinSamples = 8 * kUnknowns;
// At least 1 / this of the samples must stay inside the frame (a marker leaving the view is
// followed while a third of its edges are in sight).
constexpr int kMinShareInFrame = 3;
// Halvings of a step that leaves the outline degenerate before the fit gives up.
constexpr int kMaxHalvings = 8;
using Normal = cv::Matx<double, kUnknowns, kUnknowns>;

// p4 and p5 are the warp's translation (see the conventions above).
constexpr bool is_translation(int parameter) { return parameter == 4 || parameter == 5; }

// Rows R0..R1-1 of A^T A from column C0 on (over the samples flagged in `use`, or all), into acc:
// one pass over the samples whose accumulators fit in registers.
template <int R0, int R1, int C0>
void accumulate_normal(const TemplateModel &m, const std::vector<char> *use, float acc[kUnknowns][kStride]) {
    float block[R1 - R0][kStride - C0] = {};
    for (int k = 0; k < m.count; ++k) {
        if (use && !(*use)[static_cast<size_t>(k)]) continue;
        const float *row = &m.rows[static_cast<size_t>(k) * kStride];
        for (int r = R0; r < R1; ++r)
            for (int c = C0; c < kStride; ++c) block[r - R0][c - C0] += row[r] * row[c];
    }
    for (int r = R0; r < R1; ++r)
        for (int c = C0; c < kStride; ++c) acc[r][c] = block[r - R0][c - C0];
}

// (A^T A)^-1 over the samples (those flagged in `use` when it is not null), and the inverse of its
// gain-and-offset block. Float sums suffice: the matrix sets the steps, not the fixed point.
bool inverse_normal(const TemplateModel &m, const std::vector<char> *use, Normal &inverse, cv::Matx22d &brightness) {
    // The matrix is symmetric: only the blocks of 4 columns that reach the diagonal or beyond are
    // summed, each entry in sample order as a full product would be, so the sums are the same with
    // a third fewer products and no accumulator spilled to memory.
    float acc[kUnknowns][kStride] = {};
    accumulate_normal<0, 4, 0>(m, use, acc);
    accumulate_normal<4, 8, 4>(m, use, acc);
    accumulate_normal<8, kUnknowns, 8>(m, use, acc);
    Normal n;
    for (int r = 0; r < kUnknowns; ++r)
        for (int c = 0; c < kUnknowns; ++c) n(r, c) = c >= r ? acc[r][c] : acc[c][r];
    if (m.translation_only) {
        // Only p4 and p5 (and gain and offset) move: the others' rows and columns become identity,
        // and their rows of the inverse are zeroed below, so their steps are 0.
        for (int j = 0; j < kParameters; ++j) {
            if (is_translation(j)) continue;
            for (int k = 0; k < kUnknowns; ++k) n(j, k) = n(k, j) = 0;
            n(j, j) = 1;
        }
    }
    const cv::Matx22d b(n(kParameters, kParameters), n(kParameters, kParameters + 1), n(kParameters + 1, kParameters),
                        n(kParameters + 1, kParameters + 1));
    if (!(cv::invert(n, inverse, cv::DECOMP_CHOLESKY) && cv::checkRange(inverse) && cv::invert(b, brightness, cv::DECOMP_CHOLESKY) &&
          cv::checkRange(brightness)))
        return false;
    if (m.translation_only)
        for (int j = 0; j < kParameters; ++j)
            if (!is_translation(j))
                for (int k = 0; k < kUnknowns; ++k) inverse(j, k) = 0;
    return true;
}

// Where M maps normalised template coordinates (u, v); false behind the camera or at infinity.
bool project(const cv::Matx33d &M, double u, double v, double &x, double &y) {
    const double z = M(2, 0) * u + M(2, 1) * v + M(2, 2);
    if (!(z > 1e-9)) return false;
    x = (M(0, 0) * u + M(0, 1) * v + M(0, 2)) / z;
    y = (M(1, 0) * u + M(1, 1) * v + M(1, 2)) / z;
    return true;
}

}  // namespace

bool prepare_template(const cv::Mat &smoothed, double min_gradient_fraction, bool translation_only, TemplateModel &model) {
    model.translation_only = translation_only;
    CV_Assert(smoothed.type() == CV_32F && smoothed.isContinuous());
    model.u.clear(), model.v.clear(), model.rows.clear();
    model.count = 0;
    const int w = smoothed.cols, h = smoothed.rows;
    if (w < 4 || h < 4) return false;
    model.width = w;
    model.height = h;
    model.cx = (w - 1) / 2.0;
    model.cy = (h - 1) / 2.0;
    model.s = std::max(w, h) / 2.0;

    // Central differences (ECC's [-1/2, 0, 1/2]); the 1-pixel border is left out.
    const float *t = smoothed.ptr<float>();
    std::vector<float> &g = model.gradients;
    g.assign(static_cast<size_t>(w) * h * 2, 0.0f);
    float strongest = 0;
    for (int y = 1; y < h - 1; ++y)
        for (int x = 1; x < w - 1; ++x) {
            const int i = y * w + x;
            const float gx = 0.5f * (t[i + 1] - t[i - 1]), gy = 0.5f * (t[i + w] - t[i - w]);
            g[2 * static_cast<size_t>(i)] = gx, g[2 * static_cast<size_t>(i) + 1] = gy;
            strongest = std::max(strongest, gx * gx + gy * gy);
        }
    if (!(strongest > 0)) return false;
    const float threshold =
        std::max(std::numeric_limits<float>::min(), static_cast<float>(strongest * min_gradient_fraction * min_gradient_fraction));
    int count = 0;
    for (size_t i = 0; i < static_cast<size_t>(w) * h; ++i) count += g[2 * i] * g[2 * i] + g[2 * i + 1] * g[2 * i + 1] >= threshold;
    if (count < kMinSamples) return false;
    model.count = count;
    model.u.resize(static_cast<size_t>(count));
    model.v.resize(static_cast<size_t>(count));
    model.rows.assign(static_cast<size_t>(count) * kStride, 0.0f);
    const float s = static_cast<float>(model.s), inv_s = static_cast<float>(1 / model.s);
    const float cx = static_cast<float>(model.cx), cy = static_cast<float>(model.cy);
    size_t k = 0;
    for (int y = 1; y < h - 1; ++y)
        for (int x = 1; x < w - 1; ++x) {
            const size_t i = static_cast<size_t>(y * w + x);
            const float gx = g[2 * i], gy = g[2 * i + 1];
            if (gx * gx + gy * gy < threshold) continue;
            const float u = (x - cx) * inv_s, v = (y - cy) * inv_s;
            const float gu = s * gx, gv = s * gy, radial = gu * u + gv * v;  // gradient in (u, v)
            float *row = &model.rows[k * kStride];
            row[0] = gu * u, row[1] = gv * u, row[2] = gu * v, row[3] = gv * v;
            row[4] = gu, row[5] = gv, row[6] = -u * radial, row[7] = -v * radial;
            row[8] = t[i], row[9] = 1.0f;
            model.u[k] = u, model.v[k] = v;
            ++k;
        }
    return inverse_normal(model, nullptr, model.inverse, model.brightness);
}

TemplateFit align_template(const TemplateModel &model, const cv::Mat &image, cv::Matx33d &H, int max_iterations,
                           double tolerance) {
    CV_Assert(image.type() == CV_8U);
    TemplateFit fit;
    if (model.count < kMinSamples || image.cols < 2 || image.rows < 2) return fit;
    cv::Matx33d Hn;  // normalised template coordinates -> image pixels
    if (!normalised(H * cv::Matx33d(model.s, 0, model.cx, 0, model.s, model.cy, 0, 0, 1), Hn)) return fit;

    const size_t step = image.step[0];
    const int istep = static_cast<int>(step);
    const double xmax = image.cols - 1.0001, ymax = image.rows - 1.0001;
    // The template's outline: the samples lie inside it, so when its image is in front and inside
    // the frame, so are theirs (a homography keeps convex sets convex there).
    const double ue = (model.width - 0.5 - model.cx) / model.s, ve = (model.height - 0.5 - model.cy) / model.s;
    const double outline[4][2] = {{-ue, -ve}, {ue, -ve}, {ue, ve}, {-ue, ve}};
    auto moved_between = [&](const cv::Matx33d &a, const cv::Matx33d &b) {
        double moved = 0;
        for (const auto &c : outline) {
            double x0, y0, x1, y1;
            if (!project(a, c[0], c[1], x0, y0) || !project(b, c[0], c[1], x1, y1)) return std::numeric_limits<double>::infinity();
            moved = std::max(moved, std::hypot(x1 - x0, y1 - y0));
        }
        return moved;
    };

    // Near the frame's edge, samples outside it are left out (`use`), with a normal matrix for
    // those that remain, rebuilt whenever that set changes (`set` counts the changes).
    std::vector<char> use, now;
    bool partial = false;
    int set = 0;
    Normal partial_inverse;
    cv::Matx22d partial_brightness;
    double gain = 1, offset = 0;
    cv::Matx33d kept = Hn;  // the last position whose cost was lower than all before it
    double kept_cost = std::numeric_limits<double>::infinity(), dp[kParameters] = {}, last_dp[kParameters] = {}, scale = 1;
    int kept_set = -1;
    for (int it = 0; it < max_iterations; ++it) {
        fit.iterations = it + 1;
        double left = 1e300, top = 1e300;
        bool inside = true;
        for (const auto &c : outline) {
            double x, y;
            if (!project(Hn, c[0], c[1], x, y)) return fit;
            inside = inside && x >= 0 && y >= 0 && x < xmax && y < ymax;
            left = std::min(left, x), top = std::min(top, y);
        }
        const int count = model.count;
        // Once the outline crosses the frame's edge the sample set only shrinks: a set that grew
        // back and shrank again as the fit moved would make its costs incomparable (they are
        // compared only within one set) and the fit could cycle without converging.
        if (!inside) {
            // Without a branch per sample (float, as the samples are read below): about one in
            // four of a photo's markers near its edge takes this path at every iteration.
            now.resize(static_cast<size_t>(count));
            const float p00 = static_cast<float>(Hn(0, 0)), p01 = static_cast<float>(Hn(0, 1)), p02 = static_cast<float>(Hn(0, 2)),
                        p10 = static_cast<float>(Hn(1, 0)), p11 = static_cast<float>(Hn(1, 1)), p12 = static_cast<float>(Hn(1, 2)),
                        p20 = static_cast<float>(Hn(2, 0)), p21 = static_cast<float>(Hn(2, 1)), p22 = static_cast<float>(Hn(2, 2));
            const float right = static_cast<float>(xmax), bottom = static_cast<float>(ymax);
            int in_frame = 0;
            for (int k = 0; k < count; ++k) {
                const float u = model.u[static_cast<size_t>(k)], v = model.v[static_cast<size_t>(k)];
                const float z = p20 * u + p21 * v + p22, iz = 1.0f / std::max(z, 1e-9f);
                const float x = (p00 * u + p01 * v + p02) * iz, y = (p10 * u + p11 * v + p12) * iz;
                const bool ok = (z > 1e-9f) & (x >= 0) & (y >= 0) & (x < right) & (y < bottom) &
                                (!partial || use[static_cast<size_t>(k)] != 0);
                now[static_cast<size_t>(k)] = ok;
                in_frame += ok;
            }
            if (in_frame < kMinSamples || in_frame * kMinShareInFrame < count) return fit;
            if (!partial || now != use) {
                use.swap(now);
                if (!inverse_normal(model, &use, partial_inverse, partial_brightness)) return fit;
                partial = true;
                ++set;
            }
        }
        const Normal &inverse = partial ? partial_inverse : model.inverse;
        const cv::Matx22d &brightness = partial ? partial_brightness : model.brightness;

        // A^T r for r = I(W(x)) - g T - o, with g and o from the last kept position: the solution
        // is (g dp, g, o) = (0, g, o) + (A^T A)^-1 A^T r, and float sums of residuals (not of the
        // samples) stay accurate. Coordinates are relative to the whole pixel at the outline's top
        // left, so they are positive and small enough for floats.
        const int ox = static_cast<int>(std::floor(std::max(0.0, left))), oy = static_cast<int>(std::floor(std::max(0.0, top)));
        const uchar *origin = image.ptr<uchar>(oy) + ox;
        const float h00 = static_cast<float>(Hn(0, 0) - ox * Hn(2, 0)), h01 = static_cast<float>(Hn(0, 1) - ox * Hn(2, 1)),
                    h02 = static_cast<float>(Hn(0, 2) - ox * Hn(2, 2)), h10 = static_cast<float>(Hn(1, 0) - oy * Hn(2, 0)),
                    h11 = static_cast<float>(Hn(1, 1) - oy * Hn(2, 1)), h12 = static_cast<float>(Hn(1, 2) - oy * Hn(2, 2)),
                    h20 = static_cast<float>(Hn(2, 0)), h21 = static_cast<float>(Hn(2, 1)), h22 = static_cast<float>(Hn(2, 2));
        const float fg = static_cast<float>(gain), fo = static_cast<float>(offset);
        const float xlim = static_cast<float>(xmax - ox), ylim = static_cast<float>(ymax - oy);
        // In blocks of three loops (positions, pixels, sums), the first two without a dependency
        // from one sample to the next: about twice as fast as one loop doing all three.
        float acc[kStride] = {}, squares = 0;
        constexpr int kBlock = 64;
        float fxs[kBlock], fys[kBlock], rs[kBlock];
        int offsets[kBlock];
        for (int begin = 0; begin < count; begin += kBlock) {
            const int n = std::min(kBlock, count - begin);
            const float *us = &model.u[static_cast<size_t>(begin)], *vs = &model.v[static_cast<size_t>(begin)];
            for (int i = 0; i < n; ++i) {
                const float iz = 1.0f / (h20 * us[i] + h21 * vs[i] + h22);
                // Clamped to the frame: rounding may put a sample on the outline a hair outside
                // it, and samples outside it (left out below) must not index memory.
                const float x = std::min(xlim, std::max(0.0f, (h00 * us[i] + h01 * vs[i] + h02) * iz));
                const float y = std::min(ylim, std::max(0.0f, (h10 * us[i] + h11 * vs[i] + h12) * iz));
                const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
                fxs[i] = x - x0, fys[i] = y - y0;
                offsets[i] = y0 * istep + x0;
            }
            const float *rows = &model.rows[static_cast<size_t>(begin) * kStride];
            for (int i = 0; i < n; ++i) {
                if (partial && !use[static_cast<size_t>(begin + i)]) {
                    rs[i] = 0;
                    continue;
                }
                const uchar *p = origin + offsets[i];
                const float fx = fxs[i];
                const float above = p[0] + fx * (static_cast<float>(p[1]) - p[0]);
                const float below = p[step] + fx * (static_cast<float>(p[step + 1]) - p[step]);
                rs[i] = above + fys[i] * (below - above) - fg * rows[i * kStride + kParameters] - fo;
            }
            for (int i = 0; i < n; ++i) {
                squares += rs[i] * rs[i];
                for (int j = 0; j < kStride; ++j) acc[j] += rows[i * kStride + j] * rs[i];
            }
        }
        // The cost with gain and offset refitted: the squares less what their correction explains.
        const cv::Vec2d tr(acc[kParameters], acc[kParameters + 1]);
        const double cost = squares - tr.dot(brightness * tr);
        if (set == kept_set && !(cost < kept_cost)) {
            // Overshot: half the step from the last kept position.
            scale *= 0.5;
            double shorter[kParameters];
            for (int j = 0; j < kParameters; ++j) shorter[j] = scale * dp[j];
            if (!normalised(kept * warp_of(shorter).inv(), Hn)) return fit;
            const double moved = moved_between(kept, Hn);
            if (!std::isfinite(moved)) return fit;
            if (moved < tolerance) {
                Hn = kept;  // the minimum along the step is within the tolerance of the kept position
                fit.converged = true;
                break;
            }
            continue;
        }
        kept = Hn, kept_cost = cost, kept_set = set, scale = 1;

        cv::Vec<double, kUnknowns> rhs;
        for (int j = 0; j < kUnknowns; ++j) rhs[j] = acc[j];
        const cv::Vec<double, kUnknowns> z = inverse * rhs;
        const double next_gain = gain + z[kParameters];
        if (!(next_gain > 1e-3)) return fit;  // anti-correlated or flat: this is not the template
        double back = 0, last = 0;
        for (int j = 0; j < kParameters; ++j) {
            dp[j] = z[j] / next_gain;
            back -= dp[j] * last_dp[j], last += last_dp[j] * last_dp[j];
        }
        if (back > 0) {
            const double shorten = 1 / (1 + back / last);
            for (double &d : dp) d *= shorten;
        }
        std::copy(dp, dp + kParameters, last_dp);
        gain = next_gain, offset += z[kParameters + 1];

        // A step that would put the outline behind the camera or at infinity (a poorly constrained
        // perspective term, as when the template is heavily blurred or cut by the frame's edge) is
        // halved until it does not.
        cv::Matx33d next;
        double moved = std::numeric_limits<double>::infinity();
        for (int halvings = 0; halvings < kMaxHalvings; ++halvings) {
            if (normalised(Hn * warp_of(dp).inv(), next)) moved = moved_between(Hn, next);
            if (std::isfinite(moved)) break;
            for (double &d : dp) d *= 0.5;
        }
        if (!std::isfinite(moved)) return fit;
        Hn = next;
        if (moved < tolerance) {
            fit.converged = true;
            break;
        }
    }
    if (!fit.converged) return fit;
    cv::Matx33d out;
    if (!normalised(Hn * cv::Matx33d(1 / model.s, 0, -model.cx / model.s, 0, 1 / model.s, -model.cy / model.s, 0, 0, 1), out)) {
        fit.converged = false;
        return fit;
    }
    fit.gain = gain;
    H = out;
    return fit;
}

}  // namespace akcv
