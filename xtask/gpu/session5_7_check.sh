#!/usr/bin/env bash
# Session 5, call 7: after the review fixes (the look-back subgroup's join became a
# controlBarrier with buffer semantics): --validate of 03 (default and look-back subgroup) and
# 02's fast variant, and the look-back subgroup against the default at 2^28 once more.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
v() { $B/$1 --validate "${@:2}" 2>&1 | tail -1 | sed "s/^/[$* --validate] /"; }
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass --size 268435456 "$@" 2>&1 \
  | grep -E "BENCH singlepass|FAIL|SKIP|falling" | cut -c1-150 | sed "s/^/[scan $*] /"; }
{ v 03_scan
  v 03_scan --variant single-pass --lookback-subgroup --workgroup 224
  v 03_scan --variant single-pass --lookback-subgroup --workgroup 256
  v 02_reduce --variant fast
  scan
  scan --lookback-subgroup --workgroup 224
  scan; } | tee "$R/check.log"
