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

struct MemoTensor {
    bool present = false;
    bool strided = false;
    int8_t alias = -1;       // an output's identical-view input in the accepted call, or -1
    int32_t ndim = 0;
    uint64_t head[2] = {};   // the tensor's device, ndim and dtype, as the bytes they are
    uint64_t extent = 0;     // bytes from the first element to past the last; 0: no element
    uint64_t align_mask = 0; // element size - 1
    int64_t shape[kMaxDims] = {};
    int64_t strides[kMaxDims] = {};
};

struct MemoCall {
    uint64_t generation = 0;  // 0: nothing accepted yet
    opkit_device device{};    // what validate_op() set
    MemoTensor t[kMemoTensors];
    uint64_t scalars[kMemoScalars] = {};
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

// Whether validate_op() would accept the call, judged from the memo of an accepted call
// of the same op: true only when the call's layout and scalars equal the memo's (the
// generation is checked by the caller) and its addresses pass the checks at the top of
// this file. One pass over the arguments.
template <class Args>
bool memo_accepts(const MemoCall& memo, const Args& a) {
    // Spans of the tensors that have elements, compacted (most calls have 2-4): the
    // overlap test below then loops over those only.
    uintptr_t lo[kMemoTensors], hi[kMemoTensors];
    int8_t slot[kMemoTensors];  // the compacted span's parameter slot
    bool written[kMemoTensors];
    int nt = 0, ns = 0, spans = 0;
    bool ok = true;
    OpTraits<OpIdOf<Args>::value>::for_each(a, [&](ParamKind kind, const char*, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (kIsTensorArg<T>) {
            const MemoTensor& m = memo.t[nt];
            const int here = nt++;
            if (!ok) return;
            if (!value) {
                ok = !m.present;
                return;
            }
            uint64_t head[2];
            head_of(value, head);
            ok = m.present && head[0] == m.head[0] && head[1] == m.head[1] &&
                 (value->strides != nullptr) == m.strided && (m.ndim == 0 || value->shape);
            for (int32_t i = 0; ok && i < m.ndim; ++i) ok = value->shape[i] == m.shape[i];
            if (m.strided)
                for (int32_t i = 0; ok && i < m.ndim; ++i) ok = value->strides[i] == m.strides[i];
            // well_formed_checked's address checks, in its terms: bytes = extent +
            // byte_offset fits int64, data + bytes does not wrap, data is present and
            // data + byte_offset is element-aligned (the last three only when the tensor
            // has elements).
            const uint64_t off = value->byte_offset;
            ok = ok && off <= uint64_t(INT64_MAX);
            if (ok && m.extent) {
                const uintptr_t data = reinterpret_cast<uintptr_t>(value->data);
                ok = data && off <= uint64_t(INT64_MAX) - m.extent &&
                     !__builtin_add_overflow(data, uintptr_t(m.extent + off), &hi[spans]) &&
                     ((data + uintptr_t(off)) & m.align_mask) == 0;
                lo[spans] = data + uintptr_t(off);
                slot[spans] = int8_t(here);
                written[spans] = is_written(kind);
                ++spans;
            }
        } else {
            ok = ok && scalar_bits(value) == memo.scalars[ns];
            ++ns;
        }
    });
    if (!ok) return false;
    for (int o = 0; o < spans; ++o) {
        if (!written[o]) continue;
        const int8_t alias = memo.t[slot[o]].alias;
        for (int j = 0; j < spans; ++j) {
            if (j == o || hi[o] <= lo[j] || hi[j] <= lo[o]) continue;
            if (slot[j] == alias && lo[j] == lo[o]) continue;
            return false;
        }
    }
    return true;
}

// Records an accepted call (validate_op() returned OK and set `device`).
template <class Args>
void remember(MemoCall& memo, const Args& a, uint64_t generation, opkit_device device) {
    int nt = 0, ns = 0;
    const opkit_tensor* tensors[kMemoTensors];
    bool fits = true;
    OpTraits<OpIdOf<Args>::value>::for_each(a, [&](ParamKind kind, const char*, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (kIsTensorArg<T>) {
            if (nt == kMemoTensors) {
                fits = false;
                return;
            }
            MemoTensor& m = memo.t[nt];
            tensors[nt++] = value;
            m = MemoTensor{};
            m.alias = is_written(kind) ? -2 : -1;  // -2: an output, its alias found below
            if (!value) return;
            m.present = true;
            m.strided = value->strides != nullptr;
            m.ndim = value->ndim;
            head_of(value, m.head);
            m.extent = extent_of(value);
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
    for (int o = 0; o < nt; ++o) {
        if (memo.t[o].alias != -2) continue;
        memo.t[o].alias = -1;
        const opkit_tensor* out = tensors[o];
        if (!out || !memo.t[o].extent) continue;
        for (int j = 0; j < nt; ++j)
            if (j != o && tensors[j] && base_ptr(tensors[j]) == base_ptr(out)) {
                memo.t[o].alias = int8_t(j);
                break;
            }
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
