// pass.glsl — what the four textbook variants share: one element per invocation, one pass
// over `n` values (the input, or the previous pass's partials), on a 2D grid of workgroups.
// Include after reduce_op.glsl.
#include "grid.glsl"
#include "fault.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Src { T src[]; };
layout(std430, binding = 1) writeonly buffer Dst { T dst[]; };
// first_pass: 1 for the pass over the input; --inject-fault strikes there only (a fault in
// every pass could cancel itself out).
layout(push_constant) uniform Push { uint n; uint first_pass; };

// The workgroups this pass needs: one per WORKGROUP_SIZE values, at least one (n = 0 still
// writes the identity). The grid may hold a few more, which return at once.
bool past_the_work(uint workgroup) {
    return workgroup >= max((n + WORKGROUP_SIZE - 1) / WORKGROUP_SIZE, 1u);
}

// This invocation's value: its element, or the identity past the end.
T load_element(uint workgroup) {
    uint i = workgroup * WORKGROUP_SIZE + gl_LocalInvocationIndex;
    return i < n ? src[first_pass == 1 ? fault_index(i) : i] : IDENTITY;
}

// What a workgroup passes on (the identity under the drop-workgroup fault).
T contribution(uint workgroup, T value) {
    return first_pass == 1 && fault_drops(workgroup) ? IDENTITY : value;
}
