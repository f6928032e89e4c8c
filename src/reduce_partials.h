/* The partials of REDUCE (kernels.h): how two combine, the pairwise tree of SPEC 4 step 5 over
 * them, and how the final one becomes an output element. Shared by every loop shape and tile
 * plan of reduce.c, so every ISA shares this part verbatim. */
#ifndef DMLCPU_REDUCE_PARTIALS_H
#define DMLCPU_REDUCE_PARTIALS_H

#include <stddef.h>

#include "internal.h"

/* The combining function of kind k for input type t (a earlier, b later), or NULL when the
 * pair has none (LOG_SUM_EXP of integers). */
combine_fn reduce_combiner(reduce_kind k, dmlcpu_data_type t);

/* ---- the pairwise tree of SPEC 4 step 5 as a binary counter ----
 * Pushing v_0, v_1, ... and merging the two newest values whenever the count of pushed values
 * has another trailing zero builds the complete power-of-two subtrees; folding what is left from
 * the newest to the oldest gives exactly "replace v_0..v_m-1 by v_0 op v_1, v_2 op v_3, ...,
 * carry an odd last one, repeat". */
typedef struct {
    uint64_t count;
    int top;
    partial s[34]; /* at most 2^32 blocks: 33 levels */
} pairwise;

static inline void pw_push(pairwise *c, partial v, combine_fn op)
{
    c->s[c->top++] = v;
    for (uint64_t k = ++c->count; !(k & 1); k >>= 1) {
        c->s[c->top - 2] = op(c->s[c->top - 2], c->s[c->top - 1]);
        c->top--;
    }
}

static inline partial pw_finish(pairwise *c, combine_fn op)
{
    while (c->top > 1) {
        c->s[c->top - 2] = op(c->s[c->top - 2], c->s[c->top - 1]);
        c->top--;
    }
    return c->s[0];
}

/* Finalizes v (divide by N, sqrt, log, LOG_SUM_EXP's m + log s; ARG*: the index) and stores it
 * as one element of p's output type at dst. */
void reduce_finish(const reduce_plan *p, partial v, void *dst);

/* reduce_finish for cnt partials into out, os bytes apart; values that need no finalize step
 * (or only AVERAGE's division or L2's sqrt) are stored without the per-element dispatch. */
void reduce_store_parts(const reduce_plan *p, const partial *parts, size_t cnt, char *out,
                        ptrdiff_t os);

#endif
