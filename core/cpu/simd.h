// Function multi-versioning for the CPU kernels: hot loops are compiled for baseline
// x86-64 and x86-64-v3 (AVX2+FMA), and an ifunc resolver picks the
// best at load time. The ISA *levels* matter: clones named "arch=haswell" or
// "arch=skylake-avx512" are selected by CPU *model*, so on a CPU reported under another
// model name (any VM's generic "Xeon Processor") they silently fall back to the SSE2
// baseline — measured here: 2.5 instead of 61 GFLOP/s in matmul. An x86-64-v4
// (AVX-512) clone was tried and dropped: on this Xeon it lowered the core clock enough
// to make the row kernels 2x slower (rms_norm 8.5 -> 18.6 ms) for no matmul gain.
#pragma once

//
// OPKIT_CLONES_WIDE adds the x86-64-v4 (AVX-512) clone back for the loops that are bound
// by arithmetic rather than memory: the exp/erfc loops of vec_exp.h (softmax,
// cross-entropy, the gated activations), where twice the lanes is twice the throughput
// and PyTorch's own kernels use AVX-512 on CPUs that have it, and the bf16 row passes,
// whose widening and rounding AVX-512VL does in fewer instructions (vpmovdw, masks):
// layer_norm's bf16 forward at 2048x4096, one thread, on the 2-core VM (a Sapphire Rapids
// by its flags), 4.2 -> 2.5 ms on top of the wider reductions of vec_math.cpp. GCC's
// autovectorizer picks the width per loop in that clone (256 bits preferred): plain loops
// came out at 512 bits, the exp loops' 16-element blocks at two 256-bit halves until they
// were written as one 16-lane vector (f32x16, vec_exp.h; softmax's exp pass at one thread
// 10-28 % faster on the VM).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(OPKIT_NO_CLONES)
#  define OPKIT_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#  define OPKIT_CLONES_WIDE __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#  define OPKIT_CLONES
#  define OPKIT_CLONES_WIDE
#endif
