/* anchorkit_video.h — AnchorKit's C boundary: video.
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header. */
#ifndef ANCHORKIT_VIDEO_H
#define ANCHORKIT_VIDEO_H

#include "anchorkit_image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ak_video_reader ak_video_reader;

typedef struct {
    int width, height;     /* pixels */
    double fps;            /* frames per second as stored in the container (0 if unknown) */
    int64_t frame_count;   /* as stored in the container (-1 if unknown); may be an estimate */
} ak_video_info;

/* Opens a video file with OpenCV's FFmpeg back end. Fails with AK_ERR_IO for a missing file and
 * AK_ERR_DECODE when the file cannot be demuxed or its first frame cannot be decoded. */
ak_status ak_video_reader_open(const char *path, ak_video_reader **out, ak_video_info *info);

/* Decodes the next frame as BGR. Returns AK_END_OF_STREAM (with *out = NULL) after the last one. */
ak_status ak_video_reader_read(ak_video_reader *reader, ak_image **out);

void ak_video_reader_free(ak_video_reader *reader);

typedef struct ak_video_writer ak_video_writer;

/* Opens a video file for writing. `fourcc` is a 4-character code ("mp4v", "avc1", "MJPG");
 * NULL picks "mp4v". Frames must be width x height, 1 or 3 channels. */
ak_status ak_video_writer_open(const char *path, int width, int height, double fps, const char *fourcc,
                               ak_video_writer **out);
ak_status ak_video_writer_write(ak_video_writer *writer, const ak_image *frame);
/* Finishes the file (writes the trailer) and frees the writer. */
ak_status ak_video_writer_close(ak_video_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
