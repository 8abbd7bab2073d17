// subgroup_check.comp — does the driver form the subgroups it promises? One workgroup of
// WORKGROUP_SIZE invocations (a multiple of the largest subgroup size, full subgroups
// required where the device allows it); every invocation counts itself into its subgroup's
// slot with a shared atomic, then writes (gl_SubgroupSize, gl_NumSubgroups, gl_SubgroupID,
// gl_SubgroupInvocationID, lanes counted in its subgroup). The host checks that every subgroup
// has all gl_SubgroupSize lanes, that the IDs are unique and complete, and that
// gl_NumSubgroups × gl_SubgroupSize is the workgroup size. Needs: subgroup basic only.
#version 450
#extension GL_KHR_shader_subgroup_basic : require

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) writeonly buffer Report { uint words[]; };

shared uint lanes_in[WORKGROUP_SIZE];  // per subgroup ID; sized for subgroups of one lane

void main() {
    uint me = gl_LocalInvocationIndex;
    lanes_in[me] = 0;
    barrier();  // the counters are zero before anyone counts
    // A broken driver may report IDs past the workgroup's size: clamp, the host sees the ID.
    atomicAdd(lanes_in[min(gl_SubgroupID, WORKGROUP_SIZE - 1)], 1u);
    barrier();  // every lane has counted itself
    uint base = me * 5;
    words[base] = gl_SubgroupSize;
    words[base + 1] = gl_NumSubgroups;
    words[base + 2] = gl_SubgroupID;
    words[base + 3] = gl_SubgroupInvocationID;
    words[base + 4] = lanes_in[min(gl_SubgroupID, WORKGROUP_SIZE - 1)];
}
