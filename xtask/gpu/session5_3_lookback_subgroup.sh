#!/usr/bin/env bash
# Session 5, call 3: --lookback-subgroup (one extra subgroup per workgroup holds no elements and
# looks back from the start, while the others load; the last data subgroup publishes the
# aggregate) at 2^28 u32 against the default, several shapes, registers printed.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|SKIP|STATS|falling" | grep -v "empty\|warm-up" | sed -E "s/ +n=[0-9]+ +/ /" \
  | sed -E "s/, CS: (Binary|Stack|Local|Shared|Subgroup)[^,]*//g" | cut -c1-150; }
scan() { $B/03_scan --bench --inclusive --type u32 --iters 20 --variant single-pass --size 268435456 --pipeline-stats "$@" 2>&1 \
  | short | sed "s/^/[scan $*] /"; }
{ $B/03_scan --variant single-pass --lookback-subgroup --workgroup 224 --validate 2>&1 | tail -1
  $B/03_scan --variant single-pass --lookback-subgroup --validate 2>&1 | tail -1
  scan
  scan --lookback-subgroup --workgroup 224
  scan --lookback-subgroup --workgroup 256
  scan --lookback-subgroup --workgroup 224 --items 24
  scan --lookback-subgroup --workgroup 224 --items 40
  scan --lookback-subgroup --workgroup 480 --items 16
  scan --lookback-subgroup --workgroup 96 --items 32
  scan --lookback-subgroup --workgroup 224 --type f32
  scan --lookback-subgroup --workgroup 224 --no-prewait
  scan; } | tee "$R/lookback_subgroup.log"
