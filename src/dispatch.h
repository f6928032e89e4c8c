/* CPU detection, the ISA cap and the choice of kernel tables. */
#ifndef DMLCPU_DISPATCH_H
#define DMLCPU_DISPATCH_H

#include "dmlcpu.h"
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The level operators created now may use: min(detected, DMLCPU_ISA, dmlcpu_set_max_isa). */
dmlcpu_isa dispatch_cap(void);

/* The kernel tables available up to cap, best first, ending with the scalar table; returns
 * how many were written into out (at most 8). */
int dispatch_tables(dmlcpu_isa cap, const kernel_table **out);

/* What the CPU offers the portable tier's Highway targets (generic/hwy/portable.cc turns this
 * into targets): each bit is set when the CPU and OS support every instruction set the
 * target's code is compiled for.
 *   x86:     SSE4 = SSSE3, SSE4.1, SSE4.2;  AVX2 = SSE4 + AVX, AVX2, BMI1, BMI2, FMA, F16C and
 *            the OS saving YMM;  AVX3 = AVX2 + AVX-512 F, VL, DQ, BW and the OS saving ZMM
 *   aarch64: NEON = Advanced SIMD;  SVE;  SVE2 */
enum {
    DISPATCH_PF_SSE4 = 1u << 0,
    DISPATCH_PF_AVX2 = 1u << 1,
    DISPATCH_PF_AVX3 = 1u << 2,
    DISPATCH_PF_NEON = 1u << 3,
    DISPATCH_PF_SVE = 1u << 4,
    DISPATCH_PF_SVE2 = 1u << 5,
};
unsigned dispatch_portable_features(void);

#ifdef __cplusplus
}
#endif

#endif
