// render.cpp — supersampled, motion-blurred rendering of textured planes with sensor effects.
//
// Geometry. Pixel centres are at integer coordinates (OpenCV). A texture of w x h pixels covers
// [-0.5, w-0.5] x [-0.5, h-0.5] in its own pixel coordinates; the layer's homography H maps those
// to full-resolution image pixels. The canvas is supersampled by ss: full-res x maps to
// x_ss = ss*x + (ss-1)/2, so that INTER_AREA's ss x ss block average at the end lands each block
// exactly on its full-res pixel. All 3x3 algebra is done with Eigen.
//
// Outline. A layer paints the quad of its texture's projected corners, or, when it carries a
// polygon (a plane clipped by a near plane because part of it is behind the camera), only the part
// of the texture inside that convex polygon. Both are a convex outline to the code below; the
// homography stays exact for the part in front of the camera, which is all the outline contains.
//
// Per layer: the outline's bounding box is cut into 32-row bands trimmed to the outline, and those into
// tiles. Each tile samples the texture with warpPerspective (INTER_LINEAR, BORDER_REPLICATE) from a
// pre-filtered level (INTER_AREA, cached per texture) with at most ~2 texels per canvas pixel at
// that tile: levels are anisotropic (factors of 2 along u and v chosen separately — a
// "ripmap" — so an oblique plane is not blurred along its uncompressed axis) and chosen per tile
// (a floor receding to the horizon is not aliased far away nor blurred nearby). Tiles are
// composited in parallel with an analytic coverage: the product over the outline's edges of
// clamp(0.5 + signed distance in canvas px, 0, 1). This replaces "warp a mask of ones with
// INTER_LINEAR", whose edge ramp is 1 texel wide (very soft for a magnified texture), with a
// 1-canvas-pixel ramp whatever the magnification.

// The shim's private definitions (ak_image, guarded calls): this target extends AnchorKitCV.
#include "../AnchorKitCV/internal.hpp"
#include "anchorkit_render.h"

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
constexpr int kMaxPolygon = 64;  // vertices of a layer's polygon

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
    // The convex outline painted, canvas px: the projected texture corners (TL, TR, BR, BL of the
    // texture), or the layer's polygon clipped to the texture.
    std::vector<Vec2> outline;
    cv::Rect roi;    // canvas pixels that can be touched (bounding box)
    std::vector<cv::Rect> bands;  // the parts of roi actually drawn (set by draw_layer)
    double gain = 1;
    double opacity = 1;  // 1 - the layer's transparency
    bool visible = false;
};

ak_status place_outline(const ak_renderer &r, LayerPlan &plan);
ak_status plan_outline(const char *fn, const ak_renderer &r, const ak_layer &layer, int index, LayerPlan &plan);

// Plans one layer: validates it and projects its corners (or its polygon). Returns AK_OK or a
// recorded failure.
ak_status plan_layer(const char *fn, const ak_renderer &r, const ak_layer &layer, int index, LayerPlan &plan) {
    if (ak_status s = check_image(fn, layer.texture, "layer texture", true)) return s;
    for (double v : layer.homography)
        if (!std::isfinite(v)) return fail(AK_ERR_ARGUMENT, fn, "layer %d: homography has a non-finite entry", index);
    if (!std::isfinite(layer.gain) || layer.gain < 0)
        return fail(AK_ERR_ARGUMENT, fn, "layer %d: gain must be finite and >= 0, got %g", index, layer.gain);
    if (!(layer.transparency >= 0 && layer.transparency <= 1))
        return fail(AK_ERR_ARGUMENT, fn, "layer %d: transparency must be in [0, 1], got %g", index, layer.transparency);

    Mat3 H;
    H << layer.homography[0], layer.homography[1], layer.homography[2], layer.homography[3], layer.homography[4],
        layer.homography[5], layer.homography[6], layer.homography[7], layer.homography[8];
    const double ss = r.ss;
    Mat3 A;  // full-res px -> supersampled px
    A << ss, 0, (ss - 1) / 2, 0, ss, (ss - 1) / 2, 0, 0, 1;
    plan.M = A * H;
    plan.texture = layer.texture;
    plan.gain = layer.gain;
    plan.opacity = 1 - layer.transparency;
    plan.visible = false;
    if (plan.opacity <= 0) return AK_OK;  // invisible: nothing to draw

    if (layer.polygon || layer.polygon_count != 0) return plan_outline(fn, r, layer, index, plan);
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
                        "layer %d: texture corner %d maps behind the camera (w = %g <= 0); clip the plane and pass the "
                        "clipped polygon", index,
                        k, p[k].z());
    }
    plan.outline.resize(4);
    for (int k = 0; k < 4; ++k) {
        plan.outline[k] = p[k].hnormalized();
        if (!plan.outline[k].allFinite()) return AK_OK;  // w ~ 0: numerically at infinity, nothing sensible to draw
    }
    return place_outline(r, plan);
}

// Sets the layer's region of interest from its outline; an edge-on plane (zero area) or one
// entirely off the canvas stays invisible, which is not an error.
ak_status place_outline(const ak_renderer &r, LayerPlan &plan) {
    const std::vector<Vec2> &q = plan.outline;
    const size_t n = q.size();
    double minx = HUGE_VAL, miny = HUGE_VAL, maxx = -HUGE_VAL, maxy = -HUGE_VAL;
    for (const Vec2 &v : q) {
        minx = std::min(minx, v.x());
        maxx = std::max(maxx, v.x());
        miny = std::min(miny, v.y());
        maxy = std::max(maxy, v.y());
    }
    // Twice the signed area.
    double area2 = 0;
    for (size_t k = 0; k < n; ++k) {
        const Vec2 &a = q[k], &b = q[(k + 1) % n];
        area2 += a.x() * b.y() - a.y() * b.x();
    }
    if (!(std::abs(area2) > 1e-9)) return AK_OK;
    // Bounding box of the outline, one pixel of slack for the coverage ramp, clipped to the canvas.
    const double W = r.canvas.cols, Hh = r.canvas.rows;
    const double x0 = std::max(0.0, std::floor(minx) - 1), y0 = std::max(0.0, std::floor(miny) - 1);
    const double x1 = std::min(W, std::ceil(maxx) + 2), y1 = std::min(Hh, std::ceil(maxy) + 2);
    if (!(x1 > x0) || !(y1 > y0)) return AK_OK;  // entirely outside
    plan.roi = cv::Rect(static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0), static_cast<int>(y1 - y0));
    plan.visible = true;
    return AK_OK;
}

// Removes what would spoil the coverage product of a convex outline: vertices within 1e-6 canvas
// px of their predecessor (a zero-length edge has no direction) and vertices within 1e-3 px of the
// chord of their neighbours (two edges on one line would multiply their ramps: a dark seam).
void simplify(std::vector<Vec2> &p) {
    std::vector<Vec2> q;
    q.reserve(p.size());
    for (const Vec2 &v : p)
        if (q.empty() || (v - q.back()).norm() > 1e-6) q.push_back(v);
    while (q.size() > 1 && (q.front() - q.back()).norm() <= 1e-6) q.pop_back();
    for (bool changed = true; changed && q.size() >= 3;) {
        changed = false;
        for (size_t i = 0; i < q.size(); ++i) {
            const Vec2 &a = q[(i + q.size() - 1) % q.size()], &b = q[i], &c = q[(i + 1) % q.size()];
            const Vec2 chord = c - a, d = b - a;
            const double len = chord.norm();
            const double off = len > 0 ? std::abs(chord.x() * d.y() - chord.y() * d.x()) / len : d.norm();
            if (off <= 1e-3) {
                q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
                changed = true;
                break;
            }
        }
    }
    p.swap(q);
}

// True when every turn of the (simplified) outline goes the same way.
bool is_convex(const std::vector<Vec2> &p) {
    const size_t n = p.size();
    int sign = 0;
    for (size_t i = 0; i < n; ++i) {
        const Vec2 d1 = p[(i + 1) % n] - p[i], d2 = p[(i + 2) % n] - p[(i + 1) % n];
        const double turn = d1.x() * d2.y() - d1.y() * d2.x();
        const int s = turn > 0 ? 1 : (turn < 0 ? -1 : 0);
        if (s == 0) continue;
        if (sign == 0) sign = s;
        else if (s != sign) return false;
    }
    return sign != 0;
}

// Sutherland-Hodgman: the part of convex `p` where the affine function g(x, y) = g0 x + g1 y + g2
// is >= 0 (g is linear along a segment, so crossings interpolate exactly).
std::vector<Vec2> clip_half_plane(const std::vector<Vec2> &p, const Vec3 &g) {
    std::vector<Vec2> out;
    const size_t n = p.size();
    for (size_t i = 0; i < n; ++i) {
        const Vec2 &a = p[i], &b = p[(i + 1) % n];
        const double fa = g.x() * a.x() + g.y() * a.y() + g.z(), fb = g.x() * b.x() + g.y() * b.y() + g.z();
        if (fa >= 0) out.push_back(a);
        if ((fa >= 0) != (fb >= 0)) out.push_back(a + (b - a) * (fa / (fa - fb)));
    }
    return out;
}

// Plans a layer that carries a polygon: validates the polygon, checks that it is in front of the
// camera, and clips it to the texture's extent (so that nothing outside the texture, which
// warpPerspective would replicate from its border, is painted).
ak_status plan_outline(const char *fn, const ak_renderer &r, const ak_layer &layer, int index, LayerPlan &plan) {
    const int n = layer.polygon_count;
    if (!layer.polygon) return fail(AK_ERR_ARGUMENT, fn, "layer %d: polygon is NULL but polygon_count is %d", index, n);
    if (n < 3 || n > kMaxPolygon)
        return fail(AK_ERR_ARGUMENT, fn, "layer %d: polygon_count must be in 3...%d, got %d", index, kMaxPolygon, n);
    const double ss = r.ss;
    std::vector<Vec2> poly(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
        const double x = layer.polygon[2 * k], y = layer.polygon[2 * k + 1];
        if (!std::isfinite(x) || !std::isfinite(y))
            return fail(AK_ERR_ARGUMENT, fn, "layer %d: polygon vertex %d is not finite", index, k);
        poly[static_cast<size_t>(k)] = Vec2(ss * x + (ss - 1) / 2, ss * y + (ss - 1) / 2);  // full-res px -> canvas px
    }
    simplify(poly);
    if (poly.size() < 3) return AK_OK;  // degenerate (a line or a point): nothing to draw
    if (!is_convex(poly)) return fail(AK_ERR_ARGUMENT, fn, "layer %d: polygon is not convex", index);

    const double det = plan.M.determinant(), scale = plan.M.norm();
    if (!std::isfinite(det) || !(std::abs(det) > 1e-14 * scale * scale * scale))
        return fail(AK_ERR_ARGUMENT, fn, "layer %d: homography is singular (the plane is seen edge-on)", index);
    const Mat3 Minv = plan.M.inverse();
    // The third coordinate of Minv * x is 1/w of the texture point seen at x: positive in front of
    // the camera, negative for the mirror image of points behind it, which a homography maps to
    // the same pixels. Only the sign of H tells them apart (K [r1 r2 t] has w = depth), which is
    // why it matters for a layer with a polygon.
    for (size_t k = 0; k < poly.size(); ++k) {
        if (!((Minv * Vec3(poly[k].x(), poly[k].y(), 1)).z() > 0))
            return fail(AK_ERR_ARGUMENT, fn,
                        "layer %d: polygon vertex %zu lies beyond the plane's horizon (behind the camera)", index, k);
    }
    // Texture edges as affine functions of canvas px: l . (Minv x) has the sign of (u + 0.5) etc.
    // where Minv x has a positive third coordinate; 1e-6 texel of slack keeps vertices that lie on
    // an edge (as after a clip in 3D) from being cut into slivers.
    const double w = layer.texture->mat.cols, h = layer.texture->mat.rows, slack = 1e-6;
    const Vec3 edges[4] = {{1, 0, 0.5 + slack}, {-1, 0, w - 0.5 + slack}, {0, 1, 0.5 + slack}, {0, -1, h - 0.5 + slack}};
    for (const Vec3 &l : edges) {
        poly = clip_half_plane(poly, Minv.transpose() * l);
        if (poly.size() < 3) return AK_OK;  // the polygon misses the texture
    }
    simplify(poly);
    if (poly.size() < 3) return AK_OK;
    plan.outline = std::move(poly);
    return place_outline(r, plan);
}

// Downscale level exponent for a shrink of `shrink` texels per canvas pixel: the smallest k with
// shrink / 2^k <= 2 (k = 0 unless the texture is shrunk by more than 2x).
int level_for(double shrink) {
    if (!(shrink > 2)) return 0;
    if (!std::isfinite(shrink)) return kMaxLevel;
    return std::min(kMaxLevel, static_cast<int>(std::floor(std::log2(shrink))));
}

int level_size(int n, int k) { return std::max(1, static_cast<int>(std::lround(std::ldexp(static_cast<double>(n), -k)))); }

void store_level(ak_renderer &r, ak_renderer::TextureEntry &entry, int kx, int ky, const cv::Mat &level);

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

    // Start from the smallest cached level that is at least as fine along both axes; the float
    // base level itself is cached too (it is the source of all the others).
    cv::Mat source;
    int best = -1;
    for (const auto &kv : entry.levels) {
        const int sx = kv.first.first, sy = kv.first.second;
        if (sx <= kx && sy <= ky && sx + sy > best) {
            best = sx + sy;
            source = kv.second;
        }
    }
    if (source.empty()) {
        if (texture.mat.channels() == 4) {
            // Colour in the renderer's channels, premultiplied by alpha, then alpha itself.
            cv::Mat colour, alpha;
            to_channels(texture.mat, r.channels).convertTo(colour, CV_32F);
            cv::extractChannel(texture.mat, alpha, 3);
            alpha.convertTo(alpha, CV_32F, 1.0 / 255);
            std::vector<cv::Mat> planes;
            cv::split(colour, planes);
            for (cv::Mat &p : planes) cv::multiply(p, alpha, p);
            planes.push_back(alpha);
            cv::merge(planes, source);
        } else {
            to_channels(texture.mat, r.channels).convertTo(source, CV_32F);
        }
        if (kx != 0 || ky != 0) store_level(r, entry, 0, 0, source);
    }
    cv::Mat level = source;
    if (kx != 0 || ky != 0)
        cv::resize(source, level, cv::Size(level_size(w, kx), level_size(h, ky)), 0, 0, cv::INTER_AREA);
    store_level(r, entry, kx, ky, level);
    return level;
}

// Caches a level if it fits in the budget, first dropping textures not used in this frame.
void store_level(ak_renderer &r, ak_renderer::TextureEntry &entry, int kx, int ky, const cv::Mat &level) {
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
}

// Horizontal bands of the layer's bounding box, each trimmed to the outline's x-extent (plus the
// 1-pixel coverage ramp). Only these are warped and composited.
std::vector<cv::Rect> make_bands(const LayerPlan &plan) {
    constexpr int kBand = 32;
    std::vector<cv::Rect> bands;
    const std::vector<Vec2> &q = plan.outline;
    const size_t n = q.size();
    const int roi_x0 = plan.roi.x, roi_x1 = plan.roi.x + plan.roi.width;
    for (int y0 = plan.roi.y; y0 < plan.roi.y + plan.roi.height; y0 += kBand) {
        const int y1 = std::min(y0 + kBand, plan.roi.y + plan.roi.height);
        // Pixel centres y0 ... y1-1, widened by the ramp: the outline's x-extent within [ya, yb] is
        // attained on its boundary, i.e. on the edges clipped to the strip.
        const double ya = y0 - 1.0, yb = y1;
        double xmin = HUGE_VAL, xmax = -HUGE_VAL;
        for (size_t k = 0; k < n; ++k) {
            Vec2 a = q[k], b = q[(k + 1) % n];
            if (a.y() > b.y()) std::swap(a, b);
            if (b.y() < ya || a.y() > yb) continue;
            const double dy = b.y() - a.y();
            auto x_at = [&](double y) { return dy > 1e-12 ? a.x() + (b.x() - a.x()) * (y - a.y()) / dy : a.x(); };
            const double xa = (a.y() >= ya) ? a.x() : x_at(ya);
            const double xb = (b.y() <= yb) ? b.x() : x_at(yb);
            xmin = std::min({xmin, xa, xb});
            xmax = std::max({xmax, xa, xb});
        }
        if (!(xmax >= xmin)) continue;
        const double xs = std::max<double>(roi_x0, std::floor(xmin) - 1);
        const double xe = std::min<double>(roi_x1, std::ceil(xmax) + 2);
        if (!(xe > xs)) continue;
        bands.emplace_back(static_cast<int>(xs), y0, static_cast<int>(xe - xs), y1 - y0);
    }
    return bands;
}

// Level of detail (ripmap exponents along u and v) for the canvas rectangle `t`: the geometric mean
// over a 3x3 grid of sample points of the texels per canvas pixel along u and v (|grad u|, |grad v|),
// each sample taken at the nearest point of the texture (the plane is projective, so the scale
// varies across a layer: a floor receding to the horizon gets finer levels near the camera).
std::pair<int, int> tile_lod(const LayerPlan &plan, const Mat3 &Minv, double tex_w, double tex_h, const cv::Rect &t) {
    const Mat3 &M = plan.M;
    double sum_u = 0, sum_v = 0;
    int n = 0;
    for (int j = 0; j < 3; ++j) {
        for (int i = 0; i < 3; ++i) {
            const Vec3 c(t.x + (t.width - 1) * 0.5 * i, t.y + (t.height - 1) * 0.5 * j, 1);
            const Vec3 p = Minv * c;
            if (!(p.z() > 0)) continue;  // beyond the plane's horizon: not on the layer
            const double u = std::clamp(p.x() / p.z(), -0.5, tex_w - 0.5);
            const double v = std::clamp(p.y() / p.z(), -0.5, tex_h - 0.5);
            // Forward Jacobian d(x, y)/d(u, v) at (u, v); its inverse's rows are grad u and grad v.
            const Vec3 f = M * Vec3(u, v, 1);
            const double x = f.x() / f.z(), y = f.y() / f.z();
            Eigen::Matrix2d J;
            J << (M(0, 0) - x * M(2, 0)) / f.z(), (M(0, 1) - x * M(2, 1)) / f.z(), (M(1, 0) - y * M(2, 0)) / f.z(),
                (M(1, 1) - y * M(2, 1)) / f.z();
            const double det = J.determinant();
            if (!(std::abs(det) > 1e-300)) continue;
            const Eigen::Matrix2d G = J.inverse();
            sum_u += std::log2(std::max(G.row(0).norm(), 1e-9));
            sum_v += std::log2(std::max(G.row(1).norm(), 1e-9));
            ++n;
        }
    }
    if (n == 0) return {0, 0};
    return {level_for(std::exp2(sum_u / n)), level_for(std::exp2(sum_v / n))};
}

struct Tile {
    cv::Rect rect;
    std::pair<int, int> lod;
};

void draw_layer(ak_renderer &r, LayerPlan &plan) {
    constexpr int kTileWidth = 64;
    const cv::Mat &tex = plan.texture->mat;
    const int w = tex.cols, h = tex.rows;
    const std::vector<Vec2> &q = plan.outline;
    const size_t n = q.size();
    const Mat3 Minv = plan.M.inverse();

    // Tiles: bands cut into 64-px pieces with their own level of detail; neighbours with the same
    // level are merged so that one warpPerspective call covers them.
    std::vector<Tile> tiles;
    for (const cv::Rect &band : make_bands(plan)) {
        for (int x0 = band.x; x0 < band.x + band.width; x0 += kTileWidth) {
            const cv::Rect piece(x0, band.y, std::min(kTileWidth, band.x + band.width - x0), band.height);
            const std::pair<int, int> lod = tile_lod(plan, Minv, w, h, piece);
            if (!tiles.empty() && tiles.back().lod == lod && tiles.back().rect.y == piece.y &&
                tiles.back().rect.x + tiles.back().rect.width == piece.x) {
                tiles.back().rect.width += piece.width;
            } else {
                tiles.push_back(Tile{piece, lod});
            }
        }
    }
    // Fetch the levels up front: the cache is not thread-safe.
    std::map<std::pair<int, int>, cv::Mat> levels;
    for (const Tile &t : tiles)
        if (!levels.count(t.lod)) levels[t.lod] = texture_level(r, *plan.texture, t.lod.first, t.lod.second);

    // Edge functions e_k(x, y) = a x + b y + c: signed distance (canvas px) to edge k, positive
    // inside, plus 0.5 so that clamp(e, 0, 1) is the pixel's coverage across that edge.
    // (The vertex mean is inside a convex outline; for a quad it is 0.25 * (q0 + q1 + q2 + q3).)
    Vec2 centroid = q[0];
    for (size_t k = 1; k < n; ++k) centroid += q[k];
    centroid *= 1.0 / static_cast<double>(n);
    double ea[kMaxPolygon + 4], eb[kMaxPolygon + 4], ec[kMaxPolygon + 4];  // clipping adds at most 4 vertices
    int edges = 0;
    for (size_t k = 0; k < n; ++k) {
        const Vec2 &p0 = q[k], &p1 = q[(k + 1) % n];
        const Vec2 d = p1 - p0;
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
    const bool alpha = tex.channels() == 4;
    const int sch = alpha ? ch + 1 : ch;  // sampled channels: colour (premultiplied), then alpha
    if (alpha && r.warped_alpha.size() != r.warped.size()) r.warped_alpha.create(r.warped.size(), CV_32FC(ch + 1));
    const float gain = static_cast<float>(plan.gain), bg = static_cast<float>(r.background);
    const float opacity = static_cast<float>(plan.opacity);
    const bool picture = !r.background_image.empty();
    cv::parallel_for_(cv::Range(0, static_cast<int>(tiles.size())), [&](const cv::Range &range) {
        for (int i = range.start; i < range.end; ++i) {
            const Tile &tile = tiles[static_cast<size_t>(i)];
            const cv::Rect &rect = tile.rect;
            const cv::Mat &level = levels.at(tile.lod);
            // level px -> texture px -> canvas px -> tile px
            Mat3 T = Mat3::Identity();
            T(0, 2) = -rect.x;
            T(1, 2) = -rect.y;
            const Mat3 W = T * plan.M * rescale(static_cast<double>(w) / level.cols, static_cast<double>(h) / level.rows);
            cv::Mat Wcv;
            cv::eigen2cv(W, Wcv);
            // The warp scratch is canvas-sized; disjoint tiles use disjoint parts of it.
            cv::Mat warped = (alpha ? r.warped_alpha : r.warped)(rect);
            cv::warpPerspective(level, warped, Wcv, rect.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);

            // The canvas holds (value - background), background b being a gray level or a picture:
            // canvas' = canvas * (1 - m) + (gain * texture - b) * m, with m = coverage * opacity;
            // with alpha a (colour premultiplied, c = gain * a * texture), m = coverage * opacity * a:
            // canvas' = canvas * (1 - m) + (c - a * b) * coverage * opacity.
            for (int y = 0; y < rect.height; ++y) {
                const double cy = rect.y + y;
                double row[kMaxPolygon + 4];
                for (int k = 0; k < edges; ++k) row[k] = eb[k] * cy + ec[k];
                float *dst = r.canvas.ptr<float>(rect.y + y) + static_cast<size_t>(rect.x) * ch;
                const uint8_t *back = picture ? r.background_image.ptr<uint8_t>(rect.y + y) + static_cast<size_t>(rect.x) * ch : nullptr;
                const float *src = warped.ptr<float>(y);
                for (int x = 0; x < rect.width; ++x, dst += ch, src += sch, back += picture ? ch : 0) {
                    const double cx = rect.x + x;
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
                    const float m = static_cast<float>(cov) * opacity;
                    if (alpha) {
                        const float a = src[ch], keep = 1.0f - m * a;
                        for (int c = 0; c < ch; ++c) dst[c] = dst[c] * keep + (src[c] * gain - a * (back ? back[c] : bg)) * m;
                    } else {
                        const float keep = 1.0f - m;
                        for (int c = 0; c < ch; ++c) dst[c] = dst[c] * keep + (src[c] * gain - (back ? back[c] : bg)) * m;
                    }
                }
            }
        }
    });
    plan.bands.clear();
    for (const Tile &t : tiles) plan.bands.push_back(t.rect);
}

// Starts a frame: clears the exposure (where the last frame touched it) and evicts textures the
// previous frame did not use.
void begin_frame(ak_renderer *renderer, double background) {
    renderer->accum(renderer->accum_dirty).setTo(cv::Scalar::all(0));
    renderer->accum_dirty = cv::Rect();
    if (renderer->canvas_dirty) {
        renderer->canvas.setTo(cv::Scalar::all(0));
        renderer->canvas_dirty = false;
    }
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
        r->canvas.setTo(cv::Scalar::all(0));
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
        begin_frame(renderer, background);
        renderer->background_image.release();
        return AK_OK;
    });
}

ak_status ak_renderer_begin_image(ak_renderer *renderer, const ak_image *background) {
    static const char *fn = "ak_renderer_begin_image";
    return guarded(fn, [&]() -> ak_status {
        if (!renderer) return fail(AK_ERR_ARGUMENT, fn, "renderer is NULL");
        if (ak_status s = check_image(fn, background, "background")) return s;
        if (renderer->ss != 1) return fail(AK_ERR_ARGUMENT, fn, "a picture background needs supersampling 1, not %d", renderer->ss);
        if (background->mat.cols != renderer->width || background->mat.rows != renderer->height)
            return fail(AK_ERR_ARGUMENT, fn, "background is %dx%d, the renderer %dx%d", background->mat.cols,
                        background->mat.rows, renderer->width, renderer->height);
        if (background->mat.channels() != renderer->channels && renderer->channels != 3)
            return fail(AK_ERR_ARGUMENT, fn, "a BGR background on a gray renderer");
        begin_frame(renderer, 0);
        // Shares the picture's pixels (reference-counted, never written).
        renderer->background_image = to_channels(background->mat, renderer->channels);
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

        ak_renderer &r = *renderer;
        if (r.canvas_dirty) {
            r.canvas.setTo(cv::Scalar::all(0));
            r.canvas_dirty = false;
        }
        r.canvas_dirty = true;  // until the touched rectangles are zero again
        for (LayerPlan &plan : plans)
            if (plan.visible) draw_layer(r, plan);
        // Move the instant into the exposure. Rectangles may overlap: the second pass over an
        // overlap adds zeros, which is right.
        for (const LayerPlan &plan : plans) {
            if (!plan.visible) continue;
            for (const cv::Rect &band : plan.bands) {
                cv::Mat acc = r.accum(band), can = r.canvas(band);
                r.accum_dirty |= band;
                cv::add(acc, can, acc);
                can.setTo(cv::Scalar::all(0));
            }
        }
        r.canvas_dirty = false;
        r.instants += 1;
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
        const bool untinted = p.tint[0] == 0 && p.tint[1] == 0 && p.tint[2] == 0;
        for (double t : p.tint)
            if (!std::isfinite(t) || t < 0 || (!untinted && t == 0))
                return fail(AK_ERR_ARGUMENT, fn, "tint must be three positive finite factors (or all 0: none)");

        ak_renderer &r = *renderer;
        const int ch = r.channels;
        const cv::Size size(r.width, r.height);
        if (!r.background_image.empty()) {
            // Over a picture: the picture, changed only where layers were drawn.
            if (p.gain != 1 || p.bias != 0 || p.noise_sigma != 0 || p.shot_noise != 0 || p.vignetting != 0 || p.jpeg_quality != 0 ||
                !untinted)
                return fail(AK_ERR_ARGUMENT, fn, "a frame begun over a picture takes no lighting, noise or JPEG effects");
            cv::Mat frame = r.background_image.clone();
            if (!r.accum_dirty.empty()) {
                cv::Mat drawn;
                r.background_image(r.accum_dirty).convertTo(drawn, CV_32F);
                cv::scaleAdd(r.accum(r.accum_dirty), 1.0 / r.instants, drawn, drawn);
                drawn.convertTo(frame(r.accum_dirty), CV_8U);  // rounds and saturates to 0...255
            }
            *out = make_image(std::move(frame));
            return AK_OK;
        }
        // Average of the instants, then the ss x ss box filter down to full resolution.
        // (the buffers are relative to the background: add it back)
        if (r.ss == 1) {
            r.accum.convertTo(r.small, CV_32F, 1.0 / r.instants, r.background);
        } else {
            r.accum.convertTo(r.mean, CV_32F, 1.0 / r.instants, r.background);
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
        float gains[4] = {gain, gain, gain, gain};
        if (!untinted && ch >= 3)
            for (int c = 0; c < 3; ++c) gains[c] = static_cast<float>(p.gain * p.tint[c]);
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
                    float s = gains[c] * (v[i] * light) + bias;
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
