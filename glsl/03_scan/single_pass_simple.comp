// single_pass_simple.comp — the single-pass scan with decoupled look-back in its simplest
// correct form (Merrill & Garland, 2016). One workgroup scans one tile of WORKGROUP_SIZE ×
// ITEMS elements, each invocation ITEMS consecutive ones in subgroup order (io.glsl, as in
// reduce_then_scan.comp). It claims the next tile from an atomic counter, loads and sums it,
// publishes the tile's aggregate; then one invocation walks back one predecessor at a time,
// waiting while a tile has published nothing, adding aggregates, stopping at the first inclusive
// prefix; it publishes the tile's own inclusive prefix, and the workgroup writes the tile.
// A tile's state is one 64-bit word, flag << 32 | value bits, written and read with relaxed
// device-scope atomics; the host zeroes the states and the counters before every run. A walk
// that reads SPIN_LIMIT states without reaching a prefix sets `stalled`, and the host redoes
// the scan with reduce-then-scan (FALLBACK). A workgroup whose subgroups are not full leaves at
// once (subgroup_shape.glsl) and the host SKIPs.
// Needs: subgroup basic, arithmetic; full subgroups; shaderInt64, shaderBufferInt64Atomics.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#include "tile_scan.glsl"  // T, workgroup_exclusive_scan, thread_sum
#include "flag_word.glsl"  // TO_BITS, FROM_BITS, SPIN_LIMIT
#include "grid.glsl"
#include "fault.glsl"
#include "io.glsl"  // load_items, store_items (which scans the items from a prefix)

layout(local_size_x_id = 0) in;
layout(std430, binding = 2) buffer TileStates { uint64_t state[]; };  // one word a tile
layout(std430, binding = 3) buffer Control { uint next_tile; uint tiles_written; uint stalled; };
layout(push_constant) uniform Push { uint n; };
#include "subgroup_shape.glsl"  // subgroup_shape_holds

// ANCHOR: simple_state
const uint NOT_READY = 0, HAS_AGGREGATE = 1, HAS_PREFIX = 2;  // a state's high half
const uint TILE = WORKGROUP_SIZE * ITEMS;
shared uint tile;  // the claimed tile
shared T before;   // the sum of all tiles before it

void publish(uint flag, T value) {
    uint64_t word = uint64_t(flag) << 32 | TO_BITS(value);
    atomicStore(state[tile], word, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Tile p's state, read with an atomic add of 0: a compiler may merge repeated relaxed loads of
// one address (llvmpipe does), but not read-modify-writes. POLL_BURST (host define): 1, but
// a CPU device reads up to that many times while NOT_READY, unrolled (flag_word.glsl's budget).
uint64_t read_state(int p) {
    uint64_t s = uint64_t(NOT_READY) << 32;
    [[unroll]] for (uint i = 0; i < POLL_BURST; ++i) {
        if (uint(s >> 32) == NOT_READY) {
            s = atomicAdd(state[p], 0ul, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        }
    }
    return s;
}
// ANCHOR_END: simple_state

// ANCHOR: simple_walk
// One invocation: the sum of the tiles before `tile`, one predecessor at a time.
T look_back() {
    T sum = T(0);
    int p = int(tile) - 1;
    for (uint reads = 0; reads < SPIN_LIMIT && p >= 0; ++reads) {
        uint64_t s = read_state(p);
        uint flag = uint(s >> 32);
        if (flag == NOT_READY) {
            continue;  // tile p has published nothing yet: read it again
        }
        sum += FROM_BITS(uint(s));
        if (flag == HAS_PREFIX) {
            return sum;  // tiles 0 … p are all in this value
        }
        --p;  // an aggregate: walk on to the tile before
    }
    atomicOr(stalled, 1u);  // no prefix reached: the host does not trust this run
    return sum;
}
// ANCHOR_END: simple_walk

// ANCHOR: simple_main
void main() {
    if (!subgroup_shape_holds()) {
        return;  // not full subgroups, as the order of the elements assumes (reported in `stalled`)
    }
    uint tiles = max((n + TILE - 1) / TILE, 1u);
    if (flat_workgroup_id() >= tiles) {
        return;  // the grid may hold a few workgroups more than tiles
    }
    if (gl_LocalInvocationIndex == 0) {
        tile = atomicAdd(next_tile, 1u);  // tiles in claim order: predecessors have started
    }
    barrier();  // every invocation knows the tile
    if (tile >= tiles) {
        return;  // a counter not zeroed: the host sees next_tile past the tiles
    }
    uint first = tile * TILE + (gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID) * ITEMS;
    T items[ITEMS];
    load_items(first, n, items);
    T aggregate;
    T within = workgroup_exclusive_scan(thread_sum(items), aggregate);
    if (gl_LocalInvocationIndex == 0) {
        T published = fault_drops(tile) ? T(0) : aggregate;  // --inject-fault drop-workgroup
        before = T(0);
        if (tile > 0) {
            publish(HAS_AGGREGATE, published);  // at once: successors need not wait for our walk
            before = look_back();
        }
        publish(HAS_PREFIX, before + published);
    }
    barrier();  // every invocation sees `before`
    store_items(first, n, items, before + within);
    barrier();  // every invocation has stored its items
    if (gl_LocalInvocationIndex == 0) {
        atomicAdd(tiles_written, 1u);  // the host checks that every tile got here
    }
}
// ANCHOR_END: simple_main
