#!/usr/bin/env bash
# Session 3, diagnosis: single pass with every tile's aggregate published before the run
# (--oracle-aggregates: no look-back ever waits for a predecessor's loads) vs normal, at 2^26
# and 2^28; and 03_scan --validate with the narrow look-back as default.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
$B/03_scan --validate > "$R/03_scan.log" 2>&1; echo "03_scan --validate: exit $? | $(tail -1 "$R/03_scan.log" | cut -c1-110)"
grep -E "falling|FAIL" "$R/03_scan.log" | head -3
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass --type u32 "$@" 2>&1 | grep -E "BENCH|FAIL|falling|SKIP" | grep -v "empty" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-170; }
{ for size in 67108864 268435456; do
    scan --size $size
    scan --size $size --oracle-aggregates
    scan --size $size --wide-lookback --oracle-aggregates
    scan --size $size --skip-lookback
  done; } | tee "$R/oracle.log"
