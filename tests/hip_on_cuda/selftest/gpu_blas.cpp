// HIP-over-CUDA self-test: one hipBLASLt and one rocBLAS GEMM per type (f32; bf16 in and
// out), driven like the rocm vendor drives them, against a host reference: a transposed
// A, batch 3 with padded strides and leading dimensions, alpha and beta, D apart from C.
//
// Each GEMM runs on a non-blocking user stream behind a kernel that waits 200 ms and
// only then writes A: a library that ignored the stream (used the null stream, or its
// own) would multiply the zeros that were in A before, and the check would fail.
#include "check.h"
#include "images.h"
#include "scenarios.h"
#include "shims.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace hipshim_test {
namespace {

// bf16 as the top half of an f32, rounded to nearest even.
uint16_t to_bf16(float f) {
    uint32_t u = 0;
    std::memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}
float from_bf16(uint16_t h) {
    const uint32_t u = uint32_t(h) << 16;
    float f = 0;
    std::memcpy(&f, &u, 4);
    return f;
}

struct Problem {
    int m = 67, n = 45, k = 33, batch = 3;
    bool trans_a = true, trans_b = false;
    float alpha = 0.75f, beta = -0.5f;
    // Padded leading dimensions and batch strides (multiples of 8 elements, so every
    // column starts 16-byte aligned in bf16 too: alignment is not what this checks).
    int lda = 40, ldb = 40, ldc = 72, ldd = 80;  // lda >= k (A is stored k x m), ldb >= k
    int64_t stride_a = 40 * 67 + 8, stride_b = 40 * 45 + 16, stride_c = 72 * 45 + 24, stride_d = 80 * 45 + 8;
    int64_t elems_a() const { return stride_a * batch; }
    int64_t elems_b() const { return stride_b * batch; }
    int64_t elems_c() const { return stride_c * batch; }
    int64_t elems_d() const { return stride_d * batch; }
};

// Host values, already representable in the element type (so the reference sees what
// the device sees).
struct HostData {
    std::vector<float> a, b, c;
};
HostData make_data(const Problem& p, bool bf16) {
    HostData h;
    auto fill = [&](std::vector<float>& v, int64_t n, int salt) {
        v.resize(size_t(n));
        for (int64_t i = 0; i < n; ++i) {
            const float x = float((i * 37 + salt * 11) % 29) / 16.0f - 0.875f;
            v[size_t(i)] = bf16 ? from_bf16(to_bf16(x)) : x;
        }
    };
    fill(h.a, p.elems_a(), 1);
    fill(h.b, p.elems_b(), 2);
    fill(h.c, p.elems_c(), 3);
    return h;
}

// Bytes of a buffer in the element type, padded to whole floats (the delayed copy moves
// floats).
std::vector<unsigned char> to_bytes(const std::vector<float>& v, bool bf16) {
    const size_t bytes = v.size() * (bf16 ? 2 : 4);
    std::vector<unsigned char> out((bytes + 3) / 4 * 4, 0);
    for (size_t i = 0; i < v.size(); ++i) {
        if (bf16) {
            const uint16_t h = to_bf16(v[i]);
            std::memcpy(out.data() + 2 * i, &h, 2);
        } else {
            std::memcpy(out.data() + 4 * i, &v[i], 4);
        }
    }
    return out;
}

float element(const std::vector<unsigned char>& bytes, size_t i, bool bf16) {
    if (bf16) {
        uint16_t h = 0;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        return from_bf16(h);
    }
    float f = 0;
    std::memcpy(&f, bytes.data() + 4 * i, 4);
    return f;
}

// Compares D (as read back) with alpha * op(A) op(B) + beta * C, column-major.
std::string compare(const Problem& p, const HostData& h, const std::vector<unsigned char>& d, bool bf16) {
    double worst = 0;
    std::string first;
    for (int b = 0; b < p.batch; ++b)
        for (int j = 0; j < p.n; ++j)
            for (int i = 0; i < p.m; ++i) {
                double acc = 0, scale = 0;
                for (int l = 0; l < p.k; ++l) {
                    const double av = h.a[size_t(b * p.stride_a + (p.trans_a ? l + int64_t(i) * p.lda : i + int64_t(l) * p.lda))];
                    const double bv = h.b[size_t(b * p.stride_b + (p.trans_b ? j + int64_t(l) * p.ldb : l + int64_t(j) * p.ldb))];
                    acc += av * bv;
                    scale += std::fabs(av * bv);
                }
                const double cv = h.c[size_t(b * p.stride_c + i + int64_t(j) * p.ldc)];
                const double want = p.alpha * acc + p.beta * cv;
                const double got = element(d, size_t(b * p.stride_d + i + int64_t(j) * p.ldd), bf16);
                const double bound = bf16 ? 0.0079 * std::fabs(want) + 1e-3 * (scale + std::fabs(cv)) + 1e-3
                                          : 1e-5 * (scale + std::fabs(cv)) + 1e-6;
                const double e = std::fabs(got - want);
                if (e > bound && first.empty())
                    first = format("batch %d (%d,%d): got %.6g, want %.6g", b, i, j, got, want);
                if (e > worst) worst = e;
            }
    return first;
}

// Device buffers of one GEMM; A stays zero until the delayed copy writes it on `stream`.
struct Buffers {
    const Shims* s = nullptr;
    void *a = nullptr, *a_src = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
    size_t a_bytes = 0, d_bytes = 0;
    ~Buffers() {
        for (void* p : {a, a_src, b, c, d})
            if (p) (void)s->hip.hipFree(p);
    }
};

bool upload(const Shims& s, const Problem& p, const HostData& h, bool bf16, Buffers* buf) {
    const opkit_rocm::Hip& hip = s.hip;
    buf->s = &s;
    const std::vector<unsigned char> a = to_bytes(h.a, bf16), b = to_bytes(h.b, bf16), c = to_bytes(h.c, bf16);
    buf->a_bytes = a.size();
    buf->d_bytes = size_t(p.elems_d()) * (bf16 ? 2 : 4);
    bool ok = hip.hipMalloc(&buf->a, a.size()) == hipSuccess && hip.hipMalloc(&buf->a_src, a.size()) == hipSuccess &&
              hip.hipMalloc(&buf->b, b.size()) == hipSuccess && hip.hipMalloc(&buf->c, c.size()) == hipSuccess &&
              hip.hipMalloc(&buf->d, buf->d_bytes) == hipSuccess;
    ok = ok && hip.hipMemcpyAsync(buf->a_src, a.data(), a.size(), hipMemcpyHostToDevice, nullptr) == hipSuccess &&
         hip.hipMemcpyAsync(buf->b, b.data(), b.size(), hipMemcpyHostToDevice, nullptr) == hipSuccess &&
         hip.hipMemcpyAsync(buf->c, c.data(), c.size(), hipMemcpyHostToDevice, nullptr) == hipSuccess &&
         hip.hipMemsetD8Async(buf->a, 0, a.size(), nullptr) == hipSuccess &&
         hip.hipMemsetD8Async(buf->d, 0, buf->d_bytes, nullptr) == hipSuccess &&
         hip.hipStreamSynchronize(nullptr) == hipSuccess;
    return expect(ok, "device buffers");
}

// Queues "wait 200 ms, then A = A_src" on the stream; false when there is no kernel
// image (the GEMM then reads A directly: results are still checked, the stream is not).
bool delay_a(const Shims& s, hipFunction_t delayed_copy, Buffers* buf, hipStream_t stream) {
    if (!delayed_copy) {
        (void)s.hip.hipMemcpyAsync(buf->a, buf->a_src, buf->a_bytes, hipMemcpyDeviceToDevice, stream);
        return false;
    }
    const void* src = buf->a_src;
    void* dst = buf->a;
    unsigned n = unsigned(buf->a_bytes / 4);
    unsigned long long wait_ns = 200ull * 1000 * 1000;
    void* params[] = {&src, &dst, &n, &wait_ns};
    return expect_code(s, s.hip.hipModuleLaunchKernel(delayed_copy, 64, 1, 1, 256, 1, 1, 0, stream, params, nullptr),
                       hipSuccess, "queue 'wait 200 ms, then write A' on the user stream");
}

void check_result(const Shims& s, const Problem& p, const HostData& h, bool bf16, const Buffers& buf,
                  hipStream_t stream, bool stream_proved, const std::string& what) {
    std::vector<unsigned char> d(buf.d_bytes);
    (void)s.hip.hipMemcpyAsync(d.data(), buf.d, d.size(), hipMemcpyDeviceToHost, stream);
    if (!expect_code(s, s.hip.hipStreamSynchronize(stream), hipSuccess, "hipStreamSynchronize")) return;
    const std::string bad = compare(p, h, d, bf16);
    expect(bad.empty(), what + (stream_proved ? " = host reference (ran on the user stream, after A was written)"
                                              : " = host reference"),
           bad);
}

// hipBLASLt the way the vendor calls it: descriptor, four layouts with batch count and
// stride, a preference with a workspace bound, the heuristic, then hipblasLtMatmul.
void run_hipblaslt(const Shims& s, hipFunction_t delayed_copy, bool bf16) {
    const LtApi& lt = s.lt;
    const std::string type = bf16 ? "bf16" : "f32";
    section("hipBLASLt GEMM, " + type + " (A transposed, batch 3, alpha 0.75, beta -0.5)");
    const Problem p;
    const HostData h = make_data(p, bf16);
    Buffers buf;
    if (!upload(s, p, h, bf16, &buf)) return;
    auto is_ok = [](lt::Status st, const std::string& what) {
        return expect(st == lt::STATUS_SUCCESS, what, format("status %d", int(st)));
    };
    const lt::DataType t = bf16 ? lt::R_16BF : lt::R_32F;
    lt::Handle handle = nullptr;
    if (!is_ok(lt.hipblasLtCreate(&handle), "hipblasLtCreate")) return;
    lt::MatmulDesc desc = nullptr;
    lt::MatrixLayout la = nullptr, lb = nullptr, lc = nullptr, ld = nullptr;
    lt::Preference pref = nullptr;
    bool ok = is_ok(lt.hipblasLtMatmulDescCreate(&desc, lt::COMPUTE_32F, lt::R_32F), "hipblasLtMatmulDescCreate");
    const int32_t op_a = p.trans_a ? lt::OP_T : lt::OP_N, op_b = p.trans_b ? lt::OP_T : lt::OP_N;
    ok = ok && is_ok(lt.hipblasLtMatmulDescSetAttribute(desc, lt::DESC_TRANSA, &op_a, sizeof op_a), "TRANSA = OP_T");
    ok = ok && is_ok(lt.hipblasLtMatmulDescSetAttribute(desc, lt::DESC_TRANSB, &op_b, sizeof op_b), "TRANSB = OP_N");
    auto layout = [&](lt::MatrixLayout* l, uint64_t rows, uint64_t cols, int64_t ldx, int64_t stride) {
        const int32_t batch = p.batch;
        return lt.hipblasLtMatrixLayoutCreate(l, t, rows, cols, ldx) == lt::STATUS_SUCCESS &&
               lt.hipblasLtMatrixLayoutSetAttribute(*l, lt::LAYOUT_BATCH_COUNT, &batch, sizeof batch) ==
                   lt::STATUS_SUCCESS &&
               lt.hipblasLtMatrixLayoutSetAttribute(*l, lt::LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride) ==
                   lt::STATUS_SUCCESS;
    };
    ok = ok && expect(layout(&la, p.k, p.m, p.lda, p.stride_a) && layout(&lb, p.k, p.n, p.ldb, p.stride_b) &&
                          layout(&lc, p.m, p.n, p.ldc, p.stride_c) && layout(&ld, p.m, p.n, p.ldd, p.stride_d),
                      "four layouts with BATCH_COUNT and STRIDED_BATCH_OFFSET");
    const uint64_t ws_bytes = 32 << 20;
    ok = ok && is_ok(lt.hipblasLtMatmulPreferenceCreate(&pref), "hipblasLtMatmulPreferenceCreate");
    ok = ok && is_ok(lt.hipblasLtMatmulPreferenceSetAttribute(pref, lt::PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                                              sizeof ws_bytes),
                     "MAX_WORKSPACE_BYTES = 32 MiB");
    lt::HeuristicResult results[8] = {};
    int found = 0;
    ok = ok && is_ok(lt.hipblasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, lc, ld, pref, 8, results, &found),
                     "hipblasLtMatmulAlgoGetHeuristic");
    ok = ok && expect(found >= 1, format("the heuristic found %d algorithm(s)", found));
    if (ok) {
        expect(results[0].state == lt::STATUS_SUCCESS && results[0].workspaceSize <= ws_bytes &&
                   results[0].algo.max_workspace_bytes == ws_bytes,
               "result 0: state success, workspace within the bound, algo carries the bound",
               format("state %d, workspace %zu, max %zu", int(results[0].state), results[0].workspaceSize,
                      results[0].algo.max_workspace_bytes));
        void* workspace = nullptr;
        (void)s.hip.hipMalloc(&workspace, ws_bytes);
        hipStream_t stream = nullptr;
        (void)s.hip.hipStreamCreateWithFlags(&stream, hipStreamNonBlocking);
        lt::Algo zeroed{};
        expect(lt.hipblasLtMatmul(handle, desc, &p.alpha, buf.a, la, buf.b, lb, &p.beta, buf.c, lc, buf.d, ld, &zeroed,
                                  workspace, ws_bytes, stream) == lt::STATUS_INVALID_VALUE,
               "hipblasLtMatmul with an algo the heuristic did not return -> INVALID_VALUE (3)");
        const bool proved = delay_a(s, delayed_copy, &buf, stream);
        if (is_ok(lt.hipblasLtMatmul(handle, desc, &p.alpha, buf.a, la, buf.b, lb, &p.beta, buf.c, lc, buf.d, ld,
                                     &results[0].algo, workspace, ws_bytes, stream),
                  "hipblasLtMatmul on a non-blocking user stream"))
            check_result(s, p, h, bf16, buf, stream, proved, "D (" + type + ")");
        (void)s.hip.hipMemsetD8Async(buf.d, 0, buf.d_bytes, stream);
        if (is_ok(lt.hipblasLtMatmul(handle, desc, &p.alpha, buf.a, la, buf.b, lb, &p.beta, buf.c, lc, buf.d, ld,
                                     nullptr, workspace, ws_bytes, stream),
                  "hipblasLtMatmul with algo NULL (the library's own heuristic)"))
            check_result(s, p, h, bf16, buf, stream, false, "D (" + type + ", algo NULL)");
        (void)s.hip.hipStreamDestroy(stream);
        (void)s.hip.hipFree(workspace);
    }
    for (lt::MatrixLayout l : {la, lb, lc, ld})
        if (l) (void)lt.hipblasLtMatrixLayoutDestroy(l);
    if (desc) (void)lt.hipblasLtMatmulDescDestroy(desc);
    if (pref) (void)lt.hipblasLtMatmulPreferenceDestroy(pref);
    is_ok(lt.hipblasLtDestroy(handle), "hipblasLtDestroy");
}

// rocBLAS: one call with everything in its arguments, on the stream set on the handle.
void run_rocblas(const Shims& s, hipFunction_t delayed_copy, bool bf16) {
    const RbApi& rb = s.rb;
    const std::string type = bf16 ? "bf16" : "f32";
    section("rocBLAS gemm_strided_batched_ex, " + type + " (A transposed, batch 3, alpha 0.75, beta -0.5)");
    const Problem p;
    const HostData h = make_data(p, bf16);
    Buffers buf;
    if (!upload(s, p, h, bf16, &buf)) return;
    rb::Handle handle = nullptr;
    const rb::Status created = rb.rocblas_create_handle(&handle);
    if (!expect(created == rb::STATUS_SUCCESS, "rocblas_create_handle", rb.rocblas_status_to_string(created))) return;
    hipStream_t stream = nullptr;
    (void)s.hip.hipStreamCreateWithFlags(&stream, hipStreamNonBlocking);
    expect(rb.rocblas_set_stream(handle, stream) == rb::STATUS_SUCCESS, "rocblas_set_stream(user stream)");
    const rb::DataType t = bf16 ? rb::R_16BF : rb::R_32F;
    const rb::Operation op_a = p.trans_a ? rb::OP_T : rb::OP_N, op_b = p.trans_b ? rb::OP_T : rb::OP_N;
    auto gemm = [&](rb::Operation ta, rb::DataType at, int m, int lda, const float* alpha, rb::DataType compute,
                    int32_t solution, uint32_t flags) {
        return rb.rocblas_gemm_strided_batched_ex(handle, ta, op_b, m, p.n, p.k, alpha, buf.a, at, lda, p.stride_a,
                                                  buf.b, t, p.ldb, p.stride_b, &p.beta, buf.c, t, p.ldc, p.stride_c,
                                                  buf.d, t, p.ldd, p.stride_d, p.batch, compute,
                                                  rb::ALGO_STANDARD, solution, flags);
    };
    const bool proved = delay_a(s, delayed_copy, &buf, stream);
    const rb::Status st = gemm(op_a, t, p.m, p.lda, &p.alpha, rb::R_32F, 0, 0);
    if (expect(st == rb::STATUS_SUCCESS, "rocblas_gemm_strided_batched_ex", rb.rocblas_status_to_string(st)))
        check_result(s, p, h, bf16, buf, stream, proved, "D (" + type + ")");
    if (!bf16) {  // in place (D = C), as the vendor calls it
        Problem q = p;
        q.ldd = q.ldc;
        q.stride_d = q.stride_c;
        const rb::Status ip = rb.rocblas_gemm_strided_batched_ex(
            handle, op_a, op_b, q.m, q.n, q.k, &q.alpha, buf.a, t, q.lda, q.stride_a, buf.b, t, q.ldb, q.stride_b,
            &q.beta, buf.c, t, q.ldc, q.stride_c, buf.c, t, q.ldd, q.stride_d, q.batch, rb::R_32F, rb::ALGO_STANDARD,
            0, 0);
        if (expect(ip == rb::STATUS_SUCCESS, "rocblas_gemm_strided_batched_ex in place (D = C)",
                   rb.rocblas_status_to_string(ip))) {
            Buffers view;  // C read back through D's fields; owns nothing
            view.s = &s;
            view.d_bytes = size_t(q.elems_d()) * 4;
            std::swap(view.d, buf.c);
            check_result(s, q, h, bf16, view, stream, false, "C after the in-place GEMM");
            std::swap(view.d, buf.c);
        }
    }
    if (!bf16) {  // the strictness cases, once
        auto is = [&](rb::Status got, int want, const std::string& what) {
            expect(int(got) == want, what + " -> " + rb.rocblas_status_to_string(rb::Status(want)),
                   std::string("got ") + rb.rocblas_status_to_string(got));
        };
        is(gemm(rb::Operation(1), t, p.m, p.lda, &p.alpha, rb::R_32F, 0, 0), 11, "trans_a = 1 (CUBLAS_OP_T)");
        is(gemm(rb::Operation(113), t, p.m, p.lda, &p.alpha, rb::R_32F, 0, 0), 11, "trans_a = 113 (conjugate)");
        is(gemm(op_a, rb::DataType(0), p.m, p.lda, &p.alpha, rb::R_32F, 0, 0), 11, "a_type = 0 (CUDA_R_32F)");
        is(gemm(op_a, rb::R_16F, p.m, p.lda, &p.alpha, rb::R_32F, 0, 0), 2, "a_type f16 with b_type f32");
        is(gemm(op_a, t, p.m, p.lda, &p.alpha, rb::R_16F, 0, 0), 2, "compute type f16");
        is(gemm(op_a, t, p.m, p.lda, &p.alpha, rb::R_32F, 1, 0), 11, "solution_index 1");
        is(gemm(op_a, t, p.m, p.lda, &p.alpha, rb::R_32F, 0, 1), 11, "flags 1");
        is(gemm(op_a, t, p.m, p.k - 1, &p.alpha, rb::R_32F, 0, 0), 4, "lda < k for a transposed A");
        is(gemm(op_a, t, p.m, p.lda, nullptr, rb::R_32F, 0, 0), 3, "alpha NULL");
        is(gemm(op_a, t, 0, p.lda, &p.alpha, rb::R_32F, 0, 0), 0, "m = 0 (nothing to do)");
        is(rb.rocblas_set_stream(reinterpret_cast<rb::Handle>(&buf), stream), 1, "rocblas_set_stream(foreign pointer)");
    }
    (void)s.hip.hipStreamSynchronize(stream);
    expect(rb.rocblas_destroy_handle(handle) == rb::STATUS_SUCCESS, "rocblas_destroy_handle");
    (void)s.hip.hipStreamDestroy(stream);
}

}  // namespace

void check_gpu_blas(const Shims& s) {
    hipModule_t module = nullptr;
    hipFunction_t delayed_copy = nullptr;
    if (kFatbin.data && s.hip.hipModuleLoadData(&module, kFatbin.data) == hipSuccess)
        (void)s.hip.hipModuleGetFunction(&delayed_copy, module, "opkit_shim_delayed_copy");
    if (!delayed_copy)
        skip("proving the GEMMs ran on the user stream", "no kernel image (built without nvcc)");
    for (bool bf16 : {false, true}) run_hipblaslt(s, delayed_copy, bf16);
    for (bool bf16 : {false, true}) run_rocblas(s, delayed_copy, bf16);
    if (module) (void)s.hip.hipModuleUnload(module);
}

}  // namespace hipshim_test
