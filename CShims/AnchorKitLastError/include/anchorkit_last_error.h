/* anchorkit_last_error.h — the one-line message of the last failing call on a thread, shared by
 * the C shims (AnchorKitCV's ak_last_error, AnchorKitGeodesy's ak_geodesy_last_error). */
#ifndef ANCHORKIT_LAST_ERROR_H
#define ANCHORKIT_LAST_ERROR_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records "<fn>: <fmt formatted with args>" as this thread's last error, on one line (control
 * characters become spaces, runs of spaces collapse); truncated at 1023 bytes. Never allocates,
 * so it is safe inside a catch block. */
void ak_record_error(const char *fn, const char *fmt, va_list args);

/* The last message recorded on this thread ("" if none). Never NULL. */
const char *ak_recorded_error(void);

#ifdef __cplusplus
}
#endif

#endif
