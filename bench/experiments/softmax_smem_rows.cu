// Softmax forward with the row staged in shared memory by cp.async (single or double
// buffered, 128/256/512 threads a block, as many blocks per SM as fit), against the
// register-cached row kernel opk_softmax_fwd_<dtype>_c1 with the host's launch shape.
// Not part of the build; kept so that
// bench/results/h100-2026-11-23-rows/softmax-smem-rows.txt can be reproduced:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -o softmax_smem_rows bench/experiments/softmax_smem_rows.cu
//   ./softmax_smem_rows        # on the GPU machine
//
// maxdiff compares the first four output rows with the c1 kernel's. Rows must be whole
// 16-byte packs (the shapes here are).
#include "../../vendors/gpu/softmax.cu"
#include "median_time.cuh"

namespace opk { namespace {
OPK_DEV void cp_async16(void* smem, const void* gmem) {
    const unsigned s = unsigned(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
OPK_DEV void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> OPK_DEV void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

template <typename T>
OPK_DEV void issue_row(uint4* buf, const T* xr, int64_t packs) {
    constexpr int P = Pack<T>::n;
    for (int64_t c = threadIdx.x; c < packs; c += blockDim.x) cp_async16(buf + c, xr + c * P);
    cp_commit();
}

// DB: double-buffered (next row's copies issued before this row's reductions).
template <typename T, int B, int MINB, bool DB>
__global__ void __launch_bounds__(B, MINB) sm_smem(const SoftmaxArgs a) {
    constexpr int P = Pack<T>::n;
    extern __shared__ uint4 rowbuf[];
    __shared__ float smem[kReduceSlots];
    const int64_t packs = a.n / P;  // experiment: n % P == 0, aligned
    int64_t r = blockIdx.x;
    int cur = 0;
    if (r < a.rows) issue_row<T>(rowbuf, row_ptr<const T>(a.a, r), packs);
    for (; r < a.rows; r += gridDim.x) {
        uint4* buf = rowbuf + (DB ? cur * packs : 0);
        const int64_t next = r + gridDim.x;
        if (DB) {
            if (next < a.rows) issue_row<T>(rowbuf + (cur ^ 1) * packs, row_ptr<const T>(a.a, next), packs);
            else cp_commit();
            cp_wait<1>();
        } else {
            cp_wait<0>();
        }
        float m = -INFINITY, s = 0.0f;
        for (int64_t c = threadIdx.x; c < packs; c += B) {
            float v[P];
            unpack<T, P>(buf[c], v);
            online_add<T, P>(m, s, v);
        }
        group_online<0>(m, s, smem);
        const float rs = 1.0f / s;
        T* yr = row_ptr<T>(a.out, r);
        for (int64_t c = threadIdx.x; c < packs; c += B) {
            float v[P];
            unpack<T, P>(buf[c], v);
#pragma unroll
            for (int k = 0; k < P; ++k) v[k] = exp_minus<T>(v[k], exp_base(m)) * rs;
            store_pack<T, P>(yr, c, a.n, true, v);
        }
        if (!DB && next < a.rows) issue_row<T>(rowbuf, row_ptr<const T>(a.a, next), packs);
        cur ^= 1;
    }
}
}}
using namespace opk;

static int sms;
static float h2f(float v) { return v; }
static float h2f(opk_bf16 v) { return __bfloat162float(v); }

template <typename T, int B, int MINB, bool DB>
static void var(const char* tag, SoftmaxArgs a, double bytes, const char* dt, float* check, void* y) {
    constexpr int P = 16 / sizeof(T);
    const size_t sm = size_t(a.n / P) * 16 * (DB ? 2 : 1);
    auto k = sm_smem<T, B, MINB, DB>;
    if (cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm))) { printf("%s\n", cudaGetErrorString(e)); printf("%s: smem %zu too big\n", tag, sm); cudaGetLastError(); return; }
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, sm);
    if (per_sm == 0) { printf("%s: does not fit\n", tag); return; }
    const int64_t grid = std::min<int64_t>(a.rows, int64_t(sms) * per_sm);
    cudaMemset(y, 0, a.rows * a.n * sizeof(T));
    float ms = median_ms([&] { k<<<grid, B, sm>>>(a); });
    // compare with the reference output (first 4096 values as float bits)
    std::vector<T> got(a.n * 4);
    cudaMemcpy(got.data(), y, got.size() * sizeof(T), cudaMemcpyDeviceToHost);
    double maxd = 0; for (size_t i = 0; i < got.size(); ++i) maxd = std::max(maxd, (double)fabsf(h2f(got[i]) - check[i]));
    printf("%-5s %6lldx%-6lld %-28s %2d blk/SM %8.4f ms %7.0f GB/s  maxdiff %.2e\n", dt, (long long)a.rows, (long long)a.n, tag, per_sm, ms, bytes / ms / 1e6, maxd);
}

template <typename T>
static void shape(int64_t rows, int64_t n, void (*c1)(SoftmaxArgs), void* x, void* y, const char* dt) {
    constexpr int P = 16 / sizeof(T);
    SoftmaxArgs a{};
    a.a.data = x; a.a.nd = 1; a.a.stride[0] = n; a.a.size[0] = rows; a.a.vec = 1;
    a.out.data = y; a.out.nd = 1; a.out.stride[0] = n; a.out.size[0] = rows; a.out.vec = 1;
    a.rows = rows; a.n = n;
    const double bytes = 2.0 * rows * n * sizeof(T);
    const int64_t packs = n / P;
    const int64_t need = (packs + 3) / 4;
    if (need <= 1024) {
        const unsigned block = unsigned(std::max<int64_t>(64, (need + 31) / 32 * 32));
        const int64_t resident = std::max<int64_t>(1, 1024 / block);
        const int64_t grid = std::min<int64_t>(rows, int64_t(sms) * resident * 8);
        float ms = median_ms([&] { c1<<<grid, block>>>(a); });
        printf("%-5s %6lldx%-6lld %-28s %8.4f ms %7.0f GB/s\n", dt, (long long)rows, (long long)n, "registers c1 (current)", ms, bytes / ms / 1e6);
    }
    std::vector<T> ref(n * 4);
    cudaMemcpy(ref.data(), y, ref.size() * sizeof(T), cudaMemcpyDeviceToHost);
    std::vector<float> check(ref.size()); for (size_t i = 0; i < ref.size(); ++i) check[i] = h2f(ref[i]);
    var<T, 256, 1, false>("smem single B256", a, bytes, dt, check.data(), y);
    var<T, 256, 1, true>("smem double B256", a, bytes, dt, check.data(), y);
    var<T, 512, 1, false>("smem single B512", a, bytes, dt, check.data(), y);
    var<T, 512, 1, true>("smem double B512", a, bytes, dt, check.data(), y);
    var<T, 128, 1, false>("smem single B128", a, bytes, dt, check.data(), y);
    var<T, 128, 1, true>("smem double B128", a, bytes, dt, check.data(), y);
}

__global__ void fill_bf16(opk_bf16* p, int64_t n) { for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) p[i] = __float2bfloat16(sinf(float(i % 9973) * 0.37f) * 3.0f); }
__global__ void fill_f32(float* p, int64_t n) { for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) p[i] = sinf(float(i % 9973) * 0.37f) * 3.0f; }

int main() {
    setvbuf(stdout, NULL, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t N = int64_t(1) << 27;
    void *x, *y; cudaMalloc(&x, N * 4); cudaMalloc(&y, N * 4);
    fill_bf16<<<1024, 256>>>((opk_bf16*)x, N * 2);
    shape<opk_bf16>(32768, 4096, opk_softmax_fwd_bf16_c1, x, y, "bf16");
    shape<opk_bf16>(8192, 8192, opk_softmax_fwd_bf16_c1, x, y, "bf16");
    shape<opk_bf16>(4096, 16384, opk_softmax_fwd_bf16_c1, x, y, "bf16");
    shape<opk_bf16>(2048, 32768, opk_softmax_fwd_bf16_c1, x, y, "bf16");
    fill_f32<<<1024, 256>>>((float*)x, N);
    shape<float>(32768, 4096, opk_softmax_fwd_f32_c1, x, y, "f32");
    shape<float>(8192, 8192, opk_softmax_fwd_f32_c1, x, y, "f32");
    shape<float>(4096, 16384, opk_softmax_fwd_f32_c1, x, y, "f32");
    return 0;
}
