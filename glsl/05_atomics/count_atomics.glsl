// count_atomics.glsl — `--count-atomics`: with COUNT_ATOMICS 1 each invocation adds the atomics
// it issued to the control words `global_atomics` and `shared_atomics` (declared by the
// including shader). Counting costs atomics of its own, so it is compiled in only for the
// checked runs that report counts, never in a bench.
#ifndef COUNT_ATOMICS
#define COUNT_ATOMICS 0
#endif
void count_atomics(uint global_issued, uint shared_issued) {
    if (COUNT_ATOMICS == 1 && global_issued > 0) {
        atomicAdd(global_atomics, global_issued);
    }
    if (COUNT_ATOMICS == 1 && shared_issued > 0) {
        atomicAdd(shared_atomics, shared_issued);
    }
}
