// histogram.comp — counts how many keys fall in each of BINS bins. The keys come in chunks of
// CHUNK = WORKGROUP_SIZE × 4 × ITEMS; each workgroup walks the chunks w, w + G, w + 2G, … of a
// grid of G workgroups (the host caps G), and in each chunk each invocation loads ITEMS 16-byte
// vectors of 4 keys, the subgroup's lanes side by side, and adds each key to its bin. The
// variant (host define) sets where the adds go and how many atomics they take:
//   VARIANT_NAIVE:            one atomicAdd on the bin in device memory per key;
//   VARIANT_SUBGROUP:         subgroupAllEqual: one atomicAdd when every lane has the same key;
//                             else rounds that take the key of the first lane still waiting and
//                             ballot the lanes that match, one atomicAdd per round, until a
//                             round matches that lane alone: then every lane still waiting adds
//                             its own key (at most one round more than naive on distinct keys);
//   VARIANT_PARTITION_NV:     one atomicAdd per distinct key of the subgroup, the matching
//                             lanes from subgroupPartitionNV;
//   VARIANT_SHARED:           a private histogram in shared memory, zeroed once per workgroup,
//                             one shared atomicAdd per key, then one device atomicAdd per
//                             non-empty bin per workgroup (not per chunk: at most G per bin);
//   VARIANT_SHARED_SUBGROUP:  the subgroup rounds in front of the shared histogram;
//   VARIANT_SHARED_LEADER:    one round of them in front of the shared histogram: the lanes that
//                             hold the first lane's key add together, the others one by one.
// COUNT_ATOMICS counts the atomics issued (device and shared) into the control words.
// Needs: VARIANT_SUBGROUP and VARIANT_SHARED_SUBGROUP subgroup basic, vote and ballot;
// VARIANT_SHARED_LEADER subgroup basic and ballot;
// VARIANT_PARTITION_NV subgroup basic, ballot and partitioned (NV).
#version 450
#extension GL_KHR_shader_subgroup_ballot : enable
#extension GL_KHR_shader_subgroup_vote : enable
#if VARIANT_PARTITION_NV
#extension GL_NV_shader_subgroup_partitioned : require
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
const uint NO_KEY = 0xFFFFFFFFu;                // a lane with no key (past n), never a bin
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
// Add one to bin `key` for every lane where it is not NO_KEY. Every lane of the subgroup must
// call it (subgroup operations).
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
    bool waiting = key != NO_KEY;
    uint count = 0;
    uint retired;
    do {
        uint first_key = NO_KEY;
        if (waiting) {
            first_key = subgroupBroadcastFirst(key);  // of the first lane still waiting
        }
        bool match = waiting && key == first_key;
        // Every lane takes part in the ballot, so its bit count is the same in every lane.
        uvec4 same = subgroupBallot(match);
        retired = subgroupBallotBitCount(same);
        if (match) {
            waiting = false;
            if (subgroupBallotFindLSB(same) == gl_SubgroupInvocationID) {  // from the ballot, as above
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

// ANCHOR: main
void main() {
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
            add_key(keys.x);
            add_key(keys.y);
            add_key(keys.z);
            add_key(keys.w);
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
