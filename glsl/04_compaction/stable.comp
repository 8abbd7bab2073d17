// stable.comp — variants 3 and 4: stable compaction, the kept elements in input order. One
// workgroup takes a tile of WORKGROUP_SIZE × ITEMS elements, laid out like 03's single pass
// (subgroup s owns a contiguous segment; row r of it is one 16-byte load per lane), tests each
// element, and counts the kept ones: per row with subgroupExclusiveAdd, per segment with a
// workgroup scan (tile_scan.glsl). The tile's offset, the kept elements before it, comes from
//   MODE_SINGLE_PASS: the decoupled look-back of 03 (lookback.glsl), over kept counts, in one
//     pass; tiles are claimed in order from a counter; a stall sets `stalled` (host: FALLBACK);
//   MODE_COUNT (pass 1 of 3): nothing; the tile's count goes to partials[tile], which pass 2
//     (03's reduce-then-scan pass 2) turns into exclusive prefixes;
//   MODE_SCATTER (pass 3 of 3): partials[tile].
// The kept elements are staged in shared memory at their rank in the tile, then written by the
// whole workgroup to consecutive addresses (coalesced). Partition: the rejected elements follow
// the same way, from the back. The last tile writes the total kept to kept_count.
// Needs: subgroup basic, arithmetic, ballot, vote; MODE_SINGLE_PASS also shaderInt64 and
// shaderBufferInt64Atomics.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#define TYPE_U32 1  // tile_scan.glsl's T: the scans here count kept elements
#define SCAN_INTRINSIC 1
#define EXCLUSIVE 0
#include "tile_scan.glsl"
#include "predicate.glsl"

layout(local_size_x_id = 0) in;
#if MODE_SINGLE_PASS
layout(std430, binding = 4) buffer TileStates { uint64_t tile_state[]; };
#include "flag_word.glsl"  // SPIN_LIMIT, TO_BITS / FROM_BITS of T (uint)
#define LB_T uint
#define LB_TO_BITS(x) (x)
#define LB_FROM_BITS(b) (b)
#include "lookback.glsl"  // publish, look_back
#else
layout(std430, binding = 4) buffer Partials { uint partials[]; };
#endif

const uint TILE = WORKGROUP_SIZE * ITEMS;
const uint ROWS = ITEMS / 4;  // 16-byte loads per invocation

shared uint claimed_tile;
shared D staging[TILE];  // the tile's kept (then rejected) elements, by rank

// Element index of the first of row r's four elements of this lane (03's striped layout).
uint row_first(uint tile, uint r) {
    uint segment = tile * TILE + gl_SubgroupID * gl_SubgroupSize * ITEMS;
    return segment + r * gl_SubgroupSize * 4 + gl_SubgroupInvocationID * 4;
}

// ANCHOR: test
// Load row r's four elements into v and return which of them are kept, as bits 0..3.
uint load_and_test(uint tile, uint r, out D4 v) {
    uint first = row_first(tile, r);
    if (tile * TILE + TILE <= n) {  // uniform: a whole tile takes 16-byte loads
        v = src4[first / 4];
        FAULT_SHIFT4(v, first / 4)
    } else {
        for (uint c = 0; c < 4; ++c) {
            v[c] = first + c < n ? src1[fault_index(first + c)] : D(0);
        }
    }
    D previous = first > 0 ? src1[fault_index(first - 1)] : v.x;  // unique only (else unused)
    uint bits = 0;
    for (uint c = 0; c < 4; ++c) {
        if (first + c < n && keep(first + c, v[c], c == 0 ? previous : v[c - 1])) {
            bits |= 1u << c;
        }
    }
    return bits;
}
// ANCHOR_END: test

void main() {
    // ANCHOR: claim
    uint tiles = max((n + TILE - 1) / TILE, 1u);
    if (flat_workgroup_id() >= tiles) {
        return;  // past the tiles (the grid may hold a few more workgroups)
    }
    uint me = gl_LocalInvocationIndex;
#if MODE_SINGLE_PASS
    if (me == 0) {
        claimed_tile = atomicAdd(next_tile, 1u);  // in claim order, so predecessors are running
    }
    barrier();  // every invocation knows the tile
    uint tile = claimed_tile;
#else
    uint tile = flat_workgroup_id();
#endif
    // ANCHOR_END: claim
    // ANCHOR: ranks
    // Rank of each lane's kept elements in the tile: rows within the segment, then segments.
    D4 v[ROWS];
    uint kept_bits[ROWS];
    uint kept_before_row[ROWS];  // kept elements of the segment before this lane's row-r vec4
    uint segment_kept = 0;
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        kept_bits[r] = load_and_test(tile, r, v[r]);
        uint mine = bitCount(kept_bits[r]);
        kept_before_row[r] = segment_kept + subgroupExclusiveAdd(mine);
        segment_kept += subgroupAdd(mine);
    }
    // Only each subgroup's last lane brings its segment's count: every lane gets its segment's offset.
    bool last_lane = gl_SubgroupInvocationID == gl_SubgroupSize - 1;
    uint tile_kept;
    uint segment_offset = workgroup_exclusive_scan(last_lane ? segment_kept : 0u, tile_kept);
    // ANCHOR_END: ranks
#if MODE_COUNT
    if (me == 0) {
        partials[tile] = fault_drops(tile) ? 0u : tile_kept;  // --inject-fault drops the tile's count
    }
#else
    // ANCHOR: offset
#if MODE_SINGLE_PASS
    uint kept_before_tile = look_back(tile, tile_kept);  // publishes this tile's count at once
#else
    uint kept_before_tile = partials[tile];
#endif
    // ANCHOR_END: offset
    // ANCHOR: scatter
    // Stage the kept elements at their rank in the tile, then write them out consecutively.
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        uint at = segment_offset + kept_before_row[r];
        for (uint c = 0; c < 4; ++c) {
            if ((kept_bits[r] & (1u << c)) != 0) {
                staging[at++] = v[r][c];
            }
        }
    }
    barrier();  // the staged elements are visible to the whole workgroup
    for (uint j = me; j < tile_kept; j += WORKGROUP_SIZE) {
        dst1[kept_before_tile + j] = staging[j];
    }
    // ANCHOR_END: scatter
    if (tile == tiles - 1 && me == 0) {
        kept_count = kept_before_tile + tile_kept;
    }
    // ANCHOR: partition
    if (PARTITION) {
        // The rejected elements, by their rank among the rejected, to the back in reverse.
        barrier();  // every staged kept element has been read before it is overwritten
        uint segment_first = gl_SubgroupID * gl_SubgroupSize * ITEMS;
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
            uint element = segment_first + r * gl_SubgroupSize * 4 + gl_SubgroupInvocationID * 4;
            uint kept_before = segment_offset + kept_before_row[r];
            for (uint c = 0; c < 4; ++c) {
                if ((kept_bits[r] & (1u << c)) != 0) {
                    ++kept_before;
                } else if (tile * TILE + element + c < n) {
                    staging[element + c - kept_before] = v[r][c];
                }
            }
        }
        barrier();  // the staged rejected elements are visible to the whole workgroup
        uint tile_rejected = min(TILE, n - tile * TILE) - tile_kept;
        uint rejected_before_tile = tile * TILE - kept_before_tile;
        for (uint j = me; j < tile_rejected; j += WORKGROUP_SIZE) {
            dst1[n - 1 - (rejected_before_tile + j)] = staging[j];
        }
    }
    // ANCHOR_END: partition
#endif
#if MODE_SINGLE_PASS
    // Count finished tiles: the host trusts the output only if every tile got here.
    barrier();  // every invocation has stored its elements
    if (me == 0) {
        atomicAdd(tiles_written, 1u);
    }
#endif
}
