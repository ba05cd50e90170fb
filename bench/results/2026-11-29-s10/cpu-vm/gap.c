/* bf16 softmax backward 2048x4096 at OPKIT_NUM_THREADS, with a gap of G microseconds
   (busy or sleeping) between calls: per-call times, to see whether the worker runs. */
#define _GNU_SOURCE
#include "opkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
int main(int argc, char** argv) {
    long gap_us = argc > 1 ? atol(argv[1]) : 0;
    int busy = argc > 2 ? atoi(argv[2]) : 0;
    int calls = argc > 3 ? atoi(argv[3]) : 40;
    const int R = 2048, N = 4096;
    uint16_t* a = malloc((size_t)R * N * 2); uint16_t* b = malloc((size_t)R * N * 2); uint16_t* c = malloc((size_t)R * N * 2);
    for (long i = 0; i < (long)R * N; ++i) { a[i] = 0x3f80; b[i] = 0x3a00 + (i % 64); c[i] = 0; }
    int64_t shape[2] = {R, N};
    opkit_tensor dy = {a, {OPKIT_DEVICE_CPU, 0}, 2, {OPKIT_DTYPE_BFLOAT, 16, 1}, shape, NULL, 0};
    opkit_tensor y = dy; y.data = b;
    opkit_tensor dx = dy; dx.data = c;
    if (opkit_init(NULL) != OPKIT_OK) return 1;
    int serial = 0; double sum = 0;
    for (int i = 0; i < calls; ++i) {
        if (gap_us > 0) {
            if (busy) { double t0 = now(); while (now() - t0 < gap_us / 1e3) {} }
            else usleep(gap_us);
        }
        double t0 = now();
        if (opkit_softmax_backward(&dy, &y, &dx, NULL) != OPKIT_OK) return 1;
        double ms = now() - t0;
        sum += ms;
        printf("%.2f ", ms);
    }
    printf("\nmean %.3f ms\n", sum / calls);
    opkit_shutdown();
    return 0;
}
