// fault.glsl — deliberate faults, compiled in only under `--inject-fault`, to prove that a
// sample's checks can fail. The host defines INJECT_FAULT, FAULT_ELEMENT and FAULT_WORKGROUP
// and plants a deciding value at element FAULT_ELEMENT, which workgroup (or tile)
// FAULT_WORKGROUP covers:
//   INJECT_FAULT 1 (drop-workgroup): workgroup FAULT_WORKGROUP contributes nothing;
//   INJECT_FAULT 2 (off-by-one): element FAULT_ELEMENT is read from FAULT_ELEMENT + 1.
// Without the defines every helper here is the identity and compiles away.
#ifndef FAULT_GLSL
#define FAULT_GLSL
#ifndef INJECT_FAULT
#define INJECT_FAULT 0
#define FAULT_ELEMENT 0
#define FAULT_WORKGROUP 0
#endif

// Whether workgroup (or tile) `w` must drop its contribution.
bool fault_drops(uint w) {
    return INJECT_FAULT == 1 && w == FAULT_WORKGROUP;
}

// The index element `i` is read from.
uint fault_index(uint i) {
    return INJECT_FAULT == 2 && i == FAULT_ELEMENT ? i + 1 : i;
}

// After `v = src4[k]`: the off-by-one fault replaces element FAULT_ELEMENT with its neighbour
// (read through the scalar view `src1`).
#define FAULT_SHIFT4(v, k)                                       \
    if (INJECT_FAULT == 2 && (k) == FAULT_ELEMENT / 4) {         \
        v[FAULT_ELEMENT % 4] = src1[FAULT_ELEMENT + 1];          \
    }
#endif
