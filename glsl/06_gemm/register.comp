// register.comp — variant 3: register tiling. One workgroup computes a BM×BN block of D,
// each of its (BM/TM)×(BN/TN) invocations a TM×TN block held in registers (block_tile.glsl:
// double-buffered shared tiles, 4-vector global loads, a transposed and padded A tile). Per
// k, an invocation reads TM + TN values from shared memory (as 4-vectors) and does TM·TN
// multiply-adds: the ratio that makes the kernel compute-bound instead of load-bound.
// Needs: nothing beyond Vulkan 1.0 compute (and 16-bit storage for INPUT_F16).
#version 450
#include "block_tile.glsl"

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

void main() {
    uvec2 lane = lane_position();
    gemm_block(lane.x, lane.y);
}
