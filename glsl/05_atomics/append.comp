// append.comp — slot allocation: every kept element (values[i] < threshold) appends its index i
// to `slots`, at a slot taken from one device-wide counter. One invocation tests one element.
// The variant (host define) sets how many atomics reach the counter:
//   VARIANT_NAIVE:     one atomicAdd per kept element;
//   VARIANT_SUBGROUP:  subgroupAdd counts the subgroup's kept lanes, one subgroupElect()ed lane
//                      reserves them all with one atomicAdd, subgroupBroadcastFirst hands out the
//                      base and subgroupExclusiveAdd each lane's place after it;
//   VARIANT_WORKGROUP: each kept element takes a place from a counter in shared memory, and one
//                      invocation reserves the workgroup's places with one atomicAdd.
// The order of the slots is whatever order the atomics arrive in. COUNT_ATOMICS counts the
// atomics issued (global and shared) into the control words.
// Needs: VARIANT_SUBGROUP subgroup basic, arithmetic and ballot (subgroupBroadcastFirst); the
// others Vulkan 1.0 compute.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_KHR_shader_subgroup_ballot : enable
#include "grid.glsl"
#include "fault.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Src1 { uint src1[]; };
layout(std430, binding = 1) writeonly buffer Slots { uint slots[]; };
layout(std430, binding = 2) buffer Control {
    uint counter;         // slots taken
    uint global_atomics;  // COUNT_ATOMICS: atomics on device memory issued
    uint shared_atomics;  // COUNT_ATOMICS: atomics on shared memory issued
};
layout(push_constant) uniform Push { uint n; uint threshold; };
#include "count_atomics.glsl"

#if VARIANT_WORKGROUP
shared uint workgroup_count;  // places taken in this workgroup
shared uint workgroup_base;   // the workgroup's first slot
#endif

// ANCHOR: main
void main() {
    uint workgroup = flat_workgroup_id();
    if (workgroup * WORKGROUP_SIZE >= max(n, 1u)) {
        return;  // the whole workgroup is past the end (the grid may hold a few more)
    }
    uint i = workgroup * WORKGROUP_SIZE + gl_LocalInvocationIndex;
    bool kept = i < n && !fault_drops(workgroup) && src1[fault_index(i)] < threshold;
    uint global_issued = 0;
    uint shared_issued = 0;
#if VARIANT_NAIVE
    if (kept) {
        slots[atomicAdd(counter, 1u)] = i;
        global_issued = 1;
    }
#elif VARIANT_SUBGROUP
    uint mine = kept ? 1u : 0u;
    uint total = subgroupAdd(mine);
    uint base = 0;
    if (total > 0) {  // uniform: every lane holds the same total
        if (subgroupElect()) {
            base = atomicAdd(counter, total);
            global_issued = 1;
        }
        base = subgroupBroadcastFirst(base);  // the elected lane is the first active one
    }
    uint rank = subgroupExclusiveAdd(mine);  // in uniform control flow, before the branch
    if (kept) {
        slots[base + rank] = i;
    }
#elif VARIANT_WORKGROUP
    if (gl_LocalInvocationIndex == 0) {
        workgroup_count = 0;
    }
    barrier();  // the count is zero before anyone takes a place
    uint place = 0;
    if (kept) {
        place = atomicAdd(workgroup_count, 1u);
        shared_issued = 1;
    }
    barrier();  // every place is taken: workgroup_count is the workgroup's total
    if (gl_LocalInvocationIndex == 0 && workgroup_count > 0) {
        workgroup_base = atomicAdd(counter, workgroup_count);
        global_issued = 1;
    }
    barrier();  // the base is visible to the workgroup
    if (kept) {
        slots[workgroup_base + place] = i;
    }
#else
#error "define VARIANT_NAIVE, VARIANT_SUBGROUP or VARIANT_WORKGROUP"
#endif
    count_atomics(global_issued, shared_issued);
}
// ANCHOR_END: main
