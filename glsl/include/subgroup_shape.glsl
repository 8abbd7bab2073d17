// subgroup_shape.glsl — the one check that a kernel laying its work out by subgroup makes of
// its subgroups, first thing in main, before any shared memory is touched: full subgroups
// (gl_NumSubgroups × gl_SubgroupSize = WORKGROUP_SIZE, so every subgroup ID has its slot and
// every segment its lanes) and, with a look-back subgroup, the size the host built the tile for
// (gl_SubgroupSize = LOOKBACK_LANES, which sizes segment_values and the data invocations).
// Every value compared is uniform across the workgroup (constants, where the compiler knows the
// subgroup size), so the whole workgroup leaves together, before any barrier; the hot loops
// see nothing of it. A workgroup that finds another shape sets bit 1 of `stalled`, with its
// gl_SubgroupSize in bits 8..15 and gl_NumSubgroups in bits 16..27
// (harness::lookback::wrong_shape), and does nothing: the host SKIPs with the reason instead of
// reading an output written with slots out of bounds.
// The including shader enables GL_KHR_shader_subgroup_basic and declares `uint stalled`; the
// host defines LOOKBACK_LANES (0: any size).
#ifndef SUBGROUP_SHAPE_GLSL
#define SUBGROUP_SHAPE_GLSL
#ifndef LOOKBACK_LANES
#define LOOKBACK_LANES 0
#endif

// ANCHOR: shape_check
// Whether the workgroup's subgroups have the shape the kernel was built for; if not, reports it
// (one invocation) and the caller returns at once.
bool subgroup_shape_holds() {
    if (gl_NumSubgroups * gl_SubgroupSize == WORKGROUP_SIZE && (LOOKBACK_LANES == 0 || gl_SubgroupSize == LOOKBACK_LANES)) {
        return true;
    }
    if (gl_LocalInvocationIndex == 0) {
        atomicOr(stalled, 2u | (gl_SubgroupSize << 8) | (gl_NumSubgroups << 16));
    }
    return false;
}
// ANCHOR_END: shape_check
#endif
