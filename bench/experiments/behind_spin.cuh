// The spin kernel that the launch experiments (launch_param_bytes.cu, launch_path_probe.cu;
// not part of the build) queue each timed call behind, as bench/gpu_compare.py's timed()
// does with torch.cuda._sleep: the host has issued the call's launches before the GPU
// reaches the event in front of them, so the events time the GPU alone.
#pragma once

#include <cuda_runtime.h>

namespace behind_spin {

// About 1 ms on an H100/H200, gpu_compare.py's spin.
constexpr long long kSpinCycles = 2'000'000;

__global__ void spin(long long cycles) {
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

}  // namespace behind_spin
