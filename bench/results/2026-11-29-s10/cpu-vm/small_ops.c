/* f32 softmax forward on R x 4096 rows repeated: mean microseconds a call (median of 5
   batches of `calls`). For the pool's cost beside busy processes. */
#include "opkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
int main(int argc, char** argv) {
    int R = argc > 1 ? atoi(argv[1]) : 16, calls = argc > 2 ? atoi(argv[2]) : 200;
    const int N = 4096;
    float* x = malloc((size_t)R * N * 4); float* y = malloc((size_t)R * N * 4);
    for (long i = 0; i < (long)R * N; ++i) x[i] = (float)(i % 97) * 0.01f;
    int64_t shape[2] = {R, N};
    opkit_tensor tx = {x, {OPKIT_DEVICE_CPU, 0}, 2, {OPKIT_DTYPE_FLOAT, 32, 1}, shape, NULL, 0};
    opkit_tensor ty = tx; ty.data = y;
    if (opkit_init(NULL) != OPKIT_OK) return 1;
    double b[5];
    for (int k = 0; k < 5; ++k) {
        double t0 = now();
        for (int i = 0; i < calls; ++i) opkit_softmax_forward(&tx, &ty, NULL);
        b[k] = (now() - t0) / calls;
    }
    qsort(b, 5, sizeof b[0], cmp);
    printf("%.1f\n", b[2]);
    opkit_shutdown();
    return 0;
}
