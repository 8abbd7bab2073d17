// tree.comp — variant 1: the shared-memory tree, no subgroup operations at all.
// One invocation loads one element; one workgroup reduces its WORKGROUP_SIZE elements in
// log2(WORKGROUP_SIZE) rounds, each a shared-memory read/write and a barrier, and writes
// one partial. The host repeats the pass over the partials until one value is left.
// Needs: nothing beyond Vulkan 1.0 compute. Workgroup size: a power of two.
#version 450
#include "reduce_op.glsl"
#include "pass.glsl"

shared T tree[WORKGROUP_SIZE];  // the host's define (see workgroup_reduce.glsl)

void main() {
    uint workgroup = flat_workgroup_id();
    if (past_the_work(workgroup)) {
        return;  // the whole workgroup: no barrier is left waiting
    }
    uint tid = gl_LocalInvocationIndex;
    tree[tid] = load_element(workgroup);
    barrier();  // all loads are in shared memory before the first round reads them
    for (uint stride = WORKGROUP_SIZE / 2; stride > 0; stride /= 2) {
        if (tid < stride) {
            tree[tid] = OP(tree[tid], tree[tid + stride]);
        }
        barrier();  // this round's writes before the next round's reads
    }
    if (tid == 0) {
        dst[workgroup] = contribution(workgroup, tree[0]);
    }
}
