/* anchorkit_markers.h — AnchorKit's C boundary: markers.
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header. */
#ifndef ANCHORKIT_MARKERS_H
#define ANCHORKIT_MARKERS_H

#include "anchorkit_image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Predefined dictionary ids are OpenCV's cv::aruco::PREDEFINED_DICTIONARY_NAME values
 * (DICT_4X4_50 = 0 ... DICT_APRILTAG_36h11 = 20). */
typedef struct ak_dictionary ak_dictionary;

ak_status ak_dictionary_predefined(int predefined_id, ak_dictionary **out);
/* Reads a custom dictionary from OpenCV's YAML form (nmarkers, markersize, marker_0 ...). */
ak_status ak_dictionary_read(const char *path, ak_dictionary **out);
void ak_dictionary_free(ak_dictionary *dictionary);
/* Number of codes and bits per side (without the black border). */
void ak_dictionary_info(const ak_dictionary *dictionary, int *marker_count, int *marker_bits);

/* Draws marker `id` as a gray image: a `side_pixels`-wide black-bordered code centred in a white
 * quiet zone `margin_pixels` wide on every side (total side = side + 2 * margin). */
ak_status ak_marker_draw(const ak_dictionary *dictionary, int id, int side_pixels, int margin_pixels,
                         ak_image **out);

typedef enum {
    AK_CORNER_REFINE_NONE = 0,
    AK_CORNER_REFINE_SUBPIX = 1,
    AK_CORNER_REFINE_CONTOUR = 2,
    AK_CORNER_REFINE_APRILTAG = 3,
    /* SUBPIX, then each border side re-located from sub-pixel gradient maxima (lines fitted and
     * intersected: no corner rounding bias), then the ideal marker image, blurred like those
     * edges, aligned to the frame (a homography using every bit edge; see
     * ak_marker_detector_refine_template). The most accurate; the default. */
    AK_CORNER_REFINE_TEMPLATE = 4
} ak_corner_refinement;

typedef struct {
    ak_corner_refinement corner_refinement; /* default TEMPLATE */
    int refinement_window;                  /* half-size in px for SUBPIX; default 5 */
    double min_marker_perimeter_rate;       /* relative to the image's larger side; default 0.03 */
    double max_marker_perimeter_rate;       /* default 4.0 */
    double polygonal_approx_accuracy_rate;  /* default 0.03 */
    int adaptive_thresh_win_size_min;       /* default 3 */
    int adaptive_thresh_win_size_max;       /* default 23 */
    int adaptive_thresh_win_size_step;      /* default 10 */
    double error_correction_rate;           /* default 0.6 */
    int template_correlation;               /* 1: TEMPLATE refinement also reports each marker's correlation
                                             * (ak_marker_detection.correlation, ~0.03 ms a marker); default 0 */
    int still_photos;                       /* 1: TEMPLATE refinement for unrelated still photos, where no
                                             * marker is followed from frame to frame: AprilTag 3's corners,
                                             * already sub-pixel, go to the edges without SUBPIX, and templates
                                             * have at least 3 pixels a module instead of 4; default 0 */
} ak_marker_params;

/* Fills OpenCV's defaults, except corner_refinement = TEMPLATE. */
void ak_marker_params_default(ak_marker_params *params);

typedef struct ak_marker_detector ak_marker_detector;

/* The detector keeps its own reference to the dictionary's codes. Its candidates come from OpenCV's
 * ArUco stage; for the DICT_APRILTAG_* dictionaries, ak_marker_detector_create_apriltag
 * (anchorkit_apriltag.h) makes one whose candidates come from AprilTag 3. */
ak_status ak_marker_detector_create(const ak_dictionary *dictionary, const ak_marker_params *params,
                                    ak_marker_detector **out);
void ak_marker_detector_free(ak_marker_detector *detector);

typedef struct {
    int id;
    float corners[8]; /* x0,y0, x1,y1, x2,y2, x3,y3 in px: TL, TR, BR, BL of the canonical marker */
    float correlation; /* with TEMPLATE refinement and params.template_correlation: the Pearson
                        * correlation (-1...1) of the aligned ideal marker with the image; else, or
                        * when the alignment failed, NaN */
} ak_marker_detection;

/* Detects markers in one frame (gray or BGR). Writes at most `capacity` detections and sets
 * *count to the number found (which may exceed capacity: call again with more room). */
ak_status ak_marker_detector_detect(ak_marker_detector *detector, const ak_image *image,
                                    ak_marker_detection *detections, int capacity, int *count);

/* Detects markers inside the region (x, y, width, height px; clipped to the image) searched at
 * `scale` times its resolution (0.125...8): upsampled, it finds markers too small for a
 * full-frame pass where a tracker expects one; decimated, large markers at a fraction of the cost.
 * Corners are refined on the full-resolution image and returned in its pixels. Same output
 * convention as ak_marker_detector_detect. */
ak_status ak_marker_detector_detect_region(ak_marker_detector *detector, const ak_image *image, int x, int y,
                                           int width, int height, double scale, ak_marker_detection *detections,
                                           int capacity, int *count);

/* The last step of TEMPLATE refinement alone, from the corners given (x0,y0 ... x3,y3 px: TL, TR,
 * BR, BL of marker `id`, as in ak_marker_detection.corners), whatever the detector's refinement
 * setting: the marker's ideal picture, blurred like the edges found along the given sides, is
 * aligned to the image (gray or BGR) by a homography invariant to gain and offset. *refined is 1
 * when the alignment converges with every corner within half a module of where it was given (the
 * corners are then replaced), else 0 (corners unchanged). */
ak_status ak_marker_detector_refine_template(ak_marker_detector *detector, const ak_image *image, int id,
                                            float corners[8], int *refined);

/* Follows marker `id` into `image` from predicted corners (as in ak_marker_detection.corners, e.g.
 * extrapolated from earlier frames), for a marker no detection found (too blurred, oblique or
 * partly outside the image for its candidate stage): the marker's ideal picture, blurred by about
 * one module, is aligned from there (it reaches about two modules), then refined as TEMPLATE
 * refinement does. *correlation gets the Pearson correlation (-1...1) of the aligned picture with
 * the image under it, and the corners are replaced; the caller decides what correlation is enough.
 * NaN, corners unchanged, when the alignment fails or less than a third of the picture is in the image. */
ak_status ak_marker_detector_follow(ak_marker_detector *detector, const ak_image *image, int id, float corners[8],
                                    double *correlation);

/* Where a detector's time went since it was made (as AprilTag 3's timeprofile), wall-clock
 * seconds summed over its calls: the candidate stage (AprilTag 3 or OpenCV's ArUco, with the
 * gray conversion and any region resampling), sub-pixel corners, edge lines, the template
 * alignment (of detections, and of markers followed or refined from given corners). With TEMPLATE
 * refinement a detection's sub-pixel corners, edge lines and templates are one pass, marker by
 * marker (on several threads for still photos): its wall time is split between the three in
 * proportion to the time each took. */
typedef struct {
    double candidates, subpixel, edges, template_alignment;
    int calls; /* detect, detect_region, refine_template and follow calls */
} ak_marker_profile;

void ak_marker_detector_profile(const ak_marker_detector *detector, ak_marker_profile *profile);

#ifdef __cplusplus
}
#endif

#endif
