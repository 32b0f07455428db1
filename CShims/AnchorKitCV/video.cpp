// video.cpp — video files through OpenCV's FFmpeg back end.
#include "internal.hpp"

#include <cmath>
#include <cstring>

using namespace akcv;

namespace {

// Decoded frames as 8-bit BGR, whatever the back end handed over.
cv::Mat to_bgr8(const cv::Mat &frame) {
    cv::Mat f = frame;
    if (f.depth() != CV_8U) {
        cv::Mat tmp;
        f.convertTo(tmp, CV_8U, f.depth() == CV_16U ? 1.0 / 257.0 : 1.0);
        f = tmp;
    }
    cv::Mat out;
    switch (f.channels()) {
    case 3: out = f; break;
    case 1: cv::cvtColor(f, out, cv::COLOR_GRAY2BGR); break;
    case 4: cv::cvtColor(f, out, cv::COLOR_BGRA2BGR); break;
    default: CV_Error(cv::Error::StsUnsupportedFormat, "unsupported channel count in decoded frame");
    }
    return out;
}

}  // namespace

extern "C" {

ak_status ak_video_reader_open(const char *path, ak_video_reader **out, ak_video_info *info) {
    static const char *fn = "ak_video_reader_open";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (info) *info = ak_video_info{0, 0, 0.0, -1};
        if (ak_status s = check_readable_file(fn, path)) return s;

        std::unique_ptr<ak_video_reader> reader(new ak_video_reader);
        if (!reader->cap.open(path, cv::CAP_FFMPEG) || !reader->cap.isOpened())
            return fail(AK_ERR_DECODE, fn, "cannot open video (not a video or unsupported codec): %s", path);

        cv::Mat first;
        if (!reader->cap.grab() || !reader->cap.retrieve(first) || first.empty())
            return fail(AK_ERR_DECODE, fn, "cannot decode the first frame of %s", path);
        reader->first = to_bgr8(first);
        if (!reader->first.isContinuous()) reader->first = reader->first.clone();
        reader->has_first = true;

        if (info) {
            // The decoded frame is the truth for the size; the container's fields are as stored.
            info->width = reader->first.cols;
            info->height = reader->first.rows;
            double fps = reader->cap.get(cv::CAP_PROP_FPS);
            info->fps = (std::isfinite(fps) && fps > 0) ? fps : 0.0;
            double frames = reader->cap.get(cv::CAP_PROP_FRAME_COUNT);
            info->frame_count = (std::isfinite(frames) && frames > 0) ? static_cast<int64_t>(std::llround(frames)) : -1;
        }
        *out = reader.release();
        return AK_OK;
    });
}

ak_status ak_video_reader_read(ak_video_reader *reader, ak_image **out) {
    static const char *fn = "ak_video_reader_read";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (!reader) return fail(AK_ERR_ARGUMENT, fn, "reader is NULL");
        if (reader->has_first) {
            reader->has_first = false;
            *out = make_image(std::move(reader->first));
            reader->first = cv::Mat();
            return AK_OK;
        }
        cv::Mat frame;  // fresh each time: the returned image owns its pixels
        if (!reader->cap.isOpened() || !reader->cap.read(frame) || frame.empty()) return AK_END_OF_STREAM;
        *out = make_image(to_bgr8(frame));
        return AK_OK;
    });
}

void ak_video_reader_free(ak_video_reader *reader) {
    if (!reader) return;
    try {
        reader->cap.release();
    } catch (...) {
    }
    delete reader;
}

ak_status ak_video_writer_open(const char *path, int width, int height, double fps, const char *fourcc,
                               ak_video_writer **out) {
    static const char *fn = "ak_video_writer_open";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (!path || !*path) return fail(AK_ERR_ARGUMENT, fn, "path is NULL or empty");
        if (ak_status s = check_size(fn, width, height)) return s;
        // OpenCV 4.6's FFmpeg writer silently drops the last column/row of odd-sized frames
        // (4:2:0 chroma): refuse rather than write a file of another size.
        if ((width | height) & 1)
            return fail(AK_ERR_ARGUMENT, fn, "width and height must be even for video, got %dx%d", width, height);
        if (!std::isfinite(fps) || fps <= 0 || fps > 1000)
            return fail(AK_ERR_ARGUMENT, fn, "fps must be in (0, 1000], got %g", fps);
        const char *code = fourcc ? fourcc : "mp4v";
        if (std::strlen(code) != 4)
            return fail(AK_ERR_ARGUMENT, fn, "fourcc must be 4 characters, got \"%s\"", code);
        const int cc = cv::VideoWriter::fourcc(code[0], code[1], code[2], code[3]);

        std::unique_ptr<ak_video_writer> writer(new ak_video_writer);
        writer->size = cv::Size(width, height);
        if (!writer->writer.open(path, cv::CAP_FFMPEG, cc, fps, writer->size, true) || !writer->writer.isOpened())
            return fail(AK_ERR_IO, fn, "cannot open %s for writing with fourcc \"%s\" (bad path, or codec/container unsupported)",
                        path, code);
        *out = writer.release();
        return AK_OK;
    });
}

ak_status ak_video_writer_write(ak_video_writer *writer, const ak_image *frame) {
    static const char *fn = "ak_video_writer_write";
    return guarded(fn, [&]() -> ak_status {
        if (!writer) return fail(AK_ERR_ARGUMENT, fn, "writer is NULL");
        if (ak_status s = check_image(fn, frame, "frame")) return s;
        const cv::Mat &m = frame->mat;
        if (m.cols != writer->size.width || m.rows != writer->size.height)
            return fail(AK_ERR_ARGUMENT, fn, "frame is %dx%d but the writer was opened for %dx%d", m.cols, m.rows,
                        writer->size.width, writer->size.height);
        if (m.channels() == 1) {
            cv::cvtColor(m, writer->bgr, cv::COLOR_GRAY2BGR);
            writer->writer.write(writer->bgr);
        } else {
            writer->writer.write(m);
        }
        return AK_OK;
    });
}

ak_status ak_video_writer_close(ak_video_writer *writer) {
    static const char *fn = "ak_video_writer_close";
    if (!writer) return AK_OK;
    ak_status status = guarded(fn, [&]() -> ak_status {
        writer->writer.release();
        return AK_OK;
    });
    delete writer;
    return status;
}

}  // extern "C"
