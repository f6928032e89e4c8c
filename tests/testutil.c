#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS, sysconf under -std=c11 */

#include "testutil.h"
#include "levels.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <criterion/criterion.h>

/* ------------------------------------------------------------------------------------------ */
/* Random numbers: splitmix64, seeded from a hash of the test's name and parameters.           */

void tu_rng_init(tu_rng *r, const char *name, uint64_t a, uint64_t b)
{
    uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
    h ^= a * UINT64_C(0x9e3779b97f4a7c15);
    h ^= b * UINT64_C(0xc2b2ae3d27d4eb4f);
    const char *env = getenv("DMLCPU_TEST_SEED");
    if (env && *env)
        h ^= strtoull(env, NULL, 0) * UINT64_C(0xd6e8feb86659fd93);
    r->state = h;
    r->seed = h;
}

uint64_t tu_rng_seed_value(const tu_rng *r)
{
    return r->seed;
}

uint64_t tu_next(tu_rng *r)
{
    uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint32_t tu_below(tu_rng *r, uint32_t n)
{
    return (uint32_t)(((tu_next(r) >> 32) * (uint64_t)n) >> 32);
}

double tu_uniform(tu_rng *r)
{
    return (double)(tu_next(r) >> 11) * 0x1p-53;
}

int tu_chance(tu_rng *r, double p)
{
    return tu_uniform(r) < p;
}

/* ------------------------------------------------------------------------------------------ */
/* Data                                                                                        */

const char *tu_type_name(dmlcpu_data_type t)
{
    static const char *const names[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32",
                                        "UINT16",  "UINT8",   "INT32",   "INT16",
                                        "INT8",    "FLOAT64", "UINT64",  "INT64"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "invalid";
}

const char *tu_data_kind_name(tu_data_kind kind)
{
    static const char *const names[] = {"plain", "special", "positive", "near-one", "raw"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "invalid";
}

const char *tu_function_name(dmlcpu_reduce_function fn)
{
    static const char *const names[] = {"ARGMAX", "ARGMIN", "AVERAGE",  "L1",
                                        "L2",     "LOG_SUM", "LOG_SUM_EXP", "MAX",
                                        "MIN",    "MULTIPLY", "SUM",    "SUM_SQUARE"};
    return (unsigned)fn < sizeof names / sizeof names[0] ? names[fn] : "invalid";
}

/* Field widths of the binary float formats. */
static void float_format(dmlcpu_data_type t, int *exp_bits, int *mant_bits)
{
    *exp_bits = t == DMLCPU_DATA_TYPE_FLOAT16 ? 5 : t == DMLCPU_DATA_TYPE_FLOAT32 ? 8 : 11;
    *mant_bits = t == DMLCPU_DATA_TYPE_FLOAT16 ? 10 : t == DMLCPU_DATA_TYPE_FLOAT32 ? 23 : 52;
}

static uint64_t float_bits(dmlcpu_data_type t, uint64_t sign, uint64_t exponent, uint64_t mantissa)
{
    int eb, mb;
    float_format(t, &eb, &mb);
    return (sign << (eb + mb)) | (exponent << mb) | (mantissa & ((UINT64_C(1) << mb) - 1));
}

/* A float special: which = 0 NaN (random payload, quiet or signalling, either sign), 1 +inf,
 * 2 -inf, 3 largest finite (either sign), 4 subnormal, 5 +-0, 6 smallest normal. */
static uint64_t float_special(tu_rng *r, dmlcpu_data_type t, int which)
{
    int eb, mb;
    float_format(t, &eb, &mb);
    const uint64_t emax = (UINT64_C(1) << eb) - 1, mmask = (UINT64_C(1) << mb) - 1;
    const uint64_t sign = tu_next(r) & 1;
    uint64_t m = tu_next(r) & mmask;
    switch (which) {
    case 0:
        if (m == 0)
            m = 1;
        return float_bits(t, sign, emax, m);
    case 1: return float_bits(t, 0, emax, 0);
    case 2: return float_bits(t, 1, emax, 0);
    case 3: return float_bits(t, sign, emax - 1, mmask);
    case 4: return float_bits(t, sign, 0, m ? m : 1);
    case 5: return float_bits(t, sign, 0, 0);
    default: return float_bits(t, sign, 1, 0);
    }
}

static void store_bits(void *p, size_t es, uint64_t bits)
{
    switch (es) {
    case 1: { uint8_t v = (uint8_t)bits; memcpy(p, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)bits; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(p, &v, 4); break; }
    default: memcpy(p, &bits, 8); break;
    }
}

/* Bits of a double value rounded once to the float type t. */
static uint64_t float_value_bits(dmlcpu_data_type t, double v)
{
    if (t == DMLCPU_DATA_TYPE_FLOAT16)
        return ref_f64_to_f16(v);
    if (t == DMLCPU_DATA_TYPE_FLOAT32) {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    uint64_t u;
    memcpy(&u, &v, 8);
    return u;
}

/* A value spread over many binades, within the type's comfortable range. */
static double spread_value(tu_rng *r, dmlcpu_data_type t)
{
    int lo = t == DMLCPU_DATA_TYPE_FLOAT16 ? -10 : t == DMLCPU_DATA_TYPE_FLOAT32 ? -24 : -40;
    int hi = t == DMLCPU_DATA_TYPE_FLOAT16 ? 4 : t == DMLCPU_DATA_TYPE_FLOAT32 ? 20 : 40;
    double v = ldexp(1.0 + tu_uniform(r), lo + (int)tu_below(r, (uint32_t)(hi - lo + 1)));
    return (tu_next(r) & 1) ? -v : v;
}

static uint64_t gen_float(tu_rng *r, dmlcpu_data_type t, tu_data_kind kind, double poison_rate)
{
    switch (kind) {
    case TU_DATA_PLAIN:
        return float_value_bits(t, 2.0 * tu_uniform(r) - 1.0);
    case TU_DATA_POSITIVE:
        return float_value_bits(t, 0.25 + 3.75 * tu_uniform(r));
    case TU_DATA_NEAR_ONE:
        return float_value_bits(t, 0.9 + 0.2 * tu_uniform(r));
    case TU_DATA_RAW:
        if (tu_chance(r, 0.15))
            return float_special(r, t, (int)tu_below(r, 7));
        return tu_next(r);
    default:
        break;
    }
    if (poison_rate > 0 && tu_chance(r, poison_rate)) {
        static const int poison[] = {0, 0, 1, 2, 3};
        return float_special(r, t, poison[tu_below(r, 5)]);
    }
    uint32_t pick = tu_below(r, 100);
    if (pick < 30) /* small integers: exact ties */
        return float_value_bits(t, (double)((int)tu_below(r, 9) - 4));
    if (pick < 40)
        return float_special(r, t, 4 + (int)tu_below(r, 3)); /* subnormal, +-0, smallest normal */
    return float_value_bits(t, spread_value(r, t));
}

static uint64_t gen_int(tu_rng *r, dmlcpu_data_type t, tu_data_kind kind)
{
    const int is_signed = ref_type_is_signed(t);
    const int bits = (int)ref_type_size(t) * 8;
    const uint64_t mask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    switch (kind) {
    case TU_DATA_PLAIN:
        return is_signed ? (uint64_t)((int64_t)tu_below(r, 201) - 100) : tu_below(r, 201);
    case TU_DATA_POSITIVE:
        return 1 + tu_below(r, 100);
    case TU_DATA_NEAR_ONE: { /* odd factors: products never collapse to 0 */
        static const int64_t odd[] = {1, 1, 1, 3, 5, 7, -1, -3};
        int64_t v = odd[tu_below(r, 8)];
        return (uint64_t)(is_signed ? v : (v < 0 ? -v : v));
    }
    case TU_DATA_RAW:
        return tu_next(r) & mask;
    default:
        break;
    }
    uint32_t pick = tu_below(r, 100);
    if (pick < 20) {
        const uint64_t max = is_signed ? mask >> 1 : mask;
        const uint64_t min = is_signed ? ~(mask >> 1) : 0; /* sign-extended minimum */
        const uint64_t extremes[] = {min, max, 0, ~UINT64_C(0), 1, min + 1, max - 1};
        return extremes[tu_below(r, 7)] & mask;
    }
    if (pick < 50)
        return is_signed ? (uint64_t)((int64_t)tu_below(r, 9) - 4) & mask : tu_below(r, 9);
    return tu_next(r) & mask;
}

void tu_store_float(dmlcpu_data_type t, void *p, double v)
{
    store_bits(p, ref_type_size(t), float_value_bits(t, v));
}

void tu_fill(tu_rng *r, dmlcpu_data_type t, void *buf, size_t count, tu_data_kind kind,
             double poison_rate)
{
    const size_t es = ref_type_size(t);
    unsigned char *p = buf;
    for (size_t i = 0; i < count; i++) {
        uint64_t bits = ref_type_is_float(t) ? gen_float(r, t, kind, poison_rate)
                                             : gen_int(r, t, kind);
        store_bits(p + i * es, es, bits);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Guarded buffers                                                                             */

void *tu_buffer_alloc(tu_buffer *b, size_t size, size_t elem_size, unsigned shift)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t tail = (size_t)shift * elem_size;
    const size_t pages = (size + tail + page - 1) / page;
    b->map_size = (pages + 2) * page; /* guard, data pages, guard */
    b->map = mmap(NULL, b->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(b->map, MAP_FAILED, "mmap of %zu bytes failed", b->map_size);
    unsigned char *base = b->map;
    cr_assert_eq(mprotect(base, page, PROT_NONE), 0, "mprotect failed");
    cr_assert_eq(mprotect(base + (pages + 1) * page, page, PROT_NONE), 0, "mprotect failed");
    /* element-aligned: only a size that is not a multiple of elem_size leaves a gap */
    const uintptr_t end = (uintptr_t)(base + (pages + 1) * page) - tail - size;
    b->data = (void *)(end - end % elem_size);
    b->size = size;
    return b->data;
}

void tu_buffer_free(tu_buffer *b)
{
    if (b->map)
        munmap(b->map, b->map_size);
    b->map = NULL;
    b->data = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Tensors                                                                                     */

void tu_tensor_init(tu_tensor *t, dmlcpu_data_type type, uint32_t rank, const uint32_t *sizes)
{
    memset(t, 0, sizeof *t);
    t->type = type;
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof sizes[0]);
}

void tu_permutation(tu_rng *r, uint32_t *perm, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = tu_below(r, i), tmp = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = tmp;
    }
}

void tu_tensor_layout(tu_tensor *t, tu_rng *r, tu_layout layout, const uint32_t *perm)
{
    uint32_t order[8];
    int padded = layout != TU_LAYOUT_PACKED_EXPLICIT;
    if (layout == TU_LAYOUT_PACKED) {
        t->has_strides = 0;
        return;
    }
    if (layout == TU_LAYOUT_PERMUTED) {
        if (perm)
            memcpy(order, perm, t->rank * sizeof order[0]);
        else
            tu_permutation(r, order, t->rank);
        padded = tu_chance(r, 0.4);
    } else {
        for (uint32_t i = 0; i < t->rank; i++)
            order[i] = i;
    }
    /* Innermost first; a padded layout may also space the innermost elements apart. */
    uint64_t s = padded && tu_chance(r, 0.25) ? 2 + tu_below(r, 2) : 1;
    int any_pad = s > 1;
    for (uint32_t j = t->rank; j-- > 0;) {
        uint32_t d = order[j];
        t->strides[d] = (uint32_t)s;
        uint32_t pad = padded && tu_chance(r, 0.5) ? 1 + tu_below(r, 5) : 0;
        if (padded && j == 1 && !any_pad && pad == 0)
            pad = 1 + tu_below(r, 3); /* guarantee at least one gap */
        any_pad |= pad > 0;
        s = s * t->sizes[d] + pad;
    }
    if (padded && !any_pad) /* rank 1: a gap means a stride above 1 */
        t->strides[order[0]] = 2;
    if (layout == TU_LAYOUT_BROADCAST) {
        int any_zero = 0;
        for (uint32_t i = 0; i < t->rank; i++)
            if (tu_chance(r, 0.4)) {
                t->strides[i] = 0;
                any_zero = 1;
            }
        if (!any_zero)
            t->strides[tu_below(r, t->rank)] = 0;
    }
    t->has_strides = 1;
}

tu_layout tu_tensor_random_layout(tu_tensor *t, tu_rng *r, int is_input)
{
    tu_layout l = (tu_layout)tu_below(r, is_input ? TU_LAYOUT_COUNT : TU_LAYOUT_BROADCAST);
    tu_tensor_layout(t, r, l, NULL);
    return l;
}

uint64_t tu_addressed_bytes(const tu_tensor *t)
{
    uint64_t last = 0, packed = 1;
    for (uint32_t i = t->rank; i-- > 0;) {
        last += (uint64_t)(t->sizes[i] - 1) * (t->has_strides ? t->strides[i] : packed);
        packed *= t->sizes[i];
    }
    return (last + 1) * ref_type_size(t->type);
}

void tu_tensor_random_declared_size(tu_tensor *t, tu_rng *r)
{
    uint32_t pick = tu_below(r, 4);
    uint64_t req = tu_addressed_bytes(t);
    t->declared_size =
        pick < 2 ? 0 : pick == 2 ? req : req + ref_type_size(t->type) * (1 + tu_below(r, 10));
}

uint64_t tu_binding_bytes(const tu_tensor *t)
{
    return t->declared_size ? t->declared_size : tu_addressed_bytes(t);
}

uint64_t tu_element_count(const tu_tensor *t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++)
        n *= t->sizes[i];
    return n;
}

dmlcpu_tensor_desc tu_desc(const tu_tensor *t)
{
    dmlcpu_tensor_desc d;
    d.data_type = t->type;
    d.dimension_count = t->rank;
    d.sizes = t->sizes;
    d.strides = t->has_strides ? t->strides : NULL;
    d.total_tensor_size_in_bytes = t->declared_size;
    return d;
}

void tu_describe_tensor(char *buf, size_t len, const tu_tensor *t)
{
    size_t n = strlen(buf);
    n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s[", tu_type_name(t->type));
    for (uint32_t i = 0; i < t->rank; i++)
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%" PRIu32, i ? "," : "",
                              t->sizes[i]);
    n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "]");
    if (t->has_strides) {
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, " strides{");
        for (uint32_t i = 0; i < t->rank; i++)
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%" PRIu32, i ? "," : "",
                                  t->strides[i]);
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "}");
    }
    if (t->declared_size)
        snprintf(buf + n, n < len ? len - n : 0, " declared %" PRIu64 "B", t->declared_size);
}

/* ------------------------------------------------------------------------------------------ */
/* Levels                                                                                      */

/* The levels of this run (parsed by main() before the tests start, so every test process
 * inherits them): one entry without DMLCPU_TEST_LEVELS. */
static tu_level levels[16];
static uint32_t level_count;
static dmlcpu_isa selected_isa;
static int level_selected;
static int levels_read;

/* Reads DMLCPU_TEST_LEVELS (comma-separated level names) into levels: 0 when the run goes on,
 * 77 when no level listed runs here, 2 when a name is not a level. */
static int read_levels(int verbose)
{
    const char *list = getenv("DMLCPU_TEST_LEVELS");
    level_count = 0;
    levels_read = 1;
    selected_isa = dmlcpu_detected_isa();
    {
        static const char *const isa_names[] = {"scalar", "portable", "avx2", "avx512", "neon"};
        const char *isa = getenv("DMLCPU_ISA");
        for (int i = 0; isa && i < 5; i++)
            if (strcmp(isa, isa_names[i]) == 0)
                selected_isa = (dmlcpu_isa)i;
    }
    if (!list || !*list) {
        level_count = 1; /* the level of DMLCPU_ISA, already checked by tu_check_isa_level */
        strcpy(levels[0].name, "");
        return 0;
    }
    char skipped[256] = "";
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        char name[32];
        tu_level lv;
        if (len >= sizeof name) {
            fprintf(stderr, "DMLCPU_TEST_LEVELS: \"%.*s\" is not a level\n", (int)len, p);
            return 2;
        }
        memcpy(name, p, len);
        name[len] = 0;
        if (!tu_parse_level(name, &lv)) {
            fprintf(stderr, "DMLCPU_TEST_LEVELS: \"%s\" is not a level\n", name);
            return 2;
        }
        if (tu_apply_level(&lv) && level_count < sizeof levels / sizeof levels[0])
            levels[level_count++] = lv;
        else
            snprintf(skipped + strlen(skipped), sizeof skipped - strlen(skipped), " %s", name);
        p += len + (p[len] == ',');
    }
    if (verbose) {
        printf("levels:");
        for (uint32_t k = 0; k < level_count; k++)
            printf(" %s", levels[k].name);
        printf("%s%s\n", skipped[0] ? "; not available here:" : "", skipped);
        if (level_count == 0)
            printf("skipped: no level of DMLCPU_TEST_LEVELS=%s runs here\n", list);
        fflush(stdout);
    }
    if (level_count == 0)
        return 77;
    dmlcpu_set_max_isa(dmlcpu_detected_isa()); /* until a test selects a level */
    dmlcpu_set_portable_target(NULL);
    return 0;
}

/* Criterion's test workers are new processes that do not run main(): they read the levels the
 * first time a test asks (main() has already rejected a list that cannot run). */
static void ensure_levels(void)
{
    if (!levels_read) {
        int status = read_levels(0);
        cr_assert_eq(status, 0, "DMLCPU_TEST_LEVELS: no level runs here (status %d)", status);
    }
}

uint32_t tu_level_count(void)
{
    ensure_levels();
    cr_assert_gt(level_count, 0);
    return level_count;
}

const char *tu_level_select(uint32_t k)
{
    ensure_levels();
    cr_assert_lt(k, level_count, "level %" PRIu32 " of %" PRIu32, k, level_count);
    level_selected = 1;
    if (!levels[k].name[0])
        return "";
    cr_assert(tu_apply_level(&levels[k]), "level %s no longer applies", levels[k].name);
    selected_isa = levels[k].isa;
    return levels[k].name;
}

/* ------------------------------------------------------------------------------------------ */
/* Running                                                                                     */

int tu_reduced(void)
{
    const char *v = getenv("DMLCPU_TEST_REDUCED");
    return v && *v && strcmp(v, "0") != 0;
}

uint32_t tu_random_threads(tu_rng *r)
{
    static const uint32_t choices[] = {0, 1, 2, 3, 7, TU_HOST_POOL};
    return choices[tu_below(r, 6)];
}

const char *tu_threads_name(uint32_t threads)
{
    switch (threads) {
    case 0: return "default threads";
    case 1: return "1 thread";
    case 2: return "2 threads";
    case 3: return "3 threads";
    case 7: return "7 threads";
    case TU_HOST_POOL: return "host pool in reverse order";
    default: return "other thread cap";
    }
}

/* A host thread pool that runs every task on the calling thread, last index first: results
 * must not depend on the order of the tasks. */
static void reverse_pool(void *pool_context, dmlcpu_task_fn task, void *task_context,
                         size_t task_count)
{
    (void)pool_context;
    for (size_t i = task_count; i-- > 0;)
        task(task_context, i);
}

void tu_run(const dmlcpu_operator_desc *desc, uint32_t threads,
            const dmlcpu_buffer_binding *inputs, uint32_t input_count,
            const dmlcpu_buffer_binding *outputs, uint32_t output_count, const char *what)
{
    dmlcpu_create_options options = {0};
    if (threads == TU_HOST_POOL)
        options.parallel_for = reverse_pool;
    else
        options.max_threads = threads;
    dmlcpu_operator *op = NULL;
    dmlcpu_status st = dmlcpu_create_operator(desc, &options, &op);
    cr_assert_eq(st, DMLCPU_STATUS_OK, "%s: create returned %s: %s", what,
                 dmlcpu_status_string(st), dmlcpu_last_error_message());
    cr_assert_not_null(op, "%s: create returned OK but no operator", what);
    ensure_levels();
    cr_assert(level_count == 1 || level_selected,
              "%s: DMLCPU_TEST_LEVELS lists several levels but this test selects none "
              "(tu_level_select)", what);
    const dmlcpu_isa cap = selected_isa;
    cr_assert_leq(dmlcpu_operator_isa(op), cap, "%s: the operator runs %s kernels above the cap %s",
                  what, dmlcpu_isa_name(dmlcpu_operator_isa(op)), dmlcpu_isa_name(cap));

    dmlcpu_binding_properties props;
    memset(&props, 0xff, sizeof props);
    dmlcpu_get_binding_properties(op, &props);
    cr_assert_eq(props.input_count, input_count, "%s: binding properties: %" PRIu32 " inputs",
                 what, props.input_count);
    cr_assert_eq(props.output_count, output_count, "%s: binding properties: %" PRIu32 " outputs",
                 what, props.output_count);
    cr_assert_lt(props.temporary_size_in_bytes, UINT64_C(1) << 36,
                 "%s: temporary size %" PRIu64 " is absurd", what, props.temporary_size_in_bytes);

    /* The temporary buffer starts 16-byte aligned, ends at a guard page, and holds garbage. */
    tu_buffer tmp;
    size_t tmp_size = (size_t)(props.temporary_size_in_bytes + 15) / 16 * 16;
    void *tmp_data = tu_buffer_alloc(&tmp, tmp_size, 1, 0);
    memset(tmp_data, 0xcd, tmp_size);

    dmlcpu_bindings b;
    b.input_count = input_count;
    b.inputs = inputs;
    b.output_count = output_count;
    b.outputs = outputs;
    b.temporary.data = props.temporary_size_in_bytes ? tmp_data : NULL;
    b.temporary.size_in_bytes = props.temporary_size_in_bytes;
    st = dmlcpu_execute(op, &b);
    cr_assert_eq(st, DMLCPU_STATUS_OK, "%s: execute returned %s: %s", what,
                 dmlcpu_status_string(st), dmlcpu_last_error_message());
    dmlcpu_destroy_operator(op);
    tu_buffer_free(&tmp);
}

/* ------------------------------------------------------------------------------------------ */
/* Comparing                                                                                   */

static uint64_t load_bits(const unsigned char *p, size_t es)
{
    switch (es) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static double float_of(dmlcpu_data_type t, uint64_t bits)
{
    if (t == DMLCPU_DATA_TYPE_FLOAT16)
        return ref_f16_to_f32((uint16_t)bits);
    if (t == DMLCPU_DATA_TYPE_FLOAT32) {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static void format_value(char *buf, size_t len, dmlcpu_data_type t, uint64_t bits)
{
    const int hexdigits = (int)ref_type_size(t) * 2;
    if (ref_type_is_float(t)) {
        snprintf(buf, len, "0x%0*" PRIx64 " (%.17g)", hexdigits, bits, float_of(t, bits));
    } else if (ref_type_is_signed(t)) {
        int shift = 64 - (int)ref_type_size(t) * 8;
        int64_t v = (int64_t)(bits << shift) >> shift;
        snprintf(buf, len, "0x%0*" PRIx64 " (%" PRId64 ")", hexdigits, bits, v);
    } else {
        snprintf(buf, len, "0x%0*" PRIx64 " (%" PRIu64 ")", hexdigits, bits, bits);
    }
}

/* One FLOAT16 unit in the last place at magnitude a. */
static double f16_ulp(double a)
{
    if (a < 0x1p-14)
        return 0x1p-24;
    int e;
    frexp(a, &e);
    return ldexp(1.0, e - 11);
}

/* LOG_SUM and LOG_SUM_EXP only. The library evaluates exp and log with its own algorithm (the
 * same on every ISA so that all ISAs agree bitwise, but not the C library's expf/logf/exp/log
 * the oracle uses), so the two cannot agree to the bit. Everything before exp and after log is
 * the canonical order, so the remaining difference is a few rounding errors of exp and log:
 * the results must agree within TU_LOG_ULPS accumulator epsilons relative to scale (|log s|
 * for LOG_SUM; |m| + |log s| + 1 for LOG_SUM_EXP, whose final m + log(s) can cancel and whose s
 * is a sum of rounded exp values: its relative error becomes an absolute one in log s), plus one
 * FLOAT16 ulp for FLOAT16 outputs whose final rounding may fall on either side. NaN and
 * infinities are special values and must match exactly. Every other function is compared
 * bitwise. */
#define TU_LOG_ULPS 8.0

static int log_close(dmlcpu_data_type t, uint64_t got_bits, uint64_t exp_bits, double scale)
{
    const double got = float_of(t, got_bits), expected = float_of(t, exp_bits);
    if (isnan(got) || isnan(expected))
        return isnan(got) && isnan(expected);
    if (isinf(got) || isinf(expected))
        return got == expected;
    const double eps = t == DMLCPU_DATA_TYPE_FLOAT64 ? 0x1p-52 : 0x1p-23;
    double allowed = TU_LOG_ULPS * eps * scale;
    if (t == DMLCPU_DATA_TYPE_FLOAT16)
        allowed += f16_ulp(fmax(fabs(got), fabs(expected)));
    return fabs(got - expected) <= allowed;
}

int tu_compare(const tu_tensor *t, const void *got, const void *expected, tu_cmp_mode mode,
               const double *scale, char *msg, size_t msg_len)
{
    const dmlcpu_tensor_desc d = tu_desc(t);
    const size_t es = ref_type_size(t->type);
    uint32_t c[8] = {0};
    size_t k = 0;
    do {
        const uint64_t off = ref_offset(&d, c) * es;
        const uint64_t g = load_bits((const unsigned char *)got + off, es);
        const uint64_t e = load_bits((const unsigned char *)expected + off, es);
        int same = g == e;
        if (!same && mode == TU_CMP_NAN_EQUAL && ref_type_is_float(t->type))
            same = isnan(float_of(t->type, g)) && isnan(float_of(t->type, e));
        if (!same && mode == TU_CMP_LOG)
            same = log_close(t->type, g, e, scale[k]);
        if (!same) {
            char gs[64], xs[64];
            format_value(gs, sizeof gs, t->type, g);
            format_value(xs, sizeof xs, t->type, e);
            int n = snprintf(msg, msg_len, "at [");
            for (uint32_t i = 0; i < t->rank; i++)
                n += snprintf(msg + n, (size_t)n < msg_len ? msg_len - (size_t)n : 0,
                              "%s%" PRIu32, i ? "," : "", c[i]);
            snprintf(msg + n, (size_t)n < msg_len ? msg_len - (size_t)n : 0,
                     "] got %s expected %s%s", gs, xs,
                     mode == TU_CMP_LOG ? " (beyond the LOG tolerance)" : "");
            return 0;
        }
        k++;
    } while (ref_next_coord(c, t->sizes, t->rank));
    if (msg_len)
        msg[0] = '\0';
    return 1;
}

int tu_compare_gaps(const tu_tensor *t, const void *got, const void *expected, size_t bytes,
                    char *msg, size_t msg_len)
{
    const dmlcpu_tensor_desc d = tu_desc(t);
    const size_t es = ref_type_size(t->type);
    unsigned char *covered = calloc(bytes ? bytes : 1, 1);
    cr_assert_not_null(covered);
    uint32_t c[8] = {0};
    do {
        const uint64_t off = ref_offset(&d, c) * es;
        if (off + es <= bytes)
            memset(covered + off, 1, es);
    } while (ref_next_coord(c, t->sizes, t->rank));
    const unsigned char *g = got, *e = expected;
    int same = 1;
    for (size_t i = 0; i < bytes && same; i++)
        if (!covered[i] && g[i] != e[i]) {
            snprintf(msg, msg_len,
                     "byte %zu of the %zu-byte output buffer, which no output element covers, "
                     "changed from 0x%02x to 0x%02x",
                     i, bytes, e[i], g[i]);
            same = 0;
        }
    free(covered);
    if (same && msg_len)
        msg[0] = '\0';
    return same;
}

/* ------------------------------------------------------------------------------------------ */
/* main() of every suite                                                                       */

int main(int argc, char *argv[])
{
    int level = tu_check_isa_level();
    if (level == 0)
        level = read_levels(1);
    if (level != 0)
        return level;

    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    int handled = criterion_handle_args(argc, argv, true);
    if (handled < 0)
        result = 1;
    else if (handled > 0)
        result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
