/* Normalisation: size-1 dims vanish and neighbours whose strides chain merge. Merging two
 * reduced dims a (outer) and b (inner) is exact for the canonical order because the group's
 * logical order is row-major over the reduced axes: (c_a, c_b) -> c_a * size_b + c_b. */
#include "shape.h"

static void push_dim(norm_dims *d, uint32_t size, ptrdiff_t in, ptrdiff_t out)
{
    if (size == 1)
        return;
    int k = d->count;
    if (k > 0 && d->in[k - 1] == in * (ptrdiff_t)size && d->out[k - 1] == out * (ptrdiff_t)size) {
        /* the outer neighbour chains onto this one: merge into a single inner dim */
        d->size[k - 1] *= size;
        d->in[k - 1] = in;
        d->out[k - 1] = out;
        return;
    }
    d->size[k] = size;
    d->in[k] = in;
    d->out[k] = out;
    d->count = k + 1;
}

void shape_reduce(uint32_t rank, const uint32_t *sizes, const uint32_t *in_strides,
                  const uint32_t *out_strides, const uint8_t *reduced, norm_dims *kept,
                  norm_dims *red)
{
    kept->count = 0;
    red->count = 0;
    for (uint32_t i = 0; i < rank; i++) {
        if (reduced[i])
            push_dim(red, sizes[i], in_strides[i], 0);
        else
            push_dim(kept, sizes[i], in_strides[i], out_strides[i]);
    }
}

void shape_copy(copy_dims *d)
{
    int n = 0;
    for (int i = 0; i < d->count; i++) {
        uint32_t size = d->size[i];
        ptrdiff_t s = d->src[i], t = d->dst[i];
        if (size == 1)
            continue;
        if (n > 0 && d->src[n - 1] == s * (ptrdiff_t)size && d->dst[n - 1] == t * (ptrdiff_t)size) {
            d->size[n - 1] *= size;
            d->src[n - 1] = s;
            d->dst[n - 1] = t;
            continue;
        }
        d->size[n] = size;
        d->src[n] = s;
        d->dst[n] = t;
        n++;
    }
    d->count = n;
}
