// lookback.glsl — decoupled look-back over tile states, shared by 03's single-pass scan and 04's
// stable compaction. A tile's state is one 64-bit word, flag << 32 | value bits, stored and
// loaded with relaxed device-scope atomics, so a reader never sees a flag without its value.
// The including shader declares, before including this file:
//   - LB_T, the value type summed over tiles, with LB_TO_BITS(x) / LB_FROM_BITS(b) (its bits
//     as a uint and back; flag_word.glsl's TO_BITS / FROM_BITS for the element type T);
//   - buffers `uint64_t tile_state[]` and `uint stalled` (set when a look-back gives up);
//   - the host defines STATE_STRIDE (words from one state to the next) and HAS_PREFIX.
// Needs: subgroup basic, arithmetic, ballot, vote; shaderInt64, shaderBufferInt64Atomics.
#ifndef LOOKBACK_GLSL
#define LOOKBACK_GLSL
#include "fault.glsl"  // fault_drops: --inject-fault drop-workgroup drops a tile's sum
const uint NOT_READY = 0;
const uint HAS_AGGREGATE = 1;  // the value is the sum of the tile alone
// HAS_PREFIX (host define, 2): the value is the sum of tiles 0..t

// ANCHOR: state
// Tile t's state is tile_state[t * STATE_STRIDE]: 16 words of 8 bytes, one state per 128-byte
// cache line, so the hundreds of workgroups polling the newest states spread over many lines
// (and L2 slices) instead of crowding the one or two lines that would hold them all packed.
// STATE_STRIDE is a host define (16), so that the host reads the states with the same stride.
void publish(uint tile, uint flag, LB_T value) {
    uint64_t state = (uint64_t(flag) << 32) | uint64_t(LB_TO_BITS(value));
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
#define VALUE(state) LB_FROM_BITS(uint(state))
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
#endif
