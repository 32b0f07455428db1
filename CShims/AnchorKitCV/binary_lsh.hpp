// Nearest neighbours of 256-bit binary descriptors (ORB) by Hamming distance, for matching
// features (features.cpp): exhaustive, and by multi-probe locality-sensitive hashing. Internal to
// AnchorKitCV; not part of the C interface.
#pragma once

#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

namespace akcv {

// Bytes of a descriptor (ORB with WTA_K = 2: 256 bits).
constexpr int kBinaryDescriptorBytes = 32;

// For each row of `queries` (n x 32 CV_8U): the nearest and second-nearest rows of `train`
// (m x 32 CV_8U, continuous) and their distances, written as BinaryLsh::nearestTwo writes them; of
// rows at equal distance the first wins. Every row is compared (cv::BFMatcher's knnMatch with
// k = 2 finds the same, at several times the cost: a dispatched call per pair). Runs on several
// threads over blocks of queries.
void nearestTwoExhaustive(const cv::Mat &queries, const cv::Mat &train, int *indices, int *distances);

// Each table keys a descriptor by `key_bits` of its 256 bits, chosen from a fixed seed; a table's
// buckets are stored flat (a counting sort of the rows by key: offsets into one array of rows), so
// a probe is two array reads instead of FLANN's hash-map lookup. A query probes, in every table,
// its own key and the keys one bit away (multi-probe level 1), and keeps the two nearest distinct
// rows by Hamming distance. The same descriptors and seed give the same index on every thread.
class BinaryLsh {
public:
    // `descriptors`: rows x 32 CV_8U, continuous; shared, not copied (the caller leaves it
    // unchanged). Keys are log2 of the rows rounded up bits long, within 12...20 (about one row a
    // bucket).
    BinaryLsh(const cv::Mat &descriptors, int tables, uint64_t seed);

    // For each row of `queries` (n x 32 CV_8U): the nearest and second-nearest indexed rows found
    // and their distances, written to indices[2q], indices[2q + 1] and distances[2q], ... (-1 and
    // INT_MAX where fewer were found). Runs on several threads over blocks of queries.
    void nearestTwo(const cv::Mat &queries, int *indices, int *distances) const;

private:
    struct Table {
        std::vector<uint16_t> bits;      // the descriptor bits that make the key, low bit first
        std::vector<uint32_t> offsets;   // 2^key_bits + 1: rows of key k are rows[offsets[k]..offsets[k+1])
        std::vector<uint32_t> rows;
    };
    uint32_t key(const Table &table, const uint8_t *descriptor) const;

    cv::Mat descriptors_;
    int key_bits_;
    std::vector<Table> tables_;
};

}  // namespace akcv
