/* IEEE binary16 <-> binary32 (fp16.h), for the callers outside the library's hot loops. */
#include "fp16.h"

#include "kernels.h"

float dmlcpu_f16_to_f32(uint16_t h) { return fp16_to_f32(h); }

uint16_t dmlcpu_f32_to_f16(float f) { return fp16_from_f32(f); }
