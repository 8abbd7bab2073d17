// copy.comp — the bandwidth ceiling every bench compares against.
// One invocation copies one uvec4 (16 bytes) per grid-stride step; one workgroup of
// local_size_x invocations covers local_size_x consecutive uvec4s per step, so every load and
// store is fully coalesced. No subgroup features needed.
#version 450

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push { uint count; };  // number of uvec4s

void main() {
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
        dst[i] = src[i];
    }
}
