// stable.comp — variants 3 and 4: stable compaction, the kept elements in input order. One
// workgroup takes a tile of DATA_INVOCATIONS × ITEMS × DEPTH elements, laid out like 03's single
// pass: subgroup s owns a contiguous segment of the tile, and row r of it is one 16-byte load per
// lane. Each data subgroup loads and tests its rows, ITEMS a lane at a time (one depth), keeping
// the last depth's rows and every depth's test bits in registers, and counts the segment's kept
// elements (the lanes' bit counts, one subgroupAdd a depth). With DEPTH 2 (the look-back
// subgroup's select and flags) the first depth's kept elements are staged in the subgroup's slice
// (below) before the second depth takes the registers, or, if they do not fit, read again after
// the look-back, all its loads at once, and written with the test bits of its first read: twice
// the elements a look-back, with no more of them held (at ITEMS 12 select holds no more
// registers than one depth of 16; at 16, holding the first depth's bits costs more, and chapter 04
// compares the two). The segment's offset in the
// output, the kept elements before it, comes from
//   MODE_SINGLE_PASS: the decoupled look-back of 03 (lookback.glsl) over kept counts, in one
//     pass: beside the loads, by a look-back subgroup that holds no elements
//     (LOOKBACK_SUBGROUP), or after a workgroup scan of the segments' counts (narrow); tiles
//     are claimed in order from a counter; a stall sets `stalled` (host: FALLBACK);
//   MODE_COUNT (pass 1 of 3): nothing; the tile's count goes to partials[tile], which pass 2
//     (03's reduce-then-scan pass 2) turns into exclusive prefixes;
//   neither (pass 3 of 3, the scatter): partials[tile] and a workgroup scan of the segments' counts.
// Then each subgroup writes its rows out one at a time: a row's kept elements are staged in the
// subgroup's slice of shared memory (4 per lane) at their rank in the row (from ballots), and
// copied from there to consecutive output addresses (coalesced); partition: then the rejected
// ones likewise, reversed, to the back. With the look-back subgroup, a segment that keeps at most
// 4 elements a lane (all its depths together) stages all of them while the look-back goes on,
// and after it only copies them out. The last tile writes the total kept to kept_count.
// First of all, the workgroup checks that its subgroups have the shape the slices and segments
// assume (subgroup_shape.glsl): if not, it reports that in `stalled` and does nothing, and the
// host SKIPs. MODE_SINGLE_PASS's tile state is one 64-bit word, or without 64-bit buffer
// atomics (or with --lookback-word 32) a 32-bit word of a 2-bit flag and a 30-bit count, which
// has no room for the epoch: the host zeroes those states before every run (lookback.glsl).
// Needs: subgroup basic, arithmetic, ballot, vote; full subgroups (of LOOKBACK_LANES lanes, with
// a look-back subgroup); the 64-bit state also shaderInt64 and shaderBufferInt64Atomics.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_memory_scope_semantics : require
#include "lookback_word.glsl"  // LB_WORD: the tile states' words (and the 64-bit extensions)
#define TYPE_U32 1  // tile_scan.glsl's T: the scans here count kept elements
#define SCAN_INTRINSIC 1
#define EXCLUSIVE 0
#include "tile_scan.glsl"
#include "predicate.glsl"
#include "subgroup_shape.glsl"  // subgroup_shape_holds

layout(local_size_x_id = 0) in;
#if MODE_SINGLE_PASS
layout(std430, binding = 4) buffer TileStates { LB_WORD tile_state[]; };
#include "flag_word.glsl"  // SPIN_LIMIT, TO_BITS / FROM_BITS of T (uint)
#define LB_T uint
#define LB_TO_BITS(x) (x)
#define LB_FROM_BITS(b) (b)
#include "lookback.glsl"  // claim_tile, look_back, look_back_beside_start and _finish
#else
layout(std430, binding = 4) buffer Partials { uint partials[]; };
#if LOOKBACK_SUBGROUP
#error "a look-back subgroup belongs to the single pass (MODE_SINGLE_PASS) only"
#endif
#endif

#if LOOKBACK_SUBGROUP
const uint DATA_INVOCATIONS = WORKGROUP_SIZE - LOOKBACK_LANES;  // the last subgroup looks back
#else
const uint DATA_INVOCATIONS = WORKGROUP_SIZE;
#endif
// DEPTH (host define): loads of ITEMS a lane in a tile, 1 or 2 (see the header).
#if DEPTH != 1 && (!LOOKBACK_SUBGROUP || DEPTH != 2 || defined(FORM_PARTITION))
#error "a tile two loads deep belongs to the look-back subgroup's single pass, and not to partition"
#endif
const uint TILE = DATA_INVOCATIONS * ITEMS * DEPTH;
const uint ROWS = ITEMS / 4;  // 16-byte loads per invocation at a time (one depth)
const uint LAST_ROW = (DEPTH - 1) * ROWS;  // the last depth's first row in the segment

// Each subgroup's slice of shared memory: 4 elements a lane, one row or a segment's few kept
// elements at a time.
const uint SLICE_PER_LANE = 4;
shared D staging[WORKGROUP_SIZE * SLICE_PER_LANE];
uint slice_start() {
    return gl_SubgroupID * gl_SubgroupSize * SLICE_PER_LANE;
}

// This lane's first element of row `row` of the segment that starts at `segment_first`.
uint lane_first(uint segment_first, uint row) {
    return segment_first + row * gl_SubgroupSize * 4 + gl_SubgroupInvocationID * 4;
}

// ANCHOR: test
// Load row r of this lane's segment: four elements from `first` (the row's element for this
// lane, an index into the input) into v.
void load_row(uint first, bool whole_tile, out D4 v) {
    if (whole_tile) {
        v = src4[first / 4];
        FAULT_SHIFT4(v, first / 4)
    } else {
        v = D4(first < n ? src1[fault_index(first)] : D(0), first + 1 < n ? src1[fault_index(first + 1)] : D(0),
               first + 2 < n ? src1[fault_index(first + 2)] : D(0), first + 3 < n ? src1[fault_index(first + 3)] : D(0));
    }
}

// Load rows first_row.. of the segment that starts at `segment_first`, one a v. All their loads
// go out before any row is tested, so that a lane has all of them in flight at once: with each
// test right after its row's load, a lane waits for each load before it issues the next (chapter
// 04 compares the two). Two loads deep, the loop is written twice so that the uniform whole-tile
// branch stands outside it, taken once for all the rows (chapter 04 compares the placements).
// One load deep, the branch stays inside: outside, the two copies of the loop hold more
// registers, so fewer workgroups fit a multiprocessor, which small inputs need to hide the
// look-back's latency (chapter 04 compares the placements).
void load_rows(uint segment_first, uint first_row, bool whole_tile, out D4 v[ROWS]) {
#if DEPTH == 1
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        load_row(lane_first(segment_first, first_row + r), whole_tile, v[r]);
    }
#else
    if (whole_tile) {
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
            load_row(lane_first(segment_first, first_row + r), true, v[r]);
        }
    } else {
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
            load_row(lane_first(segment_first, first_row + r), false, v[r]);
        }
    }
#endif
}

// Which of a loaded row's four elements (v, from `first`) are kept, as bits 0..3.
uint test_row(uint first, D4 v, bool whole_tile) {
    D previous = first > 0 && first <= n ? src1[fault_index(first - 1)] : v.x;  // unique only (else unused)
    return kept_bits4(first, v, previous, whole_tile);
}
// ANCHOR_END: test

// ANCHOR: write_row
// Stage the elements of one row of the subgroup's segment that `bits` selects (this lane's four,
// v) in the subgroup's slice, from its element `at` on, at their rank in the row, so that copying them out
// in order makes neighbouring lanes write neighbouring addresses. A lane's rank is the number of
// selected elements in the lanes below it, from one ballot per position in the four (a ballot is
// a uvec4: any subgroup size up to 128), then its own earlier ones. Returns how many the row
// has. Every lane of the subgroup must call it (subgroup operations).
uint stage_row(D4 v, uint bits, uint at) {
    at += slice_start();
    uint row_count = 0;
    [[unroll]] for (uint e = 0; e < 4; ++e) {
        uvec4 lanes = subgroupBallot((bits & (1u << e)) != 0);
        at += subgroupBallotExclusiveBitCount(lanes);
        row_count += subgroupBallotBitCount(lanes);
    }
    [[unroll]] for (uint e = 0; e < 4; ++e) {
        if ((bits & (1u << e)) != 0) {
            staging[at] = v[e];
            ++at;
        }
    }
    return row_count;
}

// Copy the first `count` elements of the subgroup's slice to consecutive output elements: from
// `out_at` on, or (`reverse`) down from `out_at - 1`. Lane j copies elements j, j +
// gl_SubgroupSize, ...: the store pattern of a copy kernel.
void copy_out(uint count, uint out_at, bool reverse) {
    uint slice = slice_start();
    for (uint j = gl_SubgroupInvocationID; j < count; j += gl_SubgroupSize) {
        dst1[reverse ? out_at - 1 - j : out_at + j] = staging[slice + j];
    }
}

// Write the elements of one row that `bits` selects to consecutive output elements (copy_out's
// `out_at`, `reverse`) through the subgroup's slice; returns how many were written. Every lane
// of the subgroup must call it (subgroup operations, barriers).
uint write_row(D4 v, uint bits, uint out_at, bool reverse) {
    uint row_count = stage_row(v, bits, 0);
    // The staged elements are visible to the whole subgroup before any lane copies them out.
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    copy_out(row_count, out_at, reverse);
    // Every lane has read its elements before the next row overwrites the slice.
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
    return row_count;
}
// ANCHOR_END: write_row

// Row r's four kept bits from the packed words.
uint row_bits(uint kept_bits[(ROWS * DEPTH + 7) / 8], uint r) {
    return (kept_bits[r / 8] >> (4 * (r % 8))) & 15u;
}

void main() {
    if (!subgroup_shape_holds()) {
        return;  // not the subgroups the slices and segments are laid out for (reported in `stalled`)
    }
    uint tiles = max((n + TILE - 1) / TILE, 1u);
    if (flat_workgroup_id() >= tiles) {
        return;  // past the tiles (the grid may hold a few more workgroups)
    }
    // ANCHOR: ranks
#if MODE_SINGLE_PASS
    uint tile = claim_tile(tiles);  // in claim order, so the predecessors are running
    if (tile == tiles) {
        return;  // no tile for this run (claim_tile has set `stalled`)
    }
#else
    uint tile = flat_workgroup_id();
#endif
    // Load and test the segment's rows, and count the kept elements.
    bool data_subgroup = gl_SubgroupID * gl_SubgroupSize < DATA_INVOCATIONS;  // all but a look-back subgroup
    uint segment_first = tile * TILE + gl_SubgroupID * gl_SubgroupSize * ITEMS * DEPTH;  // in the input
    bool whole_tile = tile * TILE + TILE <= n;  // uniform: 16-byte loads throughout
    D4 v[ROWS];
    uint kept_bits[(ROWS * DEPTH + 7) / 8];  // which of a row's four are kept: 4 bits a row, 8 rows a word
    uint segment_kept = 0;
    uint staged_count = 0;  // kept elements staged in the slice
    bool first_staged = true;  // the depths before the last (DEPTH 2: the first) are in the slice
    if (data_subgroup) {
        [[unroll]] for (uint d = 0; d < DEPTH; ++d) {
            load_rows(segment_first, d * ROWS, whole_tile, v);
            uint lane_kept = 0;
            [[unroll]] for (uint r = 0; r < ROWS; ++r) {
                uint row = d * ROWS + r;
                uint bits = test_row(lane_first(segment_first, row), v[r], whole_tile);
                kept_bits[row / 8] = (row % 8 == 0 ? 0u : kept_bits[row / 8]) | bits << (4 * (row % 8));
                lane_kept += bitCount(bits);
            }
            uint depth_kept = subgroupAdd(lane_kept);
            segment_kept += depth_kept;
            // The first depth's kept elements go to the slice if they fit, so that v can take
            // the second; if they do not, they are read again after the look-back.
            if (d + 1 < DEPTH) {
                first_staged = depth_kept <= gl_SubgroupSize * SLICE_PER_LANE;
                if (first_staged) {
                    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
                        staged_count += stage_row(v[r], row_bits(kept_bits, r), staged_count);
                    }
                }
            }
        }
    }
    // ANCHOR_END: ranks
    // ANCHOR: offset
    // The kept elements before this segment: in earlier tiles (before_tile), and in this one.
    uint before_tile, tile_kept, within_tile;
#if LOOKBACK_SUBGROUP
    look_back_beside_start(tile, segment_kept);  // the aggregate (or the prefix) goes out at once
    // Few kept elements (at most 4 a lane): stage the last depth's too while the look-back goes
    // on, so that after it only the copy out is left.
    bool all_staged = data_subgroup && first_staged && segment_kept <= gl_SubgroupSize * SLICE_PER_LANE;
    if (all_staged) {
        uint at = staged_count;
        [[unroll]] for (uint r = 0; r < ROWS; ++r) {
            at += stage_row(v[r], row_bits(kept_bits, LAST_ROW + r), at);
        }
        staged_count = segment_kept;
    }
    // Its workgroup barrier also makes the staged elements visible to the subgroup's lanes.
    within_tile = look_back_beside_finish(before_tile, tile_kept);
#else
    const bool all_staged = false;
    // Only each subgroup's last lane brings its segment's count: every lane gets its offset.
    bool last_lane = gl_SubgroupInvocationID == gl_SubgroupSize - 1;
    within_tile = workgroup_exclusive_scan(last_lane ? segment_kept : 0u, tile_kept);  // has barriers
#if MODE_COUNT
    if (gl_LocalInvocationIndex == 0) {
        partials[tile] = fault_drops(tile) ? 0u : tile_kept;  // --inject-fault drops the tile's count
    }
    return;
#elif MODE_SINGLE_PASS
    before_tile = look_back(tile, tile_kept);  // publishes this tile's count at once
#else
    before_tile = partials[tile];
#endif
#endif
    // ANCHOR_END: offset
    // ANCHOR: scatter
    // Write the rows' kept elements out, each row after the kept elements before it; then
    // (partition) the rejected ones, each row before the rejected elements before it, from the
    // end. Only subgroup operations from here: a look-back subgroup, with no elements, leaves.
    if (data_subgroup) {
        uint out_kept = before_tile + within_tile;
        if (all_staged) {
            copy_out(staged_count, out_kept, false);
        } else if (first_staged) {
            if (DEPTH > 1) {
                // The first depth from the slice, then the last from v.
                copy_out(staged_count, out_kept, false);
                out_kept += staged_count;
                // Every lane has read its elements before the slice takes rows again.
                controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
            }
            [[unroll]] for (uint r = 0; r < ROWS; ++r) {
                out_kept += write_row(v[r], row_bits(kept_bits, LAST_ROW + r), out_kept, false);
            }
        }
#if DEPTH > 1
        else {
            // The last depth from v first, after the first's kept elements (the segment's count
            // less the last depth's), so that v is free before the first depth is read again.
            uint last_kept = 0;
            [[unroll]] for (uint r = 0; r < ROWS; ++r) {
                last_kept += bitCount(row_bits(kept_bits, LAST_ROW + r));
            }
            uint out_last = out_kept + segment_values[gl_SubgroupID] - subgroupAdd(last_kept);
            [[unroll]] for (uint r = 0; r < ROWS; ++r) {
                out_last += write_row(v[r], row_bits(kept_bits, LAST_ROW + r), out_last, false);
            }
            // DEPTH 2: the first depth read again (from L2, mostly) into v, its loads all at once,
            // and written with the test bits kept from its first read.
            load_rows(segment_first, 0, whole_tile, v);
            [[unroll]] for (uint r = 0; r < ROWS; ++r) {
                out_kept += write_row(v[r], row_bits(kept_bits, r), out_kept, false);
            }
        }
#endif
        if (PARTITION) {
            if (all_staged) {
                // Every lane has read its elements before the slice takes rows again.
                controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
            }
            uint out_rejected = n - (segment_first - (before_tile + within_tile));  // n - rejected before
            [[unroll]] for (uint r = 0; r < ROWS; ++r) {
                uint first = lane_first(segment_first, r);
                uint rejected_bits = ~row_bits(kept_bits, r) & in_range4(first);
                out_rejected -= write_row(v[r], rejected_bits, out_rejected, true);
            }
        }
    }
    // ANCHOR_END: scatter
    if (tile == tiles - 1 && gl_LocalInvocationIndex == 0) {
        kept_count = before_tile + tile_kept;
    }
#if MODE_SINGLE_PASS
    // Count finished tiles: the host trusts the output only if every tile got here.
    barrier();  // every invocation has stored its elements
    if (gl_LocalInvocationIndex == 0) {
        atomicAdd(tiles_written, 1u);
    }
#endif
}
