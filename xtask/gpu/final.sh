#!/usr/bin/env bash
# The last check of a session on the H200: every sample with --validate, then the two reduce
# targets and the single-pass scan once more.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
for s in 00_properties 01_hello_subgroup 02_reduce 03_scan; do
  $B/$s --validate > "$R/$s.log" 2>&1; echo "$s --validate: exit $? | $(tail -1 "$R/$s.log" | cut -c1-110)"
done
{ $B/02_reduce --bench --variant fast --size 268435456; $B/02_reduce --bench --variant fast --size 1048576
  $B/03_scan --bench --inclusive --type u32 --variant single-pass,intrinsic --size 268435456 --workgroup 512 --items 8; } 2>&1 \
  | grep -E "BENCH|FAIL|SKIP" | cut -c1-140 | tee "$R/bench.log"
