// A per-thread memo of each op's last accepted call layout, so that a call repeating it
// skips the layout half of validation (issue 14 item 5: a validated CPU call within
// 30 ns of the kernel).
//
// What validate_op() decides is a function of (1) the layout of the call: which tensors
// are present, each one's ndim, dtype, device, shape and strides, and the scalar
// arguments; (2) the addresses: data present and aligned, no address overflow, and how
// outputs overlap other tensors; and (3) the runtime (which vendors serve which device),
// fixed for one initialization (its generation). Training and inference loops repeat
// (1) call after call (every layer's rms_norm has the same shapes) while (2) changes. So
// a call whose layout and scalars equal, bit for bit, those of this thread's last
// accepted call of the same op, under the same generation, is accepted when its
// addresses pass the per-call checks below, which are the address checks validate_op
// makes, restricted to outcomes that need no further thought:
//   - every tensor with elements has data, aligned to its element size, whose last byte
//     does not wrap around the address space;
//   - every output is either disjoint from every other tensor of the call, or starts at
//     the same address as the tensor it was the identical view of in the accepted call
//     (an in-place call the op allows: same layouts, same start, so the same view).
// Anything else — a different layout, an overlap of another shape, a NULL data pointer —
// is not judged here: the call goes through validate_op() in full, which decides it and
// writes the message. So the memo can skip work but never changes a verdict or a message.
#pragma once

#include "op_spec.hpp"
#include "tensor.h"
#include "thread_state.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace opkit::validate {

constexpr int kMemoTensors = 12;  // more than any op has (layer_norm_backward: 8)
constexpr int kMemoScalars = 8;   // scalar arguments and the stream, as bit patterns
constexpr int kMemoPairs = kMemoTensors * (kMemoTensors - 1) / 2;

struct MemoTensor {
    bool present = false;
    bool strided = false;
    int32_t ndim = 0;
    uint64_t head[2] = {};   // the tensor's device, ndim and dtype, as the bytes they are
    uint64_t extent = 0;     // bytes from the first element to past the last; 0: no element
    // The largest byte_offset for which extent + byte_offset still fits int64
    // (INT64_MAX - extent): one compare instead of two per call.
    uint64_t max_offset = uint64_t(INT64_MAX);
    uint64_t align_mask = 0; // element size - 1
    int64_t shape[kMaxDims] = {};
    int64_t strides[kMaxDims] = {};
};

// Two tensors of the accepted call, both with elements, at least one of them written:
// a call repeating the layout must have them disjoint, or (same_start_ok) starting at
// the same address, the in-place alias the accepted call had. Which pairs to test is
// part of the layout (presence, emptiness and kind of each tensor), so remember() lists
// them once and memo_accepts() walks the list.
struct MemoPair {
    int8_t a = 0, b = 0;  // parameter slots, a < b
    bool same_start_ok = false;
};

struct MemoCall {
    uint64_t generation = 0;  // 0: nothing accepted yet
    opkit_device device{};    // what validate_op() set
    MemoTensor t[kMemoTensors];
    uint64_t scalars[kMemoScalars] = {};
    int32_t pairs = 0;
    MemoPair pair[kMemoPairs];
};

template <class T>
constexpr bool kIsTensorArg = std::is_same_v<T, const opkit_tensor*> || std::is_same_v<T, opkit_tensor*>;

template <class T>
inline uint64_t scalar_bits(const T& v) {
    uint64_t bits = 0;
    static_assert(sizeof(T) <= sizeof bits, "a scalar argument wider than 8 bytes");
    std::memcpy(&bits, &v, sizeof v);
    return bits;
}

// opkit_tensor's device, ndim and dtype are 16 contiguous bytes after `data`: two
// 8-byte compares check all three.
static_assert(offsetof(opkit_tensor, device) == 8 && offsetof(opkit_tensor, ndim) == 16 &&
                  offsetof(opkit_tensor, dtype) == 20 && offsetof(opkit_tensor, shape) == 24,
              "opkit_tensor's layout (DLPack's)");
inline void head_of(const opkit_tensor* t, uint64_t (&head)[2]) {
    std::memcpy(head, reinterpret_cast<const char*>(t) + 8, sizeof head);
}

// Bytes from a tensor's first element to past its last (0 when it has none), for a
// tensor validate_op() accepted (so nothing here overflows).
inline uint64_t extent_of(const opkit_tensor* t) {
    int64_t last = 0, contiguous = 1;
    for (int32_t i = t->ndim - 1; i >= 0; --i) {
        const int64_t n = t->shape[i];
        if (n == 0) return 0;
        last += (n - 1) * (t->strides ? t->strides[i] : contiguous);
        contiguous *= n;
    }
    return uint64_t(last + 1) * dtype_size(dtype_of(t));
}

// Whether tensor argument `t` has the layout the memo remembered for its slot and an
// address that passes well_formed_checked's address checks; when it has elements,
// [lo, hi) is then its byte span. Only true answers are final (a false one sends the
// call to full validation).
__attribute__((always_inline)) inline bool tensor_matches(const MemoTensor& m, const opkit_tensor* t,
                                                          uintptr_t& lo, uintptr_t& hi) {
    if (!t) return !m.present;
    if (!m.present) return false;
    uint64_t head[2];
    head_of(t, head);
    if (head[0] != m.head[0] || head[1] != m.head[1]) return false;  // so t->ndim == m.ndim
    if (m.ndim > 0 && !t->shape) return false;
    for (int32_t i = 0; i < m.ndim; ++i)
        if (t->shape[i] != m.shape[i]) return false;
    if (__builtin_expect(m.strided, 0)) {  // most calls are on contiguous tensors
        if (!t->strides) return false;
        for (int32_t i = 0; i < m.ndim; ++i)
            if (t->strides[i] != m.strides[i]) return false;
    } else if (t->strides) {
        return false;
    }
    // well_formed_checked's address checks, in its terms: bytes = extent + byte_offset
    // fits int64; and when the tensor has elements, data is present, data + bytes does
    // not wrap and data + byte_offset is element-aligned.
    const uint64_t off = t->byte_offset;
    if (off > m.max_offset) return false;
    if (!m.extent) return true;
    const uintptr_t data = reinterpret_cast<uintptr_t>(t->data);
    if (!data || __builtin_add_overflow(data, uintptr_t(m.extent + off), &hi)) return false;
    lo = data + uintptr_t(off);
    return (lo & m.align_mask) == 0;
}

// The overlap rule over the spans memo_accepts() collected (see MemoPair).
__attribute__((always_inline)) inline bool spans_allowed(const MemoCall& memo, const uintptr_t* lo,
                                                         const uintptr_t* hi) {
    for (int32_t p = 0; p < memo.pairs; ++p) {
        const MemoPair& q = memo.pair[p];
        if (hi[q.a] <= lo[q.b] || hi[q.b] <= lo[q.a]) continue;  // disjoint
        if (q.same_start_ok && lo[q.a] == lo[q.b]) continue;    // the in-place view again
        return false;
    }
    return true;
}

// Whether validate_op() would accept the call, judged from the memo of an accepted call
// of the same op: true only when the call's layout and scalars equal the memo's (the
// generation is checked by the caller) and its addresses pass the checks at the top of
// this file. One pass over the arguments, then the remembered pairs of spans.
// Out of line with everything in it inlined: GCC's own choices split it into calls per
// argument, which cost more than the checks.
template <class Args>
__attribute__((noinline)) bool memo_accepts(const MemoCall& memo, const Args& a) {
    uintptr_t lo[kMemoTensors], hi[kMemoTensors];  // set for the tensors with elements
    int nt = 0, ns = 0;
    bool ok = true;
    OpTraits<OpIdOf<Args>::value>::for_each(a, [&](ParamKind, const char*, const auto& value)
                                                    __attribute__((always_inline)) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (kIsTensorArg<T>) {
            const int i = nt++;
            ok = ok && tensor_matches(memo.t[i], value, lo[i], hi[i]);
        } else {
            ok = ok && scalar_bits(value) == memo.scalars[ns];
            ++ns;
        }
    });
    return ok && spans_allowed(memo, lo, hi);
}

// Records an accepted call (validate_op() returned OK and set `device`).
template <class Args>
void remember(MemoCall& memo, const Args& a, uint64_t generation, opkit_device device) {
    int nt = 0, ns = 0;
    const opkit_tensor* tensors[kMemoTensors];
    bool written[kMemoTensors];
    bool fits = true;
    OpTraits<OpIdOf<Args>::value>::for_each(a, [&](ParamKind kind, const char*, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (kIsTensorArg<T>) {
            if (nt == kMemoTensors) {
                fits = false;
                return;
            }
            MemoTensor& m = memo.t[nt];
            written[nt] = is_written(kind);
            tensors[nt++] = value;
            m = MemoTensor{};
            if (!value) return;
            m.present = true;
            m.strided = value->strides != nullptr;
            m.ndim = value->ndim;
            head_of(value, m.head);
            m.extent = extent_of(value);
            m.max_offset = uint64_t(INT64_MAX) - m.extent;
            m.align_mask = dtype_size(dtype_of(value)) - 1;
            for (int32_t i = 0; i < value->ndim; ++i) {
                m.shape[i] = value->shape[i];
                if (m.strided) m.strides[i] = value->strides[i];
            }
        } else {
            if (ns == kMemoScalars) {
                fits = false;
                return;
            }
            memo.scalars[ns++] = scalar_bits(value);
        }
    });
    memo.generation = 0;
    if (!fits) return;  // never judged from the memo
    // Each output's identical-view input: the first other non-empty tensor starting where it
    // does (validate_op() accepted the call, so any overlap an output has is that one; an
    // empty tensor at the same address overlaps nothing, and taking it would leave the real
    // partner's pair without same_start_ok, sending every repeat to full validation).
    int alias[kMemoTensors];
    for (int o = 0; o < nt; ++o) {
        alias[o] = -1;
        if (!written[o] || !memo.t[o].extent) continue;
        for (int j = 0; j < nt; ++j)
            if (j != o && tensors[j] && memo.t[j].extent && base_ptr(tensors[j]) == base_ptr(tensors[o])) {
                alias[o] = j;
                break;
            }
    }
    memo.pairs = 0;
    for (int x = 0; x < nt; ++x)
        for (int y = x + 1; y < nt; ++y) {
            if (!memo.t[x].extent || !memo.t[y].extent || !(written[x] || written[y])) continue;
            MemoPair& q = memo.pair[memo.pairs++];
            q.a = int8_t(x);
            q.b = int8_t(y);
            q.same_start_ok = (!written[x] || alias[x] == y) && (!written[y] || alias[y] == x);
        }
    memo.device = device;
    memo.generation = generation;
}

// Allocates this thread's memos, one per op, into ts.memos on its first op call
// (validate_cache.cpp frees them when the thread exits); nullptr when out of memory.
MemoCall* allocate_memos(ThreadState& ts);

// This thread's memo of op `id`, or nullptr when it could not be allocated (then every
// call is validated in full).
inline MemoCall* thread_memo(ThreadState& ts, int32_t id) {
    MemoCall* memos = ts.memos;
    if (__builtin_expect(!memos, 0)) memos = allocate_memos(ts);
    return memos ? &memos[id] : nullptr;
}

}  // namespace opkit::validate
