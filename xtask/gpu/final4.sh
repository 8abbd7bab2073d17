#!/usr/bin/env bash
# Session 3's closing check after the review fixes: the two changed samples with --validate
# (defaults and the alternate paths), and the single pass once at 2^26.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
v() { $B/$1 --validate "${@:2}" > "$R/$1$(echo "${@:2}" | tr -d ' -').log" 2>&1; echo "$* --validate: exit $? | $(tail -1 "$R/$1$(echo "${@:2}" | tr -d ' -').log" | cut -c1-100)"; }
v 02_reduce
v 03_scan
v 02_reduce --variant fast --fast-fences
v 03_scan --variant single-pass --wide-lookback
grep -h -E "falling|FAIL" "$R"/*.log | head -3
$B/03_scan --bench --inclusive --iters 20 --variant single-pass --type u32 --size 67108864 2>&1 | grep -E "BENCH|FAIL|SKIP" | grep -v empty
