#!/usr/bin/env bash
# Session 4: with warm measurements, 32 items per invocation beat 16 (72 % vs 63 % of copy at
# 2^28). Tile shapes around it, with the driver's register counts; reduce at 2^28 and 2^20
# (all variants: the seed table) after the warm-up threshold went from 90 % to 97 %.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|falling|STATS|µs  " | grep -v "empty\|reduce-then" | sed -E "s/ +n=[0-9]+ +/ /" | sed -E "s/, (binary|spill|local|shared|subgroup|stack)[^,]*//g" | cut -c1-170; }
red() { $B/02_reduce --bench "$@" 2>&1 | short | sed "s/^/[reduce $*] /"; }
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass --type u32 --size 268435456 --pipeline-stats "$@" 2>&1 | short | grep -v "STATS.*reduce\|STATS.*scan_blocks\|STATS.*add_offsets" | sed "s/^/[scan $*] /"; }
{ red --size 268435456 --variant fast --op add --type f32
  red --size 1048576 --op add --type f32 --iters 200
  red --size 1048576 --variant fast --op add --type f32 --iters 200 --batch 10
  for wg in 128 256; do for it in 24 32 40 48; do scan --workgroup $wg --items $it; done; done
  scan --items 32 --no-prewait
  scan --items 32 --wide-lookback
  scan --items 32 --skip-lookback
  scan --workgroup 512 --items 24; } | tee "$R/shapes.log"
