// markers.cpp — ArUco dictionaries, marker images and detection (OpenCV 4.6 contrib aruco).
#include "internal.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <limits>

using namespace akcv;

namespace {

constexpr int kMaxCustomMarkers = 100000;
constexpr int kMinMarkerBits = 2, kMaxMarkerBits = 16;

// Checks a custom dictionary's YAML before handing it to Dictionary::readDictionary, which in 4.6
// writes one byte per character of each marker string into a markersize x markersize Mat without
// checking the length (a too-long string overruns the buffer).
ak_status validate_dictionary_yaml(const char *fn, const char *path, const cv::FileNode &root) {
    if (!root.isMap()) return fail(AK_ERR_DECODE, fn, "%s: not a YAML/XML/JSON map", path);
    cv::FileNode n_markers = root["nmarkers"], n_size = root["markersize"];
    if (!n_markers.isInt() || !n_size.isInt())
        return fail(AK_ERR_DECODE, fn, "%s: missing integer fields nmarkers / markersize", path);
    const int count = static_cast<int>(n_markers), bits = static_cast<int>(n_size);
    if (count <= 0 || count > kMaxCustomMarkers)
        return fail(AK_ERR_DECODE, fn, "%s: nmarkers must be in 1...%d, got %d", path, kMaxCustomMarkers, count);
    if (bits < kMinMarkerBits || bits > kMaxMarkerBits)
        return fail(AK_ERR_DECODE, fn, "%s: markersize must be in %d...%d, got %d", path, kMinMarkerBits,
                    kMaxMarkerBits, bits);
    cv::FileNode n_corr = root["maxCorrectionBits"];
    if (!n_corr.empty() && (!n_corr.isInt() || static_cast<int>(n_corr) < 0))
        return fail(AK_ERR_DECODE, fn, "%s: maxCorrectionBits must be a non-negative integer", path);
    const size_t expected = static_cast<size_t>(bits) * static_cast<size_t>(bits);
    for (int i = 0; i < count; ++i) {
        const std::string key = "marker_" + std::to_string(i);
        cv::FileNode node = root[key];
        if (!node.isString()) return fail(AK_ERR_DECODE, fn, "%s: missing string %s", path, key.c_str());
        const std::string code = static_cast<std::string>(node);
        if (code.size() != expected)
            return fail(AK_ERR_DECODE, fn, "%s: %s has %zu bits, expected %zu", path, key.c_str(), code.size(), expected);
        if (code.find_first_not_of("01") != std::string::npos)
            return fail(AK_ERR_DECODE, fn, "%s: %s must contain only '0' and '1'", path, key.c_str());
    }
    return AK_OK;
}

}  // namespace

extern "C" {

ak_status ak_dictionary_predefined(int predefined_id, ak_dictionary **out) {
    static const char *fn = "ak_dictionary_predefined";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (predefined_id < cv::aruco::DICT_4X4_50 || predefined_id > cv::aruco::DICT_APRILTAG_36h11)
            return fail(AK_ERR_ARGUMENT, fn, "predefined dictionary id must be in 0...20, got %d", predefined_id);
        std::unique_ptr<ak_dictionary> d(new ak_dictionary);
        d->dict = cv::aruco::getPredefinedDictionary(predefined_id);
        d->predefined = predefined_id;
        if (!d->dict || d->dict->bytesList.empty())
            return fail(AK_ERR_INTERNAL, fn, "OpenCV returned an empty dictionary for id %d", predefined_id);
        *out = d.release();
        return AK_OK;
    });
}

ak_status ak_dictionary_read(const char *path, ak_dictionary **out) {
    static const char *fn = "ak_dictionary_read";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_readable_file(fn, path)) return s;
        cv::FileStorage fs;
        try {
            if (!fs.open(path, cv::FileStorage::READ) || !fs.isOpened())
                return fail(AK_ERR_DECODE, fn, "cannot parse %s as OpenCV YAML/XML/JSON", path);
        } catch (const cv::Exception &e) {
            const char *err = e.err.empty() ? e.msg.c_str() : e.err.c_str();
            return fail(AK_ERR_DECODE, fn, "cannot parse %s as OpenCV YAML/XML/JSON: %s", path, err);
        }
        cv::FileNode root = fs.root();
        if (ak_status s = validate_dictionary_yaml(fn, path, root)) return s;
        // OpenCV 4.6: readDictionary is a member that replaces *this; maxCorrectionBits is optional
        // in the file and defaults to 0 (then only exact codes are accepted).
        auto dict = cv::makePtr<cv::aruco::Dictionary>();
        if (!dict->readDictionary(root) || dict->bytesList.empty())
            return fail(AK_ERR_DECODE, fn, "%s is not a valid dictionary", path);
        std::unique_ptr<ak_dictionary> d(new ak_dictionary);
        d->dict = dict;
        *out = d.release();
        return AK_OK;
    });
}

void ak_dictionary_free(ak_dictionary *dictionary) { delete dictionary; }

void ak_dictionary_info(const ak_dictionary *dictionary, int *marker_count, int *marker_bits) {
    const bool ok = dictionary && dictionary->dict;
    if (marker_count) *marker_count = ok ? dictionary->dict->bytesList.rows : 0;
    if (marker_bits) *marker_bits = ok ? dictionary->dict->markerSize : 0;
}

ak_status ak_marker_draw(const ak_dictionary *dictionary, int id, int side_pixels, int margin_pixels,
                         ak_image **out) {
    static const char *fn = "ak_marker_draw";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (!dictionary || !dictionary->dict) return fail(AK_ERR_ARGUMENT, fn, "dictionary is NULL");
        const cv::aruco::Dictionary &dict = *dictionary->dict;
        const int count = dict.bytesList.rows;
        if (id < 0 || id >= count)
            return fail(AK_ERR_ARGUMENT, fn, "marker id %d is outside the dictionary (0...%d)", id, count - 1);
        const int min_side = dict.markerSize + 2;  // one pixel per bit, border included
        if (side_pixels < min_side)
            return fail(AK_ERR_ARGUMENT, fn, "side_pixels must be at least %d for %dx%d markers, got %d", min_side,
                        dict.markerSize, dict.markerSize, side_pixels);
        if (margin_pixels < 0) return fail(AK_ERR_ARGUMENT, fn, "margin_pixels must be >= 0, got %d", margin_pixels);
        const int64_t total = static_cast<int64_t>(side_pixels) + 2 * static_cast<int64_t>(margin_pixels);
        if (total > 1000000 || total * total > kMaxPixels)
            return fail(AK_ERR_ARGUMENT, fn, "image too large: %lldx%lld", static_cast<long long>(total),
                        static_cast<long long>(total));
        cv::Mat code, img;
        cv::aruco::drawMarker(dictionary->dict, id, side_pixels, code, 1);
        cv::copyMakeBorder(code, img, margin_pixels, margin_pixels, margin_pixels, margin_pixels, cv::BORDER_CONSTANT,
                           cv::Scalar::all(255));
        *out = make_image(std::move(img));
        return AK_OK;
    });
}

void ak_marker_params_default(ak_marker_params *params) {
    if (!params) return;
    // OpenCV 4.6 defaults (cv::aruco::DetectorParameters()), except TEMPLATE refinement.
    *params = ak_marker_params{AK_CORNER_REFINE_TEMPLATE, 5, 0.03, 4.0, 0.03, 3, 23, 10, 0.6, 0, 0};
    try {
        cv::aruco::DetectorParameters d;
        params->refinement_window = d.cornerRefinementWinSize;
        params->min_marker_perimeter_rate = d.minMarkerPerimeterRate;
        params->max_marker_perimeter_rate = d.maxMarkerPerimeterRate;
        params->polygonal_approx_accuracy_rate = d.polygonalApproxAccuracyRate;
        params->adaptive_thresh_win_size_min = d.adaptiveThreshWinSizeMin;
        params->adaptive_thresh_win_size_max = d.adaptiveThreshWinSizeMax;
        params->adaptive_thresh_win_size_step = d.adaptiveThreshWinSizeStep;
        params->error_correction_rate = d.errorCorrectionRate;
        params->template_correlation = 0;
        params->still_photos = 0;
    } catch (...) {
        // keep the literal defaults above
    }
}

ak_status ak_marker_detector_create(const ak_dictionary *dictionary, const ak_marker_params *params,
                                    ak_marker_detector **out) {
    static const char *fn = "ak_marker_detector_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (!dictionary || !dictionary->dict) return fail(AK_ERR_ARGUMENT, fn, "dictionary is NULL");
        const ak_marker_params p = given_or_default(params, ak_marker_params_default);
        if (p.corner_refinement < AK_CORNER_REFINE_NONE || p.corner_refinement > AK_CORNER_REFINE_TEMPLATE)
            return fail(AK_ERR_ARGUMENT, fn, "unknown corner_refinement %d", static_cast<int>(p.corner_refinement));
        if (p.refinement_window < 1 || p.refinement_window > 100)
            return fail(AK_ERR_ARGUMENT, fn, "refinement_window must be in 1...100, got %d", p.refinement_window);
        if (!(p.min_marker_perimeter_rate > 0) || !(p.max_marker_perimeter_rate > p.min_marker_perimeter_rate) ||
            !std::isfinite(p.max_marker_perimeter_rate))
            return fail(AK_ERR_ARGUMENT, fn, "need 0 < min_marker_perimeter_rate (%g) < max_marker_perimeter_rate (%g)",
                        p.min_marker_perimeter_rate, p.max_marker_perimeter_rate);
        if (!(p.polygonal_approx_accuracy_rate > 0) || !(p.polygonal_approx_accuracy_rate < 1))
            return fail(AK_ERR_ARGUMENT, fn, "polygonal_approx_accuracy_rate must be in (0, 1), got %g",
                        p.polygonal_approx_accuracy_rate);
        if (p.adaptive_thresh_win_size_min < 3 || p.adaptive_thresh_win_size_max < p.adaptive_thresh_win_size_min ||
            p.adaptive_thresh_win_size_step <= 0 || p.adaptive_thresh_win_size_max > 1001)
            return fail(AK_ERR_ARGUMENT, fn,
                        "need 3 <= adaptive_thresh_win_size_min (%d) <= adaptive_thresh_win_size_max (%d) <= 1001 and "
                        "adaptive_thresh_win_size_step (%d) > 0",
                        p.adaptive_thresh_win_size_min, p.adaptive_thresh_win_size_max, p.adaptive_thresh_win_size_step);
        if (!(p.error_correction_rate >= 0) || !(p.error_correction_rate <= 1))
            return fail(AK_ERR_ARGUMENT, fn, "error_correction_rate must be in [0, 1], got %g", p.error_correction_rate);

        std::unique_ptr<ak_marker_detector> det(new ak_marker_detector);
        det->dict = dictionary->dict;
        det->params = cv::aruco::DetectorParameters::create();
        cv::aruco::DetectorParameters &d = *det->params;
        switch (p.corner_refinement) {
        case AK_CORNER_REFINE_NONE: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_NONE; break;
        case AK_CORNER_REFINE_SUBPIX: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX; break;
        case AK_CORNER_REFINE_CONTOUR: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_CONTOUR; break;
        case AK_CORNER_REFINE_APRILTAG: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_APRILTAG; break;
        case AK_CORNER_REFINE_TEMPLATE: d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX; break;
        }
        d.cornerRefinementWinSize = p.refinement_window;
        det->template_refinement = p.corner_refinement == AK_CORNER_REFINE_TEMPLATE;
        det->template_correlation = det->template_refinement && p.template_correlation != 0;
        det->still_photos = p.still_photos != 0;
        if (p.corner_refinement == AK_CORNER_REFINE_SUBPIX || p.corner_refinement == AK_CORNER_REFINE_TEMPLATE) {
            d.cornerRefinementMaxIterations = 50;
            d.cornerRefinementMinAccuracy = 0.01;
            // OpenCV 4.6 runs cornerSubPix with a fixed window, which for small markers reaches the
            // next marker's corners (up to ~5 px errors on the grid-board photo). We detect without
            // refinement and refine here with OpenCV >= 4.7's rule (see refine_subpix).
            d.cornerRefinementMethod = cv::aruco::CORNER_REFINE_NONE;
            det->subpix = true;
            det->subpix_window = p.refinement_window;
        }
        d.minMarkerPerimeterRate = p.min_marker_perimeter_rate;
        d.maxMarkerPerimeterRate = p.max_marker_perimeter_rate;
        d.polygonalApproxAccuracyRate = p.polygonal_approx_accuracy_rate;
        d.adaptiveThreshWinSizeMin = p.adaptive_thresh_win_size_min;
        d.adaptiveThreshWinSizeMax = p.adaptive_thresh_win_size_max;
        d.adaptiveThreshWinSizeStep = p.adaptive_thresh_win_size_step;
        d.errorCorrectionRate = p.error_correction_rate;
        *out = det.release();
        return AK_OK;
    });
}

void ak_marker_detector_free(ak_marker_detector *detector) { delete detector; }

}  // extern "C"

namespace {

// The markers' ids and unrefined corners, into detector->corners / ids: from AprilTag 3 when the
// detector has one (quads searched at 1 / `decimation` of the resolution; its detections already in
// OpenCV's convention), else from OpenCV's ArUco detector.
void detect_candidates(ak_marker_detector &det, const cv::Mat &gray, double decimation) {
    if (!det.apriltag) {
        cv::aruco::detectMarkers(gray, det.dict, det.corners, det.ids, det.params);
        return;
    }
    detect_apriltags(*det.apriltag, gray, det.tags, decimation);
    for (const ak_apriltag_detection &tag : det.tags) {
        det.ids.push_back(tag.id);
        det.corners.push_back({{tag.corners[0], tag.corners[1]}, {tag.corners[2], tag.corners[3]},
                               {tag.corners[4], tag.corners[5]}, {tag.corners[6], tag.corners[7]}});
    }
}

// Detects in the whole image, or in `region` searched at `scale` times its resolution, then refines
// the corners on the full-resolution image. Results stay in detector->corners / ids. A region is
// upsampled for scale > 1; for scale < 1 AprilTag 3 searches it at full resolution with quads
// decimated by 1 / scale (its edges are fitted at full resolution), OpenCV in an area-averaged copy.
void run_detection(ak_marker_detector &det, const ak_image &image, const cv::Rect *region, double scale) {
    det.profile.calls += 1;
    akcv::StageTimer candidates(det.profile.candidates);
    const cv::Mat *gray = &akcv::gray_of(image.mat, det.gray);
    det.corners.clear();
    det.ids.clear();
    det.correlations.clear();
    if (!region) {
        detect_candidates(det, *gray, 1);
    } else if (scale < 1 && det.apriltag) {
        detect_candidates(det, (*gray)(*region), 1 / scale);
        for (std::vector<cv::Point2f> &quad : det.corners)
            for (cv::Point2f &c : quad) c += cv::Point2f(static_cast<float>(region->x), static_cast<float>(region->y));
    } else {
        cv::Mat resampled;
        cv::resize((*gray)(*region), resampled, cv::Size(), scale, scale, scale > 1 ? cv::INTER_LINEAR : cv::INTER_AREA);
        detect_candidates(det, resampled, 1);
        // cv::resize maps pixel centres as x_resampled = (x + 0.5) * scale - 0.5.
        for (std::vector<cv::Point2f> &quad : det.corners)
            for (cv::Point2f &c : quad)
                c = cv::Point2f(static_cast<float>((c.x + 0.5) / scale - 0.5 + region->x),
                                static_cast<float>((c.y + 0.5) / scale - 0.5 + region->y));
    }
    candidates.stop();
    if (det.template_refinement) {
        // The steps run in one pass, marker by marker (its markers on several threads for still
        // photos): its wall time is shared between them in proportion to the time each took.
        double wall = 0;
        cv::Vec3d busy;
        {
            const akcv::StageTimer timer(wall);
            busy = refine_markers(det, *gray);
        }
        const double total = busy[0] + busy[1] + busy[2];
        const double subpixel = total > 0 ? wall * busy[0] / total : 0, edges = total > 0 ? wall * busy[1] / total : 0;
        det.profile.subpixel += subpixel;
        det.profile.edges += edges;
        det.profile.template_alignment += wall - subpixel - edges;
    } else if (det.subpix) {
        const akcv::StageTimer timer(det.profile.subpixel);
        refine_subpix(det, *gray);
    }
}

ak_status write_results(const char *fn, const ak_marker_detector &det, ak_marker_detection *detections, int capacity,
                        int *count) {
    const int found = static_cast<int>(det.ids.size());
    if (det.corners.size() != det.ids.size())
        return fail(AK_ERR_INTERNAL, fn, "OpenCV returned %zu corner sets for %d ids", det.corners.size(), found);
    for (int i = 0; i < found && i < capacity; ++i) {
        const std::vector<cv::Point2f> &c = det.corners[static_cast<size_t>(i)];
        if (c.size() != 4) return fail(AK_ERR_INTERNAL, fn, "OpenCV returned a marker with %zu corners", c.size());
        ak_marker_detection &d = detections[i];
        d.id = det.ids[static_cast<size_t>(i)];
        d.correlation = static_cast<size_t>(i) < det.correlations.size() ? det.correlations[static_cast<size_t>(i)]
                                                                         : std::numeric_limits<float>::quiet_NaN();
        for (int k = 0; k < 4; ++k) {
            d.corners[2 * k] = c[static_cast<size_t>(k)].x;
            d.corners[2 * k + 1] = c[static_cast<size_t>(k)].y;
        }
    }
    *count = found;
    return AK_OK;
}

}  // namespace

extern "C" {

ak_status ak_marker_detector_detect(ak_marker_detector *detector, const ak_image *image,
                                    ak_marker_detection *detections, int capacity, int *count) {
    static const char *fn = "ak_marker_detector_detect";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_detect_arguments(fn, detector, image, detections, capacity, count)) return s;
        // Images are immutable and serials unique: the same serial means the same pixels, so a call
        // repeated with more capacity returns the previous results without detecting again.
        if (image->serial == 0 || image->serial != detector->last_serial) {
            detector->last_serial = 0;
            run_detection(*detector, *image, nullptr, 1);
            detector->last_serial = image->serial;
        }
        return write_results(fn, *detector, detections, capacity, count);
    });
}

ak_status ak_marker_detector_detect_region(ak_marker_detector *detector, const ak_image *image, int x, int y,
                                           int width, int height, double scale, ak_marker_detection *detections,
                                           int capacity, int *count) {
    static const char *fn = "ak_marker_detector_detect_region";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_detect_arguments(fn, detector, image, detections, capacity, count)) return s;
        if (!(scale >= 0.125 && scale <= 8)) return fail(AK_ERR_ARGUMENT, fn, "scale must be in 0.125...8, got %g", scale);
        const cv::Rect region = cv::Rect(x, y, width, height) & cv::Rect(0, 0, image->mat.cols, image->mat.rows);
        detector->last_serial = 0;  // the cached results are no longer the full frame's
        if (region.width < 8 || region.height < 8) return AK_OK;
        run_detection(*detector, *image, &region, scale);
        return write_results(fn, *detector, detections, capacity, count);
    });
}

namespace {

// The checks and conversions the calls on one known marker share: its id, corners and gray image.
ak_status known_marker_arguments(const char *fn, ak_marker_detector *detector, const ak_image *image, int id,
                                 const float *corners, const void *result, const cv::Mat *&gray, std::vector<cv::Point2f> &quad) {
    if (!detector) return fail(AK_ERR_ARGUMENT, fn, "detector is NULL");
    if (ak_status s = check_image(fn, image, "image")) return s;
    if (!corners || !result) return fail(AK_ERR_ARGUMENT, fn, "corners or the result pointer is NULL");
    const int count = detector->dict->bytesList.rows;
    if (id < 0 || id >= count) return fail(AK_ERR_ARGUMENT, fn, "marker id %d is not in the dictionary (0...%d)", id, count - 1);
    for (int i = 0; i < 8; ++i)
        if (!std::isfinite(corners[i])) return fail(AK_ERR_ARGUMENT, fn, "corners must be finite");
    gray = &akcv::gray_of(image->mat, detector->gray);
    quad.resize(4);
    for (int k = 0; k < 4; ++k) quad[static_cast<size_t>(k)] = cv::Point2f(corners[2 * k], corners[2 * k + 1]);
    return AK_OK;
}

void write_corners(const std::vector<cv::Point2f> &quad, float corners[8]) {
    for (int k = 0; k < 4; ++k) corners[2 * k] = quad[static_cast<size_t>(k)].x, corners[2 * k + 1] = quad[static_cast<size_t>(k)].y;
}

}  // namespace

ak_status ak_marker_detector_refine_template(ak_marker_detector *detector, const ak_image *image, int id,
                                            float corners[8], int *refined) {
    static const char *fn = "ak_marker_detector_refine_template";
    return guarded(fn, [&]() -> ak_status {
        if (refined) *refined = 0;
        const cv::Mat *gray = nullptr;
        std::vector<cv::Point2f> quad;
        if (ak_status s = known_marker_arguments(fn, detector, image, id, corners, refined, gray, quad)) return s;
        detector->profile.calls += 1;
        const akcv::StageTimer timer(detector->profile.template_alignment);
        if (!refine_template_from(*detector, *gray, id, quad)) return AK_OK;
        write_corners(quad, corners);
        *refined = 1;
        return AK_OK;
    });
}

ak_status ak_marker_detector_follow(ak_marker_detector *detector, const ak_image *image, int id, float corners[8],
                                    double *correlation) {
    static const char *fn = "ak_marker_detector_follow";
    return guarded(fn, [&]() -> ak_status {
        if (correlation) *correlation = std::numeric_limits<double>::quiet_NaN();
        const cv::Mat *gray = nullptr;
        std::vector<cv::Point2f> quad;
        if (ak_status s = known_marker_arguments(fn, detector, image, id, corners, correlation, gray, quad)) return s;
        detector->profile.calls += 1;
        const akcv::StageTimer timer(detector->profile.template_alignment);
        *correlation = follow_marker(*detector, *gray, id, quad);
        if (std::isfinite(*correlation)) write_corners(quad, corners);
        return AK_OK;
    });
}

void ak_marker_detector_profile(const ak_marker_detector *detector, ak_marker_profile *profile) {
    if (!profile) return;
    *profile = detector ? detector->profile : ak_marker_profile{};
}

}  // extern "C"
