// coopmat_peak.comp — the matrix units' ceiling for one cooperative-matrix shape and type:
// nothing but coopMatMulAdd. Each subgroup makes one A and one B fragment (M×K and K×N, of
// A_TYPE) from a push constant, in registers, and runs STEPS rounds of ACCS independent
// multiply-adds into C_TYPE accumulators (independent so that their latencies overlap), then
// stores their sum, so that the compiler cannot drop the work; nothing else touches memory.
// One invocation: one lane of its subgroup's fragments. The host counts 2·M·N·K·ACCS·STEPS
// operations per subgroup. Needs: VK_KHR_cooperative_matrix with this shape and these types
// (and their component types' features: shaderFloat16, shaderInt8, bf16 cooperative matrices).
#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#if NEEDS_BF16
#extension GL_EXT_bfloat16 : require
#endif

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) writeonly buffer Sink { uvec4 sink[]; };
layout(push_constant) uniform Push { uint steps; float seed; };

// Bytes of one accumulator row: each subgroup's sum takes M rows of them in the sink.
#define ROW_VECS (N * C_BYTES / 16)

void main() {
    coopmat<A_TYPE, gl_ScopeSubgroup, M, K, gl_MatrixUseA> a = coopmat<A_TYPE, gl_ScopeSubgroup, M, K, gl_MatrixUseA>(A_TYPE(seed));
    coopmat<A_TYPE, gl_ScopeSubgroup, K, N, gl_MatrixUseB> b = coopmat<A_TYPE, gl_ScopeSubgroup, K, N, gl_MatrixUseB>(A_TYPE(seed));
    coopmat<C_TYPE, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator> acc[ACCS];
    [[unroll]] for (uint j = 0; j < ACCS; j++) {
        acc[j] = coopmat<C_TYPE, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>(C_TYPE(j));
    }
// ANCHOR: mma_loop
    for (uint s = 0; s < steps; s++) {
        [[unroll]] for (uint j = 0; j < ACCS; j++) {
            acc[j] = coopMatMulAdd(a, b, acc[j]);
        }
    }
// ANCHOR_END: mma_loop
    [[unroll]] for (uint j = 1; j < ACCS; j++) {
        acc[0] += acc[j];
    }
    uint subgroup = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
    coopMatStore(acc[0], sink, subgroup * M * ROW_VECS, ROW_VECS, gl_CooperativeMatrixLayoutRowMajor);
}
