/* A fixed loop of op calls on tiny CPU tensors, for counting instructions per call with
 * valgrind (docs/PERFORMANCE.md, "Dispatch overhead"): timings on a shared VM are noisy,
 * instruction counts are not.
 *
 *   valgrind --tool=callgrind bin/bench_dispatch_loop [axpy|softmax|rms_norm] [calls]
 *
 * Subtract the kernel's inclusive count (callgrind_annotate --inclusive=yes) from the
 * entry point's and divide by the calls. */
#include "opkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
    const char* op = argc > 1 ? argv[1] : "axpy";
    const long calls = argc > 2 ? atol(argv[2]) : 100000;
    float x[16], y[16];
    for (int i = 0; i < 16; ++i) {
        x[i] = 0.5f + 0.01f * (float)i;
        y[i] = 0.25f;
    }
    int64_t shape[2] = {1, 16};
    opkit_tensor tx = {x, {OPKIT_DEVICE_CPU, 0}, 2, {OPKIT_DTYPE_FLOAT, 32, 1}, shape, NULL, 0};
    opkit_tensor ty = tx;
    ty.data = y;
    if (opkit_init(NULL) != OPKIT_OK) return 1;
    for (long i = 0; i < calls; ++i) {
        opkit_status s;
        if (strcmp(op, "softmax") == 0)
            s = opkit_softmax_forward(&tx, &ty, NULL);
        else if (strcmp(op, "rms_norm") == 0)
            s = opkit_rms_norm_forward(&tx, NULL, 1e-6f, 0.0f, &ty, NULL, NULL);
        else
            s = opkit_axpy(0.5f, &tx, &ty, NULL);
        if (s != OPKIT_OK) {
            fprintf(stderr, "%s: %s\n", op, opkit_last_error_message());
            return 1;
        }
    }
    opkit_shutdown();
    return 0;
}
