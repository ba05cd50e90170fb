/* Times opkit_init + opkit_shutdown with whatever vendors the search path finds (set
 * OPKIT_VENDOR_PATH), as a median over repetitions, and prints the vendors it saw. */
#include "opkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 21, i;
    double* t = malloc(sizeof(double) * (size_t)reps);
    opkit_vendor_info info;
    for (i = 0; i < reps; ++i) {
        double t0 = now_ms();
        if (opkit_init(NULL) != OPKIT_OK) {
            fprintf(stderr, "opkit_init: %s\n", opkit_last_error_message());
            return 1;
        }
        t[i] = now_ms() - t0;
        if (i + 1 < reps) opkit_shutdown();
    }
    qsort(t, (size_t)reps, sizeof(double), cmp);
    printf("opkit_init: median %.3f ms, min %.3f ms, max %.3f ms over %d runs (first run included)\n",
           t[reps / 2], t[0], t[reps - 1], reps);
    for (i = 0; i < opkit_vendor_count(); ++i) {
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) == OPKIT_OK)
            printf("  vendor %-10s state %d  %s\n", info.name, info.state, info.detail);
    }
    opkit_shutdown();
    free(t);
    return 0;
}
