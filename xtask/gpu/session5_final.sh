#!/usr/bin/env bash
# Session 5's closing call: every sample with --validate (defaults and the alternate paths),
# then the chapters' bench tables (02 with the atomic result by default).
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
v() { f="$R/validate_$1$(echo "${@:2}" | tr -d ' -').log"; $B/$1 --validate "${@:2}" > "$f" 2>&1; echo "$* --validate: exit $? | $(tail -1 "$f" | cut -c1-110)"; }
{ v 00_properties
  v 01_hello_subgroup
  v 02_reduce
  v 03_scan
  v 02_reduce --variant fast --fast-fences
  v 02_reduce --variant fast --fast-result last-workgroup
  v 03_scan --variant single-pass --wide-lookback
  v 03_scan --variant single-pass --lookback-subgroup --workgroup 224; } | tee "$R/validate.log"
grep -h -E "falling|FAIL" "$R"/validate_*.log | head -3
$B/02_reduce --bench --op add --type f32 --json > "$R/reduce_bench.json" 2> "$R/reduce_bench.txt"; echo "02 bench exit $?"
$B/03_scan --bench --inclusive --json > "$R/scan_bench.json" 2> "$R/scan_bench.txt"; echo "03 bench exit $?"
grep -E "BENCH" "$R/reduce_bench.txt" | grep -E "n=(1048576|268435456|0) |warm" | cut -c1-150
tail -6 "$R/reduce_bench.txt"
grep -E "BENCH" "$R/scan_bench.txt" | grep -E "n=(67108864|268435456) " | cut -c1-150
