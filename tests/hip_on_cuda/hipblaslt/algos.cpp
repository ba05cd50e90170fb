// HIP-over-CUDA test runtime (libhipblaslt.so.0): the algo table (see algos.h).
// What it cannot prove: what hipBLASLt's real 16 bytes mean (a solution index into its
// Tensile library); the vendor must treat them as opaque, which this enforces.
#include "algos.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>

namespace hipshim_lt {
namespace {

// data[0..3] tag, [4..7] table index, [8..15] checksum of the cuBLASLt algo.
constexpr unsigned char kTag[4] = {'o', 'p', 'k', 'A'};

std::mutex g_mutex;
std::deque<cublasLtMatmulAlgo_t> g_algos;  // a deque: growing never moves the entries

uint64_t checksum(const cublasLtMatmulAlgo_t& a) noexcept {  // FNV-1a over the 64 bytes
    unsigned char bytes[sizeof a];
    std::memcpy(bytes, &a, sizeof a);
    uint64_t h = 1469598103934665603ull;
    for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
    return h;
}

bool same(const cublasLtMatmulAlgo_t& x, const cublasLtMatmulAlgo_t& y) noexcept {
    return std::memcmp(&x, &y, sizeof x) == 0;
}

}  // namespace

bool remember(const cublasLtMatmulAlgo_t& a, lt::Algo* out) noexcept {
    uint32_t index = 0;
    try {
        std::lock_guard<std::mutex> lock(g_mutex);
        for (; index < g_algos.size(); ++index)
            if (same(g_algos[index], a)) break;
        if (index == g_algos.size()) g_algos.push_back(a);
    } catch (...) {
        return false;
    }
    const uint64_t sum = checksum(a);
    std::memcpy(out->data, kTag, 4);
    std::memcpy(out->data + 4, &index, 4);
    std::memcpy(out->data + 8, &sum, 8);
    return true;
}

bool recall(const lt::Algo& in, cublasLtMatmulAlgo_t* out) noexcept {
    if (std::memcmp(in.data, kTag, 4) != 0) return false;
    uint32_t index = 0;
    uint64_t sum = 0;
    std::memcpy(&index, in.data + 4, 4);
    std::memcpy(&sum, in.data + 8, 8);
    try {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (index >= g_algos.size()) return false;
        *out = g_algos[index];
    } catch (...) {
        return false;
    }
    return checksum(*out) == sum;
}

}  // namespace hipshim_lt
