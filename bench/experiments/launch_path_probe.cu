// Does the way opkit loads and launches a kernel cost time around it? Not part of the build.
//
// Why: kernel_breakdown.py --behind-spin (the forty-ninth session's call 5,
// bench/results/2026-12-02-s49/r5/kb-leads.txt; calls under the profiler) put opkit's
// events beyond its kernel's span the longest at four of five bf16 ops (the rms_norm and
// softmax forwards, the softmax backward, the swiglu forward at 8192x8192; not the
// embedding forward at V 128256 x D 4096, 8192 ids), 3.14-3.58 us against 2.86-3.33 for
// torch.compile, Liger-Kernel, eager and torch's copy, and its lead from the spin's end to
// its kernel 3.25-3.49 us against their 3.17-3.50 (the longest at three of the five): a few
// tenths of a microsecond, the size of several remaining sub-1 % misses.
// The forty-fourth session's launch_param_bytes.cu found a kernel's parameter size worth
// at most a tick or two (0.03-0.06 us) with kernels launched the runtime's way. What opkit
// does differently from libtorch and Triton, besides its parameters: its kernels come from
// a fatbin of many kernels loaded with cuModuleLoadData, and it launches them with
// cuLaunchKernel between cuCtxPushCurrent and cuCtxPopCurrent of the primary context.
//
// What: each line times one launch path of the same kernel's SASS, queued behind a spin
// kernel as gpu_compare.py's timed calls are (spin, event a, kernel, event b; the median of
// b - a over the calls), the paths alternating in each of five rounds:
//   fatbin         opk_rms_fwd_twice_block_row_bf16_g512x2 from the vendor's norms.fatbin
//                  (argv[1]) through cuModuleLoadData, launched as opkit launches it
//                  (cuCtxPushCurrent, cuLaunchKernel, cuCtxPopCurrent)
//   fatbin bare    the same without the push and pop (the primary context is current)
//   local <<<>>>   the same kernel compiled into this program (norms.cu included: the
//                  same nvcc, -O3 -arch=sm_90, so the same SASS), launched with <<<>>>
//   local driver   that kernel through cuLaunchKernel (cudaGetFuncBySymbol)
// and, as a yardstick, a plain copy of the same bytes (cudaMemcpyAsync device to device).
// bf16 8192x8192, y checked equal between the paths (bitwise) after the timing.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -o launch_path_probe \
//        bench/experiments/launch_path_probe.cu -lcuda
//   ./launch_path_probe build-gpu/vendors/cuda/fatbin/norms.fatbin   # on the GPU machine
#include "../../vendors/gpu/norms.cu"
#include "behind_spin.cuh"
#include "cuda_check.cuh"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace lpp {

#define CU_CHECK(x)                                                                   \
    do {                                                                              \
        const CUresult r_ = (x);                                                      \
        if (r_ != CUDA_SUCCESS) {                                                     \
            const char* s_ = nullptr;                                                 \
            cuGetErrorString(r_, &s_);                                                \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_);      \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

using behind_spin::kSpinCycles;

// Fills n halfwords with a pattern of small finite bf16 values.
__global__ void fill(uint16_t* p, int64_t n, uint32_t seed) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
        uint32_t h = uint32_t(i) * 2654435761u ^ seed;
        h ^= h >> 13;
        p[i] = uint16_t(0x3c00u + (h & 0x3ffu));  // bf16 in [0.0078, 0.0156) x 2^k: finite, positive
    }
}

constexpr int64_t kRows = 8192, kCols = 8192;
constexpr int kCalls = 200, kRounds = 5;

template <class Launch>
float median_us_behind_spin(Launch&& launch) { return behind_spin::median_us(launch, kCalls); }

struct Path {
    const char* name;
    std::vector<float> round_medians;
};

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s path/to/norms.fatbin\n", argv[0]);
        return 2;
    }
    CHECK_CUDA(cudaSetDevice(0));
    CHECK_CUDA(cudaFree(nullptr));  // the primary context, current on this thread
    CUcontext ctx = nullptr;
    CU_CHECK(cuCtxGetCurrent(&ctx));

    std::ifstream f(argv[1], std::ios::binary);
    const std::vector<char> image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (image.empty()) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    CUmodule mod = nullptr;
    CU_CHECK(cuModuleLoadData(&mod, image.data()));
    CUfunction fat = nullptr;
    CU_CHECK(cuModuleGetFunction(&fat, mod, "opk_rms_fwd_twice_block_row_bf16_g512x2"));
    CUfunction local = nullptr;
    CHECK_CUDA(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&local),
                                   reinterpret_cast<const void*>(opk_rms_fwd_twice_block_row_bf16_g512x2)));

    const int64_t elems = kRows * kCols;
    uint16_t *x, *w, *y0, *y1, *y2, *y3, *copy_dst;
    float* rstd;
    CHECK_CUDA(cudaMalloc(&x, elems * 2));
    CHECK_CUDA(cudaMalloc(&w, kCols * 2));
    for (uint16_t** p : {&y0, &y1, &y2, &y3, &copy_dst}) CHECK_CUDA(cudaMalloc(p, elems * 2));
    CHECK_CUDA(cudaMalloc(&rstd, kRows * 4));
    fill<<<1024, 256>>>(x, elems, 1u);
    fill<<<32, 256>>>(w, kCols, 7u);
    CHECK_CUDA(cudaDeviceSynchronize());

    // The arguments as the library's host builds them for a contiguous [8192, 8192] bf16
    // tensor (one outer dimension; ops_norms.cpp, tensor_args.cpp).
    auto args_for = [&](uint16_t* y) {
        NormArgs a;
        std::memset(&a, 0, sizeof a);
        a.rows = kRows;
        a.n = kCols;
        a.weight = w;
        a.eps = 1e-6f;
        a.weight_vec = 1;
        a.exact = 1;
        a.rstd.data = rstd;
        a.rstd.stride = 1;
        a.x.data = x;
        a.x.nd = 1;
        a.x.vec = 1;
        a.x.stride[0] = kCols;
        a.x.size[0] = kRows;
        a.y = a.x;
        a.y.data = y;
        return a;
    };
    NormArgs a0 = args_for(y0), a1 = args_for(y1), a2 = args_for(y2), a3 = args_for(y3);
    void* p0[] = {&a0};
    void* p1[] = {&a1};
    void* p3[] = {&a3};
    const unsigned grid = unsigned(kRows), block = 512;

    Path paths[] = {{"fatbin push/launch/pop", {}}, {"fatbin bare", {}}, {"local <<<>>>", {}},
                    {"local driver", {}},           {"copy (memcpy)", {}}};
    for (int round = 0; round < kRounds; ++round) {
        paths[0].round_medians.push_back(median_us_behind_spin([&] {
            CU_CHECK(cuCtxPushCurrent(ctx));
            CU_CHECK(cuLaunchKernel(fat, grid, 1, 1, block, 1, 1, 0, nullptr, p0, nullptr));
            CUcontext popped;
            CU_CHECK(cuCtxPopCurrent(&popped));
        }));
        paths[1].round_medians.push_back(median_us_behind_spin(
            [&] { CU_CHECK(cuLaunchKernel(fat, grid, 1, 1, block, 1, 1, 0, nullptr, p1, nullptr)); }));
        paths[2].round_medians.push_back(
            median_us_behind_spin([&] { opk_rms_fwd_twice_block_row_bf16_g512x2<<<grid, block>>>(a2); }));
        paths[3].round_medians.push_back(median_us_behind_spin(
            [&] { CU_CHECK(cuLaunchKernel(local, grid, 1, 1, block, 1, 1, 0, nullptr, p3, nullptr)); }));
        paths[4].round_medians.push_back(median_us_behind_spin(
            [&] { CHECK_CUDA(cudaMemcpyAsync(copy_dst, x, size_t(elems) * 2, cudaMemcpyDeviceToDevice, 0)); }));
        CHECK_CUDA(cudaGetLastError());
    }
    CHECK_CUDA(cudaDeviceSynchronize());

    // Every path wrote the same y (the same code on the same x): bitwise.
    std::vector<uint16_t> h0(elems), h(elems);
    CHECK_CUDA(cudaMemcpy(h0.data(), y0, elems * 2, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (uint16_t* y : {y1, y2, y3}) {
        CHECK_CUDA(cudaMemcpy(h.data(), y, elems * 2, cudaMemcpyDeviceToHost));
        if (std::memcmp(h0.data(), h.data(), size_t(elems) * 2) != 0) ++bad;
    }
    int zero = 0;
    for (int64_t i = 0; i < elems; i += 4099) zero += h0[i] == 0;

    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("# %s; %d calls a round behind a %lld-cycle spin, median of b - a (us); rounds in order\n",
                prop.name, kCalls, kSpinCycles);
    for (const Path& p : paths) {
        std::vector<float> s = p.round_medians;
        std::sort(s.begin(), s.end());
        std::printf("%-24s median %.3f  rounds", p.name, s[s.size() / 2]);
        for (float v : p.round_medians) std::printf(" %.3f", v);
        std::printf("\n");
    }
    std::printf("y equal across the four kernel paths: %s (%d differ); sampled zeros in y: %d\n",
                bad ? "NO" : "yes", bad, zero);
    return bad ? 1 : 0;
}

}  // namespace lpp

int main(int argc, char** argv) { return lpp::main(argc, argv); }
