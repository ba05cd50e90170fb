/*
 * opkit_vendor.h — the vendor ABI: what a backend shared object exports.
 *
 * A vendor is a file named libopkit_vendor_<name>.so exporting, with C linkage:
 *   - opkit_vendor_abi_version: a const uint32_t data symbol = OPKIT_VENDOR_ABI_VERSION,
 *     read with dlsym and checked before any vendor function is called (the major must
 *     match libopkit's; the minor may be lower);
 *   - opkit_vendor_init and opkit_vendor_shutdown;
 *   - for a non-CPU device: the memory and stream functions below;
 *   - per op, optionally, opkit_vendor_<op> with exactly the public op's parameters.
 *     Only the op symbols a vendor exports override the built-in defaults.
 *
 * libopkit validates every call before a vendor sees it: vendors receive only
 * well-formed calls (dtypes consistent, shapes matching, innermost stride 1, no forbidden
 * aliasing, one device). An op may decline a call it cannot serve by returning
 * OPKIT_ERROR_UNSUPPORTED before touching any output; dispatch then tries the next
 * candidate. See docs/vendor-guide.md.
 */
#ifndef OPKIT_VENDOR_H_9C27D1
#define OPKIT_VENDOR_H_9C27D1

#include "opkit.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OPKIT_VENDOR_ABI_MAJOR 1
#define OPKIT_VENDOR_ABI_MINOR 1
#define OPKIT_VENDOR_ABI_VERSION ((OPKIT_VENDOR_ABI_MAJOR << 16) | OPKIT_VENDOR_ABI_MINOR)

#if defined(__GNUC__)
#  define OPKIT_VENDOR_EXPORT __attribute__((visibility("default")))
#else
#  define OPKIT_VENDOR_EXPORT
#endif

/** What libopkit gives a vendor at init. */
typedef struct opkit_vendor_host {
    uint32_t struct_size;
    uint32_t abi_version;   /* OPKIT_VENDOR_ABI_VERSION of the host */
    uint32_t opkit_version; /* opkit_version() of the host */
    /* Logs through libopkit's sink, prefixed with the vendor's name. Thread-safe. */
    void (*log)(int32_t level, const char* message);
} opkit_vendor_host;

/** What a vendor reports at init. Zeroed by the host, struct_size set. */
typedef struct opkit_vendor_desc {
    uint32_t struct_size;
    const char* name;      /* should equal the <name> of its file name */
    const char* version;
    int32_t device_type;   /* OPKIT_DEVICE_* it serves */
    int32_t priority;      /* higher first, when OPKIT_VENDORS gives no order */
    int32_t device_count;  /* 0 = no usable device (then detail says why) */
    const char* detail;    /* why, when device_count is 0; else an optional note or NULL */
} opkit_vendor_desc;

/* The vendor's strings stay valid until opkit_vendor_shutdown. */

typedef opkit_status (*opkit_vendor_init_fn)(const opkit_vendor_host* host,
                                            opkit_vendor_desc* desc);
typedef void (*opkit_vendor_shutdown_fn)(void);
typedef const char* (*opkit_vendor_last_error_fn)(void);

/* Prototypes a vendor implements (declared so the compiler checks its definitions). */
OPKIT_VENDOR_EXPORT extern const uint32_t opkit_vendor_abi_version;
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_init(const opkit_vendor_host* host,
                                                   opkit_vendor_desc* desc);
OPKIT_VENDOR_EXPORT void opkit_vendor_shutdown(void);
/* Optional: a sentence about the vendor's last non-OK status on the calling thread
 * ("cuLaunchKernel failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"). libopkit copies it
 * into opkit_last_error_message() after any vendor call that did not return OPKIT_OK. */
OPKIT_VENDOR_EXPORT const char* opkit_vendor_last_error(void);

/* Memory and streams (required for a non-CPU device). Same parameters as the public
 * functions; the host routes by device type. */
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_malloc(opkit_device device, size_t bytes,
                                                     void** ptr);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_free(opkit_device device, void* ptr);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_memcpy(void* dst, opkit_device dst_device,
                                                     const void* src,
                                                     opkit_device src_device, size_t bytes,
                                                     opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_stream_create(opkit_device device,
                                                            opkit_stream* stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_stream_destroy(opkit_device device,
                                                             opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_synchronize(opkit_device device,
                                                          opkit_stream stream);

/* Ops: each optional; exactly the public op's parameters. */
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_rms_norm_forward(
    const opkit_tensor* x, const opkit_tensor* weight, float eps, float weight_offset,
    opkit_tensor* y, opkit_tensor* rstd, opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_rms_norm_backward(
    const opkit_tensor* dy, const opkit_tensor* x, const opkit_tensor* weight,
    const opkit_tensor* rstd, float weight_offset, opkit_tensor* dx, opkit_tensor* dweight,
    opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_layer_norm_forward(
    const opkit_tensor* x, const opkit_tensor* weight, const opkit_tensor* bias, float eps,
    opkit_tensor* y, opkit_tensor* mean, opkit_tensor* rstd, opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_layer_norm_backward(
    const opkit_tensor* dy, const opkit_tensor* x, const opkit_tensor* weight,
    const opkit_tensor* mean, const opkit_tensor* rstd, opkit_tensor* dx,
    opkit_tensor* dweight, opkit_tensor* dbias, opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_softmax_forward(const opkit_tensor* x,
                                                              opkit_tensor* y,
                                                              opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_softmax_backward(const opkit_tensor* dy,
                                                               const opkit_tensor* y,
                                                               opkit_tensor* dx,
                                                               opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_swiglu_forward(const opkit_tensor* a,
                                                             const opkit_tensor* b,
                                                             opkit_tensor* y,
                                                             opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_swiglu_backward(
    const opkit_tensor* dy, const opkit_tensor* a, const opkit_tensor* b, opkit_tensor* da,
    opkit_tensor* db, opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_geglu_forward(const opkit_tensor* a,
                                                            const opkit_tensor* b,
                                                            int32_t approximate,
                                                            opkit_tensor* y,
                                                            opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_geglu_backward(
    const opkit_tensor* dy, const opkit_tensor* a, const opkit_tensor* b,
    int32_t approximate, opkit_tensor* da, opkit_tensor* db, opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_rope_forward(const opkit_tensor* x,
                                                           const opkit_tensor* cos,
                                                           const opkit_tensor* sin,
                                                           opkit_tensor* y,
                                                           opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_rope_backward(const opkit_tensor* dy,
                                                            const opkit_tensor* cos,
                                                            const opkit_tensor* sin,
                                                            opkit_tensor* dx,
                                                            opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_cross_entropy_forward(
    const opkit_tensor* logits, const opkit_tensor* target, int64_t ignore_index,
    float label_smoothing, int32_t reduction, opkit_tensor* loss, opkit_tensor* lse,
    opkit_tensor* dlogits, opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_cross_entropy_backward(
    const opkit_tensor* dloss, const opkit_tensor* logits, const opkit_tensor* target,
    const opkit_tensor* lse, int64_t ignore_index, float label_smoothing, int32_t reduction,
    opkit_tensor* dlogits, opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_embedding_forward(const opkit_tensor* weight,
                                                                const opkit_tensor* ids,
                                                                opkit_tensor* y,
                                                                opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_embedding_backward(const opkit_tensor* dy,
                                                                 const opkit_tensor* ids,
                                                                 int64_t padding_idx,
                                                                 opkit_tensor* dweight,
                                                                 opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_matmul(const opkit_tensor* a,
                                                     const opkit_tensor* b, opkit_tensor* c,
                                                     float alpha, float beta,
                                                     int32_t trans_a, int32_t trans_b,
                                                     opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_axpy(float alpha, const opkit_tensor* x,
                                                   opkit_tensor* y, opkit_stream stream);
/* Since vendor ABI 1.1; a vendor without it keeps the default (two rope calls). */
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_rope_qk_forward(
    const opkit_tensor* q, const opkit_tensor* k, const opkit_tensor* cos,
    const opkit_tensor* sin, opkit_tensor* q_out, opkit_tensor* k_out, opkit_stream stream);
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_rope_qk_backward(
    const opkit_tensor* dq_out, const opkit_tensor* dk_out, const opkit_tensor* cos,
    const opkit_tensor* sin, opkit_tensor* dq, opkit_tensor* dk, opkit_stream stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OPKIT_VENDOR_H_9C27D1 */
