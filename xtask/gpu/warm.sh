#!/usr/bin/env bash
# Session 4: every measurement now starts with harness::warm_up (copies until the GPU is back
# at full speed). Scan shapes at 2^28 re-measured warm; reduce at 2^28 and 2^20; one cold row
# (--no-prewarm) for the record.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|falling|SKIP" | grep -v empty | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-160; }
red() { $B/02_reduce --bench --iters 50 "$@" 2>&1 | short | sed "s/^/[reduce $*] /"; }
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass "$@" 2>&1 | short | sed "s/^/[scan $*] /"; }
{ red --size 268435456 --variant fast --op add --type f32
  red --size 268435456 --variant fast --op add --type f32 --no-prewarm
  red --size 1048576 --op add --type f32 --iters 200
  red --size 1048576 --variant fast --op add --type f32 --iters 200 --batch 10
  S="--size 268435456 --type u32"
  scan $S
  scan $S --no-prewarm
  scan $S --wide-lookback
  scan $S --items 32
  scan $S --workgroup 512
  scan $S --workgroup 512 --items 32
  scan $S --workgroup 1024
  scan $S --skip-lookback
  scan $S --oracle-aggregates
  scan --size 268435456 --type f32
  scan --size 67108864 --type u32; } | tee "$R/warm.log"
