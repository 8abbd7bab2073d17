// coopmat_io.glsl — what 06_gemm's cooperative-matrix kernels share: the element types, the
// buffers and push constants (the same as gemm_io.glsl's: A is M×K, B is K×N, C_in and D are
// M×N, all row-major), guarded 16-byte loads of raw A and B elements, and the epilogue that
// writes one element of D.
//   ELEM (A and B): 0 f16, 1 bf16, 2 s8. Products accumulate in f32 (s8: s32).
//   OUT (D): 0 f32, 1 f16, 2 bf16, 3 s32 (s8 only: D = A·B exactly, α and β unused).
// A and B are read as 32-bit words and 16-byte vectors of packed elements (lowest bits first),
// so the kernels need no 8-bit storage; only the 16-bit outputs need 16-bit storage.
// --inject-fault (include/fault.glsl): element FAULT_ELEMENT of A is read from its neighbour
// (off-by-one); the D block FAULT_WORKGROUP is not written (drop-workgroup).
#ifndef COOPMAT_IO_GLSL
#define COOPMAT_IO_GLSL
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_control_flow_attributes : require
#if ELEM == 1
#extension GL_EXT_bfloat16 : require
#endif
#if OUT == 1 || OUT == 2
#extension GL_EXT_shader_16bit_storage : require
#endif
#include "fault.glsl"

#if ELEM == 0
#define A_TYPE float16_t
#elif ELEM == 1
#define A_TYPE bfloat16_t
#else
#define A_TYPE int8_t
#endif
#if ELEM == 2
#define ACC_TYPE int
#define ELEM_BITS 8
#else
#define ACC_TYPE float
#define ELEM_BITS 16
#endif
#define ELEMS_PER_WORD (32 / ELEM_BITS)
#define ELEMS_PER_VEC4 (128 / ELEM_BITS)
#define ELEM_MASK ((1u << ELEM_BITS) - 1u)

layout(std430, binding = 0) readonly buffer A1 { uint a1[]; };
layout(std430, binding = 0) readonly buffer A4 { uvec4 a4[]; };
layout(std430, binding = 1) readonly buffer B1 { uint b1[]; };
layout(std430, binding = 1) readonly buffer B4 { uvec4 b4[]; };
layout(std430, binding = 2) readonly buffer C1 { float c1[]; };
#if OUT == 0
layout(std430, binding = 3) writeonly buffer D1 { float d1[]; };
#elif OUT == 1
layout(std430, binding = 3) writeonly buffer D1 { float16_t d1[]; };
#elif OUT == 2
layout(std430, binding = 3) writeonly buffer D1 { uint16_t d1[]; };
#else
layout(std430, binding = 3) writeonly buffer D1 { int d1[]; };
#endif

#include "gemm_push.glsl"

// The raw bits of element i of a packed array.
#define ELEM_AT(words, i) ((words[(i) / ELEMS_PER_WORD] >> (((i) % ELEMS_PER_WORD) * ELEM_BITS)) & ELEM_MASK)

// v with its element e (of ELEMS_PER_VEC4) set to `bits`.
uvec4 with_elem(uvec4 v, uint e, uint bits) {
    uint shift = (e % ELEMS_PER_WORD) * ELEM_BITS;
    v[e / ELEMS_PER_WORD] = (v[e / ELEMS_PER_WORD] & ~(ELEM_MASK << shift)) | (bits << shift);
    return v;
}

// A[row][k .. k+ELEMS_PER_VEC4) as raw bits (k a multiple of ELEMS_PER_VEC4), 0 past the matrix:
// one 16-byte load where K keeps rows 16-byte aligned, else element by element.
uvec4 load_a_vec(uint row, uint k) {
    if (row >= M || k >= K) {
        return uvec4(0);
    }
    uint first = row * K + k;
    uvec4 v = uvec4(0);
    if (K % ELEMS_PER_VEC4 == 0) {
        v = a4[first / ELEMS_PER_VEC4];
    } else {
        [[unroll]] for (uint e = 0; e < ELEMS_PER_VEC4; e++) {
            if (k + e < K) {
                v = with_elem(v, e, ELEM_AT(a1, first + e));
            }
        }
    }
    if (INJECT_FAULT == 2 && FAULT_ELEMENT >= first && FAULT_ELEMENT < first + ELEMS_PER_VEC4
            && k + (FAULT_ELEMENT - first) < K) {
        v = with_elem(v, FAULT_ELEMENT - first, ELEM_AT(a1, FAULT_ELEMENT + 1));
    }
    return v;
}

// B[k][col .. col+ELEMS_PER_VEC4) as raw bits (col a multiple of ELEMS_PER_VEC4), as load_a_vec.
uvec4 load_b_vec(uint k, uint col) {
    if (k >= K || col >= N) {
        return uvec4(0);
    }
    uint first = k * N + col;
    if (N % ELEMS_PER_VEC4 == 0) {
        return b4[first / ELEMS_PER_VEC4];
    }
    uvec4 v = uvec4(0);
    [[unroll]] for (uint e = 0; e < ELEMS_PER_VEC4; e++) {
        if (col + e < N) {
            v = with_elem(v, e, ELEM_AT(b1, first + e));
        }
    }
    return v;
}

// bf16 bits of x, rounded to nearest even (NaN stays NaN).
uint bf16_bits(float x) {
    uint u = floatBitsToUint(x);
    if (isnan(x)) {
        return (u >> 16) | 0x40u;
    }
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

// D[row][col] from the accumulator's bits, where inside the matrix: α·acc + β·C_in, converted
// to OUT (s8: the s32 sum as it is).
void store_d(uint row, uint col, uint acc_bits) {
    if (row >= M || col >= N) {
        return;
    }
    uint i = row * N + col;
#if ELEM == 2
    d1[i] = int(acc_bits);
#else
    float v = alpha * uintBitsToFloat(acc_bits);
    if (beta != 0.0) {
        v += beta * c1[i];
    }
#if OUT == 0
    d1[i] = v;
#elif OUT == 1
    d1[i] = float16_t(v);
#else
    d1[i] = uint16_t(bf16_bits(v));
#endif
#endif
}
#endif
