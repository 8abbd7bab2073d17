// block_tile.glsl — the skeleton the register and subgroup variants share: one workgroup
// computes a BM×BN block of D with (BM/TM)×(BN/TN) invocations, each owning a TM×TN block of
// accumulators; K is walked in steps of BK through two shared-memory buffers.
//
// Per step: each invocation loads its share of the next A and B tiles from global memory
// into registers (4-vector loads) *before* computing on the current tiles, so the loads are
// in flight during the multiply-adds; after computing, it stores them into the other buffer;
// one barrier per step. A is stored transposed (As[k][m]) so that an invocation's TM values
// of one k are contiguous 4-vectors, its rows padded by PAD_A floats so that the transposing
// stores of neighbouring invocations land in different banks.
//
// An invocation's rows are TM/4 groups of 4, spaced 4·(BM/TM) apart (columns likewise): the
// invocations of one row of the lane grid then read neighbouring 16-byte words of Bs, which
// is free of bank conflicts. The including shader defines compute_tile(buf, tx, ty): the
// multiply-adds of one step. Tile shapes are defines from the host, never a subgroup size.
//
// SPLIT_K > 1 (split-K, for problems with too few output blocks to fill the device): K is
// cut into SPLIT_K slices of whole BK steps, one per gl_WorkGroupID.z. Each slice writes its
// partial block, without α and β, to the workspace P (P[slice][row][col]), and
// split_reduce.comp then sums the slices into D. Slices are whole steps, so no k is counted
// twice.
//
// SWIZZLE_A (with no padding, BM a multiple of 32): the 4-vector of A at index v of k-row k
// is kept at v ^ a_swizzle(k) instead, a permutation within groups of 8 that sends the
// transposing stores of 32 consecutive invocations to the 32 banks. Every invocation reading
// one k-row uses the same permutation, so the reads keep their bank pattern.
//
// CEILING (timed beside the GEMM, never checked) builds a ceiling instead of a GEMM: the step
// loop with part of its work taken out (ceiling_steps below).
#ifndef BLOCK_TILE_GLSL
#define BLOCK_TILE_GLSL
#extension GL_EXT_control_flow_attributes : require
#include "gemm_io.glsl"

layout(local_size_x_id = 0) in;

#define NC (BN / TN)  // invocations across a block (columns of the lane grid)
#define NR (BM / TM)  // invocations down a block
#define A_STRIDE ((BM + PAD_A) / 4)  // 4-vectors per k-row of the transposed A tile
#define B_STRIDE (BN / 4)
#ifndef SWIZZLE_A
#define SWIZZLE_A 0
#endif
// ANCHOR: swizzle
// BK/4 consecutive invocations store the BK/4 4-groups of one row of A (k = 0, 4, …), so 32 of
// them store 32/BK 4-vectors of each of BK/4 k-rows: the XOR puts the k-group in the index
// bits above those, making the 8 4-vectors (32 words) distinct modulo 32 words.
#define A_SWIZZLE_SHIFT (BK >= 32 ? 0 : BK == 16 ? 1 : BK == 8 ? 2 : 3)
#define a_swizzle(k) (SWIZZLE_A != 0 ? ((((k) / 4) << A_SWIZZLE_SHIFT) & 7) : 0)
// The shared index of the A 4-vector at index v of k-row k in buffer buf.
#define A_INDEX(buf, k, v) (((buf) * BK + (k)) * A_STRIDE + ((v) ^ a_swizzle(k)))
// ANCHOR_END: swizzle
#define A_VECS (BM * BK / 4)  // 4-vectors in an A tile
#define B_VECS (BK * BN / 4)
#define A_LOADS ((A_VECS + WORKGROUP_SIZE - 1) / WORKGROUP_SIZE)  // per invocation and step
#define B_LOADS ((B_VECS + WORKGROUP_SIZE - 1) / WORKGROUP_SIZE)
#ifndef SPLIT_K
#define SPLIT_K 1
#endif
#ifndef CEILING
#define CEILING 0
#endif

#if SPLIT_K > 1
layout(std430, binding = 4) writeonly buffer P1 { float p1[]; };
layout(std430, binding = 4) writeonly buffer P4 { vec4 p4[]; };

// P[slice][row][col..col+3], for col a multiple of 4, inside the matrix.
void store_partial4(uint slice, uint row, uint col, vec4 acc) {
    if (row >= M || col >= N) {
        return;
    }
    uint i = (slice * M + row) * N + col;
    if (N % 4 == 0) {
        p4[i / 4] = acc;
        return;
    }
    for (uint j = 0; j < 4 && col + j < N; j++) {
        p1[i + j] = acc[j];
    }
}
#endif

shared vec4 As[2 * BK * A_STRIDE];
shared vec4 Bs[2 * BK * B_STRIDE];

// This invocation's accumulators: row i (of TM), column group c (of TN/4).
vec4 acc[TM][TN / 4];
// The next step's tiles, held between their global loads and their shared stores.
vec4 next_a[A_LOADS];
vec4 next_b[B_LOADS];

void compute_tile(uint buf, uint tx, uint ty);

// Load the tiles of K offset k0 into next_a and next_b.
void load_tiles(uint m0, uint n0, uint k0) {
    [[unroll]] for (uint i = 0; i < A_LOADS; i++) {
        uint v = gl_LocalInvocationIndex + i * WORKGROUP_SIZE;
        next_a[i] = v >= A_VECS ? vec4(0.0) : load_a4(m0 + v / (BK / 4), k0 + (v % (BK / 4)) * 4);
    }
    [[unroll]] for (uint i = 0; i < B_LOADS; i++) {
        uint v = gl_LocalInvocationIndex + i * WORKGROUP_SIZE;
        next_b[i] = v >= B_VECS ? vec4(0.0) : load_b4(k0 + v / (BN / 4), n0 + (v % (BN / 4)) * 4);
    }
}

// Store next_a and next_b into shared buffer buf.
void store_tiles(uint buf) {
    [[unroll]] for (uint i = 0; i < A_LOADS; i++) {
        uint v = gl_LocalInvocationIndex + i * WORKGROUP_SIZE;
        if (v >= A_VECS) {
            break;
        }
        uint m = v / (BK / 4);
        uint k = (v % (BK / 4)) * 4;
        [[unroll]] for (uint j = 0; j < 4; j++) {
            As[A_INDEX(buf, k + j, m / 4)][m % 4] = next_a[i][j];
        }
    }
    [[unroll]] for (uint i = 0; i < B_LOADS; i++) {
        uint v = gl_LocalInvocationIndex + i * WORKGROUP_SIZE;
        if (v >= B_VECS) {
            break;
        }
        Bs[(buf * BK + v / (BN / 4)) * B_STRIDE + v % (BN / 4)] = next_b[i];
    }
}

// The step loop of a ceiling, which times part of the GEMM's work: CEILING 1, the tiles stay
// resident (the first step's tiles are in both buffers and every step computes on them: no
// global loads, no shared stores); 2, resident and without the barriers (the multiply-adds and
// their shared-memory reads alone); 3, the staging alone (global loads, shared stores and
// barriers, and one shared read per step in place of the multiply-adds). The results are wrong
// by design.
// ANCHOR: ceiling_steps
void ceiling_steps(uint m0, uint n0, uint k0, uint steps, uint tx, uint ty) {
    if (CEILING != 3 && steps > 0) {
        store_tiles(1);
        barrier();  // both buffers hold the first tiles before anyone reads them
    }
    for (uint s = 0; s < steps; s++) {
        uint buf = s % 2;
        if (CEILING == 3 && s + 1 < steps) {
            load_tiles(m0, n0, k0 + (s + 1) * BK);
            store_tiles(1 - buf);
        }
        if (CEILING != 3) {
            compute_tile(buf, tx, ty);
        } else {
            // One read of each tile, at an index the compiler cannot foresee, keeps every
            // shared store (and so every global load) alive.
            uint i = gl_LocalInvocationIndex;
            acc[0][0].x += As[buf * BK * A_STRIDE + i % (BK * A_STRIDE)].x + Bs[buf * BK * B_STRIDE + i % (BK * B_STRIDE)].x;
        }
        if (CEILING != 2) {
            barrier();  // as the GEMM's step: the other buffer written, this one read
        }
    }
}
// ANCHOR_END: ceiling_steps

// The whole block, for the invocation at (tx, ty) of the lane grid.
void gemm_block(uint tx, uint ty) {
    uint slice = gl_WorkGroupID.z;
    uint tile = (slice * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint m0 = gl_WorkGroupID.y * BM;
    uint n0 = gl_WorkGroupID.x * BN;
    [[unroll]] for (uint i = 0; i < TM; i++) {
        [[unroll]] for (uint c = 0; c < TN / 4; c++) {
            acc[i][c] = vec4(0.0);
        }
    }
// ANCHOR: slice
    // This slice's steps: [first, first + steps) of all of K's (all of them without split-K).
    uint all_steps = (K + BK - 1) / BK;
    uint per_slice = (all_steps + SPLIT_K - 1) / SPLIT_K;
    uint first = min(all_steps, slice * per_slice);
    uint steps = min(all_steps, first + per_slice) - first;
    uint k0 = first * BK;
// ANCHOR_END: slice
    if (steps > 0) {
        load_tiles(m0, n0, k0);
        store_tiles(0);
    }
    barrier();  // the first tiles are in shared memory before anyone reads them
#if CEILING
    ceiling_steps(m0, n0, k0, steps, tx, ty);
#else
// ANCHOR: steps
    for (uint s = 0; s < steps; s++) {
        uint buf = s % 2;
        if (s + 1 < steps) {
            load_tiles(m0, n0, k0 + (s + 1) * BK);  // in flight during the multiply-adds below
        }
        compute_tile(buf, tx, ty);
        if (s + 1 < steps) {
            store_tiles(1 - buf);
        }
        // The other buffer is written before the next step reads it, and this buffer is read
        // by everyone before the step after next overwrites it.
        barrier();
    }
// ANCHOR_END: steps
#endif
    if (fault_drops(tile)) {
        return;
    }
    [[unroll]] for (uint i = 0; i < TM; i++) {
        uint row = m0 + (i / 4) * 4 * NR + ty * 4 + i % 4;
        [[unroll]] for (uint c = 0; c < TN / 4; c++) {
#if SPLIT_K > 1
            store_partial4(slice, row, n0 + c * 4 * NC + tx * 4, acc[i][c]);
#else
            store_d4(row, n0 + c * 4 * NC + tx * 4, acc[i][c]);
#endif
        }
    }
}

// Where the invocation with this gl_LocalInvocationIndex sits in the lane grid. The lanes are
// taken in groups of LANES_W × LANES_H (groups row-major over the grid, lanes row-major within
// a group), so that the lanes of one group share few A and B addresses: a group as wide as
// the grid (the default) is one row of lanes, all reading the same A values and different B
// values; an 8 × 4 group reads 4 A and 8 B 4-vectors per k. Any group shape gives the same
// results, whatever the subgroup size; it only changes which lanes read together.
// ANCHOR: lanes
#ifndef LANES_W
#define LANES_W NC
#define LANES_H 1
#endif
uvec2 lane_position() {
    uint i = gl_LocalInvocationIndex;
    uint group = i / (LANES_W * LANES_H);
    uint lane = i % (LANES_W * LANES_H);
    uint groups_across = NC / LANES_W;
    return uvec2((group % groups_across) * LANES_W + lane % LANES_W, (group / groups_across) * LANES_H + lane / LANES_W);
}
// ANCHOR_END: lanes

// The multiply-adds of one k: acc += a ⊗ b, with a holding this invocation's TM values of
// column k of A and b its TN values of row k of B.
// ANCHOR: outer_product
#define OUTER_PRODUCT(a, b)                                   \
    [[unroll]] for (uint i = 0; i < TM; i++) {                \
        [[unroll]] for (uint c = 0; c < TN / 4; c++) {        \
            acc[i][c] = fma(vec4(a[i / 4][i % 4]), b[c], acc[i][c]); \
        }                                                     \
    }
// ANCHOR_END: outer_product

// This invocation's TN values of row k of the B tile in buffer buf.
#define LOAD_B_ROW(b, buf, k, tx)                             \
    [[unroll]] for (uint c = 0; c < TN / 4; c++) {            \
        b[c] = Bs[((buf) * BK + (k)) * B_STRIDE + c * NC + (tx)]; \
    }

// This invocation's TM values of column k of the A tile in buffer buf.
#define LOAD_A_COL(a, buf, k, ty)                             \
    [[unroll]] for (uint r = 0; r < TM / 4; r++) {            \
        a[r] = As[A_INDEX(buf, k, r * NR + (ty))];         \
    }
#endif
