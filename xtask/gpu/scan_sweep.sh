#!/usr/bin/env bash
# Single-pass scan at 2^28 u32 on the H200: tile shapes × how tiles are claimed (atomic counter
# vs workgroup ID). Prints copy and single-pass rows; clock samples tell the GPU's state.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv -lms 100 > "$R/clocks.csv" 2>&1 &
smi=$!
for claim in "" "--tile-by-workgroup-id"; do
  for wi in "256 16" "1024 4" "128 16" "512 8"; do set -- $wi
    $B/03_scan --bench --type u32 --inclusive --variant single-pass --size 268435456 --workgroup $1 --items $2 $claim 2>&1 \
      | grep -E "BENCH|FAIL|SKIP|falling" | sed "s/^/wg=$1 items=$2 ${claim:-atomic} /" | cut -c1-170
  done
done | tee "$R/scan_sweep.log"
kill $smi
echo "sm clock when util>30%:"; awk -F', ' 'NR>1 && $3+0>30 {print $2}' "$R/clocks.csv" | sort | uniq -c
