#!/usr/bin/env bash
# Session 6, call 4: call 3 saw the look-back subgroup at --workgroup 288 (256 loading + 32)
# run at 593 µs minimum but 1711 µs median. Workgroup sizes around the default with the
# look-back statistics, 288 twice and with packed states, 50 runs each.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|SKIP|STATS|falling|look-back|rror" | grep -v "empty\|warm-up" | sed -E "s/ +n=[0-9]+ +/ /" \
  | sed -E "s/, CS: (Binary|Stack|Local|Subgroup)[^,]*//g" | cut -c1-170; }
scan() { $B/03_scan --bench --iters 50 --variant single-pass --size 268435456 --type u32 --pipeline-stats --lookback-stats "$@" 2>&1 \
  | short | sed "s/^/[scan $*] /"; }
{ for w in 288 288 128 192 256 320 384 512; do scan --workgroup $w; done
  scan --workgroup 288 --state-stride 1
  scan --workgroup 288 --lookback narrow
  scan; } | tee "$R/shapes.log"
