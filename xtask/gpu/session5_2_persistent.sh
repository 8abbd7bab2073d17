#!/usr/bin/env bash
# Session 5, call 2: persistent workgroups (--persistent-groups G: G workgroups loop over the
# tiles, the next tile's loads in flight during the current tile's look-back) at 2^28 u32,
# against the one-workgroup-per-tile default, shapes 256 × 16/24/32, registers printed.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|SKIP|STATS|falling" | grep -v "empty\|warm-up" | sed -E "s/ +n=[0-9]+ +/ /" \
  | sed -E "s/, CS: (Binary|Stack|Local|Shared|Subgroup)[^,]*//g" | cut -c1-150; }
scan() { $B/03_scan --bench --inclusive --type u32 --iters 20 --variant single-pass --size 268435456 --pipeline-stats "$@" 2>&1 \
  | short | sed "s/^/[scan $*] /"; }
{ $B/03_scan --variant single-pass --persistent-groups 660 --validate 2>&1 | tail -1
  $B/03_scan --variant single-pass --persistent-groups 528 --items 16 --validate 2>&1 | tail -1
  scan
  for g in 528 660 792 1056; do scan --items 16 --persistent-groups $g; done
  scan --items 16 --persistent-groups 660 --skip-lookback
  for g in 528 660; do scan --items 24 --persistent-groups $g; done
  for g in 396 528; do scan --items 32 --persistent-groups $g; done
  scan --items 32 --persistent-groups 528 --skip-lookback
  scan; } | tee "$R/persistent.log"
