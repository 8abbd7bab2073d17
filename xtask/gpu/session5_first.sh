#!/usr/bin/env bash
# Prepared at the end of session 4 for the next session's first call (not yet run): the
# clock-probe warm-up on the H200, fast with and without --fast-atomic-result at 2^20 (alone and
# in batches of 10) and 2^28, the scan at 2^28 with and without --recompute-rows (registers
# printed), and --validate of the new paths.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|SKIP|note|falling|STATS" | grep -v "empty\|reduce_then_scan" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-160; }
red() { $B/02_reduce --bench --variant fast --op add --type f32 "$@" 2>&1 | short | sed "s/^/[reduce $*] /"; }
{ $B/02_reduce --variant fast --fast-atomic-result --validate 2>&1 | tail -1
  for i in 1 2; do
    red --size 1048576 --iters 200
    red --size 1048576 --iters 200 --fast-atomic-result
    red --size 1048576 --iters 50 --batch 10 --fast-atomic-result
    red --size 268435456 --iters 20
    red --size 268435456 --iters 20 --fast-atomic-result
  done
  $B/03_scan --variant single-pass --recompute-rows --validate 2>&1 | tail -1
  for i in 1 2; do
    for a in "" "--recompute-rows"; do
      $B/03_scan --bench --inclusive --iters 20 --variant single-pass --size 268435456 --pipeline-stats $a 2>&1 \
        | short | sed -E "s/, CS: (Binary|Stack|Local|Shared|Subgroup)[^,]*//g" | sed "s/^/[scan $a] /"
    done
  done; } | tee "$R/first.log"
