// subgroup_only.comp — variant 3: subgroup reduction only, no workgroup barrier.
// One invocation loads one element; each subgroup reduces with the SUBGROUP_OP intrinsic and
// one lane writes the subgroup's partial to slot (workgroup × MAX_SUBGROUPS + gl_SubgroupID).
// MAX_SUBGROUPS = workgroup size / smallest possible subgroup size; the host pre-fills the
// output with IDENTITY where the subgroup size may vary, so slots of subgroups that do not
// exist change nothing.
// Needs: GL_KHR_shader_subgroup_basic and _arithmetic.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "reduce_op.glsl"
#include "pass.glsl"

layout(constant_id = 1) const uint MAX_SUBGROUPS = 64;

void main() {
    uint workgroup = flat_workgroup_id();
    if (past_the_work(workgroup)) {
        return;
    }
    T reduced = SUBGROUP_OP(load_element(workgroup));
    if (subgroupElect()) {
        dst[workgroup * MAX_SUBGROUPS + gl_SubgroupID] = contribution(workgroup, reduced);
    }
}
