/* Normalisation of tensors into short lists of dims: size-1 dims vanish, neighbours whose
 * strides chain merge. Strides here are signed and count elements. */
#ifndef DMLCPU_SHAPE_H
#define DMLCPU_SHAPE_H

#include <stddef.h>
#include <stdint.h>

/* Dims of one kind (kept or reduced) of a reduction: outermost first. */
typedef struct {
    int count;
    uint32_t size[8];
    ptrdiff_t in[8];    /* input stride */
    ptrdiff_t out[8];   /* output stride (kept dims only) */
} norm_dims;

typedef enum {
    SHAPE_ROW,      /* innermost reduced dim is unit-stride: contiguous runs per output */
    SHAPE_COL,      /* innermost kept dim is unit-stride: vectors across neighbouring outputs */
    SHAPE_STRIDED   /* anything else: gather */
} reduce_shape;

/* A strided copy: dst[dst_off + sum c*dst] = src[src_off + sum c*src], outermost first. */
typedef struct {
    int count;      /* 0 = a single element */
    uint32_t size[8];
    ptrdiff_t src[8];
    ptrdiff_t dst[8];
    ptrdiff_t src_off, dst_off;
} copy_dims;

/* Splits a reduction's dims into kept and reduced lists (reduced[i] != 0 marks axis i), drops
 * size-1 dims and merges neighbours within each list whose strides chain. */
void shape_reduce(uint32_t rank, const uint32_t *sizes, const uint32_t *in_strides,
                  const uint32_t *out_strides, const uint8_t *reduced, norm_dims *kept,
                  norm_dims *red);

/* Drops size-1 dims of a copy and merges neighbours whose source and destination strides both
 * chain. */
void shape_copy(copy_dims *d);

#endif
