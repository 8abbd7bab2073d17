#!/usr/bin/env bash
# Tuning sweeps run after the benches by h200.sh: $1 = binaries, $2 = results folder.
B=$1; R=$2
# 02_reduce fast: the 2^20 latency case (workgroups × loads in flight).
for g in 132 264 528; do for u in 1 2; do
  $B/02_reduce --bench --variant fast --size 1048576 --fast-groups $g --fast-unroll $u 2>&1 | grep -E "BENCH (fast|copy)|FAIL" | sed "s/^/g=$g u=$u /"
done; done > "$R/02_reduce_sweep.log"
grep fast "$R/02_reduce_sweep.log" | sort -k9 -n | head -3 | cut -c1-140
# 03_scan: tile shape (invocations × items) for the single pass and reduce-then-scan at 2^28.
for wi in "256 8" "256 16" "256 32" "512 8" "512 16" "128 32" "1024 4"; do
  set -- $wi
  $B/03_scan --bench --type u32 --inclusive --variant single-pass,intrinsic --size 268435456 --workgroup $1 --items $2 2>&1 \
    | grep -E "BENCH|FAIL|SKIP" | sed "s/^/wg=$1 items=$2 /"
done > "$R/03_scan_sweep.log"
grep -v copy "$R/03_scan_sweep.log" | cut -c1-150
