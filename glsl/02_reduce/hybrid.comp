// hybrid.comp — variant 2: subgroup reduction + shared memory.
// One invocation loads one element; each subgroup reduces with the SUBGROUP_OP intrinsic, the
// per-subgroup partials go through shared memory and are reduced again by subgroups (looping
// when a workgroup has more subgroups than a subgroup has lanes); one partial per workgroup.
// Needs: GL_KHR_shader_subgroup_basic and _arithmetic.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "reduce_op.glsl"
#define SUBGROUP_REDUCE(v) SUBGROUP_OP(v)
#include "workgroup_reduce.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Src { T src[]; };
layout(std430, binding = 1) writeonly buffer Dst { T dst[]; };
layout(push_constant) uniform Push { uint n; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    T total = workgroup_reduce(i < n ? src[i] : IDENTITY);
    if (gl_LocalInvocationIndex == 0) {
        dst[gl_WorkGroupID.x] = total;
    }
}
