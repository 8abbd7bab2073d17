// subgroup.comp — variant 4: register tiling (block_tile.glsl) with the A fragments passed
// between the lanes of a subgroup instead of read by every lane from shared memory.
//
// Invocation (tx, ty) of the lane grid is numbered by subgroup (gl_SubgroupID ·
// SUBGROUP_SIZE + lane), and the host makes BN/TN a multiple of SUBGROUP_SIZE: a subgroup
// then lies in one row of the lane grid, so all its lanes need the same TM values of A at
// each k (their B values differ, and still come from shared memory). STRATEGY, a
// specialization constant, says how the A values of each k reach the lanes:
//   0 broadcast:  lane j reads column k ≡ j of the A tile once per step (OWN columns when
//                 the subgroup has fewer lanes than BK); at k, subgroupBroadcast from lane
//                 k mod SUBGROUP_SIZE hands it to everyone.
//   1 shuffleXor: the same reads; at round s every lane takes the column of lane (its own
//                 id XOR s) with subgroupShuffleXor, and reads the matching B row itself.
//                 Over the rounds each lane sees every k once, in its own order.
//   2 electFirst: at each k, only the lane subgroupElect() picks reads the column from
//                 shared memory; subgroupBroadcastFirst hands it to the others.
// Every subgroup operation sits in uniform control flow: the step macros below are expanded
// for literal k (so broadcast ids are constants), guarded by conditions on constants.
// Needs: GL_KHR_shader_subgroup_basic, _ballot (broadcasts), _shuffle_xor; full subgroups of
// exactly SUBGROUP_SIZE lanes (the host requires or checks that size).
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "block_tile.glsl"

layout(constant_id = 1) const uint STRATEGY = 0;

#define S SUBGROUP_SIZE
// A columns each lane reads per step: one, or BK/S when the subgroup has fewer lanes.
#define OWN (BK > S ? BK / S : 1)
// Shuffle rounds per step: each round delivers OWN columns.
#define ROUNDS (BK > S ? S : BK)

// The k of the A column that lane `lane` reads as its j-th.
uint own_k(uint j, uint lane) {
    return BK > S ? j * S + lane : lane % BK;
}

// ANCHOR: steps
#define BROADCAST_STEP(k)                                                   \
    if (k < BK) {                                                           \
        vec4 a[TM / 4];                                                     \
        vec4 b[TN / 4];                                                     \
        [[unroll]] for (uint r = 0; r < TM / 4; r++) {                      \
            a[r] = subgroupBroadcast(own[(k) / S % OWN][r], (k) % S);        \
        }                                                                   \
        LOAD_B_ROW(b, buf, k, tx)                                           \
        OUTER_PRODUCT(a, b)                                                 \
    }

#define XOR_STEP(s)                                                         \
    if (s < ROUNDS) {                                                       \
        [[unroll]] for (uint j = 0; j < OWN; j++) {                         \
            vec4 a[TM / 4];                                                 \
            vec4 b[TN / 4];                                                 \
            [[unroll]] for (uint r = 0; r < TM / 4; r++) {                  \
                a[r] = subgroupShuffleXor(own[j][r], s);                    \
            }                                                               \
            uint k = own_k(j, lane ^ (s));                                  \
            LOAD_B_ROW(b, buf, k, tx)                                       \
            OUTER_PRODUCT(a, b)                                             \
        }                                                                   \
    }

#define ELECT_STEP(k)                                                       \
    if (k < BK) {                                                           \
        vec4 a[TM / 4];                                                     \
        vec4 b[TN / 4];                                                     \
        [[unroll]] for (uint r = 0; r < TM / 4; r++) {                      \
            a[r] = vec4(0.0);                                               \
        }                                                                   \
        if (subgroupElect()) {                                              \
            LOAD_A_COL(a, buf, k, ty)                                       \
        }                                                                   \
        [[unroll]] for (uint r = 0; r < TM / 4; r++) {                      \
            a[r] = subgroupBroadcastFirst(a[r]);                            \
        }                                                                   \
        LOAD_B_ROW(b, buf, k, tx)                                           \
        OUTER_PRODUCT(a, b)                                                 \
    }

// ANCHOR_END: steps

#define REPEAT32(STEP)                                                              \
    STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9) \
    STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15) STEP(16) STEP(17)         \
    STEP(18) STEP(19) STEP(20) STEP(21) STEP(22) STEP(23) STEP(24) STEP(25)         \
    STEP(26) STEP(27) STEP(28) STEP(29) STEP(30) STEP(31)

// ANCHOR: compute_tile
void compute_tile(uint buf, uint tx, uint ty) {
    uint lane = gl_SubgroupInvocationID;
    if (STRATEGY == 2) {
        REPEAT32(ELECT_STEP)
        return;
    }
    // This lane's share of the step's A columns, read once from shared memory.
    vec4 own[OWN][TM / 4];
    [[unroll]] for (uint j = 0; j < OWN; j++) {
        LOAD_A_COL(own[j], buf, own_k(j, lane), ty)
    }
    if (STRATEGY == 0) {
        REPEAT32(BROADCAST_STEP)
    } else {
        REPEAT32(XOR_STEP)
    }
}
// ANCHOR_END: compute_tile

void main() {
    uint t = gl_SubgroupID * S + gl_SubgroupInvocationID;
    gemm_block(t % NC, t / NC);
}
