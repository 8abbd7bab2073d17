#!/usr/bin/env bash
# Session 4, diagnosis: the 1 GiB copy ran at 4150 GB/s in the probe (copies right after a
# warm-up) and at 1700 GB/s in the reduce bench (right after seconds of CPU work on the input).
# Does an idle GPU stay slow? The probe's copy after 0.5-4 s of sleep; the benches with
# --prewarm-ms (copies right before every measurement) against without.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
$B/memory_probe --sizes 268435456 --pairs 1 --idle-ms 0,500,1000,2000,4000,8000,0 2>&1 | grep -v "^type" | tee "$R/idle.log"
short() { grep -E "BENCH|FAIL|falling" | grep -v empty | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-160; }
red() { $B/02_reduce --bench --variant fast --op add --type f32 --iters 20 "$@" 2>&1 | short | sed "s/^/[reduce $*] /"; }
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass "$@" 2>&1 | short | sed "s/^/[scan $*] /"; }
{ for i in 1 2; do
    red --size 268435456
    red --size 268435456 --prewarm-ms 500
  done
  scan --size 134217728 --type u32 --skip-lookback
  scan --size 134217728 --type u32 --skip-lookback --prewarm-ms 500
  for i in 1 2; do
    scan --size 268435456 --type u32
    scan --size 268435456 --type u32 --prewarm-ms 500
  done
  scan --size 268435456 --type f32 --prewarm-ms 500
  scan --size 67108864 --type u32 --prewarm-ms 500; } | tee "$R/prewarm.log"
