// single_pass.comp — chained scan with decoupled look-back (Merrill & Garland, 2016): one pass,
// one read and one write of every element.
// One workgroup takes the next tile from an atomic counter (so tiles start in order), scans it,
// publishes its aggregate at once, then its first subgroup looks back over the predecessors'
// flags, gl_SubgroupSize tiles per step, summing aggregates until it meets a full prefix;
// it publishes its own full prefix and the workgroup writes the tile.
// If a predecessor makes no progress for SPIN_LIMIT polls (a device without forward progress
// between workgroups), it sets `stalled` and finishes anyway; the host then discards the result
// and falls back to reduce-then-scan. It never hangs.
// Needs: GL_KHR_shader_subgroup_basic, _arithmetic, _ballot, _vote.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#include "tile_scan.glsl"
#include "io.glsl"

layout(local_size_x_id = 0) in;
// Written by one workgroup and read by others during the dispatch: `coherent` keeps them out
// of non-coherent caches, `volatile` makes every poll of a flag a real load.
layout(std430, binding = 2) coherent buffer Aggregates { T aggregate[]; };
layout(std430, binding = 3) coherent buffer Prefixes { T inclusive_prefix[]; };
layout(std430, binding = 4) coherent volatile buffer Flags { uint flags[]; };
layout(std430, binding = 5) coherent buffer Control { uint next_tile; uint stalled; uint tiles_written; };
layout(push_constant) uniform Push { uint n; };

const uint TILE = WORKGROUP_SIZE * ITEMS;
const uint NOT_READY = 0;
const uint HAS_AGGREGATE = 1;  // aggregate[t] holds the sum of tile t alone
const uint HAS_PREFIX = 2;     // inclusive_prefix[t] holds the sum of tiles 0..t
// Polls of one window before giving up: a predecessor that has started needs microseconds, so
// 16384 polls (milliseconds) mean it is not running. Below lavapipe's own cap: llvmpipe ends
// any loop after 65535 iterations and silently drops the rest of the invocation.
const uint SPIN_LIMIT = 1u << 14;

shared uint tile_id;
shared T tile_prefix;
shared uint window_stop;     // wide look-back: the closest window slot with a full prefix
shared uint window_waiting;  // wide look-back: some slot before it is not ready yet

// Publish value then flag: the barrier makes the value visible device-wide first.
#define PUBLISH(array, t, value, flag) array[t] = value; memoryBarrierBuffer(); flags[t] = flag

void main() {
#if CLAIM_IN_START_ORDER
    if (gl_LocalInvocationIndex == 0) {
        tile_id = atomicAdd(next_tile, 1u);  // in start order, so predecessors are running
    }
    barrier();  // every invocation knows the tile
    uint tile = tile_id;
#else
    // Experiment: trust that workgroups start in ID order (true on NVIDIA in practice, not
    // promised by Vulkan; a stall is detected and falls back). Saves a round trip per tile.
    uint tile = gl_WorkGroupID.x;
    if (gl_LocalInvocationIndex == 0) {
        atomicAdd(next_tile, 1u);  // only counted, for the host's completeness check
    }
#endif
    uint first = tile * TILE + gl_LocalInvocationID.x * ITEMS;
    T items[ITEMS];
    load_items(first, n, items);
    T total;
    T prefix_in_tile = workgroup_exclusive_scan(thread_sum(items), total);

#if WIDE_LOOKBACK
    // ANCHOR: wide_lookback
    // The whole workgroup looks back: invocation i reads the flag of tile t-1-i, so one round
    // trip covers WORKGROUP_SIZE predecessors. With hundreds of tiles in flight the nearest
    // full prefix is often further back than one subgroup's 32 lanes reach.
    T before = T(0);
    uint me = gl_LocalInvocationIndex;
    if (tile == 0) {
        if (me == 0) {
            PUBLISH(inclusive_prefix, 0, total, HAS_PREFIX);
        }
    } else {
        if (me == 0) {
            PUBLISH(aggregate, tile, total, HAS_AGGREGATE);
        }
#if PREWAIT
        // Let one invocation wait for the closest predecessor's aggregate before the whole
        // workgroup polls its window: while it is not ready, 255 more loads per poll would only
        // compete with other tiles' data in L2.
        if (me == 0) {
            for (uint p = 0; p < SPIN_LIMIT && flags[tile - 1] == NOT_READY; ++p) {
            }
        }
        barrier();  // the wait is over (or gave up; the window loop below decides)
#endif
        int newest = int(tile) - 1;
        uint polls = 0;
        while (true) {  // uniform: every exit depends on values read after a barrier
            int t = newest - int(me);
            uint flag = t >= 0 ? flags[t] : HAS_PREFIX;  // before tile 0: a prefix of 0
            if (me == 0) {
                window_stop = WORKGROUP_SIZE;
                window_waiting = 0;
            }
            barrier();  // reset before anyone votes
            if (flag == HAS_PREFIX) {
                atomicMin(window_stop, me);  // the closest full prefix ends the look-back
            }
            barrier();  // the closest prefix is known
            uint stop = window_stop;  // WORKGROUP_SIZE: none in this window, take all
            if (me <= stop && flag == NOT_READY) {
                atomicOr(window_waiting, 1u);
            }
            barrier();  // every vote is in
            bool waiting = window_waiting != 0;
            barrier();  // everyone has read the votes before the next reset
            if (waiting) {
                if (++polls > SPIN_LIMIT) {  // uniform: no forward progress, give up
                    if (me == 0) {
                        atomicOr(stalled, 1u);
                    }
                    break;
                }
                continue;  // poll the window again
            }
            memoryBarrierBuffer();  // the flags are read before the values they guard
            T value = T(0);
            if (me <= stop && t >= 0) {
                value = flag == HAS_PREFIX ? inclusive_prefix[t] : aggregate[t];
            }
            T window_sum;
            workgroup_exclusive_scan(value, window_sum);
            before += window_sum;
            if (stop < WORKGROUP_SIZE) {
                break;
            }
            newest -= int(WORKGROUP_SIZE);
        }
        if (me == 0) {
            PUBLISH(inclusive_prefix, tile, before + total, HAS_PREFIX);
        }
    }
    T tile_offset = before;  // the same in every invocation
    // ANCHOR_END: wide_lookback
#else
    // ANCHOR: lookback
    if (gl_SubgroupID == 0) {
        T before = T(0);
        if (tile == 0) {
            if (subgroupElect()) {
                PUBLISH(inclusive_prefix, 0, total, HAS_PREFIX);
            }
        } else {
            if (subgroupElect()) {
                PUBLISH(aggregate, tile, total, HAS_AGGREGATE);
            }
            uint lane = gl_SubgroupInvocationID;
            int newest = int(tile) - 1;  // the window is tiles newest, newest-1, ...
            uint polls = 0;
            while (true) {
                int t = newest - int(lane);
                uint flag = t >= 0 ? flags[t] : HAS_PREFIX;  // before tile 0: a prefix of 0
                bool found = subgroupAny(flag == HAS_PREFIX);
                // The closest predecessor with a full prefix ends the look-back.
                uint stop = found ? subgroupBallotFindLSB(subgroupBallot(flag == HAS_PREFIX)) : gl_SubgroupSize - 1;
                if (subgroupAny(lane <= stop && flag == NOT_READY)) {
                    if (++polls > SPIN_LIMIT) {  // uniform: no forward progress, give up
                        if (subgroupElect()) {
                            atomicOr(stalled, 1u);
                        }
                        break;
                    }
                    continue;  // poll the window again
                }
                memoryBarrierBuffer();  // the flags are read before the values they guard
                T value = T(0);
                if (lane <= stop && t >= 0) {
                    value = flag == HAS_PREFIX ? inclusive_prefix[t] : aggregate[t];
                }
                before += subgroupAdd(value);
                if (found) {
                    break;
                }
                newest -= int(gl_SubgroupSize);
            }
            if (subgroupElect()) {
                PUBLISH(inclusive_prefix, tile, before + total, HAS_PREFIX);
            }
        }
        if (subgroupElect()) {
            tile_prefix = before;
        }
    }
    // ANCHOR_END: lookback
    barrier();  // every invocation sees the tile's prefix
    T tile_offset = tile_prefix;
#endif
    store_items(first, n, items, tile_offset + prefix_in_tile);
    // Count finished tiles: the host trusts the output only if every tile got here (lavapipe
    // once ended a workgroup early, after its prefix was published, leaving a tile unwritten).
    barrier();  // every invocation has stored its items
    if (gl_LocalInvocationIndex == 0) {
        atomicAdd(tiles_written, 1u);
    }
}
