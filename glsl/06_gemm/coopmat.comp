// coopmat.comp — D = α·A·B + β·C_in on the matrix units, through VK_KHR_cooperative_matrix's
// subgroup-scope fragments of FM×FN×FK (a shape the host read from the device's list).
//
// One workgroup computes a BM×BN block of D with SG_M×SG_N subgroups; each subgroup owns a
// grid of TM×TN accumulator fragments, a (TM·FM)×(TN·FN) block of the workgroup's. K is walked
// in steps of BK: the workgroup stages the A tile (BM×BK) and the B tile (BK×BN) in shared
// memory with 16-byte loads (zeros past the matrix edges), each tile row padded by 16 bytes so
// that the rows one fragment load touches start in different banks; two buffers: the next
// step's tiles are loaded from global memory into registers while this step's fragments
// multiply, then stored into the other buffer, with one barrier per step. The loads are issued
// at the top of the step, or with EARLY_LOADS at the end of the step before, right after its
// stores and before its barrier, so that they are also in flight while the subgroups wait there.
//
// One invocation: a share of those loads and stores, one lane of its subgroup's coopMatLoad and
// coopMatMulAdd calls, and at the end a share of each of its subgroup's fragments, written to D
// through a per-subgroup scratch in shared memory so that every store can be guarded at the
// edges, take α and β, and convert to OUT (coopmat_io.glsl).
// STAGE_ONLY=1 (f16 only) builds a ceiling, not a GEMM: each multiply-add is replaced by f16
// sums of the lane's elements of its fragments, so that the staging and the fragment loads
// still happen, with the accumulators live in registers, and the matrix units stay idle; D is
// then no product (timed, never checked).
// Needs: VK_KHR_cooperative_matrix with the FM×FN×FK shape for ELEM; shaderFloat16, bf16
// cooperative matrices or shaderInt8 by ELEM; 16-bit storage for 16-bit D; full subgroups of
// one size (the workgroup is SG_M·SG_N of them). Tile shapes are defines from the host.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "coopmat_io.glsl"

layout(local_size_x_id = 0) in;

#define BM (SG_M * TM * FM)
#define BN (SG_N * TN * FN)
#define EPV ELEMS_PER_VEC4
#define A_STRIDE (BK + EPV)  // elements per row of the A tile, 16 bytes of padding included
#define B_STRIDE (BN + EPV)
#define A_TILE (BM * A_STRIDE / EPV)  // 16-byte vectors of one A buffer
#define B_TILE (BK * B_STRIDE / EPV)
#define A_VECS (BM * BK / EPV)  // 16-byte vectors loaded per step
#define B_VECS (BK * BN / EPV)
#define A_LOADS ((A_VECS + WORKGROUP_SIZE - 1) / WORKGROUP_SIZE)  // per invocation and step
#define B_LOADS ((B_VECS + WORKGROUP_SIZE - 1) / WORKGROUP_SIZE)
#define SCRATCH (FM * FN / 4)  // 16-byte vectors of one subgroup's 32-bit fragment

#define TILES_VECS (2 * (A_TILE + B_TILE))
#define SCRATCH_VECS (SG_M * SG_N * SCRATCH)
// Two buffers of A and B tiles; after the last step, each subgroup's epilogue scratch.
shared uvec4 smem[TILES_VECS > SCRATCH_VECS ? TILES_VECS : SCRATCH_VECS];

// The next step's tiles, held between their global loads and their shared stores.
uvec4 next_a[A_LOADS];
uvec4 next_b[B_LOADS];

void load_tiles(uint m0, uint n0, uint k0) {
    [[unroll]] for (uint i = 0; i < A_LOADS; i++) {
        uint v = gl_LocalInvocationIndex + i * WORKGROUP_SIZE;
        next_a[i] = v < A_VECS ? load_a_vec(m0 + v / (BK / EPV), k0 + (v % (BK / EPV)) * EPV) : uvec4(0);
    }
    [[unroll]] for (uint i = 0; i < B_LOADS; i++) {
        uint v = gl_LocalInvocationIndex + i * WORKGROUP_SIZE;
        next_b[i] = v < B_VECS ? load_b_vec(k0 + v / (BN / EPV), n0 + (v % (BN / EPV)) * EPV) : uvec4(0);
    }
}

void store_tiles(uint buf) {
    uint base = buf * (A_TILE + B_TILE);
    [[unroll]] for (uint i = 0; i < A_LOADS; i++) {
        uint v = gl_LocalInvocationIndex + i * WORKGROUP_SIZE;
        if (v < A_VECS) {
            smem[base + (v / (BK / EPV)) * (A_STRIDE / EPV) + v % (BK / EPV)] = next_a[i];
        }
    }
    [[unroll]] for (uint i = 0; i < B_LOADS; i++) {
        uint v = gl_LocalInvocationIndex + i * WORKGROUP_SIZE;
        if (v < B_VECS) {
            smem[base + A_TILE + (v / (BN / EPV)) * (B_STRIDE / EPV) + v % (BN / EPV)] = next_b[i];
        }
    }
}

#ifndef STAGE_ONLY
#define STAGE_ONLY 0
#endif
#ifndef EARLY_LOADS
#define EARLY_LOADS 0
#endif
// ANCHOR: stage_only
#if STAGE_ONLY
// The staging ceiling's stand-in for acc += a·b: each A fragment's elements (once per K step
// of a fragment, at j = 0) and each B fragment's (once, at i = 0) summed into sink.
float16_t sink = float16_t(0);
#define MULTIPLY_ADD(acc, a, b, i, j)                                        \
    [[unroll]] for (uint e = 0; e < a.length() && j == 0; e++) sink += a[e]; \
    [[unroll]] for (uint e = 0; e < b.length() && i == 0; e++) sink += b[e]
#else
#define MULTIPLY_ADD(acc, a, b, i, j) acc = coopMatMulAdd(a, b, acc)
#endif
// ANCHOR_END: stage_only

void main() {
    uint m0 = gl_WorkGroupID.y * BM;
    uint n0 = gl_WorkGroupID.x * BN;
    // This subgroup's place in the workgroup's SG_M×SG_N grid.
    uint sm = gl_SubgroupID / SG_N;
    uint sn = gl_SubgroupID % SG_N;

    coopmat<ACC_TYPE, gl_ScopeSubgroup, FM, FN, gl_MatrixUseAccumulator> acc[TM][TN];
    [[unroll]] for (uint i = 0; i < TM; i++) {
        [[unroll]] for (uint j = 0; j < TN; j++) {
            acc[i][j] = coopmat<ACC_TYPE, gl_ScopeSubgroup, FM, FN, gl_MatrixUseAccumulator>(0);
        }
    }

    uint steps = (K + BK - 1) / BK;
    load_tiles(m0, n0, 0);
    store_tiles(0);
    if (EARLY_LOADS != 0 && 1 < steps) {
        load_tiles(m0, n0, BK);
    }
    barrier();  // the first tiles are in shared memory before any subgroup reads them
#if STAGE_ONLY
    // The accumulators take bits of the first tiles instead of zeros: values the compiler
    // cannot know, so they stay live in registers through the loop, as the GEMM's do.
    [[unroll]] for (uint i = 0; i < TM; i++) {
        [[unroll]] for (uint j = 0; j < TN; j++) {
            uint at = min((i * TN + j) * SCRATCH, TILES_VECS / 2 - SCRATCH);
            coopMatLoad(acc[i][j], smem, at, FN / 4, gl_CooperativeMatrixLayoutRowMajor);
        }
    }
#endif
// ANCHOR: steps
    for (uint s = 0; s < steps; s++) {
        uint buf = s % 2;
        if (EARLY_LOADS == 0 && s + 1 < steps) {
            load_tiles(m0, n0, (s + 1) * BK);  // in flight during the multiplies below
        }
        uint a_base = buf * (A_TILE + B_TILE);
        uint b_base = a_base + A_TILE;
        [[unroll]] for (uint kk = 0; kk < BK; kk += FK) {
            coopmat<A_TYPE, gl_ScopeSubgroup, FM, FK, gl_MatrixUseA> fa[TM];
            [[unroll]] for (uint i = 0; i < TM; i++) {
                uint row = (sm * TM + i) * FM;
                coopMatLoad(fa[i], smem, a_base + (row * A_STRIDE + kk) / EPV, A_STRIDE / EPV,
                            gl_CooperativeMatrixLayoutRowMajor);
            }
            [[unroll]] for (uint j = 0; j < TN; j++) {
                coopmat<A_TYPE, gl_ScopeSubgroup, FK, FN, gl_MatrixUseB> fb;
                uint col = (sn * TN + j) * FN;
                coopMatLoad(fb, smem, b_base + (kk * B_STRIDE + col) / EPV, B_STRIDE / EPV,
                            gl_CooperativeMatrixLayoutRowMajor);
                [[unroll]] for (uint i = 0; i < TM; i++) {
                    MULTIPLY_ADD(acc[i][j], fa[i], fb, i, j);
                }
            }
        }
        if (s + 1 < steps) {
            store_tiles(1 - buf);
        }
        if (EARLY_LOADS != 0 && s + 2 < steps) {
            load_tiles(m0, n0, (s + 2) * BK);  // in flight through the barrier and the next step
        }
        // The other buffer is written before the next step reads it, and this buffer is read
        // by every subgroup (with STAGE_ONLY, also by the accumulators' first loads) before the
        // next step stores the tiles after it here, or, after the last step, before the
        // epilogue's scratch overwrites it.
        barrier();
    }
// ANCHOR_END: steps
#if STAGE_ONLY
    acc[0][0] += coopmat<ACC_TYPE, gl_ScopeSubgroup, FM, FN, gl_MatrixUseAccumulator>(float(sink));
#endif
    if (fault_drops(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x)) {
        return;
    }
// ANCHOR: epilogue
    // Each fragment goes through this subgroup's scratch: stored whole, then read back one
    // element per lane and pass, so that every store to D is guarded and converted.
    uint scratch = gl_SubgroupID * SCRATCH;
    [[unroll]] for (uint i = 0; i < TM; i++) {
        [[unroll]] for (uint j = 0; j < TN; j++) {
            coopMatStore(acc[i][j], smem, scratch, FN / 4, gl_CooperativeMatrixLayoutRowMajor);
            // The fragment is in the scratch before the lanes read it.
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            uint row0 = m0 + (sm * TM + i) * FM;
            uint col0 = n0 + (sn * TN + j) * FN;
            for (uint e = gl_SubgroupInvocationID; e < FM * FN; e += gl_SubgroupSize) {
                store_d(row0 + e / FN, col0 + e % FN, smem[scratch + e / 4][e % 4]);
            }
            // Every lane has read the scratch before the next fragment overwrites it.
            subgroupBarrier();
        }
    }
// ANCHOR_END: epilogue
}
