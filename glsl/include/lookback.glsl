// lookback.glsl — decoupled look-back over tile states, shared by 03's single-pass scan and 04's
// stable compaction. A tile's state holds a flag (NOT_READY, HAS_AGGREGATE, HAS_PREFIX) and a
// value, in one of three layouts (the host's LOOKBACK_STATE, lookback_word.glsl), each read so
// that a reader never takes a flag without its value:
//   LB_TAGGED64 (the default where the device has 64-bit buffer atomics): one 64-bit word,
//     tag << 32 | value bits, published with a relaxed device-scope atomicMax and loaded with a
//     relaxed device-scope atomicLoad;
//   LB_TWO_WORDS32 (03 without 64-bit atomics): two 32-bit words, each a 16-bit tag above one
//     half of the value's bits, each published with its own relaxed atomicMax; the state is
//     ready when both words carry the same tag (a 14-bit epoch);
//   LB_PACKED32 (04 without 64-bit atomics): one 32-bit word, flag << 30 | count, relaxed as
//     the 64-bit word. No room for an epoch: the host zeroes the states before every run
//     (harness::lookback::TileStates::record_start), and counts stop at 2^30 - 1.
// The tag of the first two is epoch << 2 | flag: each run has a new epoch, so the states of
// earlier runs read as NOT_READY and nothing is reset between runs (no fill, no barrier before
// the dispatch; only the first run on a set of buffers, and one when the epoch wraps, zeroes them).
// The including shader includes lookback_word.glsl first, then declares, before including this file:
//   - LB_T, the value type summed over tiles, with LB_TO_BITS(x) / LB_FROM_BITS(b) (its bits
//     as a uint and back; flag_word.glsl's TO_BITS / FROM_BITS for the element type T);
//   - buffers `LB_WORD tile_state[]`, `uint next_tile` (tickets, counted up across runs) and
//     `uint stalled` (set when a look-back gives up);
//   - `uint epoch`, a push constant: the run's number since the states were zeroed, 1 to
//     2^30 - 1 (2^14 - 1 with LB_TWO_WORDS32; harness::lookback::Epochs); run e takes the
//     tickets (e - 1) × tiles on;
//   - the host defines STATE_STRIDE (64-bit words from one state to the next) and HAS_PREFIX,
//     LOOKBACK_STATE, LOOKBACK_SUBGROUP (0 or 1) with LOOKBACK_LANES (the host's fixed
//     subgroup size), and POLL_BURST (wait_for_predecessor's polls a round).
// Needs: subgroup basic, arithmetic, ballot, vote; LB_TAGGED64 also shaderInt64 and
// shaderBufferInt64Atomics.
#ifndef LOOKBACK_GLSL
#define LOOKBACK_GLSL
#include "lookback_word.glsl"  // LB_TAGGED64, LB_TWO_WORDS32, LB_PACKED32
#include "fault.glsl"  // fault_drops: --inject-fault drop-workgroup drops a tile's sum
const uint NOT_READY = 0;      // no state of this run's epoch yet
const uint HAS_AGGREGATE = 1;  // the value is the sum of the tile alone
// HAS_PREFIX (host define, 2): the value is the sum of tiles 0..t

// ANCHOR: state
// Tile t's state starts at tile_state[t * LB_WORDS]: 128 bytes (STATE_STRIDE words of 8 bytes),
// one state per cache line, so the hundreds of workgroups polling the newest states spread over
// many lines (and L2 slices) instead of crowding the one or two lines that would hold them all
// packed. STATE_STRIDE is a host define (16), so that the host reads the states with the same stride.
// A flag is published with atomicMax, not a store: within a run a tile's flag only grows
// (NOT_READY < HAS_AGGREGATE < HAS_PREFIX above the value bits, and an earlier run's epoch below
// this run's: the host zeroes the states when the epoch wraps), so whichever of a tile's two
// publishes lands last, the state ends with the prefix.
// Two invocations may publish one tile (publish_prefix_once) with nothing ordering their
// stores to buffer memory.
#if LOOKBACK_STATE == LB_TAGGED64
#define LB_STATE uint64_t
const uint LB_WORDS = STATE_STRIDE;
void publish(uint tile, uint flag, LB_T value) {
    uint64_t state = (uint64_t((epoch << 2) | flag) << 32) | uint64_t(LB_TO_BITS(value));
    atomicMax(tile_state[tile * LB_WORDS], state, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Tiles before the first hold an inclusive prefix of 0.
LB_STATE read_state(int tile) {
    if (tile < 0) {
        return uint64_t((epoch << 2) | HAS_PREFIX) << 32;
    }
    return atomicLoad(tile_state[tile * LB_WORDS], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
// A state's flag in this run: NOT_READY if it was published in another epoch.
uint state_flag(LB_STATE state) {
    uint tag = uint(state >> 32);
    return tag >> 2 == epoch ? tag & 3u : NOT_READY;
}
#define VALUE(state) LB_FROM_BITS(uint(state))
#elif LOOKBACK_STATE == LB_TWO_WORDS32
// ANCHOR: two_words
// Two 32-bit words, each a 16-bit tag (epoch << 2 | flag) above one half of the value's bits:
// word 0 the low half, word 1 the high half. Each word is published with its own relaxed
// atomicMax, as the 64-bit word is, and carries its own tag, so no ordering between the two
// is needed: a reader that finds the same tag in both has both halves of the one value
// published with that tag (each word takes each tag once a run). Until both are in, the state
// reads as NOT_READY and the reader polls again. (A flag published with release and read with
// acquire, or behind an acquire fence, would order a value word before a flag word as well,
// but on llvmpipe such an acquire in a polling loop ends the workgroup early, as if it were a
// workgroup barrier that the other subgroups' barrier() answered; the tags need none.) The epoch has 14 bits here: the host zeroes
// the states every 2^14 - 1 runs.
#define LB_STATE uvec2
const uint LB_WORDS = 2 * STATE_STRIDE;
void publish(uint tile, uint flag, LB_T value) {
    uint at = tile * LB_WORDS;
    uint tag = ((epoch << 2) | flag) << 16;
    uint bits = LB_TO_BITS(value);
    atomicMax(tile_state[at], tag | (bits & 0xffffu), gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    atomicMax(tile_state[at + 1], tag | (bits >> 16), gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Tiles before the first hold an inclusive prefix of 0.
LB_STATE read_state(int tile) {
    if (tile < 0) {
        uint tag = ((epoch << 2) | HAS_PREFIX) << 16;
        return uvec2(tag, tag);
    }
    uint at = uint(tile) * LB_WORDS;
    return uvec2(atomicLoad(tile_state[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed),
                 atomicLoad(tile_state[at + 1], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed));
}
// A state's flag in this run: NOT_READY if it was published in another epoch, or if one of its
// words still holds an earlier tag than the other.
uint state_flag(LB_STATE state) {
    uint tag = state.x >> 16;
    return tag == state.y >> 16 && tag >> 2 == epoch ? tag & 3u : NOT_READY;
}
#define VALUE(state) LB_FROM_BITS(((state).x & 0xffffu) | ((state).y << 16))
// ANCHOR_END: two_words
#else
// ANCHOR: packed
// One 32-bit word, flag << 30 | count, zeroed by the host before every run (no epoch: a word
// of the run before would read as ready). The host refuses inputs whose counts could pass
// 2^30 - 1, which would reach the flag's bits.
#define LB_STATE uint
const uint LB_WORDS = 2 * STATE_STRIDE;
const uint LB_COUNT_MASK = (1u << 30) - 1u;
void publish(uint tile, uint flag, LB_T value) {
    uint state = (flag << 30) | LB_TO_BITS(value);
    atomicMax(tile_state[tile * LB_WORDS], state, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Tiles before the first hold an inclusive prefix of 0.
LB_STATE read_state(int tile) {
    if (tile < 0) {
        return HAS_PREFIX << 30;
    }
    return atomicLoad(tile_state[tile * LB_WORDS], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
uint state_flag(LB_STATE state) {
    return state >> 30;
}
#define VALUE(state) LB_FROM_BITS((state) & LB_COUNT_MASK)
// ANCHOR_END: packed
#endif
#define FLAG(state) state_flag(state)
// ANCHOR_END: state

shared uint claimed_tile;
#if LOOKBACK_SUBGROUP
shared LB_T segment_values[WORKGROUP_SIZE / LOOKBACK_LANES];  // one per data subgroup
shared uint segments_done;  // data subgroups that have written their segment's value
shared LB_T beside_before;  // the look-back subgroup's result
shared LB_T published_total;  // the tile's sum as published (0 under --inject-fault drop-workgroup)
shared uint prefix_handoff;  // the look-back and the tile's sum count in; the second publishes (publish_prefix_once)
#endif

// ANCHOR: claim
// The workgroup's tile, the next from the counter: tiles are taken in claim order, so every
// predecessor of a claimed tile belongs to a workgroup that is running or done, and waiting for
// it cannot deadlock. The counter is not reset between runs (only with the states): each run
// takes `tiles` tickets, so this run's first ticket is (epoch - 1) × tiles (modulo 2^32, as the
// counter wraps). A ticket past this run's tiles (a count gone wrong) sets `stalled` and returns
// `tiles`: the caller leaves, the host falls back, and nothing is written out of bounds. Every
// invocation must call it (it has a barrier).
uint claim_tile(uint tiles) {
    if (gl_LocalInvocationIndex == 0) {
        claimed_tile = atomicAdd(next_tile, 1u) - (epoch - 1u) * tiles;
#if LOOKBACK_SUBGROUP
        segments_done = 0;
        prefix_handoff = 0;
#endif
    }
    barrier();  // every invocation knows the tile (and sees segments_done and prefix_handoff reset)
    if (claimed_tile >= tiles) {
        if (gl_LocalInvocationIndex == 0) {
            atomicOr(stalled, 1u);
        }
        return tiles;
    }
    return claimed_tile;
}
// ANCHOR_END: claim

// ANCHOR: subgroup_look_back
// One invocation waits (at most SPIN_LIMIT polls) until the closest predecessor is ready,
// before its subgroup or workgroup polls a whole window: while that tile is not ready, the
// other invocations' loads would only compete with other tiles' data in L2.
// POLL_BURST (host define): 1, but on a CPU device each of the SPIN_LIMIT rounds polls
// POLL_BURST times in a row (unrolled, so not counted against llvmpipe's loop budget, see
// flag_word.glsl), since a predecessor there takes tens of microseconds a tile, longer than
// SPIN_LIMIT single polls.
void wait_for_predecessor(uint tile) {
#if POLL_BURST > 1
    bool ready = false;
    for (uint p = 0; p < SPIN_LIMIT && !ready; ++p) {
        [[unroll]] for (uint b = 0; b < POLL_BURST; ++b) {
            ready = ready || FLAG(read_state(int(tile) - 1)) != NOT_READY;
        }
    }
#else
    for (uint p = 0; p < SPIN_LIMIT && FLAG(read_state(int(tile) - 1)) == NOT_READY; ++p) {
    }
#endif
}

// The calling subgroup sums the predecessors' states, gl_SubgroupSize tiles per round trip,
// back to the closest inclusive prefix; returns the sum of all tiles before `tile`. Waits
// while a predecessor in the window is not ready; gives up after SPIN_LIMIT polls.
LB_T subgroup_look_back(uint tile) {
    if (subgroupElect()) {
        wait_for_predecessor(tile);
    }
    uint lane = gl_SubgroupInvocationID;
    int newest = int(tile) - 1;  // the window is tiles newest, newest-1, ...
    uint polls = 0;
    bool resolved = false;
    LB_T before = LB_T(0);
    while (true) {
        LB_STATE state = read_state(newest - int(lane));
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
        before += subgroupAdd(lane <= stop ? VALUE(state) : LB_T(0));
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

shared LB_T narrow_prefix;  // the first subgroup's look-back result, for the others

// ANCHOR: lookback
// The narrow look-back. Publish the tile's aggregate, let the first subgroup find the sum of
// all tiles before it (gl_SubgroupSize tiles per round trip), publish the tile's inclusive
// prefix; returns that sum. Every invocation must call it (it has a barrier).
LB_T look_back(uint tile, LB_T total) {
    uint me = gl_LocalInvocationIndex;
    LB_T published = fault_drops(tile) ? LB_T(0) : total;  // --inject-fault drop-workgroup
    if (tile == 0) {
        if (me == 0) {
            publish(0, HAS_PREFIX, published);
        }
        return LB_T(0);
    }
    if (me == 0) {
        publish(tile, HAS_AGGREGATE, published);  // at once: successors need not wait for our look-back
    }
    if (gl_SubgroupID == 0) {
        LB_T before = subgroup_look_back(tile);
        if (subgroupElect()) {
            narrow_prefix = before;
        }
    }
    barrier();  // every invocation sees the tile's prefix
    LB_T before = narrow_prefix;
    if (me == 0) {
        publish(tile, HAS_PREFIX, before + published);
    }
    return before;
}
// ANCHOR_END: lookback

#if LOOKBACK_SUBGROUP
// ANCHOR: lookback_subgroup
// The look-back beside the loads. The workgroup's last subgroup holds no elements: it calls this
// at once and sums the predecessors' states while the data subgroups load. Each data subgroup
// calls it when its segment's value is known (in its last lane). The tile's inclusive prefix
// needs both the look-back's sum and the tile's sum, and is published by whichever of the two
// comes second, at once (publish_prefix_once): successors walking back stop at it without
// waiting for this workgroup's barrier or for the work its data subgroups do before it. The
// last data subgroup to arrive publishes the tile's aggregate first unless the look-back is
// already done, so the aggregate never waits for this tile's look-back. In two halves, which
// every invocation must call in turn: look_back_beside_start (the counts' arrival, the
// look-back, the publishing) and look_back_beside_finish (a barrier), which returns the sum of
// the tile's segments before the caller's (all of them, for the look-back subgroup) and sets
// before_tile (the sum over the earlier tiles) and tile_total. Between the halves a data subgroup
// may do work of its own (no workgroup barrier) while the look-back goes on.

// ANCHOR: publish_prefix_once
// The hand-over between the look-back subgroup (`looked_back`) and the tile's last data
// subgroup (one lane each): the second to arrive publishes the inclusive prefix. The last data
// subgroup publishes the aggregate first unless the look-back is already in. The counter's
// acquire/release covers shared memory only (the other's sum in beside_before or
// published_total): the two publishes to the state word need no order, since publish's
// atomicMax keeps the prefix whichever lands last. (A store for publish and buffer memory in
// these semantics would order the two at a cost and buy nothing; chapter 03 compares them.)
void publish_prefix_once(uint tile, bool looked_back) {
    const int storage = gl_StorageSemanticsShared;
    if (!looked_back && atomicLoad(prefix_handoff, gl_ScopeWorkgroup, storage, gl_SemanticsAcquire) == 0) {
        publish(tile, HAS_AGGREGATE, published_total);  // the look-back is still going on
        if (atomicAdd(prefix_handoff, 1u, gl_ScopeWorkgroup, storage, gl_SemanticsAcquireRelease) == 0) {
            return;  // the look-back subgroup will publish the prefix
        }
    } else if (looked_back && atomicAdd(prefix_handoff, 1u, gl_ScopeWorkgroup, storage, gl_SemanticsAcquireRelease) == 0) {
        return;  // the tile's sum is not in yet: its last data subgroup will publish the prefix
    }
    publish(tile, HAS_PREFIX, beside_before + published_total);
}
// ANCHOR_END: publish_prefix_once

void look_back_beside_start(uint tile, LB_T segment_value) {
    uint data_subgroups = gl_NumSubgroups - 1;
    if (gl_SubgroupID < data_subgroups) {
        if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
            segment_values[gl_SubgroupID] = segment_value;
            // Release: the value above is visible to whoever arrives last; acquire: so are theirs.
            uint arrived = atomicAdd(segments_done, 1u, gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                                     gl_SemanticsAcquireRelease);
            if (arrived == data_subgroups - 1) {
                LB_T total = LB_T(0);
                for (uint s = 0; s < data_subgroups; ++s) {
                    total += segment_values[s];
                }
                published_total = fault_drops(tile) ? LB_T(0) : total;  // --inject-fault drop-workgroup
                publish_prefix_once(tile, false);
            }
        }
    } else {
        LB_T before = subgroup_look_back(tile);
        if (subgroupElect()) {
            beside_before = before;
            publish_prefix_once(tile, true);
        }
    }
}

// The second half (it has a barrier).
LB_T look_back_beside_finish(out LB_T before_tile, out LB_T tile_total) {
    uint data_subgroups = gl_NumSubgroups - 1;
    // The segment values and the look-back's sum are visible to all, and so is the shared memory
    // each subgroup wrote before calling.
    barrier();
    before_tile = beside_before;
    LB_T within = LB_T(0);
    tile_total = LB_T(0);
    for (uint s = 0; s < data_subgroups; ++s) {
        within += s < gl_SubgroupID ? segment_values[s] : LB_T(0);
        tile_total += segment_values[s];
    }
    return within;
}

// ANCHOR_END: lookback_subgroup
#endif
#endif
