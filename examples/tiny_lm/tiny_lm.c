/*
 * tiny_lm — trains a tiny character-level language model with opkit's public C API.
 *
 * The model predicts the next character from the previous CONTEXT characters:
 *
 *   ids [B, C] -> embedding E[V, D] -> h0 [B, C*D] -> rms_norm(w) -> h1
 *   -> matmul W1 [C*D, 2F] -> u [B, 2F] = (a | b) -> swiglu(a, b) -> g [B, F]
 *   -> matmul W2 [F, V] -> logits [B, V] -> cross_entropy(next char)
 *
 * Backward runs through all of them, and SGD updates every parameter with axpy. The
 * gate and up halves a and b are strided views into one matmul output, the layout fused
 * MLPs use. Everything lives on one device: the first CUDA device when a cuda vendor is
 * ready, else the CPU defaults (or as chosen with --device).
 *
 * Usage: tiny_lm [--device cpu|cuda|rocm|ascend] [--steps N] [--text FILE] [--quiet]
 * Prints the loss as it falls, which vendor served each op, and a final line
 * "final loss <x>" that tests compare across devices.
 */
#include "opkit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TINY_LM_DEFAULT_TEXT
#define TINY_LM_DEFAULT_TEXT "corpus.txt"
#endif

enum { CONTEXT = 4, DIM = 32, HIDDEN = 128, BATCH = 256, MAX_VOCAB = 128 };

/* ------------------------------------------------------------------ errors ---- */

#define CHECK(call)                                                                  \
    do {                                                                             \
        opkit_status s_ = (call);                                                    \
        if (s_ != OPKIT_OK) {                                                        \
            fprintf(stderr, "tiny_lm: %s failed: %s: %s\n", #call, opkit_status_string(s_), \
                    opkit_last_error_message());                                     \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

/* ------------------------------------------------------------------ tensors --- */

/* A device buffer plus the opkit_tensor that views it. Shapes live inside the struct so
 * the view stays valid as long as the struct does. */
typedef struct {
    opkit_tensor t;
    int64_t shape[3];
    int64_t strides[3];
    size_t bytes;
} buffer;

static opkit_device g_device;

static opkit_dtype dtype_f32(void) { opkit_dtype d = {OPKIT_DTYPE_FLOAT, 32, 1}; return d; }
static opkit_dtype dtype_i32(void) { opkit_dtype d = {OPKIT_DTYPE_INT, 32, 1}; return d; }

static void buffer_alloc(buffer* b, opkit_dtype dtype, int ndim, int64_t d0, int64_t d1, int64_t d2) {
    int64_t n;
    memset(b, 0, sizeof *b);
    b->shape[0] = d0;
    b->shape[1] = d1;
    b->shape[2] = d2;
    n = (ndim > 0 ? d0 : 1) * (ndim > 1 ? d1 : 1) * (ndim > 2 ? d2 : 1);
    b->bytes = (size_t)n * dtype.bits / 8;
    CHECK(opkit_malloc(g_device, b->bytes, &b->t.data));
    b->t.device = g_device;
    b->t.ndim = ndim;
    b->t.dtype = dtype;
    b->t.shape = b->shape;
    b->t.strides = NULL; /* contiguous */
    b->t.byte_offset = 0;
}

/* A strided view of columns [col0, col0 + cols) of a contiguous 2-D f32 buffer. */
static void column_view(buffer* view, const buffer* whole, int64_t col0, int64_t cols) {
    *view = *whole;
    view->shape[0] = whole->shape[0];
    view->shape[1] = cols;
    view->strides[0] = whole->shape[1];
    view->strides[1] = 1;
    view->t.shape = view->shape;
    view->t.strides = view->strides;
    view->t.byte_offset = (uint64_t)col0 * sizeof(float);
}

/* The same memory seen with another 2-D shape (contiguous). */
static void reshape_view(buffer* view, const buffer* whole, int64_t d0, int64_t d1) {
    *view = *whole;
    view->t.ndim = 2;
    view->shape[0] = d0;
    view->shape[1] = d1;
    view->t.shape = view->shape;
}

static void upload(buffer* b, const void* host) {
    opkit_device cpu = {OPKIT_DEVICE_CPU, 0};
    CHECK(opkit_memcpy(b->t.data, g_device, host, cpu, b->bytes, NULL));
}

static void download(void* host, const buffer* b) {
    opkit_device cpu = {OPKIT_DEVICE_CPU, 0};
    CHECK(opkit_memcpy(host, cpu, b->t.data, g_device, b->bytes, NULL));
    CHECK(opkit_synchronize(g_device, NULL));
}

static void buffer_free(buffer* b) { CHECK(opkit_free(g_device, b->t.data)); }

/* ------------------------------------------------------------------ random ---- */

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_u64(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

static float uniform(float scale) { /* in [-scale, scale) */
    return scale * (2.0f * (float)(next_u64() >> 40) / (float)(1 << 24) - 1.0f);
}

static void random_param(buffer* b, float scale) {
    size_t n = b->bytes / sizeof(float), i;
    float* host = malloc(b->bytes);
    for (i = 0; i < n; ++i) host[i] = uniform(scale);
    upload(b, host);
    free(host);
}

static void constant_param(buffer* b, float value) {
    size_t n = b->bytes / sizeof(float), i;
    float* host = malloc(b->bytes);
    for (i = 0; i < n; ++i) host[i] = value;
    upload(b, host);
    free(host);
}

/* ------------------------------------------------------------------ corpus ---- */

typedef struct {
    int32_t* ids; /* the text as vocabulary indices */
    long length;
    int vocab;
    char chars[MAX_VOCAB];
} corpus;

static void load_corpus(corpus* c, const char* path) {
    FILE* f = fopen(path, "rb");
    int map[256];
    long i;
    char* text;
    if (!f) {
        fprintf(stderr, "tiny_lm: cannot open %s (pass --text FILE)\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    c->length = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = malloc((size_t)c->length);
    if (fread(text, 1, (size_t)c->length, f) != (size_t)c->length) {
        fprintf(stderr, "tiny_lm: short read on %s\n", path);
        exit(1);
    }
    fclose(f);
    for (i = 0; i < 256; ++i) map[i] = -1;
    c->vocab = 0;
    c->ids = malloc(sizeof(int32_t) * (size_t)c->length);
    for (i = 0; i < c->length; ++i) {
        unsigned char ch = (unsigned char)text[i];
        if (map[ch] < 0) {
            if (c->vocab == MAX_VOCAB) {
                fprintf(stderr, "tiny_lm: more than %d distinct bytes in %s\n", MAX_VOCAB, path);
                exit(1);
            }
            map[ch] = c->vocab;
            c->chars[c->vocab++] = (char)ch;
        }
        c->ids[i] = map[ch];
    }
    free(text);
}

/* ------------------------------------------------------------------ model ----- */

typedef struct {
    buffer emb, norm_w, w1, w2;     /* parameters */
    buffer d_emb, d_norm_w, d_w1, d_w2;
} model;

typedef struct {
    buffer ids, target;                 /* [B, C] and [B] int32 */
    buffer h0, h1, rstd, u, g, logits;  /* activations */
    buffer loss, dloss, lse, dlogits, dg, du, dh1, dh0;
} workspace;

static void report_vendors(void) {
    static const char* const ops[] = {"embedding_forward", "rms_norm_forward", "matmul",
                                       "swiglu_forward", "cross_entropy_forward",
                                       "cross_entropy_backward", "swiglu_backward",
                                       "rms_norm_backward", "embedding_backward", "axpy"};
    size_t i;
    printf("ops on %s:", g_device.device_type == OPKIT_DEVICE_CPU    ? "cpu"
                         : g_device.device_type == OPKIT_DEVICE_ROCM  ? "rocm"
                         : g_device.device_type == OPKIT_DEVICE_ASCEND ? "ascend"
                                                                       : "cuda");
    for (i = 0; i < sizeof ops / sizeof ops[0]; ++i) {
        const char* who = "?";
        if (opkit_op_resolve(ops[i], g_device.device_type, &who) != OPKIT_OK) who = "none";
        printf("%s %s=%s", i ? "," : "", ops[i], who);
    }
    printf("\n");
}

static void sample_batch(const corpus* c, int32_t* ids, int32_t* target) {
    int b, k;
    for (b = 0; b < BATCH; ++b) {
        long start = (long)(next_u64() % (uint64_t)(c->length - CONTEXT));
        for (k = 0; k < CONTEXT; ++k) ids[b * CONTEXT + k] = c->ids[start + k];
        target[b] = c->ids[start + CONTEXT];
    }
}

/* One training step; returns nothing, the loss stays on the device in ws->loss. */
static void train_step(model* m, workspace* ws, float lr) {
    buffer h0_flat, dh0_flat, a, b, da, db;
    const int64_t width = CONTEXT * DIM;
    opkit_stream s = NULL;

    /* forward */
    CHECK(opkit_embedding_forward(&m->emb.t, &ws->ids.t, &ws->h0.t, s));
    reshape_view(&h0_flat, &ws->h0, BATCH, width);
    CHECK(opkit_rms_norm_forward(&h0_flat.t, &m->norm_w.t, 1e-6f, 0.0f, &ws->h1.t, &ws->rstd.t, s));
    CHECK(opkit_matmul(&ws->h1.t, &m->w1.t, &ws->u.t, 1.0f, 0.0f, 0, 0, s));
    column_view(&a, &ws->u, 0, HIDDEN);
    column_view(&b, &ws->u, HIDDEN, HIDDEN);
    CHECK(opkit_swiglu_forward(&a.t, &b.t, &ws->g.t, s));
    CHECK(opkit_matmul(&ws->g.t, &m->w2.t, &ws->logits.t, 1.0f, 0.0f, 0, 0, s));
    CHECK(opkit_cross_entropy_forward(&ws->logits.t, &ws->target.t, -100, 0.0f,
                                      OPKIT_REDUCTION_MEAN, &ws->loss.t, &ws->lse.t, NULL, s));

    /* backward, from an upstream gradient of 1 (the forward could also have written
     * dlogits directly, Liger-style; the explicit backward is exercised here) */
    CHECK(opkit_cross_entropy_backward(&ws->dloss.t, &ws->logits.t, &ws->target.t, &ws->lse.t,
                                       -100, 0.0f, OPKIT_REDUCTION_MEAN, &ws->dlogits.t, s));
    CHECK(opkit_matmul(&ws->g.t, &ws->dlogits.t, &m->d_w2.t, 1.0f, 0.0f, 1, 0, s));
    CHECK(opkit_matmul(&ws->dlogits.t, &m->w2.t, &ws->dg.t, 1.0f, 0.0f, 0, 1, s));
    column_view(&da, &ws->du, 0, HIDDEN);
    column_view(&db, &ws->du, HIDDEN, HIDDEN);
    CHECK(opkit_swiglu_backward(&ws->dg.t, &a.t, &b.t, &da.t, &db.t, s));
    CHECK(opkit_matmul(&ws->h1.t, &ws->du.t, &m->d_w1.t, 1.0f, 0.0f, 1, 0, s));
    CHECK(opkit_matmul(&ws->du.t, &m->w1.t, &ws->dh1.t, 1.0f, 0.0f, 0, 1, s));
    reshape_view(&dh0_flat, &ws->dh0, BATCH, width);
    CHECK(opkit_rms_norm_backward(&ws->dh1.t, &h0_flat.t, &m->norm_w.t, &ws->rstd.t, 0.0f,
                                  &dh0_flat.t, &m->d_norm_w.t, s));
    CHECK(opkit_embedding_backward(&ws->dh0.t, &ws->ids.t, -1, &m->d_emb.t, s));

    /* SGD */
    CHECK(opkit_axpy(-lr, &m->d_emb.t, &m->emb.t, s));
    CHECK(opkit_axpy(-lr, &m->d_norm_w.t, &m->norm_w.t, s));
    CHECK(opkit_axpy(-lr, &m->d_w1.t, &m->w1.t, s));
    CHECK(opkit_axpy(-lr, &m->d_w2.t, &m->w2.t, s));
}

/* ------------------------------------------------------------------ main ------ */

static void usage(void) {
    fprintf(stderr, "usage: tiny_lm [--device cpu|cuda|rocm|ascend] [--steps N] [--text FILE] [--quiet]\n");
    exit(2);
}

int main(int argc, char** argv) {
    const char* text = TINY_LM_DEFAULT_TEXT;
    const char* device = NULL;
    int steps = 300, quiet = 0, step, i;
    const float lr = 0.5f;
    corpus c;
    model m;
    workspace ws;
    int32_t* host_ids = malloc(sizeof(int32_t) * BATCH * CONTEXT);
    int32_t host_target[BATCH];
    float loss = 0.0f, first_loss = 0.0f, one = 1.0f;

    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--text") && i + 1 < argc) text = argv[++i];
        else if (!strcmp(argv[i], "--quiet")) quiet = 1;
        else usage();
    }

    CHECK(opkit_init(NULL));
    g_device.device_type = OPKIT_DEVICE_CPU;
    g_device.device_id = 0;
    {
        /* --device NAME, else the first accelerator with a ready device, else the CPU. */
        static const struct { const char* name; int32_t type; } kinds[] = {
            {"cuda", OPKIT_DEVICE_CUDA}, {"rocm", OPKIT_DEVICE_ROCM}, {"ascend", OPKIT_DEVICE_ASCEND}};
        size_t k;
        int known = device == NULL || !strcmp(device, "cpu");
        for (k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
            const int wanted = device ? !strcmp(device, kinds[k].name) : 0;
            known |= wanted;
            if (wanted && opkit_device_count(kinds[k].type) < 1) {
                fprintf(stderr, "tiny_lm: --device %s, but no %s vendor is ready (see opkit-info)\n", device,
                        device);
                return 1;
            }
            if (wanted || (!device && g_device.device_type == OPKIT_DEVICE_CPU &&
                           opkit_device_count(kinds[k].type) > 0))
                g_device.device_type = kinds[k].type;
        }
        if (!known) usage();
    }

    load_corpus(&c, text);
    printf("opkit %u.%u.%u, corpus %s: %ld chars, vocabulary %d; model: context %d, dim %d, hidden %d\n",
           opkit_version() >> 16, (opkit_version() >> 8) & 255, opkit_version() & 255, text,
           c.length, c.vocab, CONTEXT, DIM, HIDDEN);
    report_vendors();

    buffer_alloc(&m.emb, dtype_f32(), 2, c.vocab, DIM, 0);
    buffer_alloc(&m.norm_w, dtype_f32(), 1, CONTEXT * DIM, 0, 0);
    buffer_alloc(&m.w1, dtype_f32(), 2, CONTEXT * DIM, 2 * HIDDEN, 0);
    buffer_alloc(&m.w2, dtype_f32(), 2, HIDDEN, c.vocab, 0);
    buffer_alloc(&m.d_emb, dtype_f32(), 2, c.vocab, DIM, 0);
    buffer_alloc(&m.d_norm_w, dtype_f32(), 1, CONTEXT * DIM, 0, 0);
    buffer_alloc(&m.d_w1, dtype_f32(), 2, CONTEXT * DIM, 2 * HIDDEN, 0);
    buffer_alloc(&m.d_w2, dtype_f32(), 2, HIDDEN, c.vocab, 0);
    random_param(&m.emb, 1.0f);
    constant_param(&m.norm_w, 1.0f);
    random_param(&m.w1, 1.0f / sqrtf((float)(CONTEXT * DIM)));
    random_param(&m.w2, 1.0f / sqrtf((float)HIDDEN));

    buffer_alloc(&ws.ids, dtype_i32(), 2, BATCH, CONTEXT, 0);
    buffer_alloc(&ws.target, dtype_i32(), 1, BATCH, 0, 0);
    buffer_alloc(&ws.h0, dtype_f32(), 3, BATCH, CONTEXT, DIM);
    buffer_alloc(&ws.h1, dtype_f32(), 2, BATCH, CONTEXT * DIM, 0);
    buffer_alloc(&ws.rstd, dtype_f32(), 1, BATCH, 0, 0);
    buffer_alloc(&ws.u, dtype_f32(), 2, BATCH, 2 * HIDDEN, 0);
    buffer_alloc(&ws.g, dtype_f32(), 2, BATCH, HIDDEN, 0);
    buffer_alloc(&ws.logits, dtype_f32(), 2, BATCH, c.vocab, 0);
    buffer_alloc(&ws.loss, dtype_f32(), 0, 0, 0, 0);
    buffer_alloc(&ws.dloss, dtype_f32(), 0, 0, 0, 0);
    buffer_alloc(&ws.lse, dtype_f32(), 1, BATCH, 0, 0);
    buffer_alloc(&ws.dlogits, dtype_f32(), 2, BATCH, c.vocab, 0);
    buffer_alloc(&ws.dg, dtype_f32(), 2, BATCH, HIDDEN, 0);
    buffer_alloc(&ws.du, dtype_f32(), 2, BATCH, 2 * HIDDEN, 0);
    buffer_alloc(&ws.dh1, dtype_f32(), 2, BATCH, CONTEXT * DIM, 0);
    buffer_alloc(&ws.dh0, dtype_f32(), 3, BATCH, CONTEXT, DIM);
    upload(&ws.dloss, &one);

    for (step = 1; step <= steps; ++step) {
        sample_batch(&c, host_ids, host_target);
        upload(&ws.ids, host_ids);
        upload(&ws.target, host_target);
        train_step(&m, &ws, lr);
        if (step == 1 || step % 25 == 0 || step == steps) {
            download(&loss, &ws.loss);
            if (step == 1) first_loss = loss;
            if (!isfinite(loss)) {
                fprintf(stderr, "tiny_lm: loss became %f at step %d\n", loss, step);
                return 1;
            }
            if (!quiet || step == steps) printf("step %4d  loss %.4f\n", step, loss);
        }
    }
    printf("loss %.4f -> %.4f (uniform guess: %.4f)\n", first_loss, loss, log((double)c.vocab));
    printf("final loss %.6f\n", loss);

    buffer_free(&m.emb); buffer_free(&m.norm_w); buffer_free(&m.w1); buffer_free(&m.w2);
    buffer_free(&m.d_emb); buffer_free(&m.d_norm_w); buffer_free(&m.d_w1); buffer_free(&m.d_w2);
    buffer_free(&ws.ids); buffer_free(&ws.target); buffer_free(&ws.h0); buffer_free(&ws.h1);
    buffer_free(&ws.rstd); buffer_free(&ws.u); buffer_free(&ws.g); buffer_free(&ws.logits);
    buffer_free(&ws.loss); buffer_free(&ws.dloss); buffer_free(&ws.lse); buffer_free(&ws.dlogits);
    buffer_free(&ws.dg); buffer_free(&ws.du); buffer_free(&ws.dh1); buffer_free(&ws.dh0);
    free(host_ids);
    free(c.ids);
    opkit_shutdown();
    /* Training must actually have learned something. */
    return loss < first_loss ? 0 : 1;
}
