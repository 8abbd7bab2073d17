// single_pass.comp — chained scan with decoupled look-back (Merrill & Garland, 2016): one pass,
// one read and one write of every element.
// One workgroup takes the next tile from an atomic counter (so tiles are taken in order, by
// running workgroups), loads it with coalesced 16-byte loads, scans it, publishes its
// aggregate at once, looks back over the predecessors' states (summing aggregates until an
// inclusive prefix), publishes its own inclusive prefix and writes the tile.
// A tile's state is one 64-bit word, flag << 32 | value bits, read and written with relaxed
// device-scope atomics: a reader never sees a flag without the value it announces, so the
// path needs no memory barrier. Each state has a 128-byte line of its own (STATE_STRIDE).
// Who looks back: with LOOKBACK_SUBGROUP (the host's default on a GPU with a fixed subgroup
// size) the workgroup's last subgroup holds no elements and looks back from the start while
// the others load; the last of those to finish publishes the aggregate
// (scan_with_lookback_subgroup). Otherwise the first subgroup looks back after the tile scan
// (the narrow look-back).
// If a predecessor makes no progress for SPIN_LIMIT polls (a device without forward progress
// between workgroups), the workgroup sets `stalled` and finishes anyway; the host then discards
// the result and falls back to reduce-then-scan (FALLBACK). It never hangs.
// Needs: subgroup basic, arithmetic, ballot, vote, shuffle; shaderInt64 and
// shaderBufferInt64Atomics.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#include "tile_scan.glsl"
#include "flag_word.glsl"  // TO_BITS, FROM_BITS, SPIN_LIMIT (polls before giving up)
#include "grid.glsl"
#include "fault.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Src4 { T4 src4[]; };
layout(std430, binding = 0) readonly buffer Src1 { T src1[]; };
layout(std430, binding = 1) writeonly buffer Dst4 { T4 dst4[]; };
layout(std430, binding = 1) writeonly buffer Dst1 { T dst1[]; };
// Written by one workgroup and read by others during the dispatch: atomics only.
layout(std430, binding = 2) buffer TileStates { uint64_t tile_state[]; };
// next_tile and tiles_written are reset before every run; `stalled` only when the buffers are
// made, so a stall in any run of a bench is seen afterwards.
layout(std430, binding = 3) buffer Control {
    uint next_tile;
    uint tiles_written;
    uint stalled;
};
layout(push_constant) uniform Push { uint n; };

#if LOOKBACK_SUBGROUP
// The last subgroup (LOOKBACK_LANES invocations, the host's fixed subgroup size) holds no
// elements; it looks back while the others load.
const uint DATA_INVOCATIONS = WORKGROUP_SIZE - LOOKBACK_LANES;
#else
const uint DATA_INVOCATIONS = WORKGROUP_SIZE;
#endif
const uint TILE = DATA_INVOCATIONS * ITEMS;
const uint ROWS = ITEMS / 4;  // 16-byte loads per invocation
const uint NOT_READY = 0;
const uint HAS_AGGREGATE = 1;  // the value is the sum of the tile alone
// HAS_PREFIX (host define, 2): the value is the sum of tiles 0..t
#include "striped_tile.glsl"  // load_tile, scan_rows, scan_tile, store_row, store_tile

// ANCHOR: state
// Tile t's state is tile_state[t * STATE_STRIDE]: 16 words of 8 bytes, one state per 128-byte
// cache line, so the hundreds of workgroups polling the newest states spread over many lines
// (and L2 slices) instead of crowding the one or two lines that would hold them all packed.
// STATE_STRIDE is a host define (16), so that the host reads the states with the same stride.
void publish(uint tile, uint flag, T value) {
    uint64_t state = (uint64_t(flag) << 32) | uint64_t(TO_BITS(value));
    atomicStore(tile_state[tile * STATE_STRIDE], state, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Tiles before the first hold an inclusive prefix of 0.
uint64_t read_state(int tile) {
    if (tile < 0) {
        return uint64_t(HAS_PREFIX) << 32;
    }
    return atomicLoad(tile_state[tile * STATE_STRIDE], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
#define FLAG(state) uint((state) >> 32)
#define VALUE(state) FROM_BITS(uint(state))
// ANCHOR_END: state

// ANCHOR: subgroup_look_back
// One invocation waits (at most SPIN_LIMIT polls) until the closest predecessor is ready,
// before its subgroup or workgroup polls a whole window: while that tile is not ready, the
// other invocations' loads would only compete with other tiles' data in L2.
void wait_for_predecessor(uint tile) {
    for (uint p = 0; p < SPIN_LIMIT && FLAG(read_state(int(tile) - 1)) == NOT_READY; ++p) {
    }
}

// The calling subgroup sums the predecessors' states, gl_SubgroupSize tiles per round trip,
// back to the closest inclusive prefix; returns the sum of all tiles before `tile`. Waits
// while a predecessor in the window is not ready; gives up after SPIN_LIMIT polls.
T subgroup_look_back(uint tile) {
    if (subgroupElect()) {
        wait_for_predecessor(tile);
    }
    uint lane = gl_SubgroupInvocationID;
    int newest = int(tile) - 1;  // the window is tiles newest, newest-1, ...
    uint polls = 0;
    bool resolved = false;
    T before = T(0);
    while (true) {
        uint64_t state = read_state(newest - int(lane));
        uint flag = FLAG(state);
        bool found = subgroupAny(flag == HAS_PREFIX);
        // The closest predecessor with a full prefix ends the look-back.
        uint stop = found ? subgroupBallotFindLSB(subgroupBallot(flag == HAS_PREFIX)) : gl_SubgroupSize - 1;
        if (subgroupAny(lane <= stop && flag == NOT_READY)) {
            if (++polls > SPIN_LIMIT) {  // uniform: no forward progress, give up
                break;
            }
            continue;  // poll the window again
        }
        before += subgroupAdd(lane <= stop ? VALUE(state) : T(0));
        if (found) {
            resolved = true;
            break;
        }
        newest -= int(gl_SubgroupSize);
    }
    // Unresolved: gave up, or the loop was cut short (llvmpipe's loop budget, see
    // flag_word.glsl). Either way the sum is wrong: tell the host.
    if (!resolved && subgroupElect()) {
        atomicOr(stalled, 1u);
    }
    return before;
}
// ANCHOR_END: subgroup_look_back

shared uint claimed_tile;
shared T narrow_prefix;  // the first subgroup's look-back result, for the others

// ANCHOR: lookback
// The narrow look-back. Publish the tile's aggregate, let the first subgroup find the sum of
// all tiles before it (gl_SubgroupSize tiles per round trip), publish the tile's inclusive
// prefix; returns that sum. Every invocation must call it (it has a barrier).
T look_back(uint tile, T total) {
    uint me = gl_LocalInvocationIndex;
    T published = fault_drops(tile) ? T(0) : total;  // --inject-fault drop-workgroup
    if (tile == 0) {
        if (me == 0) {
            publish(0, HAS_PREFIX, published);
        }
        return T(0);
    }
    if (me == 0) {
        publish(tile, HAS_AGGREGATE, published);  // at once: successors need not wait for our look-back
    }
    if (gl_SubgroupID == 0) {
        T before = subgroup_look_back(tile);
        if (subgroupElect()) {
            narrow_prefix = before;
        }
    }
    barrier();  // every invocation sees the tile's prefix
    T before = narrow_prefix;
    if (me == 0) {
        publish(tile, HAS_PREFIX, before + published);
    }
    return before;
}
// ANCHOR_END: lookback

#if LOOKBACK_SUBGROUP
// ANCHOR: lookback_subgroup
shared T segment_sums[WORKGROUP_SIZE / LOOKBACK_LANES];  // one per data subgroup
shared uint segments_done;               // data subgroups that have written their sum
shared T tile_before;                    // the look-back subgroup's result

// The data subgroups load and scan their segments; the last of them to finish publishes the
// tile's aggregate. Meanwhile the look-back subgroup, started at once, sums the predecessors.
// One barrier joins them; then the prefix is published and the rows stored. The aggregate
// never waits for this tile's look-back, so no chain forms through it.
void scan_with_lookback_subgroup(uint tile) {
    uint data_subgroups = gl_NumSubgroups - 1;
    bool whole_tile = tile * TILE + TILE <= n;  // uniform
    T4 v[ROWS];
    T within[ROWS];  // elements of the segment before this lane's vec4 in row r
    if (gl_SubgroupID < data_subgroups) {
        load_tile(tile, v);
        T segment_sum = scan_rows(v, within);
        if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
            segment_sums[gl_SubgroupID] = segment_sum;
            // Release: the sum above is visible to whoever arrives last; acquire: so are theirs.
            uint arrived = atomicAdd(segments_done, 1u, gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                                     gl_SemanticsAcquireRelease);
            if (arrived == data_subgroups - 1) {
                T total = T(0);
                for (uint s = 0; s < data_subgroups; ++s) {
                    total += segment_sums[s];
                }
                total = fault_drops(tile) ? T(0) : total;  // --inject-fault drop-workgroup
                publish(tile, tile == 0 ? HAS_PREFIX : HAS_AGGREGATE, total);
            }
        }
    } else {
        T before = subgroup_look_back(tile);
        if (subgroupElect()) {
            tile_before = before;
        }
    }
    // The segment sums and the tile's prefix are visible to all, and the aggregate's store
    // (device memory, by the last data subgroup) is ordered before the prefix's store to the
    // same state word (by the look-back subgroup): plain barrier() orders shared memory only.
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer,
                   gl_SemanticsAcquireRelease);
    T offset = tile_before;  // elements before this subgroup's segment: earlier tiles, segments
    uint segments_before = min(gl_SubgroupID, data_subgroups);
    for (uint s = 0; s < segments_before; ++s) {
        offset += segment_sums[s];
    }
    if (gl_SubgroupID < data_subgroups) {
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
            store_row(tile, r, whole_tile, offset + within[r], v[r]);
        }
    } else if (tile > 0 && subgroupElect()) {
        // The look-back subgroup's offset is the inclusive prefix (less the tile's sum under
        // --inject-fault drop-workgroup).
        publish(tile, HAS_PREFIX, fault_drops(tile) ? tile_before : offset);
    }
}
// ANCHOR_END: lookback_subgroup
#endif

// ANCHOR: main
// Scan tile `tile` from its loaded elements v: tile scan, look-back, stores. Every invocation
// must call it (it has barriers).
void finish_tile(uint tile, T4 v[ROWS]) {
    T lane_prefix[ROWS];
    T total;
    scan_tile(v, lane_prefix, total);
    T tile_offset = look_back(tile, total);
    store_tile(tile, v, lane_prefix, tile_offset);
}

void main() {
    // The grid may hold a few workgroups more than tiles: they leave before claiming one.
    if (flat_workgroup_id() >= max((n + TILE - 1) / TILE, 1u)) {
        return;
    }
    uint me = gl_LocalInvocationIndex;
    if (me == 0) {
        claimed_tile = atomicAdd(next_tile, 1u);  // in claim order, so predecessors are running
#if LOOKBACK_SUBGROUP
        segments_done = 0;
#endif
    }
    barrier();  // every invocation knows the tile (and sees segments_done reset)
    uint tile = claimed_tile;
#if LOOKBACK_SUBGROUP
    scan_with_lookback_subgroup(tile);
#else
    T4 v[ROWS];
    load_tile(tile, v);
    finish_tile(tile, v);
#endif
    // Count finished tiles: the host trusts the output only if every tile got here (lavapipe
    // once ended a workgroup early, after its prefix was published, leaving a tile unwritten).
    barrier();  // every invocation has stored its items
    if (me == 0) {
        atomicAdd(tiles_written, 1u);
    }
}
// ANCHOR_END: main
