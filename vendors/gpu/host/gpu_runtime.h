// The runtime interface of the shared GPU host layer: everything the host code in
// vendors/gpu/host needs from a device runtime, and nothing else. vendors/cuda implements
// it with the CUDA driver API, vendors/rocm with the HIP runtime; each vendor defines
// runtime() to return its one instance.
//
// No runtime type crosses it: streams are opkit_stream, device pointers void*, modules
// and functions opaque void*. Every call that can fail returns an opkit_status and, when
// it is not OPKIT_OK, has recorded a message with fail() (status.h) that names the
// runtime's own call and error ("cuLaunchKernel(opk_rms_fwd_f32_c0) failed:
// CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)"); OPKIT_ERROR_OUT_OF_MEMORY for
// an allocation the device could not serve, otherwise OPKIT_ERROR_DEVICE. Out-parameters
// are written only on success.
#pragma once

#include "opkit_vendor.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace opkit_gpu {

struct Device;  // device.h: the per-device state the shared layer keeps

// What the launch plans read from a device, once, on its first use. A value the runtime
// cannot query keeps its default.
struct DeviceAttributes {
    int sm_count = 1;                 // multiprocessors (CUDA) / compute units (HIP)
    int warp_size = 32;               // threads of a warp / wavefront: blocks are multiples
    int shared_per_sm = 48 << 10;     // bytes of shared memory (LDS) per multiprocessor
    int shared_per_block = 48 << 10;  // the most one block may have (opt-in included)
    int64_t l2_bytes = 0;             // L2 cache size (0 = unknown)
    bool memory_pools = false;        // stream-ordered allocation (mem_alloc_async) available
    bool clusters = false;            // thread-block cluster launch (NVIDIA sm_90+; never on HIP)
    bool dependent_launch = false;    // launch_dependent overlaps (NVIDIA sm_90+; never on HIP)
};

// One matrix of a matmul in the column-major terms BLAS libraries take (ops_matmul.cpp
// says how opkit's row-major tensors map to them).
struct BlasOperand {
    int64_t rows, cols, ld, batch_stride;  // column-major rows/cols of the stored matrix
    int align;                             // bytes: largest power of 2 (<= 256) dividing all
};

// c = alpha * op(a) * op(b) + beta * c in BLAS's column-major terms: a and b here are
// opkit's b and a. All dtypes compute in fp32.
struct BlasMatmul {
    int type;               // 0 = f32, 1 = f16, 2 = bf16 (a, b and c alike)
    bool trans_a, trans_b;  // of BLAS's a and b
    BlasOperand A, B, C;
    int64_t batch;  // <= INT32_MAX
    const void* a;
    const void* b;
    void* c;
    float alpha, beta;
    opkit_stream stream;
};

class Runtime {
public:
    virtual ~Runtime() = default;

    // ---- names, for messages ----
    virtual const char* name() const = 0;       // "CUDA": "CUDA device 3 does not exist"
    virtual const char* vendor() const = 0;     // "cuda": "the cuda vendor takes f32, ..."
    virtual const char* blas_name() const = 0;  // "cuBLASLt"
    virtual int32_t device_type() const = 0;    // OPKIT_DEVICE_CUDA

    // Loads the runtime (once; cheap: no device work) and returns the number of devices;
    // 0 with *why set when it is missing, too old or finds no device. Records nothing.
    virtual int device_count(std::string* why) = 0;
    // After device_count found `count` > 0 devices: how many of them the vendor can use
    // (rocm: those whose ISA the embedded code objects cover). Devices it cannot use stay
    // counted; *why (the vendor's note, or its NO_DEVICE reason when none is usable) names
    // them. Cheap, like device_count.
    virtual int usable_devices(int count, std::string* why) {
        (void)why;
        return count;
    }
    // What opkit-info shows after the vendor's version: " (CUDA driver 13.0)".
    virtual std::string version_note() = 0;

    // ---- devices ----
    // First use of device d.id, under d.mu: takes what later calls need (CUDA: retains
    // the primary context) into d.native and reads the attributes into d.
    virtual opkit_status open_device(Device& d) = 0;
    // Shutdown: releases what open_device took. Errors are ignored.
    virtual void close_device(Device& d) = 0;
    // Makes d the calling thread's current device; *saved is what leave() needs to put
    // the caller's own state (current context or device) back as it was.
    virtual opkit_status enter(Device& d, intptr_t* saved) = 0;
    virtual void leave(Device& d, intptr_t saved) = 0;
    // Waits for everything queued on the current device.
    virtual opkit_status device_synchronize() = 0;

    // ---- modules and kernels (the device current) ----
    // Loads one embedded image; `module` is its name ("norms") for the message.
    virtual opkit_status module_load(const void* image, size_t size, const char* module, void** out) = 0;
    virtual void module_unload(void* module) = 0;  // shutdown; errors ignored
    virtual opkit_status module_function(void* module, const char* name, void** out) = 0;
    // Allows `fn` (kernel `name`) `bytes` of dynamic shared memory, above the default
    // 48 KiB that every launch may have without asking.
    virtual opkit_status set_max_dynamic_shared(void* fn, const char* name, size_t bytes) = 0;
    // How many clusters of `fn` (compile-time clusters of `cluster` blocks of `block`
    // threads, `smem` bytes of dynamic shared memory each) fit on the device at once.
    // Asked only where the device reports DeviceAttributes::clusters.
    virtual opkit_status max_active_clusters(void* fn, const char* name, unsigned block, size_t smem, int cluster,
                                             int* out) = 0;
    // A launch of grid_x x grid_y blocks of `block` threads; params: one pointer per kernel
    // parameter (kernelParams).
    virtual opkit_status launch(void* fn, const char* name, unsigned grid_x, unsigned grid_y, unsigned block,
                                unsigned smem, opkit_stream stream, void** params) = 0;
    // As launch, but the kernel may start while the stream's previous kernel is still
    // draining (programmatic dependent launch), asked only where the device reports
    // DeviceAttributes::dependent_launch: the kernel must wait for that grid
    // (wait_for_prior_grid, gpu_compat.h) before it reads anything that grid wrote. The
    // launch and its gap then overlap the previous kernel's last blocks.
    virtual opkit_status launch_dependent(void* fn, const char* name, unsigned grid_x, unsigned grid_y,
                                          unsigned block, unsigned smem, opkit_stream stream, void** params) {
        return launch(fn, name, grid_x, grid_y, block, smem, stream, params);
    }

    // ---- memory (the device current) ----
    virtual opkit_status mem_alloc(Device& d, size_t bytes, void** out) = 0;
    virtual opkit_status mem_free(void* ptr) = 0;
    // A pool for stream-ordered allocations on d that keeps up to keep_bytes mapped;
    // NULL when one cannot be made (nothing recorded). Called without d current.
    virtual void* pool_create(Device& d, uint64_t keep_bytes) = 0;
    virtual void pool_destroy(void* pool) = 0;  // shutdown; errors ignored
    // Stream-ordered allocation from `pool`, or from the device's default pool when NULL.
    virtual opkit_status mem_alloc_async(size_t bytes, void* pool, opkit_stream stream, void** out) = 0;
    virtual opkit_status mem_free_async(void* ptr, opkit_stream stream) = 0;
    // Copies between any two addresses of unified addressing (host or device), ordered
    // on the stream; the host side of a copy is safe to touch after stream_synchronize.
    virtual opkit_status memcpy_async(void* dst, const void* src, size_t bytes, opkit_stream stream) = 0;
    // A copy between two devices (src's memory on src_dev, dst's on dst_dev).
    virtual opkit_status memcpy_peer_async(void* dst, Device& dst_dev, const void* src, Device& src_dev,
                                           size_t bytes, opkit_stream stream) = 0;
    virtual opkit_status memset_d8_async(void* dst, unsigned char value, size_t count, opkit_stream stream) = 0;
    virtual opkit_status memset_d32_async(void* dst, uint32_t value, size_t count, opkit_stream stream) = 0;

    // ---- streams (the device current) ----
    virtual opkit_status stream_create(opkit_stream* out) = 0;
    virtual opkit_status stream_destroy(opkit_stream stream) = 0;
    virtual opkit_status stream_synchronize(opkit_stream stream) = 0;

    // ---- matmul's BLAS ----
    // Loads the library once; false with *why (for the decline message) when it cannot.
    virtual bool blas_load(std::string* why) = 0;
    // Runs one matmul on d (current). Per-device state lives in d.blas, released by
    // d.blas_release at shutdown.
    virtual opkit_status blas_matmul(Device& d, const BlasMatmul& m) = 0;
};

// The vendor's runtime (defined by each vendor).
Runtime& runtime();

}  // namespace opkit_gpu
