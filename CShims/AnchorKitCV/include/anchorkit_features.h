/* anchorkit_features.h — AnchorKit's C boundary: features (planar images).
 * The rules of this boundary are written in anchorkit_cv.h, the umbrella header. */
#ifndef ANCHORKIT_FEATURES_H
#define ANCHORKIT_FEATURES_H

#include "anchorkit_image.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * descriptors at a time: brute force (exact, linear in the total) or multi-probe LSH (tables
 * of about one reference feature a bucket, from a fixed seed; approximate, sub-linear). */
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

#ifdef __cplusplus
}
#endif

#endif
