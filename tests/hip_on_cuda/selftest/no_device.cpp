// HIP-over-CUDA self-test: what the shims answer without a driver, and what they export.
//
// These checks need no GPU. main.cpp runs each scenario in its own child process, with
// the shim pointed (OPKIT_HIPSHIM_LIBCUDA / OPKIT_HIPSHIM_CUBLASLT) at a missing file or
// at the toolkit's stub, so they mean the same on a machine with a GPU; the default mode
// also runs check_no_driver in-process when the real environment has no device.
#include "check.h"
#include "elf_info.h"
#include "scenarios.h"
#include "shims.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <set>
#include <thread>

namespace hipshim_test {
namespace {

std::string join(const std::set<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? "(none)" : s;
}

void check_library(const std::string& label, const std::string& path, const std::string& soname,
                   const std::vector<std::string>& contract) {
    ElfInfo info;
    std::string why;
    if (!expect(read_elf(path, &info, &why), label + ": readable ELF", why)) return;
    expect(info.soname == soname, label + ": SONAME " + soname, "found '" + info.soname + "'");
    const std::set<std::string> want(contract.begin(), contract.end());
    std::set<std::string> extra, missing;
    std::set_difference(info.exports.begin(), info.exports.end(), want.begin(), want.end(),
                        std::inserter(extra, extra.end()));
    std::set_difference(want.begin(), want.end(), info.exports.begin(), info.exports.end(),
                        std::inserter(missing, missing.end()));
    expect(extra.empty() && missing.empty(),
           format("%s: exports exactly the %zu names of the contract", label.c_str(), want.size()),
           "extra: " + join(extra) + "; missing: " + join(missing));
    std::set<std::string> linked;  // must be dlopen'ed at run time, never linked
    for (const std::string& n : info.needed)
        if (n.find("cuda") != std::string::npos || n.find("cublas") != std::string::npos ||
            n.find("amdhip") != std::string::npos || n.find("hipblas") != std::string::npos ||
            n.find("rocblas") != std::string::npos)
            linked.insert(n);
    expect(linked.empty(), label + ": links no CUDA or ROCm library (DT_NEEDED)", join(linked));
}

}  // namespace

void check_exports(const std::string& dir) {
    section("exports: each shim is exactly its contract");
    check_library("libamdhip64.so.5", hip_path(dir), "libamdhip64.so.5", hip_contract());
    check_library("libhipblaslt.so.0", hipblaslt_path(dir), "libhipblaslt.so.0", hipblaslt_contract());
    check_library("librocblas.so.4", rocblas_path(dir), "librocblas.so.4", rocblas_contract());
    Shims s;
    std::string why;
    if (!expect(load_shims(dir, &s, &why), "all three load with dlopen (no driver needed)", why)) return;
    std::string missing;
    for (const std::string& n : s.missing) missing += (missing.empty() ? "" : ", ") + n;
    expect(s.missing.empty(), "dlsym finds every name of hip_api.h and blas_api.h", missing);
}

void check_no_driver(const Shims& s, bool driver_absent) {
    section("HIP without a driver: the answers of AMD's runtime without a GPU");
    const opkit_rocm::Hip& h = s.hip;
    int v = -1;
    expect_code(s, h.hipRuntimeGetVersion(&v), hipSuccess, "hipRuntimeGetVersion");
    expect(v == 50221153, "runtime version 50221153 (HIP 5.2)", format("got %d", v));
    v = -1;
    expect_code(s, h.hipDriverGetVersion(&v), hipSuccess, "hipDriverGetVersion");
    if (driver_absent)
        expect(v == 0, "driver version 0 without a driver", format("got %d", v));
    else
        note(format("driver version %d (a driver is installed, without a device)", v));
    expect_code(s, h.hipGetLastError(), hipSuccess, "hipGetLastError before any failure");

    int count = -1;
    expect_code(s, h.hipGetDeviceCount(&count), hipErrorNoDevice, "hipGetDeviceCount");
    expect(count == 0, "device count 0", format("got %d", count));
    expect_code(s, h.hipGetLastError(), hipErrorNoDevice, "hipGetLastError returns the failure");
    expect_code(s, h.hipGetLastError(), hipSuccess, "hipGetLastError then reads cleared");
    expect_code(s, h.hipGetDeviceCount(nullptr), hipErrorInvalidValue, "hipGetDeviceCount(NULL)");
    expect_code(s, h.hipInit(0), hipErrorInvalidDevice, "hipInit(0)");
    expect_code(s, h.hipGetLastError(), hipErrorInvalidDevice, "hipGetLastError after hipInit");

    // Every other call: AMD's runtime answers hipErrorInvalidDevice (101).
    int dev = -1;
    hipDevice_t hd = -1;
    int attr = -1;
    void* p = nullptr;
    hipStream_t stream = nullptr;
    hipModule_t module = nullptr;
    opkit_rocm::HipDeviceProps props;
    const unsigned char junk[16] = {};
    expect_code(s, h.hipSetDevice(0), hipErrorInvalidDevice, "hipSetDevice(0)");
    expect_code(s, h.hipGetDevice(&dev), hipErrorInvalidDevice, "hipGetDevice");
    expect_code(s, h.hipDeviceGet(&hd, 0), hipErrorInvalidDevice, "hipDeviceGet");
    expect_code(s, h.hipDeviceGetAttribute(&attr, hipDeviceAttributeWarpSize, 0), hipErrorInvalidDevice,
                "hipDeviceGetAttribute(WarpSize)");
    expect_code(s, h.hipGetDeviceProperties(&props, 0), hipErrorInvalidDevice, OPKIT_HIP_PROPS_SYMBOL);
    expect_code(s, h.hipMalloc(&p, 256), hipErrorInvalidDevice, "hipMalloc");
    expect_code(s, h.hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), hipErrorInvalidDevice,
                "hipStreamCreateWithFlags");
    expect_code(s, h.hipModuleLoadData(&module, junk), hipErrorInvalidDevice, "hipModuleLoadData");
    expect_code(s, h.hipDeviceSynchronize(), hipErrorInvalidDevice, "hipDeviceSynchronize");
    expect_code(s, h.hipGetLastError(), hipErrorInvalidDevice, "hipGetLastError keeps the latest failure");
    expect_code(s, h.hipGetLastError(), hipSuccess, "... and clears it");

    // The last error belongs to the thread that failed.
    hipError_t in_thread = hipSuccess;
    std::thread t([&] {
        (void)h.hipSetDevice(0);
        in_thread = h.hipGetLastError();
    });
    t.join();
    expect_code(s, in_thread, hipErrorInvalidDevice, "another thread's hipGetLastError sees its own failure");
    expect_code(s, h.hipGetLastError(), hipSuccess, "this thread's last error is untouched by it");

    section("HIP error names and descriptions");
    const struct {
        hipError_t code;
        const char* name;
    } names[] = {{hipSuccess, "hipSuccess"},
                 {hipErrorInvalidValue, "hipErrorInvalidValue"},
                 {hipErrorOutOfMemory, "hipErrorOutOfMemory"},
                 {hipErrorNoDevice, "hipErrorNoDevice"},
                 {hipErrorInvalidDevice, "hipErrorInvalidDevice"},
                 {hipErrorInvalidImage, "hipErrorInvalidImage"},
                 {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu"},
                 {hipErrorInvalidKernelFile, "hipErrorInvalidKernelFile"},
                 {hipErrorNotFound, "hipErrorNotFound"},
                 {hipErrorInvalidHandle, "hipErrorInvalidHandle"},
                 {hipErrorUnknown, "hipErrorUnknown"},
                 {hipError_t(1500), "hipErrorUnknown"}};  // 1500: in the enum's range, not a code
    for (const auto& n : names) {
        const char* got = h.hipGetErrorName(n.code);
        expect(got && std::strcmp(got, n.name) == 0, format("hipGetErrorName(%d) = %s", int(n.code), n.name),
               std::string("got ") + (got ? got : "NULL"));
    }
    const char* text = h.hipGetErrorString(hipErrorOutOfMemory);
    expect(text && *text && std::strcmp(text, "hipErrorOutOfMemory") != 0,
           "hipGetErrorString(2) is a description, not the name", text ? text : "NULL");
}

void check_blas_no_driver(const Shims& s) {
    section("hipBLASLt and rocBLAS without a driver: fail cleanly");
    if (real_libcuda_present()) {
        note("a real libcuda.so.1 is loadable here: cuBLASLt can start without the HIP shim's driver, so "
             "handle creation is not expected to fail (checked on no-driver machines only)");
    } else {
        lt::Handle handle = reinterpret_cast<lt::Handle>(uintptr_t(0x5a5a));
        const lt::Status st = s.lt.hipblasLtCreate(&handle);
        expect(st == lt::STATUS_NOT_INITIALIZED, "hipblasLtCreate -> HIPBLAS_STATUS_NOT_INITIALIZED (1)",
               format("got %d", int(st)));
        expect(handle == reinterpret_cast<lt::Handle>(uintptr_t(0x5a5a)), "hipblasLtCreate leaves the handle alone");
        rb::Handle rh = nullptr;
        const rb::Status rs = s.rb.rocblas_create_handle(&rh);
        expect(rs != rb::STATUS_SUCCESS && rh == nullptr, "rocblas_create_handle fails, no handle",
               format("got %d (%s)", int(rs), s.rb.rocblas_status_to_string(rs)));
    }
    expect(std::strcmp(s.rb.rocblas_status_to_string(rb::STATUS_SUCCESS), "rocblas_status_success") == 0,
           "rocblas_status_to_string(0) = rocblas_status_success");
    expect(std::strcmp(s.rb.rocblas_status_to_string(rb::Status(6)), "rocblas_status_internal_error") == 0,
           "rocblas_status_to_string(6) = rocblas_status_internal_error");
    expect(int(s.rb.rocblas_set_stream(nullptr, nullptr)) == 1, "rocblas_set_stream(NULL handle) -> invalid_handle (1)");
    const float one = 1.0f;
    const rb::Status g = s.rb.rocblas_gemm_strided_batched_ex(
        nullptr, rb::OP_N, rb::OP_N, 1, 1, 1, &one, &one, rb::R_32F, 1, 1, &one, rb::R_32F, 1, 1, &one, &one,
        rb::R_32F, 1, 1, nullptr, rb::R_32F, 1, 1, 1, rb::R_32F, rb::ALGO_STANDARD, 0, 0);
    expect(int(g) == 1, "rocblas_gemm_strided_batched_ex(NULL handle) -> invalid_handle (1)", format("got %d", int(g)));
    float d = 0;
    const lt::Status m = s.lt.hipblasLtMatmul(nullptr, nullptr, &one, &one, nullptr, &one, nullptr, &one, &one,
                                              nullptr, &d, nullptr, nullptr, nullptr, 0, nullptr);
    expect(m == lt::STATUS_HANDLE_IS_NULLPTR || m == lt::STATUS_NOT_INITIALIZED,
           "hipblasLtMatmul(NULL handle) fails cleanly", format("got %d", int(m)));
}

void check_lt_strict_enums(const Shims& s) {
    section("hipBLASLt values: only hipBLASLt's, never cuBLASLt's (host-side, no device needed)");
    const LtApi& lt = s.lt;
    lt::Preference pref = nullptr;
    const lt::Status first = lt.hipblasLtMatmulPreferenceCreate(&pref);
    if (first == lt::STATUS_NOT_INITIALIZED) {
        skip("hipBLASLt enum strictness", "cuBLASLt not found (set OPKIT_HIPSHIM_CUBLASLT or install it)");
        return;
    }
    auto is = [](lt::Status got, lt::Status want, const std::string& what) {
        return expect(got == want, what + format(" -> %d", int(want)), format("got %d", int(got)));
    };
    is(first, lt::STATUS_SUCCESS, "hipblasLtMatmulPreferenceCreate");
    const uint64_t ws = 1 << 20;
    const uint32_t mode = 0, bad_mode = 1;
    is(lt.hipblasLtMatmulPreferenceSetAttribute(pref, lt::PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
       lt::STATUS_SUCCESS, "preference MAX_WORKSPACE_BYTES (1), uint64");
    is(lt.hipblasLtMatmulPreferenceSetAttribute(pref, lt::PREF_SEARCH_MODE, &mode, sizeof mode), lt::STATUS_SUCCESS,
       "preference SEARCH_MODE (0) = best fit");
    is(lt.hipblasLtMatmulPreferenceSetAttribute(pref, lt::PREF_SEARCH_MODE, &bad_mode, sizeof bad_mode),
       lt::STATUS_INVALID_VALUE, "preference SEARCH_MODE = 1 (outside the subset)");
    is(lt.hipblasLtMatmulPreferenceSetAttribute(pref, lt::PreferenceAttribute(5), &ws, sizeof ws),
       lt::STATUS_INVALID_ENUM, "preference 5 (cuBLASLt's MIN_ALIGNMENT_A_BYTES)");
    is(lt.hipblasLtMatmulPreferenceSetAttribute(pref, lt::PREF_MAX_WORKSPACE_BYTES, &mode, sizeof mode),
       lt::STATUS_INVALID_VALUE, "MAX_WORKSPACE_BYTES with a 4-byte value");

    lt::MatmulDesc desc = nullptr, bad = nullptr;
    is(lt.hipblasLtMatmulDescCreate(&desc, lt::COMPUTE_32F, lt::R_32F), lt::STATUS_SUCCESS,
       "hipblasLtMatmulDescCreate(COMPUTE_32F = 2, R_32F = 0)");
    is(lt.hipblasLtMatmulDescCreate(&bad, lt::ComputeType(68), lt::R_32F), lt::STATUS_INVALID_ENUM,
       "hipblasLtMatmulDescCreate(68 = CUBLAS_COMPUTE_32F)");
    is(lt.hipblasLtMatmulDescCreate(&bad, lt::COMPUTE_32F, lt::DataType(1)), lt::STATUS_INVALID_ENUM,
       "hipblasLtMatmulDescCreate(scale type 1, not in the subset)");
    const int32_t op_t = lt::OP_T, cu_op_t = 1;
    const int64_t wide = lt::OP_T;
    is(lt.hipblasLtMatmulDescSetAttribute(desc, lt::DESC_TRANSA, &op_t, sizeof op_t), lt::STATUS_SUCCESS,
       "DESC_TRANSA (0) = OP_T (112)");
    is(lt.hipblasLtMatmulDescSetAttribute(desc, lt::DESC_TRANSB, &op_t, sizeof op_t), lt::STATUS_SUCCESS,
       "DESC_TRANSB (1) = OP_T (112)");
    is(lt.hipblasLtMatmulDescSetAttribute(desc, lt::DescAttribute(3), &op_t, sizeof op_t), lt::STATUS_INVALID_ENUM,
       "descriptor attribute 3 (cuBLASLt's TRANSA)");
    is(lt.hipblasLtMatmulDescSetAttribute(desc, lt::DESC_TRANSA, &cu_op_t, sizeof cu_op_t), lt::STATUS_INVALID_ENUM,
       "DESC_TRANSA = 1 (CUBLAS_OP_T)");
    is(lt.hipblasLtMatmulDescSetAttribute(desc, lt::DESC_TRANSA, &wide, sizeof wide), lt::STATUS_INVALID_VALUE,
       "DESC_TRANSA with an 8-byte value");

    lt::MatrixLayout layout = nullptr, bad_layout = nullptr;
    is(lt.hipblasLtMatrixLayoutCreate(&layout, lt::R_16BF, 16, 8, 16), lt::STATUS_SUCCESS,
       "hipblasLtMatrixLayoutCreate(R_16BF = 14)");
    is(lt.hipblasLtMatrixLayoutCreate(&bad_layout, lt::DataType(68), 16, 8, 16), lt::STATUS_INVALID_ENUM,
       "hipblasLtMatrixLayoutCreate(type 68)");
    const int32_t batch = 3;
    const int64_t stride = 16 * 8;
    is(lt.hipblasLtMatrixLayoutSetAttribute(layout, lt::LAYOUT_BATCH_COUNT, &batch, sizeof batch),
       lt::STATUS_SUCCESS, "LAYOUT_BATCH_COUNT (0) = 3");
    is(lt.hipblasLtMatrixLayoutSetAttribute(layout, lt::LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
       lt::STATUS_SUCCESS, "LAYOUT_STRIDED_BATCH_OFFSET (1), int64");
    is(lt.hipblasLtMatrixLayoutSetAttribute(layout, lt::LayoutAttribute(5), &batch, sizeof batch),
       lt::STATUS_INVALID_ENUM, "layout attribute 5 (cuBLASLt's BATCH_COUNT)");
    is(lt.hipblasLtMatrixLayoutSetAttribute(layout, lt::LAYOUT_STRIDED_BATCH_OFFSET, &batch, sizeof batch),
       lt::STATUS_INVALID_VALUE, "LAYOUT_STRIDED_BATCH_OFFSET with a 4-byte value");
    is(lt.hipblasLtMatmulDescSetAttribute(layout, lt::DESC_TRANSA, &op_t, sizeof op_t), lt::STATUS_INVALID_VALUE,
       "a layout passed as a matmul descriptor");

    is(lt.hipblasLtMatrixLayoutDestroy(layout), lt::STATUS_SUCCESS, "hipblasLtMatrixLayoutDestroy");
    is(lt.hipblasLtMatmulDescDestroy(desc), lt::STATUS_SUCCESS, "hipblasLtMatmulDescDestroy");
    is(lt.hipblasLtMatmulPreferenceDestroy(pref), lt::STATUS_SUCCESS, "hipblasLtMatmulPreferenceDestroy");
}

void check_stub_driver(const Shims& s) {
    section("HIP with the toolkit's stub libcuda: no device");
    int count = -1, v = -1;
    expect_code(s, s.hip.hipGetDeviceCount(&count), hipErrorNoDevice, "hipGetDeviceCount");
    expect(count == 0, "device count 0", format("got %d", count));
    expect_code(s, s.hip.hipInit(0), hipErrorInvalidDevice, "hipInit(0)");
    expect_code(s, s.hip.hipDriverGetVersion(&v), hipSuccess, "hipDriverGetVersion");
    expect(v == 0, "driver version 0 from the stub", format("got %d", v));
}

void check_no_cublaslt(const Shims& s) {
    section("hipBLASLt and rocBLAS without cuBLASLt");
    lt::Handle h = nullptr;
    lt::Preference p = nullptr;
    lt::MatmulDesc d = nullptr;
    const lt::Status a = s.lt.hipblasLtCreate(&h);
    const lt::Status b = s.lt.hipblasLtMatmulPreferenceCreate(&p);
    const lt::Status c = s.lt.hipblasLtMatmulDescCreate(&d, lt::COMPUTE_32F, lt::R_32F);
    expect(a == lt::STATUS_NOT_INITIALIZED && b == lt::STATUS_NOT_INITIALIZED && c == lt::STATUS_NOT_INITIALIZED,
           "every hipBLASLt call -> HIPBLAS_STATUS_NOT_INITIALIZED (1)",
           format("got %d, %d, %d", int(a), int(b), int(c)));
    rb::Handle r = nullptr;
    const rb::Status rs = s.rb.rocblas_create_handle(&r);
    expect(int(rs) == 6 && r == nullptr, "rocblas_create_handle -> rocblas_status_internal_error (6)",
           format("got %d", int(rs)));
}

void check_against_amd(const Shims& s, const std::string& amd_path) {
    section("the shim against Debian's real libamdhip64 (" + amd_path + "), both without a device");
    void* amd = dlopen(amd_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!amd) {
        const char* e = dlerror();
        skip("comparison with AMD's runtime", e ? e : "dlopen failed");
        return;
    }
    auto name_fn = reinterpret_cast<decltype(&::hipGetErrorName)>(dlsym(amd, "hipGetErrorName"));
    auto count_fn = reinterpret_cast<decltype(&::hipGetDeviceCount)>(dlsym(amd, "hipGetDeviceCount"));
    auto init_fn = reinterpret_cast<decltype(&::hipInit)>(dlsym(amd, "hipInit"));
    auto version_fn = reinterpret_cast<decltype(&::hipRuntimeGetVersion)>(dlsym(amd, "hipRuntimeGetVersion"));
    if (!expect(name_fn && count_fn && init_fn && version_fn, "AMD's runtime has the compared functions")) return;
    // The shim imitates the runtime whose headers it is built against (HIP 5.2, Debian's);
    // other ROCm releases answer a machine without a GPU with other codes (HIP 5.7: 100
    // where 5.2 says 101), so only that release is a reference.
    int va = 0, vb = 0;
    (void)version_fn(&va);
    (void)s.hip.hipRuntimeGetVersion(&vb);
    if (va != vb) {
        skip("comparison with AMD's runtime",
             format("the runtime found is HIP %d.%d (%d); the shim imitates %d, and only that release is the "
                    "reference", va / 10000000, va / 100000 % 100, va, vb));
        return;
    }
    std::string differ;
    for (int e = 0; e < 2048; ++e) {  // every value of hipError_t's range (its codes reach 1054)
        const char* a = name_fn(hipError_t(e));
        const char* b = s.hip.hipGetErrorName(hipError_t(e));
        if (!a || !b || std::strcmp(a, b) != 0)
            differ += format("%s%d: %s vs %s", differ.empty() ? "" : "; ", e, a ? a : "NULL", b ? b : "NULL");
    }
    expect(differ.empty(), "hipGetErrorName equals AMD's for every value 0..2047", differ);
    int ca = -1, cb = -1;
    const hipError_t ra = count_fn(&ca), rb_ = s.hip.hipGetDeviceCount(&cb);
    expect(ra == rb_, "hipGetDeviceCount: same code as AMD's", format("AMD %d, shim %d", int(ra), int(rb_)));
    const hipError_t ia = init_fn(0), ib = s.hip.hipInit(0);
    expect(ia == ib, "hipInit(0): same code as AMD's", format("AMD %d, shim %d", int(ia), int(ib)));

    // The other calls of the contract that take no device resource: same return codes.
    opkit_rocm::Hip amd_hip;
    std::string absent;
#define HIPSHIM_TEST_RESOLVE(name)                                                     \
    amd_hip.name = reinterpret_cast<decltype(amd_hip.name)>(dlsym(amd, #name));      \
    if (!amd_hip.name) absent += std::string(absent.empty() ? "" : ", ") + #name;
    OPKIT_HIP_FUNCTIONS(HIPSHIM_TEST_RESOLVE)
    HIPSHIM_TEST_RESOLVE(hipMalloc)
    HIPSHIM_TEST_RESOLVE(hipMallocAsync)
    HIPSHIM_TEST_RESOLVE(hipMallocFromPoolAsync)
#undef HIPSHIM_TEST_RESOLVE
    if (!dlsym(amd, OPKIT_HIP_PROPS_SYMBOL)) absent += std::string(absent.empty() ? "" : ", ") + OPKIT_HIP_PROPS_SYMBOL;
    if (!expect(absent.empty(), "AMD's runtime exports every name of hip_api.h too", absent)) return;
    const opkit_rocm::Hip& shim = s.hip;
    const struct Call {
        const char* what;
        hipError_t (*run)(const opkit_rocm::Hip&);
    } calls[] = {
        {"hipSetDevice(0)", [](const opkit_rocm::Hip& h) { return h.hipSetDevice(0); }},
        {"hipGetDevice", [](const opkit_rocm::Hip& h) { int d = 0; return h.hipGetDevice(&d); }},
        {"hipDeviceGet", [](const opkit_rocm::Hip& h) { hipDevice_t d = 0; return h.hipDeviceGet(&d, 0); }},
        {"hipDeviceGetAttribute", [](const opkit_rocm::Hip& h) {
             int v = 0;
             return h.hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0);
         }},
        {"hipDeviceSynchronize", [](const opkit_rocm::Hip& h) { return h.hipDeviceSynchronize(); }},
        {"hipMalloc", [](const opkit_rocm::Hip& h) { void* p = nullptr; return h.hipMalloc(&p, 64); }},
        {"hipStreamCreateWithFlags", [](const opkit_rocm::Hip& h) {
             hipStream_t st = nullptr;
             return h.hipStreamCreateWithFlags(&st, hipStreamNonBlocking);
         }},
        {"hipStreamSynchronize(NULL)", [](const opkit_rocm::Hip& h) { return h.hipStreamSynchronize(nullptr); }},
        {"hipRuntimeGetVersion", [](const opkit_rocm::Hip& h) { int v = 0; return h.hipRuntimeGetVersion(&v); }},
        {"hipDriverGetVersion", [](const opkit_rocm::Hip& h) { int v = 0; return h.hipDriverGetVersion(&v); }},
    };
    for (const Call& c : calls) {
        const hipError_t a = c.run(amd_hip);
        const hipError_t b = c.run(shim);
        expect(a == b, std::string(c.what) + ": same code as AMD's (" + std::to_string(int(a)) + ")",
               format("AMD %d, shim %d", int(a), int(b)));
    }
    note("known difference: AMD's runtime without a GPU answers hipGetLastError with 101 forever; the shim "
         "returns the thread's last failure and clears it, as HIP does on a working system");
    // Not closed: AMD's runtime does not expect to be unloaded.
}

}  // namespace hipshim_test
