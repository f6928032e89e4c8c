/* The portable tier's C face: the kernel table of the Highway target that runs at a given cap.
 *
 * The kernels (generic/hwy/ files) are written once with Highway and compiled by it for every
 * target it knows on the architecture (x86: SSE4, AVX2, AVX3; aarch64: NEON, SVE, SVE2). Which
 * one runs is decided here, once per target: the best target the CPU supports, no higher than
 *   - the CPU, as dispatch.c reads it (dispatch_portable_features);
 *   - the cap: below avx512 the AVX3 target is excluded, so that a cap of avx2 never runs
 *     AVX-512 instructions (portable itself, and avx512, let Highway pick freely);
 *   - DMLCPU_PORTABLE_TARGET=sse4|avx2|avx3|neon|sve|sve2 (read once) and
 *     dmlcpu_set_portable_target, each naming the best target allowed (the lower of the two
 *     applies): the suites and the bench compare targets with them.
 * Nothing C++ crosses this header. */
#ifndef DMLCPU_PORTABLE_H
#define DMLCPU_PORTABLE_H

#include "dmlcpu.h"
#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The portable table for cap (>= DMLCPU_ISA_PORTABLE), filled once per target; NULL when no
 * Highway target of this build runs on this CPU. Thread-safe. */
const kernel_table *portable_kernels(dmlcpu_isa cap);

/* Names the best target allowed from now on (dmlcpu_set_portable_target); NULL or "" lifts
 * that cap. Returns 0, or -1 (nothing changed) when name is not a target this build compiles. */
int portable_set_target(const char *name);

/* The lower-case name of the target portable_kernels(cap) uses, or "none". */
const char *portable_target_name(dmlcpu_isa cap);

#ifdef __cplusplus
}
#endif

#endif /* DMLCPU_PORTABLE_H */
