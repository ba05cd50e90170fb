/* The first op call of a thread in a process that dlopen()ed libopkit (Python's ctypes,
 * Rust's libloading, Julia) must compute with the arguments it was given.
 *
 * Why a test of its own: that call is where the thread's first access to libopkit's
 * thread-local state allocates it. With x86-64 TLS descriptors (-mtls-dialect=gnu2) that
 * access is a call the compiler assumes preserves every register, and glibc before 2.40
 * (Debian 12: 2.36) clobbers the vector registers on that allocating path (glibc bug
 * 31372): opkit_axpy's alpha, in xmm0 across the access, became 0, so the first call of
 * each thread returned OPKIT_OK having added nothing. Linked at build time (every other
 * test) the state is in static TLS and the bug never shows.
 *
 * usage: first_call_after_dlopen /path/to/libopkit.so.1    exit 0 = every call right */
#include <opkit.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef opkit_status (*AxpyFn)(float, const opkit_tensor*, opkit_tensor*, opkit_stream);
typedef opkit_status (*RmsFn)(const opkit_tensor*, const opkit_tensor*, float, float, opkit_tensor*, opkit_tensor*,
                              opkit_stream);

static AxpyFn g_axpy;
static RmsFn g_rms;

static opkit_tensor vector_of(float* data, int64_t* n) {
    opkit_tensor t = {0};
    t.data = data;
    t.device.device_type = OPKIT_DEVICE_CPU;
    t.ndim = 1;
    t.dtype.code = OPKIT_DTYPE_FLOAT;
    t.dtype.bits = 32;
    t.dtype.lanes = 1;
    t.shape = n;
    return t;
}

/* The thread's first call: y = 0 + alpha * 1 must come out as alpha in every element. */
static int first_axpy(float alpha, const char* where) {
    float x[7] = {1, 1, 1, 1, 1, 1, 1}, y[7] = {0};
    int64_t n = 7;
    opkit_tensor tx = vector_of(x, &n), ty = vector_of(y, &n);
    const opkit_status s = g_axpy(alpha, &tx, &ty, NULL);
    int bad = s != OPKIT_OK;
    for (int i = 0; i < 7; ++i) bad |= y[i] != alpha;
    if (bad) fprintf(stderr, "%s: first opkit_axpy(alpha %g): status %d, y[0] %g (want %g)\n", where, alpha, s, y[0], alpha);
    return bad;
}

/* A float argument after the tensors: rms_norm's eps. Rows of 1 with eps 3: 1/sqrt(1 + 3) = 0.5. */
static int first_rms(const char* where) {
    float x[1] = {1}, w[1] = {1}, y[1] = {0};
    int64_t n = 1;
    opkit_tensor tx = vector_of(x, &n), tw = vector_of(w, &n), ty = vector_of(y, &n);
    const opkit_status s = g_rms(&tx, &tw, 3.0f, 0.0f, &ty, NULL, NULL);
    const int bad = s != OPKIT_OK || y[0] != 0.5f;
    if (bad) fprintf(stderr, "%s: first opkit_rms_norm_forward(eps 3): status %d, y %g (want 0.5)\n", where, s, y[0]);
    return bad;
}

static void* thread_axpy(void* arg) {
    static const float alphas[] = {3, 5, 7, 9};
    const int i = *(const int*)arg;
    return (void*)(long)first_axpy(alphas[i], "new thread");
}

static void* thread_rms(void* arg) {
    (void)arg;
    return (void*)(long)first_rms("new thread");
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBOPKIT\n", argv[0]);
        return 2;
    }
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    g_axpy = (AxpyFn)dlsym(lib, "opkit_axpy");
    g_rms = (RmsFn)dlsym(lib, "opkit_rms_norm_forward");
    if (!g_axpy || !g_rms) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        return 2;
    }
    int failures = first_axpy(2.0f, "main thread");
    for (int round = 0; round < 2; ++round) {
        pthread_t t[4];
        int ids[4] = {0, 1, 2, 3};
        for (int i = 0; i < 4; ++i) pthread_create(&t[i], NULL, round == 0 ? thread_axpy : thread_rms, &ids[i]);
        for (int i = 0; i < 4; ++i) {
            void* r;
            pthread_join(t[i], &r);
            failures += (int)(long)r;
        }
    }
    printf("%s: %d of 9 first calls wrong\n", failures ? "FAIL" : "OK", failures);
    return failures ? 1 : 0;
}
