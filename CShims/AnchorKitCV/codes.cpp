// codes.cpp — 2-D codes (anchorkit_codes.h): zxing-cpp's reader and writer, and OpenCV's
// QRCodeDetector as a peer, behind one handle. QR corners are refined in qr_refinement.cpp.
#define ZX_USE_UTF8 1  // Result::text() as UTF-8 std::string (zxing-cpp 1.4's transition switch)
#include "internal.hpp"

#include <ReadBarcode.h>
#include <BitMatrix.h>
#include <MultiFormatWriter.h>
#include <TextUtfEncoding.h>

#include <opencv2/objdetect.hpp>
#include <opencv2/wechat_qrcode.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <string>

#include <fcntl.h>
#include <unistd.h>

struct ak_code_reader {
    ak_code_params params{};
    ZXing::DecodeHints hints;
    cv::QRCodeDetector opencv;  // AK_CODE_READER_OPENCV only
    bool opencv_decodes = false;  // whether that build of OpenCV decodes (it needs quirc)
    std::unique_ptr<cv::wechat_qrcode::WeChatQRCode> wechat;  // AK_CODE_READER_OPENCV_WECHAT only
    cv::Mat gray;                // reused BGR->gray buffer
    cv::Mat sharpened;           // reused by the last retry
    std::vector<uint8_t> payloads;
    // Per QR payload, its picture (one pixel per module) as last read: the template it is refined
    // and followed with.
    std::map<std::string, cv::Mat> codes_seen;
    akcv::TemplateScratch scratch;
    ak_code_profile profile{};
};

using akcv::fail;
using akcv::guarded;

namespace {

constexpr int kAllFormats = AK_CODE_QR | AK_CODE_MICRO_QR | AK_CODE_DATA_MATRIX | AK_CODE_AZTEC;
// QR refinement: a size (modules per side) is taken when its aligned picture correlates with the
// image at least this much, and no other is tried once one reaches the second figure. Sizes are
// tried down to the first figure's pixels a module, at most the second figure's number of them.
constexpr double kTemplateCorrelation = 0.75, kConvincingCorrelation = 0.9;
constexpr double kSmallestModule = 1.2;
constexpr size_t kMostSizesTried = 12;
// QR codes are aligned with the blur template refinement assumes when none is measured.
const cv::Vec2d kUnmeasuredBlur(std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN());

ZXing::BarcodeFormats zxing_formats(int formats) {
    ZXing::BarcodeFormats f;
    if (formats & AK_CODE_QR) f |= ZXing::BarcodeFormat::QRCode;
    if (formats & AK_CODE_MICRO_QR) f |= ZXing::BarcodeFormat::MicroQRCode;
    if (formats & AK_CODE_DATA_MATRIX) f |= ZXing::BarcodeFormat::DataMatrix;
    if (formats & AK_CODE_AZTEC) f |= ZXing::BarcodeFormat::Aztec;
    return f;
}

int code_format(ZXing::BarcodeFormat f) {
    switch (f) {
    case ZXing::BarcodeFormat::QRCode: return AK_CODE_QR;
    case ZXing::BarcodeFormat::MicroQRCode: return AK_CODE_MICRO_QR;
    case ZXing::BarcodeFormat::DataMatrix: return AK_CODE_DATA_MATRIX;
    case ZXing::BarcodeFormat::Aztec: return AK_CODE_AZTEC;
    default: return 0;
    }
}

// RFC 3629 well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF).
bool is_utf8(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        const uint8_t c = s[i];
        size_t extra;
        uint32_t lo = 0x80, hi = 0xBF;
        if (c < 0x80) { ++i; continue; }
        if (c >= 0xC2 && c <= 0xDF) extra = 1;
        else if (c == 0xE0) { extra = 2; lo = 0xA0; }
        else if (c == 0xED) { extra = 2; hi = 0x9F; }
        else if (c >= 0xE1 && c <= 0xEF) extra = 2;
        else if (c == 0xF0) { extra = 3; lo = 0x90; }
        else if (c == 0xF4) { extra = 3; hi = 0x8F; }
        else if (c >= 0xF1 && c <= 0xF3) extra = 3;
        else return false;
        if (i + extra >= n) return false;
        for (size_t k = 1; k <= extra; ++k) {
            const uint8_t b = s[i + k];
            if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return false;
        }
        i += extra + 1;
    }
    return true;
}

// Detections ordered by their first corner, row-major: the stream does not depend on the order
// a reader happens to return codes in.
void sort_by_position(std::vector<ak_code_detection> &found) {
    std::sort(found.begin(), found.end(), [](const ak_code_detection &a, const ak_code_detection &b) {
        if (a.corners[1] != b.corners[1]) return a.corners[1] < b.corners[1];
        if (a.corners[0] != b.corners[0]) return a.corners[0] < b.corners[0];
        return a.payload_offset < b.payload_offset;
    });
}

void append_payload(ak_code_reader &reader, ak_code_detection &d, const uint8_t *bytes, size_t length) {
    d.payload_offset = static_cast<int>(reader.payloads.size());
    d.payload_length = static_cast<int>(length);
    reader.payloads.insert(reader.payloads.end(), bytes, bytes + length);
}

// A QR code whose picture is known (read before) aligned to `gray` from `quad`: refined from there
// (within half a module of the truth, as a decoder's corners and a short prediction mostly are),
// else followed coarse to fine (a few modules). The aligned picture's correlation with the image
// (NaN: no alignment), `quad` replaced when there is one.
// The detection refinement of `code` (follow_code's last stage): its template aligned from where
// the quad is, no corner moving more than half a module.
auto refinement(ak_code_reader &reader, const cv::Mat &gray, const cv::Mat &code) {
    return [&reader, &gray, &code](std::vector<cv::Point2f> &quad, akcv::TemplatePlacement *fit) {
        return akcv::refine_code_template(code, reader.scratch, gray, quad, kUnmeasuredBlur, fit);
    };
}

double align_known(ak_code_reader &reader, const cv::Mat &gray, const cv::Mat &code, std::vector<cv::Point2f> &quad) {
    const auto refine = refinement(reader, gray, code);
    std::vector<cv::Point2f> aligned = quad;
    akcv::TemplatePlacement fit;
    if (refine(aligned, &fit)) {
        const double correlation = akcv::template_correlation(reader.scratch.smooth, gray, fit, 2);
        if (correlation >= kTemplateCorrelation) {
            quad = aligned;
            return correlation;
        }
    }
    return akcv::follow_code(code, reader.scratch, gray, quad, refine);
}

// The modules per side of the QR code at `quad` (0 when unknown) and, when they are found, `quad`
// refined. zxing does not give a code's version: each plausible size is tried (the one this
// payload had before first, then the one its finder patterns' runs suggest, then every size down
// to 2 px a module, smallest first), the corners of the finder patterns refined, and the size
// whose finder patterns then look most like finder patterns wins. The code's picture is then
// sampled through those corners and aligned to the image as a template (every module edge
// counts), as markers are: `code` gets that picture.
int refine_qr_corners(ak_code_reader &reader, const cv::Mat &gray, cv::Point2f quad[4], const cv::Mat *known, cv::Mat &code) {
    if (known) {
        std::vector<cv::Point2f> aligned(quad, quad + 4);
        if (align_known(reader, gray, *known, aligned) >= kTemplateCorrelation) {
            std::copy(aligned.begin(), aligned.end(), quad);
            code = *known;
            return known->cols;
        }
    }
    double side = 0;
    for (int k = 0; k < 4; ++k) side += cv::norm(quad[k] - quad[(k + 1) % 4]) / 4;
    std::vector<int> candidates;
    auto add = [&](int n) {
        if (n >= 21 && n <= 177 && std::find(candidates.begin(), candidates.end(), n) == candidates.end()) candidates.push_back(n);
    };
    if (known) add(known->cols);
    add(akcv::estimate_qr_modules(gray, quad));
    for (int n = 21; n <= 177 && side / n >= kSmallestModule; n += 4) add(n);
    if (candidates.size() > kMostSizesTried) candidates.resize(kMostSizesTried);
    int best = 0;
    double best_correlation = kTemplateCorrelation;  // below this no size is taken
    std::vector<cv::Point2f> best_quad;
    cv::Mat picture;
    for (int n : candidates) {
        // Modules of 2 px or more: the finder patterns' corners first (a start within a fraction of
        // a module); smaller ones, or when that fails, from the decoder's corners.
        cv::Point2f start[4] = {quad[0], quad[1], quad[2], quad[3]};
        akcv::refine_qr(gray, n, start, 1.5);
        if (!akcv::sample_qr_code(gray, n, start, picture)) continue;
        std::vector<cv::Point2f> aligned(start, start + 4);
        double correlation = akcv::follow_code(picture, reader.scratch, gray, aligned, refinement(reader, gray, picture));
        if (!(correlation > best_correlation)) continue;
        // The picture sampled again where it aligned reads the modules better: aligned once more.
        cv::Mat resampled;
        std::vector<cv::Point2f> again = aligned;
        akcv::TemplatePlacement fit;
        if (akcv::sample_qr_code(gray, n, aligned.data(), resampled) && refinement(reader, gray, resampled)(again, &fit)) {
            const double c = akcv::template_correlation(reader.scratch.smooth, gray, fit);
            if (c >= correlation) {
                aligned = again;
                correlation = c;
                picture = resampled;
            }
        }
        best = n;
        best_correlation = correlation;
        best_quad = aligned;
        code = picture.clone();
        if (correlation >= kConvincingCorrelation) break;
    }
    if (best) std::copy(best_quad.begin(), best_quad.end(), quad);
    return best;
}

// One zxing pass over `image` (gray, continuous rows); corners are refined on `gray`, the frame itself.
void read_zxing_pass(ak_code_reader &reader, const cv::Mat &image, const cv::Mat &gray, const ZXing::DecodeHints &hints,
                     std::vector<ak_code_detection> &found) {
    const ZXing::ImageView view(image.data, image.cols, image.rows, ZXing::ImageFormat::Lum, static_cast<int>(image.step[0]));
    akcv::StageTimer reading(reader.profile.reading);
    const ZXing::Results results = ZXing::ReadBarcodes(view, hints);
    reading.stop();
    for (const ZXing::Result &r : results) {
        if (!r.isValid()) continue;
        ak_code_detection d{};
        d.decoded = 1;
        d.format = code_format(r.format());
        if (d.format == 0) continue;
        const ZXing::Position &p = r.position();
        const ZXing::PointI points[4] = {p.topLeft(), p.topRight(), p.bottomRight(), p.bottomLeft()};
        cv::Point2f quad[4];
        // zxing's corners are whole pixels with pixel corners at integers; ours have pixel centres
        // there (OpenCV's), half a pixel less. Measured on qr-table: zxing's corners lie 0.49 px
        // right of and 0.47 px below the aligned ones on average.
        for (int k = 0; k < 4; ++k) quad[k] = cv::Point2f(points[k].x - 0.5f, points[k].y - 0.5f);
        // Text is what the code's character set makes of its bytes: UTF-8 bytes as they are, bytes
        // under a declared (ECI) or guessed other set converted; data zxing finds binary stays bytes.
        const ZXing::ByteArray &bytes = r.bytes();
        if (r.contentType() == ZXing::ContentType::Binary) {
            d.is_text = 0;
            append_payload(reader, d, bytes.data(), bytes.size());
        } else if (!r.hasECI() && is_utf8(bytes.data(), bytes.size())) {
            d.is_text = 1;
            append_payload(reader, d, bytes.data(), bytes.size());
        } else {
            const std::string text = r.text();
            d.is_text = 1;
            append_payload(reader, d, reinterpret_cast<const uint8_t *>(text.data()), text.size());
        }
        if (d.format == AK_CODE_QR && reader.params.refine_qr) {
            // Keyed by the payload as delivered, which is what ak_code_reader_follow is given.
            const std::string key(reinterpret_cast<const char *>(reader.payloads.data()) + d.payload_offset,
                                  static_cast<size_t>(d.payload_length));
            const auto known = reader.codes_seen.find(key);
            cv::Mat code;
            const akcv::StageTimer refining(reader.profile.refinement);
            d.modules = refine_qr_corners(reader, gray, quad, known == reader.codes_seen.end() ? nullptr : &known->second, code);
            d.refined = d.modules > 0 ? 1 : 0;
            if (d.modules > 0) reader.codes_seen[key] = code;
        }
        for (int k = 0; k < 4; ++k) {
            d.corners[2 * k] = quad[k].x;
            d.corners[2 * k + 1] = quad[k].y;
        }
        found.push_back(d);
    }
}

void read_zxing(ak_code_reader &reader, const cv::Mat &gray, std::vector<ak_code_detection> &found) {
    read_zxing_pass(reader, gray, gray, reader.hints, found);
    if (!found.empty() || !reader.params.retries) return;
    // Codes in low contrast or uneven light read with a global threshold; soft ones once sharpened.
    ZXing::DecodeHints global = reader.hints;
    global.setBinarizer(ZXing::Binarizer::GlobalHistogram);
    read_zxing_pass(reader, gray, gray, global, found);
    if (!found.empty()) return;
    cv::GaussianBlur(gray, reader.sharpened, cv::Size(0, 0), 2.0);
    cv::addWeighted(gray, 2.0, reader.sharpened, -1.0, 0, reader.sharpened);
    read_zxing_pass(reader, reader.sharpened, gray, reader.hints, found);
}

void append_located(std::vector<ak_code_detection> &found, const cv::Point2f *points) {
    ak_code_detection d{};
    d.format = AK_CODE_QR;
    for (int k = 0; k < 4; ++k) {
        d.corners[2 * k] = points[k].x;
        d.corners[2 * k + 1] = points[k].y;
    }
    found.push_back(d);
}

void append_decoded(ak_code_reader &reader, std::vector<ak_code_detection> &found, const cv::Point2f *points,
                    const std::string &text) {
    append_located(found, points);
    ak_code_detection &d = found.back();
    d.decoded = 1;
    d.is_text = is_utf8(reinterpret_cast<const uint8_t *>(text.data()), text.size()) ? 1 : 0;
    append_payload(reader, d, reinterpret_cast<const uint8_t *>(text.data()), text.size());
}

void read_opencv(ak_code_reader &reader, const cv::Mat &gray, std::vector<ak_code_detection> &found) {
    std::vector<cv::Point2f> points;
    if (!reader.opencv_decodes) {
        if (!reader.opencv.detectMulti(gray, points)) return;
        for (size_t i = 0; 4 * i + 3 < points.size(); ++i) append_located(found, &points[4 * i]);
        return;
    }
    std::vector<std::string> texts;
    if (!reader.opencv.detectAndDecodeMulti(gray, texts, points)) return;
    for (size_t i = 0; i < texts.size() && 4 * i + 3 < points.size(); ++i) {
        if (texts[i].empty()) append_located(found, &points[4 * i]);
        else append_decoded(reader, found, &points[4 * i], texts[i]);
    }
}

void read_wechat(ak_code_reader &reader, const cv::Mat &gray, std::vector<ak_code_detection> &found) {
    std::vector<cv::Mat> points;
    const std::vector<std::string> texts = reader.wechat->detectAndDecode(gray, points);
    for (size_t i = 0; i < texts.size() && i < points.size(); ++i) {
        cv::Mat p;
        points[i].convertTo(p, CV_32F);
        if (p.total() != 8) continue;
        const auto *q = p.ptr<float>();
        const cv::Point2f quad[4] = {{q[0], q[1]}, {q[2], q[3]}, {q[4], q[5]}, {q[6], q[7]}};
        append_decoded(reader, found, quad, texts[i]);
    }
}

// Whether cv::QRCodeDetector decodes in this build of OpenCV (it needs quirc, which Debian's lacks):
// tried once on a drawn code. Without quirc OpenCV 4.6 prints a line to standard output on every
// decode call (std::cout, not its logger), which would corrupt a JSON report: the probe's output is
// sent to /dev/null, and without quirc no decode is called again.
bool opencv_decodes(cv::QRCodeDetector &detector) {
    ak_image *probe = nullptr;
    int modules = 0;
    const uint8_t text[] = {'a', 'k'};
    if (ak_qr_draw(text, 2, 1, 4, 4, &probe, &modules) != AK_OK) return false;
    std::string decoded;
    std::cout.flush();
    std::fflush(stdout);
    const int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) dup2(null, STDOUT_FILENO);
    try {
        decoded = detector.detectAndDecode(probe->mat);
    } catch (...) {
    }
    std::cout.flush();
    std::fflush(stdout);
    if (saved >= 0 && null >= 0) dup2(saved, STDOUT_FILENO);
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
    ak_image_free(probe);
    return decoded == "ak";
}

}  // namespace

extern "C" {

void ak_code_params_default(ak_code_params *params) {
    if (!params) return;
    *params = ak_code_params{};
    params->reader = AK_CODE_READER_ZXING;
    params->formats = kAllFormats;
    params->try_harder = 1;
    params->try_rotate = 0;
    params->refine_qr = 1;
    params->retries = 1;
}

ak_status ak_code_reader_create(const ak_code_params *params, ak_code_reader **out) {
    static const char *fn = "ak_code_reader_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        const ak_code_params p = akcv::given_or_default(params, ak_code_params_default);
        const int kind = akcv::enum_value(p.reader);
        if (kind != AK_CODE_READER_ZXING && kind != AK_CODE_READER_OPENCV && kind != AK_CODE_READER_OPENCV_WECHAT)
            return fail(AK_ERR_ARGUMENT, fn, "unknown reader %d", kind);
        if (p.formats == 0 || (p.formats & ~kAllFormats))
            return fail(AK_ERR_ARGUMENT, fn, "formats must be a non-empty set of AK_CODE_* bits, got %d", p.formats);
        if (kind != AK_CODE_READER_ZXING && p.formats != AK_CODE_QR)
            return fail(AK_ERR_ARGUMENT, fn, "OpenCV's readers read QR codes only");
        auto reader = std::make_unique<ak_code_reader>();
        reader->params = p;
        reader->hints.setFormats(zxing_formats(p.formats));
        reader->hints.setTryHarder(p.try_harder != 0);
        reader->hints.setTryRotate(p.try_rotate != 0);
        reader->hints.setTryDownscale(true);
        reader->hints.setMaxNumberOfSymbols(255);
        if (kind == AK_CODE_READER_OPENCV) reader->opencv_decodes = opencv_decodes(reader->opencv);
        if (kind == AK_CODE_READER_OPENCV_WECHAT) reader->wechat = std::make_unique<cv::wechat_qrcode::WeChatQRCode>();
        *out = reader.release();
        return AK_OK;
    });
}

void ak_code_reader_free(ak_code_reader *reader) { delete reader; }

ak_status ak_code_reader_read(ak_code_reader *reader, const ak_image *image, ak_code_detection *detections,
                              int capacity, int *count) {
    static const char *fn = "ak_code_reader_read";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = akcv::check_detect_arguments(fn, reader, image, detections, capacity, count)) return s;
        const cv::Mat *gray = &akcv::gray_of(image->mat, reader->gray);
        reader->payloads.clear();
        std::vector<ak_code_detection> found;
        ++reader->profile.calls;
        switch (reader->params.reader) {
        case AK_CODE_READER_OPENCV: {
            const akcv::StageTimer reading(reader->profile.reading);
            read_opencv(*reader, *gray, found);
            break;
        }
        case AK_CODE_READER_OPENCV_WECHAT: {
            const akcv::StageTimer reading(reader->profile.reading);
            read_wechat(*reader, *gray, found);
            break;
        }
        default: read_zxing(*reader, *gray, found);
        }
        sort_by_position(found);
        *count = static_cast<int>(found.size());
        std::copy_n(found.begin(), std::min(capacity, *count), detections);
        return AK_OK;
    });
}

void ak_code_reader_profile(const ak_code_reader *reader, ak_code_profile *profile) {
    if (!profile) return;
    *profile = reader ? reader->profile : ak_code_profile{};
}

const uint8_t *ak_code_reader_payloads(const ak_code_reader *reader, int *length) {
    if (length) *length = reader ? static_cast<int>(reader->payloads.size()) : 0;
    return reader && !reader->payloads.empty() ? reader->payloads.data() : nullptr;
}

ak_status ak_code_reader_follow(ak_code_reader *reader, const ak_image *image, const uint8_t *payload, int length,
                                const float predicted[8], float corners[8], double *correlation) {
    static const char *fn = "ak_code_reader_follow";
    return guarded(fn, [&]() -> ak_status {
        if (!correlation || !predicted || !corners) return fail(AK_ERR_ARGUMENT, fn, "an output or the prediction is NULL");
        *correlation = std::numeric_limits<double>::quiet_NaN();
        if (!reader) return fail(AK_ERR_ARGUMENT, fn, "reader is NULL");
        if (ak_status s = akcv::check_image(fn, image, "image")) return s;
        if (length < 0 || (length > 0 && !payload)) return fail(AK_ERR_ARGUMENT, fn, "payload is NULL or length < 0");
        for (int k = 0; k < 8; ++k)
            if (!std::isfinite(predicted[k])) return fail(AK_ERR_ARGUMENT, fn, "predicted corners must be finite");
        ++reader->profile.calls;
        const akcv::StageTimer following(reader->profile.following);
        const auto seen = reader->codes_seen.find(std::string(reinterpret_cast<const char *>(payload), static_cast<size_t>(length)));
        if (seen == reader->codes_seen.end()) return AK_OK;
        const cv::Mat *gray = &akcv::gray_of(image->mat, reader->gray);
        std::vector<cv::Point2f> quad(4);
        for (int k = 0; k < 4; ++k) quad[static_cast<size_t>(k)] = cv::Point2f(predicted[2 * k], predicted[2 * k + 1]);
        *correlation = align_known(*reader, *gray, seen->second, quad);
        if (!std::isfinite(*correlation)) return AK_OK;
        for (int k = 0; k < 4; ++k) {
            corners[2 * k] = quad[static_cast<size_t>(k)].x;
            corners[2 * k + 1] = quad[static_cast<size_t>(k)].y;
        }
        return AK_OK;
    });
}

ak_status ak_qr_draw(const uint8_t *payload, int length, int is_text, int module_pixels, int quiet_modules,
                     ak_image **out, int *modules) {
    static const char *fn = "ak_qr_draw";
    return guarded(fn, [&]() -> ak_status {
        if (!out || !modules) return fail(AK_ERR_ARGUMENT, fn, "out or modules is NULL");
        *out = nullptr;
        *modules = 0;
        if (length < 0 || (length > 0 && !payload)) return fail(AK_ERR_ARGUMENT, fn, "payload is NULL or length < 0");
        if (module_pixels < 1 || module_pixels > 64) return fail(AK_ERR_ARGUMENT, fn, "module_pixels must be 1...64, got %d", module_pixels);
        if (quiet_modules < 0 || quiet_modules > 16) return fail(AK_ERR_ARGUMENT, fn, "quiet_modules must be 0...16, got %d", quiet_modules);
        const std::string bytes(reinterpret_cast<const char *>(payload), static_cast<size_t>(length));
        if (is_text && !is_utf8(payload, static_cast<size_t>(length)))
            return fail(AK_ERR_ARGUMENT, fn, "text payload is not UTF-8");
        // Bytes go in as Latin-1 characters, one per byte, which byte mode writes back as they were.
        std::wstring contents;
        if (is_text) contents = ZXing::TextUtfEncoding::FromUtf8(bytes);
        else for (unsigned char c : bytes) contents.push_back(static_cast<wchar_t>(c));
        ZXing::MultiFormatWriter writer(ZXing::BarcodeFormat::QRCode);
        writer.setMargin(0).setEccLevel(4);  // zxing's 0...8 scale: 4 = level M
        writer.setEncoding(is_text ? ZXing::CharacterSet::UTF8 : ZXing::CharacterSet::ISO8859_1);
        const ZXing::BitMatrix matrix = writer.encode(contents, 0, 0);
        const int n = matrix.width();
        if (n < 21 || matrix.height() != n) return fail(AK_ERR_INTERNAL, fn, "zxing wrote a %dx%d symbol", n, matrix.height());
        cv::Mat code(n, n, CV_8U);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) code.at<uint8_t>(y, x) = matrix.get(x, y) ? 0 : 255;
        cv::Mat big, img;
        cv::resize(code, big, cv::Size(n * module_pixels, n * module_pixels), 0, 0, cv::INTER_NEAREST);
        const int q = quiet_modules * module_pixels;
        cv::copyMakeBorder(big, img, q, q, q, q, cv::BORDER_CONSTANT, cv::Scalar::all(255));
        *modules = n;
        *out = akcv::make_image(std::move(img));
        return AK_OK;
    });
}

}  // extern "C"
