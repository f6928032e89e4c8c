/* The kernel families of the portable tier, one file each; every file is compiled by Highway
 * for each target, and fills its entries of a kernel table with that target's kernels. Include
 * this inside namespace dmlcpu::HWY_NAMESPACE. */
void FillSums(kernel_table *t);   /* sums.cc: canonical float sums and LOG_SUM_EXP */
void FillFree(kernel_table *t);   /* free.cc: integer sums, MIN/MAX, ARGMIN/ARGMAX */
void FillCopies(kernel_table *t); /* copies.cc: strided copies, fills, transposes */
