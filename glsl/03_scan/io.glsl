// io.glsl — input and output views and the item loads/stores used by tile_scan.glsl.
// Binding 0 is the input, binding 1 the output, each seen as T4[] and as T[] (for the tail).
layout(std430, binding = 0) readonly buffer Src4 { T4 src4[]; };
layout(std430, binding = 0) readonly buffer Src1 { T src1[]; };
layout(std430, binding = 1) writeonly buffer Dst4 { T4 dst4[]; };
layout(std430, binding = 1) writeonly buffer Dst1 { T dst1[]; };

void load_items(uint first, uint n, out T items[ITEMS]) {
    if (first + ITEMS <= n) {  // the whole run is in range: 16-byte loads
        [[unroll]] for (uint v = 0; v < ITEMS / 4; ++v) {
            T4 q = src4[first / 4 + v];
            FAULT_SHIFT4(q, first / 4 + v)
            items[4 * v] = q.x;
            items[4 * v + 1] = q.y;
            items[4 * v + 2] = q.z;
            items[4 * v + 3] = q.w;
        }
    } else {
        [[unroll]] for (uint j = 0; j < ITEMS; ++j) {
            items[j] = first + j < n ? src1[fault_index(first + j)] : T(0);
        }
    }
}

void store_items(uint first, uint n, T items[ITEMS], T prefix) {
    scan_items(items, prefix);
    if (first + ITEMS <= n) {
        [[unroll]] for (uint v = 0; v < ITEMS / 4; ++v) {
            dst4[first / 4 + v] = T4(items[4 * v], items[4 * v + 1], items[4 * v + 2], items[4 * v + 3]);
        }
    } else {
        [[unroll]] for (uint j = 0; j < ITEMS; ++j) {
            if (first + j < n) {
                dst1[first + j] = items[j];
            }
        }
    }
}
