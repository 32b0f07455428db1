/*
 * anchorkit_cv.h — the plain C boundary between AnchorKit (Swift) and OpenCV/Eigen (C++).
 *
 * Rules of this boundary:
 *  - Opaque handles, POD structs, status codes. Nothing OpenCV-typed crosses it.
 *  - Every C++ exception is caught inside; a failing call returns a non-zero `ak_status`
 *    and leaves a one-line, human-readable message in `ak_last_error()` (thread-local).
 *  - Calls are made per frame (or per batch), never per point.
 *  - Images are 8-bit, 1 (gray) or 3 (BGR, OpenCV's channel order) channels, rows contiguous.
 *  - Pixel coordinates follow OpenCV: origin at the top-left pixel's centre, x right, y down.
 *  - 3x3 matrices are passed as 9 doubles in ROW-major order (OpenCV's cv::Mat order).
 *  - Camera-space quantities here are in OpenCV's camera convention (+x right, +y down,
 *    +z forward). The Swift side converts to ARKit's (+y up, looking along -z).
 */
#ifndef ANCHORKIT_CV_H
#define ANCHORKIT_CV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- status */

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

/* ---------------------------------------------------------------- images */

typedef struct ak_image ak_image;

/* Decodes an image file (PNG, JPEG, TIFF, BMP, WebP, PNM, PAM, Sun raster). `channels` is 1 (gray),
 * 3 (BGR) or 4 (BGRA, straight alpha: a file without alpha is opaque; 16-bit files are scaled to
 * 8 bits). Before decoding, the size in the header is checked (AK_ERR_ARGUMENT when too large),
 * and a PNG must pass its CRCs up to IEND and a JPEG decode without libjpeg warnings
 * (AK_ERR_DECODE otherwise). */
ak_status ak_image_read(const char *path, int channels, ak_image **out);
/* The pixel size an image file's header states, without decoding it. Fails like ak_image_read
 * for a missing file, an unsupported format, a corrupt header or an image too large. */
ak_status ak_image_probe(const char *path, int *width, int *height);

/* Makes an image of width x height x channels (1, 3 or 4). If `data` is non-NULL it is copied
 * (row stride `stride` bytes); otherwise the image is filled with `fill` (0..255). */
ak_status ak_image_create(int width, int height, int channels, const uint8_t *data, size_t stride,
                          uint8_t fill, ak_image **out);

/* Releases an image; NULL is allowed. */
void ak_image_free(ak_image *image);

/* Width and height in pixels, channel count, and a pointer to the first row with its stride in
 * bytes. The pointer stays valid until the image is freed. */
void ak_image_info(const ak_image *image, int *width, int *height, int *channels);
const uint8_t *ak_image_pixels(const ak_image *image, size_t *stride);

/* A copy converted to `channels` (1, 3 or 4; alpha is dropped, or added opaque). */
ak_status ak_image_convert(const ak_image *image, int channels, ak_image **out);

/* Resizes to width x height (INTER_AREA when shrinking, INTER_LINEAR when growing). */
ak_status ak_image_resize(const ak_image *image, int width, int height, ak_image **out);

/* A copy blurred as by a camera moving (dx, dy) px during the exposure: averaged along that
 * segment, centred on each pixel (a uniform line kernel; borders replicated). At most 256 px. */
ak_status ak_image_motion_blur(const ak_image *image, double dx, double dy, ak_image **out);

/* Encodes to a file; the format follows the extension (.png, .jpg, ...). */
ak_status ak_image_write(const ak_image *image, const char *path);

/* ---------------------------------------------------------------- video */

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

/* ---------------------------------------------------------------- markers */

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

/* ---------------------------------------------------------------- camera & pose */

typedef struct {
    double fx, fy, cx, cy;    /* px */
    double distortion[5];     /* OpenCV's k1, k2, p1, p2, k3 */
} ak_camera;

typedef struct {
    int solutions;            /* 0, 1 or 2 */
    double rotation[2][9];    /* camera_from_target, OpenCV camera convention, row-major */
    double translation[2][3]; /* metres, OpenCV camera convention */
    double error[2];          /* RMS reprojection error, px; solutions sorted by it, best first */
} ak_square_pose;

/* Pose of `count` square targets of side `side` metres from their 4 corners each (TL, TR, BR, BL
 * as in ak_marker_detection.corners), with OpenCV's SOLVEPNP_IPPE_SQUARE. Both solutions of the
 * planar ambiguity are returned. The target frame is OpenCV's marker frame: origin at the centre,
 * +x toward the right edge, +y toward the top edge, +z out of the printed face; corners at
 * (-s/2, s/2, 0), (s/2, s/2, 0), (s/2, -s/2, 0), (-s/2, -s/2, 0). */
ak_status ak_solve_square_poses(const ak_camera *camera, double side, const float *corners, int count,
                                ak_square_pose *poses);


/* ---------------------------------------------------------------- features (planar images) */

/* Keypoints and ORB descriptors (32 bytes each) of one image. */
typedef struct ak_features ak_features;

typedef struct {
    float x, y;       /* px */
    float size;       /* diameter of the meaningful neighbourhood, px */
    float angle;      /* degrees, 0..360 */
    float response;
    int octave;       /* pyramid level */
} ak_keypoint;

typedef struct {
    int max_features;        /* default 1000 */
    double scale_factor;     /* pyramid ratio, default 1.2 */
    int levels;              /* pyramid levels, default 8 */
    int fast_threshold;      /* default 20 */
    int grid_columns;        /* keep features spread: at most max_features / (columns * rows) per */
    int grid_rows;           /* cell, strongest first (default 4 x 4; 0 = no grid) */
} ak_orb_params;

void ak_orb_params_default(ak_orb_params *params);

/* Detects ORB features in `image` (gray or BGR). `mask` (gray, same size, non-zero = use) may be
 * NULL. */
ak_status ak_features_detect(const ak_image *image, const ak_image *mask, const ak_orb_params *params,
                             ak_features **out);
/* ORB features of `image` as a camera tilted away from it sees it (ASIFT's affine simulation):
 * `rotations` views turned by 0, 180/rotations, ... degrees and squeezed by `tilt` (1...8; a view
 * acos(1 / tilt) off the picture's normal) across, `params` per view; keypoints in `image`'s pixels. */
ak_status ak_features_detect_tilted(const ak_image *image, const ak_orb_params *params, double tilt, int rotations,
                                    ak_features **out);
/* Makes a feature set from stored keypoints and descriptors (count x 32 bytes). */
ak_status ak_features_create(const ak_keypoint *keypoints, const uint8_t *descriptors, int count, ak_features **out);
void ak_features_free(ak_features *features);
int ak_features_count(const ak_features *features);
/* Copies min(count, capacity) keypoints; descriptors are count x 32 bytes, valid until freed. */
void ak_features_keypoints(const ak_features *features, ak_keypoint *keypoints, int capacity);
const uint8_t *ak_features_descriptors(const ak_features *features);

/* A search structure over the descriptors of many reference images, queried with one frame's
 * descriptors at a time: brute force (exact, linear in the total) or multi-probe LSH (FLANN;
 * approximate, sub-linear). */
typedef struct ak_feature_index ak_feature_index;
typedef enum { AK_INDEX_BRUTE_FORCE = 0, AK_INDEX_LSH = 1 } ak_index_kind;

ak_status ak_feature_index_create(const ak_features *const *references, int count, ak_index_kind kind,
                                  ak_feature_index **out);
void ak_feature_index_free(ak_feature_index *index);

typedef struct {
    int query;            /* keypoint index in the query */
    int reference;        /* which reference (index into the array given at creation) */
    int train;            /* keypoint index in that reference */
    int distance;         /* Hamming distance of the best match */
    int second_distance;  /* of the second best (any reference); INT_MAX if none */
} ak_match;

/* The best match of every query descriptor (and the second best's distance, for a ratio test).
 * Writes at most `capacity` and sets *count to the number of query descriptors matched. */
ak_status ak_feature_index_match(ak_feature_index *index, const ak_features *query, ak_match *matches, int capacity,
                                 int *count);

/* Brute-force 2-NN matching of `query` against one `train` set (for guided matching and the naive
 * baseline): same output, with reference = 0. */
ak_status ak_features_match(const ak_features *query, const ak_features *train, ak_match *matches, int capacity,
                            int *count);

/* ---------------------------------------------------------------- homographies */

typedef enum {
    AK_ROBUST_RANSAC = 0,
    AK_ROBUST_LMEDS = 1,
    AK_ROBUST_RHO = 2,
    AK_ROBUST_USAC_DEFAULT = 3,
    AK_ROBUST_USAC_FAST = 4,
    AK_ROBUST_USAC_ACCURATE = 5,
    AK_ROBUST_USAC_MAGSAC = 6,
    AK_ROBUST_LEAST_SQUARES = 7   /* all points, no outlier rejection (refinement on inliers) */
} ak_robust_method;

/* The homography mapping `src` to `dst` (count points, x,y interleaved, px): H row-major,
 * dst ~ H src. `inliers` (count bytes, may be NULL) gets 1 for inliers; *inlier_count their
 * number. Fails with AK_ERR_ARGUMENT for fewer than 4 points; returns AK_OK with
 * *inlier_count = 0 when no homography is found. */
ak_status ak_find_homography(const float *src, const float *dst, int count, ak_robust_method method,
                             double threshold, int max_iterations, double confidence, double h[9], uint8_t *inliers,
                             int *inlier_count);

/* Refines H (reference px -> image px, row-major, in/out) by aligning `reference` (gray) to
 * `image` with ECC over the reference's full area (OpenCV's findTransformECC, homography
 * motion). The reference should be roughly the size of its footprint in the image (pass a
 * pyramid level and the matching H). *correlation gets the final ECC value (-1..1). Returns
 * AK_OK with *correlation = -2 when ECC does not converge (H unchanged). */
ak_status ak_refine_homography(const ak_image *reference, const ak_image *image, double h[9], int iterations,
                               double epsilon, double *correlation);

/* A reference prepared for fast, repeated alignment (sparse inverse-compositional Lucas-Kanade,
 * Baker & Matthews 2004): up to `max_samples` of its strongest-gradient pixels, spread over the
 * picture, with their steepest-descent rows computed once. */
typedef struct ak_aligner ak_aligner;

ak_status ak_aligner_create(const ak_image *reference, int max_samples, ak_aligner **out);
void ak_aligner_free(ak_aligner *aligner);

/* Refines H (reference px -> image px, row-major, in/out) so that the reference's samples match
 * `image`, with an affine brightness model (gain and offset) and Huber weights that discount
 * occluded samples. Stops after `iterations` or when no corner moves more than `epsilon` px.
 * *correlation gets the zero-mean normalised cross-correlation (-1..1) of the samples in view
 * that agree with the fit (residual under 4.685 robust sigmas: not occluded), *coverage the
 * share of all samples they make up (0..1). Returns AK_OK with *correlation = -2 when
 * the alignment fails (too few samples in view, a degenerate H): H is then unchanged. */
ak_status ak_aligner_align(const ak_aligner *aligner, const ak_image *image, double h[9], int iterations,
                           double epsilon, double *correlation, double *coverage);

/* Zero-mean normalised cross-correlation between `reference` and the image warped into the
 * reference's frame by H^-1 (H: reference px -> image px), over the reference pixels that land
 * inside the image. *coverage gets that fraction (0..1). */
ak_status ak_homography_correlation(const ak_image *reference, const ak_image *image, const double h[9],
                                    double *correlation, double *coverage);

/* Plane sweep: how well each patch of `reference` agrees with `other` under each of `count`
 * plane-induced homographies (row-major 3x3 each, reference px -> other px). The reference is
 * tiled in `patch` x `patch` blocks (columns = width / patch, rows = height / patch, row-major);
 * scores[k * rows * columns + block] gets the zero-mean normalised cross-correlation of the
 * block with `other` warped by H_k, or NaN where the block maps partly outside `other` (or
 * behind it) or either side's standard deviation is under `min_std` gray levels (no texture to
 * judge by). Both images 8-bit gray or BGR (compared in gray). One call per view pair. */
ak_status ak_plane_sweep(const ak_image *reference, const ak_image *other, const double *homographies, int count,
                         int patch, double min_std, float *scores);

/* Scores of single blocks, each under its own homography: block k has its top-left pixel at
 * (corners[2k], corners[2k+1]) of `reference` and side `patch`; scores[k] as in ak_plane_sweep
 * (NaN outside `other`, or too flat). */
ak_status ak_block_scores(const ak_image *reference, const ak_image *other, const int *corners, const double *homographies,
                          int count, int patch, double min_std, float *scores);

/* Pose of a planar target from count >= 4 correspondences: object points (x, y) in metres on the
 * target's plane (z = 0, OpenCV target frame: +x right, +y down the reference image, +z into the
 * target), image points in px. SOLVEPNP_IPPE: both solutions, best first (as ak_square_pose). */
ak_status ak_solve_planar_pose(const ak_camera *camera, const float *object_points, const float *image_points,
                               int count, ak_square_pose *pose);

/* ---------------------------------------------------------------- optical flow */

/* An image pyramid for pyramidal Lucas-Kanade, built once per frame and reused. */
typedef struct ak_flow_pyramid ak_flow_pyramid;

ak_status ak_flow_pyramid_build(const ak_image *image, int window, int levels, ak_flow_pyramid **out);
void ak_flow_pyramid_free(ak_flow_pyramid *pyramid);

/* Tracks `count` points (x,y interleaved) from `previous` to `next` (calcOpticalFlowPyrLK with
 * the given window and levels; `tracked` may hold initial guesses when `use_guesses` is 1).
 * status[i] = 1 where the point was found and passed a forward-backward check (tracked back from
 * `next` to `previous`, it lands within 1 px of where it started); error[i] = its mean absolute
 * photometric error. `error` may be NULL. Both pyramids must come from images of the same size,
 * built with the same window; the levels used are the fewer of the two. */
ak_status ak_flow_track(const ak_flow_pyramid *previous, const ak_flow_pyramid *next, const float *points, int count,
                        float *tracked, int use_guesses, uint8_t *status, float *error);

#ifdef __cplusplus
}
#endif

#endif
