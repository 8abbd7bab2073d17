// gemm_push.glsl — the push constants of every 06_gemm kernel: the problem M×N×K, α and β.
#ifndef GEMM_PUSH_GLSL
#define GEMM_PUSH_GLSL
layout(push_constant) uniform Push {
    uint M;
    uint N;
    uint K;
    float alpha;
    float beta;
};
#endif
