/* Kernel signatures and the per-ISA kernel table.
 *
 * Kernels are small, pure and single-threaded: they handle any length, never touch a byte
 * outside the memory they are given and never allocate. The operator layer (reduce.c, copy.c)
 * walks the loop nest and calls them; each ISA file fills one const kernel_table, the scalar one
 * (src/generic) completely, the others where they are faster (dispatch.c picks per entry). */
#ifndef DMLCPU_KERNELS_H
#define DMLCPU_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlcpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The canonical order of SPEC 4: 256 bytes of accumulator lanes, blocks of 64 lanes' worth. */
#define DMLCPU_LANES_F32 64
#define DMLCPU_LANES_F64 32
#define DMLCPU_BLOCK_F32 (64 * DMLCPU_LANES_F32) /* 4096 elements */
#define DMLCPU_BLOCK_F64 (64 * DMLCPU_LANES_F64) /* 2048 elements */
/* Order-free reductions (integers, MIN/MAX, ARG*) also deliver one partial per this many. */
#define DMLCPU_BLOCK_FREE 4096
/* Their column kernels take up to this many rows a call (the caller's block of rows): each
 * call ends with fixed work per column (a narrow walk's pass over its lanes, a partial to
 * combine), and index lanes of 16 bits hold the rows of one call. */
#define DMLCPU_COL_FREE_ROWS 16384
/* Column kernels take at most this many adjacent outputs per call, and a scratch buffer of
 * DMLCPU_COL_SCRATCH(ncols) bytes: 256 bytes of lane partials (64 f32 or 32 f64) per column in
 * rows of DMLCPU_COL_PITCH(ncols) accumulators, and 8 more bytes per column. Wide tiles let a kernel read long stretches of each row:
 * with 64 columns a 4096-wide f32 matrix cost one TLB miss per 256 bytes read. */
#define DMLCPU_COL_TILE 1024
/* A canonical column tile may instead span whole rows of up to DMLCPU_COL_WIDE_TILE columns
 * (DMLCPU_COL_WIDE_BYTES of a row) when the rows lie back to back and the operator reads at
 * least DMLCPU_COL_WIDE_MIN_BYTES: the kernel then reads the input in its memory order, though
 * its lanes (up to 1 MiB) spill from L2. 1024-column tiles of a 4096-wide FLOAT32 matrix read
 * each row in page-sized pieces 16 KiB apart, and the prefetchers start over at every piece.
 * On a Zen 4, one process alternating the two plans (medians of 41), SUM over axis 0: 4096 x
 * 4096 FLOAT32 1.08-1.11x at AVX-512, 1.05x AVX2, 1.22x portable, 1.27x scalar; 8192 x 2048
 * 1.07-1.19x. At 16 MiB and less (in L3) AVX2 was up to 8% slower, at 24 to 32 MiB 0.98-1.17x. */
#define DMLCPU_COL_WIDE_TILE 4096
#define DMLCPU_COL_WIDE_BYTES 16384
#define DMLCPU_COL_WIDE_MIN_BYTES ((uint64_t)24 << 20)
#define DMLCPU_COL_PITCH(ncols) (((ncols) + 15) & ~(size_t)15)
/* How far ahead of the row being read the column kernels prefetch, in bytes: 16 rows, at least
 * 1 KiB (the hardware prefetchers alone fall behind on four or more interleaved row streams). */
#define DMLCPU_COL_PREFETCH(rs) (16 * (rs) > 1024 ? 16 * (rs) : 1024)
#define DMLCPU_COL_SCRATCH(ncols) (264 * DMLCPU_COL_PITCH(ncols))
/* The order-free kinds (integer sums, MIN/MAX, ARG*) keep only a running value (ARG*: and a row
 * number) per column, so their tiles span up to DMLCPU_COL_FREE_BYTES of a row (a whole 16 KiB
 * row of a 4096-wide f32 matrix: the walk is sequential, one TLB miss per page instead of per
 * row piece) with DMLCPU_COL_FREE_SCRATCH(ncols) bytes of scratch: up to 24 bytes per column
 * (three 8-byte running values, or a value and an index), and 4 KiB for the narrow paths'
 * accumulators. */
#define DMLCPU_COL_FREE_BYTES 16384
#define DMLCPU_COL_FREE_TILE DMLCPU_COL_FREE_BYTES /* columns, at most: 1-byte elements */
#define DMLCPU_COL_FREE_SCRATCH(ncols) (24 * DMLCPU_COL_PITCH(ncols) + 4096)
/* Many threads and few column tiles: the order-free kinds cut a group's rows into ranges of a
 * power of two times this many bytes of a column, one task each (their results do not depend on
 * the cut). Each range costs one partial per column to store and combine, a few nanoseconds,
 * so a range holds at least 1 KiB of each column (256 FLOAT32 rows). */
#define DMLCPU_COL_FREE_SPLIT_BYTES 1024
/* Column ARG* kernels may search groups of DMLCPU_COL_ARG_GROUP rows: a pass over the rows finds
 * each column's best value and the first row of the group where it was met, then a rescan of
 * that group finds the element's row (8 loads a column, each in another row). An index_base
 * with DMLCPU_ARG_DEFER set asks for the group's first row instead (with the bit set): the
 * caller rescans once after combining the tiles of a column (reduce.c, split plans), rather
 * than every tile of a split column rescanning all its columns. A kernel may still give the
 * element's own row (the rescan from it finds the same row). */
#define DMLCPU_COL_ARG_GROUP 8
#define DMLCPU_ARG_DEFER ((uint64_t)1 << 63)
/* index_base of a column ARG*, MIN or MAX kernel may also carry DMLCPU_COL_STREAM: the operator
 * reads DMLCPU_COL_WIDE_MIN_BYTES or more, so even a tile of a split plan, a few MiB, streams
 * from memory (the AVX-512 ARG* walk over wide rows and the FLOAT16 prefetches of the VRANGE
 * fold, simd/reduce_free.h, are taken then). Every column ARG* kernel clears the bit before it
 * uses index_base; MIN and MAX use index_base for nothing else. */
#define DMLCPU_COL_STREAM ((uint64_t)1 << 61)

/* How elements accumulate. Every REDUCE function maps to one kind plus a finalize step. */
typedef enum {
    RK_SUM,            /* x            (SUM, AVERAGE, LOG_SUM) */
    RK_ASUM,           /* |x|          (L1) */
    RK_SQSUM,          /* x*x          (SUM_SQUARE, L2) */
    RK_PROD,           /* product      (MULTIPLY) */
    RK_MIN,
    RK_MAX,
    RK_ARGMIN,         /* first index of the minimum (INCREASING) */
    RK_ARGMIN_LAST,    /* last index (DECREASING) */
    RK_ARGMAX,
    RK_ARGMAX_LAST,
    RK_LSE,            /* (block max, canonical sum of exp(x - max)) */
    RK_COUNT
} reduce_kind;

/* ARGMIN / ARGMAX, either direction: the partial's result is aux.idx. */
static inline int reduce_kind_is_arg(reduce_kind k) { return k >= RK_ARGMIN && k <= RK_ARGMAX_LAST; }

typedef enum { FIN_NONE, FIN_DIV_N, FIN_SQRT, FIN_LOG, FIN_LSE } reduce_finalize;

/* The value of one block (or of a combination of consecutive blocks) of a group.
 *   sums over floats      v.f32 / v.f64 (FLOAT16 accumulates in f32)
 *   sums over integers    v.u64 (wraps; narrowed at the end)
 *   MIN/MAX               v.f32, v.f64, v.i64 (signed integers) or v.u64 (unsigned)
 *   ARG*                  v as for MIN/MAX, aux.idx = index in the group's logical order
 *   LOG_SUM_EXP           v = block max m, aux = sum of exp(x - m) (0 when m is not finite) */
typedef struct {
    union { float f32; double f64; int64_t i64; uint64_t u64; } v;
    union { float f32; double f64; uint64_t idx; } aux;
} partial;

/* Row kernel: x holds n >= 1 consecutive elements of one group, starting at a block boundary.
 * Writes one partial per block (ceil(n / block) of them). index_base is the group index of
 * x[0] (used by ARG*). */
typedef void (*reduce_row_fn)(const void *x, size_t n, uint64_t index_base, partial *out);

/* Multi-row kernel: nrows >= 1 groups of n elements each (1 <= n <= block), group r contiguous
 * at (const char *)x + r * row_stride bytes. Writes out[r], the value of group r's single block.
 * It runs the end of the canonical order (the halving tree) for many groups at once, which is
 * most of the cost of short groups. A NULL entry means: the row kernel, one group at a time. */
typedef void (*reduce_rows_fn)(const void *x, ptrdiff_t row_stride, size_t nrows, size_t n,
                               partial *out);
/* A table may also have stream forms of its row and multi-row kernels, for operators that read
 * DMLCPU_ROW_STREAM_BYTES or more: the same results, with software prefetches that pay where the
 * rows come from memory and cost where they are in cache. */
#define DMLCPU_ROW_STREAM_BYTES ((uint64_t)24 << 20)

/* Column kernel: ncols (1..DMLCPU_COL_WIDE_TILE) adjacent outputs whose elements are contiguous
 * in a row; nrows (1..block) consecutive group positions, row r at (const char *)x + r * row_stride
 * bytes, starting at a block boundary (order-free kinds: at any row; index_base is then the
 * group index of row 0). Writes one partial per column: out[0..ncols). scratch:
 * DMLCPU_COL_SCRATCH(ncols) bytes, 64-byte aligned, the kernel's own (lanes, running values).
 * Kernels of the order-free kinds take ncols up to DMLCPU_COL_FREE_TILE (and at most
 * DMLCPU_COL_FREE_BYTES of a row) and DMLCPU_COL_FREE_SCRATCH(ncols) bytes of scratch. */
typedef void (*reduce_col_fn)(const void *x, ptrdiff_t row_stride, size_t nrows, size_t ncols,
                              uint64_t index_base, partial *out, void *scratch);
/* index_base of a canonical column kernel (float sums, which need no index) may carry
 * DMLCPU_COL_SMALL: the operator's whole input is at most DMLCPU_COL_SMALL_BYTES, small enough to
 * be read from cache (FLOAT32 and FLOAT64 inputs: FLOAT16 measured no gain). A kernel may then
 * take blocks of at most 4 L rows column strip by column strip with their lanes in L1
 * (simd/col_short.h); streamed from memory that walk is slower than the lane array's row order.
 * The bits are the same either way. */
#define DMLCPU_COL_SMALL ((uint64_t)1 << 62)
#define DMLCPU_COL_SMALL_BYTES ((uint64_t)1 << 20)

/* Copies n elements: dst[i * dst_stride] = src[i * src_stride] (strides in elements). */
typedef void (*copy_fn)(void *dst, ptrdiff_t dst_stride, const void *src, ptrdiff_t src_stride,
                        size_t n);
/* Copies `rows` rows of `bytes` contiguous bytes: row r from src + r * src_pitch to
 * dst + r * dst_pitch (pitches in bytes). JOIN and SPLIT along an inner axis, and SLICE of
 * parts of rows, are runs of a few hundred bytes: one call per run cost more than the copy. */
typedef void (*copy_block_fn)(void *dst, ptrdiff_t dst_pitch, const void *src, ptrdiff_t src_pitch,
                              size_t bytes, size_t rows);
/* Rows longer than this go to copy[] one by one instead (copy.c), which calls memcpy. */
#define DMLCPU_BLOCK_ROW_MAX_BYTES 4096
/* Writes n zero elements at dst[i * dst_stride]. */
typedef void (*fill_fn)(void *dst, ptrdiff_t dst_stride, size_t n);

/* Tile edge of a transpose in elements, by element size: 256 bytes of a row (tiles of 8 to
 * 64 KiB, a staging buffer of up to 72 KiB on the stack). Measured on the benchmark's
 * transposes (512 KiB and 64 MiB, x86): tiles of a quarter of the 4- and 8-byte sizes were
 * 5-35% slower; FLOAT16 tiles of 64 and UINT8 tiles of 128 (128-byte rows) took 25-40% more
 * time than these at both sizes, and FLOAT32 tiles of 128 were no faster. AArch64 keeps the
 * 1- and 2-byte edges its tile kernels (arm/copy_neon.c, two staging buffers) were measured
 * with. */
#if defined(__aarch64__)
#define DMLCPU_TILE_EDGE_X8 128
#define DMLCPU_TILE_EDGE_X16 64
#else
#define DMLCPU_TILE_EDGE_X8 256
#define DMLCPU_TILE_EDGE_X16 128
#endif
#define DMLCPU_TILE_EDGE_X32 64
#define DMLCPU_TILE_EDGE_X64 32
#define DMLCPU_TILE_NARROW 4096
/* The tiles of a table's stream transposes that meet at line boundaries (copy.c, stream_tiles):
 * where the destination rows are not a multiple of 64 bytes apart, this many bytes along them;
 * where they are, FLOAT16 tiles of DMLCPU_TILE_LINES_X16. */
#define DMLCPU_TILE_WIDE_BYTES 512
#define DMLCPU_TILE_LINES_X16 64
/* There, UINT8 tiles (whose kernel carries each row's last block in a buffer of 192 bytes a
 * row, TransposeRowsShifted) of this many rows and columns: the buffer of 64 rows (12 KiB) stays
 * in L1, where 256 rows filled a 48 KiB L1 by themselves; wider, a tile transposes its extra
 * block (the line from before it) for more columns. Against 256 x 512, on an Intel Xeon, 1
 * thread, one process alternating both builds (medians of 21): 4095 x 4097 1.33x, 4097 x 4095
 * 1.18x, 4100 x 4100 1.21x, 3000 x 6000 1.15x, 5000 x 5000 1.15x. 64 x 512 did less (1.06-1.10x
 * slower than 64 x 1024), 128 x 512 and 64 x 2048 no better. FLOAT16 keeps 128 x 256: 64 x 1024
 * was 1.10-1.16x faster for 4100 x 4100 and 3001 x 2999 but 1.25-1.29x slower for 4095 x 8193
 * (128 x 1024 1.10-1.17x slower). */
#define DMLCPU_TILE_CARRY_ROWS 64
#define DMLCPU_TILE_CARRY_COLS 1024

/* Copies an nr x nc tile (at most DMLCPU_TILE_EDGE_* on each side) whose source columns and destination rows are contiguous:
 * dst[r * dst_row_stride + c] = src[c * src_col_stride + r] (strides in elements). A table
 * with transpose_narrow set also takes narrow tiles of any length: nr of 2 to 4 with
 * src_col_stride == nr, or nc of 2 to 4 with dst_row_stride == nc (images between interleaved
 * channels and planes), which copy.c then cuts into tiles of DMLCPU_TILE_NARROW elements along
 * the long side.
 * The tile's destination rows are pieces of longer rows: `before` elements of each row precede
 * the tile (columns -before .. -1, source columns before src) and `after` follow it. A kernel
 * may move the tile's boundaries within each row to that row's 64-byte lines, as long as every
 * kernel of the table and element size does the same (transpose_stream of AVX3, every element
 * size, in generic/hwy/copies.cc: each tile writes the lines that end within it; the rows'
 * ends stay where they are): the tiles of a row then still write each element once. */
typedef void (*transpose_fn)(char *dst, ptrdiff_t dst_row_stride, const char *src,
                             ptrdiff_t src_col_stride, size_t nr, size_t nc, size_t before,
                             size_t after);

/* Transposes and strided runs (SLICE with steps) of at least this many bytes write the
 * destination with non-temporal stores when the kernel table has them (transpose_stream,
 * copy_stream): copies larger than the caches, whose destination lines would otherwise be read
 * before they are written. A 4096 x 4096 FLOAT32 transpose (AVX2, the same tile code with and
 * without, four runs) took 7-29% less time with them, a 512 KiB one 10-15% more; SLICE with a
 * step of 2 into a 4096 x 4096 FLOAT32 output 14-16% less (whole processes, 7 pairs).
 * 12 MiB, not 16: the bench's copies at 12 MiB (Zen 5, 32 MiB of L3, 1 thread, alternated
 * three times, streamed / not) took 1.13-1.37x less time for step 2, 1.22-1.52x reversed,
 * 1.26-1.50x JOIN and SPLIT, 1.34-2.9x transposes, 0.93-0.98x SLICE of whole rows (one block,
 * which memcpy copies); at 8 MiB JOIN, SPLIT, reversed and whole rows took 0.70-0.91x. */
#define DMLCPU_STREAM_MIN_BYTES ((uint64_t)12 << 20)

/* Transposes of at most this many bytes, whose source and destination stay in the L2, take the
 * table's transpose_small when it has one (AVX3: blocks straight to destination rows on lines,
 * generic/hwy/copies.cc; the bench's 512 KiB transposes of 2- to 8-byte elements 1.30-1.42x
 * faster on an Intel Xeon, UINT8 with rows 1 or 2 KiB apart 1.3-1.6x). */
#define DMLCPU_COPY_SMALL_BYTES ((uint64_t)1 << 20)

/* Writes 2 * count - 1 + tail elements: dst[2i] = src[i * src_stride] for i < count, zeros
 * between and `tail` zeros after (SLICE_GRAD with a window step of 2, to the row's end). */
typedef void (*expand2_fn)(void *dst, const void *src, ptrdiff_t src_stride, size_t count,
                           size_t tail);

/* Combines two partials of consecutive ranges: a (earlier) then b (later). */
typedef partial (*combine_fn)(partial a, partial b);

/* In place, v[i] = log(v[i]) for i < n, with the bits of DMLCPU_LOG_F32_SCALAR (F64: of
 * DMLCPU_LOG_F64_SCALAR): SLEEF's cinz u10 log in the table's vector width (simd/sleef_math.h).
 * The last step of LOG_SUM and LOG_SUM_EXP, for many outputs at once: with SLEEF's scalar call
 * per output, that step took a fifth of LOG_SUM_EXP over the middle axis (64 x 64 x 4096). */
typedef void (*log_f32_fn)(float *v, size_t n);
typedef void (*log_f64_fn)(double *v, size_t n);

/* Indexes: kind, then the input data type's enum value (1..11). Copies: log2 of the element size. */
typedef struct {
    dmlcpu_isa isa;
    reduce_row_fn row[RK_COUNT][12];
    reduce_rows_fn rows[RK_COUNT][12]; /* optional, even in the scalar table */
    reduce_row_fn row_stream[RK_COUNT][12];   /* optional: row[] for large operators (above) */
    reduce_rows_fn rows_stream[RK_COUNT][12]; /* optional: rows[] for large operators */
    reduce_col_fn col[RK_COUNT][12];
    copy_fn copy[4];
    /* optional: copy[] whose runs into a unit-stride destination (contiguous, or strided
     * SLICE steps) use non-temporal stores, for copies of at least DMLCPU_STREAM_MIN_BYTES (from
     * the same table as copy[]) */
    copy_fn copy_stream[4];
    copy_block_fn copy_block; /* optional: copy.c calls copy[] per row */
    fill_fn fill[4];
    transpose_fn transpose[4]; /* optional: copy.c has a portable tile copy */
    /* optional: transpose[] with non-temporal destination stores, for copies of at least
     * DMLCPU_STREAM_MIN_BYTES (from the same table as transpose[]) */
    transpose_fn transpose_stream[4];
    /* optional: transpose[] for copies of at most DMLCPU_COPY_SMALL_BYTES (from the same table
     * as transpose[]) */
    transpose_fn transpose_small[4];
    bool transpose_narrow; /* transpose[], _stream[] and _small[] take narrow tiles (above) */
    /* transpose_stream[] writes whole lines at any alignment, its tiles meeting at the rows'
     * line boundaries (transpose_fn): where the destination rows are not a multiple of 64
     * bytes apart, copy.c gives those tiles DMLCPU_TILE_WIDE_BYTES along the destination rows. */
    bool transpose_stream_lines;
    /* with copy_stream or transpose_stream: orders their non-temporal stores before whatever
     * the thread stores next. The stream kernels leave it to copy.c, which calls it once at the
     * end of each task: a fence after every 1 KiB run made a UINT8 JOIN of four [4096, 1024]
     * parts 2.4 times slower than one fence for the whole copy. */
    void (*stream_fence)(void);
    expand2_fn expand2[4];     /* optional: copy.c fills and scatters */
    log_f32_fn log_f32;        /* the scalar table's are a loop over SLEEF's scalar log */
    log_f64_fn log_f64;
} kernel_table;

extern const kernel_table dmlcpu_kernels_scalar;
#if defined(DMLCPU_HAVE_X86_TABLES)
extern const kernel_table dmlcpu_kernels_avx512, dmlcpu_kernels_avx512_free;
extern const kernel_table dmlcpu_kernels_avx2, dmlcpu_kernels_avx2_free;
#endif
#if defined(DMLCPU_HAVE_ARM_TABLES)
extern const kernel_table dmlcpu_kernels_neon, dmlcpu_kernels_neon_free, dmlcpu_kernels_neon_copy;
#endif

/* generic/fp16.c: IEEE binary16 conversions (round to nearest even). */
float dmlcpu_f16_to_f32(uint16_t h);
uint16_t dmlcpu_f32_to_f16(float f);

#ifdef __cplusplus
}
#endif

#endif
