#!/usr/bin/env bash
# Tuning sweeps run after the benches by h200.sh: $1 = binaries, $2 = results folder.
B=$1; R=$2
# 02_reduce fast: the two targets again (2^28 bandwidth, 2^20 latency), two knobs at 2^20.
for g in 528 2048; do for u in 2 4; do
  for n in 268435456 1048576; do
    $B/02_reduce --bench --variant fast --size $n --fast-groups $g --fast-unroll $u 2>&1 | grep -E "BENCH|FAIL" | sed "s/^/g=$g u=$u /"
  done
done; done > "$R/02_reduce_sweep.log"
grep fast "$R/02_reduce_sweep.log" | cut -c1-140
# 03_scan: tile shape (invocations × items) of the single pass at 2^28.
for wi in "256 8" "256 16" "256 32" "512 8" "512 16"; do
  set -- $wi
  $B/03_scan --bench --type u32 --inclusive --variant single-pass --size 268435456 --workgroup $1 --items $2 2>&1 \
    | grep -E "BENCH|FAIL|SKIP" | sed "s/^/wg=$1 items=$2 /"
done > "$R/03_scan_sweep.log"
cut -c1-150 "$R/03_scan_sweep.log"
