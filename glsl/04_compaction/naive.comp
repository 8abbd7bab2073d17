// naive.comp — variant 1: one atomicAdd per kept element for its output slot. One invocation
// reads one element; a kept element takes the next slot of a device-wide counter (partition: a
// rejected one takes the next slot from the back). Every kept element is one atomic on one
// address, and slots go to whoever arrives first: the output order is scrambled.
// Needs: nothing beyond Vulkan 1.0 compute.
#version 450
#include "predicate.glsl"

layout(local_size_x_id = 0) in;

void main() {
    uint workgroup = flat_workgroup_id();
    uint i = workgroup * WORKGROUP_SIZE + gl_LocalInvocationIndex;
    if (i >= n || fault_drops(workgroup)) {
        return;  // no barrier or subgroup operation follows
    }
    D x = src1[fault_index(i)];
    D previous = i > 0 ? src1[fault_index(i - 1)] : x;
    if (keep(i, x, previous)) {
        dst1[atomicAdd(kept_count, 1u)] = x;
    } else if (PARTITION) {
        dst1[n - 1 - atomicAdd(rejected_count, 1u)] = x;
    }
}
