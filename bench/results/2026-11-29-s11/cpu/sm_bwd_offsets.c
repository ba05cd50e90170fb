/* bf16 softmax backward on 2048 x 4096 rows (cpu_compare's shape) with dy, y and dx placed
   at chosen offsets within a 4 KiB page: median ms of 11 calls for each placement. The
   16-core host read this op at 1.2-2.6x PyTorch at one thread from run to run while every
   other op stayed within the target; a placement effect (4K aliasing between the stores
   of dx and the loads of y / dy) would show here. Run with OPKIT_NUM_THREADS=1. */
#include "opkit.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
enum { R = 2048, N = 4096 };
static uint16_t bf16(float f) { union { float f; uint32_t u; } v = {f}; return (uint16_t)(v.u >> 16); }
int main(void) {
    const size_t bytes = (size_t)R * N * 2;
    char* base[3];
    for (int k = 0; k < 3; ++k) base[k] = aligned_alloc(4096, bytes + 4096);
    int64_t shape[2] = {R, N};
    if (opkit_init(NULL) != OPKIT_OK) return 1;
    const int offs[][3] = {{0, 0, 0}, {0, 0, 64}, {64, 0, 0}, {0, 64, 0}, {0, 0, 2048}, {0, 1024, 2048},
                           {16, 16, 16}, {0, 128, 256}, {256, 128, 0}, {0, 0, 4032}, {4032, 0, 0}};
    for (size_t o = 0; o < sizeof offs / sizeof offs[0]; ++o) {
        uint16_t* p[3];
        for (int k = 0; k < 3; ++k) p[k] = (uint16_t*)(base[k] + offs[o][k]);
        for (long i = 0; i < (long)R * N; ++i) {
            p[0][i] = bf16((float)((i * 7919) % 1000) * 0.002f - 1.0f);     /* dy */
            p[1][i] = bf16((float)((i * 104729) % 1000) * 0.0000005f);      /* y  */
        }
        opkit_tensor ty = {p[1], {OPKIT_DEVICE_CPU, 0}, 2, {OPKIT_DTYPE_BFLOAT, 16, 1}, shape, NULL, 0};
        opkit_tensor tdy = ty, tdx = ty;
        tdy.data = p[0];
        tdx.data = p[2];
        double t[11];
        for (int r = 0; r < 11; ++r) {
            const double t0 = now();
            if (opkit_softmax_backward(&tdy, &ty, &tdx, NULL) != OPKIT_OK) return 2;
            t[r] = now() - t0;
        }
        qsort(t, 11, sizeof t[0], cmp);
        printf("offsets dy %4d y %4d dx %4d: %.3f ms (min %.3f)\n", offs[o][0], offs[o][1], offs[o][2], t[5], t[0]);
    }
    opkit_shutdown();
    return 0;
}
