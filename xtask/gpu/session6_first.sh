#!/usr/bin/env bash
# Prepared at the end of session 5 for the next session's first call (not yet run):
# --prefetch-distance D (while a tile looks back, one word per 32-byte sector of tile + D is
# read so that tile's data waits in L2) at 2^28 u32 with the look-back statistics, registers
# printed; the default and the look-back subgroup beside it.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|SKIP|STATS|falling|look-back|rror" | grep -v "empty\|warm-up" | sed -E "s/ +n=[0-9]+ +/ /" \
  | sed -E "s/, CS: (Binary|Stack|Local|Subgroup)[^,]*//g" | cut -c1-170; }
scan() { $B/03_scan --bench --inclusive --type u32 --iters 20 --variant single-pass --size 268435456 --pipeline-stats "$@" 2>&1 \
  | short | sed "s/^/[scan $*] /"; }
{ $B/03_scan --variant single-pass --prefetch-distance 660 --validate 2>&1 | tail -1
  scan --lookback-stats
  for d in 132 660 1320 2640; do scan --prefetch-distance $d --lookback-stats; done
  scan --prefetch-distance 660 --type f32
  scan --lookback-subgroup --workgroup 224
  scan; } | tee "$R/prefetch.log"
