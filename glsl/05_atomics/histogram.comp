// histogram.comp — counts how many keys fall in each of BINS bins. The keys come in chunks of
// CHUNK = WORKGROUP_SIZE × 4 × ITEMS; each workgroup walks the chunks w, w + G, w + 2G, … of a
// grid of G workgroups (the host caps G), and in each chunk each invocation loads ITEMS 16-byte
// vectors of 4 keys, the subgroup's lanes side by side, and adds each key to its bin. The
// variant (host define) sets where the adds go and how many atomics they take:
//   VARIANT_NAIVE:            one atomicAdd on the bin in device memory per key;
//   VARIANT_SUBGROUP:         subgroupAllEqual: one atomicAdd when every lane has the same key;
//                             else rounds that take the key of the first lane still waiting
//                             (ballot, subgroupBallotFindLSB, subgroupShuffle; with LEADER_BY_MIN
//                             the smallest waiting key, subgroupMin) and ballot the lanes that
//                             match, one atomicAdd per round, until a round matches that lane
//                             alone: then every lane still waiting adds its own key (at most
//                             one round more than naive on distinct keys);
//   VARIANT_PARTITION_NV:     one atomicAdd per distinct key of the subgroup, the matching
//                             lanes from subgroupPartitionNV;
//   VARIANT_SHARED:           a private histogram in shared memory, zeroed once per workgroup,
//                             one shared atomicAdd per key, then one device atomicAdd per
//                             non-empty bin per workgroup (not per chunk: at most G per bin);
//   VARIANT_SHARED_SUBGROUP:  the subgroup rounds in front of the shared histogram;
//   VARIANT_SHARED_LEADER:    one round of them in front of the shared histogram: the lanes that
//                             hold the first lane's key add together, the others one by one.
// Keys outside 0..BINS count nowhere (the CPU reference skips them too). COUNT_ATOMICS counts
// the atomics issued (device and shared) into the control words. MAXIMAL_RECONVERGENCE marks
// main [[maximally_reconverges]] (the host sets it where the device enabled
// VK_KHR_shader_maximal_reconvergence); the subgroup operations here are all in uniform control
// flow, so they do not need it. SPLIT_LANES and LEADER_IN_BRANCH are for tests (see below).
// Needs: VARIANT_SUBGROUP and VARIANT_SHARED_SUBGROUP subgroup basic, vote, ballot and shuffle
// (with LEADER_BY_MIN arithmetic instead of shuffle); VARIANT_SHARED_LEADER subgroup basic and
// ballot; VARIANT_PARTITION_NV subgroup basic, ballot and partitioned (NV).
#version 450
#extension GL_KHR_shader_subgroup_ballot : enable
#extension GL_KHR_shader_subgroup_vote : enable
#if VARIANT_PARTITION_NV
#extension GL_NV_shader_subgroup_partitioned : require
#endif
#if LEADER_BY_MIN
#extension GL_KHR_shader_subgroup_arithmetic : enable
#elif VARIANT_SUBGROUP || VARIANT_SHARED_SUBGROUP
#extension GL_KHR_shader_subgroup_shuffle : enable
#endif
#if MAXIMAL_RECONVERGENCE
#extension GL_EXT_maximal_reconvergence : require
#define MAIN_ATTRIBUTES [[maximally_reconverges]]
#else
#define MAIN_ATTRIBUTES
#endif
// Tests only. SPLIT_LANES models an implementation that runs the lanes of a divergent branch
// in two groups, one after the other, as Vulkan allows without maximal reconvergence: main
// adds each vector's keys inside a branch split by lane parity, so that each half runs the
// match loop on its own (entered in divergent control flow). LEADER_IN_BRANCH picks the
// match loop's leader with subgroupBroadcastFirst inside `if (waiting)`, a subgroup operation
// in divergent control flow; under SPLIT_LANES that branch's lanes run in two groups too (the
// lower and the upper half of the subgroup), each taking its own leader.
#ifndef SPLIT_LANES
#define SPLIT_LANES 0
#endif
#ifndef LEADER_IN_BRANCH
#define LEADER_IN_BRANCH 0
#endif
#include "grid.glsl"
#include "fault.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Src4 { uvec4 src4[]; };
layout(std430, binding = 0) readonly buffer Src1 { uint src1[]; };
layout(std430, binding = 1) buffer Histogram { uint bins[]; };
layout(std430, binding = 2) buffer Control {
    uint unused;          // (append's slot counter)
    uint global_atomics;  // COUNT_ATOMICS: atomics on device memory issued
    uint shared_atomics;  // COUNT_ATOMICS: atomics on shared memory issued
};
layout(push_constant) uniform Push { uint n; };
#include "count_atomics.glsl"

const uint CHUNK = WORKGROUP_SIZE * 4 * ITEMS;  // keys per chunk, one turn of a workgroup's loop
const uint NO_KEY = 0xFFFFFFFFu;                // a lane with no key (past n, or out of range)
#define PRIVATE_BINS (VARIANT_SHARED || VARIANT_SHARED_SUBGROUP || VARIANT_SHARED_LEADER)
#define PER_SUBGROUP (VARIANT_SUBGROUP || VARIANT_SHARED_SUBGROUP)

#if PRIVATE_BINS
shared uint private_bins[BINS];
#endif
uint global_issued = 0;
uint shared_issued = 0;

// Add `count` to bin `bin`: in the private histogram, or in device memory.
void bin_add(uint bin, uint count) {
#if PRIVATE_BINS
    atomicAdd(private_bins[bin], count);
    shared_issued += 1;
#else
    atomicAdd(bins[bin], count);
    global_issued += 1;
#endif
}

// ANCHOR: match
// Add one to bin `key` for every lane where it is not NO_KEY. Call it in uniform control flow:
// its subgroup operations count the lanes that run them together as the subgroup.
void add_key(uint key) {
#if VARIANT_NAIVE || VARIANT_SHARED
    if (key != NO_KEY) {
        bin_add(key, 1u);
    }
#elif VARIANT_PARTITION_NV
    // The lanes holding the same value as this one; the lowest of them adds them all.
    uvec4 same = subgroupPartitionNV(key);
    if (key != NO_KEY && subgroupBallotFindLSB(same) == gl_SubgroupInvocationID) {
        bin_add(key, subgroupBallotBitCount(same));
    }
#elif VARIANT_SHARED_LEADER
    // One round of the loop below: bounded cost, and on a hot input most lanes hold the first
    // lane's key.
    uint first_key = subgroupBroadcastFirst(key);
    bool with_first = key != NO_KEY && key == first_key;
    uvec4 same = subgroupBallot(with_first);
    // The adding lane comes from the ballot itself (its lowest lane), not from a later
    // subgroupElect(), which would rely on the same lanes being active again.
    if (with_first) {
        if (subgroupBallotFindLSB(same) == gl_SubgroupInvocationID) {
            bin_add(key, subgroupBallotBitCount(same));
        }
    } else if (key != NO_KEY) {
        bin_add(key, 1u);
    }
#elif PER_SUBGROUP
    uint lanes = subgroupBallotBitCount(subgroupBallot(true));
    if (subgroupAllEqual(key)) {  // uniform: one key for the whole subgroup (or none)
        if (key != NO_KEY && subgroupElect()) {
            bin_add(key, lanes);
        }
        return;
    }
    // Rounds: the first lane still waiting broadcasts its key; the waiting lanes holding it add
    // together. A round pays only while it retires two lanes or more. Once the leader's key
    // matched no other lane, the keys left are most likely distinct too (each further round
    // would retire about one lane), so the lanes still waiting add their own keys. Distinct
    // keys then cost one round more than naive, and a hot key still goes in one add, unless
    // a lone key leads a round before it does (then its lanes add one by one).
    // Each lane's add is made once, after the rounds, so that distinct keys still go out in one
    // instruction for the whole subgroup, as in naive (chapter 05 measures the difference).
    // Every subgroup operation of a round runs in uniform control flow, in every lane: the
    // lanes that are done still take part, they just hold no key. Picked inside `if (waiting)`
    // instead, the leader's key would be shared only by the lanes that the implementation runs
    // together in that branch, which need not be all the waiting lanes.
    bool waiting = key != NO_KEY;
    uint count = 0;
    uint retired;
    do {
        uint offered = waiting ? key : NO_KEY;
#if LEADER_IN_BRANCH
        uint leader_key = NO_KEY;
        if (waiting) {
#if SPLIT_LANES
            if (gl_SubgroupInvocationID < gl_SubgroupSize / 2) {
                leader_key = subgroupBroadcastFirst(key);
            } else {
                leader_key = subgroupBroadcastFirst(key);
            }
#else
            leader_key = subgroupBroadcastFirst(key);  // of the first lane still waiting
#endif
        }
#elif LEADER_BY_MIN
        uint leader_key = subgroupMin(offered);  // the smallest key still waiting
#else
        // The first lane still waiting, and its key. With no lane waiting any lane will do:
        // nothing matches NO_KEY.
        uint leader = subgroupBallotFindLSB(subgroupBallot(waiting)) & (gl_SubgroupSize - 1);
        uint leader_key = subgroupShuffle(offered, leader);
#endif
        bool match = waiting && key == leader_key;
        // Every lane takes part in the ballot, so its bit count is the same in every lane.
        uvec4 same = subgroupBallot(match);
        retired = subgroupBallotBitCount(same);
        if (match) {
            waiting = false;
            // The lowest matching lane adds them all; it comes from the ballot, as above.
            if (subgroupBallotFindLSB(same) == gl_SubgroupInvocationID) {
                count = retired;
            }
        }
    } while (retired > 1);  // uniform: 0 when no lane waited, 1 when the leader's key was alone
    if (waiting) {
        count = 1;
    }
    if (count > 0) {
        bin_add(key, count);
    }
#else
#error "define one VARIANT_"
#endif
}
// ANCHOR_END: match

// add_key for each of the four keys of a vector.
void add_keys(uvec4 keys) {
    add_key(keys.x);
    add_key(keys.y);
    add_key(keys.z);
    add_key(keys.w);
}

// ANCHOR: main
void main() MAIN_ATTRIBUTES {
    uint workgroup = flat_workgroup_id();
    uint grid = gl_NumWorkGroups.x * gl_NumWorkGroups.y;  // workgroups in the dispatch
    uint chunks = (n + CHUNK - 1) / CHUNK;
    if (workgroup >= chunks) {
        return;  // no chunk for this one (the grid may hold a few more workgroups)
    }
    uint me = gl_LocalInvocationIndex;
#if PRIVATE_BINS
    for (uint b = me; b < BINS; b += WORKGROUP_SIZE) {
        private_bins[b] = 0;
    }
    barrier();  // the private histogram is zero before any key is added
#endif
    // A grid-stride loop over the chunks, uniform in the workgroup: however large n, the
    // private histogram is zeroed and flushed once per workgroup, so each bin in device memory
    // takes at most `grid` atomics, not one per chunk.
    for (uint chunk = workgroup; chunk < chunks; chunk += grid) {
        bool whole = (chunk + 1) * CHUNK <= n;  // uniform: 16-byte loads throughout
        bool dropped = fault_drops(chunk);      // --inject-fault drop-workgroup: this chunk
        for (uint item = 0; item < ITEMS; ++item) {
            // Neighbouring invocations load neighbouring vectors: the chunk a contiguous block.
            uint vector = chunk * (CHUNK / 4) + item * WORKGROUP_SIZE + me;
            uvec4 keys;
            if (whole) {
                keys = src4[vector];
                FAULT_SHIFT4(keys, vector)
            } else {
                uint i = vector * 4;
                keys = uvec4(i < n ? src1[fault_index(i)] : NO_KEY, i + 1 < n ? src1[fault_index(i + 1)] : NO_KEY,
                             i + 2 < n ? src1[fault_index(i + 2)] : NO_KEY, i + 3 < n ? src1[fault_index(i + 3)] : NO_KEY);
            }
            if (dropped) {
                keys = uvec4(NO_KEY);
            }
            // Keys outside 0..BINS are no key: they index no bin.
            keys = mix(uvec4(NO_KEY), keys, lessThan(keys, uvec4(BINS)));
#if SPLIT_LANES
            if ((gl_SubgroupInvocationID & 1u) == 0u) {
                add_keys(keys);
            } else {
                add_keys(keys);
            }
#else
            add_keys(keys);
#endif
        }
    }
#if PRIVATE_BINS
    barrier();  // every key of every chunk is in the private histogram
    for (uint b = me; b < BINS; b += WORKGROUP_SIZE) {
        uint count = private_bins[b];
        if (count > 0) {
            atomicAdd(bins[b], count);
            global_issued += 1;
        }
    }
#endif
    count_atomics(global_issued, shared_issued);
}
// ANCHOR_END: main
