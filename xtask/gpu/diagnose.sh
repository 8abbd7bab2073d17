#!/usr/bin/env bash
# Is the H200 throttled or shared while we measure? Repeats the key benches, logging clocks,
# clock-event reasons and utilization every 100 ms. Results in $OUT/diagnose.tgz.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}/diag"; mkdir -p "$R"
nvidia-smi -q -d PERFORMANCE,CLOCK,POWER > "$R/smi_before.txt" 2>&1
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv > "$R/apps.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw,clocks_event_reasons.active --format=csv -lms 100 > "$R/clocks.csv" 2>&1 &
smi=$!
for i in 1 2 3; do
  $B/02_reduce --bench --variant fast --size 268435456 2>&1 | grep -E "BENCH|FAIL" | sed "s/^/[$i] /"
  $B/02_reduce --bench --variant fast --size 1048576 2>&1 | grep -E "BENCH|FAIL" | sed "s/^/[$i] /"
  $B/03_scan --bench --type u32 --inclusive --variant single-pass,intrinsic --size 268435456 2>&1 | grep -E "BENCH|FAIL|SKIP" | sed "s/^/[$i] /"
done 2>&1 | tee "$R/repeats.log" | cut -c1-140
for wi in "256 8" "512 16" "128 32" "1024 4"; do set -- $wi
  $B/03_scan --bench --type u32 --inclusive --variant single-pass --size 268435456 --workgroup $1 --items $2 2>&1 | grep -E "BENCH|FAIL|SKIP" | sed "s/^/wg=$1 items=$2 /"
done 2>&1 | tee "$R/scan_tiles.log" | cut -c1-140
$B/03_scan --bench --type f32 --inclusive --variant single-pass,intrinsic --size 268435456 2>&1 | grep -E "BENCH|FAIL" | tee "$R/scan_f32.log" | cut -c1-140
kill $smi
nvidia-smi -q -d PERFORMANCE > "$R/smi_after.txt" 2>&1
echo "event reasons seen:"; awk -F', ' 'NR>1 {print $6}' "$R/clocks.csv" | sort | uniq -c
echo "sm clock when util>50%:"; awk -F', ' 'NR>1 && $4+0>50 {print $2}' "$R/clocks.csv" | sort | uniq -c
tar -czf "${OUT:-/tmp/out}/diagnose.tgz" -C "$R" . && rm -rf "$R"
