/* (kernels to come) */
#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "reduce_free_avx2.c must be compiled with -mavx2 -mfma -mf16c"
#endif

#include <immintrin.h>

#include "kernels.h"

const kernel_table dmlcpu_kernels_avx2_free = {
    .isa = DMLCPU_ISA_AVX2,
};
