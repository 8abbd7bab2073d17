#!/usr/bin/env bash
# Session 3 on the H200: the striped single-pass scan with 64-bit tile states — correctness
# (--validate), driver statistics, tile shapes, look-back modes, the look-back-free ceiling;
# then the reduce at 2^20 timed alone and in batches of back-to-back runs.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,clocks_event_reasons.active --format=csv -lms 100 > "$R/clocks.csv" 2>&1 &
smi=$!
$B/03_scan --validate --variant single-pass > "$R/check.log" 2>&1; echo "03_scan single-pass --validate: exit $? | $(tail -1 "$R/check.log" | cut -c1-100)"
grep -E "falling|FAIL" "$R/check.log" | head -3
scan() { $B/03_scan --bench --inclusive --size 268435456 --iters 20 "$@" 2>&1 \
  | grep -E "BENCH|FAIL|SKIP|STATS|falling" | grep -v "empty dispatch" | sed "s/^/[$*] /" | cut -c1-230; }
{
  scan --type u32 --variant single-pass --pipeline-stats
  scan --type u32 --variant single-pass --skip-lookback
  scan --type u32 --variant single-pass --narrow-lookback
  scan --type u32 --variant single-pass --workgroup 512 --items 8
  scan --type u32 --variant single-pass --workgroup 256 --items 32 --pipeline-stats
  scan --type u32 --variant single-pass --workgroup 512 --items 16
  scan --type u32 --variant single-pass --workgroup 128 --items 16
  scan --type u32 --variant single-pass --workgroup 1024 --items 8
  scan --type u32 --variant single-pass --items 32 --skip-lookback
  scan --type u32 --variant single-pass,intrinsic
  scan --type f32 --variant single-pass
} | tee "$R/scan.log"
red() { $B/02_reduce --bench --variant fast --type f32 --op add --iters 50 "$@" 2>&1 \
  | grep -E "BENCH|FAIL|SKIP|STATS" | sed "s/^/[$*] /" | cut -c1-230; }
{
  red --size 1048576 --pipeline-stats
  red --size 1048576 --batch 10
  red --size 1048576 --fast-groups 132 --batch 1
  red --size 1048576 --fast-groups 132 --batch 10
  red --size 268435456
} | tee "$R/reduce.log"
kill $smi
echo "sm,mem clock when util>30%:"; awk -F', ' 'NR>1 && $4+0>30 {print $2, $3}' "$R/clocks.csv" | sort | uniq -c | sort -rn | head -5
