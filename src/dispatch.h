/* CPU detection, the ISA cap and the choice of kernel tables. */
#ifndef DMLCPU_DISPATCH_H
#define DMLCPU_DISPATCH_H

#include "dmlcpu.h"
#include "kernels.h"

/* The level operators created now may use: min(detected, DMLCPU_ISA, dmlcpu_set_max_isa). */
dmlcpu_isa dispatch_cap(void);

/* The kernel tables available up to cap, best first, ending with the scalar table; returns
 * how many were written into out (at most 8). */
int dispatch_tables(dmlcpu_isa cap, const kernel_table **out);

#endif
