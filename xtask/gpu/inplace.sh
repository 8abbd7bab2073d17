#!/usr/bin/env bash
# Session 4: the tile scan now scans in place (no lane_prefix array live across the look-back),
# and the warm-up submits 256 copies at a time. Prediction: fewer registers at 32 items
# (48 -> ~40), 6 instead of 5 workgroups per multiprocessor, 73 % -> ~80 % of copy at 2^28.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|falling|STATS" | grep -v "empty\|reduce-then" | sed -E "s/ +n=[0-9]+ +/ /" | sed -E "s/, CS: (Binary|Stack|Local|Shared|Subgroup)[^,]*//g" | cut -c1-150; }
red() { $B/02_reduce --bench "$@" 2>&1 | short | sed "s/^/[reduce $*] /"; }
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass --type u32 --size 268435456 --pipeline-stats "$@" 2>&1 | short | grep -v "STATS.*\(reduce\|scan_blocks\|add_offsets\)" | sed "s/^/[scan $*] /"; }
{ red --size 268435456 --variant fast --op add --type f32
  for it in 24 28 32 40; do scan --items $it; done
  for it in 28 32; do scan --workgroup 128 --items $it; done
  scan --items 32 --type f32
  red --size 268435456 --variant fast --op add --type f32; } | tee "$R/inplace.log"
