/* NEON copy kernels: strided runs with steps of 2 and -1, SLICE_GRAD rows with a step of 2, and
 * transposes of 1-, 2-, 4- and 8-byte elements for tiled copies. The bodies are in
 * simd/copy_kernels.h, shared with the AVX2 tier; this file gives them the operations on
 * 16-byte registers:
 *   step -1   REV64 then EXT by 8 bytes (the whole vector reversed);
 *   step 2    UZP1 of two consecutive vectors (their even elements);
 *   expand2   ZIP1 / ZIP2 with a zero vector (each element followed by a zero, in order);
 *   tiles     16 x 16 (1 byte), 8 x 8 (2), 4 x 4 (4) and 2 x 2 (8) blocks by ZIP1 / ZIP2 rounds.
 * Unlike AVX2, NEON needs no lane-crossing fix-up after its interleaves, so every element size
 * gets a register transpose: a block costs log2(n) rounds of n zips for n 16-byte rows. */
#if !defined(__aarch64__) || !defined(__ARM_NEON)
#error "copy_neon.c must be compiled for AArch64 with Advanced SIMD (-march=armv8-a+simd)"
#endif

#include <arm_neon.h>

#include "kernels.h"

typedef uint8x16_t bvec, rvec;
#define RVB 16
static inline uint8x16_t bld(const void *p) { return vld1q_u8((const uint8_t *)p); }
static inline void bst(void *p, uint8x16_t v) { vst1q_u8((uint8_t *)p, v); }
#define rld bld
#define rst bst
static inline uint8x16_t rzero(void) { return vdupq_n_u8(0); }

#include "simd/copy_kernels.h"

/* Per element width W (bits, lane suffix X): ZIP1 / ZIP2, UZP1 and the reversal. */
#define DEF_LANE_OPS(W, X)                                                                         \
    static inline uint8x16_t zlo_x##W(uint8x16_t a, uint8x16_t b)                                  \
    {                                                                                              \
        return vreinterpretq_u8_##X(vzip1q_##X(vreinterpretq_##X##_u8(a), vreinterpretq_##X##_u8(b))); \
    }                                                                                              \
    static inline uint8x16_t zhi_x##W(uint8x16_t a, uint8x16_t b)                                  \
    {                                                                                              \
        return vreinterpretq_u8_##X(vzip2q_##X(vreinterpretq_##X##_u8(a), vreinterpretq_##X##_u8(b))); \
    }                                                                                              \
    static inline uint8x16_t even_x##W(uint8x16_t a, uint8x16_t b)                                 \
    {                                                                                              \
        return vreinterpretq_u8_##X(vuzp1q_##X(vreinterpretq_##X##_u8(a), vreinterpretq_##X##_u8(b))); \
    }
DEF_LANE_OPS(16, u16)
DEF_LANE_OPS(32, u32)
DEF_LANE_OPS(64, u64)
static inline uint8x16_t zlo_x8(uint8x16_t a, uint8x16_t b) { return vzip1q_u8(a, b); }
static inline uint8x16_t zhi_x8(uint8x16_t a, uint8x16_t b) { return vzip2q_u8(a, b); }
static inline uint8x16_t even_x8(uint8x16_t a, uint8x16_t b) { return vuzp1q_u8(a, b); }
/* REV64 reverses the elements within each 8-byte half; EXT swaps the halves. */
static inline uint8x16_t rev_x8(uint8x16_t v)
{
    v = vrev64q_u8(v);
    return vextq_u8(v, v, 8);
}
static inline uint8x16_t rev_x16(uint8x16_t v)
{
    v = vreinterpretq_u8_u16(vrev64q_u16(vreinterpretq_u16_u8(v)));
    return vextq_u8(v, v, 8);
}
static inline uint8x16_t rev_x32(uint8x16_t v)
{
    v = vreinterpretq_u8_u32(vrev64q_u32(vreinterpretq_u32_u8(v)));
    return vextq_u8(v, v, 8);
}
static inline uint8x16_t rev_x64(uint8x16_t v) { return vextq_u8(v, v, 8); }

DEF_BLOCK_ZIP(block_x8, uint8_t, 16, 4, zlo_x8, zhi_x8)
DEF_BLOCK_ZIP(block_x16, uint16_t, 8, 3, zlo_x16, zhi_x16)
DEF_BLOCK_ZIP(block_x32, uint32_t, 4, 2, zlo_x32, zhi_x32)
DEF_BLOCK_ZIP(block_x64, uint64_t, 2, 1, zlo_x64, zhi_x64)

DEF_TILE(tile_x8_neon, uint8_t, 16, block_x8, DMLCPU_TILE_EDGE_X8)
DEF_TILE(tile_x16_neon, uint16_t, 8, block_x16, DMLCPU_TILE_EDGE_X16)
DEF_TILE(tile_x32_neon, uint32_t, 4, block_x32, DMLCPU_TILE_EDGE_X32)
DEF_TILE(tile_x64_neon, uint64_t, 2, block_x64, DMLCPU_TILE_EDGE_X64)

DEF_COPY_RUNS(copy_x8_neon, uint8_t, rev_x8, even_x8)
DEF_COPY_RUNS(copy_x16_neon, uint16_t, rev_x16, even_x16)
DEF_COPY_RUNS(copy_x32_neon, uint32_t, rev_x32, even_x32)
DEF_COPY_RUNS(copy_x64_neon, uint64_t, rev_x64, even_x64)

DEF_EXPAND2(expand2_x8_neon, uint8_t, zlo_x8, zhi_x8)
DEF_EXPAND2(expand2_x16_neon, uint16_t, zlo_x16, zhi_x16)
DEF_EXPAND2(expand2_x32_neon, uint32_t, zlo_x32, zhi_x32)
DEF_EXPAND2(expand2_x64_neon, uint64_t, zlo_x64, zhi_x64)

const kernel_table dmlcpu_kernels_neon_copy = {
    .isa = DMLCPU_ISA_NEON,
    .copy = {copy_x8_neon, copy_x16_neon, copy_x32_neon, copy_x64_neon},
    .expand2 = {expand2_x8_neon, expand2_x16_neon, expand2_x32_neon, expand2_x64_neon},
    .transpose = {tile_x8_neon, tile_x16_neon, tile_x32_neon, tile_x64_neon},
};
