// hybrid.comp — variant 2: subgroup reduction + shared memory.
// One invocation loads one element; each subgroup reduces with the SUBGROUP_OP intrinsic, the
// per-subgroup partials go through shared memory and are reduced again by subgroups (looping
// when a workgroup has more subgroups than a subgroup has lanes); one partial per workgroup.
// Needs: GL_KHR_shader_subgroup_basic and _arithmetic.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "reduce_op.glsl"
#include "pass.glsl"
#define SUBGROUP_REDUCE(v) SUBGROUP_OP(v)
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
