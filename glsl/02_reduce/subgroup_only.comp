// subgroup_only.comp — variant 3: subgroup reduction only, no workgroup barrier.
// One invocation loads one element; each subgroup reduces with the SUBGROUP_OP intrinsic and
// one lane writes the subgroup's partial to slot (workgroup × MAX_SUBGROUPS + gl_SubgroupID).
// MAX_SUBGROUPS = workgroup size / smallest possible subgroup size; the host pre-fills the
// output with IDENTITY, so slots of subgroups that do not exist change nothing.
// Needs: GL_KHR_shader_subgroup_basic and _arithmetic.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "reduce_op.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint MAX_SUBGROUPS = 64;
layout(std430, binding = 0) readonly buffer Src { T src[]; };
layout(std430, binding = 1) writeonly buffer Dst { T dst[]; };
layout(push_constant) uniform Push { uint n; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    T reduced = SUBGROUP_OP(i < n ? src[i] : IDENTITY);
    if (subgroupElect()) {
        dst[gl_WorkGroupID.x * MAX_SUBGROUPS + gl_SubgroupID] = reduced;
    }
}
