// Function multi-versioning for the CPU kernels: hot loops are compiled for the
// baseline x86-64, AVX2+FMA and AVX-512, and the loader picks the best at run time.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(OPKIT_NO_CLONES)
#  define OPKIT_CLONES __attribute__((target_clones("default", "arch=haswell", "arch=skylake-avx512")))
#else
#  define OPKIT_CLONES
#endif
