// render.cpp — supersampled, motion-blurred rendering of textured planes with sensor effects.
//
// Geometry. Pixel centres are at integer coordinates (OpenCV). A texture of w x h pixels covers
// [-0.5, w-0.5] x [-0.5, h-0.5] in its own pixel coordinates; the layer's homography H maps those
// to full-resolution image pixels. The canvas is supersampled by ss: full-res x maps to
// x_ss = ss*x + (ss-1)/2, so that INTER_AREA's ss x ss block average at the end lands each block
// exactly on its full-res pixel. All 3x3 algebra is done with Eigen.
//
// Per layer: the texture is sampled with INTER_LINEAR (BORDER_REPLICATE) from a pre-filtered level
// whose texels are at most ~2 canvas pixels apart (anisotropic: factors of 2 along u and v chosen
// separately — a "ripmap" — so an oblique plane is not blurred along its uncompressed axis), and is
// composited with an analytic coverage: the product over the 4 projected edges of
// clamp(0.5 + signed distance in canvas px, 0, 1). This is the "mask of ones warped with
// INTER_LINEAR" idea, but with a 1-canvas-pixel edge ramp whatever the texture's magnification
// (a warped mask's ramp is 1 texel wide, i.e. very soft for a magnified texture).
#include "internal.hpp"

#include <Eigen/Dense>
#include <opencv2/core/eigen.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cmath>

using namespace akcv;

namespace {

constexpr int kMaxSupersampling = 8;
constexpr int kMaxLevel = 14;
constexpr size_t kMaxCacheBytes = size_t(512) << 20;

using Mat3 = Eigen::Matrix3d;
using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;

// Pixel coordinates of an image resampled from n0 to n1 pixels over the same extent, mapped back
// to the n0 grid: u0 = (u1 + 0.5) * n0/n1 - 0.5 (per axis, scale s = n0/n1).
Mat3 rescale(double sx, double sy) {
    Mat3 m;
    m << sx, 0, 0.5 * sx - 0.5, 0, sy, 0.5 * sy - 0.5, 0, 0, 1;
    return m;
}

struct LayerPlan {
    const ak_image *texture = nullptr;
    Mat3 M;          // texture px -> canvas px
    Vec2 quad[4];    // projected texture corners (TL, TR, BR, BL of the texture), canvas px
    cv::Rect roi;    // canvas pixels that can be touched
    double gain = 1;
    bool visible = false;
};

// Plans one layer: validates it and projects its corners. Returns AK_OK or a recorded failure.
ak_status plan_layer(const char *fn, const ak_renderer &r, const ak_layer &layer, int index, LayerPlan &plan) {
    if (ak_status s = check_image(fn, layer.texture, "layer texture")) return s;
    for (double v : layer.homography)
        if (!std::isfinite(v)) return fail(AK_ERR_ARGUMENT, fn, "layer %d: homography has a non-finite entry", index);
    if (!std::isfinite(layer.gain) || layer.gain < 0)
        return fail(AK_ERR_ARGUMENT, fn, "layer %d: gain must be finite and >= 0, got %g", index, layer.gain);

    Mat3 H;
    H << layer.homography[0], layer.homography[1], layer.homography[2], layer.homography[3], layer.homography[4],
        layer.homography[5], layer.homography[6], layer.homography[7], layer.homography[8];
    const double ss = r.ss;
    Mat3 A;  // full-res px -> supersampled px
    A << ss, 0, (ss - 1) / 2, 0, ss, (ss - 1) / 2, 0, 0, 1;
    plan.M = A * H;
    plan.texture = layer.texture;
    plan.gain = layer.gain;
    plan.visible = false;

    const double w = layer.texture->mat.cols, h = layer.texture->mat.rows;
    const Vec3 corners[4] = {{-0.5, -0.5, 1}, {w - 0.5, -0.5, 1}, {w - 0.5, h - 0.5, 1}, {-0.5, h - 0.5, 1}};
    Vec3 p[4];
    for (int k = 0; k < 4; ++k) p[k] = plan.M * corners[k];
    // A homography is defined up to scale: -H is the same mapping. Only a sign change across the
    // texture (a plane crossing the camera plane) is an error.
    if (p[0].z() < 0 && p[1].z() < 0 && p[2].z() < 0 && p[3].z() < 0) {
        plan.M = -plan.M;
        for (Vec3 &q : p) q = -q;
    }
    for (int k = 0; k < 4; ++k) {
        if (!(p[k].z() > 0))
            return fail(AK_ERR_ARGUMENT, fn,
                        "layer %d: texture corner %d maps behind the camera (w = %g <= 0); clip the plane first", index,
                        k, p[k].z());
    }
    double minx = HUGE_VAL, miny = HUGE_VAL, maxx = -HUGE_VAL, maxy = -HUGE_VAL;
    for (int k = 0; k < 4; ++k) {
        plan.quad[k] = p[k].hnormalized();
        if (!plan.quad[k].allFinite()) return AK_OK;  // w ~ 0: numerically at infinity, nothing sensible to draw
        minx = std::min(minx, plan.quad[k].x());
        maxx = std::max(maxx, plan.quad[k].x());
        miny = std::min(miny, plan.quad[k].y());
        maxy = std::max(maxy, plan.quad[k].y());
    }
    // Twice the signed area: an edge-on plane (zero area) is invisible, not an error.
    double area2 = 0;
    for (int k = 0; k < 4; ++k) {
        const Vec2 &a = plan.quad[k], &b = plan.quad[(k + 1) % 4];
        area2 += a.x() * b.y() - a.y() * b.x();
    }
    if (!(std::abs(area2) > 1e-9)) return AK_OK;
    // Bounding box of the quad, one pixel of slack for the coverage ramp, clipped to the canvas.
    const double W = r.canvas.cols, Hh = r.canvas.rows;
    const double x0 = std::max(0.0, std::floor(minx) - 1), y0 = std::max(0.0, std::floor(miny) - 1);
    const double x1 = std::min(W, std::ceil(maxx) + 2), y1 = std::min(Hh, std::ceil(maxy) + 2);
    if (!(x1 > x0) || !(y1 > y0)) return AK_OK;  // entirely outside
    plan.roi = cv::Rect(static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0), static_cast<int>(y1 - y0));
    plan.visible = true;
    return AK_OK;
}

// Downscale level exponent for a texture side of n texels whose projection is `len` canvas px
// long: the smallest k with n / 2^k / len <= 2 (k = 0 unless shrunk by more than 2x).
int level_for(double n, double len) {
    if (!(len > 0)) return kMaxLevel;
    const double shrink = n / len;
    if (!(shrink > 2)) return 0;
    return std::min(kMaxLevel, static_cast<int>(std::floor(std::log2(shrink))));
}

int level_size(int n, int k) { return std::max(1, static_cast<int>(std::lround(std::ldexp(static_cast<double>(n), -k)))); }

// The texture converted to the renderer's channels as float, downscaled by 2^kx x 2^ky (INTER_AREA),
// cached per texture serial within the renderer.
cv::Mat texture_level(ak_renderer &r, const ak_image &texture, int kx, int ky) {
    const int w = texture.mat.cols, h = texture.mat.rows;
    // Levels collapse once a side reaches one texel.
    while (kx > 0 && level_size(w, kx - 1) == 1) --kx;
    while (ky > 0 && level_size(h, ky - 1) == 1) --ky;
    ak_renderer::TextureEntry &entry = r.textures[texture.serial];
    entry.last_frame = r.frame;
    auto found = entry.levels.find({kx, ky});
    if (found != entry.levels.end()) return found->second;

    cv::Mat base;
    auto base_it = entry.levels.find({0, 0});
    if (base_it != entry.levels.end()) {
        base = base_it->second;
    } else {
        to_channels(texture.mat, r.channels).convertTo(base, CV_32F);
    }
    cv::Mat level = base;
    if (kx != 0 || ky != 0)
        cv::resize(base, level, cv::Size(level_size(w, kx), level_size(h, ky)), 0, 0, cv::INTER_AREA);

    const size_t bytes = level.total() * level.elemSize();
    if (r.texture_bytes + bytes > kMaxCacheBytes) {
        // Make room by dropping textures not used in this frame.
        for (auto it = r.textures.begin(); it != r.textures.end();) {
            if (it->second.last_frame != r.frame) {
                r.texture_bytes -= it->second.bytes;
                it = r.textures.erase(it);
            } else {
                ++it;
            }
        }
    }
    if (r.texture_bytes + bytes <= kMaxCacheBytes) {
        // `entry` survived the eviction above: it is marked as used in this frame.
        entry.levels[{kx, ky}] = level;
        entry.bytes += bytes;
        r.texture_bytes += bytes;
    }
    return level;
}

void draw_layer(ak_renderer &r, const LayerPlan &plan) {
    const cv::Mat &tex = plan.texture->mat;
    const int w = tex.cols, h = tex.rows;
    const Vec2 *q = plan.quad;

    // Anisotropic level from the mean projected length of the u edges (top, bottom) and v edges.
    const double len_u = 0.5 * ((q[1] - q[0]).norm() + (q[2] - q[3]).norm());
    const double len_v = 0.5 * ((q[3] - q[0]).norm() + (q[2] - q[1]).norm());
    const cv::Mat level = texture_level(r, *plan.texture, level_for(w, len_u), level_for(h, len_v));

    // level px -> texture px -> canvas px -> ROI px.
    Mat3 T = Mat3::Identity();
    T(0, 2) = -plan.roi.x;
    T(1, 2) = -plan.roi.y;
    const Mat3 W = T * plan.M * rescale(static_cast<double>(w) / level.cols, static_cast<double>(h) / level.rows);
    cv::Mat Wcv;
    cv::eigen2cv(W, Wcv);
    cv::Mat warped = r.warped(cv::Rect(0, 0, plan.roi.width, plan.roi.height));
    cv::warpPerspective(level, warped, Wcv, plan.roi.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);

    // Edge functions e_k(x, y) = a x + b y + c: signed distance (canvas px) to edge k, positive
    // inside, plus 0.5 so that clamp(e, 0, 1) is the pixel's coverage across that edge.
    Vec2 centroid = 0.25 * (q[0] + q[1] + q[2] + q[3]);
    double ea[4], eb[4], ec[4];
    int edges = 0;
    for (int k = 0; k < 4; ++k) {
        const Vec2 &p0 = q[k], &p1 = q[(k + 1) % 4];
        Vec2 d = p1 - p0;
        const double len = d.norm();
        if (!(len > 1e-12)) continue;  // collapsed edge (a triangle): the other edges bound it
        Vec2 n(-d.y() / len, d.x() / len);
        if (n.dot(centroid - p0) < 0) n = -n;
        ea[edges] = n.x();
        eb[edges] = n.y();
        ec[edges] = -n.dot(p0) + 0.5;
        ++edges;
    }

    const int ch = r.channels;
    const float gain = static_cast<float>(plan.gain);
    for (int y = 0; y < plan.roi.height; ++y) {
        const double cy = plan.roi.y + y;
        double row[4];
        for (int k = 0; k < edges; ++k) row[k] = eb[k] * cy + ec[k];
        float *dst = r.canvas.ptr<float>(plan.roi.y + y) + static_cast<size_t>(plan.roi.x) * ch;
        const float *src = warped.ptr<float>(y);
        for (int x = 0; x < plan.roi.width; ++x, dst += ch, src += ch) {
            const double cx = plan.roi.x + x;
            double cov = 1;
            for (int k = 0; k < edges; ++k) {
                const double e = ea[k] * cx + row[k];
                if (e <= 0) {
                    cov = 0;
                    break;
                }
                if (e < 1) cov *= e;
            }
            if (cov <= 0) continue;
            const float m = static_cast<float>(cov), keep = 1.0f - m, mg = m * gain;
            for (int c = 0; c < ch; ++c) dst[c] = dst[c] * keep + src[c] * mg;
        }
    }
}

uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

}  // namespace

extern "C" {

ak_status ak_renderer_create(int width, int height, int channels, int supersampling, ak_renderer **out) {
    static const char *fn = "ak_renderer_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_channels(fn, channels)) return s;
        if (ak_status s = check_size(fn, width, height)) return s;
        if (supersampling < 1 || supersampling > kMaxSupersampling)
            return fail(AK_ERR_ARGUMENT, fn, "supersampling must be in 1...%d, got %d", kMaxSupersampling, supersampling);
        const int64_t sw = static_cast<int64_t>(width) * supersampling, sh = static_cast<int64_t>(height) * supersampling;
        if (sw * sh > kMaxPixels)
            return fail(AK_ERR_ARGUMENT, fn, "image too large: %dx%d supersampled %dx is %lldx%lld", width, height,
                        supersampling, static_cast<long long>(sw), static_cast<long long>(sh));
        std::unique_ptr<ak_renderer> r(new ak_renderer);
        r->width = width;
        r->height = height;
        r->channels = channels;
        r->ss = supersampling;
        const cv::Size big(static_cast<int>(sw), static_cast<int>(sh));
        r->accum.create(big, CV_32FC(channels));
        r->canvas.create(big, CV_32FC(channels));
        r->warped.create(big, CV_32FC(channels));
        r->accum.setTo(cv::Scalar::all(0));
        *out = r.release();
        return AK_OK;
    });
}

void ak_renderer_free(ak_renderer *renderer) { delete renderer; }

ak_status ak_renderer_begin(ak_renderer *renderer, double background) {
    static const char *fn = "ak_renderer_begin";
    return guarded(fn, [&]() -> ak_status {
        if (!renderer) return fail(AK_ERR_ARGUMENT, fn, "renderer is NULL");
        if (!std::isfinite(background)) return fail(AK_ERR_ARGUMENT, fn, "background must be finite");
        renderer->accum.setTo(cv::Scalar::all(0));
        renderer->instants = 0;
        renderer->background = background;
        renderer->begun = true;
        // Drop cached textures that were not used during the previous frame.
        const uint64_t previous = renderer->frame;
        renderer->frame += 1;
        for (auto it = renderer->textures.begin(); it != renderer->textures.end();) {
            if (it->second.last_frame < previous) {
                renderer->texture_bytes -= it->second.bytes;
                it = renderer->textures.erase(it);
            } else {
                ++it;
            }
        }
        return AK_OK;
    });
}

ak_status ak_renderer_add_instant(ak_renderer *renderer, const ak_layer *layers, int count) {
    static const char *fn = "ak_renderer_add_instant";
    return guarded(fn, [&]() -> ak_status {
        if (!renderer) return fail(AK_ERR_ARGUMENT, fn, "renderer is NULL");
        if (!renderer->begun) return fail(AK_ERR_ARGUMENT, fn, "call ak_renderer_begin first");
        if (count < 0) return fail(AK_ERR_ARGUMENT, fn, "count must be >= 0, got %d", count);
        if (count > 0 && !layers) return fail(AK_ERR_ARGUMENT, fn, "layers is NULL but count is %d", count);
        // Validate every layer before touching the frame: a failing call leaves it unchanged.
        std::vector<LayerPlan> plans(static_cast<size_t>(count));
        for (int i = 0; i < count; ++i)
            if (ak_status s = plan_layer(fn, *renderer, layers[i], i, plans[static_cast<size_t>(i)])) return s;

        renderer->canvas.setTo(cv::Scalar::all(renderer->background));
        for (const LayerPlan &plan : plans)
            if (plan.visible) draw_layer(*renderer, plan);
        cv::add(renderer->accum, renderer->canvas, renderer->accum);
        renderer->instants += 1;
        return AK_OK;
    });
}

ak_status ak_renderer_finish(ak_renderer *renderer, const ak_finish_params *params, ak_image **out) {
    static const char *fn = "ak_renderer_finish";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (!renderer) return fail(AK_ERR_ARGUMENT, fn, "renderer is NULL");
        if (!params) return fail(AK_ERR_ARGUMENT, fn, "params is NULL");
        if (!renderer->begun || renderer->instants == 0)
            return fail(AK_ERR_ARGUMENT, fn, "no instant was added since ak_renderer_begin");
        const ak_finish_params &p = *params;
        if (!std::isfinite(p.gain) || !std::isfinite(p.bias))
            return fail(AK_ERR_ARGUMENT, fn, "gain and bias must be finite");
        if (!std::isfinite(p.noise_sigma) || p.noise_sigma < 0 || !std::isfinite(p.shot_noise) || p.shot_noise < 0)
            return fail(AK_ERR_ARGUMENT, fn, "noise_sigma and shot_noise must be finite and >= 0");
        if (!std::isfinite(p.vignetting) || p.vignetting < 0 || p.vignetting > 1)
            return fail(AK_ERR_ARGUMENT, fn, "vignetting must be in [0, 1], got %g", p.vignetting);
        if (p.jpeg_quality < 0 || p.jpeg_quality > 100)
            return fail(AK_ERR_ARGUMENT, fn, "jpeg_quality must be in 0...100, got %d", p.jpeg_quality);

        ak_renderer &r = *renderer;
        const int ch = r.channels;
        const cv::Size size(r.width, r.height);
        // Average of the instants, then the ss x ss box filter down to full resolution.
        if (r.ss == 1) {
            r.accum.convertTo(r.small, CV_32F, 1.0 / r.instants);
        } else {
            r.accum.convertTo(r.mean, CV_32F, 1.0 / r.instants);
            cv::resize(r.mean, r.small, size, 0, 0, cv::INTER_AREA);
        }

        const bool vignette = p.vignetting > 0;
        if (vignette && (r.vignette_amount != p.vignetting || r.vignette.size() != size)) {
            r.vignette.create(size, CV_32F);
            const double cx = (r.width - 1) / 2.0, cy = (r.height - 1) / 2.0;
            const double rmax2 = cx * cx + cy * cy;
            for (int y = 0; y < r.height; ++y) {
                float *v = r.vignette.ptr<float>(y);
                for (int x = 0; x < r.width; ++x) {
                    const double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
                    v[x] = static_cast<float>(rmax2 > 0 ? 1.0 - p.vignetting * d2 / rmax2 : 1.0);
                }
            }
            r.vignette_amount = p.vignetting;
        }
        const bool noisy = p.noise_sigma > 0 || p.shot_noise > 0;
        if (noisy) {
            r.noise.create(size, CV_32FC(ch));
            cv::RNG rng(splitmix64(p.seed));
            rng.fill(r.noise, cv::RNG::NORMAL, 0.0, 1.0);
        }
        const float gain = static_cast<float>(p.gain), bias = static_cast<float>(p.bias);
        const float shot2 = static_cast<float>(p.shot_noise * p.shot_noise);
        const float read2 = static_cast<float>(p.noise_sigma * p.noise_sigma);
        for (int y = 0; y < r.height; ++y) {
            float *v = r.small.ptr<float>(y);
            const float *vg = vignette ? r.vignette.ptr<float>(y) : nullptr;
            const float *n = noisy ? r.noise.ptr<float>(y) : nullptr;
            for (int x = 0; x < r.width; ++x) {
                const float light = vg ? vg[x] : 1.0f;
                for (int c = 0; c < ch; ++c) {
                    const int i = x * ch + c;
                    float s = gain * (v[i] * light) + bias;
                    // Shot and read noise are independent Gaussians: one draw with the summed variance.
                    if (n) s += n[i] * std::sqrt(shot2 * std::max(s, 0.0f) + read2);
                    v[i] = s;
                }
            }
        }
        cv::Mat frame;
        r.small.convertTo(frame, CV_8U);  // rounds and saturates to 0...255
        if (p.jpeg_quality > 0) {
            std::vector<uchar> buffer;
            if (!cv::imencode(".jpg", frame, buffer, {cv::IMWRITE_JPEG_QUALITY, p.jpeg_quality}))
                return fail(AK_ERR_INTERNAL, fn, "JPEG encoding failed");
            frame = cv::imdecode(buffer, ch == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
            if (frame.empty() || frame.channels() != ch) return fail(AK_ERR_INTERNAL, fn, "JPEG decoding failed");
        }
        *out = make_image(std::move(frame));
        return AK_OK;
    });
}

}  // extern "C"
