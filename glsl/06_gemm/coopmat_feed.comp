// coopmat_feed.comp — the ceiling of a GEMM's inner loop on the matrix units: coopMatMulAdd fed
// by coopMatLoad from shared memory, with a barrier per step and no global-memory traffic.
// The workgroup fills an A tile (TM·M rows × 2K columns) and a B tile (2K × TN·N, or its
// transpose where B_COL) in shared memory once, rows padded by 16 bytes as in coopmat.comp.
// Then every step, each subgroup loads TM A fragments and TN B fragments of one K half (the
// halves alternate, so that no load is loop-invariant) and runs the TM×TN multiply-adds of a
// GEMM's fragment grid, then waits at a barrier. All subgroups read the same tiles.
// One invocation: one lane of its subgroup's loads and multiply-adds, and at the end a share of
// one store of the accumulators' sum, so that the compiler cannot drop the work. The host counts
// 2·M·N·K·TM·TN·STEPS operations per subgroup.
// Needs: VK_KHR_cooperative_matrix with this shape and these types (A_TYPE 16- or 8-bit).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) writeonly buffer Sink { uvec4 sink[]; };
// fill: the 32-bit word every shared tile word is set to (small values of A_TYPE).
layout(push_constant) uniform Push { uint steps; uint fill; };

#define EPV (16 / A_BYTES)  // elements per 16-byte vector
#define A_STRIDE (2 * K + EPV)
#if B_COL
#define B_STRIDE (2 * K + EPV)
#define B_VECS (TN * N * B_STRIDE / EPV)
#else
#define B_STRIDE (TN * N + EPV)
#define B_VECS (2 * K * B_STRIDE / EPV)
#endif
#define A_VECS (TM * M * A_STRIDE / EPV)
#define ROW_VECS (N * C_BYTES / 16)
shared uvec4 tile[A_VECS + B_VECS];

void main() {
    for (uint v = gl_LocalInvocationIndex; v < A_VECS + B_VECS; v += gl_WorkGroupSize.x) {
        tile[v] = uvec4(fill);
    }
    barrier();  // the tiles are filled before any subgroup loads a fragment

    coopmat<C_TYPE, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> acc[TM][TN];
    [[unroll]] for (uint i = 0; i < TM; i++) {
        [[unroll]] for (uint j = 0; j < TN; j++) {
            acc[i][j] = coopmat<C_TYPE, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(0);
        }
    }
// ANCHOR: feed_loop
    for (uint s = 0; s < steps; s++) {
        uint kk = (s & 1u) * K;
        coopmat<A_TYPE, gl_ScopeSubgroup, M, K, gl_MatrixUseA> fa[TM];
        [[unroll]] for (uint i = 0; i < TM; i++) {
            coopMatLoad(fa[i], tile, (i * M * A_STRIDE + kk) / EPV, A_STRIDE / EPV, gl_CooperativeMatrixLayoutRowMajor);
        }
        [[unroll]] for (uint j = 0; j < TN; j++) {
            coopmat<A_TYPE, gl_ScopeSubgroup, K, N, gl_MatrixUseB> fb;
#if B_COL
            coopMatLoad(fb, tile, A_VECS + (j * N * B_STRIDE + kk) / EPV, B_STRIDE / EPV,
                        gl_CooperativeMatrixLayoutColumnMajor);
#else
            coopMatLoad(fb, tile, A_VECS + (kk * B_STRIDE + j * N) / EPV, B_STRIDE / EPV,
                        gl_CooperativeMatrixLayoutRowMajor);
#endif
            [[unroll]] for (uint i = 0; i < TM; i++) {
                acc[i][j] = coopMatMulAdd(fa[i], fb, acc[i][j]);
            }
        }
        // Where a GEMM's K step ends. It also keeps the compiler from keeping the fragments in
        // registers across steps: after a barrier, shared memory may hold new values.
        barrier();
    }
// ANCHOR_END: feed_loop
    [[unroll]] for (uint i = 0; i < TM; i++) {
        [[unroll]] for (uint j = 0; j < TN; j++) {
            if (i + j > 0) {
                acc[0][0] += acc[i][j];
            }
        }
    }
    uint subgroup = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
    coopMatStore(acc[0][0], sink, subgroup * M * ROW_VECS, ROW_VECS, gl_CooperativeMatrixLayoutRowMajor);
}
