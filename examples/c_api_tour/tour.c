/* The C API tour from README.md, built and run by the tests so the README stays true. */
#include <opkit.h>
#include <stdio.h>

int main(void) {
    float x[2 * 4] = {1, 2, 3, 4, 5, 6, 7, 8}, w[4] = {1, 1, 1, 1}, y[8], rstd[2];
    int64_t xs[2] = {2, 4}, ws[1] = {4}, rs[1] = {2};
    opkit_dtype f32 = {OPKIT_DTYPE_FLOAT, 32, 1};
    opkit_device cpu = {OPKIT_DEVICE_CPU, 0};
    opkit_tensor tx = {x, cpu, 2, f32, xs, NULL, 0};     /* strides NULL = contiguous */
    opkit_tensor tw = {w, cpu, 1, f32, ws, NULL, 0};
    opkit_tensor ty = {y, cpu, 2, f32, xs, NULL, 0};
    opkit_tensor tr = {rstd, cpu, 1, f32, rs, NULL, 0};

    opkit_status s = opkit_rms_norm_forward(&tx, &tw, 1e-6f, 0.0f, &ty, &tr, NULL);
    if (s != OPKIT_OK) {
        fprintf(stderr, "%s: %s\n", opkit_status_string(s), opkit_last_error_message());
        return 1;
    }
    const char* who;
    opkit_op_resolve("rms_norm_forward", OPKIT_DEVICE_CPU, &who);  /* "default" */
    printf("y[0] = %f (served by %s)\n", y[0], who);
    return 0;
}
