// HIP-over-CUDA test runtime (libhipblaslt.so.0): hipBLASLt algos stand for cuBLASLt algos.
//
// hipblasLtMatmulAlgo_t has 16 opaque bytes (plus a workspace bound); cuBLASLt's algo is
// 64 bytes, so it cannot travel inside. The shim keeps every cuBLASLt algo a heuristic
// returned in a process-wide table (deduplicated, never shrinks: the distinct algos of
// a test run number in the hundreds at most) and writes into the 16 bytes a tag, the
// table index and a checksum of the algo. hipblasLtMatmul looks the algo up again and
// refuses (HIPBLAS_STATUS_INVALID_VALUE) bytes it did not write: a zeroed or stale algo
// is a caller bug.
#pragma once

#include "shim_blas_api.h"

#include <cublasLt.h>

namespace hipshim_lt {

namespace lt = opkit_rocm::lt;

// Stores a (or finds it) and writes its reference into out->data. False when the table
// cannot grow (out of memory).
bool remember(const cublasLtMatmulAlgo_t& a, lt::Algo* out) noexcept;

// The cuBLASLt algo that `in` refers to; false when `in` was not written by remember().
bool recall(const lt::Algo& in, cublasLtMatmulAlgo_t* out) noexcept;

}  // namespace hipshim_lt
