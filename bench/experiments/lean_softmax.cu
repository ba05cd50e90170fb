// Is register economy what the cached softmax forward lacks? A lean softmax forward whose
// row shape is compile-time (B threads, C packs each, rows of exactly B * C * P elements,
// 16-byte aligned, contiguous): pack addresses are the row base plus immediate offsets and
// no bounds are tested, so it needs far fewer registers than the library's kernel (which
// takes any strides, tails and block size) and can be launched for 2048 resident threads.
// Timed against opk_softmax_fwd_<dtype>_c1 with the host's plan. Not part of the build;
// reproduces bench/results/h100-2026-11-24-rows-fwd/lean-softmax.txt:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o lean_softmax bench/experiments/lean_softmax.cu
//   ./lean_softmax        # on the GPU machine
#include "../../vendors/gpu/softmax.cu"
#include "median_time.cuh"

#include <cmath>

using namespace opk;

// Bc = 0: the block size is blockDim.x, known at run time only (as in the library), with
// launch bounds for blocks of up to BMax threads.
template <typename T, int Bc, int C, int Resident, int BMax = Bc>
__global__ void __launch_bounds__(BMax, Resident / BMax) lean_softmax(const T* x, T* y, int64_t rows) {
    constexpr int P = Pack<T>::n;
    const int B = Bc ? Bc : int(blockDim.x), W = B / 32;
    const int64_t n = int64_t(B) * C * P;
    __shared__ float red[2][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const uint4* xr = reinterpret_cast<const uint4*>(x + r * n) + threadIdx.x;
        uint4* yr = reinterpret_cast<uint4*>(y + r * n) + threadIdx.x;
        uint4 raw[C];
#pragma unroll
        for (int i = 0; i < C; ++i) raw[i] = xr[i * B];
        float m = -INFINITY;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) m = fmaxf(m, v[k]);
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        if (lane == 0) red[0][warp] = m;
        __syncthreads();
        m = red[0][0];
#pragma unroll
        for (int w = 1; w < W; ++w) m = fmaxf(m, red[0][w]);  // unrolled when B is known
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) s += exp_minus<T>(v[k], exp_base(m));
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (lane == 0) red[1][warp] = s;
        __syncthreads();
        s = 0.0f;
#pragma unroll
        for (int w = 0; w < W; ++w) s += red[1][w];
        const float rs = 1.0f / s;
#pragma unroll
        for (int i = 0; i < C; ++i) {
            float v[P];
            unpack<T, P>(raw[i], v);
#pragma unroll
            for (int k = 0; k < P; ++k) v[k] = exp_minus<T>(v[k], exp_base(m)) * rs;
            yr[i * B] = pack_of<T, P>(v);
        }
        __syncthreads();  // red[0] is rewritten by the next row's max
    }
}

static int sms;
static float to_float(float v) { return v; }
static float to_float(opk_bf16 v) { return __bfloat162float(v); }

template <typename T>
static std::vector<float> first_rows(const void* y, int64_t n) {
    std::vector<T> h(size_t(4 * n));
    cudaMemcpy(h.data(), y, h.size() * sizeof(T), cudaMemcpyDeviceToHost);
    std::vector<float> f(h.size());
    for (size_t i = 0; i < h.size(); ++i) f[i] = to_float(h[i]);
    return f;
}

template <typename T, int B, int C, int Resident, bool RuntimeB = false>
static void lean(const char* dt, const void* x, void* y, int64_t rows, const std::vector<float>& ref) {
    auto k = lean_softmax<T, RuntimeB ? 0 : B, C, Resident, B>;
    constexpr int64_t n = int64_t(B) * C * (16 / sizeof(T));
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, 0);
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    cudaMemset(y, 0, size_t(rows * n) * sizeof(T));
    for (int waves : {1, 8}) {
        const int64_t grid = std::min<int64_t>(rows, int64_t(sms) * per_sm * waves);
        const float ms = median_ms([&] { k<<<grid, B>>>(static_cast<const T*>(x), static_cast<T*>(y), rows); });
        const std::vector<float> got = first_rows<T>(y, n);
        double maxd = 0.0;
        for (size_t i = 0; i < got.size(); ++i) maxd = std::max(maxd, double(std::fabs(got[i] - ref[i])));
        std::printf("%-5s %6lldx%-6lld lean B%-4d%s C%d R%d %2dreg%s %d wave%s %2d blk/SM %8.4f ms %7.0f GB/s  maxdiff %.2e\n",
                    dt, (long long)rows, (long long)n, B, RuntimeB ? "rt" : "  ", C, Resident, attr.numRegs,
                    attr.localSizeBytes ? " SPILL" : "", waves, waves > 1 ? "s" : " ", per_sm, ms,
                    2.0 * double(rows * n) * sizeof(T) / ms / 1e6, maxd);
    }
}

template <typename T>
static std::vector<float> today(const char* dt, void (*kernel)(SoftmaxArgs), void* x, void* y, int64_t rows,
                                int64_t n) {
    constexpr int P = 16 / sizeof(T);
    SoftmaxArgs a{};
    for (RowsView* v : {&a.a, &a.out}) {
        v->nd = 1;
        v->size[0] = rows;
        v->stride[0] = n;
        v->vec = 1;
    }
    a.a.data = x;
    a.out.data = y;
    a.rows = rows;
    a.n = n;
    const int64_t need = (n / P + 3) / 4;
    const unsigned block = unsigned(std::max<int64_t>(64, (need + 31) / 32 * 32));
    const int64_t grid = std::min<int64_t>(rows, int64_t(sms) * std::max<int64_t>(1, 1024 / block) * 8);
    const float ms = median_ms([&] { kernel<<<grid, block>>>(a); });
    std::printf("%-5s %6lldx%-6lld today (c1, host plan)                       %8.4f ms %7.0f GB/s\n", dt,
                (long long)rows, (long long)n, ms, 2.0 * double(rows * n) * sizeof(T) / ms / 1e6);
    return first_rows<T>(y, n);
}

__global__ void fill_bf16(opk_bf16* p, int64_t n) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        p[i] = __float2bfloat16(sinf(float(i % 9973) * 0.37f) * 3.0f);
}
__global__ void fill_f32(float* p, int64_t n) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        p[i] = sinf(float(i % 9973) * 0.37f) * 3.0f;
}

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t elems = int64_t(32768) * 4096;
    void *x, *y;
    cudaMalloc(&x, elems * 4);
    cudaMalloc(&y, elems * 4);
    fill_bf16<<<1024, 256>>>(static_cast<opk_bf16*>(x), elems);
    auto ref = today<opk_bf16>("bf16", opk_softmax_fwd_bf16_c1, x, y, 32768, 4096);
    lean<opk_bf16, 128, 4, 1024>("bf16", x, y, 32768, ref);
    lean<opk_bf16, 128, 4, 1536>("bf16", x, y, 32768, ref);
    lean<opk_bf16, 128, 4, 2048>("bf16", x, y, 32768, ref);
    lean<opk_bf16, 256, 2, 2048>("bf16", x, y, 32768, ref);
    lean<opk_bf16, 128, 4, 1024, true>("bf16", x, y, 32768, ref);
    lean<opk_bf16, 256, 2, 2048, true>("bf16", x, y, 32768, ref);
    ref = today<opk_bf16>("bf16", opk_softmax_fwd_bf16_c1, x, y, 8192, 16384);
    lean<opk_bf16, 512, 4, 1024>("bf16", x, y, 8192, ref);
    lean<opk_bf16, 512, 4, 1536>("bf16", x, y, 8192, ref);
    lean<opk_bf16, 512, 4, 2048>("bf16", x, y, 8192, ref);
    lean<opk_bf16, 1024, 2, 2048>("bf16", x, y, 8192, ref);
    lean<opk_bf16, 512, 4, 1024, true>("bf16", x, y, 8192, ref);
    fill_f32<<<1024, 256>>>(static_cast<float*>(x), elems);
    ref = today<float>("f32", opk_softmax_fwd_f32_c1, x, y, 32768, 4096);
    lean<float, 256, 4, 1024>("f32", x, y, 32768, ref);
    lean<float, 256, 4, 1536>("f32", x, y, 32768, ref);
    lean<float, 256, 4, 2048>("f32", x, y, 32768, ref);
    lean<float, 512, 2, 2048>("f32", x, y, 32768, ref);
    lean<float, 256, 4, 1024, true>("f32", x, y, 32768, ref);
    return 0;
}
