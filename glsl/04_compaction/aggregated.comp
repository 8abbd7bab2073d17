// aggregated.comp — variant 2: one atomic per subgroup. One invocation reads one element;
// the subgroup ballots its kept lanes, each kept lane's rank is the number of kept lanes below
// it (subgroupBallotExclusiveBitCount), one elected lane reserves all the subgroup's slots with
// a single atomicAdd, and subgroupBroadcastFirst hands the base to the others. The ballot is a
// uvec4, so this is right at every subgroup size up to 128 (the 32-bit `1u << lane` mask of the
// usual example is not). Order holds within a subgroup, not between subgroups.
// Needs: subgroup basic and ballot.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#include "predicate.glsl"

layout(local_size_x_id = 0) in;

// ANCHOR: reserve
// Slots for the lanes where `mine` is true, from `counter` (kept or rejected): returns this
// lane's slot. Every lane of the subgroup must call it (subgroup operations).
uint reserve(bool mine, bool rejected) {
    uvec4 lanes = subgroupBallot(mine);
    uint rank = subgroupBallotExclusiveBitCount(lanes);  // kept lanes below this one
    uint total = subgroupBallotBitCount(lanes);
    uint base = 0;
    if (total > 0) {  // uniform: the same ballot in every lane
        if (subgroupElect()) {
            base = rejected ? atomicAdd(rejected_count, total) : atomicAdd(kept_count, total);
        }
        base = subgroupBroadcastFirst(base);  // the elected lane is the first active one
    }
    return base + rank;
}
// ANCHOR_END: reserve

// ANCHOR: main
void main() {
    uint workgroup = flat_workgroup_id();
    if (workgroup * WORKGROUP_SIZE >= max(n, 1u)) {
        return;  // the whole workgroup is past the end (the grid may hold a few more)
    }
    uint i = workgroup * WORKGROUP_SIZE + gl_LocalInvocationIndex;
    bool in_range = i < n && !fault_drops(workgroup);
    D x = in_range ? src1[fault_index(i)] : D(0);
    D previous = in_range && i > 0 ? src1[fault_index(i - 1)] : x;
    bool kept = in_range && keep(i, x, previous);
    uint slot = reserve(kept, false);
    if (kept) {
        dst1[slot] = x;
    }
    if (PARTITION) {
        uint back = reserve(in_range && !kept, true);
        if (in_range && !kept) {
            dst1[n - 1 - back] = x;
        }
    }
}
// ANCHOR_END: main
