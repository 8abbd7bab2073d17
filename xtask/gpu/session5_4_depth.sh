#!/usr/bin/env bash
# Session 5, call 4: look-back statistics (windows read and repolls per tile) and deeper
# look-back windows (--lookback-depth K: each lane reads K states per round trip) at 2^28.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|SKIP|STATS|falling|look-back" | grep -v "empty\|warm-up" | sed -E "s/ +n=[0-9]+ +/ /" \
  | sed -E "s/, CS: (Binary|Stack|Local|Shared|Subgroup)[^,]*//g" | cut -c1-150; }
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass --size 268435456 --pipeline-stats "$@" 2>&1 \
  | short | sed "s/^/[scan $*] /"; }
{ $B/03_scan --variant single-pass --lookback-depth 4 --validate 2>&1 | tail -1
  for d in 1 2 4 8; do scan --type u32 --lookback-stats --lookback-depth $d; done
  for d in 2 4 8; do scan --type u32 --lookback-depth $d; done
  scan --type u32 --lookback-depth 4 --items 16 --lookback-stats
  scan --type u32 --lookback-depth 4 --items 24
  scan --type u32 --lookback-depth 4 --items 40
  scan --type u32 --lookback-depth 4 --lookback-subgroup --workgroup 224
  scan --type f32 --lookback-depth 4
  scan --type u32; } | tee "$R/depth.log"
