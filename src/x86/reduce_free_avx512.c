/* (kernels to come) */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__)
#error "reduce_free_avx512.c must be compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl"
#endif

#include <immintrin.h>

#include "kernels.h"

const kernel_table dmlcpu_kernels_avx512_free = {
    .isa = DMLCPU_ISA_AVX512,
};
