/*
 * ops.h — the op spec: every op of include/opkit.h, its parameters in order, each with
 * its kind. Written by hand here and in opkit.h (prototype and documentation) only;
 * everything else that must know an op's parameters is derived from this file (the C++
 * side through spec/op_spec.hpp; Python through opkit_op_schema(); the tests check
 * opkit.h and opkit_vendor.h against it). docs/adding-an-op.md walks through adding one.
 *
 * OPKIT_FOR_EACH_OP(X) calls X(name) for every op, in the order of opkit_op_name().
 * OPKIT_PARAMS_<name>(P) calls P(kind, parameter) for each parameter, in order:
 *
 *   kind     C type                 meaning
 *   in       const opkit_tensor*    a tensor the op reads (required)
 *   opt_in   const opkit_tensor*    a tensor the op reads, or NULL
 *   index    const opkit_tensor*    an int32/int64 index tensor the op reads (required)
 *   out      opkit_tensor*          a tensor the op writes (required)
 *   opt_out  opkit_tensor*          a tensor the op writes, or NULL
 *   inout    opkit_tensor*          a tensor the op reads and then writes (required)
 *   f32      float                  a scalar
 *   i32      int32_t                a scalar (an enum value or a flag)
 *   i64      int64_t                a scalar (an index value)
 *   stream   opkit_stream           the stream; always the last parameter
 *
 * This file is plain preprocessor text, parsed by tests/spec/check_spec.py as well: keep
 * one "#define OPKIT_PARAMS_<name>(P)" per op and only P(kind, name) items after it.
 */
#ifndef OPKIT_SPEC_OPS_H_
#define OPKIT_SPEC_OPS_H_

#define OPKIT_FOR_EACH_OP(X) \
    X(rms_norm_forward)      \
    X(rms_norm_backward)     \
    X(layer_norm_forward)    \
    X(layer_norm_backward)   \
    X(softmax_forward)       \
    X(softmax_backward)      \
    X(swiglu_forward)        \
    X(swiglu_backward)       \
    X(geglu_forward)         \
    X(geglu_backward)        \
    X(rope_forward)          \
    X(rope_backward)         \
    X(cross_entropy_forward) \
    X(cross_entropy_backward)\
    X(embedding_forward)     \
    X(embedding_backward)    \
    X(matmul)                \
    X(axpy)                  \
    X(rope_qk_forward)       \
    X(rope_qk_backward)

#define OPKIT_PARAMS_rms_norm_forward(P) \
    P(in, x) P(opt_in, weight) P(f32, eps) P(f32, weight_offset) P(out, y) P(opt_out, rstd) \
    P(stream, stream)
#define OPKIT_PARAMS_rms_norm_backward(P) \
    P(in, dy) P(in, x) P(opt_in, weight) P(in, rstd) P(f32, weight_offset) P(out, dx) \
    P(opt_out, dweight) P(stream, stream)
#define OPKIT_PARAMS_layer_norm_forward(P) \
    P(in, x) P(opt_in, weight) P(opt_in, bias) P(f32, eps) P(out, y) P(opt_out, mean) \
    P(opt_out, rstd) P(stream, stream)
#define OPKIT_PARAMS_layer_norm_backward(P) \
    P(in, dy) P(in, x) P(opt_in, weight) P(in, mean) P(in, rstd) P(out, dx) P(opt_out, dweight) \
    P(opt_out, dbias) P(stream, stream)
#define OPKIT_PARAMS_softmax_forward(P) \
    P(in, x) P(out, y) P(stream, stream)
#define OPKIT_PARAMS_softmax_backward(P) \
    P(in, dy) P(in, y) P(out, dx) P(stream, stream)
#define OPKIT_PARAMS_swiglu_forward(P) \
    P(in, a) P(in, b) P(out, y) P(stream, stream)
#define OPKIT_PARAMS_swiglu_backward(P) \
    P(in, dy) P(in, a) P(in, b) P(out, da) P(out, db) P(stream, stream)
#define OPKIT_PARAMS_geglu_forward(P) \
    P(in, a) P(in, b) P(i32, approximate) P(out, y) P(stream, stream)
#define OPKIT_PARAMS_geglu_backward(P) \
    P(in, dy) P(in, a) P(in, b) P(i32, approximate) P(out, da) P(out, db) P(stream, stream)
#define OPKIT_PARAMS_rope_forward(P) \
    P(in, x) P(in, cos) P(in, sin) P(out, y) P(stream, stream)
#define OPKIT_PARAMS_rope_backward(P) \
    P(in, dy) P(in, cos) P(in, sin) P(out, dx) P(stream, stream)
#define OPKIT_PARAMS_cross_entropy_forward(P) \
    P(in, logits) P(index, target) P(i64, ignore_index) P(f32, label_smoothing) \
    P(i32, reduction) P(opt_out, loss) P(opt_out, lse) P(opt_out, dlogits) P(stream, stream)
#define OPKIT_PARAMS_cross_entropy_backward(P) \
    P(in, dloss) P(in, logits) P(index, target) P(opt_in, lse) P(i64, ignore_index) \
    P(f32, label_smoothing) P(i32, reduction) P(out, dlogits) P(stream, stream)
#define OPKIT_PARAMS_embedding_forward(P) \
    P(in, weight) P(index, ids) P(out, y) P(stream, stream)
#define OPKIT_PARAMS_embedding_backward(P) \
    P(in, dy) P(index, ids) P(i64, padding_idx) P(out, dweight) P(stream, stream)
#define OPKIT_PARAMS_matmul(P) \
    P(in, a) P(in, b) P(inout, c) P(f32, alpha) P(f32, beta) P(i32, trans_a) P(i32, trans_b) \
    P(stream, stream)
#define OPKIT_PARAMS_axpy(P) \
    P(f32, alpha) P(in, x) P(inout, y) P(stream, stream)
#define OPKIT_PARAMS_rope_qk_forward(P) \
    P(in, q) P(in, k) P(in, cos) P(in, sin) P(out, q_out) P(out, k_out) P(stream, stream)
#define OPKIT_PARAMS_rope_qk_backward(P) \
    P(in, dq_out) P(in, dk_out) P(in, cos) P(in, sin) P(out, dq) P(out, dk) P(stream, stream)

/* The C type of each kind: OPKIT_KIND_TYPE(kind). */
#define OPKIT_KIND_TYPE(kind) OPKIT_KIND_TYPE_##kind
#define OPKIT_KIND_TYPE_in const opkit_tensor*
#define OPKIT_KIND_TYPE_opt_in const opkit_tensor*
#define OPKIT_KIND_TYPE_index const opkit_tensor*
#define OPKIT_KIND_TYPE_out opkit_tensor*
#define OPKIT_KIND_TYPE_opt_out opkit_tensor*
#define OPKIT_KIND_TYPE_inout opkit_tensor*
#define OPKIT_KIND_TYPE_f32 float
#define OPKIT_KIND_TYPE_i32 int32_t
#define OPKIT_KIND_TYPE_i64 int64_t
#define OPKIT_KIND_TYPE_stream opkit_stream

/* An op's parameter declarations, "const opkit_tensor* x, ..., opkit_stream stream", and
 * its argument list, "x, ..., stream" (the stream, last, takes no comma). */
#define OPKIT_PARAM_DECLS(name) OPKIT_PARAMS_##name(OPKIT_PARAM_DECL_)
#define OPKIT_PARAM_NAMES(name) OPKIT_PARAMS_##name(OPKIT_PARAM_NAME_)
#define OPKIT_PARAM_DECL_(kind, n) OPKIT_KIND_TYPE_##kind n OPKIT_PARAM_SEP_##kind
#define OPKIT_PARAM_NAME_(kind, n) n OPKIT_PARAM_SEP_##kind
#define OPKIT_PARAM_SEP_in ,
#define OPKIT_PARAM_SEP_opt_in ,
#define OPKIT_PARAM_SEP_index ,
#define OPKIT_PARAM_SEP_out ,
#define OPKIT_PARAM_SEP_opt_out ,
#define OPKIT_PARAM_SEP_inout ,
#define OPKIT_PARAM_SEP_f32 ,
#define OPKIT_PARAM_SEP_i32 ,
#define OPKIT_PARAM_SEP_i64 ,
#define OPKIT_PARAM_SEP_stream

#endif /* OPKIT_SPEC_OPS_H_ */
