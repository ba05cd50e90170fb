// HIP-over-CUDA self-test: loading the shims (see shims.h).
#include "shims.h"

#include "check.h"

#include <dlfcn.h>

namespace hipshim_test {

std::string hip_path(const std::string& dir) { return dir + "/hip/libamdhip64.so.5"; }
std::string hipblaslt_path(const std::string& dir) { return dir + "/hipblaslt/libhipblaslt.so.0"; }
std::string rocblas_path(const std::string& dir) { return dir + "/rocblas/librocblas.so.4"; }

std::vector<std::string> hip_contract() {
    std::vector<std::string> names = {
#define HIPSHIM_TEST_NAME(name) #name,
        OPKIT_HIP_FUNCTIONS(HIPSHIM_TEST_NAME)
#undef HIPSHIM_TEST_NAME
    };
    // The explicitly typed ones (hip_api.h), and the two test-only counters.
    for (const char* n : {"hipMalloc", "hipMallocAsync", "hipMallocFromPoolAsync", OPKIT_HIP_PROPS_SYMBOL,
                          "opkit_hipshim_launches", "opkit_hipshim_launches_total"})
        names.push_back(n);
    return names;
}

std::vector<std::string> hipblaslt_contract() {
    return {
#define HIPSHIM_TEST_NAME(name, pointer) #name,
        OPKIT_HIPBLASLT_FUNCTIONS(HIPSHIM_TEST_NAME)
#undef HIPSHIM_TEST_NAME
    };
}

std::vector<std::string> rocblas_contract() {
    return {
#define HIPSHIM_TEST_NAME(name, pointer) #name,
        OPKIT_ROCBLAS_FUNCTIONS(HIPSHIM_TEST_NAME)
#undef HIPSHIM_TEST_NAME
    };
}

namespace {

void* open(const std::string& path, std::string* why) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        *why = e ? e : ("dlopen(" + path + ") failed");
    }
    return h;
}

template <class Fn>
void resolve(void* lib, const char* name, Fn* out, std::vector<std::string>* missing) {
    *out = reinterpret_cast<Fn>(dlsym(lib, name));
    if (!*out) missing->push_back(name);
}

}  // namespace

bool load_shims(const std::string& dir, Shims* out, std::string* why) {
    out->dir = dir;
    void* hip = open(hip_path(dir), why);
    if (!hip) return false;
    void* lt = open(hipblaslt_path(dir), why);
    if (!lt) return false;
    void* rb = open(rocblas_path(dir), why);
    if (!rb) return false;
#define HIPSHIM_TEST_RESOLVE(name) resolve(hip, #name, &out->hip.name, &out->missing);
    OPKIT_HIP_FUNCTIONS(HIPSHIM_TEST_RESOLVE)
    HIPSHIM_TEST_RESOLVE(hipMalloc)
    HIPSHIM_TEST_RESOLVE(hipMallocAsync)
    HIPSHIM_TEST_RESOLVE(hipMallocFromPoolAsync)
#undef HIPSHIM_TEST_RESOLVE
    resolve(hip, OPKIT_HIP_PROPS_SYMBOL, &out->hip.hipGetDeviceProperties, &out->missing);
    resolve(hip, "opkit_hipshim_launches", &out->launches, &out->missing);
    resolve(hip, "opkit_hipshim_launches_total", &out->launches_total, &out->missing);
#define HIPSHIM_TEST_RESOLVE(name, pointer) resolve(lt, #name, &out->lt.name, &out->missing);
    OPKIT_HIPBLASLT_FUNCTIONS(HIPSHIM_TEST_RESOLVE)
#undef HIPSHIM_TEST_RESOLVE
#define HIPSHIM_TEST_RESOLVE(name, pointer) resolve(rb, #name, &out->rb.name, &out->missing);
    OPKIT_ROCBLAS_FUNCTIONS(HIPSHIM_TEST_RESOLVE)
#undef HIPSHIM_TEST_RESOLVE
    out->hip.library = hip_path(dir);
    return true;
}

std::string err(const Shims& s, hipError_t e) {
    const char* name = s.hip.hipGetErrorName ? s.hip.hipGetErrorName(e) : "?";
    return std::to_string(int(e)) + " (" + (name ? name : "NULL") + ")";
}

bool expect_code(const Shims& s, hipError_t got, hipError_t want, const std::string& what) {
    return expect(got == want, what + " -> " + err(s, want), "got " + err(s, got));
}

bool real_libcuda_present() {
    void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (!h) h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    return h != nullptr;  // left open: the driver is not meant to be unloaded
}

}  // namespace hipshim_test
