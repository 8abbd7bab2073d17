// fast.comp — variant 5: the bandwidth-bound device-wide reduce, in one dispatch.
// Each invocation reads 16-byte vectors in a grid-stride loop, UNROLL loads in flight per step
// (bytes in flight hide memory latency), and folds them into one register; the workgroup
// combines its invocations (workgroup_reduce.glsl) and writes one partial. The last workgroup
// to finish — found with an atomic ticket — reduces all partials and writes the result, then
// resets the ticket (and the partials' flags) for the next run. With ATOMIC_RESULT there is no
// last workgroup: each workgroup folds its partial into the result with one atomic. Any n up to
// the buffer limit; the n % 4 tail is read as scalars. Needs: GL_KHR_shader_subgroup_basic and
// _arithmetic (or _shuffle with USE_SHUFFLE); FLAGGED_PARTIALS needs shaderInt64 and
// shaderBufferInt64Atomics; ATOMIC_RESULT on floats needs shaderBufferFloat32AtomicAdd.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require  // [[unroll]]: v[] stays in registers
#include "reduce_op.glsl"
#include "fault.glsl"
#ifdef USE_SHUFFLE
#extension GL_KHR_shader_subgroup_shuffle : require
T butterfly_reduce(T value) {
    for (uint mask = gl_SubgroupSize / 2; mask > 0; mask /= 2) {
        value = OP(value, subgroupShuffleXor(value, mask));
    }
    return value;
}
#define SUBGROUP_REDUCE(v) butterfly_reduce(v)
#else
#extension GL_KHR_shader_subgroup_arithmetic : require
#define SUBGROUP_REDUCE(v) SUBGROUP_OP(v)
#endif
#include "workgroup_reduce.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint UNROLL = 4;
// The same input seen as vectors and as scalars (for the tail).
layout(std430, binding = 0) readonly buffer Src4 { T4 src4[]; };
layout(std430, binding = 0) readonly buffer Src1 { T src1[]; };
#if ATOMIC_RESULT
#if defined(TYPE_F32)
#extension GL_EXT_shader_atomic_float : require
#endif
#if defined(OP_ADD)
#define ATOMIC_OP atomicAdd
#elif defined(OP_MIN)
#define ATOMIC_OP atomicMin
#elif defined(OP_MAX)
#define ATOMIC_OP atomicMax
#elif defined(OP_AND)
#define ATOMIC_OP atomicAnd
#elif defined(OP_OR)
#define ATOMIC_OP atomicOr
#elif defined(OP_XOR)
#define ATOMIC_OP atomicXor
#else
#error "ATOMIC_RESULT: no atomic for this operation"
#endif
// Two accumulators, used by alternate runs: a run adds into result[slot] and resets the other
// one to the identity for the next run (which a barrier orders after this one).
layout(std430, binding = 3) buffer Result { T result[2]; };
#elif FLAGGED_PARTIALS
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
// Each partial is one 64-bit word, 1 << 32 | value bits, stored and loaded atomically: the
// last workgroup waits for the flag instead of relying on memory barriers.
layout(std430, binding = 1) buffer Partials { uint64_t partials[]; };
#include "flag_word.glsl"
#else
#extension GL_KHR_memory_scope_semantics : require
// Partials and the ticket are written by one workgroup and read by another in the same
// dispatch: `coherent` keeps those accesses out of non-coherent caches.
layout(std430, binding = 1) coherent buffer Partials { T partials[]; };
#endif
// ticket: workgroups done so far; missing_partials (flagged path): partials that never arrived
// (a broken device or driver; the host fails the run if it is not 0).
layout(std430, binding = 2) coherent buffer Ticket { uint ticket; uint missing_partials; };
#if !ATOMIC_RESULT
layout(std430, binding = 3) writeonly buffer Result { T result; };
#endif
// slot: which of the two accumulators this run adds into (ATOMIC_RESULT only).
layout(push_constant) uniform Push { uint n; uint slot; };

#if !ATOMIC_RESULT
shared bool is_last_workgroup;
#endif

void main() {
    // ANCHOR: loads
    uint tid = gl_LocalInvocationID.x;
    uint groups = gl_NumWorkGroups.x;
    uint stride = groups * gl_WorkGroupSize.x;
    uint n4 = n / 4;

    T4 acc = T4(IDENTITY);
    uint i = gl_WorkGroupID.x * gl_WorkGroupSize.x + tid;
    // UNROLL independent 16-byte loads per step, issued before any is used.
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        T4 v[UNROLL];
        [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
            v[u] = src4[i + u * stride];
            FAULT_SHIFT4(v[u], i + u * stride)
        }
        [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
            acc = OP(acc, v[u]);
        }
    }
    for (; i < n4; i += stride) {
        T4 v = src4[i];
        FAULT_SHIFT4(v, i)
        acc = OP(acc, v);
    }
    T mine = REDUCE4(acc);
    uint tail = n4 * 4 + gl_GlobalInvocationID.x;
    if (tail < n) {
        mine = OP(mine, src1[fault_index(tail)]);
    }
    // ANCHOR_END: loads

    T total = workgroup_reduce(mine);
    if (fault_drops(gl_WorkGroupID.x)) {
        total = IDENTITY;
    }

#if ATOMIC_RESULT
    // ANCHOR: atomic_result
    if (tid == 0) {
        ATOMIC_OP(result[slot], total);  // no reply needed: nothing waits for it in this run
        if (gl_WorkGroupID.x == 0) {
            result[slot ^ 1u] = IDENTITY;  // the next run's accumulator; no one uses it now
        }
    }
    // ANCHOR_END: atomic_result
#elif FLAGGED_PARTIALS
    // ANCHOR: flagged_partials
    if (tid == 0) {
        uint64_t flagged = (uint64_t(1) << 32) | uint64_t(TO_BITS(total));
        atomicStore(partials[gl_WorkGroupID.x], flagged, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        is_last_workgroup = atomicAdd(ticket, 1u) == groups - 1;
    }
    barrier();  // every invocation sees is_last_workgroup
    if (is_last_workgroup) {  // uniform across the workgroup
        T v = IDENTITY;
        for (uint g = tid; g < groups; g += gl_WorkGroupSize.x) {
            // Every workgroup has taken its ticket, but with no barrier in between, its partial
            // may become visible after the ticket: wait for the flag (bounded, never hangs).
            uint64_t p = 0;
            for (uint spin = 0; spin < SPIN_LIMIT && (p >> 32) == 0; ++spin) {
                p = atomicLoad(partials[g], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
            }
            if ((p >> 32) == 0) {
                atomicAdd(missing_partials, 1u);  // never arrived: the host fails the run
            } else {
                v = OP(v, FROM_BITS(uint(p)));
                atomicStore(partials[g], uint64_t(0), gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
            }
        }
        v = workgroup_reduce(v);
        if (tid == 0) {
            result = v;
            // Ready for the next dispatch (atomic: nothing orders it after the others' tickets).
            atomicStore(ticket, 0u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        }
    }
    // ANCHOR_END: flagged_partials
#else
    // ANCHOR: last_workgroup
    if (tid == 0) {
        partials[gl_WorkGroupID.x] = total;
        // Release: the partial is visible device-wide before the ticket is taken; acquire: the
        // last workgroup's reads below come after every other workgroup's ticket (and so after
        // their partials). Memory barriers alone would not order the ticket this way.
        uint done = atomicAdd(ticket, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
        is_last_workgroup = done == groups - 1;
    }
    // Every invocation sees is_last_workgroup, and what invocation 0 acquired with the ticket
    // (the other workgroups' partials) is visible to the whole workgroup: a control barrier
    // with buffer semantics at workgroup scope, which plain barrier() (shared memory only) is not.
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared | gl_StorageSemanticsBuffer,
                   gl_SemanticsAcquireRelease);
    if (is_last_workgroup) {  // uniform across the workgroup
        T v = IDENTITY;
        for (uint g = tid; g < groups; g += gl_WorkGroupSize.x) {
            v = OP(v, partials[g]);
        }
        v = workgroup_reduce(v);
        if (tid == 0) {
            result = v;
            ticket = 0;  // ready for the next dispatch
        }
    }
    // ANCHOR_END: last_workgroup
#endif
}
