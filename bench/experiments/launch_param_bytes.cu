// Does a kernel's parameter size cost GPU time around the kernel? Not part of the build.
//
// Why: bench/kernel_breakdown.py --behind-spin (events and CUPTI kernels of the same calls)
// has shown opkit's calls 0.3-0.8 us longer outside their kernels than Inductor's and
// Liger-Kernel's (the forty-first and forty-third sessions: the fp32 rms_norm forward, the
// bf16 softmax backward, the gated backwards, the embedding forward; opkit's lead from the
// spin's end to its kernel's start 3.3-3.5 us against their 3.1-3.3). opkit's row kernels
// take their arguments by value as one struct of 450-750 bytes (RowsView carries kMaxDims
// sizes and strides a view; CONSTANT[0] of opk_rms_fwd_twice_* is 1216 bytes); Triton's
// take a few pointers and integers (under 100 bytes). The launch carries the parameters
// in the push buffer, so a larger struct may take the GPU's front end longer to start the
// kernel.
//
// What: each case queued behind a spin kernel, as gpu_compare.py's timed calls are:
//   spin, event a, kernel with a parameter struct of N bytes, event b
// and the median of (b - a) over the calls, for N from 16 to 4096 bytes, two kernels:
//   touch: one block writes one word (the launch alone: lead + the smallest kernel + tail);
//   copy:  a 64 MiB bf16-sized copy (32 M halfwords, 16-byte packs, one pack a thread),
//          the size of the bf16 embedding forward's output (about 33 us on the H200).
// Sizes alternate in each round (five rounds), so that drift does not read as a trend.
// The parameter bytes are read by the kernel (one byte a thread of block 0) so that the
// compiler keeps the struct whole.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -o lpb bench/experiments/launch_param_bytes.cu
//   ./lpb         # on the GPU machine; a line per kernel and size, us
#include "behind_spin.cuh"
#include "cuda_check.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace lpb {

using behind_spin::kSpinCycles;
using behind_spin::spin;

// N bytes of parameters in all: the output pointers and a pad filling the rest.
template <int N>
struct Params {
    uint4* out;
    const uint4* in;
    long long packs;
    unsigned char pad[N - 24];
};

template <int N>
__global__ void touch(const Params<N> p) {
    if (threadIdx.x == 0) reinterpret_cast<unsigned char*>(p.out)[0] = p.pad[(N - 24) / 2];
}

template <int N>
__global__ void copy(const Params<N> p) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < p.packs) p.out[i] = p.in[i];
    if (i == 0) reinterpret_cast<unsigned char*>(p.out)[0] ^= p.pad[(N - 24) / 2] & 0;
}

constexpr long long kPacks = (64ll << 20) / 16;
constexpr int kBlock = 256;
constexpr int kCalls = 200;

// The median of (b - a) over kCalls calls of the kernel behind a spin, us.
template <int N, bool Copy>
float timed(uint4* out, const uint4* in) {
    Params<N> p{};
    p.out = out;
    p.in = in;
    p.packs = kPacks;
    for (int i = 0; i < N - 24; ++i) p.pad[i] = static_cast<unsigned char>(i);
    const unsigned grid = Copy ? unsigned((kPacks + kBlock - 1) / kBlock) : 1u;
    std::vector<cudaEvent_t> ev(2 * kCalls);
    for (cudaEvent_t& e : ev) CHECK_CUDA(cudaEventCreate(&e));
    for (int c = 0; c < kCalls; ++c) {
        spin<<<1, 1>>>(kSpinCycles);
        CHECK_CUDA(cudaEventRecord(ev[2 * c]));
        if constexpr (Copy) copy<N><<<grid, kBlock>>>(p);
        else touch<N><<<grid, kBlock>>>(p);
        CHECK_CUDA(cudaEventRecord(ev[2 * c + 1]));
    }
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> us(kCalls);
    for (int c = 0; c < kCalls; ++c) {
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, ev[2 * c], ev[2 * c + 1]));
        us[c] = ms * 1e3f;
    }
    for (cudaEvent_t& e : ev) CHECK_CUDA(cudaEventDestroy(e));
    std::nth_element(us.begin(), us.begin() + kCalls / 2, us.end());
    return us[kCalls / 2];
}

template <bool Copy>
void run_sizes(int round, uint4* out, const uint4* in, std::vector<std::vector<float>>& t) {
    // The sizes in a rotated order each round.
    float (*fns[])(uint4*, const uint4*) = {timed<32, Copy>,  timed<128, Copy>,  timed<256, Copy>, timed<512, Copy>,
                                            timed<768, Copy>, timed<1024, Copy>, timed<2048, Copy>, timed<4096, Copy>};
    const int n = int(sizeof(fns) / sizeof(fns[0]));
    for (int k = 0; k < n; ++k) {
        const int i = (k + round) % n;
        t[i].push_back(fns[i](out, in));
    }
}

}  // namespace lpb

int main() {
    using namespace lpb;
    uint4 *out = nullptr, *in = nullptr;
    CHECK_CUDA(cudaMalloc(&out, kPacks * 16));
    CHECK_CUDA(cudaMalloc(&in, kPacks * 16));
    CHECK_CUDA(cudaMemset(in, 1, kPacks * 16));
    const int sizes[] = {32, 128, 256, 512, 768, 1024, 2048, 4096};
    const int n = int(sizeof(sizes) / sizeof(sizes[0]));
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s; %d calls a case behind a %lld-cycle spin, median of (event after - event before), us; "
                "five rounds, sizes rotated\n", prop.name, kCalls, kSpinCycles);
    for (int copy = 0; copy < 2; ++copy) {
        std::vector<std::vector<float>> t(n);
        for (int round = 0; round < 5; ++round) {
            if (copy) run_sizes<true>(round, out, in, t);
            else run_sizes<false>(round, out, in, t);
        }
        for (int i = 0; i < n; ++i) {
            std::vector<float> r = t[i];
            std::sort(r.begin(), r.end());
            std::printf("%-5s params %4d B: median %.3f us, rounds %.3f-%.3f\n", copy ? "copy" : "touch", sizes[i],
                        r[r.size() / 2], r.front(), r.back());
        }
    }
    // The copy must have copied (the words are 0x01010101 except the first byte's no-op xor).
    uint4 probe{};
    CHECK_CUDA(cudaMemcpy(&probe, out + kPacks - 1, 16, cudaMemcpyDeviceToHost));
    if (probe.x != 0x01010101u || probe.w != 0x01010101u) {
        std::fprintf(stderr, "copy check failed: %08x %08x\n", probe.x, probe.w);
        return 1;
    }
    CHECK_CUDA(cudaFree(out));
    CHECK_CUDA(cudaFree(in));
    return 0;
}
