// observe_size.comp — what subgroup size does a pipeline really get?
// One invocation per lane records gl_SubgroupSize and gl_NumSubgroups with atomicMin/atomicMax,
// so the host sees the smallest and largest size any subgroup of the workgroup observed (they
// differ only if a driver mixed sizes). Needs: GL_KHR_shader_subgroup_basic.
#version 450
#extension GL_KHR_shader_subgroup_basic : require

layout(local_size_x_id = 0) in;

// observed[0] = min gl_SubgroupSize, [1] = max gl_SubgroupSize, [2] = gl_NumSubgroups.
layout(std430, binding = 0) buffer Observed { uint observed[]; };

void main() {
    atomicMin(observed[0], gl_SubgroupSize);
    atomicMax(observed[1], gl_SubgroupSize);
    if (gl_LocalInvocationIndex == 0) {
        observed[2] = gl_NumSubgroups;
    }
}
