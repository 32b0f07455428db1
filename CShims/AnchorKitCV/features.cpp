// features.cpp — ORB features of planar reference images and of frames, and matching them: one
// set against another (exhaustive) or a frame against many references (exhaustive or
// multi-probe LSH; both in binary_lsh.cpp).
#include "internal.hpp"

#include <opencv2/core/utility.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace akcv;

namespace {

constexpr int kDescriptorBytes = akcv::kBinaryDescriptorBytes;  // ORB with WTA_K = 2
constexpr int kMaxFeatures = 100000;     // per image
constexpr int kMaxGridSide = 64;

// Multi-probe LSH (binary_lsh.hpp): 12 tables keyed by about log2(reference features) bits each,
// probed at radius 1, from a fixed seed. Figures: Benchmarks/README.md ("Our own LSH tables").
constexpr int kLshTables = 12;
constexpr uint64_t kLshSeed = 0x616E63686F726B69ull;

ak_status check_orb_params(const char *fn, const ak_orb_params &p) {
    if (p.max_features < 1 || p.max_features > kMaxFeatures)
        return fail(AK_ERR_ARGUMENT, fn, "max_features must be in 1...%d, got %d", kMaxFeatures, p.max_features);
    if (!(p.scale_factor > 1) || !(p.scale_factor <= 4))
        return fail(AK_ERR_ARGUMENT, fn, "scale_factor must be in (1, 4], got %g", p.scale_factor);
    if (p.levels < 1 || p.levels > 32) return fail(AK_ERR_ARGUMENT, fn, "levels must be in 1...32, got %d", p.levels);
    if (p.fast_threshold < 1 || p.fast_threshold > 254)
        return fail(AK_ERR_ARGUMENT, fn, "fast_threshold must be in 1...254, got %d", p.fast_threshold);
    if (p.grid_columns < 0 || p.grid_rows < 0 || p.grid_columns > kMaxGridSide || p.grid_rows > kMaxGridSide ||
        ((p.grid_columns == 0) != (p.grid_rows == 0)))
        return fail(AK_ERR_ARGUMENT, fn, "grid_columns and grid_rows must both be 0 (no grid) or both in 1...%d, got %d x %d",
                    kMaxGridSide, p.grid_columns, p.grid_rows);
    return AK_OK;
}

// One ORB object per thread, reconfigured per call (cv::ORB is not safe to share between threads,
// and creating one per call allocates its pattern tables again).
cv::ORB &thread_orb() {
    thread_local cv::Ptr<cv::ORB> orb;
    if (!orb) orb = cv::ORB::create();
    return *orb;
}

// Keeps at most `limit` keypoints spread over a cols x rows grid: first up to ceil(limit / cells)
// per cell, strongest response first, then the strongest of the rest up to `limit`. The result
// (keypoints and descriptor rows) is ordered by decreasing response, whatever the grid.
void keep_spread(std::vector<cv::KeyPoint> &keypoints, cv::Mat &descriptors, cv::Size size, int limit, int cols,
                 int rows) {
    const size_t n = keypoints.size();
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const float ra = keypoints[static_cast<size_t>(a)].response, rb = keypoints[static_cast<size_t>(b)].response;
        return ra > rb || (ra == rb && a < b);  // ties keep ORB's order: deterministic
    });
    const int cells = cols * rows;
    const int cap = (limit + cells - 1) / cells;
    std::vector<int> per_cell(static_cast<size_t>(cells), 0);
    std::vector<char> taken(n, 0);
    int kept = 0;
    for (int i : order) {
        if (kept >= limit) break;
        const cv::Point2f &p = keypoints[static_cast<size_t>(i)].pt;
        const int cx = std::min(cols - 1, std::max(0, static_cast<int>(p.x * cols / size.width)));
        const int cy = std::min(rows - 1, std::max(0, static_cast<int>(p.y * rows / size.height)));
        int &c = per_cell[static_cast<size_t>(cy * cols + cx)];
        if (c < cap) {
            ++c;
            taken[static_cast<size_t>(i)] = 1;
            ++kept;
        }
    }
    for (int i : order) {
        if (kept >= limit) break;
        if (!taken[static_cast<size_t>(i)]) {
            taken[static_cast<size_t>(i)] = 1;
            ++kept;
        }
    }
    std::vector<cv::KeyPoint> out_kp;
    out_kp.reserve(static_cast<size_t>(kept));
    cv::Mat out_desc(kept, kDescriptorBytes, CV_8U);
    int r = 0;
    for (int i : order) {
        if (!taken[static_cast<size_t>(i)]) continue;
        out_kp.push_back(keypoints[static_cast<size_t>(i)]);
        std::memcpy(out_desc.ptr(r++), descriptors.ptr(i), kDescriptorBytes);
    }
    keypoints.swap(out_kp);
    descriptors = out_desc;
}

// ORB features of `gray` where `mask` (empty: everywhere) is non-zero, into `f`: strongest first,
// spread over the grid of `p`.
ak_status detect_orb(const char *fn, const cv::Mat &gray, const cv::Mat &mask, const ak_orb_params &p, ak_features &f) {
    const bool grid = p.grid_columns > 0 && p.grid_rows > 0;
    cv::ORB &orb = thread_orb();
    orb.setMaxFeatures(grid ? 2 * p.max_features : p.max_features);
    orb.setScaleFactor(p.scale_factor);
    orb.setNLevels(p.levels);
    orb.setFastThreshold(p.fast_threshold);
    orb.detectAndCompute(gray, mask, f.keypoints, f.descriptors);
    if (f.keypoints.empty()) {
        f.descriptors.release();
    } else if (f.descriptors.rows != static_cast<int>(f.keypoints.size()) || f.descriptors.cols != kDescriptorBytes ||
               f.descriptors.type() != CV_8U) {
        return fail(AK_ERR_INTERNAL, fn, "ORB returned %d descriptors of %d bytes for %zu keypoints", f.descriptors.rows,
                    f.descriptors.cols, f.keypoints.size());
    } else {
        // Without a grid, a 1 x 1 one: the same cap and the same strongest-first order.
        keep_spread(f.keypoints, f.descriptors, gray.size(), p.max_features, grid ? p.grid_columns : 1, grid ? p.grid_rows : 1);
    }
    if (!f.descriptors.empty() && !f.descriptors.isContinuous()) f.descriptors = f.descriptors.clone();
    return AK_OK;
}

// The affine simulation of ASIFT (Morel and Yu, 2009): `gray` turned by `degrees` about its centre,
// then squeezed by `tilt` along x, as a camera tilted away from the picture by acos(1 / tilt) sees
// it; before squeezing, a Gaussian blur along x of 0.8 sqrt(tilt^2 - 1) px keeps it from aliasing.
// `view` and `valid` (255 where the picture is) come out; `to_view` maps picture pixels to view pixels.
void simulate_view(const cv::Mat &gray, double tilt, double degrees, cv::Mat &view, cv::Mat &valid, cv::Matx23d &to_view) {
    const cv::Point2d centre((gray.cols - 1) / 2.0, (gray.rows - 1) / 2.0);
    cv::Matx23d turn = cv::getRotationMatrix2D(centre, degrees, 1.0);
    // Shift so that the turned picture's corners are all in view.
    double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
    for (const cv::Point2d c : {cv::Point2d(0, 0), cv::Point2d(gray.cols - 1, 0), cv::Point2d(0, gray.rows - 1),
                                cv::Point2d(gray.cols - 1, gray.rows - 1)}) {
        const double x = turn(0, 0) * c.x + turn(0, 1) * c.y + turn(0, 2), y = turn(1, 0) * c.x + turn(1, 1) * c.y + turn(1, 2);
        x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
    }
    turn(0, 2) -= x0, turn(1, 2) -= y0;
    const cv::Size turned_size(static_cast<int>(std::ceil(x1 - x0)) + 1, static_cast<int>(std::ceil(y1 - y0)) + 1);
    cv::Mat turned, turned_valid;
    cv::warpAffine(gray, turned, turn, turned_size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::warpAffine(cv::Mat(gray.size(), CV_8U, cv::Scalar(255)), turned_valid, turn, turned_size, cv::INTER_NEAREST,
                   cv::BORDER_CONSTANT, cv::Scalar(0));
    if (tilt > 1) cv::GaussianBlur(turned, turned, cv::Size(0, 0), 0.8 * std::sqrt(tilt * tilt - 1), 0.01);
    const cv::Size size(std::max(1, static_cast<int>(std::lround(turned_size.width / tilt))), turned_size.height);
    cv::resize(turned, view, size, 0, 0, cv::INTER_LINEAR);
    cv::resize(turned_valid, valid, size, 0, 0, cv::INTER_NEAREST);
    // Away from the picture's outline, whose edge against the black around it is no feature of it.
    cv::erode(valid, valid, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(7, 7)));
    // Pixel centres at integers: x_view = (x_turned + 0.5) / tilt - 0.5.
    const double sx = static_cast<double>(size.width) / turned_size.width;
    to_view = cv::Matx23d(sx * turn(0, 0), sx * turn(0, 1), sx * (turn(0, 2) + 0.5) - 0.5, turn(1, 0), turn(1, 1), turn(1, 2));
}

ak_keypoint to_ak(const cv::KeyPoint &k) {
    return ak_keypoint{k.pt.x, k.pt.y, k.size, k.angle, k.response, k.octave};
}

// The common argument checks of the matching functions.
ak_status check_match_output(const char *fn, ak_match *matches, int capacity, int *count) {
    if (count) *count = 0;
    if (!count) return fail(AK_ERR_ARGUMENT, fn, "count is NULL");
    if (capacity < 0) return fail(AK_ERR_ARGUMENT, fn, "capacity must be >= 0, got %d", capacity);
    if (capacity > 0 && !matches) return fail(AK_ERR_ARGUMENT, fn, "matches is NULL but capacity is %d", capacity);
    return AK_OK;
}

// A descriptor matrix OpenCV can search: continuous rows x 32 CV_8U.
bool valid_descriptors(const ak_features &f) {
    if (f.keypoints.empty()) return f.descriptors.empty();
    return f.descriptors.rows == static_cast<int>(f.keypoints.size()) && f.descriptors.cols == kDescriptorBytes &&
           f.descriptors.type() == CV_8U && f.descriptors.isContinuous();
}

// Writes the nearest two of each query row (`indices` and `distances` as BinaryLsh::nearestTwo
// gives them: -1 and INT_MAX where fewer were found) against the global rows of `offsets` (one
// reference of `offsets.size() - 1`).
int write_nearest(const std::vector<int> &indices, const std::vector<int> &distances, const std::vector<int> &offsets,
                  ak_match *matches, int capacity) {
    int found = 0;
    for (size_t q = 0; q < indices.size() / 2; ++q) {
        const int row = indices[2 * q];
        if (row < 0) continue;
        if (found < capacity) {
            const int ref = static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), row) - offsets.begin()) - 1;
            ak_match &out = matches[found];
            out.query = static_cast<int>(q);
            out.reference = ref;
            out.train = row - offsets[static_cast<size_t>(ref)];
            out.distance = distances[2 * q];
            out.second_distance = indices[2 * q + 1] >= 0 ? distances[2 * q + 1] : INT_MAX;
        }
        ++found;
    }
    return found;
}

}  // namespace

extern "C" {

void ak_orb_params_default(ak_orb_params *params) {
    if (!params) return;
    *params = ak_orb_params{1000, 1.2, 8, 20, 4, 4};
}

ak_status ak_features_detect(const ak_image *image, const ak_image *mask, const ak_orb_params *params,
                             ak_features **out) {
    static const char *fn = "ak_features_detect";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (mask) {
            if (ak_status s = check_image(fn, mask, "mask")) return s;
            if (mask->mat.channels() != 1) return fail(AK_ERR_ARGUMENT, fn, "mask must be gray (1 channel)");
            if (mask->mat.size() != image->mat.size())
                return fail(AK_ERR_ARGUMENT, fn, "mask is %dx%d but the image is %dx%d", mask->mat.cols, mask->mat.rows,
                            image->mat.cols, image->mat.rows);
        }
        const ak_orb_params p = given_or_default(params, ak_orb_params_default);
        if (ak_status s = check_orb_params(fn, p)) return s;

        const cv::Mat gray = to_channels(image->mat, 1);
        std::unique_ptr<ak_features> f(new ak_features);
        if (ak_status s = detect_orb(fn, gray, mask ? mask->mat : cv::Mat(), p, *f)) return s;
        *out = f.release();
        return AK_OK;
    });
}

ak_status ak_features_detect_tilted(const ak_image *image, const ak_orb_params *params, double tilt, int rotations,
                                    ak_features **out) {
    static const char *fn = "ak_features_detect_tilted";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (ak_status s = check_image(fn, image, "image")) return s;
        if (!(tilt >= 1 && tilt <= 8)) return fail(AK_ERR_ARGUMENT, fn, "tilt must be in 1...8, got %g", tilt);
        if (rotations < 1 || rotations > 64) return fail(AK_ERR_ARGUMENT, fn, "rotations must be in 1...64, got %d", rotations);
        const ak_orb_params p = given_or_default(params, ak_orb_params_default);
        if (ak_status s = check_orb_params(fn, p)) return s;
        const cv::Mat gray = to_channels(image->mat, 1);
        // The views are independent: simulated on every core, gathered in rotation order (the
        // same set whatever the threads).
        std::vector<ak_features> views(static_cast<size_t>(rotations));
        std::vector<ak_status> statuses(static_cast<size_t>(rotations), AK_OK);
        cv::parallel_for_(cv::Range(0, rotations), [&](const cv::Range &range) {
            for (int k = range.start; k < range.end; ++k) {
                cv::Mat view, valid;
                cv::Matx23d to_view, to_picture;
                simulate_view(gray, tilt, 180.0 * k / rotations, view, valid, to_view);
                ak_features &f = views[static_cast<size_t>(k)];
                statuses[static_cast<size_t>(k)] = detect_orb(fn, view, valid, p, f);
                cv::invertAffineTransform(to_view, to_picture);
                for (cv::KeyPoint &kp : f.keypoints) {
                    const cv::Point2f q = kp.pt;
                    kp.pt = cv::Point2f(static_cast<float>(to_picture(0, 0) * q.x + to_picture(0, 1) * q.y + to_picture(0, 2)),
                                        static_cast<float>(to_picture(1, 0) * q.x + to_picture(1, 1) * q.y + to_picture(1, 2)));
                }
            }
        });
        std::unique_ptr<ak_features> all(new ak_features);
        std::vector<cv::Mat> rows;
        for (size_t k = 0; k < views.size(); ++k) {
            if (statuses[k] != AK_OK) return statuses[k];
            all->keypoints.insert(all->keypoints.end(), views[k].keypoints.begin(), views[k].keypoints.end());
            if (!views[k].descriptors.empty()) rows.push_back(views[k].descriptors);
        }
        if (!rows.empty()) cv::vconcat(rows, all->descriptors);
        *out = all.release();
        return AK_OK;
    });
}

ak_status ak_features_create(const ak_keypoint *keypoints, const uint8_t *descriptors, int count, ak_features **out) {
    static const char *fn = "ak_features_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        if (count < 0 || count > 100 * kMaxFeatures)
            return fail(AK_ERR_ARGUMENT, fn, "count must be in 0...%d, got %d", 100 * kMaxFeatures, count);
        if (count > 0 && (!keypoints || !descriptors))
            return fail(AK_ERR_ARGUMENT, fn, "keypoints or descriptors is NULL but count is %d", count);
        std::unique_ptr<ak_features> f(new ak_features);
        f->keypoints.reserve(static_cast<size_t>(count));
        for (int i = 0; i < count; ++i) {
            const ak_keypoint &k = keypoints[i];
            if (!std::isfinite(k.x) || !std::isfinite(k.y) || !std::isfinite(k.size) || !std::isfinite(k.angle) ||
                !std::isfinite(k.response))
                return fail(AK_ERR_ARGUMENT, fn, "keypoint %d has a non-finite field", i);
            f->keypoints.emplace_back(k.x, k.y, k.size, k.angle, k.response, k.octave);
        }
        if (count > 0) {
            f->descriptors.create(count, kDescriptorBytes, CV_8U);
            std::memcpy(f->descriptors.data, descriptors, static_cast<size_t>(count) * kDescriptorBytes);
        }
        *out = f.release();
        return AK_OK;
    });
}

void ak_features_free(ak_features *features) { delete features; }

int ak_features_count(const ak_features *features) {
    return features ? static_cast<int>(features->keypoints.size()) : 0;
}

void ak_features_keypoints(const ak_features *features, ak_keypoint *keypoints, int capacity) {
    if (!features || !keypoints || capacity <= 0) return;
    const size_t n = std::min(features->keypoints.size(), static_cast<size_t>(capacity));
    for (size_t i = 0; i < n; ++i) keypoints[i] = to_ak(features->keypoints[i]);
}

const uint8_t *ak_features_descriptors(const ak_features *features) {
    return (features && !features->descriptors.empty()) ? features->descriptors.data : nullptr;
}

ak_status ak_feature_index_create(const ak_features *const *references, int count, ak_index_kind kind,
                                  ak_feature_index **out) {
    static const char *fn = "ak_feature_index_create";
    return guarded(fn, [&]() -> ak_status {
        if (!out) return fail(AK_ERR_ARGUMENT, fn, "out is NULL");
        *out = nullptr;
        const int k = enum_value(kind);
        if (k != AK_INDEX_BRUTE_FORCE && k != AK_INDEX_LSH) return fail(AK_ERR_ARGUMENT, fn, "unknown index kind %d", k);
        if (count < 0) return fail(AK_ERR_ARGUMENT, fn, "count must be >= 0, got %d", count);
        if (count > 0 && !references) return fail(AK_ERR_ARGUMENT, fn, "references is NULL but count is %d", count);
        int64_t total = 0;
        for (int i = 0; i < count; ++i) {
            if (!references[i]) return fail(AK_ERR_ARGUMENT, fn, "reference %d is NULL", i);
            if (!valid_descriptors(*references[i])) return fail(AK_ERR_ARGUMENT, fn, "reference %d has malformed descriptors", i);
            total += static_cast<int64_t>(references[i]->keypoints.size());
        }
        if (total > INT_MAX / kDescriptorBytes)
            return fail(AK_ERR_ARGUMENT, fn, "too many reference descriptors: %lld", static_cast<long long>(total));

        std::unique_ptr<ak_feature_index> index(new ak_feature_index);
        index->kind = static_cast<ak_index_kind>(k);
        index->offsets.resize(static_cast<size_t>(count) + 1);
        index->offsets[0] = 0;
        if (total > 0) index->descriptors.create(static_cast<int>(total), kDescriptorBytes, CV_8U);
        int row = 0;
        for (int i = 0; i < count; ++i) {
            const cv::Mat &d = references[i]->descriptors;
            if (!d.empty()) {
                std::memcpy(index->descriptors.ptr(row), d.data, d.total());
                row += d.rows;
            }
            index->offsets[static_cast<size_t>(i) + 1] = row;
        }
        if (k == AK_INDEX_LSH && total > 0) index->lsh.reset(new akcv::BinaryLsh(index->descriptors, kLshTables, kLshSeed));
        *out = index.release();
        return AK_OK;
    });
}

void ak_feature_index_free(ak_feature_index *index) { delete index; }

ak_status ak_feature_index_match(ak_feature_index *index, const ak_features *query, ak_match *matches, int capacity,
                                 int *count) {
    static const char *fn = "ak_feature_index_match";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_match_output(fn, matches, capacity, count)) return s;
        if (!index) return fail(AK_ERR_ARGUMENT, fn, "index is NULL");
        if (!query) return fail(AK_ERR_ARGUMENT, fn, "query is NULL");
        if (!valid_descriptors(*query)) return fail(AK_ERR_ARGUMENT, fn, "query has malformed descriptors");
        if (query->descriptors.empty() || index->descriptors.empty()) return AK_OK;

        const size_t n = static_cast<size_t>(query->descriptors.rows);
        std::vector<int> indices(2 * n), distances(2 * n);
        if (index->kind == AK_INDEX_BRUTE_FORCE) {
            akcv::nearestTwoExhaustive(query->descriptors, index->descriptors, indices.data(), distances.data());
        } else {
            index->lsh->nearestTwo(query->descriptors, indices.data(), distances.data());
        }
        *count = write_nearest(indices, distances, index->offsets, matches, capacity);
        return AK_OK;
    });
}

ak_status ak_features_match(const ak_features *query, const ak_features *train, ak_match *matches, int capacity,
                            int *count) {
    static const char *fn = "ak_features_match";
    return guarded(fn, [&]() -> ak_status {
        if (ak_status s = check_match_output(fn, matches, capacity, count)) return s;
        if (!query || !train) return fail(AK_ERR_ARGUMENT, fn, "query or train is NULL");
        if (!valid_descriptors(*query) || !valid_descriptors(*train))
            return fail(AK_ERR_ARGUMENT, fn, "query or train has malformed descriptors");
        if (query->descriptors.empty() || train->descriptors.empty()) return AK_OK;
        const size_t n = static_cast<size_t>(query->descriptors.rows);
        std::vector<int> indices(2 * n), distances(2 * n);
        akcv::nearestTwoExhaustive(query->descriptors, train->descriptors, indices.data(), distances.data());
        const std::vector<int> offsets = {0, train->descriptors.rows};
        *count = write_nearest(indices, distances, offsets, matches, capacity);
        return AK_OK;
    });
}

}  // extern "C"
