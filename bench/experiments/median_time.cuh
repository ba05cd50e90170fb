// Timing helper shared by the standalone kernel experiments in this folder (not part of
// the build): the median of 21 CUDA-event timings of f() on the default stream, after 3
// warm-up calls. A CUDA error ends the program with its message.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

template <class F>
static float median_ms(F f) {
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    for (int i = 0; i < 3; ++i) f();
    std::vector<float> times;
    for (int i = 0; i < 21; ++i) {
        cudaEventRecord(start);
        f();
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, start, stop);
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
        std::exit(1);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}
