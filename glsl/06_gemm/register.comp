// register.comp — variant 3: register tiling. One workgroup computes a BM×BN block of D,
// each of its (BM/TM)×(BN/TN) invocations a TM×TN block held in registers (block_tile.glsl:
// double-buffered shared tiles, 4-vector global loads, a transposed and padded A tile). Per
// k, an invocation reads TM + TN values from shared memory (as 4-vectors) and does TM·TN
// multiply-adds: the ratio that makes the kernel compute-bound instead of load-bound.
// Needs: nothing beyond Vulkan 1.0 compute (and 16-bit storage for INPUT_F16).
#version 450
#include "block_tile.glsl"

#if PRELOAD_FRAGMENTS
// The step's fragments, read all at once: every k's TM values of A and TN values of B.
vec4 frag_a[BK][TM / 4];
vec4 frag_b[BK][TN / 4];

void read_fragments(uint buf, uint tx, uint ty) {
    [[unroll]] for (uint k = 0; k < BK; k++) {
        LOAD_A_COL(frag_a[k], buf, k, ty)
        LOAD_B_ROW(frag_b[k], buf, k, tx)
    }
}

void multiply_fragments() {
    [[unroll]] for (uint k = 0; k < BK; k++) {
        OUTER_PRODUCT(frag_a[k], frag_b[k])
    }
}

void compute_tile(uint buf, uint tx, uint ty) {
    read_fragments(buf, tx, ty);
    multiply_fragments();
}
#else
// ANCHOR: compute_tile
void compute_tile(uint buf, uint tx, uint ty) {
    [[unroll]] for (uint k = 0; k < BK; k++) {
        vec4 a[TM / 4];
        vec4 b[TN / 4];
        LOAD_A_COL(a, buf, k, ty)
        LOAD_B_ROW(b, buf, k, tx)
        OUTER_PRODUCT(a, b)
    }
}
// ANCHOR_END: compute_tile
#endif

void main() {
    uvec2 lane = lane_position();
    gemm_block(lane.x, lane.y);
}
