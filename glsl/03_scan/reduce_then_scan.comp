// reduce_then_scan.comp — the portable device-wide scan in three passes (host define PASS):
//   PASS 1: each workgroup sums its tile of WORKGROUP_SIZE × ITEMS elements → partials[tile].
//   PASS 2: one workgroup scans the partials in place (exclusive), tile by tile with a carry.
//   PASS 3: each workgroup scans its tile again, starting from partials[tile].
// Reads the input twice and writes it once; needs no cooperation between workgroups.
// Invocation t of a workgroup owns the t-th run of ITEMS elements, t counted in subgroup order
// (gl_SubgroupID · gl_SubgroupSize + gl_SubgroupInvocationID): the workgroup scan returns
// prefixes in that order, and Vulkan relates it to gl_LocalInvocationID in no way.
// First of all, the workgroup checks that its subgroups are full (subgroup_shape.glsl), as the
// order above assumes: if not, it reports that in `stalled` and does nothing, and the host SKIPs.
// Needs: GL_KHR_shader_subgroup_basic plus what the SCAN_* primitive needs; full subgroups.
#version 450
#include "tile_scan.glsl"
#include "grid.glsl"
#include "fault.glsl"
#include "io.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 2) buffer Partials { T partials[]; };
// The sample's control words; `stalled` is word STALLED_WORD (host define), where a wrong
// subgroup shape is reported.
layout(std430, binding = 3) buffer Control { uint control_words[]; };
#define stalled control_words[STALLED_WORD]
#include "subgroup_shape.glsl"  // subgroup_shape_holds
layout(push_constant) uniform Push { uint n; };  // elements (PASS 1, 3) or partials (PASS 2)

const uint TILE = WORKGROUP_SIZE * ITEMS;

void main() {
    if (!subgroup_shape_holds()) {
        return;  // not the full subgroups the order of the elements assumes (reported in `stalled`)
    }
    uint tid = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    uint tile = flat_workgroup_id();
#if PASS != 2
    if (tile >= max((n + TILE - 1) / TILE, 1u)) {
        return;  // past the tiles (the grid may hold a few more workgroups)
    }
#endif
    T items[ITEMS];
    T total;
#if PASS == 1
    uint first = tile * TILE + tid * ITEMS;
    load_items(first, n, items);
    workgroup_exclusive_scan(thread_sum(items), total);
    if (gl_LocalInvocationIndex == 0) {
        partials[tile] = fault_drops(tile) ? T(0) : total;  // --inject-fault drop-workgroup
    }
#elif PASS == 2
    T carry = T(0);
    for (uint base = 0; base < n; base += TILE) {  // uniform: n is a push constant
        uint first = base + tid * ITEMS;
        for (uint j = 0; j < ITEMS; ++j) {
            items[j] = first + j < n ? partials[first + j] : T(0);
        }
        T running = carry + workgroup_exclusive_scan(thread_sum(items), total);
        for (uint j = 0; j < ITEMS; ++j) {  // exclusive, in place: each thread its own slots
            if (first + j < n) {
                partials[first + j] = running;
            }
            running += items[j];
        }
        carry += total;
    }
#elif PASS == 3
    uint first = tile * TILE + tid * ITEMS;
    load_items(first, n, items);
    T prefix = workgroup_exclusive_scan(thread_sum(items), total);
    store_items(first, n, items, partials[tile] + prefix);
#else
#error "define PASS 1, 2 or 3"
#endif
}
