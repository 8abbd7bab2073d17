// shuffle_xor.comp — variant 4: for devices with shuffle but without subgroup arithmetic.
// Like hybrid.comp, but each subgroup reduces with a subgroupShuffleXor butterfly: log2(size)
// steps, after which every lane holds the subgroup's result. All lanes must be active (the
// workgroup size is a multiple of the subgroup size, out-of-range lanes load IDENTITY).
// Needs: GL_KHR_shader_subgroup_basic and _shuffle.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "reduce_op.glsl"
#include "pass.glsl"

// ANCHOR: butterfly
T butterfly_reduce(T value) {
    // gl_SubgroupSize is a power of two; the step count follows it (3 at 8 lanes, 5 at 32).
    for (uint mask = gl_SubgroupSize / 2; mask > 0; mask /= 2) {
        value = OP(value, subgroupShuffleXor(value, mask));
    }
    return value;
}
// ANCHOR_END: butterfly
#define SUBGROUP_REDUCE(v) butterfly_reduce(v)
#include "workgroup_reduce.glsl"

void main() {
    uint workgroup = flat_workgroup_id();
    if (past_the_work(workgroup)) {
        return;
    }
    T total = workgroup_reduce(load_element(workgroup));
    if (gl_LocalInvocationIndex == 0) {
        dst[workgroup] = contribution(workgroup, total);
    }
}
