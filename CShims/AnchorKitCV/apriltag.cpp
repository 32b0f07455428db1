// apriltag.cpp — AprilTag 3 (libapriltag 3.x) as the candidate stage of the DICT_APRILTAG_*
// dictionaries, and the one place where its detections are converted to AnchorKit's convention.
#include "internal.hpp"

#include <cmath>
#include <string>

#include <apriltag/apriltag.h>
#include <apriltag/tag16h5.h>
#include <apriltag/tag25h9.h>
#include <apriltag/tag36h10.h>
#include <apriltag/tag36h11.h>

using namespace akcv;

// An ArUco dictionary as an AprilTag family (see aruco_family): the arrays libapriltag points into.
struct ArucoFamily {
    apriltag_family_t family{};
    std::vector<uint64_t> codes;
    std::vector<uint32_t> bit_x, bit_y;
    std::string name;
};

struct ak_apriltag_detector {
    apriltag_family_t *family = nullptr;
    void (*destroy_family)(apriltag_family_t *) = nullptr;  // null for an ArUco family (owned below)
    std::unique_ptr<ArucoFamily> aruco;
    bool turned = false;  // libapriltag's codes are OpenCV's turned by 180 degrees (its own families)
    // Always run on one thread: Debian's libapriltag 3.3.0 worker pool can crash a worker that
    // wakes while tasks are being added (the task array is reallocated under it; fixed upstream by
    // AprilRobotics/apriltag PR 339, after 3.3.0). Seen once in `swift test` with 2 threads.
    apriltag_detector_t *detector = nullptr;
    int threads = 1;  // the configured thread count: a marker detector refines on as many
    int max_hamming = 0;
    std::vector<ak_apriltag_detection> tags;  // reused output of ak_apriltag_detect

    ~ak_apriltag_detector() {
        if (detector) apriltag_detector_destroy(detector);  // before the family it points to
        if (family && destroy_family) destroy_family(family);
    }
};

namespace {

struct Family {
    int predefined;  // cv::aruco::PREDEFINED_DICTIONARY_NAME
    apriltag_family_t *(*create)();
    void (*destroy)(apriltag_family_t *);
};

// OpenCV 4.6's AprilTag dictionaries and libapriltag's families have the same codes in the same
// order (counts 30, 35, 2320, 587), each turned by 180 degrees (see to_anchorkit).
constexpr Family kFamilies[] = {
    {cv::aruco::DICT_APRILTAG_16h5, tag16h5_create, tag16h5_destroy},
    {cv::aruco::DICT_APRILTAG_25h9, tag25h9_create, tag25h9_destroy},
    {cv::aruco::DICT_APRILTAG_36h10, tag36h10_create, tag36h10_destroy},
    {cv::aruco::DICT_APRILTAG_36h11, tag36h11_create, tag36h11_destroy},
};

// cv::aruco::DetectorParameters' default errorCorrectionRate.
constexpr double kOpenCVErrorCorrectionRate = 0.6;

// The largest ArUco code libapriltag can hold: 64 bits (8x8), and at most 65535 codes; it corrects
// up to 2 bits here (3 costs a table of ~nbits^3 entries per code).
constexpr int kMaxArucoBits = 8, kMaxAprilTagCodes = 65535, kMaxCorrectedBits = 2;

// libapriltag reads a code's bits a quarter of the grid at a time: the positions of one quarter,
// then the same positions turned by 90 degrees clockwise (x, y -> n + 1 - y, x), three times, and
// the centre of an odd grid last, so that turning the tag by 90 degrees shifts the code by a
// quarter of its bits (its rotate90). One quarter is, ring by ring from the outside, the ring's top
// row without its last bit. Positions are 1-based inside the black border (0 and n + 1).
std::vector<cv::Point> quarter_turn_order(int n) {
    std::vector<cv::Point> quarter;
    for (int ring = 0; ring < n / 2; ++ring)
        for (int x = ring + 1; x <= n - ring - 1; ++x) quarter.push_back({x, ring + 1});
    std::vector<cv::Point> order;
    for (int turn = 0; turn < 4; ++turn) {
        order.insert(order.end(), quarter.begin(), quarter.end());
        for (cv::Point &p : quarter) p = cv::Point(n + 1 - p.y, p.x);
    }
    if (n % 2 == 1) order.push_back({(n + 1) / 2, (n + 1) / 2});
    return order;
}

// An ArUco dictionary (OpenCV's or a custom one, up to 8x8 bits, one-module black border) as an
// AprilTag family, so that AprilTag 3's quad detection, which finds far smaller and blurrier
// squares than OpenCV 4.6's contour stage, serves it too. Codes are OpenCV's bits (1 = white, as
// libapriltag reads them) in the order above, upright: no 180-degree turn, unlike libapriltag's
// own families.
std::unique_ptr<ArucoFamily> aruco_family(const cv::aruco::Dictionary &dict) {
    const int n = dict.markerSize;
    std::unique_ptr<ArucoFamily> f(new ArucoFamily);
    const std::vector<cv::Point> order = quarter_turn_order(n);
    for (const cv::Point &p : order) {
        f->bit_x.push_back(static_cast<uint32_t>(p.x));
        f->bit_y.push_back(static_cast<uint32_t>(p.y));
    }
    for (int id = 0; id < dict.bytesList.rows; ++id) {
        const cv::Mat bits = cv::aruco::Dictionary::getBitsFromByteList(dict.bytesList.rowRange(id, id + 1), n);
        uint64_t code = 0;
        for (const cv::Point &p : order) code = (code << 1) | (bits.at<uchar>(p.y - 1, p.x - 1) ? 1u : 0u);
        f->codes.push_back(code);
    }
    f->name = "aruco" + std::to_string(n) + "x" + std::to_string(n);
    apriltag_family_t &family = f->family;
    family.ncodes = static_cast<uint32_t>(f->codes.size());
    family.codes = f->codes.data();
    family.width_at_border = n + 2;
    family.total_width = n + 4;
    family.reversed_border = false;
    family.nbits = static_cast<uint32_t>(n * n);
    family.bit_x = f->bit_x.data();
    family.bit_y = f->bit_y.data();
    family.h = static_cast<uint32_t>(2 * dict.maxCorrectionBits + 1);
    family.name = &f->name[0];
    return f;
}

// THE conversion from libapriltag's convention to AnchorKit's (OpenCV's), for every family above
// (checked for every code of each by detecting OpenCV's marker images; AprilTagTests keeps 40 per family):
//  - ids: OpenCV's DICT_APRILTAG_<f> marker k is libapriltag's tag<f> code k turned by 180 degrees,
//    so the ids agree; an ArUco family's code k is OpenCV's marker k as it is (aruco_family);
//  - corners: det->p[i] is the homography image of (-1,+1), (+1,+1), (+1,-1), (-1,-1) in
//    libapriltag's tag frame (x right, y down the code's rows): BL, BR, TR, TL of the code as
//    libapriltag stores it. OpenCV's order TL, TR, BR, BL is then p[3 - k], or, after the
//    180-degree turn of the AprilTag families, p[1], p[0], p[3], p[2] = p[k ^ 1];
//  - pixels: libapriltag puts pixel centres at i + 0.5, OpenCV at integers: subtract 0.5.
ak_apriltag_detection to_anchorkit(const apriltag_detection_t &det, bool turned) {
    ak_apriltag_detection out{};
    out.id = det.id;
    out.hamming = det.hamming;
    out.decision_margin = det.decision_margin;
    for (int k = 0; k < 4; ++k) {
        const int i = turned ? k ^ 1 : 3 - k;
        out.corners[2 * k] = static_cast<float>(det.p[i][0] - 0.5);
        out.corners[2 * k + 1] = static_cast<float>(det.p[i][1] - 0.5);
    }
    return out;
}

// libapriltag decimates by 1.5 or by the whole part of quad_decimate, but scales the quads back by
// quad_decimate itself: any other value would misplace every quad.
double usable_decimation(double decimation) {
    if (decimation < 1.5) return 1;
    if (decimation < 2) return 1.5;
    return std::floor(decimation);
}

ak_status check_apriltag_params(const char *fn, const ak_apriltag_params &p) {
    if (!(p.quad_decimate >= 1 && p.quad_decimate <= 8) || usable_decimation(p.quad_decimate) != p.quad_decimate)
        return fail(AK_ERR_ARGUMENT, fn, "quad_decimate must be 1, 1.5 or a whole number up to 8, got %g", p.quad_decimate);
    if (p.threads < 1 || p.threads > 64) return fail(AK_ERR_ARGUMENT, fn, "threads must be in 1...64, got %d", p.threads);
    if (p.refine_edges != 0 && p.refine_edges != 1)
        return fail(AK_ERR_ARGUMENT, fn, "refine_edges must be 0 or 1, got %d", p.refine_edges);
    if (p.max_hamming < -1 || p.max_hamming > kMaxCorrectedBits)
        return fail(AK_ERR_ARGUMENT, fn, "max_hamming must be in -1...%d, got %d", kMaxCorrectedBits, p.max_hamming);
    if (p.min_contrast < 0 || p.min_contrast > 255) return fail(AK_ERR_ARGUMENT, fn, "min_contrast must be in 0...255, got %d", p.min_contrast);
    return AK_OK;
}

ak_status make_apriltag_detector(const char *fn, const ak_dictionary *dictionary, const ak_apriltag_params *params,
                                 double error_correction_rate, std::unique_ptr<ak_apriltag_detector> &out) {
    if (!dictionary || !dictionary->dict) return fail(AK_ERR_ARGUMENT, fn, "dictionary is NULL");
    const ak_apriltag_params p = given_or_default(params, ak_apriltag_params_default);
    if (ak_status s = check_apriltag_params(fn, p)) return s;
    const Family *family = nullptr;
    for (const Family &f : kFamilies)
        if (f.predefined == dictionary->predefined) family = &f;
    const cv::aruco::Dictionary &dict = *dictionary->dict;
    if (!family && dict.markerSize > kMaxArucoBits)
        return fail(AK_ERR_ARGUMENT, fn, "AprilTag 3 holds codes of at most %dx%d bits, not %dx%d", kMaxArucoBits,
                    kMaxArucoBits, dict.markerSize, dict.markerSize);
    if (dict.bytesList.rows > kMaxAprilTagCodes)  // its ids are 16-bit
        return fail(AK_ERR_ARGUMENT, fn, "AprilTag 3 holds at most %d codes, not %d", kMaxAprilTagCodes, dict.bytesList.rows);
    std::unique_ptr<ak_apriltag_detector> d(new ak_apriltag_detector);
    if (family) {
        d->destroy_family = family->destroy;
        d->family = family->create();
        d->turned = true;
    } else {
        d->aruco = aruco_family(dict);
        d->family = &d->aruco->family;
    }
    d->detector = apriltag_detector_create();
    if (!d->family || !d->detector) return fail(AK_ERR_INTERNAL, fn, "libapriltag could not allocate a detector");
    // OpenCV's rule, a share of the bits the codes can correct, up to libapriltag's limit: 0 for
    // DICT_4X4_50, whose codes are too close, 2 for 36h11. The correctable bits come from the
    // family's minimum distance h, (h - 1) / 2: OpenCV 4.6 records 0 for its AprilTag
    // dictionaries, which would leave them without the correction AprilTag 3 gives them.
    const int correctable = static_cast<int>(d->family->h > 0 ? (d->family->h - 1) / 2 : 0);
    const int corrected = p.max_hamming >= 0 ? p.max_hamming
        : std::min(kMaxCorrectedBits, static_cast<int>(std::floor(error_correction_rate * correctable)));
    apriltag_detector_add_family_bits(d->detector, d->family, corrected);
    d->detector->quad_decimate = static_cast<float>(p.quad_decimate);
    d->detector->nthreads = 1;  // see ak_apriltag_detector::detector
    d->threads = p.threads;
    d->detector->refine_edges = p.refine_edges != 0;
    d->detector->qtp.min_white_black_diff = p.min_contrast;
    d->max_hamming = corrected;
    if (static_cast<int>(d->family->ncodes) != dictionary->dict->bytesList.rows)
        return fail(AK_ERR_INTERNAL, fn, "libapriltag's family has %u codes, OpenCV's dictionary %d", d->family->ncodes,
                    dictionary->dict->bytesList.rows);
    out = std::move(d);
    return AK_OK;
}

}  // namespace

namespace akcv {

void detect_apriltags(ak_apriltag_detector &detector, const cv::Mat &gray, std::vector<ak_apriltag_detection> &tags,
                      double decimation) {
    CV_Assert(gray.type() == CV_8UC1);
    tags.clear();
    // quad_decimate is a field of the detector, read per call: this call's, then the configured
    // one back.
    const float configured = detector.detector->quad_decimate;
    detector.detector->quad_decimate = static_cast<float>(usable_decimation(std::max(static_cast<double>(configured), decimation)));
    struct Restore {
        apriltag_detector_t *td; float decimate;
        ~Restore() { td->quad_decimate = decimate; }
    } restore{detector.detector, configured};
    // libapriltag only reads the pixels (it copies them before any processing).
    image_u8_t image = {gray.cols, gray.rows, static_cast<int32_t>(gray.step[0]), const_cast<uint8_t *>(gray.ptr<uint8_t>())};
    zarray_t *found = apriltag_detector_detect(detector.detector, &image);
    if (!found) throw std::bad_alloc();
    for (int i = 0; i < zarray_size(found); ++i) {
        apriltag_detection_t *det = nullptr;
        zarray_get(found, i, &det);
        if (det->hamming <= detector.max_hamming) tags.push_back(to_anchorkit(*det, detector.turned));
    }
    apriltag_detections_destroy(found);
}

}  // namespace akcv

extern "C" {

void ak_apriltag_params_default(ak_apriltag_params *params) {
    if (params) *params = ak_apriltag_params{1.0, 1, 1, -1, 5};
}

ak_status ak_apriltag_detector_create(const ak_dictionary *dictionary, const ak_apriltag_params *params,
                                      ak_apriltag_detector **out) {
    static const char *fn = "ak_apriltag_detector_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        std::unique_ptr<ak_apriltag_detector> d;
        if (ak_status s = make_apriltag_detector(fn, dictionary, params, kOpenCVErrorCorrectionRate, d)) return s;
        *out = d.release();
        return AK_OK;
    });
}

void ak_apriltag_detector_free(ak_apriltag_detector *detector) { delete detector; }

ak_status ak_apriltag_detect(ak_apriltag_detector *detector, const ak_image *image, ak_apriltag_detection *detections,
                             int capacity, int *count) {
    static const char *fn = "ak_apriltag_detect";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_detect_arguments(fn, detector, image, detections, capacity, count)) return s;
        cv::Mat gray = image->mat;
        if (gray.channels() == 3) cv::cvtColor(image->mat, gray, cv::COLOR_BGR2GRAY);
        detect_apriltags(*detector, gray, detector->tags, 1);
        const int found = static_cast<int>(detector->tags.size());
        std::copy_n(detector->tags.begin(), std::min(found, capacity), detections);
        *count = found;
        return AK_OK;
    });
}

ak_status ak_marker_detector_create_apriltag(const ak_dictionary *dictionary, const ak_marker_params *params,
                                             const ak_apriltag_params *apriltag, ak_marker_detector **out) {
    static const char *fn = "ak_marker_detector_create_apriltag";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        std::unique_ptr<ak_apriltag_detector> tags;
        const ak_marker_params marker = given_or_default(params, ak_marker_params_default);
        if (ak_status s = make_apriltag_detector(fn, dictionary, apriltag, marker.error_correction_rate, tags)) return s;
        ak_marker_detector *created = nullptr;
        if (ak_status s = ak_marker_detector_create(dictionary, params, &created)) return s;
        std::unique_ptr<ak_marker_detector> det(created);
        det->refinement_threads = tags->threads;
        det->apriltag.reset(tags.release());
        *out = det.release();
        return AK_OK;
    });
}

}  // extern "C"
