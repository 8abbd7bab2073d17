#!/usr/bin/env bash
# Session 6's closing call, at the final code: every sample with --validate (defaults and the
# alternate paths), the single pass at 2^28 (u32, f32), and 02's fast reduce at 2^20 and 2^28
# (its flag-word helpers moved to a shared include).
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
v() { f="$R/validate_$1$(echo "${@:2}" | tr -d ' -').log"; $B/$1 --validate "${@:2}" > "$f" 2>&1; echo "$* --validate: exit $? | $(tail -1 "$f" | cut -c1-110)"; }
{ v 00_properties
  v 01_hello_subgroup
  v 02_reduce
  v 03_scan
  v 02_reduce --variant fast --fast-result last-workgroup --fast-fences
  v 02_reduce --variant fast --fast-result last-workgroup
  v 03_scan --variant single-pass --lookback narrow
  v 03_scan --variant single-pass --lookback wide
  v 03_scan --variant single-pass --state-stride 1
  echo "fallbacks or failures in the validation logs: $(cat "$R"/validate_*.log | grep -c -E "falling|FAIL")"
  rm -f "$R"/validate_*.log
  for t in u32 f32; do $B/03_scan --bench --inclusive --type $t --iters 20 --variant single-pass --size 268435456 --pipeline-stats 2>&1 \
    | grep -E "BENCH (copy|single)|STATS|FAIL|SKIP" | cut -c1-150; done
  $B/02_reduce --bench --variant fast --op add --type f32 --size 1048576 2>&1 | grep -E "BENCH (copy|fast)|FAIL|SKIP" | cut -c1-150
  $B/02_reduce --bench --variant fast --op add --type f32 --size 268435456 --iters 20 2>&1 | grep -E "BENCH (copy|fast)|FAIL|SKIP" | cut -c1-150
} | tee "$R/final.log"
