#!/usr/bin/env bash
# Session 5, call 5: --staged-items K (K more elements per invocation kept in shared memory, so
# a tile holds more elements than registers alone allow) at 2^28 u32, registers printed;
# --lookback-subgroup again.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|SKIP|STATS|falling|look-back|rror" | grep -v "empty\|warm-up" | sed -E "s/ +n=[0-9]+ +/ /" \
  | sed -E "s/, CS: (Binary|Stack|Local|Subgroup)[^,]*//g" | cut -c1-170; }
scan() { $B/03_scan --bench --inclusive --type u32 --iters 20 --variant single-pass --size 268435456 --pipeline-stats "$@" 2>&1 \
  | short | sed "s/^/[scan $*] /"; }
{ $B/03_scan --variant single-pass --staged-items 32 --validate 2>&1 | tail -1
  scan
  scan --staged-items 32
  scan --staged-items 16
  scan --staged-items 40
  scan --staged-items 8
  scan --items 24 --staged-items 24
  scan --items 16 --staged-items 32
  scan --items 16 --staged-items 48
  scan --staged-items 32 --lookback-stats
  scan --lookback-subgroup --workgroup 224
  scan; } | tee "$R/staged.log"
