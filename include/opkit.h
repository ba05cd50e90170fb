/*
 * opkit.h — the whole public C API of opkit.
 *
 * opkit runs the operators of LLM training and inference on whatever accelerator a
 * machine has. Applications link libopkit once; vendor backends are separate shared
 * objects loaded at run time (see opkit_vendor.h). Anything not declared in this header
 * is not a published API.
 *
 * Conventions
 *   - Every call that can fail returns opkit_status; OPKIT_OK (0) is success. The values
 *     are pinned forever. opkit_last_error_message() explains the last failure on the
 *     calling thread.
 *   - No C++ exception, abort() or exit() ever crosses this API.
 *   - ABI stable within a major version: functions and enum values are only added; a
 *     changed function gets a new _v2 name; structs the caller fills start with
 *     struct_size.
 *   - A failed call leaves every output untouched.
 */
#ifndef OPKIT_H_6A1F3C
#define OPKIT_H_6A1F3C

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  if defined(OPKIT_BUILDING_LIBRARY)
#    define OPKIT_API __declspec(dllexport)
#  else
#    define OPKIT_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define OPKIT_API __attribute__((visibility("default")))
#else
#  define OPKIT_API
#endif

/* ---------------------------------------------------------------- versions ------ */

#define OPKIT_VERSION_MAJOR 1
#define OPKIT_VERSION_MINOR 2
#define OPKIT_VERSION_PATCH 0
#define OPKIT_VERSION_NUMBER \
    ((OPKIT_VERSION_MAJOR << 16) | (OPKIT_VERSION_MINOR << 8) | OPKIT_VERSION_PATCH)

/** Run-time version: (major << 16) | (minor << 8) | patch. Never initializes. */
OPKIT_API uint32_t opkit_version(void);

/* ---------------------------------------------------------------- status -------- */

typedef int32_t opkit_status;

#define OPKIT_OK                       0
#define OPKIT_ERROR_INVALID_ARGUMENT   1 /* malformed call: NULLs, shapes, aliasing, ranges */
#define OPKIT_ERROR_UNSUPPORTED        2 /* well-formed, but nobody can serve it (dtype, ...) */
#define OPKIT_ERROR_OUT_OF_MEMORY      3
#define OPKIT_ERROR_DEVICE             4 /* the device runtime reported an error */
#define OPKIT_ERROR_VENDOR             5 /* a vendor misbehaved (threw, bad status, ...) */
#define OPKIT_ERROR_NOT_FOUND          6 /* unknown op name, no vendor for a device type */
#define OPKIT_ERROR_INTERNAL           7

/** A static, never-NULL name for a status ("OPKIT_ERROR_UNSUPPORTED", ...). */
OPKIT_API const char* opkit_status_string(opkit_status status);

/** A sentence about the last failure on the calling thread; "" when there was none.
 *  Valid until the next opkit call on this thread. Never initializes. */
OPKIT_API const char* opkit_last_error_message(void);

/* ---------------------------------------------------------------- logging ------- */

#define OPKIT_LOG_TRACE 0
#define OPKIT_LOG_DEBUG 1
#define OPKIT_LOG_INFO  2
#define OPKIT_LOG_WARN  3
#define OPKIT_LOG_ERROR 4
#define OPKIT_LOG_OFF   5

typedef void (*opkit_log_fn)(int32_t level, const char* message, void* user_data);

/** Messages below level are dropped. Never initializes. */
OPKIT_API void opkit_set_log_level(int32_t level);
/** NULL restores the default sink (stderr). Never initializes. */
OPKIT_API void opkit_set_log_callback(opkit_log_fn fn, void* user_data);

/* ---------------------------------------------------------------- tensors ------- */

/* Device types use DLPack's numbers. 12 (kDLExtDev, exported by torch_npu) is also
 * accepted as Ascend. */
#define OPKIT_DEVICE_CPU    1
#define OPKIT_DEVICE_CUDA   2
#define OPKIT_DEVICE_ROCM   10
#define OPKIT_DEVICE_ASCEND 21

/* dtype codes use DLPack's numbers. */
#define OPKIT_DTYPE_INT    0
#define OPKIT_DTYPE_UINT   1
#define OPKIT_DTYPE_FLOAT  2
#define OPKIT_DTYPE_BFLOAT 4

typedef struct opkit_device {
    int32_t device_type;
    int32_t device_id;
} opkit_device;

typedef struct opkit_dtype {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} opkit_dtype;

/** Layout-identical to DLPack's DLTensor: a DLTensor* may be passed by cast.
 *  strides are in elements; NULL means contiguous (row-major). Every op requires the
 *  innermost dimension to be contiguous and accepts any other strides. data + byte_offset
 *  must be a multiple of the element size (OPKIT_ERROR_UNSUPPORTED otherwise). */
typedef struct opkit_tensor {
    void* data;
    opkit_device device;
    int32_t ndim;
    opkit_dtype dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
} opkit_tensor;

/** The native stream of the device's runtime (CUstream, hipStream_t, aclrtStream).
 *  NULL is the device's default stream. */
typedef void* opkit_stream;

/* ---------------------------------------------------------------- runtime ------- */

#define OPKIT_VENDOR_READY         0
#define OPKIT_VENDOR_NO_DEVICE     1
#define OPKIT_VENDOR_INCOMPATIBLE  2
#define OPKIT_VENDOR_LOAD_FAILED   3
#define OPKIT_VENDOR_INIT_FAILED   4
#define OPKIT_VENDOR_DISABLED      5

/** Options for opkit_init. NULL strings and -1 integers fall back to the environment. */
typedef struct opkit_init_options {
    uint32_t struct_size;        /* sizeof(opkit_init_options) */
    const char* vendor_path;     /* like OPKIT_VENDOR_PATH: colon-separated dirs or files */
    const char* vendors;         /* like OPKIT_VENDORS: allow-list and order */
    const char* vendors_disable; /* like OPKIT_VENDORS_DISABLE */
    int32_t host_fallback;       /* 0, 1, or -1 for OPKIT_HOST_FALLBACK */
    int32_t log_level;           /* OPKIT_LOG_*, or -1 for OPKIT_LOG_LEVEL */
} opkit_init_options;

typedef struct opkit_vendor_info {
    uint32_t struct_size;   /* caller sets sizeof(opkit_vendor_info) */
    const char* name;
    const char* path;
    const char* version;    /* "" when the vendor never reported one */
    int32_t device_type;    /* 0 when unknown (the vendor never initialized) */
    int32_t device_count;
    int32_t state;          /* OPKIT_VENDOR_* */
    const char* detail;     /* why, for any state but READY; for READY, the vendor's note
                               (e.g. a device it counts but cannot use) or "" */
    int32_t op_count;       /* op symbols the vendor exports */
} opkit_vendor_info;

/** NULL = defaults. Optional: the first call of any other API function initializes.
 *  Fails with OPKIT_ERROR_INVALID_ARGUMENT when already initialized. */
OPKIT_API opkit_status opkit_init(const opkit_init_options* options);
/** Unloads vendors; opkit_init may follow. Must not race with calls in flight. */
OPKIT_API void opkit_shutdown(void);

OPKIT_API int32_t opkit_vendor_count(void);
/** Strings stay valid until opkit_shutdown. */
OPKIT_API opkit_status opkit_vendor_get_info(int32_t index, opkit_vendor_info* info);
OPKIT_API int32_t opkit_op_count(void);
/** "rms_norm_forward", ...; NULL for a bad index. */
OPKIT_API const char* opkit_op_name(int32_t index);
/** The op's parameters, in order, each with its kind: "softmax_forward(in x, out y,
 *  stream stream)". Kinds: in, opt_in (may be NULL), index (an int32/int64 tensor), out,
 *  opt_out (may be NULL), inout (read, then written), f32, i32, i64 (scalars: float,
 *  int32_t, int64_t), stream. For bindings that declare the ops from the library they
 *  load. NULL for a bad index. Never initializes. Added in 1.1. */
OPKIT_API const char* opkit_op_schema(int32_t index);
/** Who serves op_name on device_type first: a vendor name, "default" (the built-in CPU
 *  kernels) or "host-fallback". OPKIT_ERROR_NOT_FOUND for an unknown op,
 *  OPKIT_ERROR_UNSUPPORTED when nobody serves it on that device type. */
OPKIT_API opkit_status opkit_op_resolve(const char* op_name, int32_t device_type,
                                        const char** vendor_name);
/** Devices of a type: 1 for OPKIT_DEVICE_CPU, else what its first ready vendor found. */
OPKIT_API int32_t opkit_device_count(int32_t device_type);

/** What dispatch did for the last op call (opkit_<op>) made on the calling thread.
 *  Added in 1.1. */
typedef struct opkit_dispatch_info {
    uint32_t struct_size;          /* caller sets sizeof(opkit_dispatch_info) */
    const char* op;                /* "softmax_forward", ... */
    int32_t device_type;           /* the device the call's tensors are on; 0 when the call
                                      failed before its device was known (validation) */
    opkit_status status;           /* what the op call returned */
    const char* served_by;         /* who ran it: a vendor name, "default" (the built-in CPU
                                      kernels), "host-fallback", or "" when nobody did
                                      (validation failed, or every candidate declined) */
    int32_t declined;              /* candidates that declined the call (returned
                                      OPKIT_ERROR_UNSUPPORTED) before it was served */
    const char* first_declined_by; /* the first of them: a vendor name or "default";
                                      "" when none declined */
} opkit_dispatch_info;

/** Fills *info about the last op call on this thread, e.g. to tell a call a vendor served
 *  from one it declined and the CPU defaults then served (what opkit-conformance needs).
 *  Per thread and cheap: dispatch records it as it goes; this call only reads it. Strings
 *  stay valid until opkit_shutdown. OPKIT_ERROR_NOT_FOUND when this thread made no op
 *  call since the library was (last) initialized; OPKIT_ERROR_INVALID_ARGUMENT for a NULL
 *  info or a struct_size below the 1.1 size. Never initializes. On success the thread's
 *  opkit_last_error_message() stays what the op call left. Added in 1.1. */
OPKIT_API opkit_status opkit_last_dispatch(opkit_dispatch_info* info);

/* ---------------------------------------------------------------- memory -------- */

OPKIT_API opkit_status opkit_malloc(opkit_device device, size_t bytes, void** ptr);
/** NULL ptr is a no-op. */
OPKIT_API opkit_status opkit_free(opkit_device device, void* ptr);
OPKIT_API opkit_status opkit_memcpy(void* dst, opkit_device dst_device, const void* src,
                                    opkit_device src_device, size_t bytes,
                                    opkit_stream stream);
OPKIT_API opkit_status opkit_stream_create(opkit_device device, opkit_stream* stream);
OPKIT_API opkit_status opkit_stream_destroy(opkit_device device, opkit_stream stream);
/** NULL stream = the whole device. */
OPKIT_API opkit_status opkit_synchronize(opkit_device device, opkit_stream stream);

/* ---------------------------------------------------------------- ops ----------- */

#define OPKIT_REDUCTION_NONE 0
#define OPKIT_REDUCTION_MEAN 1
#define OPKIT_REDUCTION_SUM  2

#define OPKIT_GELU_NONE 0
#define OPKIT_GELU_TANH 1

/* Every op matches PyTorch's semantics for the same arguments and accumulates in fp32.
 * "rows" = all dimensions but the last, flattened; N = the last dimension. All float
 * tensors of one call share one dtype (f32, f16 or bf16), except the saved statistics
 * (rstd, mean, lse) and the loss tensors, which are fp32. Device ops are asynchronous on
 * `stream`; CPU ops complete before returning. */

/** y = x * rstd * (weight + weight_offset); rstd = 1/sqrt(mean(x^2) + eps) per row.
 *  weight [N] or NULL (no scaling); rstd fp32 [rows] or NULL. y may be x. */
OPKIT_API opkit_status opkit_rms_norm_forward(const opkit_tensor* x,
                                              const opkit_tensor* weight, float eps,
                                              float weight_offset, opkit_tensor* y,
                                              opkit_tensor* rstd, opkit_stream stream);
/** rstd is the forward's (required). dweight [N] is written, or NULL. */
OPKIT_API opkit_status opkit_rms_norm_backward(const opkit_tensor* dy, const opkit_tensor* x,
                                               const opkit_tensor* weight,
                                               const opkit_tensor* rstd, float weight_offset,
                                               opkit_tensor* dx, opkit_tensor* dweight,
                                               opkit_stream stream);
OPKIT_API opkit_status opkit_layer_norm_forward(const opkit_tensor* x,
                                                const opkit_tensor* weight,
                                                const opkit_tensor* bias, float eps,
                                                opkit_tensor* y, opkit_tensor* mean,
                                                opkit_tensor* rstd, opkit_stream stream);
/** mean and rstd are the forward's (required); dweight/dbias [N] written, or NULL. */
OPKIT_API opkit_status opkit_layer_norm_backward(const opkit_tensor* dy,
                                                 const opkit_tensor* x,
                                                 const opkit_tensor* weight,
                                                 const opkit_tensor* mean,
                                                 const opkit_tensor* rstd, opkit_tensor* dx,
                                                 opkit_tensor* dweight, opkit_tensor* dbias,
                                                 opkit_stream stream);
OPKIT_API opkit_status opkit_softmax_forward(const opkit_tensor* x, opkit_tensor* y,
                                             opkit_stream stream);
OPKIT_API opkit_status opkit_softmax_backward(const opkit_tensor* dy, const opkit_tensor* y,
                                              opkit_tensor* dx, opkit_stream stream);
OPKIT_API opkit_status opkit_swiglu_forward(const opkit_tensor* a, const opkit_tensor* b,
                                            opkit_tensor* y, opkit_stream stream);
OPKIT_API opkit_status opkit_swiglu_backward(const opkit_tensor* dy, const opkit_tensor* a,
                                             const opkit_tensor* b, opkit_tensor* da,
                                             opkit_tensor* db, opkit_stream stream);
OPKIT_API opkit_status opkit_geglu_forward(const opkit_tensor* a, const opkit_tensor* b,
                                           int32_t approximate, opkit_tensor* y,
                                           opkit_stream stream);
OPKIT_API opkit_status opkit_geglu_backward(const opkit_tensor* dy, const opkit_tensor* a,
                                            const opkit_tensor* b, int32_t approximate,
                                            opkit_tensor* da, opkit_tensor* db,
                                            opkit_stream stream);
/** x [B,T,H,D] (any strides), cos/sin [T,D] or [B,T,D]; NeoX rotate-half. */
OPKIT_API opkit_status opkit_rope_forward(const opkit_tensor* x, const opkit_tensor* cos,
                                          const opkit_tensor* sin, opkit_tensor* y,
                                          opkit_stream stream);
OPKIT_API opkit_status opkit_rope_backward(const opkit_tensor* dy, const opkit_tensor* cos,
                                           const opkit_tensor* sin, opkit_tensor* dx,
                                           opkit_stream stream);
/** logits [rows,V]; target [rows] int32/int64; loss fp32 [rows] (NONE) or [] (MEAN/SUM);
 *  lse fp32 [rows] or NULL; dlogits NULL or d(loss)/d(logits), may alias logits. */
OPKIT_API opkit_status opkit_cross_entropy_forward(const opkit_tensor* logits,
                                                   const opkit_tensor* target,
                                                   int64_t ignore_index,
                                                   float label_smoothing, int32_t reduction,
                                                   opkit_tensor* loss, opkit_tensor* lse,
                                                   opkit_tensor* dlogits,
                                                   opkit_stream stream);
/** dloss fp32 [] (MEAN/SUM) or [rows] (NONE); lse NULL = recomputed. */
OPKIT_API opkit_status opkit_cross_entropy_backward(const opkit_tensor* dloss,
                                                    const opkit_tensor* logits,
                                                    const opkit_tensor* target,
                                                    const opkit_tensor* lse,
                                                    int64_t ignore_index,
                                                    float label_smoothing, int32_t reduction,
                                                    opkit_tensor* dlogits,
                                                    opkit_stream stream);
/** weight [V,D]; ids any shape, int32/int64; y [ids..., D]. */
OPKIT_API opkit_status opkit_embedding_forward(const opkit_tensor* weight,
                                               const opkit_tensor* ids, opkit_tensor* y,
                                               opkit_stream stream);
/** dweight [V,D] is zeroed, then accumulated in fp32; padding_idx -1 = none. */
OPKIT_API opkit_status opkit_embedding_backward(const opkit_tensor* dy,
                                                const opkit_tensor* ids, int64_t padding_idx,
                                                opkit_tensor* dweight, opkit_stream stream);
/** c = alpha * op(a) * op(b) + beta * c; 2-D, or 3-D batched (batch 1 broadcasts).
 *  With beta == 0, c is not read. */
OPKIT_API opkit_status opkit_matmul(const opkit_tensor* a, const opkit_tensor* b,
                                    opkit_tensor* c, float alpha, float beta,
                                    int32_t trans_a, int32_t trans_b, opkit_stream stream);
/** y += alpha * x, same shape and dtype. */
OPKIT_API opkit_status opkit_axpy(float alpha, const opkit_tensor* x, opkit_tensor* y,
                                  opkit_stream stream);
/** rope on a query and a key tensor in one call (since 1.2): the same as
 *  opkit_rope_forward(q, cos, sin, q_out) and then opkit_rope_forward(k, cos, sin, k_out),
 *  which a vendor may run as one launch. q [B,T,Hq,D] and k [B,T,Hk,D] (any strides; the
 *  same B, T, D and dtype, any head counts), cos/sin [T,D] or [B,T,D] as for rope_forward;
 *  q_out like q, k_out like k; each output may be its own input (in place) and must not
 *  overlap anything else. On a device whose vendor does not export it (vendor ABI 1.0),
 *  libopkit runs the two rope calls through that vendor (docs/ops.md); the call's
 *  opkit_last_dispatch() then still names this op and names that vendor as served_by. */
OPKIT_API opkit_status opkit_rope_qk_forward(const opkit_tensor* q, const opkit_tensor* k,
                                             const opkit_tensor* cos, const opkit_tensor* sin,
                                             opkit_tensor* q_out, opkit_tensor* k_out,
                                             opkit_stream stream);
/** The backward of opkit_rope_qk_forward (since 1.2): dq = rope_backward(dq_out), dk =
 *  rope_backward(dk_out), the same shapes and rules. */
OPKIT_API opkit_status opkit_rope_qk_backward(const opkit_tensor* dq_out,
                                              const opkit_tensor* dk_out,
                                              const opkit_tensor* cos, const opkit_tensor* sin,
                                              opkit_tensor* dq, opkit_tensor* dk,
                                              opkit_stream stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OPKIT_H_6A1F3C */
