// split_reduce.comp — split-K's second pass: one invocation sums, for each element of D it
// visits (a grid-stride loop), the SPLIT_K partial sums the slices wrote to the workspace P
// (block_tile.glsl), and writes D = α·Σ + β·C_in. Slices are added in order, so the result
// does not depend on which workgroup finished first.
// Needs: nothing beyond Vulkan 1.0 compute.
#version 450
#include "gemm_io.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 4) readonly buffer P1 { float p1[]; };

// ANCHOR: reduce
void main() {
    uint count = M * N;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
        float sum = 0.0;
        for (uint s = 0; s < SPLIT_K; s++) {
            sum += p1[s * count + i];
        }
        store_d(i / N, i % N, sum);
    }
}
// ANCHOR_END: reduce
