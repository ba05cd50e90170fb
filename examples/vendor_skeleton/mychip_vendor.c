/* The vendor of docs/vendor-guide.md, complete and built outside opkit's tree against an
 * installed opkit (tests/packaging/check_vendor_guide.sh builds it, runs the guide's
 * commands on it and installs it). It serves the CPU ("Serving the CPU" in the guide)
 * with one op, axpy, for contiguous f32 tensors, and declines everything else, which
 * then runs on the built-in defaults. A real vendor would call its hardware here. */
#include <opkit_vendor.h>

#include <stddef.h>

OPKIT_VENDOR_EXPORT const uint32_t opkit_vendor_abi_version = OPKIT_VENDOR_ABI_VERSION;

static _Thread_local const char* last_error = "";

OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_init(const opkit_vendor_host* host,
                                                   opkit_vendor_desc* desc) {
    (void)host;
    desc->name = "mychip";
    desc->version = "0.1.0";
    desc->device_type = OPKIT_DEVICE_CPU;
    desc->priority = 50;
    desc->device_count = 1; /* the CPU is always there */
    desc->detail = NULL;
    return OPKIT_OK;
}

OPKIT_VENDOR_EXPORT void opkit_vendor_shutdown(void) {}

OPKIT_VENDOR_EXPORT const char* opkit_vendor_last_error(void) { return last_error; }

/* Elements of a tensor whose layout is plain row-major (strides NULL or packed), else -1. */
static int64_t packed_elements(const opkit_tensor* t) {
    int64_t n = 1;
    for (int32_t d = t->ndim - 1; d >= 0; --d) {
        if (t->strides && t->strides[d] != n) return -1;
        n *= t->shape[d];
    }
    return n;
}

static int is_f32(const opkit_tensor* t) {
    return t->dtype.code == OPKIT_DTYPE_FLOAT && t->dtype.bits == 32 && t->dtype.lanes == 1;
}

/* libopkit has validated shapes, dtypes and aliasing before this runs (guide, "ops"). */
OPKIT_VENDOR_EXPORT opkit_status opkit_vendor_axpy(float alpha, const opkit_tensor* x,
                                                   opkit_tensor* y, opkit_stream stream) {
    (void)stream; /* the CPU has no streams */
    const int64_t n = packed_elements(x);
    if (!is_f32(x) || n < 0 || packed_elements(y) != n) {
        last_error = "mychip serves contiguous f32 axpy only";
        return OPKIT_ERROR_UNSUPPORTED; /* declined before touching y: the default runs */
    }
    const float* xs = (const float*)((const char*)x->data + x->byte_offset);
    float* ys = (float*)((char*)y->data + y->byte_offset);
    for (int64_t i = 0; i < n; ++i) ys[i] += alpha * xs[i];
    return OPKIT_OK;
}
