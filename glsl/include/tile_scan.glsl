// tile_scan.glsl — scanning one tile of WORKGROUP_SIZE × ITEMS elements (add only), shared by
// the reduce-then-scan passes and the single-pass scan (whose look-back subgroup, when it has
// one, loads no elements: its tile is smaller by that subgroup). Host defines: TYPE_F32 or TYPE_U32;
// SCAN_HILLIS, SCAN_SHUFFLE or SCAN_INTRINSIC (the subgroup primitive); EXCLUSIVE (0 or 1);
// WORKGROUP_SIZE (a multiple of the subgroup size); ITEMS (a multiple of 4).
//
// In the reduce-then-scan passes thread t owns elements [t·ITEMS, (t+1)·ITEMS) of the tile: it
// sums them serially, the workgroup scans the per-thread sums (subgroup scans, then a scan of
// the subgroup totals), and each thread rescans its own elements from its exclusive prefix.
// The single pass lays its tile out by subgroup (single_pass.comp) and uses only the
// workgroup scan from here.

#extension GL_KHR_shader_subgroup_basic : require
// [[unroll]] on the loops over a thread's items: fully unrolled, `items[]` lives in registers;
// a rolled loop indexes the array dynamically and the driver may put it in local memory.
#extension GL_EXT_control_flow_attributes : require

#if defined(TYPE_F32)
#define T float
#define T4 vec4
#elif defined(TYPE_U32)
#define T uint
#define T4 uvec4
#else
#error "define TYPE_F32 or TYPE_U32"
#endif

// ---- The subgroup primitive: inclusive and exclusive scan of one value per lane. ----
#if defined(SCAN_INTRINSIC)
#extension GL_KHR_shader_subgroup_arithmetic : require
// ANCHOR: intrinsic_scan
void subgroup_scan(T x, out T inclusive, out T exclusive) {
    inclusive = subgroupInclusiveAdd(x);
    exclusive = subgroupExclusiveAdd(x);
}
// ANCHOR_END: intrinsic_scan
#elif defined(SCAN_SHUFFLE)
#extension GL_KHR_shader_subgroup_shuffle_relative : require
// ANCHOR: shuffle_scan
void subgroup_scan(T x, out T inclusive, out T exclusive) {
    uint lane = gl_SubgroupInvocationID;
    // log2(gl_SubgroupSize) steps: 3 at 8 lanes, 5 at 32, 7 at 128. Each step adds the
    // running sum from `offset` lanes below, not that lane's original value (which would
    // leave x0 out of lane 3's sum).
    for (uint offset = 1; offset < gl_SubgroupSize; offset *= 2) {
        T below = subgroupShuffleUp(x, offset);  // undefined for lane < offset: not used
        if (lane >= offset) {
            x += below;
        }
    }
    inclusive = x;
    T previous = subgroupShuffleUp(x, 1);
    exclusive = lane == 0 ? T(0) : previous;
}
// ANCHOR_END: shuffle_scan
#elif defined(SCAN_HILLIS)
// ANCHOR: hillis_scan
// Hillis-Steele in shared memory, one region per subgroup, only subgroup barriers.
shared T hillis[WORKGROUP_SIZE];
void subgroup_scan(T x, out T inclusive, out T exclusive) {
    uint lane = gl_SubgroupInvocationID;
    uint slot = gl_SubgroupID * gl_SubgroupSize + lane;
    hillis[slot] = x;
    subgroupMemoryBarrierShared();
    subgroupBarrier();  // the subgroup's values are in shared memory
    for (uint offset = 1; offset < gl_SubgroupSize; offset *= 2) {
        T below = lane >= offset ? hillis[slot - offset] : T(0);
        subgroupBarrier();  // every lane has read before any lane overwrites
        x += below;
        hillis[slot] = x;
        subgroupMemoryBarrierShared();
        subgroupBarrier();  // this step's writes are visible to the next step
    }
    inclusive = x;
    exclusive = lane == 0 ? T(0) : hillis[slot - 1];
    subgroupBarrier();  // reads done before a later call overwrites the region
}
// ANCHOR_END: hillis_scan
#else
#error "define SCAN_INTRINSIC, SCAN_SHUFFLE or SCAN_HILLIS"
#endif

// ---- Workgroup level: exclusive scan of one value per invocation. ----
shared T subgroup_totals[WORKGROUP_SIZE];  // one per subgroup; sized for subgroups of 1 lane
shared T chunk_total;
shared T workgroup_total;

// ANCHOR: workgroup_scan
// Every invocation must call this (it has barriers). Returns the exclusive prefix of `x`
// over the workgroup and sets `total` to the workgroup's sum.
T workgroup_exclusive_scan(T x, out T total) {
    T inclusive, exclusive;
    subgroup_scan(x, inclusive, exclusive);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
        subgroup_totals[gl_SubgroupID] = inclusive;
    }
    barrier();  // all subgroup totals are written
    if (gl_SubgroupID == 0) {
        // Scan the subgroup totals in chunks of gl_SubgroupSize: one chunk when there are no
        // more subgroups than lanes, several at small subgroup sizes (32 subgroups of 8).
        T carry = T(0);
        for (uint base = 0; base < gl_NumSubgroups; base += gl_SubgroupSize) {
            uint i = base + gl_SubgroupInvocationID;
            T value = i < gl_NumSubgroups ? subgroup_totals[i] : T(0);
            T inc, exc;
            subgroup_scan(value, inc, exc);
            if (i < gl_NumSubgroups) {
                subgroup_totals[i] = carry + exc;
            }
            if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
                chunk_total = inc;
            }
            subgroupMemoryBarrierShared();
            subgroupBarrier();  // chunk_total is visible to the whole subgroup
            carry += chunk_total;
            subgroupBarrier();  // read before the next chunk overwrites it
        }
        if (gl_SubgroupInvocationID == 0) {
            workgroup_total = carry;
        }
    }
    barrier();  // the scanned totals and the workgroup total are visible
    total = workgroup_total;
    T prefix = subgroup_totals[gl_SubgroupID] + exclusive;
    barrier();  // everyone has read before a later call overwrites the shared arrays
    return prefix;
}
// ANCHOR_END: workgroup_scan

// ---- One thread's ITEMS elements (loads and stores are in io.glsl). ----
// Sum of the thread's items.
T thread_sum(T items[ITEMS]) {
    T s = T(0);
    [[unroll]] for (uint j = 0; j < ITEMS; ++j) {
        s += items[j];
    }
    return s;
}

// The element `first + j` of the output: prefix plus the items before it (and itself, for an
// inclusive scan), summed in the same order as thread_sum.
void scan_items(inout T items[ITEMS], T prefix) {
    T running = prefix;
    [[unroll]] for (uint j = 0; j < ITEMS; ++j) {
        T next = running + items[j];
        items[j] = EXCLUSIVE == 1 ? running : next;
        running = next;
    }
}
