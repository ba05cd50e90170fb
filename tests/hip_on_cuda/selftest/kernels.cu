// HIP-over-CUDA self-test kernels, compiled by nvcc (CMakeLists.txt) and loaded through
// the shim's hipModuleLoadData exactly as the rocm vendor's test build loads its images.
// extern "C": the host looks them up by these names.

// Arguments through kernelParams.
extern "C" __global__ void opkit_shim_axpy(float a, const float* x, float* y, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// Arguments through `extra` (HIP_LAUNCH_PARAM_BUFFER_POINTER): one struct by value, as
// the vendor passes its kernel_params.h structs.
struct ScaleArgs {
    const float* x;
    float* y;
    float scale;
    unsigned n;
};
extern "C" __global__ void opkit_shim_scale(ScaleArgs p) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.y[i] = p.scale * p.x[i];
}

// The device's own warp width, to compare with hipDeviceAttributeWarpSize.
extern "C" __global__ void opkit_shim_warp_size(int* out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *out = warpSize;
}

// Per-block sums in dynamic shared memory (sharedMemBytes = blockDim.x * 4).
extern "C" __global__ void opkit_shim_block_sum(const float* x, float* out, unsigned n) {
    extern __shared__ float s[];
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// Waits wait_ns (GPU global timer), then copies: work queued after it on the same stream
// sees dst filled; work on another stream most likely does not. The BLAS tests use it to
// prove a GEMM ran on the stream it was given.
extern "C" __global__ void opkit_shim_delayed_copy(const float* src, float* dst, unsigned n,
                                                   unsigned long long wait_ns) {
    unsigned long long start = 0, now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < wait_ns);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] = src[i];
}
