// predicate.glsl — what the compaction kernels share: the element type, the buffers, and which
// elements are kept. Host defines: DATA_F32 or DATA_U32 (the elements); one form:
//   FORM_SELECT    keep x < threshold (the push constant, as the element's bits);
//   FORM_FLAGS     keep where flags[i] != 0;
//   FORM_PARTITION keep x < threshold in order at the front, the rest after them in reverse;
//   FORM_UNIQUE    keep x[i] unless it equals x[i - 1] (drop consecutive duplicates).
// Buffers: 0 input, 1 output, 2 flags (FORM_FLAGS; else unused), 3 control words.
#include "grid.glsl"
#include "fault.glsl"

#if defined(DATA_F32)
#define D float
#define D4 vec4
#define D_FROM_BITS(b) uintBitsToFloat(b)
#elif defined(DATA_U32)
#define D uint
#define D4 uvec4
#define D_FROM_BITS(b) (b)
#else
#error "define DATA_F32 or DATA_U32"
#endif

layout(std430, binding = 0) readonly buffer Src4 { D4 src4[]; };
layout(std430, binding = 0) readonly buffer Src1 { D src1[]; };
layout(std430, binding = 1) writeonly buffer Dst1 { D dst1[]; };
layout(std430, binding = 2) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 2) readonly buffer Flags4 { uvec4 flags4[]; };
// kept, rejected (the unordered variants' slot counters; the stable ones write the total kept
// at the end), then the single pass's next tile and tiles written (counted up across runs, see
// lookback.glsl's epoch) and stalled (never reset).
layout(std430, binding = 3) buffer Control {
    uint kept_count;
    uint rejected_count;
    uint next_tile;
    uint tiles_written;
    uint stalled;
};
layout(push_constant) uniform Push {
    uint n;
    uint threshold_bits;
    uint epoch;  // the single pass's run number on its tile states (lookback.glsl); else unused
};

// Element i (its value read by the caller as x): kept? `previous` is element i - 1 (unique only).
bool keep(uint i, D x, D previous) {
#if defined(FORM_FLAGS)
    return flags[fault_index(i)] != 0;
#elif defined(FORM_UNIQUE)
    return i == 0 || x != previous;
#else
    return x < D_FROM_BITS(threshold_bits);
#endif
}

// Which of elements first..first+3 are below n, as bits 0..3.
uint in_range4(uint first) {
    return first >= n ? 0u : n - first >= 4 ? 15u : (1u << (n - first)) - 1u;
}

// Elements first..first+3 (values v; `previous` is element first - 1, unique only): which are
// kept, as bits 0..3. `whole`: all four are below n (uniform in a whole tile), so the flags take
// one 16-byte load; otherwise elements past n are not kept.
uint kept_bits4(uint first, D4 v, D previous, bool whole) {
#if defined(FORM_FLAGS)
    uvec4 f;
    if (whole) {
        f = flags4[first / 4];
        if (INJECT_FAULT == 2 && first / 4 == FAULT_ELEMENT / 4) {  // as FAULT_SHIFT4
            f[FAULT_ELEMENT % 4] = flags[FAULT_ELEMENT + 1];
        }
    } else {
        f = uvec4(first < n ? flags[fault_index(first)] : 0u, first + 1 < n ? flags[fault_index(first + 1)] : 0u,
                  first + 2 < n ? flags[fault_index(first + 2)] : 0u, first + 3 < n ? flags[fault_index(first + 3)] : 0u);
    }
    bvec4 kept = notEqual(f, uvec4(0));
#elif defined(FORM_UNIQUE)
    bvec4 kept = notEqual(v, D4(previous, v.xyz));
    kept.x = kept.x || first == 0;
#else
    bvec4 kept = lessThan(v, D4(D_FROM_BITS(threshold_bits)));
#endif
    uint bits = (kept.x ? 1u : 0u) | (kept.y ? 2u : 0u) | (kept.z ? 4u : 0u) | (kept.w ? 8u : 0u);
    return whole ? bits : bits & in_range4(first);
}

#if defined(FORM_PARTITION)
const bool PARTITION = true;
#else
const bool PARTITION = false;
#endif
