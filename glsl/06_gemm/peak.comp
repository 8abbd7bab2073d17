// peak.comp — the f32 SIMT ceiling: nothing but fused multiply-adds. Each invocation runs
// STEPS rounds of 8 independent FMA chains (independent so that the chains' latency hides
// behind each other) and writes one sum, so the compiler cannot drop the work. The host
// counts 2 × 8 × STEPS flops per invocation. Needs: nothing beyond Vulkan 1.0 compute.
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) writeonly buffer Sink { float sink[]; };
layout(push_constant) uniform Push { uint steps; float seed; };

void main() {
    float x = seed + float(gl_LocalInvocationIndex) * 1e-7;
    float v[8];
    [[unroll]] for (uint j = 0; j < 8; j++) {
        v[j] = x + float(j);
    }
    for (uint s = 0; s < steps; s++) {
        [[unroll]] for (uint j = 0; j < 8; j++) {
            v[j] = fma(v[j], 0.9999999, x);
        }
    }
    float sum = 0.0;
    [[unroll]] for (uint j = 0; j < 8; j++) {
        sum += v[j];
    }
    sink[gl_WorkGroupID.x * WORKGROUP_SIZE + gl_LocalInvocationIndex] = sum;
}
