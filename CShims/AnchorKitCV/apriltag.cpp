// apriltag.cpp — AprilTag 3 (libapriltag 3.x) as the candidate stage of the DICT_APRILTAG_*
// dictionaries, and the one place where its detections are converted to AnchorKit's convention.
#include "internal.hpp"

#include <apriltag/apriltag.h>
#include <apriltag/tag16h5.h>
#include <apriltag/tag25h9.h>
#include <apriltag/tag36h10.h>
#include <apriltag/tag36h11.h>

using namespace akcv;

struct ak_apriltag_detector {
    apriltag_family_t *family = nullptr;
    void (*destroy_family)(apriltag_family_t *) = nullptr;
    apriltag_detector_t *detector = nullptr;
    int max_hamming = 0;
    std::vector<ak_apriltag_detection> tags;  // reused output of ak_apriltag_detect

    ~ak_apriltag_detector() {
        if (detector) apriltag_detector_destroy(detector);  // before the family it points to
        if (family) destroy_family(family);
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

// THE conversion from libapriltag's convention to AnchorKit's (OpenCV's), for every family above
// (checked for every code of each by detecting OpenCV's marker images; AprilTagTests keeps 40 per family):
//  - ids: OpenCV's DICT_APRILTAG_<f> marker k is libapriltag's tag<f> code k turned by 180 degrees,
//    so the ids agree;
//  - corners: det->p[i] is the homography image of (-1,+1), (+1,+1), (+1,-1), (-1,-1) in
//    libapriltag's tag frame; after the 180-degree turn that is OpenCV's TR, TL, BL, BR, and
//    OpenCV's order TL, TR, BR, BL is p[1], p[0], p[3], p[2]: ours[k] = p[k ^ 1];
//  - pixels: libapriltag puts pixel centres at i + 0.5, OpenCV at integers: subtract 0.5.
ak_apriltag_detection to_anchorkit(const apriltag_detection_t &det) {
    ak_apriltag_detection out{};
    out.id = det.id;
    out.hamming = det.hamming;
    out.decision_margin = det.decision_margin;
    for (int k = 0; k < 4; ++k) {
        out.corners[2 * k] = static_cast<float>(det.p[k ^ 1][0] - 0.5);
        out.corners[2 * k + 1] = static_cast<float>(det.p[k ^ 1][1] - 0.5);
    }
    return out;
}

ak_status check_apriltag_params(const char *fn, const ak_apriltag_params &p) {
    if (!(p.quad_decimate >= 1 && p.quad_decimate <= 8))
        return fail(AK_ERR_ARGUMENT, fn, "quad_decimate must be in 1...8, got %g", p.quad_decimate);
    if (p.threads < 1 || p.threads > 64) return fail(AK_ERR_ARGUMENT, fn, "threads must be in 1...64, got %d", p.threads);
    if (p.refine_edges != 0 && p.refine_edges != 1)
        return fail(AK_ERR_ARGUMENT, fn, "refine_edges must be 0 or 1, got %d", p.refine_edges);
    if (p.max_hamming < 0 || p.max_hamming > 2)
        return fail(AK_ERR_ARGUMENT, fn, "max_hamming must be in 0...2, got %d", p.max_hamming);
    return AK_OK;
}

ak_status make_apriltag_detector(const char *fn, const ak_dictionary *dictionary, const ak_apriltag_params *params,
                                 std::unique_ptr<ak_apriltag_detector> &out) {
    if (!dictionary || !dictionary->dict) return fail(AK_ERR_ARGUMENT, fn, "dictionary is NULL");
    const ak_apriltag_params p = given_or_default(params, ak_apriltag_params_default);
    if (ak_status s = check_apriltag_params(fn, p)) return s;
    const Family *family = nullptr;
    for (const Family &f : kFamilies)
        if (f.predefined == dictionary->predefined) family = &f;
    if (!family)
        return fail(AK_ERR_ARGUMENT, fn,
                    "AprilTag 3 knows only DICT_APRILTAG_16h5, _25h9, _36h10 and _36h11 (predefined ids 17...20), "
                    "not dictionary %d", dictionary->predefined);
    std::unique_ptr<ak_apriltag_detector> d(new ak_apriltag_detector);
    d->destroy_family = family->destroy;
    d->family = family->create();
    d->detector = apriltag_detector_create();
    if (!d->family || !d->detector) return fail(AK_ERR_INTERNAL, fn, "libapriltag could not allocate a detector");
    apriltag_detector_add_family_bits(d->detector, d->family, p.max_hamming);
    d->detector->quad_decimate = static_cast<float>(p.quad_decimate);
    d->detector->nthreads = p.threads;
    d->detector->refine_edges = p.refine_edges != 0;
    d->max_hamming = p.max_hamming;
    if (static_cast<int>(d->family->ncodes) != dictionary->dict->bytesList.rows)
        return fail(AK_ERR_INTERNAL, fn, "libapriltag's family has %u codes, OpenCV's dictionary %d", d->family->ncodes,
                    dictionary->dict->bytesList.rows);
    out = std::move(d);
    return AK_OK;
}

}  // namespace

namespace akcv {

void detect_apriltags(ak_apriltag_detector &detector, const cv::Mat &gray, std::vector<ak_apriltag_detection> &tags) {
    CV_Assert(gray.type() == CV_8UC1);
    tags.clear();
    // libapriltag only reads the pixels (it copies them before any processing).
    image_u8_t image = {gray.cols, gray.rows, static_cast<int32_t>(gray.step[0]), const_cast<uint8_t *>(gray.ptr<uint8_t>())};
    zarray_t *found = apriltag_detector_detect(detector.detector, &image);
    if (!found) throw std::bad_alloc();
    for (int i = 0; i < zarray_size(found); ++i) {
        apriltag_detection_t *det = nullptr;
        zarray_get(found, i, &det);
        if (det->hamming <= detector.max_hamming) tags.push_back(to_anchorkit(*det));
    }
    apriltag_detections_destroy(found);
}

}  // namespace akcv

extern "C" {

void ak_apriltag_params_default(ak_apriltag_params *params) {
    if (params) *params = ak_apriltag_params{1.0, 1, 1, 0};
}

ak_status ak_apriltag_detector_create(const ak_dictionary *dictionary, const ak_apriltag_params *params,
                                      ak_apriltag_detector **out) {
    static const char *fn = "ak_apriltag_detector_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        std::unique_ptr<ak_apriltag_detector> d;
        if (ak_status s = make_apriltag_detector(fn, dictionary, params, d)) return s;
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
        detect_apriltags(*detector, gray, detector->tags);
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
        if (ak_status s = make_apriltag_detector(fn, dictionary, apriltag, tags)) return s;
        ak_marker_detector *created = nullptr;
        if (ak_status s = ak_marker_detector_create(dictionary, params, &created)) return s;
        std::unique_ptr<ak_marker_detector> det(created);
        det->apriltag.reset(tags.release());
        *out = det.release();
        return AK_OK;
    });
}

}  // extern "C"
