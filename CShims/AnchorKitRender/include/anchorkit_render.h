/*
 * anchorkit_render.h — the rasteriser (render.cpp: textured planes with motion blur, lighting and
 * sensor noise, for synthesised sequences and composited overlays) and 2-D drawing (draw.cpp:
 * strokes, labels and cards for overlays and debug views). Apart from anchorkit_cv.h because
 * only rendering and test-data generation use them; an engine's core does not.
 *
 * The rules of anchorkit_cv.h apply: status codes, ak_last_error(), opaque handles, no OpenCV
 * types, pixel centres at integer coordinates.
 */
#ifndef ANCHORKIT_RENDER_H
#define ANCHORKIT_RENDER_H

#include "anchorkit_cv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- synthetic rendering */

/* A renderer accumulates several instants of one exposure (motion blur) of a stack of textured
 * planes, then finishes the frame with lighting and sensor noise. Rendering is supersampled
 * (anti-aliased edges, no aliasing of small textures). */
typedef struct ak_renderer ak_renderer;

typedef struct {
    const ak_image *texture;   /* gray, BGR, or BGRA (straight alpha: painted with its alpha) */
    double homography[9];      /* texture px -> image px (row-major), at this instant */
    double gain;               /* multiplies the texture's intensity (lighting on this plane) */
    /* Optional outline (added later; a zero-initialised layer has none). NULL: the whole texture
     * is painted, and all of it must map in front of the camera (today's quad). Otherwise
     * `polygon_count` (3...64) vertices x0, y0, x1, y1, ... in image px of a convex polygon, in
     * either winding: only the part of the texture inside it is painted. This is how a plane that
     * extends behind the camera is drawn: clip it against a near plane in 3D, project the clipped
     * polygon, and pass the homography of the whole plane (still exact in front of the camera).
     * With a polygon the homography's sign matters: its third row must give w > 0 for texture
     * points in front of the camera (as K [r1 r2 t] does: w is the depth), since points behind
     * the camera map to the same pixels with w < 0; every vertex must see the plane in front. */
    const double *polygon;
    int polygon_count;
    /* 0 (a zero-initialised layer): opaque as its texture; up to 1: invisible. Multiplies the
     * coverage (and the texture's alpha), so that overlays can be drawn half-transparent. */
    double transparency;
} ak_layer;

typedef struct {
    double gain, bias;          /* out = gain * in + bias, in 0..255 units */
    double noise_sigma;         /* Gaussian read noise, 0..255 units */
    double shot_noise;          /* signal-dependent noise: sigma = shot_noise * sqrt(value) */
    double vignetting;          /* 0 = none; corner brightness = 1 - vignetting */
    uint64_t seed;              /* noise seed: the same seed gives the same frame */
    int jpeg_quality;           /* 0 = none; else re-encode with this JPEG quality (artefacts) */
    double tint[3];             /* colour cast: B, G, R multiplied by these with the gain (gray
                                 * images: none); all 0 (zero-initialised) = no cast */
} ak_finish_params;

ak_status ak_renderer_create(int width, int height, int channels, int supersampling, ak_renderer **out);
void ak_renderer_free(ak_renderer *renderer);
/* Starts a new frame; the background is `background` (0..255 gray level). */
ak_status ak_renderer_begin(ak_renderer *renderer, double background);
/* Starts a new frame over a picture (compositing overlays onto a video frame): `background` has
 * the renderer's size and channels (gray is widened to BGR); the renderer's supersampling must
 * be 1 (edges are anti-aliased by their analytic coverage). */
ak_status ak_renderer_begin_image(ak_renderer *renderer, const ak_image *background);
/* Renders one instant: layers are painted in order (later ones occlude earlier ones), and the
 * instant is added to the exposure with equal weight. */
ak_status ak_renderer_add_instant(ak_renderer *renderer, const ak_layer *layers, int count);
/* Averages the instants, applies lighting and noise, and returns the 8-bit frame. */
ak_status ak_renderer_finish(ak_renderer *renderer, const ak_finish_params *params, ak_image **out);

/* ---------------------------------------------------------------- drawing (overlays, debug views) */

/* A polyline, or a dot when it has one point. */
typedef struct {
    const double *points;  /* x0, y0, x1, y1, ... in image px (pixel centres at integers) */
    int count;             /* points, >= 1 */
    int closed;            /* non-zero: the last point joins the first */
    uint8_t bgr[3];        /* colour */
    double thickness;      /* line width in px (a dot's diameter), > 0 */
} ak_stroke;

/* A line of text. */
typedef struct {
    double x, y;           /* the left end of its baseline, image px */
    const char *text;      /* printable ASCII (other bytes are drawn as '?') */
    uint8_t bgr[3];        /* colour */
    double height;         /* height of capitals in px, > 0 */
    int backdrop;          /* non-zero: a dark translucent box behind it, for legibility */
} ak_label;

/* A copy of a 1- or 3-channel image (widened to BGR) with anti-aliased strokes, then labels,
 * drawn over it in order. */
ak_status ak_image_draw(const ak_image *image, const ak_stroke *strokes, int stroke_count, const ak_label *labels,
                        int label_count, ak_image **out);

/* A width x height BGRA card filled with `bgra` (straight alpha) carrying `label` (may be NULL or
 * empty) centred, as large as fits, in black or white, whichever contrasts more with the fill. */
ak_status ak_image_card(int width, int height, const uint8_t bgra[4], const char *label, ak_image **out);

#ifdef __cplusplus
}
#endif

#endif
