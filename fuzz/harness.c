/* The shared half of the fuzz targets (see harness.h). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A breach of a promise: print it and abort, so libFuzzer saves the input. */
#define FZ_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz invariant broken (%s:%d): ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* ---- reading the input ------------------------------------------------------------------- */

uint8_t fz_u8(fz_reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

uint32_t fz_u32(fz_reader *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | fz_u8(r);
    return v;
}

uint64_t fz_u64(fz_reader *r)
{
    uint64_t hi = fz_u32(r);
    return hi << 32 | fz_u32(r);
}

uint32_t fz_size(fz_reader *r)
{
    static const uint32_t edges[] = {0, 31, 32, 33, 63, 64, 65, 4095, 4096, 4097, 65535, 65536,
                                     65537, 1u << 31, UINT32_MAX};
    uint8_t b = fz_u8(r);
    if (b < 200)
        return 1 + b % 20;
    if (b < 200 + sizeof edges / sizeof edges[0])
        return edges[b - 200];
    if (b == 255)
        return fz_u32(r);
    return 1 + fz_u8(r); /* 1..256 */
}

uint32_t fz_below(fz_reader *r, uint32_t n)
{
    return n <= 256 ? fz_u8(r) % n : fz_u32(r) % n;
}

/* ---- owned allocations ------------------------------------------------------------------- */

void *fz_alloc(fz_arena *a, size_t count, size_t size)
{
    if (count == 0)
        return NULL;
    FZ_CHECK(a->count < sizeof a->blocks / sizeof a->blocks[0], "arena full");
    void *p = calloc(count, size);
    FZ_CHECK(p, "calloc of %zu x %zu failed", count, size);
    a->blocks[a->count++] = p;
    return p;
}

void fz_arena_free(fz_arena *a)
{
    while (a->count)
        free(a->blocks[--a->count]);
}

/* ---- tensors ----------------------------------------------------------------------------- */

unsigned fz_esize(dmlcpu_data_type t)
{
    static const unsigned bytes[12] = {0, 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8};
    return (unsigned)t < 12 ? bytes[t] : 0;
}

dmlcpu_data_type fz_type(fz_reader *r)
{
    uint8_t b = fz_u8(r);
    if (b < 250)
        return (dmlcpu_data_type)(1 + b % 11);
    if (b == 250)
        return DMLCPU_DATA_TYPE_UNKNOWN;
    if (b == 251)
        return (dmlcpu_data_type)12;
    return (dmlcpu_data_type)(int)fz_u32(r);
}

uint32_t fz_rank(fz_reader *r)
{
    uint8_t b = fz_u8(r);
    if (b < 250)
        return 1 + b % 8;
    if (b == 250)
        return 0;
    if (b == 251)
        return 9;
    return fz_u32(r);
}

static uint32_t fz_raw_stride(fz_reader *r)
{
    uint8_t b = fz_u8(r);
    if (b < 128)
        return b;
    if (b == 128)
        return UINT32_MAX;
    if (b == 129)
        return 1u << 31;
    return fz_u32(r);
}

/* A random order of 0..n-1. */
static void fz_permutation(fz_reader *r, uint32_t *perm, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = fz_below(r, i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}

uint64_t fz_addressed_bytes(const dmlcpu_tensor_desc *t, uint64_t *elements)
{
    unsigned es = fz_esize(t->data_type);
    if (!es || t->dimension_count < 1 || t->dimension_count > 8 || !t->sizes)
        return 0;
    uint64_t count = 1, last = 0, packed = 1;
    for (uint32_t i = 0; i < t->dimension_count; i++) {
        if (t->sizes[i] == 0)
            return 0;
        count *= t->sizes[i];
        if (count > UINT32_MAX)
            return 0;
    }
    for (uint32_t i = t->dimension_count; i-- > 0;) {
        uint64_t stride = t->strides ? t->strides[i] : packed, term;
        if (__builtin_mul_overflow((uint64_t)t->sizes[i] - 1, stride, &term) ||
            __builtin_add_overflow(last, term, &last))
            return 0;
        packed *= t->sizes[i];
    }
    uint64_t bytes;
    if (__builtin_add_overflow(last, 1, &last) || __builtin_mul_overflow(last, es, &bytes))
        return 0;
    if (elements)
        *elements = count;
    return bytes;
}

void fz_tensor(fz_reader *r, fz_arena *a, dmlcpu_tensor_desc *t, dmlcpu_data_type type,
               uint32_t rank, const uint32_t *sizes, int is_input)
{
    uint32_t n = rank <= 16 ? rank : 16; /* a rank beyond 8 must be refused before any size is read */
    uint32_t *sz = fz_alloc(a, n, sizeof *sz);
    if (sizes && n)
        memcpy(sz, sizes, n * sizeof *sz);
    *t = (dmlcpu_tensor_desc){type, rank, sz, NULL, 0};
    if (fz_u8(r) == 0xEE)
        t->sizes = NULL;
    uint8_t mode = fz_u8(r) % 8;
    if (mode != 0 && mode != 7 && n > 0) {
        uint32_t *st = fz_alloc(a, n, sizeof *st), order[16];
        if (mode == 6) { /* raw strides */
            for (uint32_t i = 0; i < n; i++)
                st[i] = fz_raw_stride(r);
        } else {
            /* packed (1), padded (2), permuted and padded (3), broadcast (4), overlapping (5) */
            if (mode >= 3)
                fz_permutation(r, order, n);
            else
                for (uint32_t i = 0; i < n; i++)
                    order[i] = i;
            uint64_t s = 1;
            for (uint32_t k = n; k-- > 0;) {
                uint32_t d = order[k];
                st[d] = (uint32_t)s;
                s = s * sz[d] + (mode >= 2 ? fz_u8(r) % 3 : 0);
            }
            if (mode == 4 && is_input) {
                for (uint32_t i = 0; i < n; i++)
                    if (fz_u8(r) & 1)
                        st[i] = 0;
            } else if (mode == 5) {
                st[fz_below(r, n)] = st[fz_below(r, n)];
            }
        }
        t->strides = st;
    }
    uint64_t need = fz_addressed_bytes(t, NULL);
    switch (fz_u8(r) % 8) {
    case 4: t->total_tensor_size_in_bytes = need; break;
    case 5: t->total_tensor_size_in_bytes = need + (uint64_t)fz_esize(type) * fz_u8(r); break;
    case 6: t->total_tensor_size_in_bytes = need ? need - 1 : 1; break;
    case 7: t->total_tensor_size_in_bytes = fz_u64(r); break;
    default: break; /* 0: exactly the addressed size */
    }
}

void fz_any_tensor(fz_reader *r, fz_arena *a, dmlcpu_tensor_desc *t, int is_input)
{
    dmlcpu_data_type type = fz_type(r);
    uint32_t rank = fz_rank(r), sizes[16];
    for (uint32_t i = 0; i < 16 && i < rank; i++)
        sizes[i] = fz_size(r);
    fz_tensor(r, a, t, type, rank, sizes, is_input);
}

/* ---- create options ---------------------------------------------------------------------- */

/* A host pool that runs the tasks on the calling thread, last first. */
static void fz_reverse_pool(void *pool_context, dmlcpu_task_fn task, void *task_context,
                            size_t task_count)
{
    (void)pool_context;
    for (size_t i = task_count; i-- > 0;)
        task(task_context, i);
}

const dmlcpu_create_options *fz_options(fz_reader *r, dmlcpu_create_options *o)
{
    static const uint32_t threads[] = {0, 1, 2, 3, 7, 64};
    uint8_t level = fz_u8(r) % 3;
    dmlcpu_set_max_isa(level == 0 ? DMLCPU_ISA_SCALAR : level == 1 ? DMLCPU_ISA_PORTABLE
                                                                   : dmlcpu_detected_isa());
    uint8_t b = fz_u8(r);
    if (b == 0xFF)
        return NULL;
    *o = (dmlcpu_create_options){threads[b % 6], NULL, NULL};
    if (b & 0x40)
        o->max_threads = fz_u32(r);
    if (b & 0x80)
        o->parallel_for = fz_reverse_pool;
    return o;
}

/* ---- create and run ---------------------------------------------------------------------- */

/* What the fuzzer executes: every buffer at most 1 MiB, every tensor at most 2^18 elements
 * (a broadcast input addresses few bytes but is read element by element), the temporary at most
 * 64 MiB. Larger operators are created and checked, not executed. */
#define FZ_MAX_BYTES (1u << 20)
#define FZ_MAX_ELEMENTS (1u << 18)
#define FZ_MAX_TEMP (64u << 20)
#define FZ_MAX_BUFFERS 16

typedef struct {
    uint32_t count;
    const dmlcpu_tensor_desc *t[FZ_MAX_BUFFERS];
    uint64_t bytes[FZ_MAX_BUFFERS];
    uint8_t *data[FZ_MAX_BUFFERS], *before[FZ_MAX_BUFFERS];
} fz_side;

static void fz_fill(uint8_t *p, uint64_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15u + 1;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (uint8_t)(x >> 24);
    }
}

static int fz_is_nan(dmlcpu_data_type t, const uint8_t *p)
{
    if (t == DMLCPU_DATA_TYPE_FLOAT16) {
        uint16_t h;
        memcpy(&h, p, 2);
        return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    }
    if (t == DMLCPU_DATA_TYPE_FLOAT32) {
        uint32_t f;
        memcpy(&f, p, 4);
        return (f & 0x7f800000u) == 0x7f800000u && (f & 0x7fffffu);
    }
    if (t == DMLCPU_DATA_TYPE_FLOAT64) {
        uint64_t d;
        memcpy(&d, p, 8);
        return (d & 0x7ff0000000000000u) == 0x7ff0000000000000u && (d & 0xfffffffffffffu);
    }
    return 0;
}

/* Every byte of every buffer of the side equals its snapshot. */
static void fz_unchanged(const fz_side *s, const char *side, const char *what)
{
    for (uint32_t i = 0; i < s->count; i++)
        FZ_CHECK(memcmp(s->data[i], s->before[i], s->bytes[i]) == 0,
                 "%s[%u] changed by %s", side, i, what);
}

/* Executes with bindings over the side buffers as they are. */
static dmlcpu_status fz_execute(const dmlcpu_operator *op, const fz_side *in, const fz_side *out,
                                void *temp, uint64_t temp_bytes)
{
    dmlcpu_buffer_binding ib[FZ_MAX_BUFFERS], ob[FZ_MAX_BUFFERS];
    for (uint32_t i = 0; i < in->count; i++)
        ib[i] = (dmlcpu_buffer_binding){in->data[i], in->bytes[i]};
    for (uint32_t i = 0; i < out->count; i++)
        ob[i] = (dmlcpu_buffer_binding){out->data[i], out->bytes[i]};
    dmlcpu_bindings b = {in->count, ib, out->count, ob, {temp, temp_bytes}};
    return dmlcpu_execute(op, &b);
}

/* One binding broken as the input chooses; the call must be refused and change nothing. */
static void fz_execute_broken(fz_reader *r, const dmlcpu_operator *op, fz_side *in, fz_side *out,
                              uint8_t *temp, uint64_t temp_bytes)
{
    /* Exact-size binding arrays (heap blocks) so that a read past a count is reported. */
    uint32_t nin = in->count, nout = out->count;
    dmlcpu_buffer_binding *ib = malloc(nin * sizeof *ib), *ob = malloc(nout * sizeof *ob);
    for (uint32_t i = 0; i < nin; i++)
        ib[i] = (dmlcpu_buffer_binding){in->data[i], in->bytes[i]};
    for (uint32_t i = 0; i < nout; i++)
        ob[i] = (dmlcpu_buffer_binding){out->data[i], out->bytes[i]};
    dmlcpu_bindings b = {nin, ib, nout, ob, {temp, temp_bytes}};
    uint8_t *shifted = NULL;
    uint32_t k = fz_below(r, nin + nout);
    dmlcpu_buffer_binding *victim = k < nin ? &ib[k] : &ob[k - nin];
    const dmlcpu_tensor_desc *vt = k < nin ? in->t[k] : out->t[k - nin];
    unsigned es = fz_esize(vt->data_type);
    const char *what = "";
    switch (fz_u8(r) % 8) {
    case 0: b.input_count = nin + 1 + fz_u8(r) % 2 * (UINT32_MAX - nin - 1); what = "a wrong input count"; break;
    case 1: b.output_count = nout ? nout - 1 : 1; what = "a wrong output count"; break;
    case 2: victim->data = NULL; what = "a NULL buffer"; break;
    case 3:
        if (es > 1) {
            shifted = malloc(victim->size_in_bytes + es);
            memcpy(shifted + 1, victim->data, victim->size_in_bytes);
            victim->data = shifted + 1;
            what = "a misaligned buffer";
            break;
        }
        /* fall through: bytes are always aligned */
    case 4: victim->size_in_bytes -= es; what = "a buffer one element short"; break;
    case 5:
        if (nout >= 2)
            ob[1].data = (uint8_t *)ob[0].data + fz_below(r, (uint32_t)(out->bytes[0] < 256 ? out->bytes[0] : 256));
        else
            ob[0] = (dmlcpu_buffer_binding){ib[0].data, out->bytes[0]};
        what = "overlapping buffers";
        break;
    case 6:
        if (temp_bytes) {
            b.temporary.size_in_bytes = temp_bytes - 1;
            what = "a temporary buffer one byte short";
        } else {
            b.inputs = NULL;
            what = "NULL inputs";
        }
        break;
    default: b.outputs = NULL; what = "NULL outputs"; break;
    }
    dmlcpu_execute(NULL, NULL); /* a known message, which the refusal must replace */
    char marker[256];
    snprintf(marker, sizeof marker, "%s", dmlcpu_last_error_message());
    dmlcpu_status st = dmlcpu_execute(op, &b);
    FZ_CHECK(st == DMLCPU_STATUS_INVALID_ARGUMENT, "execute with %s returned %d", what, (int)st);
    FZ_CHECK(strcmp(dmlcpu_last_error_message(), marker) != 0, "execute with %s left no message", what);
    fz_unchanged(in, "input", what);
    fz_unchanged(out, "output", what);
    free(shifted);
    free(ib);
    free(ob);
}

/* Outputs of two runs agree element by element (any NaN equals any NaN for reductions; copies
 * move bits exactly). */
static void fz_same_outputs(const fz_side *a, uint8_t *const *b, int exact)
{
    for (uint32_t i = 0; i < a->count; i++) {
        dmlcpu_data_type t = a->t[i]->data_type;
        unsigned es = fz_esize(t);
        for (uint64_t off = 0; off + es <= a->bytes[i]; off += es) {
            const uint8_t *x = a->data[i] + off, *y = b[i] + off;
            FZ_CHECK(memcmp(x, y, es) == 0 || (!exact && fz_is_nan(t, x) && fz_is_nan(t, y)),
                     "output %u differs at byte %llu from the scalar caller's-thread operator", i,
                     (unsigned long long)off);
        }
    }
}

static void fz_side_init(fz_side *s, const dmlcpu_tensor_desc *const *t, uint32_t count)
{
    s->count = count;
    for (uint32_t i = 0; i < count; i++) {
        s->t[i] = t[i];
        s->bytes[i] = t[i]->total_tensor_size_in_bytes ? t[i]->total_tensor_size_in_bytes
                                                       : fz_addressed_bytes(t[i], NULL);
        s->data[i] = s->before[i] = NULL;
    }
}

/* Whether a created operator's tensors are valid and small enough to execute here. */
static int fz_checked_and_small(const fz_side *s, int is_output)
{
    int small = 1;
    for (uint32_t i = 0; i < s->count; i++) {
        const dmlcpu_tensor_desc *t = s->t[i];
        uint64_t elements = 0, need = fz_addressed_bytes(t, &elements);
        FZ_CHECK(need != 0, "created with an invalid or overflowing tensor %u", i);
        FZ_CHECK(t->total_tensor_size_in_bytes == 0 || t->total_tensor_size_in_bytes >= need,
                 "created with TotalTensorSizeInBytes %llu < addressed %llu",
                 (unsigned long long)t->total_tensor_size_in_bytes, (unsigned long long)need);
        uint64_t rounded = need > UINT64_MAX - 3 ? 0 : (need + 3) / 4 * 4; /* 0: overflow */
        FZ_CHECK(dmlcpu_calc_buffer_tensor_size(t->data_type, t->dimension_count, t->sizes,
                                                t->strides) == rounded,
                 "calc_buffer_tensor_size is not the addressed size rounded up to 4");
        for (uint32_t d = 0; is_output && t->strides && d < t->dimension_count; d++)
            FZ_CHECK(t->strides[d] != 0 || t->sizes[d] == 1, "created with output stride 0");
        if (s->bytes[i] > FZ_MAX_BYTES || elements > FZ_MAX_ELEMENTS)
            small = 0;
    }
    return small;
}

void fz_create_and_run(fz_reader *r, const dmlcpu_operator_desc *desc,
                       const dmlcpu_create_options *options,
                       const dmlcpu_tensor_desc *const *inputs, uint32_t input_count,
                       const dmlcpu_tensor_desc *const *outputs, uint32_t output_count)
{
    dmlcpu_execute(NULL, NULL);
    char marker[256];
    snprintf(marker, sizeof marker, "%s", dmlcpu_last_error_message());
    dmlcpu_operator *op = (dmlcpu_operator *)&marker; /* must be overwritten */
    dmlcpu_status st = dmlcpu_create_operator(desc, options, &op);
    if (st != DMLCPU_STATUS_OK) {
        FZ_CHECK(st == DMLCPU_STATUS_INVALID_ARGUMENT || st == DMLCPU_STATUS_UNSUPPORTED ||
                     st == DMLCPU_STATUS_OUT_OF_MEMORY, "create returned status %d", (int)st);
        FZ_CHECK(op == NULL, "a refused create returned an operator");
        FZ_CHECK(strcmp(dmlcpu_last_error_message(), marker) != 0 && dmlcpu_last_error_message()[0],
                 "a refused create (status %d) left no message", (int)st);
        return;
    }
    FZ_CHECK(op != NULL && op != (dmlcpu_operator *)&marker, "create returned OK without an operator");
    FZ_CHECK(input_count <= FZ_MAX_BUFFERS && output_count <= FZ_MAX_BUFFERS,
             "created with %u inputs and %u outputs", input_count, output_count);
    dmlcpu_binding_properties bp = {0};
    dmlcpu_get_binding_properties(op, &bp);
    FZ_CHECK(bp.input_count == input_count && bp.output_count == output_count,
             "binding properties %u inputs, %u outputs; the descriptor has %u, %u", bp.input_count,
             bp.output_count, input_count, output_count);
    fz_side in, out;
    fz_side_init(&in, inputs, input_count);
    fz_side_init(&out, outputs, output_count);
    int small = fz_checked_and_small(&in, 0) & fz_checked_and_small(&out, 1);
    if (!small || bp.temporary_size_in_bytes > FZ_MAX_TEMP) {
        dmlcpu_destroy_operator(op);
        return;
    }

    uint64_t seed = fz_u64(r);
    fz_side *sides[2] = {&in, &out};
    for (int s = 0; s < 2; s++)
        for (uint32_t i = 0; i < sides[s]->count; i++) {
            uint64_t n = sides[s]->bytes[i];
            sides[s]->data[i] = malloc(n);
            sides[s]->before[i] = malloc(n);
            fz_fill(sides[s]->data[i], n, seed + 31 * (uint64_t)s + i);
            memcpy(sides[s]->before[i], sides[s]->data[i], n);
        }
    uint64_t temp_bytes = bp.temporary_size_in_bytes;
    uint8_t *temp = temp_bytes ? malloc(temp_bytes) : NULL;
    if (temp)
        fz_fill(temp, temp_bytes, ~seed);

    fz_execute_broken(r, op, &in, &out, temp, temp_bytes);

    st = fz_execute(op, &in, &out, temp, temp_bytes);
    FZ_CHECK(st == DMLCPU_STATUS_OK, "execute on exact buffers returned %d: %s", (int)st,
             dmlcpu_last_error_message());
    fz_unchanged(&in, "input", "a successful execute");

    /* The same descriptor at the scalar level on the caller's thread only, on the same inputs and
     * initial outputs: SPEC 4 promises the same bits for every level and thread count. */
    dmlcpu_create_options one = {1, NULL, NULL};
    dmlcpu_operator *serial = NULL;
    dmlcpu_set_max_isa(DMLCPU_ISA_SCALAR);
    st = dmlcpu_create_operator(desc, &one, &serial);
    FZ_CHECK(st == DMLCPU_STATUS_OK, "the descriptor was accepted with other options, now %d: %s",
             (int)st, dmlcpu_last_error_message());
    dmlcpu_get_binding_properties(serial, &bp);
    uint8_t *temp1 = bp.temporary_size_in_bytes ? malloc(bp.temporary_size_in_bytes) : NULL;
    fz_side out1 = out;
    for (uint32_t i = 0; i < out.count; i++)
        out1.data[i] = out.before[i];
    st = fz_execute(serial, &in, &out1, temp1, bp.temporary_size_in_bytes);
    FZ_CHECK(st == DMLCPU_STATUS_OK, "serial execute returned %d", (int)st);
    fz_same_outputs(&out, out1.data, desc->type >= DMLCPU_OPERATOR_SLICE);

    dmlcpu_destroy_operator(serial);
    dmlcpu_destroy_operator(op);
    free(temp1);
    free(temp);
    for (int s = 0; s < 2; s++)
        for (uint32_t i = 0; i < sides[s]->count; i++) {
            free(sides[s]->data[i]);
            free(sides[s]->before[i]);
        }
}
