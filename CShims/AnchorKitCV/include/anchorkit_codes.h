/* anchorkit_codes.h — AnchorKit's C boundary: 2-D codes (QR, Micro QR, Data Matrix, Aztec).
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header.
 *
 * Decoding is zxing-cpp's (Debian libzxing-dev); OpenCV's cv::QRCodeDetector is behind the same
 * calls as a peer for benchmarks. A QR code's corners are then refined to sub-pixel accuracy from
 * the corners of its three finder patterns (qr_refinement.cpp). */
#ifndef ANCHORKIT_CODES_H
#define ANCHORKIT_CODES_H

#include "anchorkit_image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Symbologies, as bits of ak_code_params.formats and as ak_code_detection.format. */
typedef enum {
    AK_CODE_QR = 1,
    AK_CODE_MICRO_QR = 2,
    AK_CODE_DATA_MATRIX = 4,
    AK_CODE_AZTEC = 8
} ak_code_format;

typedef enum {
    AK_CODE_READER_ZXING = 0,  /* zxing-cpp: every format above; the default */
    AK_CODE_READER_OPENCV = 1, /* cv::QRCodeDetector: QR only, no refinement. It decodes only where
                                * OpenCV was built with quirc (Debian's is not): otherwise codes
                                * are located, with decoded = 0 */
    AK_CODE_READER_OPENCV_WECHAT = 2 /* contrib's cv::wechat_qrcode::WeChatQRCode, without its CNN
                                      * models: QR only, no refinement */
} ak_code_reader_kind;

typedef struct {
    ak_code_reader_kind reader; /* default ZXING */
    int formats;                /* bits of ak_code_format; default QR | MICRO_QR | DATA_MATRIX | AZTEC */
    int try_harder;             /* zxing: more scan lines and both binarisers' retries; default 1 */
    int try_rotate;             /* zxing: also rotated 90 degrees (for linear scans); default 0 */
    int refine_qr;              /* 1: QR corners refined from the finder patterns; default 1 */
    int retries;                /* zxing: when nothing is read, once more with the global-histogram
                                 * binariser, then on a sharpened copy (low contrast, soft focus);
                                 * default 1 */
} ak_code_params;

void ak_code_params_default(ak_code_params *params);

typedef struct ak_code_reader ak_code_reader;

ak_status ak_code_reader_create(const ak_code_params *params, ak_code_reader **out);
void ak_code_reader_free(ak_code_reader *reader);

typedef struct {
    int format;        /* one ak_code_format */
    float corners[8];  /* x0,y0 ... x3,y3 px: TL, TR, BR, BL of the symbol in its own orientation
                        * (QR: finder patterns at TL, TR, BL), quiet zone excluded */
    int modules;       /* QR: modules per side (21, 25, ... 177) when measured; else 0 */
    int refined;       /* 1 when the corners come from the finder patterns' sub-pixel corners */
    int payload_offset;/* the payload's bytes in the reader's buffer (ak_code_reader_payloads) */
    int payload_length;
    int decoded;       /* 1: the payload was read; 0: the code was only located (no payload) */
    int is_text;       /* 1: the payload is text, UTF-8 (converted from the code's character set
                        * when it declared or implied another); 0: bytes, as the code holds them */
} ak_code_detection;

/* Reads the codes in one frame (gray or BGR). Writes at most `capacity` detections, in the order
 * of their top-left corners (row-major, for determinism), and sets *count to the number found
 * (which may exceed capacity: call again with more room). Payloads stay in the reader until its
 * next read call. */
ak_status ak_code_reader_read(ak_code_reader *reader, const ak_image *image, ak_code_detection *detections,
                              int capacity, int *count);

/* The payload bytes of the last read call (ak_code_detection.payload_offset/length index it); the
 * pointer stays valid until the reader's next call. */
const uint8_t *ak_code_reader_payloads(const ak_code_reader *reader, int *length);

/* Follows a QR code this reader has read before, holding `payload` (`length` bytes, as read), from
 * predicted corners (TL, TR, BR, BL) into a frame where it could not be read (blurred, partly
 * hidden): the code's picture as last read is aligned to the image from there, coarse to fine,
 * as a marker's is followed. *correlation (-1...1) compares the aligned picture with the image;
 * NaN (corners unchanged) when the code was never read with its modules measured, or the
 * alignment fails. */
ak_status ak_code_reader_follow(ak_code_reader *reader, const ak_image *image, const uint8_t *payload, int length,
                                const float predicted[8], float corners[8], double *correlation);

/* Where the reader's time went since it was made, wall-clock seconds: the decoder (zxing-cpp or
 * OpenCV, retries included), QR corner refinement (finder corners, sizes tried, template
 * alignment), and following. */
typedef struct {
    double reading, refinement, following;
    int calls; /* read and follow calls */
} ak_code_profile;

void ak_code_reader_profile(const ak_code_reader *reader, ak_code_profile *profile);

/* Draws a QR code holding `length` bytes: as UTF-8 text with `is_text`, else as bytes (byte mode,
 * no character set declared). `module_pixels` px per module and `quiet_modules` of quiet zone on
 * each side; error correction level M. *modules gets the symbol's modules per side. */
ak_status ak_qr_draw(const uint8_t *payload, int length, int is_text, int module_pixels, int quiet_modules,
                     ak_image **out, int *modules);

#ifdef __cplusplus
}
#endif

#endif
