/*
 * A self-contained check without Criterion (no worker processes), so it can run under an
 * emulator with another CPU model: every REDUCE function over every allowed type, ARGMIN /
 * ARGMAX in both directions and the copy operators, on row, column and gathered shapes, compared
 * with the oracle. Exact, except LOG_SUM and LOG_SUM_EXP (the library's own exp/log): relative
 * 1e-5 (FLOAT16: 1e-3). Prints the detected ISA and "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmlcpu.h>

#include "levels.h"
#include "reference.h"

static int passed, failed;

static void fill(dmlcpu_data_type t, void *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        int v = (int)((seed >> 16) % 61) - 30; /* small values, ties, both signs */
        double f = v / 8.0;
        switch (t) {
        case DMLCPU_DATA_TYPE_FLOAT32: ((float *)buf)[i] = (float)f; break;
        case DMLCPU_DATA_TYPE_FLOAT64: ((double *)buf)[i] = f; break;
        case DMLCPU_DATA_TYPE_FLOAT16: ((uint16_t *)buf)[i] = ref_f32_to_f16((float)f); break;
        case DMLCPU_DATA_TYPE_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
        case DMLCPU_DATA_TYPE_UINT8: ((uint8_t *)buf)[i] = (uint8_t)(v + 30); break;
        case DMLCPU_DATA_TYPE_INT16: ((int16_t *)buf)[i] = (int16_t)(v * 1000); break;
        case DMLCPU_DATA_TYPE_UINT16: ((uint16_t *)buf)[i] = (uint16_t)(v + 30); break;
        case DMLCPU_DATA_TYPE_INT32: ((int32_t *)buf)[i] = v * 100000; break;
        case DMLCPU_DATA_TYPE_UINT32: ((uint32_t *)buf)[i] = (uint32_t)(v + 30) * 70000u; break;
        case DMLCPU_DATA_TYPE_INT64: ((int64_t *)buf)[i] = (int64_t)v * ((int64_t)1 << 40); break;
        default: ((uint64_t *)buf)[i] = (uint64_t)(v + 30) << 40; break;
        }
    }
}

static double as_double(dmlcpu_data_type t, const void *p)
{
    switch (t) {
    case DMLCPU_DATA_TYPE_FLOAT32: return *(const float *)p;
    case DMLCPU_DATA_TYPE_FLOAT64: return *(const double *)p;
    default: return ref_f16_to_f32(*(const uint16_t *)p);
    }
}

/* Runs desc through the library and the oracle (one input, one output) and compares. */
static void check(const char *what, const dmlcpu_operator_desc *desc, const dmlcpu_tensor_desc *in,
                  const dmlcpu_tensor_desc *out, int log_tolerance)
{
    size_t ib = (size_t)dmlcpu_calc_buffer_tensor_size(in->data_type, in->dimension_count, in->sizes, in->strides);
    size_t ob = (size_t)dmlcpu_calc_buffer_tensor_size(out->data_type, out->dimension_count, out->sizes, out->strides);
    unsigned char *x = malloc(ib), *got = calloc(ob, 1), *want = calloc(ob, 1);
    fill(in->data_type, x, ib / ref_type_size(in->data_type), (unsigned)ib);
    dmlcpu_operator *op = NULL;
    dmlcpu_status st = dmlcpu_create_operator(desc, NULL, &op);
    int ok = st == DMLCPU_STATUS_OK;
    if (ok) {
        dmlcpu_binding_properties bp;
        dmlcpu_get_binding_properties(op, &bp);
        void *tmp = bp.temporary_size_in_bytes ? malloc((size_t)bp.temporary_size_in_bytes) : NULL;
        dmlcpu_buffer_binding i = {x, ib}, o = {got, ob};
        dmlcpu_bindings b = {1, &i, 1, &o, {tmp, bp.temporary_size_in_bytes}};
        ok = dmlcpu_execute(op, &b) == DMLCPU_STATUS_OK;
        free(tmp);
    }
    const void *inputs[1] = {x};
    void *outputs[1] = {want};
    ok = ok && ref_execute(desc, inputs, outputs) == DMLCPU_STATUS_OK;
    size_t es = ref_type_size(out->data_type);
    for (size_t k = 0; ok && k < ob / es; k++) {
        const unsigned char *g = got + k * es, *w = want + k * es;
        if (memcmp(g, w, es) == 0)
            continue;
        if (log_tolerance && ref_type_is_float(out->data_type)) {
            double a = as_double(out->data_type, g), e = as_double(out->data_type, w);
            double tol = out->data_type == DMLCPU_DATA_TYPE_FLOAT16 ? 1e-3 : 1e-5;
            if ((isnan(a) && isnan(e)) || fabs(a - e) <= tol * fabs(e))
                continue;
        }
        ok = 0;
    }
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAILED: %s (%s; create %s %s)\n", what, dmlcpu_isa_name(dmlcpu_operator_isa(op)),
               dmlcpu_status_string(st), dmlcpu_last_error_message());
    }
    dmlcpu_destroy_operator(op);
    free(x);
    free(got);
    free(want);
}

int main(void)
{
    static const dmlcpu_data_type types[] = {
        DMLCPU_DATA_TYPE_FLOAT32, DMLCPU_DATA_TYPE_FLOAT16, DMLCPU_DATA_TYPE_UINT32,
        DMLCPU_DATA_TYPE_UINT16,  DMLCPU_DATA_TYPE_UINT8,   DMLCPU_DATA_TYPE_INT32,
        DMLCPU_DATA_TYPE_INT16,   DMLCPU_DATA_TYPE_INT8,    DMLCPU_DATA_TYPE_FLOAT64,
        DMLCPU_DATA_TYPE_UINT64,  DMLCPU_DATA_TYPE_INT64};
    /* shapes: rows (reduce the last axis), columns (axis 0), a gather (axes 0 and 2) */
    static const struct { uint32_t rank, sizes[3], count, axes[2]; } shapes[] = {
        {2, {5, 4500, 1}, 1, {1, 0}}, {2, {4100, 19, 1}, 1, {0, 0}}, {3, {33, 3, 70}, 2, {0, 2}}};
    const int level = tu_check_isa_level();
    if (level != 0)
        return level;
    char what[160];
    printf("detected ISA: %s\n", dmlcpu_isa_name(dmlcpu_detected_isa()));
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        dmlcpu_data_type t = types[ti];
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            uint32_t osz[3];
            memcpy(osz, shapes[si].sizes, sizeof osz);
            for (uint32_t a = 0; a < shapes[si].count; a++)
                osz[shapes[si].axes[a]] = 1;
            dmlcpu_tensor_desc in = {t, shapes[si].rank, shapes[si].sizes, NULL, 0};
            for (int f = DMLCPU_REDUCE_FUNCTION_ARGMAX; f <= DMLCPU_REDUCE_FUNCTION_SUM_SQUARE; f++) {
                int arg = f <= DMLCPU_REDUCE_FUNCTION_ARGMIN;
                dmlcpu_data_type ot = arg ? DMLCPU_DATA_TYPE_INT64 : t;
                if (!ref_reduce_supported((dmlcpu_reduce_function)f, t, ot))
                    continue;
                dmlcpu_tensor_desc out = {ot, shapes[si].rank, osz, NULL, 0};
                dmlcpu_reduce_operator_desc r = {(dmlcpu_reduce_function)f, &in, &out,
                                                 shapes[si].count, shapes[si].axes};
                dmlcpu_operator_desc d = {DMLCPU_OPERATOR_REDUCE, &r};
                snprintf(what, sizeof what, "REDUCE function %d type %d shape %zu", f, (int)t, si);
                check(what, &d, &in, &out,
                      f == DMLCPU_REDUCE_FUNCTION_LOG_SUM || f == DMLCPU_REDUCE_FUNCTION_LOG_SUM_EXP);
            }
            for (int dir = 0; dir < 2; dir++) {
                dmlcpu_tensor_desc out = {DMLCPU_DATA_TYPE_UINT32, shapes[si].rank, osz, NULL, 0};
                dmlcpu_argmin_operator_desc a = {&in, &out, shapes[si].count, shapes[si].axes,
                                                 (dmlcpu_axis_direction)dir};
                dmlcpu_operator_desc d = {DMLCPU_OPERATOR_ARGMAX, &a};
                snprintf(what, sizeof what, "ARGMAX direction %d type %d shape %zu", dir, (int)t, si);
                check(what, &d, &in, &out, 0);
            }
        }
        /* copies: a transpose and a reversed, stepped slice */
        uint32_t sz[2] = {37, 45}, tst[2] = {1, 37}; /* a packed 45 x 37 buffer read transposed */
        dmlcpu_tensor_desc in = {t, 2, sz, NULL, 0}, tin = {t, 2, sz, tst, 0}, tout = {t, 2, sz, NULL, 0};
        dmlcpu_identity_operator_desc id = {&tin, &tout};
        dmlcpu_operator_desc d = {DMLCPU_OPERATOR_IDENTITY, &id};
        snprintf(what, sizeof what, "IDENTITY transpose type %d", (int)t);
        check(what, &d, &tin, &tout, 0);
        uint32_t off[2] = {2, 3}, win[2] = {30, 40}, osz[2] = {10, 40};
        int32_t step[2] = {-3, 1};
        dmlcpu_tensor_desc sout = {t, 2, osz, NULL, 0};
        dmlcpu_slice_operator_desc s = {&in, &sout, 2, off, win, step};
        d = (dmlcpu_operator_desc){DMLCPU_OPERATOR_SLICE, &s};
        snprintf(what, sizeof what, "SLICE type %d", (int)t);
        check(what, &d, &in, &sout, 0);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
