#!/usr/bin/env bash
# Session 3, sixth call: fewer, larger tiles (the slow mode costs ~40 ns per tile in a chain).
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass "$@" 2>&1 \
  | grep -E "BENCH|FAIL|falling|SKIP|STATS" | grep -v "empty dispatch" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | sed -E "s/Binary Size.*Shared/… Shared/" | cut -c1-200; }
for size in 268435456 67108864; do
  scan --size $size --type u32 --groups 0 --items 32 --pipeline-stats
  scan --size $size --type u32 --groups 0 --items 64 --pipeline-stats
  scan --size $size --type u32 --groups 0 --workgroup 512 --items 32
  scan --size $size --type u32 --groups 0 --workgroup 512 --items 64
  scan --size $size --type u32 --groups 0 --workgroup 1024 --items 32
  scan --size $size --type u32 --groups 0 --items 64 --narrow-lookback
done | tee "$R/tiles.log"
