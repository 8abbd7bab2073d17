// coopmat2.comp — D = α·A·B + β·C_in with VK_NV_cooperative_matrix2's workgroup-scope matrices:
// the whole workgroup owns one BM×BN accumulator, and each K step loads a BM×BK slice of A and a
// BK×BN slice of B straight from global memory through tensor layouts. The driver picks how
// the matrices are spread over the invocations and how they are staged through shared memory
// (the staging the KHR kernel writes by hand). At the matrix edges the layouts clamp: loads
// past them read 0 and stores past them are dropped, so any M, N, K needs no guard here;
// blocks wholly inside the matrices take layouts without clamping.
//
// One invocation: its share, chosen by the driver, of every load, multiply-add and store of the
// workgroup's matrices; the workgroup size (WORKGROUP_SIZE) is one the device lists for
// workgroup scope. BM, BN, BK: multiples of the listed granularities; UNROLL: K steps per
// iteration of the interior loop.
// CEILING (interior blocks only; timed, never checked) builds a ceiling instead of a GEMM:
// 1, the tiles: every K step reloads one of the slices of the first two iterations, which stay
// in the cache, so the driver's loads run without DRAM behind them; 2, the multiply-adds: A
// and B are filled from α in registers and nothing is loaded, the workgroup-scope MMA-only rate.
// Needs: VK_NV_cooperative_matrix2 (workgroup scope, flexible dimensions, tensor addressing;
// per-element operations for --inject-fault off-by-one), SPIR-V 1.6; ELEM/OUT as in
// coopmat_io.glsl, where OUT is f32 for f32 accumulation with bf16 inputs (a bf16 accumulator
// is no type the device lists) and 16-bit D needs 16-bit storage.
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix2 : require
#include "coopmat_io.glsl"

layout(local_size_x_id = 0) in;

#ifndef CEILING
#define CEILING 0
#endif

#if OUT == 0
#define D_TYPE float
#elif OUT == 1
#define D_TYPE float16_t
#else
#define D_TYPE int
#endif

#if INJECT_FAULT == 2
// The off-by-one fault: element FAULT_ELEMENT of A (row r, column c of the slice at m0, k0)
// takes its neighbour's value, read from A's words.
A_TYPE shifted(const in uint r, const in uint c, const in A_TYPE v, const in uint m0, const in uint k0) {
    if (m0 + r >= M || k0 + c >= K || (m0 + r) * K + k0 + c != FAULT_ELEMENT) {
        return v;
    }
    uint bits = ELEM_AT(a1, FAULT_ELEMENT + 1);
#if ELEM == 0
    return uint16BitsToHalf(uint16_t(bits));
#elif ELEM == 1
    return uintBitsToBFloat16EXT(uint16_t(bits));
#else
    return int8_t(int(bits << 24) >> 24);
#endif
}
#endif

void main() {
    uint m0 = gl_WorkGroupID.y * BM;
    uint n0 = gl_WorkGroupID.x * BN;

// ANCHOR: layouts
    // Row-major M×K, K×N and M×N tensors; elements past their dimensions load as 0, and
    // stores to them are dropped (clamp mode Constant, clamp value 0).
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> layout_a =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> layout_b =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> layout_d =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    layout_a = setTensorLayoutDimensionNV(layout_a, M, K);
    layout_b = setTensorLayoutDimensionNV(layout_b, K, N);
    layout_d = setTensorLayoutDimensionNV(layout_d, M, N);
// ANCHOR_END: layouts

// ANCHOR: steps
    coopmat<ACC_TYPE, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
        coopmat<ACC_TYPE, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0);
    // Interior blocks of a problem whose K is whole iterations and whose rows are whole 16-byte
    // vectors load through layouts without clamping, strides rounded down to 16 bytes to tell
    // the compiler so (they already are), UNROLL K steps per iteration. The test is uniform over
    // the workgroup, so every cooperative-matrix call below stays in uniform control flow.
    bool interior = m0 + BM <= M && n0 + BN <= N && K % (UNROLL * BK) == 0 && K % ELEMS_PER_VEC4 == 0
                    && N % ELEMS_PER_VEC4 == 0;
    if (interior) {
        tensorLayoutNV<2> fast_a = createTensorLayoutNV(2);
        tensorLayoutNV<2> fast_b = createTensorLayoutNV(2);
        fast_a = setTensorLayoutDimensionNV(fast_a, M, K);
        fast_b = setTensorLayoutDimensionNV(fast_b, K, N);
        fast_a = setTensorLayoutStrideNV(fast_a, K & ~(ELEMS_PER_VEC4 - 1u), 1);
        fast_b = setTensorLayoutStrideNV(fast_b, N & ~(ELEMS_PER_VEC4 - 1u), 1);
        for (uint k0 = 0; k0 < K; k0 += UNROLL * BK) {
            [[unroll]] for (uint h = 0; h < UNROLL; h++) {
                coopmat<A_TYPE, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> a;
                coopmat<A_TYPE, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> b;
// ANCHOR: ceiling
#if CEILING == 2
                // Values that change with k0, so that no fill is hoisted out of the loop.
                a = coopmat<A_TYPE, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>(A_TYPE(alpha * float(k0 + 1)));
                b = coopmat<A_TYPE, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>(A_TYPE(alpha));
#else
                uint k = CEILING == 1 ? k0 % (2 * UNROLL * BK) : k0;
                coopMatLoadTensorNV(a, a4, 0, sliceTensorLayoutNV(fast_a, m0, BM, k + h * BK, BK));
                coopMatLoadTensorNV(b, b4, 0, sliceTensorLayoutNV(fast_b, k + h * BK, BK, n0, BN));
#endif
// ANCHOR_END: ceiling
#if INJECT_FAULT == 2
                if (FAULT_ELEMENT / K - m0 < BM && FAULT_ELEMENT % K - (k0 + h * BK) < BK) {
                    coopMatPerElementNV(a, a, shifted, m0, k0 + h * BK);
                }
#endif
                acc = coopMatMulAdd(a, b, acc);
            }
        }
    } else {
        for (uint k0 = 0; k0 < K; k0 += BK) {
            coopmat<A_TYPE, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> a;
            coopmat<A_TYPE, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> b;
            coopMatLoadTensorNV(a, a4, 0, sliceTensorLayoutNV(layout_a, m0, BM, k0, BK));
            coopMatLoadTensorNV(b, b4, 0, sliceTensorLayoutNV(layout_b, k0, BK, n0, BN));
#if INJECT_FAULT == 2
            if (FAULT_ELEMENT / K - m0 < BM && FAULT_ELEMENT % K - k0 < BK) {
                coopMatPerElementNV(a, a, shifted, m0, k0);
            }
#endif
            acc = coopMatMulAdd(a, b, acc);
        }
    }
// ANCHOR_END: steps
    if (fault_drops(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x)) {
        return;
    }
// ANCHOR: epilogue
#if ELEM == 2
    coopmat<D_TYPE, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> d = acc;
#else
    acc = alpha * acc;
    if (beta != 0.0) {
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> c;
        coopMatLoadTensorNV(c, c1, 0, sliceTensorLayoutNV(layout_d, m0, BM, n0, BN));
        acc += beta * c;
    }
    coopmat<D_TYPE, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> d =
        coopmat<D_TYPE, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(acc);
#endif
    coopMatStoreTensorNV(d, d1, 0, sliceTensorLayoutNV(layout_d, m0, BM, n0, BN));
// ANCHOR_END: epilogue
}
