// The part of CANN's C API the ascend vendor calls, declared in opkit's own words.
//
// No CANN header is copied or included (their licences forbid it: ascend-audit.md §J);
// what is written here are interface facts — names, parameter order and types, enum and
// status values. Each declaration names the line of the audit that checked it against
// the real headers (CANN 8.1.RC1's install tree and the open-sourced 9.x repositories):
// "audit:N" is line N of ../shared/reference/ascend-audit.md (the reference that corrects
// ascend.md). Every op signature below is identical in 8.1 and 9.x (audit:248, 369).
//
// C++ only (acl_meta.h is C++-only too, audit:92). Nothing here is linked: every function
// is a pointer filled by dlsym (cann_library.cpp), so the vendor needs no CANN install to
// build and no CANN library to load.
#pragma once

#include <cstddef>
#include <cstdint>

namespace acl {

// ---------------------------------------------------------------- runtime types ----
using Error = int;       // aclError (audit:127)
using Stream = void*;    // aclrtStream; NULL is the current device's default stream (audit:127, 169)
constexpr Error kSuccess = 0;  // ACL_SUCCESS (audit:128)

// aclError values the vendor tells apart (audit:129-132).
constexpr Error kInvalidParam = 100000;        // ACL_ERROR_INVALID_PARAM
constexpr Error kUninitialize = 100001;        // ACL_ERROR_UNINITIALIZE
constexpr Error kRepeatInitialize = 100002;    // ACL_ERROR_REPEAT_INITIALIZE: someone (torch_npu) ran aclInit first
constexpr Error kBadAlloc = 200000;            // ACL_ERROR_BAD_ALLOC
constexpr Error kRtContextNull = 107002;       // ACL_ERROR_RT_CONTEXT_NULL
constexpr Error kRtMemoryAllocation = 207001;  // ACL_ERROR_RT_MEMORY_ALLOCATION
constexpr Error kRtNoDevice = 207004;          // ACL_ERROR_RT_NO_DEVICE

// aclrtMemMallocPolicy (audit:177): the first value is all the vendor asks for.
enum class MallocPolicy : int { HugeFirst = 0 };
// aclrtMemcpyKind (audit:178).
enum class MemcpyKind : int { HostToHost = 0, HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3 };

// aclDataType, the values opkit's dtypes map to (audit:201).
enum class DataType : int {
    Float = 0,    // ACL_FLOAT
    Float16 = 1,  // ACL_FLOAT16
    Int32 = 3,    // ACL_INT32
    Int64 = 9,    // ACL_INT64
    Bool = 12,    // ACL_BOOL
    BFloat16 = 27 // ACL_BF16
};
// aclFormat (audit:203): ND is the only one opkit passes.
enum class Format : int { ND = 2 };

// ---------------------------------------------------------------- aclnn types ------
// Opaque objects of libnnopbase (audit:186).
struct aclTensor;
struct aclScalar;
struct aclIntArray;
struct aclBoolArray;
struct aclOpExecutor;
using Status = int32_t;  // aclnnStatus (audit:186)

// aclnnStatus values (audit:215).
constexpr Status kNnSuccess = 0;          // ACLNN_SUCCESS
constexpr Status kNnParamNullptr = 161001; // ACLNN_ERR_PARAM_NULLPTR
constexpr Status kNnParamInvalid = 161002; // ACLNN_ERR_PARAM_INVALID
constexpr Status kNnRuntimeError = 361001; // ACLNN_ERR_RUNTIME_ERROR
// 561000..561112: ACLNN_ERR_INNER and its family (infershape, tiling, kernel not found,
// executor, OPP path / kernel package not found). A workspace query failing with one of
// them means "this op is not available here" (audit:117, 314-316): the vendor declines.
constexpr bool is_inner_error(Status s) { return s >= 561000 && s < 562000; }

// Matmul cubeMathType (audit:242): 0 keeps the dtype (fp32 stays fp32; f16/bf16 inputs
// accumulate in fp32 in the cube unit). 1 and 3 compute fp32 as HF32, 2 as fp16 (the
// llama.cpp #14441 garbage, audit:312-313): opkit never passes them.
constexpr int8_t kCubeKeepDtype = 0;

// GeGlu approximate: the header comment says 0 = tanh, 1 = none; the docs and the tiling
// code say 0 = erf (none), 1 = tanh. The tiling code runs, so it wins (audit:59-64).
constexpr int64_t kGeluErf = 0;
constexpr int64_t kGeluTanh = 1;
// RotaryPositionEmbedding mode 0 = rotate-half (NeoX) (audit:234).
constexpr int64_t kRopeHalf = 0;

// ---------------------------------------------------------------- runtime API ------
// libacl_rt.so (9.x) or libascendcl.so (all versions) (audit:108, 330).
// aclError aclInit(const char* configPath) — configPath may be NULL (audit:138, 170)
using aclInit_t = Error (*)(const char* configPath);
// aclError aclFinalizeReference(uint64_t* refCount) — 9.x only (audit:140); the vendor
// never calls aclFinalize, which zeroes a count it shares with torch_npu (audit:83-91)
using aclFinalizeReference_t = Error (*)(uint64_t* refCount);
// const char* aclGetRecentErrMsg() — returns and clears this thread's text; NULL when
// there is none (audit:141, 171)
using aclGetRecentErrMsg_t = const char* (*)();
// aclError aclrtSetDevice(int32_t deviceId) (audit:142)
using aclrtSetDevice_t = Error (*)(int32_t deviceId);
// aclError aclrtGetDevice(int32_t* deviceId) (audit:144)
using aclrtGetDevice_t = Error (*)(int32_t* deviceId);
// aclError aclrtGetDeviceCount(uint32_t* count) (audit:145)
using aclrtGetDeviceCount_t = Error (*)(uint32_t* count);
// aclError aclrtSynchronizeDevice(void) (audit:146)
using aclrtSynchronizeDevice_t = Error (*)();
// aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) (audit:147, 165)
using aclrtMalloc_t = Error (*)(void** devPtr, size_t size, MallocPolicy policy);
// aclError aclrtFree(void* devPtr) (audit:148)
using aclrtFree_t = Error (*)(void* devPtr);
// aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
//                      aclrtMemcpyKind kind) (audit:150)
using aclrtMemcpy_t = Error (*)(void* dst, size_t destMax, const void* src, size_t count, MemcpyKind kind);
// aclError aclrtMemcpyAsync(..., aclrtMemcpyKind kind, aclrtStream stream) — device to
// device on the chip needs 64-byte aligned src and dst (audit:151, 166)
using aclrtMemcpyAsync_t = Error (*)(void* dst, size_t destMax, const void* src, size_t count, MemcpyKind kind,
                                     Stream stream);
// aclError aclrtCreateStream(aclrtStream* stream) (audit:154)
using aclrtCreateStream_t = Error (*)(Stream* stream);
// aclError aclrtDestroyStream(aclrtStream stream) — synchronize it first (audit:156, 167)
using aclrtDestroyStream_t = Error (*)(Stream stream);
// aclError aclrtSynchronizeStream(aclrtStream stream) (audit:157)
using aclrtSynchronizeStream_t = Error (*)(Stream stream);
// const char* aclrtGetSocName() — optional, only for the version string (audit:159)
using aclrtGetSocName_t = const char* (*)();

// X(name, required): the runtime symbols, in the order they are resolved.
#define OPKIT_ACL_RUNTIME_API(X)  \
    X(aclInit, true)              \
    X(aclFinalizeReference, false) \
    X(aclGetRecentErrMsg, true)   \
    X(aclrtSetDevice, true)       \
    X(aclrtGetDevice, true)       \
    X(aclrtGetDeviceCount, true)  \
    X(aclrtSynchronizeDevice, true) \
    X(aclrtMalloc, true)          \
    X(aclrtFree, true)            \
    X(aclrtMemcpy, true)          \
    X(aclrtMemcpyAsync, true)     \
    X(aclrtCreateStream, true)    \
    X(aclrtDestroyStream, true)   \
    X(aclrtSynchronizeStream, true) \
    X(aclrtGetSocName, false)

// ---------------------------------------------------------------- nnopbase API -----
// libnnopbase.so, all versions (audit:110, 331).
// aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum,
//     aclDataType dataType, const int64_t* stride, int64_t offset, aclFormat format,
//     const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) — strides and
//     offset in elements; tensorData a 32-byte aligned device address; NULL on failure
//     (audit:187, 192-193)
using aclCreateTensor_t = aclTensor* (*)(const int64_t* viewDims, uint64_t viewDimsNum, DataType dataType,
                                         const int64_t* stride, int64_t offset, Format format,
                                         const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData);
// aclnnStatus aclDestroyTensor(const aclTensor* tensor) (audit:189)
using aclDestroyTensor_t = Status (*)(const aclTensor* tensor);
// aclScalar* aclCreateScalar(void* value, aclDataType dataType) — value is a host pointer,
// read at creation (audit:188, 196)
using aclCreateScalar_t = aclScalar* (*)(void* value, DataType dataType);
// aclnnStatus aclDestroyScalar(const aclScalar* scalar) (audit:189)
using aclDestroyScalar_t = Status (*)(const aclScalar* scalar);
// aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) — copies (audit:188, 196)
using aclCreateIntArray_t = aclIntArray* (*)(const int64_t* value, uint64_t size);
// aclnnStatus aclDestroyIntArray(const aclIntArray* array) (audit:189)
using aclDestroyIntArray_t = Status (*)(const aclIntArray* array);
// aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) (audit:188)
using aclCreateBoolArray_t = aclBoolArray* (*)(const bool* value, uint64_t size);
// aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) (audit:189: present in
// acl_meta.h though ascend.md omits it)
using aclDestroyBoolArray_t = Status (*)(const aclBoolArray* array);
// aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) and
// aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) (audit:190, 195): how an
// executor that will never run (a later step of a composition failed) is released.
using aclSetAclOpExecutorRepeatable_t = Status (*)(aclOpExecutor* executor);
using aclDestroyAclOpExecutor_t = Status (*)(aclOpExecutor* executor);
// aclnnStatus aclnnInit(const char* configPath) — once per process (audit:191, 217)
using aclnnInit_t = Status (*)(const char* configPath);

#define OPKIT_ACLNN_BASE_API(X)          \
    X(aclCreateTensor, true)             \
    X(aclDestroyTensor, true)            \
    X(aclCreateScalar, true)             \
    X(aclDestroyScalar, true)            \
    X(aclCreateIntArray, true)           \
    X(aclDestroyIntArray, true)          \
    X(aclCreateBoolArray, true)          \
    X(aclDestroyBoolArray, true)         \
    X(aclSetAclOpExecutorRepeatable, true) \
    X(aclDestroyAclOpExecutor, true)     \
    X(aclnnInit, true)

// ---------------------------------------------------------------- aclnn ops --------
// Every op is two functions (audit:209-210, 216):
//   aclnnStatus aclnn<Op>GetWorkspaceSize(<inputs, attributes, outputs>,
//                                         uint64_t* workspaceSize, aclOpExecutor** executor);
//   aclnnStatus aclnn<Op>(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
//                         aclrtStream stream);
// The second runs the executor once, asynchronously on the stream, and frees it.
using aclnnRun_t = Status (*)(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, Stream stream);
#define OPKIT_ACLNN_WS_TAIL uint64_t *workspaceSize, aclOpExecutor **executor

// RmsNorm(x, gamma, double epsilon, yOut, rstdOut) — rstd fp32, x's rank with the
// normalized dims 1 (audit:218)
using aclnnRmsNormGetWorkspaceSize_t = Status (*)(const aclTensor* x, const aclTensor* gamma, double epsilon,
                                                  const aclTensor* yOut, const aclTensor* rstdOut,
                                                  OPKIT_ACLNN_WS_TAIL);
// RmsNormGrad(dy, x, rstd, gamma, dxOut, dgammaOut) — 2-8 dims, rstd = x_shape[0:n],
// dgamma fp32 (audit:219)
using aclnnRmsNormGradGetWorkspaceSize_t = Status (*)(const aclTensor* dy, const aclTensor* x,
                                                      const aclTensor* rstd, const aclTensor* gamma,
                                                      const aclTensor* dxOut, const aclTensor* dgammaOut,
                                                      OPKIT_ACLNN_WS_TAIL);
// LayerNorm(input, normalizedShape, weightOptional, biasOptional, double eps, out,
//           meanOutOptional, rstdOutOptional) (audit:220)
using aclnnLayerNormGetWorkspaceSize_t = Status (*)(const aclTensor* input, const aclIntArray* normalizedShape,
                                                    const aclTensor* weightOptional, const aclTensor* biasOptional,
                                                    double eps, aclTensor* out, aclTensor* meanOutOptional,
                                                    aclTensor* rstdOutOptional, OPKIT_ACLNN_WS_TAIL);
// LayerNormBackward(gradOut, input, normalizedShape, mean, rstd, weightOptional,
//     biasOptional, outputMask, gradInputOut, gradWeightOut, gradBiasOut) (audit:221)
using aclnnLayerNormBackwardGetWorkspaceSize_t = Status (*)(
    const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* mean,
    const aclTensor* rstd, const aclTensor* weightOptional, const aclTensor* biasOptional,
    const aclBoolArray* outputMask, aclTensor* gradInputOut, aclTensor* gradWeightOut, aclTensor* gradBiasOut,
    OPKIT_ACLNN_WS_TAIL);
// Softmax(self, int64_t dim, out) (audit:222)
using aclnnSoftmaxGetWorkspaceSize_t = Status (*)(const aclTensor* self, int64_t dim, aclTensor* out,
                                                  OPKIT_ACLNN_WS_TAIL);
// SoftmaxBackward(gradOutput, output, int64_t dim, out) (audit:223)
using aclnnSoftmaxBackwardGetWorkspaceSize_t = Status (*)(const aclTensor* gradOutput, const aclTensor* output,
                                                          int64_t dim, aclTensor* out, OPKIT_ACLNN_WS_TAIL);
// LogSoftmax(self, int64_t dim, out) (audit:224)
using aclnnLogSoftmaxGetWorkspaceSize_t = Status (*)(const aclTensor* self, int64_t dim, aclTensor* out,
                                                     OPKIT_ACLNN_WS_TAIL);
// SwiGlu(x, int64_t dim, out) — out = Swish(first half) * second half; contiguous only
// (audit:225)
using aclnnSwiGluGetWorkspaceSize_t = Status (*)(const aclTensor* x, int64_t dim, const aclTensor* out,
                                                 OPKIT_ACLNN_WS_TAIL);
// SwiGluGrad(yGrad, x, int64_t dim, out) (audit:226)
using aclnnSwiGluGradGetWorkspaceSize_t = Status (*)(const aclTensor* yGrad, const aclTensor* x, int64_t dim,
                                                     const aclTensor* out, OPKIT_ACLNN_WS_TAIL);
// GeGlu(self, int64_t dim, int64_t approximate, out, outGelu) — out = first half *
// Gelu(second half); outGelu is a required output (audit:230; ascend.md §4)
using aclnnGeGluGetWorkspaceSize_t = Status (*)(const aclTensor* self, int64_t dim, int64_t approximate,
                                                aclTensor* out, aclTensor* outGelu, OPKIT_ACLNN_WS_TAIL);
// GeGluBackward(gradOutput, self, gelu, int64_t dim, int64_t approximate, gradInput)
// (audit:231)
using aclnnGeGluBackwardGetWorkspaceSize_t = Status (*)(const aclTensor* gradOutput, const aclTensor* self,
                                                        const aclTensor* gelu, int64_t dim, int64_t approximate,
                                                        aclTensor* gradInput, OPKIT_ACLNN_WS_TAIL);
// RotaryPositionEmbedding(x, cos, sin, int64_t mode, out) — no header in 8.x, the symbol
// is there (audit:65-72, 234)
using aclnnRotaryPositionEmbeddingGetWorkspaceSize_t = Status (*)(const aclTensor* x, const aclTensor* cos,
                                                                  const aclTensor* sin, int64_t mode,
                                                                  aclTensor* out, OPKIT_ACLNN_WS_TAIL);
// RotaryPositionEmbeddingGrad(dy, cos, sin, xOptional, int64_t mode, dxOut, dcosOut,
// dsinOut) — signature from the op doc only, no header anywhere (audit:235)
using aclnnRotaryPositionEmbeddingGradGetWorkspaceSize_t = Status (*)(
    const aclTensor* dy, const aclTensor* cos, const aclTensor* sin, const aclTensor* xOptional, int64_t mode,
    const aclTensor* dxOut, const aclTensor* dcosOut, const aclTensor* dsinOut, OPKIT_ACLNN_WS_TAIL);
// CrossEntropyLoss(input, target, weightOptional, char* reductionOptional, int64_t
//     ignoreIndex, double labelSmoothing, double lseSquareScaleForZloss, bool returnZloss,
//     lossOut, logProbOut, zlossOut, lseForZlossOut) (audit:236)
using aclnnCrossEntropyLossGetWorkspaceSize_t = Status (*)(
    const aclTensor* input, const aclTensor* target, const aclTensor* weightOptional, char* reductionOptional,
    int64_t ignoreIndex, double labelSmoothing, double lseSquareScaleForZloss, bool returnZloss,
    const aclTensor* lossOut, const aclTensor* logProbOut, const aclTensor* zlossOut,
    const aclTensor* lseForZlossOut, OPKIT_ACLNN_WS_TAIL);
// CrossEntropyLossGrad(gradLoss, logProb, target, weightOptional, gradZlossOptional,
//     lseForZlossOptional, char* reductionOptional, int64_t ignoreIndex, double
//     labelSmoothing, double lseSquareScaleForZloss, out) (audit:237)
using aclnnCrossEntropyLossGradGetWorkspaceSize_t = Status (*)(
    const aclTensor* gradLoss, const aclTensor* logProb, const aclTensor* target, const aclTensor* weightOptional,
    const aclTensor* gradZlossOptional, const aclTensor* lseForZlossOptional, char* reductionOptional,
    int64_t ignoreIndex, double labelSmoothing, double lseSquareScaleForZloss, const aclTensor* out,
    OPKIT_ACLNN_WS_TAIL);
// Embedding(weight, indices, out) (audit:240)
using aclnnEmbeddingGetWorkspaceSize_t = Status (*)(const aclTensor* weight, const aclTensor* indices,
                                                    const aclTensor* out, OPKIT_ACLNN_WS_TAIL);
// EmbeddingDenseBackward(grad, indices, uint64_t numWeights, uint64_t paddingIdx, bool
//     scaleGradByFreq, out) (audit:241)
using aclnnEmbeddingDenseBackwardGetWorkspaceSize_t = Status (*)(const aclTensor* grad, const aclTensor* indices,
                                                                 uint64_t numWeights, uint64_t paddingIdx,
                                                                 bool scaleGradByFreq, const aclTensor* out,
                                                                 OPKIT_ACLNN_WS_TAIL);
// Mm(self, mat2, out, int8_t cubeMathType) (audit:242)
using aclnnMmGetWorkspaceSize_t = Status (*)(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                             int8_t cubeMathType, OPKIT_ACLNN_WS_TAIL);
// BatchMatMul(self, mat2, out, int8_t cubeMathType) (audit:243)
using aclnnBatchMatMulGetWorkspaceSize_t = Status (*)(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                                      int8_t cubeMathType, OPKIT_ACLNN_WS_TAIL);
// Addmm(self, mat1, mat2, beta, alpha, out, int8_t cubeMathType) (audit:243)
using aclnnAddmmGetWorkspaceSize_t = Status (*)(const aclTensor* self, const aclTensor* mat1, const aclTensor* mat2,
                                                const aclScalar* beta, const aclScalar* alpha, aclTensor* out,
                                                int8_t cubeMathType, OPKIT_ACLNN_WS_TAIL);
// Baddbmm(self, batch1, batch2, beta, alpha, out, int8_t cubeMathType) (audit:243)
using aclnnBaddbmmGetWorkspaceSize_t = Status (*)(const aclTensor* self, const aclTensor* batch1,
                                                  const aclTensor* batch2, const aclScalar* beta,
                                                  const aclScalar* alpha, aclTensor* out, int8_t cubeMathType,
                                                  OPKIT_ACLNN_WS_TAIL);
// InplaceAdd(const aclTensor* selfRef, other, alpha): selfRef += alpha * other — axpy;
// there is no aclnn Axpy (audit:95-97, 244)
using aclnnInplaceAddGetWorkspaceSize_t = Status (*)(const aclTensor* selfRef, const aclTensor* other,
                                                     const aclScalar* alpha, OPKIT_ACLNN_WS_TAIL);
// Adds(self, const aclScalar* other, alpha, out): out = self + alpha * other (audit:244)
using aclnnAddsGetWorkspaceSize_t = Status (*)(const aclTensor* self, const aclScalar* other, const aclScalar* alpha,
                                               aclTensor* out, OPKIT_ACLNN_WS_TAIL);
// InplaceMuls(aclTensor* selfRef, const aclScalar* other) (audit:245)
using aclnnInplaceMulsGetWorkspaceSize_t = Status (*)(aclTensor* selfRef, const aclScalar* other,
                                                      OPKIT_ACLNN_WS_TAIL);
// Cast(self, aclDataType dtype, out) (audit:246): also the vendor's strided copy (same
// dtype in and out).
using aclnnCastGetWorkspaceSize_t = Status (*)(const aclTensor* self, DataType dtype, aclTensor* out,
                                               OPKIT_ACLNN_WS_TAIL);
#undef OPKIT_ACLNN_WS_TAIL

// X(Name): every aclnn op the vendor may call; aclnn<Name>GetWorkspaceSize and
// aclnn<Name> are resolved as a pair, per op (cann_library.cpp).
#define OPKIT_ACLNN_OPS(X)           \
    X(RmsNorm)                       \
    X(RmsNormGrad)                   \
    X(LayerNorm)                     \
    X(LayerNormBackward)             \
    X(Softmax)                       \
    X(SoftmaxBackward)               \
    X(LogSoftmax)                    \
    X(SwiGlu)                        \
    X(SwiGluGrad)                    \
    X(GeGlu)                         \
    X(GeGluBackward)                 \
    X(RotaryPositionEmbedding)       \
    X(RotaryPositionEmbeddingGrad)   \
    X(CrossEntropyLoss)              \
    X(CrossEntropyLossGrad)          \
    X(Embedding)                     \
    X(EmbeddingDenseBackward)        \
    X(Mm)                            \
    X(BatchMatMul)                   \
    X(Addmm)                         \
    X(Baddbmm)                       \
    X(InplaceAdd)                    \
    X(Adds)                          \
    X(InplaceMuls)                   \
    X(Cast)

enum class Op : int {
#define OPKIT_ACLNN_ENUM_(name) name,
    OPKIT_ACLNN_OPS(OPKIT_ACLNN_ENUM_)
#undef OPKIT_ACLNN_ENUM_
};
#define OPKIT_ACLNN_COUNT_(name) +1
constexpr int kOpCount = 0 OPKIT_ACLNN_OPS(OPKIT_ACLNN_COUNT_);
#undef OPKIT_ACLNN_COUNT_

// "RmsNorm", ... indexed by Op.
inline constexpr const char* kOpNames[kOpCount] = {
#define OPKIT_ACLNN_NAME_(name) #name,
    OPKIT_ACLNN_OPS(OPKIT_ACLNN_NAME_)
#undef OPKIT_ACLNN_NAME_
};

// The phase-1 function type of each op: WorkspaceFn<Op::RmsNorm> is
// aclnnRmsNormGetWorkspaceSize_t.
template <Op id> struct OpTraits;
#define OPKIT_ACLNN_TRAITS_(name) \
    template <> struct OpTraits<Op::name> { using WorkspaceFn = aclnn##name##GetWorkspaceSize_t; };
OPKIT_ACLNN_OPS(OPKIT_ACLNN_TRAITS_)
#undef OPKIT_ACLNN_TRAITS_
template <Op id> using WorkspaceFn = typename OpTraits<id>::WorkspaceFn;

}  // namespace acl
