// HIP-over-CUDA self-test: the HIP runtime shim on a CUDA device — device facts, memory,
// streams, pools, modules and launches, each compared with what a HIP caller must see.
#include "check.h"
#include "images.h"
#include "scenarios.h"
#include "shims.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace hipshim_test {
namespace {

struct ScaleArgs {  // kernels.cu's ScaleArgs, passed by value through `extra`
    const float* x;
    float* y;
    float scale;
    unsigned n;
};

int attribute(const Shims& s, hipDeviceAttribute_t a) {
    int v = -1;
    if (s.hip.hipDeviceGetAttribute(&v, a, 0) != hipSuccess) return -1;
    return v;
}

void check_device(const Shims& s, int count) {
    const opkit_rocm::Hip& h = s.hip;
    section("devices and the current device");
    expect_code(s, h.hipInit(0), hipSuccess, "hipInit(0)");
    expect_code(s, h.hipInit(1), hipErrorInvalidValue, "hipInit(1)");
    (void)h.hipGetLastError();
    int v = 0;
    (void)h.hipRuntimeGetVersion(&v);
    expect(v == 50221153, "hipRuntimeGetVersion = 50221153", format("got %d", v));
    v = 0;
    (void)h.hipDriverGetVersion(&v);
    expect(v >= 12000, format("hipDriverGetVersion = the CUDA driver's (%d)", v));
    expect(count >= 1, format("hipGetDeviceCount = %d", count));
    int dev = -1;
    expect_code(s, h.hipGetDevice(&dev), hipSuccess, "hipGetDevice");
    expect(dev == 0, "a thread starts on device 0", format("got %d", dev));
    expect_code(s, h.hipSetDevice(count), hipErrorInvalidDevice, "hipSetDevice(count)");
    expect_code(s, h.hipGetLastError(), hipErrorInvalidDevice, "hipGetLastError returns it");
    expect_code(s, h.hipGetLastError(), hipSuccess, "then reads cleared");
    expect_code(s, h.hipSetDevice(-1), hipErrorInvalidDevice, "hipSetDevice(-1)");
    expect_code(s, h.hipSetDevice(0), hipSuccess, "hipSetDevice(0)");
    hipDevice_t d = -1;
    expect_code(s, h.hipDeviceGet(&d, 0), hipSuccess, "hipDeviceGet(0)");
    expect(d == 0, "hipDeviceGet gives the ordinal");
    expect_code(s, h.hipDeviceGet(&d, count), hipErrorInvalidDevice, "hipDeviceGet(count)");
    char name[256] = {};
    expect_code(s, h.hipDeviceGetName(name, sizeof name, 0), hipSuccess, "hipDeviceGetName");
    expect(name[0] != 0, std::string("device name: ") + name);

    section("device attributes (AMD's numbering, the NVIDIA device's values)");
    const int warp = attribute(s, hipDeviceAttributeWarpSize);
    const int sms = attribute(s, hipDeviceAttributeMultiprocessorCount);
    const int smem = attribute(s, hipDeviceAttributeMaxSharedMemoryPerBlock);
    const int optin = attribute(s, hipDeviceAttributeSharedMemPerBlockOptin);
    const int smem_sm = attribute(s, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor);
    const int major = attribute(s, hipDeviceAttributeComputeCapabilityMajor);
    const int minor = attribute(s, hipDeviceAttributeComputeCapabilityMinor);
    expect(warp == 32, format("WarpSize (%d) = 32", int(hipDeviceAttributeWarpSize)), format("got %d", warp));
    expect(sms > 0, format("MultiprocessorCount = %d", sms));
    expect(attribute(s, hipDeviceAttributeMaxThreadsPerBlock) == 1024, "MaxThreadsPerBlock = 1024");
    expect(attribute(s, hipDeviceAttributeL2CacheSize) > 0,
           format("L2CacheSize = %d", attribute(s, hipDeviceAttributeL2CacheSize)));
    expect(smem == 49152, "MaxSharedMemoryPerBlock = 49152 (no opt-in)", format("got %d", smem));
    expect(optin >= smem, format("SharedMemPerBlockOptin = %d", optin));
    expect(smem_sm >= optin, format("MaxSharedMemoryPerMultiprocessor = %d", smem_sm));
    expect(attribute(s, hipDeviceAttributeSharedMemPerMultiprocessor) == smem_sm,
           "SharedMemPerMultiprocessor = MaxSharedMemoryPerMultiprocessor");
    expect(attribute(s, hipDeviceAttributeMaxThreadsPerMultiProcessor) >= 1024,
           format("MaxThreadsPerMultiProcessor = %d", attribute(s, hipDeviceAttributeMaxThreadsPerMultiProcessor)));
    expect(major >= 7 && minor >= 0, format("ComputeCapability %d.%d", major, minor));
    expect(attribute(s, hipDeviceAttributeMemoryPoolsSupported) == 1, "MemoryPoolsSupported = 1");
    expect(attribute(s, hipDeviceAttributeMaxGridDimX) == 2147483647, "MaxGridDimX = 2^31-1");
    expect(attribute(s, hipDeviceAttributeMaxRegistersPerMultiprocessor) > 0,
           format("MaxRegistersPerMultiprocessor = %d", attribute(s, hipDeviceAttributeMaxRegistersPerMultiprocessor)));
    int x = 0;
    expect_code(s, h.hipDeviceGetAttribute(&x, hipDeviceAttributeTotalGlobalMem, 0), hipErrorInvalidValue,
                "an unmapped attribute (TotalGlobalMem)");
    expect_code(s, h.hipDeviceGetAttribute(&x, hipDeviceAttribute_t(12345), 0), hipErrorInvalidValue,
                "attribute 12345");
    expect_code(s, h.hipDeviceGetAttribute(&x, hipDeviceAttributeWarpSize, count), hipErrorInvalidDevice,
                "an attribute of device <count>");
    (void)h.hipGetLastError();

    section("device properties");
    opkit_rocm::HipDeviceProps p;
    std::memset(&p, 0x5a, sizeof p);
    if (expect_code(s, h.hipGetDeviceProperties(&p, 0), hipSuccess, OPKIT_HIP_PROPS_SYMBOL)) {
        const std::string want = format("sm_%d%d", major, minor);
        expect(want == p.gcnArchName, "gcnArchName = " + want, std::string("got ") + p.gcnArchName);
        expect(std::strcmp(p.name, name) == 0, "name = hipDeviceGetName's");
        expect(p.warpSize == 32 && p.multiProcessorCount == sms, "warpSize and multiProcessorCount as attributes");
        expect(p.totalGlobalMem > (size_t(1) << 30), format("totalGlobalMem = %zu", p.totalGlobalMem));
        expect(p.major == major && p.minor == minor && p.sharedMemPerBlock == size_t(smem),
               "major, minor, sharedMemPerBlock as attributes");
    }
}

void check_memory(const Shims& s) {
    const opkit_rocm::Hip& h = s.hip;
    section("memory and copies");
    void* p = reinterpret_cast<void*>(1);
    expect_code(s, h.hipMalloc(&p, 0), hipSuccess, "hipMalloc(0)");
    expect(p == nullptr, "hipMalloc(0) gives NULL");
    expect_code(s, h.hipMalloc(nullptr, 16), hipErrorInvalidValue, "hipMalloc(NULL, 16)");
    expect_code(s, h.hipMalloc(&p, size_t(1) << 50), hipErrorOutOfMemory, "hipMalloc(1 PiB)");
    expect(p == nullptr, "a failed hipMalloc gives NULL");
    expect_code(s, h.hipGetLastError(), hipErrorOutOfMemory, "hipGetLastError returns it");
    expect_code(s, h.hipGetLastError(), hipSuccess, "then reads cleared");
    expect_code(s, h.hipFree(nullptr), hipSuccess, "hipFree(NULL)");

    const size_t n = size_t(1) << 20, bytes = n * sizeof(float);
    std::vector<float> a(n), b(n, -1.0f);
    for (size_t i = 0; i < n; ++i) a[i] = float(i) * 0.5f;
    void *d1 = nullptr, *d2 = nullptr;
    if (!expect_code(s, h.hipMalloc(&d1, bytes), hipSuccess, "hipMalloc(4 MiB)") ||
        !expect_code(s, h.hipMalloc(&d2, bytes), hipSuccess, "hipMalloc(4 MiB)"))
        return;
    // A successful allocation hands out a real pointer (a shim once returned NULL here).
    if (!expect(d1 != nullptr && d2 != nullptr && d1 != d2, "hipMalloc gives two distinct non-NULL pointers"))
        return;
    expect_code(s, h.hipMemcpyAsync(d1, a.data(), bytes, hipMemcpyHostToDevice, nullptr), hipSuccess,
                "hipMemcpyAsync HostToDevice");
    expect_code(s, h.hipMemcpyAsync(d2, d1, bytes, hipMemcpyDeviceToDevice, nullptr), hipSuccess,
                "hipMemcpyAsync DeviceToDevice");
    expect_code(s, h.hipMemcpyAsync(b.data(), d2, bytes, hipMemcpyDeviceToHost, nullptr), hipSuccess,
                "hipMemcpyAsync DeviceToHost");
    expect_code(s, h.hipStreamSynchronize(nullptr), hipSuccess, "hipStreamSynchronize(NULL)");
    expect(a == b, "round trip host -> device -> device -> host");
    std::vector<float> c(n, -1.0f);
    expect_code(s, h.hipMemcpyAsync(d2, a.data(), bytes, hipMemcpyDefault, nullptr), hipSuccess,
                "hipMemcpyAsync Default (to device)");
    expect_code(s, h.hipMemcpyAsync(c.data(), d2, bytes, hipMemcpyDefault, nullptr), hipSuccess,
                "hipMemcpyAsync Default (to host)");
    (void)h.hipStreamSynchronize(nullptr);
    expect(a == c, "round trip with hipMemcpyDefault");
    expect_code(s, h.hipMemcpyAsync(d1, a.data(), bytes, hipMemcpyDeviceToHost, nullptr),
                hipErrorInvalidMemcpyDirection, "hipMemcpyAsync host -> device declared DeviceToHost");
    expect_code(s, h.hipMemcpyAsync(d1, d2, bytes, hipMemcpyHostToDevice, nullptr), hipErrorInvalidMemcpyDirection,
                "hipMemcpyAsync device -> device declared HostToDevice");
    expect_code(s, h.hipMemcpyAsync(d1, d2, bytes, hipMemcpyKind(7), nullptr), hipErrorInvalidMemcpyDirection,
                "hipMemcpyAsync kind 7");
    (void)h.hipGetLastError();

    expect_code(s, h.hipMemsetD32Async(d1, 0x3f800000, n, nullptr), hipSuccess, "hipMemsetD32Async(1.0f)");
    expect_code(s, h.hipMemsetD8Async(d2, 0xab, bytes, nullptr), hipSuccess, "hipMemsetD8Async(0xab)");
    expect_code(s, h.hipMemsetD8Async(d2, 0, 0, nullptr), hipSuccess, "hipMemsetD8Async of 0 bytes");
    std::vector<uint32_t> w(n);
    (void)h.hipMemcpyAsync(b.data(), d1, bytes, hipMemcpyDeviceToHost, nullptr);
    (void)h.hipMemcpyAsync(w.data(), d2, bytes, hipMemcpyDeviceToHost, nullptr);
    (void)h.hipStreamSynchronize(nullptr);
    bool ones = true, pattern = true;
    for (size_t i = 0; i < n; ++i) {
        ones = ones && b[i] == 1.0f;
        pattern = pattern && w[i] == 0xabababab;
    }
    expect(ones, "memset D32 wrote 1.0f everywhere");
    expect(pattern, "memset D8 wrote 0xab everywhere");

    section("peer copies");
    expect_code(s, h.hipMemcpyPeerAsync(d2, 0, d1, 0, bytes, nullptr), hipSuccess, "hipMemcpyPeerAsync 0 -> 0");
    (void)h.hipStreamSynchronize(nullptr);
    std::fill(c.begin(), c.end(), 0.0f);
    (void)h.hipMemcpyAsync(c.data(), d2, bytes, hipMemcpyDeviceToHost, nullptr);
    (void)h.hipStreamSynchronize(nullptr);
    expect(c == b, "peer copy 0 -> 0 copied");
    int count = 0;
    (void)h.hipGetDeviceCount(&count);
    expect_code(s, h.hipMemcpyPeerAsync(d2, count, d1, 0, bytes, nullptr), hipErrorInvalidDevice,
                "hipMemcpyPeerAsync to device <count>");
    (void)h.hipGetLastError();
    if (count >= 2) {
        void* remote = nullptr;
        (void)h.hipSetDevice(1);
        const bool ok = expect_code(s, h.hipMalloc(&remote, bytes), hipSuccess, "hipMalloc on device 1");
        (void)h.hipSetDevice(0);
        if (ok) {
            expect_code(s, h.hipMemcpyPeerAsync(remote, 1, d1, 0, bytes, nullptr), hipSuccess, "peer copy 0 -> 1");
            expect_code(s, h.hipMemcpyPeerAsync(d2, 0, remote, 1, bytes, nullptr), hipSuccess, "peer copy 1 -> 0");
            (void)h.hipStreamSynchronize(nullptr);
            std::fill(c.begin(), c.end(), 0.0f);
            (void)h.hipMemcpyAsync(c.data(), d2, bytes, hipMemcpyDeviceToHost, nullptr);
            (void)h.hipStreamSynchronize(nullptr);
            expect(c == b, "peer copies through device 1 round-trip");
            (void)h.hipSetDevice(1);
            (void)h.hipFree(remote);
            (void)h.hipSetDevice(0);
        }
    } else {
        note("one device: copies between two devices not exercised");
    }
    expect_code(s, h.hipFree(d1), hipSuccess, "hipFree");
    expect_code(s, h.hipFree(d2), hipSuccess, "hipFree");
}

void check_streams_and_pools(const Shims& s) {
    const opkit_rocm::Hip& h = s.hip;
    section("streams and memory pools");
    hipStream_t st = nullptr, blocking = nullptr, bad = nullptr;
    expect_code(s, h.hipStreamCreateWithFlags(&st, hipStreamNonBlocking), hipSuccess,
                "hipStreamCreateWithFlags(hipStreamNonBlocking)");
    expect_code(s, h.hipStreamCreateWithFlags(&blocking, hipStreamDefault), hipSuccess,
                "hipStreamCreateWithFlags(hipStreamDefault)");
    expect_code(s, h.hipStreamCreateWithFlags(&bad, 4), hipErrorInvalidValue, "hipStreamCreateWithFlags(4)");
    expect_code(s, h.hipStreamDestroy(nullptr), hipErrorInvalidHandle, "hipStreamDestroy(NULL)");
    (void)h.hipGetLastError();

    hipMemPoolProps props;
    std::memset(&props, 0, sizeof props);
    props.allocType = hipMemAllocationTypePinned;
    props.handleTypes = hipMemHandleTypeNone;
    props.location.type = hipMemLocationTypeDevice;
    props.location.id = 0;
    hipMemPool_t pool = nullptr, bad_pool = nullptr;
    if (expect_code(s, h.hipMemPoolCreate(&pool, &props), hipSuccess, "hipMemPoolCreate (pinned, device 0)")) {
        uint64_t threshold = UINT64_MAX;
        expect_code(s, h.hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &threshold), hipSuccess,
                    "hipMemPoolSetAttribute(ReleaseThreshold = UINT64_MAX)");
        int reuse = 1;
        expect_code(s, h.hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowOpportunistic, &reuse), hipSuccess,
                    "hipMemPoolSetAttribute(ReuseAllowOpportunistic)");
        expect_code(s, h.hipMemPoolSetAttribute(pool, hipMemPoolAttr(15), &threshold), hipErrorInvalidValue,
                    "hipMemPoolSetAttribute(attribute 15, not one of HIP's)");
        const size_t n = 1 << 18;
        void* p = nullptr;
        if (expect_code(s, h.hipMallocFromPoolAsync(&p, n * 4, pool, st), hipSuccess, "hipMallocFromPoolAsync")) {
            std::vector<uint32_t> host(n, 0);
            (void)h.hipMemsetD32Async(p, 0x12345678, n, st);
            (void)h.hipMemcpyAsync(host.data(), p, n * 4, hipMemcpyDeviceToHost, st);
            expect_code(s, h.hipFreeAsync(p, st), hipSuccess, "hipFreeAsync (pool memory)");
            expect_code(s, h.hipStreamSynchronize(st), hipSuccess, "hipStreamSynchronize(user stream)");
            bool all = true;
            for (uint32_t v : host) all = all && v == 0x12345678;
            expect(all, "pool memory written and read on the user stream");
        }
        expect_code(s, h.hipMemPoolDestroy(pool), hipSuccess, "hipMemPoolDestroy");
    }
    hipMemPoolProps dirty = props;
    dirty.reserved[0] = 1;
    expect_code(s, h.hipMemPoolCreate(&bad_pool, &dirty), hipErrorInvalidValue, "hipMemPoolCreate, reserved not zero");
    hipMemPoolProps elsewhere = props;
    int count = 0;
    (void)h.hipGetDeviceCount(&count);
    elsewhere.location.id = count;
    expect_code(s, h.hipMemPoolCreate(&bad_pool, &elsewhere), hipErrorInvalidDevice, "hipMemPoolCreate on device <count>");
    void* q = reinterpret_cast<void*>(1);
    expect_code(s, h.hipMallocAsync(&q, 0, st), hipSuccess, "hipMallocAsync(0)");
    expect(q == nullptr, "hipMallocAsync(0) gives NULL");
    if (expect_code(s, h.hipMallocAsync(&q, 1 << 20, st), hipSuccess, "hipMallocAsync (default pool)"))
        expect_code(s, h.hipFreeAsync(q, st), hipSuccess, "hipFreeAsync");
    expect_code(s, h.hipFreeAsync(nullptr, st), hipSuccess, "hipFreeAsync(NULL)");
    (void)h.hipGetLastError();
    expect_code(s, h.hipStreamSynchronize(st), hipSuccess, "hipStreamSynchronize");
    expect_code(s, h.hipStreamDestroy(blocking), hipSuccess, "hipStreamDestroy");
    expect_code(s, h.hipStreamDestroy(st), hipSuccess, "hipStreamDestroy");
}

void check_modules(const Shims& s) {
    const opkit_rocm::Hip& h = s.hip;
    section("modules and launches");
    hipModule_t m = nullptr;
    std::vector<unsigned char> junk(256, 0xa5);
    junk.back() = 0;  // a driver that tries it as PTX text must find an end
    const hipError_t j = h.hipModuleLoadData(&m, junk.data());
    expect(j == hipErrorInvalidImage || j == hipErrorInvalidKernelFile,
           "hipModuleLoadData(junk) -> 200 (hipErrorInvalidImage) or 218 (hipErrorInvalidKernelFile)",
           "got " + err(s, j));
    const char* bad_ptx = ".version 8.0\n.target sm_80\n.address_size 64\nthis is not PTX\n";
    expect_code(s, h.hipModuleLoadData(&m, bad_ptx), hipErrorInvalidKernelFile, "hipModuleLoadData(invalid PTX)");
    expect_code(s, h.hipModuleLoadData(&m, nullptr), hipErrorInvalidValue, "hipModuleLoadData(NULL)");
    expect_code(s, h.hipModuleUnload(nullptr), hipErrorInvalidHandle, "hipModuleUnload(NULL)");
    (void)h.hipGetLastError();
    if (!kFatbin.data) {
        skip("kernel loading and launches", "the self-test was built without nvcc (no kernel image)");
        return;
    }
    const int major = attribute(s, hipDeviceAttributeComputeCapabilityMajor);
    const Image& other = major == 8 ? kCubinSm90 : kCubinSm80;  // another GPU generation's code
    const hipError_t o = h.hipModuleLoadData(&m, other.data);
    if (o == hipErrorInvalidImage)
        note("a cubin for another GPU generation gave hipErrorInvalidImage, not hipErrorNoBinaryForGpu");
    else
        expect_code(s, o, hipErrorNoBinaryForGpu, format("hipModuleLoadData(cubin of %s)", major == 8 ? "sm_90" : "sm_80"));
    (void)h.hipGetLastError();

    if (!expect_code(s, h.hipModuleLoadData(&m, kFatbin.data), hipSuccess, "hipModuleLoadData(nvcc fatbin)")) return;
    hipFunction_t axpy = nullptr, scale = nullptr, warp = nullptr, block_sum = nullptr, missing = nullptr;
    expect_code(s, h.hipModuleGetFunction(&missing, m, "opkit_shim_no_such_kernel"), hipErrorNotFound,
                "hipModuleGetFunction(missing name)");
    expect_code(s, h.hipGetLastError(), hipErrorNotFound, "hipGetLastError returns it");
    expect_code(s, h.hipModuleGetFunction(&missing, m, nullptr), hipErrorInvalidValue,
                "hipModuleGetFunction(NULL name)");
    (void)h.hipGetLastError();
    bool found = expect_code(s, h.hipModuleGetFunction(&axpy, m, "opkit_shim_axpy"), hipSuccess, "get opkit_shim_axpy");
    found &= expect_code(s, h.hipModuleGetFunction(&scale, m, "opkit_shim_scale"), hipSuccess, "get opkit_shim_scale");
    found &= expect_code(s, h.hipModuleGetFunction(&warp, m, "opkit_shim_warp_size"), hipSuccess,
                         "get opkit_shim_warp_size");
    found &= expect_code(s, h.hipModuleGetFunction(&block_sum, m, "opkit_shim_block_sum"), hipSuccess,
                         "get opkit_shim_block_sum");
    if (!found) return;

    hipStream_t st = nullptr;
    if (!expect_code(s, h.hipStreamCreateWithFlags(&st, hipStreamNonBlocking), hipSuccess, "a user stream")) return;
    expect(s.launches(st) == 0, "a new stream has launched nothing");
    const uint64_t null_before = s.launches(nullptr), total_before = s.launches_total();

    const unsigned n = 10000;
    std::vector<float> x(n), y(n), out(n);
    for (unsigned i = 0; i < n; ++i) {
        x[i] = float(i % 97) * 0.25f;
        y[i] = float(i % 13) - 6.0f;
    }
    void *dx = nullptr, *dy = nullptr, *dw = nullptr, *dsum = nullptr;
    (void)h.hipMalloc(&dx, n * 4);
    (void)h.hipMalloc(&dy, n * 4);
    (void)h.hipMalloc(&dw, 4);
    (void)h.hipMalloc(&dsum, 64 * 4);
    (void)h.hipMemcpyAsync(dx, x.data(), n * 4, hipMemcpyHostToDevice, st);
    (void)h.hipMemcpyAsync(dy, y.data(), n * 4, hipMemcpyHostToDevice, st);

    // kernelParams, on the user stream.
    float a = 1.5f;
    unsigned count = n;
    void* params[] = {&a, &dx, &dy, &count};
    expect_code(s, h.hipModuleLaunchKernel(axpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, st, params, nullptr), hipSuccess,
                "launch axpy with kernelParams on the user stream");
    (void)h.hipMemcpyAsync(out.data(), dy, n * 4, hipMemcpyDeviceToHost, st);
    (void)h.hipStreamSynchronize(st);
    bool right = true;
    for (unsigned i = 0; i < n; ++i) right = right && out[i] == a * x[i] + y[i];
    expect(right, "axpy results");

    // extra: one struct by value, HIP's end marker (3).
    ScaleArgs args{static_cast<const float*>(dx), static_cast<float*>(dy), -2.0f, n};
    size_t args_size = sizeof args;
    void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &args_size,
                     HIP_LAUNCH_PARAM_END};
    expect_code(s, h.hipModuleLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, st, nullptr, extra), hipSuccess,
                "launch scale with extra (HIP_LAUNCH_PARAM_END = 3) on the user stream");
    (void)h.hipMemcpyAsync(out.data(), dy, n * 4, hipMemcpyDeviceToHost, st);
    (void)h.hipStreamSynchronize(st);
    right = true;
    for (unsigned i = 0; i < n; ++i) right = right && out[i] == -2.0f * x[i];
    expect(right, "scale results (the struct arrived intact)");

    // Wrong ways to pass arguments: refused, not launched, not counted.
    void* cuda_style[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &args_size, nullptr};
    expect_code(s, h.hipModuleLaunchKernel(scale, 1, 1, 1, 128, 1, 1, 0, st, nullptr, cuda_style),
                hipErrorInvalidValue, "extra ended by CUDA's marker (0)");
    expect_code(s, h.hipModuleLaunchKernel(scale, 1, 1, 1, 128, 1, 1, 0, st, params, extra), hipErrorInvalidValue,
                "kernelParams and extra together");
    expect_code(s, h.hipModuleLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, st, params, nullptr), hipErrorInvalidHandle,
                "launch of a NULL function");
    (void)h.hipGetLastError();

    // The null stream: warp size, and dynamic shared memory.
    void* wparams[] = {&dw};
    expect_code(s, h.hipModuleLaunchKernel(warp, 1, 1, 1, 64, 1, 1, 0, nullptr, wparams, nullptr), hipSuccess,
                "launch warp_size on the null stream");
    int device_warp = 0;
    (void)h.hipMemcpyAsync(&device_warp, dw, 4, hipMemcpyDeviceToHost, nullptr);
    (void)h.hipStreamSynchronize(nullptr);
    expect(device_warp == attribute(s, hipDeviceAttributeWarpSize), "the kernel's warpSize = the attribute (32)",
           format("got %d", device_warp));
    const unsigned blocks = (n + 255) / 256;
    void* sparams[] = {&dx, &dsum, &count};
    expect_code(s, h.hipModuleLaunchKernel(block_sum, blocks, 1, 1, 256, 1, 1, 256 * 4, nullptr, sparams, nullptr),
                hipSuccess, "launch block_sum with 1 KiB of dynamic shared memory");
    std::vector<float> sums(blocks);
    (void)h.hipMemcpyAsync(sums.data(), dsum, blocks * 4, hipMemcpyDeviceToHost, nullptr);
    (void)h.hipStreamSynchronize(nullptr);
    right = true;
    for (unsigned b = 0; b < blocks; ++b) {
        double want = 0;
        for (unsigned i = b * 256; i < std::min(n, (b + 1) * 256); ++i) want += x[i];
        right = right && std::fabs(sums[b] - want) <= 1e-3 * (1 + std::fabs(want));
    }
    expect(right, "block sums");

    section("launch counters (test-only exports)");
    expect(s.launches(st) == 2, "2 launches counted on the user stream", format("got %llu", (unsigned long long)s.launches(st)));
    expect(s.launches(nullptr) - null_before == 2, "2 launches counted on the null stream",
           format("got %llu", (unsigned long long)(s.launches(nullptr) - null_before)));
    expect(s.launches_total() - total_before == 4, "4 launches in total (refused ones not counted)",
           format("got %llu", (unsigned long long)(s.launches_total() - total_before)));

    (void)h.hipFree(dx);
    (void)h.hipFree(dy);
    (void)h.hipFree(dw);
    (void)h.hipFree(dsum);
    expect_code(s, h.hipStreamDestroy(st), hipSuccess, "hipStreamDestroy");
    expect_code(s, h.hipModuleUnload(m), hipSuccess, "hipModuleUnload");
}

void check_threads(const Shims& s) {
    const opkit_rocm::Hip& h = s.hip;
    section("threads: the current device and the last error are per thread");
    int dev = -1;
    hipError_t set = hipSuccess, last = hipSuccess, alloc = hipErrorUnknown, freed = hipErrorUnknown;
    std::thread t([&] {
        (void)h.hipGetDevice(&dev);
        set = h.hipSetDevice(99);
        last = h.hipGetLastError();
        void* p = nullptr;
        alloc = h.hipMalloc(&p, 1024);  // the primary context is made current on this thread too
        freed = h.hipFree(p);
    });
    t.join();
    expect(dev == 0, "a new thread starts on device 0");
    expect(set == hipErrorInvalidDevice && last == hipErrorInvalidDevice, "its failure is its own last error");
    expect_code(s, h.hipGetLastError(), hipSuccess, "this thread's last error is untouched");
    expect(alloc == hipSuccess && freed == hipSuccess, "hipMalloc/hipFree work on a fresh thread");
    expect_code(s, h.hipDeviceSynchronize(), hipSuccess, "hipDeviceSynchronize");
}

}  // namespace

void check_gpu_runtime(const Shims& s) {
    int count = 0;
    (void)s.hip.hipGetDeviceCount(&count);
    check_device(s, count);
    check_memory(s);
    check_streams_and_pools(s);
    check_modules(s);
    check_threads(s);
}

}  // namespace hipshim_test
