// imagefile.cpp — what an image file is before OpenCV decodes it: its format and pixel size from
// the header, and whether a PNG or JPEG is whole. OpenCV 4.6 has no public header-only API, and
// imread allocates the full image (and prints libpng/libjpeg complaints) before anything can be
// refused, so enormous, truncated and corrupt files are caught here first.
#include "internal.hpp"

#include <jpeglib.h>
#include <zlib.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>

namespace akcv {

namespace {

struct FileCloser {
    void operator()(std::FILE *f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Reads `n` bytes at `offset`; false past the end.
bool read_at(std::FILE *f, long long offset, unsigned char *out, size_t n) {
    return offset >= 0 && std::fseek(f, static_cast<long>(offset), SEEK_SET) == 0 && std::fread(out, 1, n, f) == n;
}

uint64_t be(const unsigned char *b, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | b[i];
    return v;
}

uint64_t le(const unsigned char *b, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[i];
    return v;
}

// The first IFD's ImageWidth (256) and ImageLength (257), classic TIFF or BigTIFF.
bool tiff_size(std::FILE *f, const unsigned char *b, long long &width, long long &height) {
    const bool little = b[0] == 'I';
    auto num = [little](const unsigned char *p, int n) { return little ? le(p, n) : be(p, n); };
    const bool big = num(b + 2, 2) == 43;
    unsigned char h[16];
    if (!read_at(f, 0, h, 16)) return false;
    const uint64_t ifd = big ? num(h + 8, 8) : num(h + 4, 4);
    unsigned char c[8];
    if (ifd > (1ULL << 62) || !read_at(f, static_cast<long long>(ifd), c, big ? 8 : 2)) return false;
    const uint64_t count = big ? num(c, 8) : num(c, 2);
    const int entry = big ? 20 : 12, field = big ? 12 : 8;
    width = height = -1;
    for (uint64_t i = 0; i < count && i < 4096 && (width < 0 || height < 0); ++i) {
        unsigned char e[20];
        if (!read_at(f, static_cast<long long>(ifd + (big ? 8 : 2) + i * entry), e, entry)) return false;
        const uint64_t tag = num(e, 2), type = num(e + 2, 2);
        if (tag != 256 && tag != 257) continue;
        // SHORT, LONG or LONG8, stored left-aligned in the value field.
        const uint64_t v = type == 3 ? num(e + field, 2) : type == 4 ? num(e + field, 4) : type == 16 ? num(e + field, 8) : 0;
        const long long value = v > (1ULL << 40) ? (1LL << 40) : static_cast<long long>(v);
        (tag == 256 ? width : height) = value;
    }
    return width >= 0 && height >= 0;
}

// Header fields of the PNM family: whitespace-separated numbers with # comments.
bool pnm_numbers(std::FILE *f, long long *values, int n) {
    if (std::fseek(f, 2, SEEK_SET) != 0) return false;
    for (int i = 0; i < n; ++i) {
        int c = std::fgetc(f);
        while (c == '#' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            if (c == '#')
                while (c != '\n' && c != EOF) c = std::fgetc(f);
            c = std::fgetc(f);
        }
        long long v = 0;
        int digits = 0;
        for (; c >= '0' && c <= '9' && digits < 12; c = std::fgetc(f), ++digits) v = v * 10 + (c - '0');
        if (digits == 0) return false;
        values[i] = v;
    }
    return true;
}

// PAM (P7): "WIDTH n" and "HEIGHT n" lines before ENDHDR.
bool pam_size(std::FILE *f, long long &width, long long &height) {
    if (std::fseek(f, 0, SEEK_SET) != 0) return false;
    char line[256];
    width = height = -1;
    for (int i = 0; i < 64 && std::fgets(line, sizeof line, f); ++i) {
        long long v = 0;
        if (std::sscanf(line, "WIDTH %lld", &v) == 1) width = v;
        if (std::sscanf(line, "HEIGHT %lld", &v) == 1) height = v;
        if (std::strncmp(line, "ENDHDR", 6) == 0) break;
    }
    return width >= 0 && height >= 0;
}

// The segments of a JPEG up to its end: the frame size from the first start-of-frame marker,
// and whether the end-of-image marker is reached (a cut file lacks it).
bool jpeg_size(std::FILE *f, long long &width, long long &height, bool &complete) {
    if (std::fseek(f, 2, SEEK_SET) != 0) return false;
    width = height = -1;
    complete = false;
    int c = std::fgetc(f);
    while (c != EOF) {
        if (c != 0xFF) return width >= 0;  // garbage where a marker belongs
        while (c == 0xFF) c = std::fgetc(f);
        if (c == EOF) break;
        const int marker = c;
        if (marker == 0xD9) { complete = true; break; }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { c = std::fgetc(f); continue; }
        unsigned char l[2];
        if (std::fread(l, 1, 2, f) != 2) break;
        const long length = static_cast<long>(be(l, 2));
        if (length < 2) return false;
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC && width < 0) {
            unsigned char s[5];
            if (std::fread(s, 1, 5, f) != 5) break;
            height = static_cast<long long>(be(s + 1, 2));
            width = static_cast<long long>(be(s + 3, 2));
            if (std::fseek(f, length - 7, SEEK_CUR) != 0) break;
        } else if (std::fseek(f, length - 2, SEEK_CUR) != 0) {
            break;
        }
        c = std::fgetc(f);
        if (marker == 0xDA) {
            // Entropy-coded data: runs to the next marker that is not a stuffed 0xFF00 or a restart.
            for (;;) {
                while (c != EOF && c != 0xFF) c = std::fgetc(f);
                if (c == EOF) break;
                int next = std::fgetc(f);
                while (next == 0xFF) next = std::fgetc(f);
                if (next == EOF) { c = EOF; break; }
                if (next == 0x00 || (next >= 0xD0 && next <= 0xD7)) { c = std::fgetc(f); continue; }
                std::fseek(f, -1, SEEK_CUR);
                c = 0xFF;
                break;
            }
        }
    }
    return width >= 0;
}

// libjpeg reports corrupt data as warnings (printed to stderr, the image decoded anyway) and
// fatal errors through error_exit (which must not return): both are kept here instead.
struct JpegErrors {
    jpeg_error_mgr pub;
    std::jmp_buf jump;
    char first[JMSG_LENGTH_MAX] = "";
    int warnings = 0;

    static void exit(j_common_ptr cinfo) {
        auto *self = reinterpret_cast<JpegErrors *>(cinfo->err);
        self->pub.format_message(cinfo, self->first);
        std::longjmp(self->jump, 1);
    }
    static void emit(j_common_ptr cinfo, int level) {
        auto *self = reinterpret_cast<JpegErrors *>(cinfo->err);
        if (level >= 0 || self->warnings++ > 0) return;
        self->pub.format_message(cinfo, self->first);
    }
    static void output(j_common_ptr) {}
};

// Decodes the whole JPEG at 1/8 scale (every Huffman code is still read, so corrupt data is
// found at a fraction of the cost of a full decode); writes the first problem into `problem`.
bool jpeg_decodes_cleanly(std::FILE *f, char *problem, size_t capacity) {
    jpeg_decompress_struct cinfo;
    JpegErrors errors;
    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = JpegErrors::exit;
    errors.pub.emit_message = JpegErrors::emit;
    errors.pub.output_message = JpegErrors::output;
    std::rewind(f);
    // Nothing with a destructor lives between setjmp and the calls that may jump back.
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&cinfo);
        std::snprintf(problem, capacity, "corrupt JPEG (%s)", errors.first);
        return false;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_stdio_src(&cinfo, f);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    cinfo.dct_method = JDCT_IFAST;
    cinfo.do_fancy_upsampling = FALSE;
    jpeg_start_decompress(&cinfo);
    JSAMPARRAY row = (*cinfo.mem->alloc_sarray)(reinterpret_cast<j_common_ptr>(&cinfo), JPOOL_IMAGE,
                                                cinfo.output_width * cinfo.output_components, 1);
    while (cinfo.output_scanline < cinfo.output_height) jpeg_read_scanlines(&cinfo, row, 1);
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    if (errors.warnings == 0) return true;
    std::snprintf(problem, capacity, "corrupt JPEG (%s)", errors.first);
    return false;
}

// Every chunk's CRC, up to IEND: a cut or bit-flipped PNG is refused before libpng complains.
bool png_is_whole(std::FILE *f, char *problem, size_t capacity) {
    long long offset = 8;
    std::vector<unsigned char> buffer(1 << 16);
    for (;;) {
        unsigned char h[8];
        if (!read_at(f, offset, h, 8)) {
            std::snprintf(problem, capacity, "truncated PNG (ends at byte %lld, before its IEND chunk)", offset);
            return false;
        }
        const uint64_t length = be(h, 4);
        char type[5] = {static_cast<char>(h[4]), static_cast<char>(h[5]), static_cast<char>(h[6]), static_cast<char>(h[7]), 0};
        if (length > 0x7FFFFFFFu) {
            std::snprintf(problem, capacity, "corrupt PNG (chunk length %llu at byte %lld)",
                          static_cast<unsigned long long>(length), offset);
            return false;
        }
        uLong crc = crc32(0L, h + 4, 4);
        for (uint64_t done = 0; done < length;) {
            const size_t n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), length - done));
            if (std::fread(buffer.data(), 1, n, f) != n) {
                std::snprintf(problem, capacity, "truncated PNG (cut inside its %s chunk)", type);
                return false;
            }
            crc = crc32(crc, buffer.data(), static_cast<uInt>(n));
            done += n;
        }
        unsigned char stored[4];
        if (std::fread(stored, 1, 4, f) != 4) {
            std::snprintf(problem, capacity, "truncated PNG (cut inside its %s chunk)", type);
            return false;
        }
        if (be(stored, 4) != crc) {
            std::snprintf(problem, capacity, "corrupt PNG (CRC error in its %s chunk at byte %lld)", type, offset);
            return false;
        }
        if (std::strcmp(type, "IEND") == 0) return true;
        offset += 12 + static_cast<long long>(length);
    }
}

}  // namespace

HeaderCheck read_image_header(const char *path, ImageHeader &header) {
    File f(std::fopen(path, "rb"));
    if (!f) return HeaderCheck::unreadable;
    unsigned char b[32] = {0};
    const size_t n = std::fread(b, 1, sizeof b, f.get());
    long long w = -1, h = -1;
    const char *format = nullptr;
    bool ok = false;
    if (n >= 24 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) {
        format = "PNG";
        ok = std::memcmp(b + 12, "IHDR", 4) == 0;
        w = static_cast<long long>(be(b + 16, 4));
        h = static_cast<long long>(be(b + 20, 4));
    } else if (n >= 4 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) {
        format = "JPEG";
        bool complete = false;
        ok = jpeg_size(f.get(), w, h, complete);
        header.complete = complete;
    } else if (n >= 8 && ((b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
                          (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43)))) {
        format = "TIFF";
        ok = tiff_size(f.get(), b, w, h);
    } else if (n >= 26 && b[0] == 'B' && b[1] == 'M') {
        format = "BMP";
        ok = true;
        if (le(b + 14, 4) == 12) {
            w = static_cast<long long>(le(b + 18, 2));
            h = static_cast<long long>(le(b + 20, 2));
        } else {
            w = static_cast<int32_t>(le(b + 18, 4));
            h = static_cast<int32_t>(le(b + 22, 4));
            if (h < 0) h = -h;  // top-down rows
        }
    } else if (n >= 30 && std::memcmp(b, "RIFF", 4) == 0 && std::memcmp(b + 8, "WEBP", 4) == 0) {
        format = "WebP";
        ok = true;
        if (std::memcmp(b + 12, "VP8 ", 4) == 0) {
            w = static_cast<long long>(le(b + 26, 2) & 0x3FFF);
            h = static_cast<long long>(le(b + 28, 2) & 0x3FFF);
        } else if (std::memcmp(b + 12, "VP8L", 4) == 0) {
            const uint64_t bits = le(b + 21, 4);
            w = static_cast<long long>(bits & 0x3FFF) + 1;
            h = static_cast<long long>((bits >> 14) & 0x3FFF) + 1;
        } else if (std::memcmp(b + 12, "VP8X", 4) == 0) {
            w = static_cast<long long>(le(b + 24, 3)) + 1;
            h = static_cast<long long>(le(b + 27, 3)) + 1;
        } else {
            ok = false;
        }
    } else if (n >= 3 && b[0] == 'P' && ((b[1] >= '1' && b[1] <= '6') || b[1] == 'F' || b[1] == 'f')) {
        format = "PNM";
        long long v[2];
        ok = pnm_numbers(f.get(), v, 2);
        w = v[0];
        h = v[1];
    } else if (n >= 3 && b[0] == 'P' && b[1] == '7') {
        format = "PAM";
        ok = pam_size(f.get(), w, h);
    } else if (n >= 12 && be(b, 4) == 0x59A66A95u) {
        format = "Sun raster";
        ok = true;
        w = static_cast<long long>(be(b + 4, 4));
        h = static_cast<long long>(be(b + 8, 4));
    }
    header.format = format;
    header.width = w;
    header.height = h;
    if (!format) return HeaderCheck::unknown_format;
    return ok ? HeaderCheck::ok : HeaderCheck::bad_header;
}

bool image_file_is_whole(const char *path, const ImageHeader &header, char *problem, size_t capacity) {
    if (!header.format) return true;
    const bool png = std::strcmp(header.format, "PNG") == 0, jpeg = std::strcmp(header.format, "JPEG") == 0;
    if (!png && !jpeg) return true;
    if (jpeg && !header.complete) {
        std::snprintf(problem, capacity, "truncated JPEG (no end-of-image marker)");
        return false;
    }
    File f(std::fopen(path, "rb"));
    if (!f) {
        std::snprintf(problem, capacity, "cannot be read");
        return false;
    }
    return png ? png_is_whole(f.get(), problem, capacity) : jpeg_decodes_cleanly(f.get(), problem, capacity);
}

}  // namespace akcv
