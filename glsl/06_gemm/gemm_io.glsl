// gemm_io.glsl — what every 06_gemm kernel shares: the buffers (A: M×K, B: K×N, C_in and
// D: M×N, all row-major), the push constants, guarded loads that turn any element past the
// matrix into 0, and the epilogue D = α·acc + β·C_in (C_in is not read when β = 0, so it may
// hold anything). In place (C = αAB + βC) the host binds one buffer as both C_in and D.
// INPUT_F16: A and B hold float16_t (VK_KHR_16bit_storage); every product is accumulated
// in f32. --inject-fault (include/fault.glsl): FAULT_ELEMENT is a flat index into A, read
// from its neighbour (off-by-one); FAULT_WORKGROUP is the flat output tile whose results
// are not written (drop-workgroup). TEXEL_LOADS (1: A, 2: B, 3: both): the aligned 4-vector
// loads of that matrix read the same memory as a uniform texel buffer (A at binding
// TEXEL_BINDING, B at TEXEL_BINDING + 1), through the texture path instead of the load/store
// path that shared memory also takes.
#ifndef GEMM_IO_GLSL
#define GEMM_IO_GLSL
#include "fault.glsl"

#ifdef INPUT_F16
#extension GL_EXT_shader_16bit_storage : require
#define ELEM float16_t
#define ELEM4 f16vec4
#else
#define ELEM float
#define ELEM4 vec4
#endif

// Each input seen as scalars (edges, odd K or N) and as 4-vectors (aligned interiors).
layout(std430, binding = 0) readonly buffer A1 { ELEM a1[]; };
layout(std430, binding = 0) readonly buffer A4 { ELEM4 a4[]; };
layout(std430, binding = 1) readonly buffer B1 { ELEM b1[]; };
layout(std430, binding = 1) readonly buffer B4 { ELEM4 b4[]; };
layout(std430, binding = 2) readonly buffer C1 { float c1[]; };
layout(std430, binding = 3) writeonly buffer D1 { float d1[]; };
layout(std430, binding = 3) writeonly buffer D4 { vec4 d4[]; };

#ifndef TEXEL_LOADS
#define TEXEL_LOADS 0
#endif
// ANCHOR: texel_loads
#if TEXEL_LOADS != 0
// 4-vector texels (RGBA32F, or RGBA16F for f16 inputs), widened to f32 by the fetch.
layout(binding = TEXEL_BINDING) uniform samplerBuffer a_texels;
layout(binding = TEXEL_BINDING + 1) uniform samplerBuffer b_texels;
#endif
#if (TEXEL_LOADS & 1) != 0
#define A4_AT(q) texelFetch(a_texels, int(q))
#else
#define A4_AT(q) vec4(a4[q])
#endif
#if (TEXEL_LOADS & 2) != 0
#define B4_AT(q) texelFetch(b_texels, int(q))
#else
#define B4_AT(q) vec4(b4[q])
#endif
// ANCHOR_END: texel_loads

#include "gemm_push.glsl"

// A[row][k], 0 outside the matrix.
float load_a(uint row, uint k) {
    return row < M && k < K ? float(a1[fault_index(row * K + k)]) : 0.0;
}

// B[k][col], 0 outside the matrix.
float load_b(uint k, uint col) {
    return k < K && col < N ? float(b1[k * N + col]) : 0.0;
}

// A[row][k..k+3] with k a multiple of 4: one vector load when K is a multiple of 4 (a row's
// 4-groups are then whole and aligned), else four guarded scalar loads.
vec4 load_a4(uint row, uint k) {
    if (K % 4 == 0) {
        if (row >= M || k >= K) {
            return vec4(0.0);
        }
        uint q = (row * K + k) / 4;
        vec4 v = A4_AT(q);
        if (INJECT_FAULT == 2 && q == FAULT_ELEMENT / 4) {
            v[FAULT_ELEMENT % 4] = float(a1[FAULT_ELEMENT + 1]);
        }
        return v;
    }
    return vec4(load_a(row, k), load_a(row, k + 1), load_a(row, k + 2), load_a(row, k + 3));
}

// B[k][col..col+3] with col a multiple of 4, as load_a4.
vec4 load_b4(uint k, uint col) {
    if (N % 4 == 0) {
        return k < K && col < N ? B4_AT((k * N + col) / 4) : vec4(0.0);
    }
    return vec4(load_b(k, col), load_b(k, col + 1), load_b(k, col + 2), load_b(k, col + 3));
}

// D[row][col] = α·acc + β·C_in[row][col], where inside the matrix.
void store_d(uint row, uint col, float acc) {
    if (row < M && col < N) {
        uint i = row * N + col;
        d1[i] = beta == 0.0 ? alpha * acc : alpha * acc + beta * c1[i];
    }
}

// D[row][col..col+3] for col a multiple of 4: one vector store where N is a multiple of 4.
void store_d4(uint row, uint col, vec4 acc) {
    if (N % 4 == 0 && row < M && col < N) {
        uint i = row * N + col;
        vec4 r = alpha * acc;
        if (beta != 0.0) {
            r += beta * vec4(c1[i], c1[i + 1], c1[i + 2], c1[i + 3]);
        }
        d4[i / 4] = r;
        return;
    }
    for (uint j = 0; j < 4; j++) {
        store_d(row, col + j, acc[j]);
    }
}
#endif
