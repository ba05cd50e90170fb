// The gated backwards under other thread layouts, timed as bench/gpu_compare.py times a call.
// Not part of the build.
//
// Why: in the standing table (docs/PERFORMANCE.md) the swiglu and geglu(tanh) backwards
// trail torch.compile by 0.2-1 % in every round (fp32 at 32768x4096 0.99x, bf16 swiglu at
// 8192x8192 0.99x), at or above the copy bandwidth, and Nsight Compute found no issue or
// occupancy limit in opkit's kernel (thirty-sixth session). The experiments so far varied
// the packs a thread as packs i and i + B of a block (elementwise-dense-packs.patch) and the
// block (elementwise-block-shape.patch), always 16-byte accesses. Inductor's own kernels
// use other widths where its autotuner picked them: its bf16 gated backward at 4096x16384
// loads and stores 4 bytes a thread in blocks of 256 (bench/results/2026-12-01-s39/r5/ptx).
// So: accesses of 4, 8 and 16 bytes, one or two adjacent ones a thread.
//
// What: each line runs the same op on the same dense tensors, the lines alternating in
// each round; each call queued behind a spin kernel, events around it, the median of the
// round's calls. Outputs compared bit for bit with the library kernel's.
//   library        opk_<op>_dense_<dtype> at the library's launch (256 threads a block,
//                  one access a thread: a 16-byte pack, or since 6027a3d 8 bytes for the
//                  swiglu backward and fp32 geglu(tanh) backward; the fiftieth session's
//                  call 2 timed e336f66's kernels, all 16-byte, and the backwards alone)
//   half body      the library's 8-byte body (elementwise_dense_half) in a kernel of its
//                  own, for every op. Run in the fifty-first session's call 2 as it stood
//                  then (a grid-stride loop, the alignment and tail tests: 1.010 of the
//                  library's time on the bf16 geglu(tanh) backward, 1.05-1.11 on the
//                  forwards, bench/results/2026-12-02-s51/r2); since that session's landing
//                  it is straight-line, one access a thread
//   wW kK bB       W bytes an access (4, 8, 16), K adjacent accesses a thread (a thread's
//                  W x K bytes of each tensor are consecutive), blocks of B threads, one
//                  block per B x K accesses (no loop), every load of the thread before
//                  its first store
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o ewl bench/experiments/elementwise_layouts.cu
//   ./ewl        # on the GPU machine
#include "../../vendors/gpu/elementwise.cu"
#include "behind_spin.cuh"
#include "cuda_check.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace ewl {

using behind_spin::kSpinCycles;

constexpr int kCalls = 100, kRounds = 3;

template <int W>
struct Access;  // W bytes as words
template <>
struct Access<4> {
    static constexpr int words = 1;
    __device__ static void load(const void* p, uint32_t (&w)[1]) { w[0] = *static_cast<const uint32_t*>(p); }
    __device__ static void store(void* p, const uint32_t (&w)[1]) { *static_cast<uint32_t*>(p) = w[0]; }
};
template <>
struct Access<8> {
    static constexpr int words = 2;
    __device__ static void load(const void* p, uint32_t (&w)[2]) {
        const uint2 v = *static_cast<const uint2*>(p);
        w[0] = v.x, w[1] = v.y;
    }
    __device__ static void store(void* p, const uint32_t (&w)[2]) { *static_cast<uint2*>(p) = make_uint2(w[0], w[1]); }
};
template <>
struct Access<16> {
    static constexpr int words = 4;
    __device__ static void load(const void* p, uint32_t (&w)[4]) {
        const uint4 v = *static_cast<const uint4*>(p);
        w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
    }
    __device__ static void store(void* p, const uint32_t (&w)[4]) {
        *static_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
    }
};

// Dense tensors of a.n elements (a whole number of W x K bytes: the shapes here are).
template <typename T, class Op, int W, int K>
__global__ void layout(const opk::ElementwiseArgs a) {
    constexpr int NI = Op::nin, NO = Op::nout, WORDS = Access<W>::words, E = W / int(sizeof(T));
    constexpr int EW = 4 / int(sizeof(T));  // elements a word
    const int64_t first = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * K;  // in accesses
    if ((first + K) * E > a.n) return;
    uint32_t raw[NI][K][WORDS];
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
        for (int k = 0; k < K; ++k)
            Access<W>::load(static_cast<const char*>(a.t[j].data) + (first + k) * W, raw[j][k]);
    uint32_t out[NO][K][WORDS];
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
        for (int wd = 0; wd < WORDS; ++wd) {
            float in[NI][EW], o[NO][EW];
#pragma unroll
            for (int j = 0; j < NI; ++j) opk::unpack_word<T, EW>(raw[j][k][wd], 0, in[j]);
#pragma unroll
            for (int e = 0; e < EW; ++e) {
                float x[NI], y[NO];
#pragma unroll
                for (int j = 0; j < NI; ++j) x[j] = in[j][e];
                Op::template apply<sizeof(T) == 2>(x, y, a.alpha);
#pragma unroll
                for (int j = 0; j < NO; ++j) o[j][e] = y[j];
            }
#pragma unroll
            for (int j = 0; j < NO; ++j) out[j][k][wd] = opk::pack_word<T, EW>(o[j], 0);
        }
#pragma unroll
    for (int j = 0; j < NO; ++j)
#pragma unroll
        for (int k = 0; k < K; ++k)
            Access<W>::store(static_cast<char*>(a.t[NI + j].data) + (first + k) * W, out[j][k]);
}

// Inputs of small finite values (words of a fixed pattern, exponent bits cleared).
__global__ void fill(uint32_t* p, int64_t words, uint32_t seed, bool f32) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += int64_t(gridDim.x) * blockDim.x) {
        uint32_t h = uint32_t(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        p[i] = f32 ? (h & 0x807fffffu) | 0x3f000000u : (h & 0x807f807fu) | 0x3f003f00u;  // |v| in [0.5, 1)
    }
}

struct Line {
    std::string name;
    std::function<void()> launch;
    std::vector<float> us;
};

// The library's half-pack body (elementwise.cu's elementwise_dense_half) as a kernel of its
// own, whatever access the library gives the op.
template <typename T, class Op>
__global__ void __launch_bounds__(256) half_body(const opk::ElementwiseArgs a) {
    opk::elementwise_dense_half<T, Op>(a);
}

// lib_bytes: the bytes a thread of the library's dense kernel moves of each tensor
// (kernel_params.h's EwDenseAccess), for its launch.
template <typename T, class Op>
void run_op(const char* op, const char* dtype, const opk::ElementwiseArgs& base, void (*lib)(opk::ElementwiseArgs),
            int lib_bytes, char* const (&ref)[2], size_t out_bytes) {
    constexpr int NI = Op::nin, NO = Op::nout;
    const int64_t n = base.n;
    const int64_t lib_accesses = n * int64_t(sizeof(T)) / lib_bytes, halves = n * int64_t(sizeof(T)) / 8;
    char* out[NO];
    for (int j = 0; j < NO; ++j) out[j] = static_cast<char*>(base.t[NI + j].data);
    std::vector<Line> lines;
    lines.push_back({"library", [=] { lib<<<unsigned((lib_accesses + 255) / 256), 256>>>(base); }, {}});
    lines.push_back({"half body", [=] { half_body<T, Op><<<unsigned((halves + 255) / 256), 256>>>(base); }, {}});
    auto add = [&](auto kernel, int W, int K, int B) {
        const int64_t accesses = n * int64_t(sizeof(T)) / W;
        const unsigned grid = unsigned((accesses / K + B - 1) / B);
        lines.push_back({"w" + std::to_string(W) + " k" + std::to_string(K) + " b" + std::to_string(B),
                         [=] { kernel<<<grid, B>>>(base); }, {}});
    };
    for (int B : {128, 256}) {
        add(layout<T, Op, 4, 1>, 4, 1, B);
        add(layout<T, Op, 8, 1>, 8, 1, B);
        add(layout<T, Op, 16, 1>, 16, 1, B);
        add(layout<T, Op, 16, 2>, 16, 2, B);
        add(layout<T, Op, 8, 2>, 8, 2, B);
    }
    // The library's bytes as the reference.
    lines[0].launch();
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int j = 0; j < NO; ++j) CHECK_CUDA(cudaMemcpy(ref[j], out[j], out_bytes, cudaMemcpyDeviceToDevice));
    std::vector<char> h1(out_bytes), h2(out_bytes);
    int bad = 0;
    for (size_t i = 1; i < lines.size(); ++i) {
        for (int j = 0; j < NO; ++j) CHECK_CUDA(cudaMemset(out[j], 0, out_bytes));
        lines[i].launch();
        CHECK_CUDA(cudaDeviceSynchronize());
        bool ok = true;
        for (int j = 0; j < NO; ++j) {
            CHECK_CUDA(cudaMemcpy(h1.data(), out[j], out_bytes, cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaMemcpy(h2.data(), ref[j], out_bytes, cudaMemcpyDeviceToHost));
            ok = ok && std::memcmp(h1.data(), h2.data(), out_bytes) == 0;
        }
        if (!ok) std::printf("%s %s %s: MISMATCH\n", op, dtype, lines[i].name.c_str());
        bad += !ok;
    }
    for (int r = 0; r < kRounds; ++r)
        for (auto& l : lines) l.us.push_back(behind_spin::median_us(l.launch, kCalls));
    std::vector<float> lib_us = lines[0].us;
    for (auto& l : lines) {
        std::printf("%-18s %-5s %-12s", op, dtype, l.name.c_str());
        double sum = 0, lib_sum = 0;
        for (int r = 0; r < kRounds; ++r) {
            std::printf(" %9.3f", l.us[r]);
            sum += l.us[r];
            lib_sum += lib_us[r];
        }
        std::printf("  us  %.4f of the library's time\n", sum / lib_sum);
    }
    std::printf("%s %s: %d of %zu layouts differ from the library's bytes\n", op, dtype, bad, lines.size() - 1);
}

}  // namespace ewl

using namespace ewl;

int main() {
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("# %s; %d calls a round behind a %lld-cycle spin, the median of each round (us), %d rounds\n",
                prop.name, kCalls, kSpinCycles, kRounds);
    struct Shape {
        int64_t rows, cols;
        bool f32;
    };
    for (const Shape s : {Shape{32768, 4096, true}, Shape{8192, 8192, false}}) {
        const int64_t n = s.rows * s.cols, es = s.f32 ? 4 : 2;
        const size_t bytes = size_t(n * es);
        char *in[3], *out[2], *ref[2];
        for (auto& p : in) CHECK_CUDA(cudaMalloc(&p, bytes));
        for (auto& p : out) CHECK_CUDA(cudaMalloc(&p, bytes));
        for (auto& p : ref) CHECK_CUDA(cudaMalloc(&p, bytes));
        for (int j = 0; j < 3; ++j)
            fill<<<1024, 256>>>(reinterpret_cast<uint32_t*>(in[j]), int64_t(bytes / 4), 17u * j + 1, s.f32);
        CHECK_CUDA(cudaDeviceSynchronize());
        // Backward: dy, a, b -> da, db; forward: a, b -> y (out[0]).
        opk::ElementwiseArgs bwd{}, fwd{};
        bwd.rows = fwd.rows = 1;
        bwd.n = fwd.n = n;
        for (int j = 0; j < 5; ++j) {
            bwd.t[j].data = j < 3 ? in[j] : out[j - 3];
            bwd.t[j].vec = fwd.t[j].vec = 1;
        }
        fwd.t[0].data = in[1];
        fwd.t[1].data = in[2];
        fwd.t[2].data = out[0];
        char shape[32];
        std::snprintf(shape, sizeof shape, "%lldx%lld", (long long)s.rows, (long long)s.cols);
        std::printf("## %s\n", shape);
        const int es4 = int(es);
        using opk::GatedBackward;
        using opk::GatedForward;
        using opk::GeluTanh;
        using opk::Silu;
        if (s.f32) {
            run_op<float, GatedBackward<Silu>>("swiglu_backward", "f32", bwd, opk_swiglu_bwd_dense_f32,
                                               opk::ew_dense_bytes(opk::kSwigluBwdDense, es4), ref, bytes);
            run_op<float, GatedBackward<GeluTanh>>("geglu_tanh_backward", "f32", bwd, opk_geglu_tanh_bwd_dense_f32,
                                                   opk::ew_dense_bytes(opk::kGeluTanhBwdDense, es4), ref, bytes);
            run_op<float, GatedForward<Silu>>("swiglu_forward", "f32", fwd, opk_swiglu_fwd_dense_f32, 16, ref, bytes);
            run_op<float, GatedForward<GeluTanh>>("geglu_tanh_forward", "f32", fwd, opk_geglu_tanh_fwd_dense_f32, 16, ref,
                                                  bytes);
        } else {
            run_op<opk_bf16, GatedBackward<Silu>>("swiglu_backward", "bf16", bwd, opk_swiglu_bwd_dense_bf16,
                                                  opk::ew_dense_bytes(opk::kSwigluBwdDense, es4), ref, bytes);
            run_op<opk_bf16, GatedBackward<GeluTanh>>("geglu_tanh_backward", "bf16", bwd, opk_geglu_tanh_bwd_dense_bf16,
                                                      opk::ew_dense_bytes(opk::kGeluTanhBwdDense, es4), ref, bytes);
            run_op<opk_bf16, GatedForward<Silu>>("swiglu_forward", "bf16", fwd, opk_swiglu_fwd_dense_bf16, 16, ref,
                                                 bytes);
            run_op<opk_bf16, GatedForward<GeluTanh>>("geglu_tanh_forward", "bf16", fwd, opk_geglu_tanh_fwd_dense_bf16, 16,
                                                     ref, bytes);
        }
        for (auto& p : in) CHECK_CUDA(cudaFree(p));
        for (auto& p : out) CHECK_CUDA(cudaFree(p));
        for (auto& p : ref) CHECK_CUDA(cudaFree(p));
    }
    return 0;
}
