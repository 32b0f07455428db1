/* anchorkit_status.h — AnchorKit's C boundary: status.
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header. */
#ifndef ANCHORKIT_STATUS_H
#define ANCHORKIT_STATUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    AK_OK = 0,
    AK_END_OF_STREAM = 1,  /* a reader has no more frames: not an error */
    AK_ERR_ARGUMENT = 2,   /* a parameter is invalid (null, out of range, sizes disagree) */
    AK_ERR_IO = 3,         /* a file cannot be opened, read or written */
    AK_ERR_DECODE = 4,     /* a file exists but cannot be decoded (corrupt, unsupported) */
    AK_ERR_OPENCV = 5,     /* OpenCV threw cv::Exception */
    AK_ERR_INTERNAL = 6    /* any other C++ exception (e.g. std::bad_alloc) */
} ak_status;

/* The message of the last failing call on this thread ("" if none). Never NULL. */
const char *ak_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
