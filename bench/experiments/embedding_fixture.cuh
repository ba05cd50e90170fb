// The gather the embedding forward experiments time (embedding_forward_variants.cu,
// embedding_forward_ahead.cu; not part of the build): a [V, D] table of a fixed word
// pattern and `count` int64 ids of a fixed xorshift sequence, on the device and on the host,
// and the EmbeddingArgs the library's host builds for contiguous ids and a contiguous y.
#pragma once

#include "../../vendors/gpu/kernel_params.h"
#include "cuda_check.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace emb_fixture {

struct Table {
    int64_t V, D, count, row_bytes;
    char* w = nullptr;       // the table on the device
    int64_t* ids = nullptr;  // the ids on the device
    std::vector<int64_t> hid;
    std::vector<unsigned> hw;

    Table(int64_t v, int64_t d, int64_t n, int element_size)
        : V(v), D(d), count(n), row_bytes(d * element_size), hid(size_t(n)), hw(size_t(v * d * element_size / 4)) {
        unsigned long long x = 88172645463325252ull;
        for (auto& id : hid) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            id = int64_t(x % uint64_t(V));
        }
        for (size_t i = 0; i < hw.size(); ++i) hw[i] = unsigned(i * 2654435761u);
        CHECK_CUDA(cudaMalloc(&w, V * row_bytes));
        CHECK_CUDA(cudaMalloc(&ids, count * 8));
        CHECK_CUDA(cudaMemcpy(ids, hid.data(), count * 8, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(w, hw.data(), V * row_bytes, cudaMemcpyHostToDevice));
    }
    ~Table() {
        cudaFree(w);
        cudaFree(ids);
    }
    Table(const Table&) = delete;
    Table& operator=(const Table&) = delete;

    // The library host's arguments for a contiguous [count, D] y.
    opk::EmbeddingArgs args(void* y) const {
        opk::EmbeddingArgs a{};
        a.weight = w;
        a.weight_stride = D;
        a.weight_vec = 1;
        a.ids64 = 1;
        a.ids.data = ids;
        a.ids.nd = 1;
        a.ids.size[0] = count;
        a.ids.stride[0] = 1;
        a.ids.vec = 1;
        a.rows.data = y;
        a.rows.nd = 1;
        a.rows.size[0] = count;
        a.rows.stride[0] = D;
        a.rows.vec = 1;
        a.count = count;
        a.V = V;
        a.D = D;
        return a;
    }

    // Whether a device y holds each id's table row, byte for byte.
    bool gathered(const char* y) const {
        std::vector<char> h(size_t(count * row_bytes));
        CHECK_CUDA(cudaMemcpy(h.data(), y, h.size(), cudaMemcpyDeviceToHost));
        for (int64_t k = 0; k < count; ++k)
            if (std::memcmp(h.data() + k * row_bytes, reinterpret_cast<const char*>(hw.data()) + hid[k] * row_bytes,
                            size_t(row_bytes)) != 0)
                return false;
        return true;
    }
};

}  // namespace emb_fixture
