// workgroup_reduce.glsl — combine one value per invocation into one value per workgroup with
// subgroup reductions and a small shared array. Include after defining SUBGROUP_REDUCE(v)
// (an intrinsic or a shuffle butterfly) and after reduce_op.glsl.
//
// The textbook version does one subgroup pass over the per-subgroup partials, which is only
// right when gl_NumSubgroups <= gl_SubgroupSize (256 invocations at subgroup size 8 give 32
// partials but only 8 lanes to read them). This one loops until one value is left.

// One slot per invocation: enough for any subgroup size, even 1. Sized with the host's
// WORKGROUP_SIZE define, not gl_WorkGroupSize.x (see KernelDesc in crates/vk_compute).
shared T wg_partials[WORKGROUP_SIZE];

// Must be called by every invocation of the workgroup (it contains barriers).
T workgroup_reduce(T value) {
    T reduced = SUBGROUP_REDUCE(value);
    if (subgroupElect()) {
        wg_partials[gl_SubgroupID] = reduced;
    }
    barrier();  // the partials are written before anyone reads them
    // A dense index over the workgroup's lanes, whatever the subgroup layout.
    uint slot = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    uint count = gl_NumSubgroups;
    while (count > 1) {
        T x = slot < count ? wg_partials[slot] : IDENTITY;
        barrier();  // every read of this round happens before the writes below
        x = SUBGROUP_REDUCE(x);
        count = (count + gl_SubgroupSize - 1) / gl_SubgroupSize;
        if (subgroupElect() && gl_SubgroupID < count) {
            wg_partials[gl_SubgroupID] = x;
        }
        barrier();  // this round's writes are visible to the next round (or the final read)
    }
    return wg_partials[0];
}
