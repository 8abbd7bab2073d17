#!/usr/bin/env bash
# Session 3's last call: every sample with --validate at the final code, then the figures the
# chapters quote: the reduce at 2^20 (flagged partials vs memory barriers, alone and in
# batches) and 2^28, the scan at 2^26 and 2^28 (twice each: the per-process modes).
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
for s in 00_properties 01_hello_subgroup 02_reduce 03_scan; do
  $B/$s --validate > "$R/$s.log" 2>&1; echo "$s --validate: exit $? | $(tail -1 "$R/$s.log" | cut -c1-110)"
done
grep -h -E "falling|FAIL" "$R/03_scan.log" "$R/02_reduce.log" | head -3
red() { $B/02_reduce --bench --variant fast --type f32 --op add "$@" 2>&1 | grep -E "BENCH|FAIL" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-170; }
{
  red --size 1048576 --iters 200
  red --size 1048576 --iters 200 --fast-fences
  red --size 1048576 --iters 50 --batch 10
  red --size 1048576 --iters 50 --batch 10 --fast-fences
  red --size 1048576 --iters 200
  red --size 268435456 --iters 20
  red --size 67108864 --iters 20
} | tee "$R/reduce.log"
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass,intrinsic "$@" 2>&1 | grep -E "BENCH|FAIL|falling|SKIP" | grep -v "empty" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-170; }
{
  for i in 1 2; do
    scan --size 67108864 --type u32
    scan --size 268435456 --type u32
  done
  scan --size 67108864 --type f32
  scan --size 268435456 --type f32
} | tee "$R/scan.log"
