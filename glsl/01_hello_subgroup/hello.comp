// hello.comp — the classic first subgroup program, correct at every subgroup size.
// One workgroup. Each invocation (lane) takes value = lane + 1 and records what four subgroup
// operations return to it, plus the result of the classic bug: subgroupAdd called inside
// `if (lane == 0)`, where only lane 0 is active, so it sums lane 0's value alone.
// Needs: GL_KHR_shader_subgroup_basic, _arithmetic, _ballot, _shuffle.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require

layout(local_size_x_id = 0) in;

struct Lane {
    uint subgroup_id;      // gl_SubgroupID
    uint lane;             // gl_SubgroupInvocationID
    uint subgroup_size;    // gl_SubgroupSize
    uint sum;              // subgroupAdd(value), called by every lane: the subgroup's sum
    uint multiples_of_3;   // subgroupBallotBitCount(subgroupBallot(lane % 3 == 0))
    uint first;            // subgroupBroadcastFirst(value): the lowest active lane's value
    uint shuffled;         // subgroupShuffle(value, (lane + 1) % gl_SubgroupSize)
    uint sum_inside_if;    // lane 0 only: subgroupAdd(value) called inside if (lane == 0)
};
layout(std430, binding = 0) writeonly buffer Lanes { Lane lanes[]; };

void main() {
    uint lane = gl_SubgroupInvocationID;
    uint value = lane + 1;

    // ANCHOR: ops
    // Uniform control flow: every lane of the subgroup takes part in each call.
    uint sum = subgroupAdd(value);
    uint multiples_of_3 = subgroupBallotBitCount(subgroupBallot(lane % 3 == 0));
    uint first = subgroupBroadcastFirst(value);
    // The source lane exists at every subgroup size (a fixed lane such as 32 exists only in
    // subgroups of more than 32 lanes).
    // In a partial subgroup it may be inactive, and then the result is undefined.
    uint shuffled = subgroupShuffle(value, (lane + 1) % gl_SubgroupSize);
    // ANCHOR_END: ops

    // ANCHOR: bug
    uint sum_inside_if = 0;
    if (lane == 0) {
        // WRONG: only lane 0 is active here, so this is lane 0's own value, not the sum.
        sum_inside_if = subgroupAdd(value);
    }
    // RIGHT: compute in uniform control flow (`sum` above), then branch on the result.
    // ANCHOR_END: bug

    lanes[gl_LocalInvocationIndex] = Lane(gl_SubgroupID, lane, gl_SubgroupSize, sum, multiples_of_3,
                                          first, shuffled, sum_inside_if);
}
