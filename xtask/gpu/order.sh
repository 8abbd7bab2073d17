#!/usr/bin/env bash
# Session 3, diagnosis: the look-back-free single pass at 2^28 with tiles taken in claim order,
# in workgroup-ID order (no atomic) and 64 stripes apart (in-flight tiles spread like a
# grid-stride loop's accesses); 2^26 for reference.
set -u
source "$(dirname "$0")/setup.sh"
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass --type u32 --skip-lookback "$@" 2>&1 | grep -E "BENCH|FAIL" | grep -v empty | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-170; }
scan --size 67108864 --tile-order 0
for o in 0 1 2; do scan --size 268435456 --tile-order $o; done
