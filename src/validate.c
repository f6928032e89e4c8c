/* Every rule of the SPEC (sections 2, 3 and 5), checked at create. One function per operator;
 * each failure names the operator, the field, the values and the rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define INVALID DMLCPU_STATUS_INVALID_ARGUMENT
#define OK DMLCPU_STATUS_OK

static const char *const function_names[] = {
    "ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP",
    "MAX", "MIN", "MULTIPLY", "SUM", "SUM_SQUARE",
};

/* "{3,1,4}" into buf. */
static const char *fmt_u32s(char *buf, size_t cap, const uint32_t *v, uint32_t n)
{
    size_t len = 0;
    buf[len++] = '{';
    for (uint32_t i = 0; i < n && len + 12 < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, i ? ",%u" : "%u", v[i]);
    snprintf(buf + len, cap - len, "}");
    return buf;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* An output must address every element once: no zero stride on a dim of size > 1, and no two
 * coordinates at the same offset. Strides that nest (sorted, each larger than the span of the
 * smaller ones) prove it at once; other layouts are checked element by element when small. */
static dmlcpu_status check_output_once(const char *op, const char *field, const dmlcpu_tensor_desc *t)
{
    if (!t->strides)
        return OK;
    uint32_t n = 0, size[DMLCPU_MAX_RANK], order[DMLCPU_MAX_RANK];
    uint64_t stride[DMLCPU_MAX_RANK], elements = 1;
    for (uint32_t i = 0; i < t->dimension_count; i++) {
        if (t->sizes[i] == 1)
            continue;
        if (t->strides[i] == 0)
            return set_error(INVALID,
                             "%s: %s.Strides[%u] is 0 with Sizes[%u] = %u; an output must not address an element twice",
                             op, field, i, i, t->sizes[i]);
        size[n] = t->sizes[i];
        stride[n] = t->strides[i];
        order[n] = n;
        elements *= size[n];
        n++;
    }
    for (uint32_t i = 1; i < n; i++) /* insertion sort by stride */
        for (uint32_t j = i; j > 0 && stride[order[j - 1]] > stride[order[j]]; j--) {
            uint32_t tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    uint64_t span = 0; /* offset of the last element of the dims seen so far */
    bool nested = true;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t d = order[k];
        if (stride[d] <= span)
            nested = false;
        span += (uint64_t)(size[d] - 1) * stride[d]; /* cannot overflow: the required size fits */
    }
    if (nested)
        return OK;
    /* Dividing every stride by their greatest common divisor keeps the question the same and
     * often makes the span small enough to check. */
    uint64_t g = 0;
    for (uint32_t d = 0; d < n; d++)
        g = gcd_u64(g, stride[d]);
    span = 0;
    for (uint32_t d = 0; d < n; d++) {
        stride[d] /= g;
        span += (uint64_t)(size[d] - 1) * stride[d];
    }
    char sb[128], zb[128];
    fmt_u32s(sb, sizeof sb, t->strides, t->dimension_count);
    fmt_u32s(zb, sizeof zb, t->sizes, t->dimension_count);
    /* Element by element: a bitmap over the span when it is small, else the sorted offsets
     * when the elements are few; beyond both, the layout is refused as unsupported. */
    const uint64_t limit = (uint64_t)1 << 26;
    bool bitmap = span < limit;
    if (!bitmap && elements > limit / 16)
        return set_error(DMLCPU_STATUS_UNSUPPORTED,
                         "%s: %s.Strides %s with Sizes %s interleave over %llu elements, too many to prove that no element is addressed twice",
                         op, field, sb, zb, (unsigned long long)span + 1);
    uint8_t *seen = bitmap ? calloc((size_t)(span / 8 + 1), 1) : NULL;
    uint64_t *offs = bitmap ? NULL : malloc((size_t)elements * sizeof *offs);
    if (!seen && !offs)
        return set_error(DMLCPU_STATUS_OUT_OF_MEMORY, "%s: out of memory", op);
    uint32_t c[DMLCPU_MAX_RANK] = {0};
    bool twice = false;
    uint64_t off = 0;
    for (uint64_t e = 0; e < elements && !twice; e++) {
        off = 0;
        for (uint32_t d = 0; d < n; d++)
            off += (uint64_t)c[d] * stride[d];
        if (bitmap) {
            twice = seen[off / 8] & (1u << (off % 8));
            seen[off / 8] |= (uint8_t)(1u << (off % 8));
        } else {
            offs[e] = off;
        }
        for (uint32_t d = n; d-- > 0;) {
            if (++c[d] < size[d])
                break;
            c[d] = 0;
        }
    }
    if (!bitmap) {
        qsort(offs, (size_t)elements, sizeof *offs, cmp_u64);
        for (uint64_t e = 1; e < elements && !twice; e++)
            if (offs[e] == offs[e - 1]) {
                twice = true;
                off = offs[e];
            }
    }
    free(seen);
    free(offs);
    if (twice)
        return set_error(INVALID,
                         "%s: %s.Strides %s with Sizes %s address element offset %llu twice; an output must address each element once",
                         op, field, sb, zb, (unsigned long long)(off * g));
    return OK;
}

/* Section 2: one tensor description. */
static dmlcpu_status check_tensor(const char *op, const char *field, const dmlcpu_tensor_desc *t,
                                  bool is_output)
{
    if (!t)
        return set_error(INVALID, "%s: %s is NULL", op, field);
    if (!dtype_valid(t->data_type))
        return set_error(INVALID, "%s: %s.DataType is %d, not a data type (1..11)", op, field,
                         (int)t->data_type);
    if (t->dimension_count < 1 || t->dimension_count > DMLCPU_MAX_RANK)
        return set_error(INVALID, "%s: %s.DimensionCount is %u, must be 1..8", op, field,
                         t->dimension_count);
    if (!t->sizes)
        return set_error(INVALID, "%s: %s.Sizes is NULL", op, field);
    uint64_t elements = 1;
    for (uint32_t i = 0; i < t->dimension_count; i++) {
        if (t->sizes[i] == 0)
            return set_error(INVALID, "%s: %s.Sizes[%u] is 0, every size must be >= 1", op, field, i);
        elements *= t->sizes[i];
        if (elements > DMLCPU_MAX_ELEMENTS) {
            char zb[128];
            return set_error(INVALID, "%s: %s.Sizes %s hold more than 2^32-1 elements", op, field,
                             fmt_u32s(zb, sizeof zb, t->sizes, t->dimension_count));
        }
    }
    uint64_t need;
    if (!tensor_addressed_bytes(t->data_type, t->dimension_count, t->sizes, t->strides, &need)) {
        char sb[128];
        return set_error(INVALID, "%s: %s.Strides %s make the addressed size overflow 64 bits",
                         op, field, fmt_u32s(sb, sizeof sb, t->strides, t->dimension_count));
    }
    if (t->total_tensor_size_in_bytes != 0 && t->total_tensor_size_in_bytes < need)
        return set_error(INVALID,
                         "%s: %s.TotalTensorSizeInBytes is %llu, less than the %llu bytes its sizes and strides address",
                         op, field, (unsigned long long)t->total_tensor_size_in_bytes,
                         (unsigned long long)need);
    return is_output ? check_output_once(op, field, t) : OK;
}

static dmlcpu_status check_same_type(const char *op, const char *field, const dmlcpu_tensor_desc *t,
                                     const char *ref_field, const dmlcpu_tensor_desc *ref)
{
    if (t->data_type != ref->data_type)
        return set_error(INVALID, "%s: %s.DataType is %s, expected %s (%s.DataType)", op, field,
                         dtype_name(t->data_type), dtype_name(ref->data_type), ref_field);
    return OK;
}

static dmlcpu_status check_same_rank(const char *op, const char *field, const dmlcpu_tensor_desc *t,
                                     const char *ref_field, const dmlcpu_tensor_desc *ref)
{
    if (t->dimension_count != ref->dimension_count)
        return set_error(INVALID, "%s: %s.DimensionCount is %u, expected %u (%s.DimensionCount)", op,
                         field, t->dimension_count, ref->dimension_count, ref_field);
    return OK;
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        dmlcpu_status st_ = (expr);                                                                \
        if (st_ != OK)                                                                             \
            return st_;                                                                            \
    } while (0)

/* Bit masks of the input types each REDUCE function takes (SPEC 3.1). */
#define TYPE_BIT(t) (1u << DMLCPU_DATA_TYPE_##t)
#define ALL_TYPES 0xffeu
#define SUM_TYPES (TYPE_BIT(FLOAT16) | TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT64) | TYPE_BIT(INT32) | \
                   TYPE_BIT(UINT32) | TYPE_BIT(INT64) | TYPE_BIT(UINT64))
#define FLOAT_TYPES (TYPE_BIT(FLOAT16) | TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT64))
#define INDEX_TYPES (TYPE_BIT(INT32) | TYPE_BIT(INT64) | TYPE_BIT(UINT32) | TYPE_BIT(UINT64))

static const uint32_t function_types[12] = {
    [DMLCPU_REDUCE_FUNCTION_ARGMAX] = ALL_TYPES,       [DMLCPU_REDUCE_FUNCTION_ARGMIN] = ALL_TYPES,
    [DMLCPU_REDUCE_FUNCTION_AVERAGE] = FLOAT_TYPES,    [DMLCPU_REDUCE_FUNCTION_L1] = SUM_TYPES,
    [DMLCPU_REDUCE_FUNCTION_L2] = FLOAT_TYPES,         [DMLCPU_REDUCE_FUNCTION_LOG_SUM] = FLOAT_TYPES,
    [DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP] = FLOAT_TYPES, [DMLCPU_REDUCE_FUNCTION_MAX] = ALL_TYPES,
    [DMLCPU_REDUCE_FUNCTION_MIN] = ALL_TYPES,          [DMLCPU_REDUCE_FUNCTION_MULTIPLY] = SUM_TYPES,
    [DMLCPU_REDUCE_FUNCTION_SUM] = SUM_TYPES,          [DMLCPU_REDUCE_FUNCTION_SUM_SQUARE] = SUM_TYPES,
};

static const char *type_list(uint32_t mask, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int t = 1; t <= 11; t++)
        if (mask & (1u << t))
            len += (size_t)snprintf(buf + len, cap - len, len ? ", %s" : "%s",
                                    dtype_name((dmlcpu_data_type)t));
    return buf;
}

/* Sections 3.1 and 3.2. */
dmlcpu_status validate_reduce(const char *op, const dmlcpu_reduce_operator_desc *d, bool standalone_arg,
                              dmlcpu_axis_direction direction)
{
    if (!standalone_arg && (unsigned)d->function > DMLCPU_REDUCE_FUNCTION_SUM_SQUARE)
        return set_error(INVALID, "%s: Function is %d, not a reduce function (0..11)", op,
                         (int)d->function);
    if (standalone_arg && (unsigned)direction > DMLCPU_AXIS_DIRECTION_DECREASING)
        return set_error(INVALID, "%s: AxisDirection is %d, must be INCREASING (0) or DECREASING (1)",
                         op, (int)direction);
    const dmlcpu_tensor_desc *in = d->input_tensor, *out = d->output_tensor;
    TRY(check_tensor(op, "InputTensor", in, false));
    TRY(check_tensor(op, "OutputTensor", out, true));
    TRY(check_same_rank(op, "OutputTensor", out, "InputTensor", in));
    uint32_t rank = in->dimension_count;
    if (d->axis_count < 1 || d->axis_count > rank)
        return set_error(INVALID, "%s: AxisCount is %u, must be 1..%u (the input's rank)", op,
                         d->axis_count, rank);
    if (!d->axes)
        return set_error(INVALID, "%s: Axes is NULL with AxisCount %u", op, d->axis_count);
    int first[DMLCPU_MAX_RANK];
    for (uint32_t i = 0; i < rank; i++)
        first[i] = -1;
    for (uint32_t i = 0; i < d->axis_count; i++) {
        uint32_t a = d->axes[i];
        if (a >= rank)
            return set_error(INVALID, "%s: Axes[%u] is %u, must be < %u (the input's rank)", op, i, a,
                             rank);
        if (first[a] >= 0)
            return set_error(INVALID, "%s: Axes[%u] is %u, a duplicate of Axes[%d]", op, i, a, first[a]);
        first[a] = (int)i;
    }
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) {
        bool reduced = first[i] >= 0;
        uint32_t want = reduced ? 1 : in->sizes[i];
        if (out->sizes[i] != want) {
            if (reduced)
                return set_error(INVALID, "%s: OutputTensor.Sizes[%u] is %u, expected 1 because axis %u is reduced",
                                 op, i, out->sizes[i], i);
            return set_error(INVALID, "%s: OutputTensor.Sizes[%u] is %u, expected %u (InputTensor.Sizes[%u]) because axis %u is kept",
                             op, i, out->sizes[i], want, i, i);
        }
        if (reduced)
            n *= in->sizes[i];
    }
    bool arg = d->function == DMLCPU_REDUCE_FUNCTION_ARGMAX || d->function == DMLCPU_REDUCE_FUNCTION_ARGMIN;
    const char *fname = function_names[d->function];
    char buf[160];
    if (arg) {
        if (!(INDEX_TYPES & (1u << out->data_type)))
            return set_error(INVALID, "%s: OutputTensor.DataType is %s, %s outputs INT32, INT64, UINT32 or UINT64",
                             op, dtype_name(out->data_type), fname);
        uint64_t max_index = out->data_type == DMLCPU_DATA_TYPE_INT32    ? INT32_MAX
                             : out->data_type == DMLCPU_DATA_TYPE_UINT32 ? UINT32_MAX
                                                                         : UINT64_MAX;
        if (n - 1 > max_index)
            return set_error(INVALID,
                             "%s: OutputTensor.DataType is %s, too narrow for the largest index %llu (the reduced axes hold %llu elements)",
                             op, dtype_name(out->data_type), (unsigned long long)(n - 1),
                             (unsigned long long)n);
    } else {
        TRY(check_same_type(op, "OutputTensor", out, "InputTensor", in));
    }
    if (!(function_types[d->function] & (1u << in->data_type)))
        return set_error(DMLCPU_STATUS_UNSUPPORTED, "%s: InputTensor.DataType is %s, not supported by %s (it takes %s)",
                         op, dtype_name(in->data_type), fname,
                         type_list(function_types[d->function], buf, sizeof buf));
    return OK;
}

/* Sections 3.3 and 3.4. big is the slice's input shape (SLICE: the input, SLICE_GRAD: the output
 * gradient), small the window's result (SLICE: the output, SLICE_GRAD: the input gradient). */
dmlcpu_status validate_slice(const char *op, const dmlcpu_tensor_desc *big, const dmlcpu_tensor_desc *small,
                             const char *big_field, const char *small_field, uint32_t dimension_count,
                             const uint32_t *offsets, const uint32_t *sizes, const int32_t *strides,
                             bool grad)
{
    TRY(check_tensor(op, big_field, big, grad));
    TRY(check_tensor(op, small_field, small, !grad));
    TRY(check_same_type(op, small_field, small, big_field, big));
    TRY(check_same_rank(op, small_field, small, big_field, big));
    uint32_t rank = big->dimension_count;
    if (dimension_count != rank)
        return set_error(INVALID, "%s: DimensionCount is %u, expected %u (%s.DimensionCount)", op,
                         dimension_count, rank, big_field);
    if (!offsets)
        return set_error(INVALID, "%s: InputWindowOffsets is NULL", op);
    if (!sizes)
        return set_error(INVALID, "%s: InputWindowSizes is NULL", op);
    if (!strides)
        return set_error(INVALID, "%s: InputWindowStrides is NULL", op);
    for (uint32_t i = 0; i < rank; i++) {
        if (sizes[i] < 1)
            return set_error(INVALID, "%s: InputWindowSizes[%u] is 0, must be >= 1", op, i);
        if ((uint64_t)offsets[i] + sizes[i] > big->sizes[i])
            return set_error(INVALID,
                             "%s: InputWindowOffsets[%u] + InputWindowSizes[%u] is %u + %u = %llu, more than %s.Sizes[%u] = %u",
                             op, i, i, offsets[i], sizes[i], (unsigned long long)offsets[i] + sizes[i],
                             big_field, i, big->sizes[i]);
        if (strides[i] == 0)
            return set_error(INVALID, "%s: InputWindowStrides[%u] is 0, must not be 0", op, i);
        uint64_t step = strides[i] < 0 ? (uint64_t)(-(int64_t)strides[i]) : (uint64_t)strides[i];
        uint64_t most = 1 + (sizes[i] - 1) / step;
        if (small->sizes[i] > most)
            return set_error(INVALID,
                             "%s: %s.Sizes[%u] is %u, more than 1 + (InputWindowSizes[%u] - 1) / |InputWindowStrides[%u]| = 1 + (%u - 1) / %llu = %llu",
                             op, small_field, i, small->sizes[i], i, i, sizes[i],
                             (unsigned long long)step, (unsigned long long)most);
    }
    return OK;
}

/* Section 3.5: whole is SPLIT's input or JOIN's output; parts the other side. */
dmlcpu_status validate_split_join(const char *op, const dmlcpu_tensor_desc *whole, const char *whole_field,
                                  uint32_t part_count, const dmlcpu_tensor_desc *parts,
                                  const char *parts_field, const char *count_field, uint32_t axis)
{
    bool whole_is_output = strcmp(whole_field, "OutputTensor") == 0;
    TRY(check_tensor(op, whole_field, whole, whole_is_output));
    if (part_count < 1)
        return set_error(INVALID, "%s: %s is 0, must be >= 1", op, count_field);
    if (!parts)
        return set_error(INVALID, "%s: %s is NULL with %s %u", op, parts_field, count_field, part_count);
    uint32_t rank = whole->dimension_count;
    if (axis >= rank)
        return set_error(INVALID, "%s: Axis is %u, must be < %u (%s.DimensionCount)", op, axis, rank,
                         whole_field);
    uint64_t total = 0;
    char field[64];
    for (uint32_t k = 0; k < part_count; k++) {
        const dmlcpu_tensor_desc *p = &parts[k];
        snprintf(field, sizeof field, "%s[%u]", parts_field, k);
        TRY(check_tensor(op, field, p, !whole_is_output));
        TRY(check_same_type(op, field, p, whole_field, whole));
        TRY(check_same_rank(op, field, p, whole_field, whole));
        for (uint32_t i = 0; i < rank; i++)
            if (i != axis && p->sizes[i] != whole->sizes[i])
                return set_error(INVALID, "%s: %s.Sizes[%u] is %u, expected %u (%s.Sizes[%u]) off the axis %u",
                                 op, field, i, p->sizes[i], whole->sizes[i], whole_field, i, axis);
        total += p->sizes[axis];
    }
    if (total != whole->sizes[axis])
        return set_error(INVALID, "%s: the %s' Sizes[%u] add up to %llu, expected %u (%s.Sizes[%u])", op,
                         parts_field, axis, (unsigned long long)total, whole->sizes[axis], whole_field, axis);
    return OK;
}

/* Section 3.6. */
dmlcpu_status validate_identity(const char *op, const dmlcpu_identity_operator_desc *d)
{
    TRY(check_tensor(op, "InputTensor", d->input_tensor, false));
    TRY(check_tensor(op, "OutputTensor", d->output_tensor, true));
    TRY(check_same_type(op, "OutputTensor", d->output_tensor, "InputTensor", d->input_tensor));
    TRY(check_same_rank(op, "OutputTensor", d->output_tensor, "InputTensor", d->input_tensor));
    for (uint32_t i = 0; i < d->input_tensor->dimension_count; i++)
        if (d->output_tensor->sizes[i] != d->input_tensor->sizes[i])
            return set_error(INVALID, "%s: OutputTensor.Sizes[%u] is %u, expected %u (InputTensor.Sizes[%u])",
                             op, i, d->output_tensor->sizes[i], d->input_tensor->sizes[i], i);
    return OK;
}
