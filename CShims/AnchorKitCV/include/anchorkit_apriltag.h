/*
 * anchorkit_apriltag.h — AprilTag 3 (Debian's libapriltag) as the candidate stage of the
 * DICT_APRILTAG_* dictionaries (apriltag.cpp): its quad detection and decoding find the markers,
 * AnchorKit's corner refinement and pose follow.
 *
 * The rules of anchorkit_cv.h apply (status codes, ak_last_error(), whole arrays per call, no
 * library types). In particular, detections are in AnchorKit's (OpenCV's) convention, converted
 * once, inside apriltag.cpp: the id of OpenCV's dictionary, corners TL, TR, BR, BL of OpenCV's
 * marker image, pixel centres at integers.
 */
#ifndef ANCHORKIT_APRILTAG_H
#define ANCHORKIT_APRILTAG_H

#include "anchorkit_cv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /* The image is searched for quads at 1 / quad_decimate of its resolution (1, 1.5 or a whole
     * number up to 8: libapriltag's quad_decimate, which misplaces quads at other values); refined
     * edges bring the corners back to full resolution. */
    double quad_decimate;
    /* Threads (1 ... 64) a marker detector refines its markers on. libapriltag's own search runs on
     * one whatever this is: the worker pool of Debian's 3.3.0 can crash (fixed upstream after it). */
    int threads;
    /* 1: libapriltag fits each quad's edges to the full-resolution gradients (its refine_edges). */
    int refine_edges;
    /* Codes up to this many bits from a valid one are corrected and accepted (0 ... 2; libapriltag's
     * bits_corrected), or -1: OpenCV's rule, floor(error correction rate x the dictionary's
     * correctable bits) up to 2 (the marker parameters' rate; 0.6 for a raw detector). */
    int max_hamming;
    /* Regions (4 px tiles with their neighbours) whose gray levels span less than this are left
     * out of the quad search (libapriltag's min_white_black_diff, 0 ... 255; its default 5): a
     * marker's edge spans far more, flat paper and noise do not. */
    int min_contrast;
} ak_apriltag_params;

/* Fills the defaults: quad_decimate 1, threads 1, refine_edges 1, max_hamming -1, min_contrast 5. */
void ak_apriltag_params_default(ak_apriltag_params *params);

typedef struct ak_apriltag_detector ak_apriltag_detector;

/* A detector for the AprilTag family of `dictionary`, which must be one of OpenCV's predefined
 * DICT_APRILTAG_16h5, _25h9, _36h10 or _36h11 (AK_ERR_ARGUMENT otherwise). */
ak_status ak_apriltag_detector_create(const ak_dictionary *dictionary, const ak_apriltag_params *params,
                                      ak_apriltag_detector **out);
void ak_apriltag_detector_free(ak_apriltag_detector *detector);

typedef struct {
    int id;                /* OpenCV's id in the dictionary (the same number as libapriltag's) */
    int hamming;           /* bits corrected (at most max_hamming) */
    float decision_margin; /* libapriltag's: mean difference of the bits from the threshold, gray levels */
    float corners[8];      /* x0,y0 ... x3,y3 in px, as ak_marker_detection.corners (unrefined) */
} ak_apriltag_detection;

/* Detects tags in one frame (gray or BGR). Writes at most `capacity` detections and sets *count
 * to the number found (which may exceed capacity: call again with more room). */
ak_status ak_apriltag_detect(ak_apriltag_detector *detector, const ak_image *image, ak_apriltag_detection *detections,
                             int capacity, int *count);

/* A marker detector (as ak_marker_detector_create) whose candidates come from AprilTag 3 with
 * `apriltag` parameters (NULL: defaults) instead of OpenCV's ArUco stage; `params` choose the
 * corner refinement that follows (its ArUco thresholds are unused). The dictionary must be an
 * AprilTag one, as for ak_apriltag_detector_create. */
ak_status ak_marker_detector_create_apriltag(const ak_dictionary *dictionary, const ak_marker_params *params,
                                             const ak_apriltag_params *apriltag, ak_marker_detector **out);

#ifdef __cplusplus
}
#endif

#endif
