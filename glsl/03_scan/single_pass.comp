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
#include "striped_tile.glsl"  // load_tile, scan_rows, scan_tile, store_row, store_tile
// The tile states and the look-back over them, summing elements of type T.
#define LB_T T
#define LB_TO_BITS(x) TO_BITS(x)
#define LB_FROM_BITS(b) FROM_BITS(b)
#include "lookback.glsl"  // publish, read_state, subgroup_look_back; NOT_READY, HAS_AGGREGATE


shared uint claimed_tile;


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
