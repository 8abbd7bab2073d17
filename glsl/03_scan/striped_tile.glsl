// striped_tile.glsl — the single pass's tile layout: loading a tile with coalesced 16-byte
// loads, scanning it across the workgroup, and storing it. Included by single_pass.comp after
// its buffers (src4/src1, dst4/dst1), `n`, TILE and ROWS are declared.

// Guarded scalar accesses for the tail tile.
T load1(uint i) {
    return i < n ? src1[fault_index(i)] : T(0);
}
void store1(uint i, T value) {
    if (i < n) {
        dst1[i] = value;
    }
}

// ANCHOR: striped_load
// Subgroup s owns a contiguous segment of gl_SubgroupSize × ITEMS elements of the tile; row r
// of it is gl_SubgroupSize consecutive vec4s, one per lane, so every load instruction of a
// subgroup reads one contiguous block (the copy kernel's pattern) at any subgroup size.
uint row_first(uint tile, uint r) {
    uint segment = tile * TILE + gl_SubgroupID * gl_SubgroupSize * ITEMS;
    return segment + r * gl_SubgroupSize * 4 + gl_SubgroupInvocationID * 4;
}

void load_tile(uint tile, out T4 v[ROWS]) {
    bool whole_tile = tile * TILE + TILE <= n;  // uniform: the tail tile takes scalar loads
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        uint first = row_first(tile, r);
        if (whole_tile) {
            v[r] = src4[first / 4];
            FAULT_SHIFT4(v[r], first / 4)
        } else {
            v[r] = T4(load1(first), load1(first + 1), load1(first + 2), load1(first + 3));
        }
    }
}
// ANCHOR_END: striped_load

// ANCHOR: tile_scan
// The sum of a lane's four elements of a row, paired the same way everywhere.
T vec_sum(T4 v) {
    return (v.x + v.y) + (v.z + v.w);
}

// Scan each row across the lanes and carry the row totals along the segment: sets within[r]
// (elements of the segment before this lane's vec4 in row r), returns the segment's sum.
T scan_rows(T4 v[ROWS], out T within[ROWS]) {
    T segment_sum = T(0);
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        T own = vec_sum(v[r]);
        T before = subgroupExclusiveAdd(own);
        within[r] = segment_sum + before;
        segment_sum += subgroupShuffle(before + own, gl_SubgroupSize - 1);  // the row's total
    }
    return segment_sum;
}

// Then scan the segments' sums over the workgroup. Sets lane_prefix[r] (elements of the tile
// before this lane's vec4 in row r) and total (the tile's sum). Every invocation must call it.
void scan_tile(T4 v[ROWS], out T lane_prefix[ROWS], out T total) {
    T within[ROWS];
    T segment_sum = scan_rows(v, within);
    // Only each subgroup's last lane brings its segment's sum, so every lane's exclusive
    // prefix is its segment's offset (no broadcast needed).
    bool last_lane = gl_SubgroupInvocationID == gl_SubgroupSize - 1;
    T segment_offset = workgroup_exclusive_scan(last_lane ? segment_sum : T(0), total);
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        lane_prefix[r] = segment_offset + within[r];
    }
}
// ANCHOR_END: tile_scan

// Store row r of the lane's elements v: their running sums from start (the sum of everything
// before them), inclusive or exclusive; the tail tile with guarded scalar stores.
void store_row(uint tile, uint r, bool whole_tile, T start, T4 v) {
    T x = start + v.x;
    T y = x + v.y;
    T z = y + v.z;
    T w = z + v.w;
    T4 out4 = EXCLUSIVE == 1 ? T4(start, x, y, z) : T4(x, y, z, w);
    uint first = row_first(tile, r);
    if (whole_tile) {
        dst4[first / 4] = out4;
    } else {
        store1(first, out4.x);
        store1(first + 1, out4.y);
        store1(first + 2, out4.z);
        store1(first + 3, out4.w);
    }
}

void store_tile(uint tile, T4 v[ROWS], T lane_prefix[ROWS], T tile_offset) {
    bool whole_tile = tile * TILE + TILE <= n;
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        store_row(tile, r, whole_tile, tile_offset + lane_prefix[r], v[r]);
    }
}

// The sum of the lane's elements, the segment's sum once added over the subgroup (with the
// look-back subgroup, for its aggregate before the rows are scanned).
T lane_sum(T4 v[ROWS]) {
    T sum = T(0);
    [[unroll]] for (uint r = 0; r < ROWS; ++r) {
        sum += vec_sum(v[r]);
    }
    return sum;
}
