// texel_copy.comp — the texel-buffer binding's test (vk_compute): one invocation copies one
// 4-vector, fetched from a uniform texel buffer (binding 1, read through the texture path),
// into a storage buffer (binding 0). No subgroup features needed.
#version 450

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) writeonly buffer Dst { vec4 dst[]; };
layout(binding = 1) uniform samplerBuffer src;
layout(push_constant) uniform Push { uint count; };  // number of 4-vectors

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < count) {
        dst[i] = texelFetch(src, int(i));
    }
}
