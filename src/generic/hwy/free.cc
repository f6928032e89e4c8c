// The portable tier's order-free reductions (integer sums, MIN/MAX, ARGMIN/ARGMAX), written once with Highway.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "generic/hwy/free.cc"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernels.h"

HWY_BEFORE_NAMESPACE();
namespace dmlcpu {
namespace HWY_NAMESPACE {

void FillFree(kernel_table *t)
{
    (void)t;
}

} // namespace HWY_NAMESPACE
} // namespace dmlcpu
HWY_AFTER_NAMESPACE();
