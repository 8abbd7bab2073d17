#!/usr/bin/env bash
# Tuning sweeps run after the benches by h200.sh: $1 = binaries, $2 = results folder.
B=$1; R=$2
# 02_reduce fast: the 2^20 latency case, then the knobs at 2^28 (workgroups × loads in flight).
for g in 264 528 1056 2112; do for u in 1 2 4; do
  $B/02_reduce --bench --variant fast --size 1048576 --fast-groups $g --fast-unroll $u 2>&1 | grep -E "BENCH (fast|copy)|FAIL" | sed "s/^/g=$g u=$u /"
done; done > "$R/02_reduce_sweep.log"
grep fast "$R/02_reduce_sweep.log" | sort -k9 -n | head -4 | cut -c1-140
