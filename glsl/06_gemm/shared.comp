// shared.comp — variant 2: shared-memory tiles. A workgroup of T×T invocations computes a
// T×T tile of D, one output per invocation, walking K in steps of T: each invocation loads
// one element of the A tile and one of the B tile into shared memory, a barrier, then T
// multiply-adds read both tiles from shared memory. Every element loaded from global memory
// is used T times. PAD_A floats pad each row of the A tile: a knob only, as the reads here
// are broadcasts (a row's invocations read one word of As) and neighbouring words (of Bs),
// free of bank conflicts either way (register.comp's transposed stores are where it counts).
// Needs: nothing beyond Vulkan 1.0 compute (and 16-bit storage for INPUT_F16).
#version 450
#extension GL_EXT_control_flow_attributes : require
#include "gemm_io.glsl"

layout(local_size_x_id = 0) in;

shared float As[T][T + PAD_A];
shared float Bs[T][T];

void main() {
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint r = gl_LocalInvocationIndex / T;
    uint c = gl_LocalInvocationIndex % T;
    uint row = gl_WorkGroupID.y * T + r;
    uint col = gl_WorkGroupID.x * T + c;
    float acc = 0.0;
// ANCHOR: loop
    for (uint k0 = 0; k0 < K; k0 += T) {
        As[r][c] = load_a(row, k0 + c);
        Bs[r][c] = load_b(k0 + r, col);
        barrier();  // both tiles are in shared memory before anyone reads them
        [[unroll]] for (uint k = 0; k < T; k++) {
            acc += As[r][k] * Bs[k][c];
        }
        barrier();  // everyone is done reading before the next step overwrites the tiles
    }
// ANCHOR_END: loop
    if (!fault_drops(tile)) {
        store_d(row, col, acc);
    }
}
