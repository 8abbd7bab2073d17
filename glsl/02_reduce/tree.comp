// tree.comp — variant 1: the shared-memory tree, no subgroup operations at all.
// One invocation loads one element; one workgroup reduces its gl_WorkGroupSize.x elements in
// log2(gl_WorkGroupSize.x) rounds, each a shared-memory read/write and a barrier, and writes
// one partial. The host repeats the pass over the partials until one value is left.
// Needs: nothing beyond Vulkan 1.0 compute. Workgroup size: a power of two.
#version 450
#include "reduce_op.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Src { T src[]; };
layout(std430, binding = 1) writeonly buffer Dst { T dst[]; };
layout(push_constant) uniform Push { uint n; };

shared T tree[WORKGROUP_SIZE];  // the host's define (see workgroup_reduce.glsl)

void main() {
    uint tid = gl_LocalInvocationID.x;
    uint i = gl_GlobalInvocationID.x;
    tree[tid] = i < n ? src[i] : IDENTITY;
    barrier();  // all loads are in shared memory before the first round reads them
    for (uint stride = gl_WorkGroupSize.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) {
            tree[tid] = OP(tree[tid], tree[tid + stride]);
        }
        barrier();  // this round's writes before the next round's reads
    }
    if (tid == 0) {
        dst[gl_WorkGroupID.x] = tree[0];
    }
}
