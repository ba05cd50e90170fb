/* An application outside opkit's tree, built against an installed opkit (through
 * find_package(opkit) or pkg-config; tests/packaging/check_install_tree.sh and
 * scripts/ci-packages.sh build it both ways). It checks that the header and the library
 * agree, that an op computes the right values on the CPU, and prints one line per vendor
 * ("vendor NAME STATE PATH") for the scripts to match. Exit 0 when every check holds. */
#include <math.h>
#include <opkit.h>
#include <stdio.h>

static int fail(const char* what) {
    fprintf(stderr, "consumer: %s: %s\n", what, opkit_last_error_message());
    return 1;
}

int main(void) {
    if ((opkit_version() >> 16) != OPKIT_VERSION_MAJOR) {
        fprintf(stderr, "consumer: header major %d, library %u\n", OPKIT_VERSION_MAJOR,
                (unsigned)(opkit_version() >> 16));
        return 1;
    }
    /* softmax over rows of 4, against the definition. */
    float x[2 * 4] = {1, 2, 3, 4, -1, 0, 1, 8}, y[8];
    int64_t shape[2] = {2, 4};
    opkit_dtype f32 = {OPKIT_DTYPE_FLOAT, 32, 1};
    opkit_device cpu = {OPKIT_DEVICE_CPU, 0};
    opkit_tensor tx = {x, cpu, 2, f32, shape, NULL, 0};
    opkit_tensor ty = {y, cpu, 2, f32, shape, NULL, 0};
    if (opkit_softmax_forward(&tx, &ty, NULL) != OPKIT_OK) return fail("softmax_forward");
    for (int r = 0; r < 2; ++r) {
        double sum = 0;
        for (int c = 0; c < 4; ++c) sum += exp(x[r * 4 + c]);
        for (int c = 0; c < 4; ++c) {
            const double want = exp(x[r * 4 + c]) / sum;
            if (fabs(y[r * 4 + c] - want) > 1e-6) {
                fprintf(stderr, "consumer: softmax[%d][%d] = %.9g, want %.9g\n", r, c,
                        y[r * 4 + c], want);
                return 1;
            }
        }
    }
    /* A bad call is refused with a status and a message, not a crash. */
    tx.ndim = -1;
    if (opkit_softmax_forward(&tx, &ty, NULL) != OPKIT_ERROR_INVALID_ARGUMENT)
        return fail("a tensor with ndim -1 was not refused");

    const int32_t n = opkit_vendor_count();
    for (int32_t i = 0; i < n; ++i) {
        opkit_vendor_info info = {sizeof(info)};
        if (opkit_vendor_get_info(i, &info) != OPKIT_OK) return fail("vendor_get_info");
        static const char* states[] = {"READY", "NO_DEVICE", "INCOMPATIBLE", "LOAD_FAILED",
                                       "INIT_FAILED", "DISABLED"};
        const char* state = info.state >= 0 && info.state <= 5 ? states[info.state] : "?";
        printf("vendor %s %s %s\n", info.name, state, info.path);
    }
    printf("consumer: ok (opkit %u.%u.%u, %d vendors)\n", (unsigned)(opkit_version() >> 16),
           (unsigned)((opkit_version() >> 8) & 0xff), (unsigned)(opkit_version() & 0xff), n);
    opkit_shutdown();
    return 0;
}
