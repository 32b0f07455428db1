/* anchorkit_image.h — AnchorKit's C boundary: images.
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header. */
#ifndef ANCHORKIT_IMAGE_H
#define ANCHORKIT_IMAGE_H

#include "anchorkit_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ak_image ak_image;

/* Decodes an image file (PNG, JPEG, TIFF, BMP, WebP, PNM, PAM, Sun raster). `channels` is 1 (gray),
 * 3 (BGR) or 4 (BGRA, straight alpha: a file without alpha is opaque; 16-bit files are scaled to
 * 8 bits). Before decoding, the size in the header is checked (AK_ERR_ARGUMENT when too large),
 * and a PNG must pass its CRCs up to IEND and a JPEG decode without libjpeg warnings
 * (AK_ERR_DECODE otherwise). */
ak_status ak_image_read(const char *path, int channels, ak_image **out);
/* The pixel size an image file's header states, without decoding it. Fails like ak_image_read
 * for a missing file, an unsupported format, a corrupt header or an image too large. */
ak_status ak_image_probe(const char *path, int *width, int *height);

/* Makes an image of width x height x channels (1, 3 or 4). If `data` is non-NULL it is copied
 * (row stride `stride` bytes); otherwise the image is filled with `fill` (0..255). */
ak_status ak_image_create(int width, int height, int channels, const uint8_t *data, size_t stride,
                          uint8_t fill, ak_image **out);

/* Releases an image; NULL is allowed. */
void ak_image_free(ak_image *image);

/* Width and height in pixels, channel count, and a pointer to the first row with its stride in
 * bytes. The pointer stays valid until the image is freed. */
void ak_image_info(const ak_image *image, int *width, int *height, int *channels);
const uint8_t *ak_image_pixels(const ak_image *image, size_t *stride);

/* A copy converted to `channels` (1, 3 or 4; alpha is dropped, or added opaque). */
ak_status ak_image_convert(const ak_image *image, int channels, ak_image **out);

/* Resizes to width x height (INTER_AREA when shrinking, INTER_LINEAR when growing). */
ak_status ak_image_resize(const ak_image *image, int width, int height, ak_image **out);

/* The width x height image whose pixel (u, v) is this image at H (u, v, 1), H row-major (pixel
 * centres at integers); bilinear, mid-gray (128) where H lands outside the image. */
ak_status ak_image_warp_perspective(const ak_image *image, const double h[9], int width, int height, ak_image **out);

/* A copy blurred as by a camera moving (dx, dy) px during the exposure: averaged along that
 * segment, centred on each pixel (a uniform line kernel; borders replicated). At most 256 px. */
ak_status ak_image_motion_blur(const ak_image *image, double dx, double dy, ak_image **out);

/* The image's mean colour in linear light: each sampled pixel's 8-bit sRGB values decoded to
 * linear light (0...1, the sRGB transfer curve) and averaged, as R, G, B (gray images give three
 * equal means). Pixels are sampled on a grid of about 160 across (all of a smaller image). */
ak_status ak_image_linear_mean(const ak_image *image, double rgb[3]);

/* Encodes to a file; the format follows the extension (.png, .jpg, ...). */
ak_status ak_image_write(const ak_image *image, const char *path);

#ifdef __cplusplus
}
#endif

#endif
