// naive.comp — variant 1: one output per invocation, every operand straight from global
// memory. A workgroup of WORKGROUP_SIZE = T×T invocations computes a T×T tile of D;
// invocation (r, c) walks row r of A and column c of B, K multiply-adds. Neighbouring
// invocations share a row of A (one broadcast load) and read neighbouring columns of B (one
// coalesced load), but nothing is reused from one k to the next: every FMA costs two loads.
// Needs: nothing beyond Vulkan 1.0 compute (and 16-bit storage for INPUT_F16).
#version 450
#include "gemm_io.glsl"

layout(local_size_x_id = 0) in;

void main() {
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint row = gl_WorkGroupID.y * T + gl_LocalInvocationIndex / T;
    uint col = gl_WorkGroupID.x * T + gl_LocalInvocationIndex % T;
// ANCHOR: loop
    float acc = 0.0;
    if (row < M && col < N) {
        for (uint k = 0; k < K; k++) {
            acc += load_a(row, k) * load_b(k, col);
        }
    }
// ANCHOR_END: loop
    if (!fault_drops(tile)) {
        store_d(row, col, acc);
    }
}
