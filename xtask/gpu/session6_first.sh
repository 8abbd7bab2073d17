#!/usr/bin/env bash
# Session 6, call 1: what the look-back's polling costs, at 2^28 u32 with the look-back
# statistics and registers: --backoff B (pause between polls), --state-stride S (tiles' states
# in separate cache lines), --prefetch-distance D (while a tile looks back, one word per 32-byte
# sector of tile + D is read so that tile's data waits in L2), the look-back subgroup with a
# pause; the default first and last.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|SKIP|STATS|falling|look-back|rror" | grep -v "empty\|warm-up" | sed -E "s/ +n=[0-9]+ +/ /" \
  | sed -E "s/, CS: (Binary|Stack|Local|Subgroup)[^,]*//g" | cut -c1-170; }
scan() { $B/03_scan --bench --inclusive --type u32 --iters 20 --variant single-pass --size 268435456 --pipeline-stats "$@" 2>&1 \
  | short | sed "s/^/[scan $*] /"; }
{ $B/03_scan --variant single-pass --backoff 64 --state-stride 16 --lookback-depth 2 --validate 2>&1 | tail -1
  scan --lookback-stats
  for b in 16 64 256; do scan --backoff $b --lookback-stats; done
  for s in 4 16; do scan --state-stride $s --lookback-stats; done
  for d in 800 1320 2000; do scan --prefetch-distance $d --lookback-stats; done
  scan --lookback-subgroup --workgroup 224 --lookback-stats
  scan --lookback-subgroup --workgroup 224 --backoff 64 --lookback-stats
  scan; } | tee "$R/polling.log"
