// The spin kernel that the timing experiments (launch_param_bytes.cu, launch_path_probe.cu,
// embedding_forward_ahead.cu, elementwise_layouts.cu; not part of the build) queue each
// timed call behind, as bench/gpu_compare.py's timed() does with torch.cuda._sleep: the
// host has issued the call's launches before the GPU reaches the event in front of them, so
// the events time the GPU alone.
#pragma once

#include "cuda_check.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

namespace behind_spin {

// About 1 ms on an H100/H200, gpu_compare.py's spin.
constexpr long long kSpinCycles = 2'000'000;

__global__ void spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

// The median of `calls` timings (us) of launch() queued behind the spin on the default
// stream: spin, event a, launch(), event b, then wait for b (the events time the GPU alone).
template <class Launch>
float median_us(Launch&& launch, int calls) {
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    std::vector<float> t;
    for (int i = 0; i < calls; ++i) {
        spin<<<1, 1>>>(kSpinCycles);
        CHECK_CUDA(cudaEventRecord(a, 0));
        launch();
        CHECK_CUDA(cudaEventRecord(b, 0));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1000.0f);
    }
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaEventDestroy(a));
    CHECK_CUDA(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

}  // namespace behind_spin
