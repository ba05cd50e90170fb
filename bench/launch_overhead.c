/* Host launch overhead: the host wall time of one opkit op call on tiny device tensors
 * (the launch path: argument checks, dispatch, the vendor's launch; not the kernel), through
 * the public C API only (no CUDA headers or libraries).
 *
 *   bench_launch_overhead [--device cuda|rocm|ascend|<type>[:<id>]] [--calls N]
 *                         [--batches N] [--queued N] [--cols N] [--dtype bf16|f32]
 *                         [--ops name,name] [--json] [--vendor-path PATH]
 *
 * Per op, two measurements on one stream made with opkit_stream_create:
 *
 * 1. Back to back: --calls calls issued without waiting, one opkit_synchronize at the end;
 *    the median over --batches batches of wall/call (the whole batch, synchronize
 *    included, / calls), issue/call (the host time inside the calls only) and the end wait
 *    (the synchronize). This is what a training step's stream of small ops costs.
 *
 * 2. Device busy: the stream is first given device-to-device copies that keep the device busy
 *    for a few ms (opkit_memcpy, asynchronous on a device stream); --queued calls are then
 *    issued behind them. While the copies run, none of those kernels can start, so the
 *    host time of issuing them is the host path alone: the device cannot be the
 *    bottleneck. After the copies the queued kernels run back to back with no host gap, so
 *    (batch time - copies-alone time) / queued is the device's time per call. If the
 *    launch queue fills (the host blocks until the copies drain) the run says so, and the
 *    program retries with half the calls queued.
 *
 * Host-bound means the host's time per call (2) exceeds the device's (2): then the device
 * idles between kernels and the back-to-back wall/call is the launch overhead. The
 * back-to-back end wait tells the same from the other side: divided by the device's time
 * per call it is how many calls were still queued when the host finished issuing (a
 * handful when host-bound; the launch queue's depth when device-bound).
 *
 * Exit: 0 measured, 1 a call failed, 2 usage error, 77 no non-CPU device (skip). */
#define _POSIX_C_SOURCE 200809L
#include "opkit.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXIT_SKIP 77

static const char kUsage[] =
    "usage: bench_launch_overhead [--device cuda|rocm|ascend|<type>[:<id>]] [--calls N]\n"
    "                             [--batches N] [--queued N] [--cols N] [--dtype bf16|f32]\n"
    "                             [--ops name,name] [--json] [--vendor-path PATH]\n"
    "\n"
    "  --device       device (default: cuda if present, else the first READY non-CPU vendor's)\n"
    "  --calls N      calls per back-to-back batch (default 20000)\n"
    "  --batches N    batches per op; medians are reported (default 7)\n"
    "  --queued N     calls queued behind the busy-device copies (default 512)\n"
    "  --cols N       tensor shape 1xN (default 128)\n"
    "  --dtype        bf16 (default) or f32\n"
    "  --ops          rms_norm_forward,softmax_forward,swiglu_forward,axpy (default: all)\n"
    "  --json         one JSON object on stdout instead of the table\n"
    "  --vendor-path  colon-separated vendor directories or files (like OPKIT_VENDOR_PATH)\n"
    "Exit: 0 measured, 1 a call failed, 2 usage error, 77 no non-CPU device (skipped).\n";

/* ------------------------------------------------------------------ clock, stats -- */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* Median of n values (sorts them). */
static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ------------------------------------------------------------------ tensors ------- */

typedef struct Tensor {
    opkit_tensor t; /* t.shape points into shape[]: never copy a Tensor */
    int64_t shape[2];
} Tensor;

typedef struct Bench {
    opkit_device device;
    opkit_stream stream;
    opkit_dtype dtype;
    int64_t cols;
    Tensor x, b, w, y, rstd, acc;
    void* copy_src; /* the busy-device copies */
    void* copy_dst;
    size_t copy_bytes;
} Bench;

static uint16_t to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
    return (uint16_t)(u >> 16);
}

static int fail(const char* what, opkit_status st) {
    fprintf(stderr, "bench_launch_overhead: %s: %s: %s\n", what, opkit_status_string(st),
            opkit_last_error_message());
    return 1;
}

/* A device tensor of shape {d0} (ndim 1) or {d0, d1} (ndim 2), filled with values near
 * 0.5 (the same row of values in every row). */
static int make_tensor(Bench* bench, Tensor* t, int ndim, int64_t d0, int64_t d1, opkit_dtype dtype) {
    const int64_t n = ndim == 1 ? d0 : d0 * d1;
    const size_t es = dtype.bits / 8u, bytes = (size_t)n * es;
    unsigned char* host = malloc(bytes);
    const opkit_device cpu = {OPKIT_DEVICE_CPU, 0};
    opkit_status st;
    int64_t i;
    memset(t, 0, sizeof *t);
    t->shape[0] = d0;
    t->shape[1] = d1;
    t->t.device = bench->device;
    t->t.ndim = ndim;
    t->t.dtype = dtype;
    t->t.shape = t->shape;
    if (!host) return fprintf(stderr, "bench_launch_overhead: out of host memory\n"), 1;
    for (i = 0; i < n; ++i) {
        const float v = 0.5f + 0.001f * (float)(i % 97);
        if (es == 2) {
            const uint16_t h = to_bf16(v);
            memcpy(host + (size_t)i * 2, &h, 2);
        } else {
            memcpy(host + (size_t)i * 4, &v, 4);
        }
    }
    st = opkit_malloc(bench->device, bytes, &t->t.data);
    if (st == OPKIT_OK)
        st = opkit_memcpy(t->t.data, bench->device, host, cpu, bytes, bench->stream);
    free(host);
    return st == OPKIT_OK ? 0 : fail("opkit_malloc/opkit_memcpy of a tensor", st);
}

static void free_tensor(Bench* bench, Tensor* t) {
    if (t->t.data) opkit_free(bench->device, t->t.data);
    t->t.data = NULL;
}

/* ------------------------------------------------------------------ the ops ------- */

static opkit_status call_rms_norm(Bench* b) {
    return opkit_rms_norm_forward(&b->x.t, &b->w.t, 1e-6f, 0.0f, &b->y.t, &b->rstd.t, b->stream);
}
static opkit_status call_softmax(Bench* b) { return opkit_softmax_forward(&b->x.t, &b->y.t, b->stream); }
static opkit_status call_swiglu(Bench* b) { return opkit_swiglu_forward(&b->x.t, &b->b.t, &b->y.t, b->stream); }
/* acc += 1e-3 * x: acc grows by 0.5e-3 a call; bf16 saturating after ~1e5 calls does not
 * change the kernel's speed. */
static opkit_status call_axpy(Bench* b) { return opkit_axpy(1e-3f, &b->x.t, &b->acc.t, b->stream); }

typedef struct Case {
    const char* op;
    const char* args; /* what the call passes, for the legend */
    opkit_status (*call)(Bench*);
} Case;

static const Case kCases[] = {
    {"rms_norm_forward", "x [1,N], weight [N], y, rstd fp32 [1]", call_rms_norm},
    {"softmax_forward", "x [1,N] -> y", call_softmax},
    {"swiglu_forward", "a, b [1,N] -> y", call_swiglu},
    {"axpy", "acc += 1e-3 * x, [1,N]", call_axpy},
};
#define CASE_COUNT ((int)(sizeof kCases / sizeof kCases[0]))

/* ------------------------------------------------------------------ measuring ----- */

typedef struct Result {
    const char* vendor;
    double wall_us, issue_us, end_wait_us; /* back to back, per call (end wait: per batch) */
    double busy_issue_us, gpu_us;          /* device busy, per call; NAN when not measured */
    double busy_copies_ms;                 /* how long the copies kept the device busy */
    int queued;                            /* calls queued behind them */
    double queued_at_end;                  /* back-to-back end wait / gpu_us */
    int host_bound;                        /* 1, 0, or -1 when unknown */
    const char* note;
} Result;

static opkit_status sync_stream(Bench* b) { return opkit_synchronize(b->device, b->stream); }

/* calls back-to-back calls, then a synchronize: issue and total seconds. */
static int back_to_back(Bench* b, const Case* c, long calls, double* issue_s, double* total_s) {
    double t0, t1, t2;
    opkit_status st = sync_stream(b);
    long i;
    if (st != OPKIT_OK) return fail("opkit_synchronize", st);
    t0 = now_s();
    for (i = 0; i < calls; ++i)
        if ((st = c->call(b)) != OPKIT_OK) return fail(c->op, st);
    t1 = now_s();
    if ((st = sync_stream(b)) != OPKIT_OK) return fail("opkit_synchronize", st);
    t2 = now_s();
    *issue_s = t1 - t0;
    *total_s = t2 - t0;
    return 0;
}

static opkit_status enqueue_copies(Bench* b, int copies) {
    opkit_status st = OPKIT_OK;
    int i;
    for (i = 0; i < copies && st == OPKIT_OK; ++i)
        st = opkit_memcpy(b->copy_dst, b->device, b->copy_src, b->device, b->copy_bytes, b->stream);
    return st;
}

/* copies alone: seconds from before enqueueing them to after the synchronize. */
static int copies_alone(Bench* b, int copies, double* seconds) {
    opkit_status st = sync_stream(b);
    double t0;
    if (st != OPKIT_OK) return fail("opkit_synchronize", st);
    t0 = now_s();
    if ((st = enqueue_copies(b, copies)) != OPKIT_OK) return fail("opkit_memcpy (device to device)", st);
    if ((st = sync_stream(b)) != OPKIT_OK) return fail("opkit_synchronize", st);
    *seconds = now_s() - t0;
    return 0;
}

/* copies, then queued calls behind them: total seconds, the host time of issuing the calls
 * and when the last call returned (from the start). */
static int behind_copies(Bench* b, const Case* c, int copies, int queued, double* total_s, double* issue_s,
                         double* issued_by_s) {
    opkit_status st = sync_stream(b);
    double t0, t1, t2;
    int i;
    if (st != OPKIT_OK) return fail("opkit_synchronize", st);
    t0 = now_s();
    if ((st = enqueue_copies(b, copies)) != OPKIT_OK) return fail("opkit_memcpy (device to device)", st);
    t1 = now_s();
    for (i = 0; i < queued; ++i)
        if ((st = c->call(b)) != OPKIT_OK) return fail(c->op, st);
    t2 = now_s();
    if ((st = sync_stream(b)) != OPKIT_OK) return fail("opkit_synchronize", st);
    *total_s = now_s() - t0;
    *issue_s = t2 - t1;
    *issued_by_s = t2 - t0;
    return 0;
}

static int measure(Bench* b, const Case* c, long calls, int batches, int queued, Result* r) {
    double* v = malloc(sizeof(double) * (size_t)batches * 5);
    double *issue = v, *total = v + batches, *alone = v + 2 * batches, *busy = v + 3 * batches,
           *busy_issue = v + 4 * batches;
    double copy_s, issued_by_max = 0, busy_total, alone_med = 0;
    int i, copies, attempt;
    long warm = calls < 1000 ? calls : 1000;
    if (!v) return fprintf(stderr, "bench_launch_overhead: out of host memory\n"), 1;
    r->busy_issue_us = r->gpu_us = r->busy_copies_ms = r->queued_at_end = NAN;
    r->host_bound = -1;
    r->queued = 0;
    r->note = "";

    /* 1. back to back (after a warm-up batch: first launches load modules) */
    if (back_to_back(b, c, warm, &issue[0], &total[0])) goto failed;
    for (i = 0; i < batches; ++i)
        if (back_to_back(b, c, calls, &issue[i], &total[i])) goto failed;
    for (i = 0; i < batches; ++i) alone[i] = total[i] - issue[i]; /* end waits */
    r->end_wait_us = median(alone, batches) * 1e6;
    r->wall_us = median(total, batches) / (double)calls * 1e6;
    r->issue_us = median(issue, batches) / (double)calls * 1e6;

    /* 2. device busy: copies that outlast issuing the queued calls several times over */
    if (!b->copy_src) {
        r->note = "no busy-device copies (device memory)";
        free(v);
        return 0;
    }
    if (copies_alone(b, 1, &copy_s)) goto failed;
    for (attempt = 0;; ++attempt) {
        double want = 4.0 * queued * r->issue_us * 1e-6, ignored;
        if (want < 2e-3) want = 2e-3;
        copies = (int)ceil(want / copy_s);
        if (copies < 1) copies = 1;
        if (copies > 512) copies = 512;
        issued_by_max = 0;
        /* a warm-up batch first, not counted */
        if (behind_copies(b, c, copies, queued, &busy[0], &busy_issue[0], &ignored)) goto failed;
        for (i = 0; i < batches; ++i) {
            double issued_by;
            if (copies_alone(b, copies, &alone[i])) goto failed;
            if (behind_copies(b, c, copies, queued, &busy[i], &busy_issue[i], &issued_by)) goto failed;
            if (issued_by > issued_by_max) issued_by_max = issued_by;
        }
        alone_med = median(alone, batches);
        /* every call must have been issued while the copies still ran; else fewer calls */
        if (issued_by_max < 0.8 * alone_med || queued <= 32 || attempt == 3) break;
        queued /= 2;
    }
    busy_total = median(busy, batches);
    r->queued = queued;
    r->busy_copies_ms = alone_med * 1e3;
    r->busy_issue_us = median(busy_issue, batches) / queued * 1e6;
    if (issued_by_max >= 0.8 * alone_med) {
        r->note = "calls were still being issued when the copies ended (launch queue full?): "
                  "busy-device numbers are not clean";
    }
    r->gpu_us = (busy_total - alone_med) / queued * 1e6;
    if (r->gpu_us > 0) {
        r->queued_at_end = r->end_wait_us / r->gpu_us;
        r->host_bound = r->busy_issue_us > r->gpu_us;
    } else {
        r->note = "device time per call below the copies' jitter: not resolved";
        r->gpu_us = NAN;
    }
    free(v);
    return 0;
failed:
    free(v);
    return 1;
}

/* ------------------------------------------------------------------ options ------- */

typedef struct Options {
    int device_given;
    opkit_device device;
    long calls;
    int batches, queued;
    int64_t cols;
    opkit_dtype dtype;
    const char* dtype_name;
    int selected[CASE_COUNT]; /* all zero: every op */
    int json;
    char* vendor_path; /* malloc'd, absolute entries */
} Options;

static int parse_long(const char* text, long lo, long hi, long* value) {
    char* end = NULL;
    *value = strtol(text, &end, 10);
    return *text && !*end && *value >= lo && *value <= hi;
}

static int parse_device(const char* text, opkit_device* device) {
    const char* colon = strchr(text, ':');
    const size_t len = colon ? (size_t)(colon - text) : strlen(text);
    char type[32];
    long id = 0, number = 0;
    if (len == 0 || len >= sizeof type) return 0;
    memcpy(type, text, len);
    type[len] = '\0';
    if (colon && !parse_long(colon + 1, 0, 1 << 20, &id)) return 0;
    if (!strcmp(type, "cpu")) device->device_type = OPKIT_DEVICE_CPU;
    else if (!strcmp(type, "cuda")) device->device_type = OPKIT_DEVICE_CUDA;
    else if (!strcmp(type, "rocm")) device->device_type = OPKIT_DEVICE_ROCM;
    else if (!strcmp(type, "ascend")) device->device_type = OPKIT_DEVICE_ASCEND;
    else if (parse_long(type, 1, 1 << 20, &number)) device->device_type = (int32_t)number;
    else return 0;
    device->device_id = (int32_t)id;
    return 1;
}

static int parse_ops(const char* text, int* selected) {
    const char* p = text;
    while (*p) {
        const char* comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int i, known = 0;
        for (i = 0; i < CASE_COUNT; ++i)
            if (strlen(kCases[i].op) == len && !strncmp(kCases[i].op, p, len)) selected[i] = known = 1;
        if (len && !known) return fprintf(stderr, "bench_launch_overhead: unknown op in --ops: %.*s\n", (int)len, p), 0;
        p += len + (comma ? 1 : 0);
    }
    return 1;
}

/* The library searches absolute entries only; on a command line, relative to the working
 * directory is what is meant. Returns a malloc'd list (NULL when out of memory). */
static char* absolute_entries(const char* list) {
    char cwd[4096];
    const size_t cap = strlen(list) * 2 + 2 * sizeof cwd;
    char* out = malloc(cap);
    const char* p = list;
    size_t used = 0;
    if (!out || !getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
    if (!out) return NULL;
    out[0] = '\0';
    while (*p) {
        const char* colon = strchr(p, ':');
        const size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (len) {
            const int relative = p[0] != '/' && cwd[0];
            if (used + len + strlen(cwd) + 3 > cap) break;
            used += (size_t)sprintf(out + used, "%s%s%s%.*s", used ? ":" : "", relative ? cwd : "",
                                    relative ? "/" : "", (int)len, p);
        }
        p += len + (colon ? 1 : 0);
    }
    return out;
}

/* 0 run, 1 help printed, 2 bad usage */
static int parse_args(int argc, char** argv, Options* o) {
    int i;
    long n;
    for (i = 1; i < argc; ++i) {
        const char* arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return printf("%s", kUsage), 1;
        if (!strcmp(arg, "--json")) {
            o->json = 1;
            continue;
        }
        if (!value) goto bad;
        ++i;
        if (!strcmp(arg, "--device")) {
            if (!parse_device(value, &o->device)) goto bad;
            o->device_given = 1;
        } else if (!strcmp(arg, "--calls")) {
            if (!parse_long(value, 1, 100000000, &o->calls)) goto bad;
        } else if (!strcmp(arg, "--batches")) {
            if (!parse_long(value, 1, 1000, &n)) goto bad;
            o->batches = (int)n;
        } else if (!strcmp(arg, "--queued")) {
            if (!parse_long(value, 1, 100000, &n)) goto bad;
            o->queued = (int)n;
        } else if (!strcmp(arg, "--cols")) {
            if (!parse_long(value, 1, 1L << 24, &n)) goto bad;
            o->cols = n;
        } else if (!strcmp(arg, "--dtype")) {
            if (!strcmp(value, "bf16")) o->dtype.code = OPKIT_DTYPE_BFLOAT, o->dtype.bits = 16;
            else if (!strcmp(value, "f32")) o->dtype.code = OPKIT_DTYPE_FLOAT, o->dtype.bits = 32;
            else goto bad;
            o->dtype_name = value;
        } else if (!strcmp(arg, "--ops")) {
            if (!parse_ops(value, o->selected)) return 2;
        } else if (!strcmp(arg, "--vendor-path")) {
            o->vendor_path = absolute_entries(value);
        } else {
            goto bad;
        }
        continue;
    bad:
        fprintf(stderr, "bench_launch_overhead: bad or incomplete option: %s %s (--help prints the usage)\n", arg,
                value ? value : "");
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------------ device -------- */

static const char* type_name(int32_t type) {
    switch (type) {
    case OPKIT_DEVICE_CPU: return "cpu";
    case OPKIT_DEVICE_CUDA: return "cuda";
    case OPKIT_DEVICE_ROCM: return "rocm";
    case OPKIT_DEVICE_ASCEND: case 12: return "ascend";
    default: return NULL;
    }
}

static void device_label(opkit_device d, char* out, size_t size) {
    const char* name = type_name(d.device_type);
    if (name) snprintf(out, size, "%s:%d", name, (int)d.device_id);
    else snprintf(out, size, "%d:%d", (int)d.device_type, (int)d.device_id);
}

/* cuda if it has a device, else the first READY vendor's non-CPU device type; 0 = none. */
static int32_t default_device_type(void) {
    int32_t i;
    if (opkit_device_count(OPKIT_DEVICE_CUDA) > 0) return OPKIT_DEVICE_CUDA;
    for (i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) == OPKIT_OK && info.state == OPKIT_VENDOR_READY &&
            info.device_type != 0 && info.device_type != OPKIT_DEVICE_CPU && opkit_device_count(info.device_type) > 0)
            return info.device_type;
    }
    return 0;
}

static void print_vendor_states(FILE* f) {
    static const char* const states[] = {"READY", "NO_DEVICE", "INCOMPATIBLE", "LOAD_FAILED", "INIT_FAILED",
                                         "DISABLED"};
    int32_t i, n = opkit_vendor_count();
    if (n == 0) fprintf(f, "  (no vendors found on the search path)\n");
    for (i = 0; i < n; ++i) {
        opkit_vendor_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (opkit_vendor_get_info(i, &info) != OPKIT_OK) continue;
        fprintf(f, "  vendor %-10s %-12s %s\n", info.name ? info.name : "?",
                info.state >= 0 && info.state <= 5 ? states[info.state] : "?", info.detail ? info.detail : "");
    }
}

/* ------------------------------------------------------------------ output -------- */

static void fmt(char* out, size_t size, double v, int decimals) {
    if (isnan(v)) snprintf(out, size, "-");
    else snprintf(out, size, "%.*f", decimals, v);
}

static const char kRowFormat[] = "%-18s %-13s %-7s %-5s %10s %10s %12s %10s %10s %11s  %s";

static void print_row(const Case* c, const Options* o, const Result* r) {
    char wall[32], issue[32], wait[32], busy[32], gpu[32], at_end[32], shape[32];
    const char* verdict = r->host_bound == 1 ? "host" : r->host_bound == 0 ? "device" : "?";
    fmt(wall, sizeof wall, r->wall_us, 2);
    fmt(issue, sizeof issue, r->issue_us, 2);
    fmt(wait, sizeof wait, r->end_wait_us, 1);
    fmt(busy, sizeof busy, r->busy_issue_us, 2);
    fmt(gpu, sizeof gpu, r->gpu_us, 2);
    fmt(at_end, sizeof at_end, r->queued_at_end, 0);
    snprintf(shape, sizeof shape, "1x%lld", (long long)o->cols);
    printf(kRowFormat, c->op, r->vendor ? r->vendor : "-", shape, o->dtype_name, wall, issue, wait, busy, gpu, at_end,
           verdict);
    if (r->host_bound == 1) printf(" (host %s > device %s us/call)", busy, gpu);
    else if (r->host_bound == 0) printf(" (host %s <= device %s us/call)", busy, gpu);
    printf("\n");
    if (r->note[0]) printf("  note: %s\n", r->note);
}

static void json_number(double v, int last) { isnan(v) ? printf("null") : printf("%.4f", v); printf(last ? "" : ", "); }

static void print_json(const char* device, const Options* o, double sync_us, const Case** cases, const Result* results,
                       int n) {
    int i;
    printf("{\n  \"device\": \"%s\", \"calls\": %ld, \"batches\": %d, \"shape\": [1, %lld], \"dtype\": \"%s\",\n",
           device, o->calls, o->batches, (long long)o->cols, o->dtype_name);
    printf("  \"idle_synchronize_us\": ");
    json_number(sync_us, 1);
    printf(",\n  \"rows\": [\n");
    for (i = 0; i < n; ++i) {
        const Result* r = &results[i];
        printf("    {\"op\": \"%s\", \"vendor\": \"%s\", \"wall_us_per_call\": ", cases[i]->op, r->vendor ? r->vendor : "");
        json_number(r->wall_us, 0);
        printf("\"issue_us_per_call\": ");
        json_number(r->issue_us, 0);
        printf("\"end_wait_us\": ");
        json_number(r->end_wait_us, 0);
        printf("\"busy_device_issue_us_per_call\": ");
        json_number(r->busy_issue_us, 0);
        printf("\"device_us_per_call\": ");
        json_number(r->gpu_us, 0);
        printf("\"queued_calls\": %d, \"busy_copies_ms\": ", r->queued);
        json_number(r->busy_copies_ms, 0);
        printf("\"queued_at_end\": ");
        json_number(r->queued_at_end, 0);
        printf("\"host_bound\": %s, \"note\": \"%s\"}%s\n",
               r->host_bound == 1 ? "true" : r->host_bound == 0 ? "false" : "null", r->note, i + 1 < n ? "," : "");
    }
    printf("  ]\n}\n");
}

static void print_legend(const Options* o) {
    int i;
    printf("\nback to back: %ld calls issued without waiting, one opkit_synchronize at the end (median of %d\n"
           "batches): wall = batch time / calls, synchronize included; issue = host time inside the calls;\n"
           "end wait = the final synchronize.\n"
           "device busy: calls queued behind device-to-device copies, so no kernel runs while the host issues:\n"
           "host = issue time / calls (the launch path alone; the device cannot be the bottleneck);\n"
           "device = (batch time - copies-alone time) / calls, the kernels back to back with no host gap.\n"
           "queued at end = end wait / device time: calls still queued when the host finished issuing.\n"
           "bound: host when the host's time per call exceeds the device's (the device idles between\n"
           "kernels, and wall/call is the launch overhead), else device.\n",
           o->calls, o->batches);
    for (i = 0; i < CASE_COUNT; ++i) printf("  %-18s %s\n", kCases[i].op, kCases[i].args);
}

/* ------------------------------------------------------------------ main ---------- */

int main(int argc, char** argv) {
    Options o;
    Bench b;
    opkit_init_options init;
    opkit_status st;
    const Case* cases[CASE_COUNT];
    Result results[CASE_COUNT];
    char label[64];
    double syncs[21], sync_us;
    int i, n = 0, any = 0, rc = 0;
    const opkit_dtype f32 = {OPKIT_DTYPE_FLOAT, 32, 1};

    memset(&o, 0, sizeof o);
    o.calls = 20000;
    o.batches = 7;
    o.queued = 512;
    o.cols = 128;
    o.dtype.code = OPKIT_DTYPE_BFLOAT;
    o.dtype.bits = 16;
    o.dtype.lanes = 1;
    o.dtype_name = "bf16";
    switch (parse_args(argc, argv, &o)) {
    case 1: return 0;
    case 2: return 2;
    default: break;
    }
    o.dtype.lanes = 1;

    memset(&init, 0, sizeof init);
    init.struct_size = sizeof init;
    init.vendor_path = o.vendor_path;
    init.host_fallback = -1;
    init.log_level = -1;
    if ((st = opkit_init(&init)) != OPKIT_OK) return fail("opkit_init", st);

    memset(&b, 0, sizeof b);
    b.device = o.device;
    if (!o.device_given) b.device.device_type = default_device_type();
    if (b.device.device_type == OPKIT_DEVICE_CPU) {
        fprintf(stderr, "bench_launch_overhead: --device cpu: this measures launches on a device (the CPU's ops\n"
                        "complete before returning; bench_dispatch_overhead measures their dispatch)\n");
        opkit_shutdown();
        return 2;
    }
    if (b.device.device_type == 0 || b.device.device_id >= opkit_device_count(b.device.device_type)) {
        if (b.device.device_type == 0) snprintf(label, sizeof label, "cuda or other non-CPU device");
        else device_label(b.device, label, sizeof label);
        printf("SKIP: bench_launch_overhead: no %s (opkit-info says why); vendors:\n", label);
        print_vendor_states(stdout);
        opkit_shutdown();
        return EXIT_SKIP;
    }
    device_label(b.device, label, sizeof label);
    b.dtype = o.dtype;
    b.cols = o.cols;
    if ((st = opkit_stream_create(b.device, &b.stream)) != OPKIT_OK) {
        rc = fail("opkit_stream_create", st);
        goto done;
    }
    if (make_tensor(&b, &b.x, 2, 1, o.cols, o.dtype) || make_tensor(&b, &b.b, 2, 1, o.cols, o.dtype) ||
        make_tensor(&b, &b.w, 1, o.cols, 0, o.dtype) || make_tensor(&b, &b.y, 2, 1, o.cols, o.dtype) ||
        make_tensor(&b, &b.rstd, 1, 1, 0, f32) || make_tensor(&b, &b.acc, 2, 1, o.cols, o.dtype)) {
        rc = 1;
        goto done;
    }
    /* The busy-device copies: 256 MiB each way, less if the device has less to spare. */
    for (b.copy_bytes = (size_t)256 << 20; b.copy_bytes >= ((size_t)8 << 20); b.copy_bytes /= 2) {
        if (opkit_malloc(b.device, b.copy_bytes, &b.copy_src) != OPKIT_OK) continue;
        if (opkit_malloc(b.device, b.copy_bytes, &b.copy_dst) == OPKIT_OK) break;
        opkit_free(b.device, b.copy_src);
        b.copy_src = NULL;
    }
    if (!b.copy_src) b.copy_bytes = 0;

    /* an idle stream's synchronize: the fixed cost in every batch's end wait */
    for (i = 0; i < 21; ++i) {
        double t0 = now_s();
        if ((st = sync_stream(&b)) != OPKIT_OK) {
            rc = fail("opkit_synchronize", st);
            goto done;
        }
        syncs[i] = (now_s() - t0) * 1e6;
    }
    sync_us = median(syncs, 21);

    for (i = 0; i < CASE_COUNT; ++i) any |= o.selected[i];
    if (!o.json) {
        printf("bench_launch_overhead: device %s, shape 1x%lld %s, %ld calls per batch, median of %d batches;\n"
               "idle-stream opkit_synchronize %.1f us\n\n",
               label, (long long)o.cols, o.dtype_name, o.calls, o.batches, sync_us);
        printf("%-50s%-35s%s\n", "", "back to back, per call", "device busy, per call");
        printf(kRowFormat, "op", "vendor", "shape", "dtype", "wall us", "issue us", "end wait us", "host us", "device us",
               "queued@end", "bound");
        printf("\n");
        fflush(stdout);
    }
    for (i = 0; i < CASE_COUNT; ++i) {
        const Case* c = &kCases[i];
        Result* r = &results[n];
        if (any && !o.selected[i]) continue;
        memset(r, 0, sizeof *r);
        if (opkit_op_resolve(c->op, b.device.device_type, &r->vendor) != OPKIT_OK) r->vendor = NULL;
        if (measure(&b, c, o.calls, o.batches, o.queued, r)) {
            rc = 1;
            break;
        }
        cases[n++] = c;
        if (!o.json) {
            print_row(c, &o, r);
            fflush(stdout);
        }
    }
    if (o.json) print_json(label, &o, sync_us, cases, results, n);
    else print_legend(&o);

done:
    free_tensor(&b, &b.x);
    free_tensor(&b, &b.b);
    free_tensor(&b, &b.w);
    free_tensor(&b, &b.y);
    free_tensor(&b, &b.rstd);
    free_tensor(&b, &b.acc);
    if (b.copy_src) opkit_free(b.device, b.copy_src);
    if (b.copy_dst) opkit_free(b.device, b.copy_dst);
    if (b.stream) opkit_stream_destroy(b.device, b.stream);
    opkit_shutdown();
    free(o.vendor_path);
    return rc;
}
