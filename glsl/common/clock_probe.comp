// clock_probe.comp — times the multiprocessors' clock, not memory. One invocation runs `steps`
// multiply-adds, each waiting for the one before, and writes the result: the dispatch takes
// about steps × (latency of one multiply-add) cycles whatever the memory does, so its time
// follows the SM clock. The bench warm-up uses it to tell idle clocks from full ones.
#version 450

layout(local_size_x_id = 0) in;

layout(std430, binding = 0) writeonly buffer Sink { float sink[]; };
layout(push_constant) uniform Push { uint steps; };

void main() {
    float x = float(gl_GlobalInvocationID.x);
    for (uint i = 0; i < steps; ++i) {
        x = fma(x, 0.9999, 1.0);  // needs the previous x: the steps cannot overlap
    }
    sink[gl_GlobalInvocationID.x] = x;  // keeps the chain from being optimised away
}
