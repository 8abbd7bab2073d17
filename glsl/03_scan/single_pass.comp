// single_pass.comp — chained scan with decoupled look-back (Merrill & Garland, 2016): one pass,
// one read and one write of every element.
// One workgroup takes the next tile from an atomic counter (so tiles are taken in order, by
// running workgroups), loads it with coalesced 16-byte loads, sums it, publishes its
// aggregate at once, looks back over the predecessors' states (summing aggregates until an
// inclusive prefix), publishes its own inclusive prefix and writes the tile, scanned in the
// meantime (with a look-back subgroup, while the look-back goes on; else before it).
// A tile's state is one 64-bit word, tag << 32 | value bits, read and written with relaxed
// device-scope atomics: a reader never sees a flag without the value it announces, so the
// path needs no memory barrier. Each state has a 128-byte line of its own (STATE_STRIDE). The
// tag holds the run's epoch (a push constant), so nothing is reset between runs. Without
// 64-bit buffer atomics (or with --lookback-word 32) the state is two 32-bit words instead,
// each with the tag in its high half above half the value's bits (LOOKBACK_STATE
// LB_TWO_WORDS32, lookback.glsl): ready when both carry this run's tag.
// Who looks back: with LOOKBACK_SUBGROUP (the host's default where the subgroup size is fixed,
// see harness::lookback_lanes) the workgroup's last subgroup holds no elements and looks back from the start while
// the others load; the last of those to finish publishes the aggregate, and whichever of the
// two finishes second publishes the prefix (scan_with_lookback_subgroup). Otherwise the first
// subgroup looks back after the tile scan (the narrow look-back).
// If a predecessor makes no progress for SPIN_LIMIT polls (a device without forward progress
// between workgroups), the workgroup sets `stalled` and finishes anyway; the host then discards
// the result and falls back to reduce-then-scan (FALLBACK). It never hangs.
// First of all, the workgroup checks that its subgroups have the shape the tile layout assumes
// (subgroup_shape.glsl): if not, it reports that and does nothing, and the host SKIPs.
// Needs: subgroup basic, arithmetic, ballot, vote, shuffle; full subgroups (of LOOKBACK_LANES
// lanes, with a look-back subgroup); the 64-bit state also shaderInt64 and
// shaderBufferInt64Atomics.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_memory_scope_semantics : require
#include "lookback_word.glsl"  // LB_WORD: the tile states' words (and the 64-bit extensions)
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
layout(std430, binding = 2) buffer TileStates { LB_WORD tile_state[]; };
// next_tile and tiles_written count up across runs (zeroed only with the states, see
// lookback.glsl's epoch); `stalled` is never reset, so a stall in any run of a bench is seen
// afterwards.
layout(std430, binding = 3) buffer Control {
    uint next_tile;
    uint tiles_written;
    uint stalled;
};
layout(push_constant) uniform Push {
    uint n;
    uint epoch;  // this run's number on these states (lookback.glsl)
};
#include "subgroup_shape.glsl"  // subgroup_shape_holds

#if LOOKBACK_SUBGROUP
// The last subgroup (LOOKBACK_LANES invocations, the host's fixed subgroup size) holds no
// elements; it looks back while the others load.
const uint DATA_INVOCATIONS = WORKGROUP_SIZE - LOOKBACK_LANES;
#else
const uint DATA_INVOCATIONS = WORKGROUP_SIZE;
#endif
const uint TILE = DATA_INVOCATIONS * ITEMS;
const uint ROWS = ITEMS / 4;  // 16-byte loads per invocation
#include "striped_tile.glsl"  // load_tile, scan_rows, scan_tile, store_row, store_tile, lane_sum
// The tile states and the look-back over them, summing elements of type T.
#define LB_T T
#define LB_TO_BITS(x) TO_BITS(x)
#define LB_FROM_BITS(b) FROM_BITS(b)
#include "lookback.glsl"  // claim_tile, look_back, look_back_beside_start and _finish

#if LOOKBACK_SUBGROUP
// ANCHOR: lookback_subgroup
// The data subgroups load their segments while the look-back subgroup, started at once, sums
// the predecessors (lookback.glsl's look_back_beside_start and _finish, which publish the
// aggregate and the prefix); then the data subgroups store their rows. A data subgroup only
// sums its segment (one subgroupAdd) before the aggregate goes out, and scans its rows while the
// look-back goes on: the aggregate, which every successor waits for, comes as soon as the loads
// are in, and after the wait only the stores are left.
void scan_with_lookback_subgroup(uint tile) {
    bool data_subgroup = gl_SubgroupID < gl_NumSubgroups - 1;
    bool whole_tile = tile * TILE + TILE <= n;  // uniform
    T4 v[ROWS];
    T within[ROWS];  // elements of the segment before this lane's vec4 in row r
    T segment_sum = T(0);
    if (data_subgroup) {
        load_tile(tile, v);
        segment_sum = subgroupAdd(lane_sum(v));
    }
    look_back_beside_start(tile, segment_sum);  // the aggregate (or the prefix) goes out at once
    if (data_subgroup) {
        scan_rows(v, within);  // its segment sum is the one just published
    }
    T before_tile, total;
    T segment_offset = look_back_beside_finish(before_tile, total);
    if (data_subgroup) {
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
            store_row(tile, r, whole_tile, before_tile + segment_offset + within[r], v[r]);
        }
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
    if (!subgroup_shape_holds()) {
        return;  // not the subgroups the tile is laid out for (reported in `stalled`)
    }
    // The grid may hold a few workgroups more than tiles: they leave before claiming one.
    uint tiles = max((n + TILE - 1) / TILE, 1u);
    if (flat_workgroup_id() >= tiles) {
        return;
    }
    uint tile = claim_tile(tiles);
    if (tile == tiles) {
        return;  // no tile for this run (claim_tile has set `stalled`)
    }
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
    if (gl_LocalInvocationIndex == 0) {
        atomicAdd(tiles_written, 1u);
    }
}
// ANCHOR_END: main
