// The emulator's core (libascend_emu.so): the state every fake CANN library shares — the
// runtime (init, devices, "device" memory, streams, error text), nnopbase's objects
// (tensors, scalars, arrays, executors) and the phase-1/phase-2 machinery of the aclnn
// ops — plus the failure injection and statistics of emu_control.h.
//
// The types here are the emulator's own reading of the CANN API (ascend-audit.md), written
// apart from the vendor's declarations (vendors/ascend/acl_decls.h) so that a mistake in
// one is not silently shared by the other.
//
// "Device" memory is host memory handed out by aclrtMalloc, so the tests run anywhere.
// Streams are queues: work enqueued on a stream runs when something synchronizes it, not
// before — a caller that reads results without synchronizing, frees memory queued work
// still uses, or relies on ordering between streams sees it fail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#define EMU_API __attribute__((visibility("default")))

using aclError = int;
using aclnnStatus = int32_t;
using aclrtStream = void*;

namespace emu {

// aclDataType values (audit:201) and aclFormat values (audit:203).
enum DataType : int {
    DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
    DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_BF16 = 27
};
constexpr int kFormatNd = 2;

// aclError and aclnnStatus values (audit:129-132, 215); 507035 is the aivec exception of
// llama.cpp #15330 (audit:308-311).
constexpr aclError kOk = 0, kInvalidParam = 100000, kUninitialize = 100001, kRepeatInitialize = 100002,
                   kFailure = 500001, kRtParamInvalid = 107000, kRtInvalidDevice = 107001,
                   kRtContextNull = 107002, kRtStreamContext = 107003, kRtMemoryAllocation = 207001,
                   kRtNoDevice = 207004, kAivecException = 507035;
constexpr aclnnStatus kNnParamNullptr = 161001, kNnParamInvalid = 161002, kNnInner = 561000,
                      kNnOppPathNotFound = 561107;

EMU_API bool valid_dtype(int dtype);
EMU_API size_t dtype_size(int dtype);
EMU_API const char* dtype_name(int dtype);
EMU_API bool valid_format(int format);

}  // namespace emu

// The emulator's objects behind nnopbase's opaque handles.
struct aclTensor {
    uint64_t magic;
    int dtype;
    int format;
    int ndim;
    int64_t dims[8];
    int64_t strides[8];  // elements
    int64_t offset;      // elements from data
    std::vector<int64_t> storage;
    char* data;
};
struct aclScalar {
    uint64_t magic;
    int dtype;
    double value;
};
struct aclIntArray {
    uint64_t magic;
    std::vector<int64_t> values;
};
struct aclBoolArray {
    uint64_t magic;
    std::vector<bool> values;
};
struct aclOpExecutor;

namespace emu {

// A tensor as a kernel sees it: a copy of the descriptor, taken at phase 1.
struct EMU_API T {
    int dtype = DT_FLOAT;
    int ndim = 0;
    int64_t dims[8] = {};
    int64_t strides[8] = {};
    int64_t offset = 0;
    char* data = nullptr;
    bool present = false;  // false for an optional tensor passed as NULL

    int64_t numel() const;
    int64_t dim(int d) const { return dims[d < 0 ? ndim + d : d]; }
    std::vector<int64_t> shape() const { return std::vector<int64_t>(dims, dims + ndim); }
    bool contiguous() const;
    char* at(int64_t flat) const;  // address of logical (row-major) element `flat`
};
EMU_API T tref(const aclTensor* t);

// Values in logical row-major order; integers exactly, floats rounded once on write.
EMU_API std::vector<double> read(const T& t);
EMU_API std::vector<int64_t> read_ints(const T& t);
EMU_API void write(const T& t, const std::vector<double>& v);
EMU_API double round_to(int dtype, double v);  // what storing v in dtype keeps

// ---------------------------------------------------------------- state / errors -----
// Records the thread's error text (what aclGetRecentErrMsg returns) and returns code.
EMU_API int fail(int code, const std::string& message);
// The same for a strictness check: also counted and kept as the last violation.
EMU_API int violation(int code, const std::string& message);
// Notes that `symbol`, exported by the fake library containing `address`, was called.
EMU_API void served(const char* symbol, const void* address);

// Injected failures (emu_control.h).
EMU_API bool inject(const std::string& key);            // "no_device", "init_error", ...
EMU_API int inject_code(const std::string& key);        // "ws:RmsNorm" -> 561003, or 0
EMU_API bool initialized();
EMU_API int current_device();                           // -1 when none is set on this thread
EMU_API int device_count();

// ---------------------------------------------------------------- runtime ------------
EMU_API aclError rt_init(const char* config);
EMU_API aclError rt_finalize_reference(uint64_t* refs);
EMU_API const char* rt_recent_error();
EMU_API aclError rt_set_device(int32_t id);
EMU_API aclError rt_get_device(int32_t* id);
EMU_API aclError rt_get_device_count(uint32_t* count);
EMU_API aclError rt_synchronize_device();
EMU_API aclError rt_malloc(void** ptr, size_t size, int policy);
EMU_API aclError rt_free(void* ptr);
EMU_API aclError rt_memcpy(void* dst, size_t dest_max, const void* src, size_t count, int kind);
EMU_API aclError rt_memcpy_async(void* dst, size_t dest_max, const void* src, size_t count, int kind,
                                 aclrtStream stream);
EMU_API aclError rt_create_stream(aclrtStream* stream);
EMU_API aclError rt_destroy_stream(aclrtStream stream);
EMU_API aclError rt_synchronize_stream(aclrtStream stream);
EMU_API const char* rt_soc_name();

// ---------------------------------------------------------------- nnopbase -----------
EMU_API aclTensor* nn_create_tensor(const int64_t* dims, uint64_t ndim, int dtype, const int64_t* strides,
                                    int64_t offset, int format, const int64_t* storage, uint64_t storage_ndim,
                                    void* data);
EMU_API aclnnStatus nn_destroy_tensor(const aclTensor* t);
EMU_API aclScalar* nn_create_scalar(void* value, int dtype);
EMU_API aclnnStatus nn_destroy_scalar(const aclScalar* s);
EMU_API aclIntArray* nn_create_int_array(const int64_t* values, uint64_t size);
EMU_API aclnnStatus nn_destroy_int_array(const aclIntArray* a);
EMU_API aclBoolArray* nn_create_bool_array(const bool* values, uint64_t size);
EMU_API aclnnStatus nn_destroy_bool_array(const aclBoolArray* a);
EMU_API aclnnStatus nn_set_repeatable(aclOpExecutor* e);
EMU_API aclnnStatus nn_destroy_executor(aclOpExecutor* e);
EMU_API aclnnStatus nn_init(const char* config);

// ---------------------------------------------------------------- aclnn ops ----------
// Phase 1 of an op: checks its arguments one by one (the first failure wins), then
// creates the executor. Each op's GetWorkspaceSize (tests/ascend/emu/ops) uses one.
class EMU_API Phase1 {
public:
    Phase1(const char* op, const void* symbol_address);
    bool ok() const { return code_ == 0; }
    // A tensor argument: a live handle, ND format, 32-byte aligned data, the view inside
    // its storage, the storage inside one live allocation of the current device. NULL is
    // allowed only when optional (then T::present is false).
    T tensor(const aclTensor* t, const char* name, bool optional = false);
    double scalar(const aclScalar* s, const char* name);
    std::vector<int64_t> ints(const aclIntArray* a, const char* name);
    std::vector<bool> bools(const aclBoolArray* a, const char* name);
    // A rule of the op: when `holds` is false the call fails with 161002 and `what`.
    bool require(bool holds, const std::string& what);
    bool dtype_in(const T& t, const char* name, std::initializer_list<int> allowed);
    bool same_shape(const T& a, const char* an, const T& b, const char* bn);
    bool shape_is(const T& t, const char* name, const std::vector<int64_t>& shape);
    // Creates the executor: `kernel` runs when the stream reaches the task and returns ""
    // or the text of a device-side failure (an index out of range, ...).
    aclnnStatus done(uint64_t workspace, uint64_t* workspace_size, aclOpExecutor** executor,
                     std::function<std::string()> kernel);
    const char* op() const { return op_; }

private:
    const char* op_;
    int code_ = 0;
    std::vector<const void*> handles_;                 // must still be alive at phase 2
    std::vector<std::pair<char*, size_t>> ranges_;      // memory the task uses
};

// Phase 2 of every op: the executor, the workspace and the stream are checked, the task
// is enqueued, the executor consumed.
EMU_API aclnnStatus phase2(const char* op, void* workspace, uint64_t size, aclOpExecutor* executor,
                           aclrtStream stream, const void* symbol_address);

// The workspace an op asks for: nonzero for most ops (so the vendor must provide it, and
// the task overwrites it to show overlaps), 0 for some (so NULL workspaces are seen too).
EMU_API uint64_t workspace_for(const char* op, int64_t elements);

}  // namespace emu
