#!/usr/bin/env bash
# Single-pass scan at 2^28 on the H200: look-back window (workgroup-wide vs one subgroup) and
# tile shapes, after a --validate correctness run. Prints copy and single-pass rows; clock
# samples tell the GPU's state.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv -lms 100 > "$R/clocks.csv" 2>&1 &
smi=$!
$B/03_scan --validate > "$R/check.log" 2>&1; echo "03_scan --validate: exit $? | $(tail -1 "$R/check.log" | cut -c1-120)"
grep -E "falling|FAIL" "$R/check.log" | head -3
run() { $B/03_scan --bench --inclusive --variant single-pass,intrinsic --size 268435456 "$@" 2>&1 \
  | grep -E "BENCH|FAIL|SKIP|falling" | sed "s/^/[$*] /" | cut -c1-175; }
{
  run --type u32 --narrow-lookback
  run --type u32
  run --type u32 --workgroup 512 --items 8
  run --type u32 --workgroup 1024 --items 4
  run --type u32 --workgroup 128 --items 16
  run --type f32
} | tee "$R/scan_sweep.log"
kill $smi
echo "sm clock when util>30%:"; awk -F', ' 'NR>1 && $3+0>30 {print $2}' "$R/clocks.csv" | sort | uniq -c
