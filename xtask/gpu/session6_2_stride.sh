#!/usr/bin/env bash
# Session 6, call 2: the tiles' states one per cache line (--state-stride S) won call 1 (86 % at
# S = 16): strides 16/32/64, and S = 16 with the other look-back forms and tile shapes, f32,
# exclusive; --validate at S = 16.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|SKIP|STATS|falling|look-back|rror" | grep -v "empty\|warm-up" | sed -E "s/ +n=[0-9]+ +/ /" \
  | sed -E "s/, CS: (Binary|Stack|Local|Subgroup)[^,]*//g" | cut -c1-170; }
scan() { $B/03_scan --bench --iters 20 --variant single-pass --size 268435456 --pipeline-stats "$@" 2>&1 \
  | short | sed "s/^/[scan $*] /"; }
{ $B/03_scan --variant single-pass --state-stride 16 --validate 2>&1 | tail -1
  for s in 16 32 64; do scan --type u32 --state-stride $s --lookback-stats; done
  scan --type u32 --state-stride 16 --lookback-subgroup --workgroup 224 --lookback-stats
  scan --type u32 --state-stride 32 --lookback-subgroup --workgroup 224
  for d in 2 4; do scan --type u32 --state-stride 16 --lookback-depth $d --lookback-stats; done
  scan --type u32 --state-stride 16 --no-prewait --lookback-stats
  scan --type u32 --state-stride 16 --wide-lookback
  scan --type u32 --state-stride 16 --items 24
  scan --type u32 --state-stride 16 --items 40
  scan --type u32 --state-stride 16 --workgroup 128
  scan --type u32 --state-stride 16 --workgroup 512 --items 16
  scan --type f32 --state-stride 16
  scan --type u32 --state-stride 16 --exclusive
  scan --type u32; } | tee "$R/stride.log"
