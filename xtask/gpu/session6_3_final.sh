#!/usr/bin/env bash
# Session 6, call 3: the new defaults (one tile state per 128-byte line; a look-back subgroup
# where the subgroup size is fixed). Every sample with --validate (defaults and the alternate
# paths), the single pass at 2^28 against the older forms in the same call, shapes around the
# default, then the chapters' scan bench table.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
v() { f="$R/validate_$1$(echo "${@:2}" | tr -d ' -').log"; $B/$1 --validate "${@:2}" > "$f" 2>&1; echo "$* --validate: exit $? | $(tail -1 "$f" | cut -c1-110)"; }
short() { grep -E "BENCH|FAIL|SKIP|STATS|falling|look-back|rror" | grep -v "empty\|warm-up" | sed -E "s/ +n=[0-9]+ +/ /" \
  | sed -E "s/, CS: (Binary|Stack|Local|Subgroup)[^,]*//g" | cut -c1-170; }
scan() { $B/03_scan --bench --iters 20 --variant single-pass --size 268435456 --pipeline-stats "$@" 2>&1 \
  | short | sed "s/^/[scan $*] /"; }
{ v 00_properties
  v 01_hello_subgroup
  v 02_reduce
  v 03_scan
  v 02_reduce --variant fast --fast-result last-workgroup --fast-fences
  v 02_reduce --variant fast --fast-result last-workgroup
  v 03_scan --variant single-pass --lookback narrow
  v 03_scan --variant single-pass --lookback wide
  v 03_scan --variant single-pass --state-stride 1; } | tee "$R/validate.log"
echo "fallbacks or failures in the validation logs: $(cat "$R"/validate_*.log | grep -c -E "falling|FAIL")"
{ scan --type u32 --lookback-stats
  scan --type f32
  scan --type u32 --lookback narrow --lookback-stats
  scan --type u32 --lookback narrow --state-stride 1
  scan --type u32 --state-stride 1 --lookback-stats
  scan --type u32 --workgroup 288
  scan --type u32 --items 40
  scan --type u32 --workgroup 512 --items 16
  scan --type u32 --exclusive
  scan --type u32; } | tee "$R/single_pass.log"
$B/03_scan --bench --inclusive --json > "$R/scan_bench.json" 2> "$R/scan_bench.txt"; echo "03 bench exit $?"
grep -E "BENCH" "$R/scan_bench.txt" | grep -E "n=(67108864|268435456) " | cut -c1-150
