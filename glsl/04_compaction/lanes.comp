// lanes.comp — stable compaction with lane-strided tiles: element j of row r of a subgroup's
// segment is held by lane j, so a row is gl_SubgroupSize consecutive elements and one ballot
// gives every lane its kept element's rank in the row; the kept elements of a row are stored
// straight from the registers to consecutive output addresses (one store instruction a row,
// no shared memory, no barriers). One invocation loads ITEMS elements, gl_SubgroupSize apart.
// The segment's offset in the output as in stable.comp (MODE_SINGLE_PASS, MODE_COUNT or the
// scatter).
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#define TYPE_U32 1
#define SCAN_INTRINSIC 1
#define EXCLUSIVE 0
#include "tile_scan.glsl"
#include "predicate.glsl"

layout(local_size_x_id = 0) in;
#if MODE_SINGLE_PASS
layout(std430, binding = 4) buffer TileStates { uint64_t tile_state[]; };
#include "flag_word.glsl"
#define LB_T uint
#define LB_TO_BITS(x) (x)
#define LB_FROM_BITS(b) (b)
#include "lookback.glsl"
#else
layout(std430, binding = 4) buffer Partials { uint partials[]; };
#endif

#if LOOKBACK_SUBGROUP
const uint DATA_INVOCATIONS = WORKGROUP_SIZE - LOOKBACK_LANES;
#else
const uint DATA_INVOCATIONS = WORKGROUP_SIZE;
#endif
const uint TILE = DATA_INVOCATIONS * ITEMS;

// Element i, for the test: the value, and whether it is kept (false past n).
bool load_and_test(uint i, bool whole_tile, out D x) {
    if (whole_tile || i < n) {
        x = src1[fault_index(i)];
#if defined(FORM_UNIQUE)
        D previous = i > 0 ? src1[fault_index(i - 1)] : x;
#else
        D previous = x;
#endif
        return keep(i, x, previous);
    }
    x = D(0);
    return false;
}

void main() {
    uint tiles = max((n + TILE - 1) / TILE, 1u);
    if (flat_workgroup_id() >= tiles) {
        return;
    }
#if MODE_SINGLE_PASS
    uint tile = claim_tile(tiles);
    if (tile == tiles) {
        return;
    }
#else
    uint tile = flat_workgroup_id();
#endif
    bool data_subgroup = gl_SubgroupID * gl_SubgroupSize < DATA_INVOCATIONS;
    uint segment_first = tile * TILE + gl_SubgroupID * gl_SubgroupSize * ITEMS;
    bool whole_tile = tile * TILE + TILE <= n;
    uint lane = gl_SubgroupInvocationID;
    D x[ITEMS];
    uint kept_bits = 0;  // bit r: this lane's element of row r is kept
    uint segment_kept = 0;
    if (data_subgroup) {
        [[unroll]] for (uint r = 0; r < ITEMS; ++r) {
            bool kept = load_and_test(segment_first + r * gl_SubgroupSize + lane, whole_tile, x[r]);
            kept_bits |= kept ? 1u << r : 0u;
        }
        segment_kept = subgroupAdd(bitCount(kept_bits));
    }
    uint before_tile, tile_kept, within_tile;
#if LOOKBACK_SUBGROUP
    within_tile = look_back_beside(tile, segment_kept, before_tile, tile_kept);
#else
    bool last_lane = lane == gl_SubgroupSize - 1;
    within_tile = workgroup_exclusive_scan(last_lane ? segment_kept : 0u, tile_kept);
#if MODE_COUNT
    if (gl_LocalInvocationIndex == 0) {
        partials[tile] = fault_drops(tile) ? 0u : tile_kept;
    }
    return;
#elif MODE_SINGLE_PASS
    before_tile = look_back(tile, tile_kept);
#else
    before_tile = partials[tile];
#endif
#endif
    if (data_subgroup) {
        uint out_kept = before_tile + within_tile;
        [[unroll]] for (uint r = 0; r < ITEMS; ++r) {
            bool kept = (kept_bits & (1u << r)) != 0;
            uvec4 lanes = subgroupBallot(kept);
            if (kept) {
                dst1[out_kept + subgroupBallotExclusiveBitCount(lanes)] = x[r];
            }
            out_kept += subgroupBallotBitCount(lanes);
        }
        if (PARTITION) {
            uint out_rejected = n - (segment_first - (before_tile + within_tile));
            [[unroll]] for (uint r = 0; r < ITEMS; ++r) {
                uint i = segment_first + r * gl_SubgroupSize + lane;
                bool rejected = (kept_bits & (1u << r)) == 0 && i < n;
                uvec4 lanes = subgroupBallot(rejected);
                if (rejected) {
                    dst1[out_rejected - 1 - subgroupBallotExclusiveBitCount(lanes)] = x[r];
                }
                out_rejected -= subgroupBallotBitCount(lanes);
            }
        }
    }
    if (tile == tiles - 1 && gl_LocalInvocationIndex == 0) {
        kept_count = before_tile + tile_kept;
    }
#if MODE_SINGLE_PASS
    barrier();
    if (gl_LocalInvocationIndex == 0) {
        atomicAdd(tiles_written, 1u);
    }
#endif
}
