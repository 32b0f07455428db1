#include "binary_lsh.hpp"
#include "internal.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <numeric>

namespace akcv {

namespace {

// Inlined: cv::hal::normHamming, a dispatched call per 32-byte pair, made detection markedly
// slower on the table scene (Benchmarks/README.md, "Our own LSH tables").
int hamming(const uint8_t *a, const uint8_t *b) {
    int d = 0;
    for (int i = 0; i < kBinaryDescriptorBytes; i += 8) {
        uint64_t x, y;
        std::memcpy(&x, a + i, 8);
        std::memcpy(&y, b + i, 8);
        d += __builtin_popcountll(x ^ y);
    }
    return d;
}

constexpr int kQueryBlock = 64;  // queries per parallel task

// Keeps the two nearest rows seen so far: a row at the best distance or the runner-up's does not
// displace the one found first.
struct NearestTwo {
    int best = -1, second = -1, best_distance = INT_MAX, second_distance = INT_MAX;
    void offer(int row, int distance) {
        if (distance < best_distance) {
            second = best; second_distance = best_distance;
            best = row; best_distance = distance;
        } else if (distance < second_distance && row != best) {
            second = row; second_distance = distance;
        }
    }
    void write(int q, int *indices, int *distances) const {
        indices[2 * q] = best; indices[2 * q + 1] = second;
        distances[2 * q] = best_distance; distances[2 * q + 1] = second_distance;
    }
};

}  // namespace

void nearestTwoExhaustive(const cv::Mat &queries, const cv::Mat &train, int *indices, int *distances) {
    CV_Assert(queries.empty() || (queries.type() == CV_8U && queries.cols == kBinaryDescriptorBytes));
    CV_Assert(train.empty() || (train.type() == CV_8U && train.cols == kBinaryDescriptorBytes && train.isContinuous()));
    const int n = queries.rows, m = train.rows;
    const uint8_t *rows = m > 0 ? train.ptr<uint8_t>() : nullptr;
    cv::parallel_for_(cv::Range(0, (n + kQueryBlock - 1) / kQueryBlock), [&](const cv::Range &blocks) {
        for (int q = blocks.start * kQueryBlock; q < std::min(n, blocks.end * kQueryBlock); ++q) {
            const uint8_t *d = queries.ptr<uint8_t>(q);
            NearestTwo nearest;
            for (int row = 0; row < m; ++row) nearest.offer(row, hamming(d, rows + size_t(row) * kBinaryDescriptorBytes));
            nearest.write(q, indices, distances);
        }
    });
}

BinaryLsh::BinaryLsh(const cv::Mat &descriptors, int tables, uint64_t seed) : descriptors_(descriptors) {
    CV_Assert(descriptors.empty() || (descriptors.type() == CV_8U && descriptors.cols == kBinaryDescriptorBytes && descriptors.isContinuous()));
    CV_Assert(tables >= 1);
    const int n = descriptors.rows;
    int key_bits = 1;
    while (key_bits < 31 && (int64_t(1) << key_bits) < n) ++key_bits;
    key_bits = std::clamp(key_bits, 12, 20);
    key_bits_ = key_bits;
    uint64_t state = seed;
    tables_.resize(static_cast<size_t>(tables));
    std::vector<uint32_t> keys(static_cast<size_t>(n));
    for (Table &t : tables_) {
        // key_bits distinct positions of the 256 (a partial Fisher-Yates shuffle).
        std::array<uint16_t, kBinaryDescriptorBytes * 8> all;
        std::iota(all.begin(), all.end(), uint16_t(0));
        for (int i = 0; i < key_bits; ++i) {
            const int j = i + static_cast<int>(splitmix64(state) % uint64_t(all.size() - size_t(i)));
            state += kSplitMixIncrement;
            std::swap(all[size_t(i)], all[size_t(j)]);
        }
        t.bits.assign(all.begin(), all.begin() + key_bits);
        // Rows grouped by key: counts, their running sum, then each row into its slot.
        t.offsets.assign((size_t(1) << key_bits) + 1, 0);
        for (int r = 0; r < n; ++r) {
            keys[size_t(r)] = key(t, descriptors.ptr<uint8_t>(r));
            ++t.offsets[keys[size_t(r)] + 1];
        }
        std::partial_sum(t.offsets.begin(), t.offsets.end(), t.offsets.begin());
        std::vector<uint32_t> next(t.offsets.begin(), t.offsets.end() - 1);
        t.rows.resize(size_t(n));
        for (int r = 0; r < n; ++r) t.rows[next[keys[size_t(r)]]++] = uint32_t(r);
    }
}

uint32_t BinaryLsh::key(const Table &table, const uint8_t *descriptor) const {
    uint32_t k = 0;
    for (size_t i = 0; i < table.bits.size(); ++i) {
        const unsigned bit = table.bits[i];
        k |= uint32_t((descriptor[bit >> 3] >> (bit & 7)) & 1u) << i;
    }
    return k;
}

void BinaryLsh::nearestTwo(const cv::Mat &queries, int *indices, int *distances) const {
    CV_Assert(queries.empty() || (queries.type() == CV_8U && queries.cols == kBinaryDescriptorBytes));
    const int n = queries.rows;
    const size_t probes = tables_.size() * size_t(key_bits_ + 1);
    cv::parallel_for_(cv::Range(0, (n + kQueryBlock - 1) / kQueryBlock), [&](const cv::Range &blocks) {
        // A query's probes read three arrays in a chain (bucket offsets, rows, descriptors), each
        // read a cache miss in tables of megabytes. Followed probe by probe, the misses come one
        // after another; here each stage's reads are all requested before any is used, so they
        // overlap. The rows are then compared in the order the probes found them, as before.
        std::vector<uint32_t> keys(probes), begins(probes), ends(probes), found;
        for (int q = blocks.start * kQueryBlock; q < std::min(n, blocks.end * kQueryBlock); ++q) {
            const uint8_t *d = queries.ptr<uint8_t>(q);
            // Each table's own key, then the keys one bit away (multi-probe level 1).
            for (size_t t = 0, j = 0; t < tables_.size(); ++t) {
                const uint32_t k = key(tables_[t], d);
                for (int bit = -1; bit < key_bits_; ++bit, ++j) {
                    keys[j] = bit < 0 ? k : k ^ (1u << bit);
                    __builtin_prefetch(&tables_[t].offsets[keys[j]]);
                }
            }
            for (size_t j = 0; j < probes; ++j) {
                const Table &t = tables_[j / size_t(key_bits_ + 1)];
                begins[j] = t.offsets[keys[j]];
                ends[j] = t.offsets[keys[j] + 1];
                if (begins[j] < ends[j]) __builtin_prefetch(&t.rows[begins[j]]);
            }
            found.clear();
            for (size_t j = 0; j < probes; ++j) {
                const Table &t = tables_[j / size_t(key_bits_ + 1)];
                for (uint32_t i = begins[j]; i < ends[j]; ++i) {
                    found.push_back(t.rows[i]);
                    __builtin_prefetch(descriptors_.ptr<uint8_t>(int(t.rows[i])));
                }
            }
            // A row found again (in another table or probe) has the distance it had: it can
            // neither beat itself nor take the runner-up's place.
            NearestTwo nearest;
            for (const uint32_t r : found) nearest.offer(int(r), hamming(d, descriptors_.ptr<uint8_t>(int(r))));
            nearest.write(q, indices, distances);
        }
    });
}

}  // namespace akcv
