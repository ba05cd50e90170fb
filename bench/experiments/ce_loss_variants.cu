// The cross-entropy forward for the loss alone (no dlogits) under other launch shapes.
// On the H200 the bf16 loss at 8192x32000 reads its rows once at 0.56 of the copy
// bandwidth (the H100 had 0.74 with the same kernel): rows of 64 KB, one 512-thread block
// a row and two blocks an SM (single_pass_plan), the kernel built for 1024 resident
// threads (64 registers) and the gradient code in it. Variants: the same streamed body
// with the gradient compiled out (ce_forward's Grad = false) at 1024-2048 resident threads
// and blocks of 128-512 threads, with the block size a run-time value (G = 0, as the
// library) or a compile-time group (G = B: the reductions' shuffle stage). Each line's loss
// and lse are checked against the library's kernel (opk_ce_fwd_<dtype>_c2 with the host's
// plan). Not part of the build:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o ce_loss_variants \
//        bench/experiments/ce_loss_variants.cu 2> ptxas.txt
//   ./ce_loss_variants        # on the GPU machine
//   ./ce_loss_variants --grads    # the forward with dlogits and the backward instead
#include "../../vendors/gpu/cross_entropy.cu"
#include "fill_pattern.cuh"
#include "host_copy.cuh"
#include "median_time.cuh"

#include <cmath>
#include <cstring>
#include <vector>

using namespace opk;

template <typename T, int G, int B, int Res>
__global__ void __launch_bounds__(B, Res / B) ce_loss_variant(const CrossEntropyArgs a) {
    ce_forward<T, G, 0, false>(a);
}

// The forward with dlogits and the backward (lse given) at a fixed group of B threads.
template <typename T, int G, int B, int Res>
__global__ void __launch_bounds__(B, Res / B) ce_grad_variant(const CrossEntropyArgs a) {
    ce_forward<T, G, 0, true>(a);
}
template <typename T, int G, int B, int Res>
__global__ void __launch_bounds__(B, Res / B) ce_bwd_variant(const CrossEntropyArgs a) {
    ce_backward<T, G, 0>(a);
}

static int sms;

struct Buffers {
    void* logits;
    int64_t* target;
    float *loss, *lse;
};

static CrossEntropyArgs args_for(const Buffers& b, int64_t rows, int64_t V) {
    CrossEntropyArgs a{};
    a.logits.data = b.logits;
    a.logits.nd = 1;
    a.logits.size[0] = rows;
    a.logits.stride[0] = V;
    a.logits.vec = 1;
    a.target = {b.target, 1};
    a.lse = {b.lse, 1};
    a.loss = {b.loss, 1};
    a.rows = rows;
    a.V = V;
    a.ignore_index = -100;
    a.target64 = 1;
    return a;
}

static double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double d = 0.0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, double(std::fabs(a[i] - b[i])));
    return d;
}

template <class K>
static void time_line(const char* dt, const char* label, K k, unsigned block, int64_t grid, const Buffers& b,
                      int64_t rows, int64_t V, size_t es, const std::vector<float>* ref_loss,
                      const std::vector<float>* ref_lse) {
    const CrossEntropyArgs a = args_for(b, rows, V);
    cudaMemset(b.loss, 0, size_t(rows) * 4);
    cudaMemset(b.lse, 0, size_t(rows) * 4);
    const float ms = median_ms([&] { k<<<grid, block>>>(a); });
    double dl = 0.0, ds = 0.0;
    if (ref_loss) {
        dl = max_diff(host_floats<float>(b.loss, rows), *ref_loss);
        ds = max_diff(host_floats<float>(b.lse, rows), *ref_lse);
    }
    std::printf("%-5s %5lldx%-7lld %-34s grid %6lld %8.4f ms %7.0f GB/s  maxdiff loss %.2e lse %.2e\n", dt,
                (long long)rows, (long long)V, label, (long long)grid, ms, double(rows * V) * es / ms / 1e6, dl, ds);
}

template <typename T, int G, int B, int Res>
static void variant(const char* dt, const Buffers& b, int64_t rows, int64_t V, const std::vector<float>& ref_loss,
                    const std::vector<float>& ref_lse) {
    auto k = ce_loss_variant<T, G, B, Res>;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, B, 0);
    cudaFuncAttributes attr{};
    cudaFuncGetAttributes(&attr, k);
    char label[96];
    for (int waves : {8, 0}) {  // 0: one block per row
        const int64_t grid = waves ? std::min<int64_t>(rows, int64_t(sms) * per_sm * waves) : rows;
        std::snprintf(label, sizeof label, "G%-4d B%-4d R%-4d %2dreg%s %d/SM %s", G, B, Res, attr.numRegs,
                      attr.localSizeBytes ? " SPILL" : "", per_sm, waves ? "8w" : "all");
        time_line(dt, label, k, B, grid, b, rows, V, sizeof(T), &ref_loss, &ref_lse);
    }
}

template <typename T>
static void shape(const char* dt, void (*today)(CrossEntropyArgs), const Buffers& b, int64_t rows, int64_t V) {
    fill<T>(b.logits, rows * V, 4.0f, 0.0f);
    // The host's single_pass_plan: 512-thread blocks, two an SM, eight waves.
    const int64_t grid = std::min<int64_t>(rows, int64_t(sms) * 2 * 8);
    time_line(dt, "today (c2, single_pass_plan)", today, 512, grid, b, rows, V, sizeof(T), nullptr, nullptr);
    const std::vector<float> ref_loss = host_floats<float>(b.loss, rows), ref_lse = host_floats<float>(b.lse, rows);
    variant<T, 0, 512, 1024>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 0, 512, 1536>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 0, 512, 2048>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 0, 256, 1024>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 0, 256, 1536>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 0, 256, 2048>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 0, 128, 2048>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 512, 512, 1024>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 512, 512, 2048>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 256, 256, 1024>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 256, 256, 1536>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 256, 256, 2048>(dt, b, rows, V, ref_loss, ref_lse);
    variant<T, 128, 128, 2048>(dt, b, rows, V, ref_loss, ref_lse);
}

// One timing of a gradient kernel (forward with dlogits, or backward with lse given):
// bytes = logits read + dlogits written.
template <typename T, class K>
static void grad_line(const char* dt, const char* what, const char* label, K k, unsigned block, int64_t grid,
                      CrossEntropyArgs a, void* grad, const std::vector<float>* ref) {
    a.grad.data = grad;
    a.grad.nd = 1;
    a.grad.size[0] = a.rows;
    a.grad.stride[0] = a.V;
    a.grad.vec = 1;
    cudaMemset(grad, 0, size_t(a.rows * a.V) * sizeof(T));
    const float ms = median_ms([&] { k<<<grid, block>>>(a); });
    double d = 0.0;
    if (ref) {
        const std::vector<float> got = host_floats<T>(grad, 4 * a.V);
        for (size_t i = 0; i < got.size(); ++i) d = std::max(d, double(std::fabs(got[i] - (*ref)[i])));
    }
    std::printf("%-5s %5lldx%-7lld %-6s %-34s grid %6lld %8.4f ms %7.0f GB/s  maxdiff grad %.2e\n", dt,
                (long long)a.rows, (long long)a.V, what, label, (long long)grid, ms,
                2.0 * double(a.rows * a.V) * sizeof(T) / ms / 1e6, d);
}

template <typename T>
static void grads(const char* dt, void (*fwd)(CrossEntropyArgs), void (*bwd)(CrossEntropyArgs), const Buffers& b,
                  void* grad, int64_t rows, int64_t V) {
    CrossEntropyArgs a = args_for(b, rows, V);
    float* dloss = b.loss + rows;  // one float past the losses: the upstream gradient 1
    const float one = 1.0f;
    cudaMemcpy(dloss, &one, 4, cudaMemcpyHostToDevice);
    for (unsigned block : {512u, 1024u}) {
        const int64_t grid = std::min<int64_t>(rows, int64_t(sms) * (1024 / block) * 8);
        char label[64];
        std::snprintf(label, sizeof label, "today c2 B%u", block);
        grad_line<T>(dt, "fwd+dx", label, fwd, block, grid, a, grad, nullptr);
    }
    const std::vector<float> ref = host_floats<T>(grad, 4 * V);
    auto fv = [&](auto k, const char* label) {
        grad_line<T>(dt, "fwd+dx", label, k, 256, std::min<int64_t>(rows, int64_t(sms) * 4 * 8), a, grad, &ref);
    };
    fv(ce_grad_variant<T, 256, 256, 1024>, "G256 B256 R1024 8w");
    fv(ce_grad_variant<T, 0, 256, 1024>, "G0 B256 R1024 8w");
    // The backward with lse given (the forward above wrote it) and dloss = 1 (mean off).
    a.dloss = {dloss, 0};
    for (unsigned block : {512u, 1024u}) {
        const int64_t grid = std::min<int64_t>(rows, int64_t(sms) * (1024 / block) * 8);
        char label[64];
        std::snprintf(label, sizeof label, "today c2 B%u", block);
        grad_line<T>(dt, "bwd", label, bwd, block, grid, a, grad, &ref);
    }
    auto bv = [&](auto k, const char* label) {
        grad_line<T>(dt, "bwd", label, k, 256, std::min<int64_t>(rows, int64_t(sms) * 4 * 8), a, grad, &ref);
    };
    bv(ce_bwd_variant<T, 256, 256, 1024>, "G256 B256 R1024 8w");
    bv(ce_bwd_variant<T, 0, 256, 1024>, "G0 B256 R1024 8w");
}

__global__ void fill_targets(int64_t* t, int64_t rows, int64_t V) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows; i += int64_t(gridDim.x) * blockDim.x)
        t[i] = i % 97 == 0 ? -100 : (i * 7919) % V;  // a few ignored rows
}

int main(int argc, char** argv) {
    // --grads: the forward with dlogits and the backward instead of the loss alone.
    const bool grads_only = argc > 1 && std::strcmp(argv[1], "--grads") == 0;
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int64_t rows = 8192, Vmax = 128256;
    Buffers b{};
    cudaMalloc(&b.logits, size_t(rows * Vmax) * 4);
    cudaMalloc(&b.target, size_t(rows) * 8);
    cudaMalloc(&b.loss, size_t(rows + 1) * 4);
    void* grad = nullptr;
    cudaMalloc(&grad, size_t(rows * Vmax) * 4);
    cudaMalloc(&b.lse, size_t(rows) * 4);
    for (int64_t V : {int64_t(32000), Vmax}) {
        fill_targets<<<64, 256>>>(b.target, rows, V);
        if (!grads_only) {
            shape<opk_bf16>("bf16", opk_ce_fwd_bf16_c2, b, rows, V);
            shape<float>("f32", opk_ce_fwd_f32_c2, b, rows, V);
        }
        if (grads_only) {
            fill<opk_bf16>(b.logits, rows * V, 4.0f, 0.0f);
            grads<opk_bf16>("bf16", opk_ce_fwd_bf16_c2, opk_ce_bwd_bf16_c2, b, grad, rows, V);
            fill<float>(b.logits, rows * V, 4.0f, 0.0f);
            grads<float>("f32", opk_ce_fwd_f32_c2, opk_ce_bwd_f32_c2, b, grad, rows, V);
        }
    }
    return 0;
}
