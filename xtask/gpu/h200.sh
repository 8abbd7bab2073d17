#!/usr/bin/env bash
# Runs on the lent NVIDIA H200 (the workplace's `device` tool), from the project root, after
# `bash ../shared/gpu/bundle.sh --with-validation` prepared .gl/ (Vulkan loader, validation
# layer) and .gpu/ (stripped release binaries + glsl/). Correctness first (with validation),
# then the benches. Logs and JSON go to $OUT (at most 8 files come back).
# Usage: bash xtask/gpu/h200.sh [SAMPLE...]   (default: every sample found in .gpu/bin)
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export SUBGROUP_GLSL_DIR="$PWD/.gpu/glsl"
B=.gpu/bin
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv; } > "$OUT/env.txt" 2>&1
samples=${*:-$(ls $B)}
for s in $samples; do
  case $s in
    00_properties)
      $B/00_properties --validate 2>&1 | tee "$OUT/00_properties.log"; echo "exit ${PIPESTATUS[0]}" | tee -a "$OUT/00_properties.log"
      $B/00_properties --json > "$OUT/00_properties.json" 2>/dev/null ;;
    01_hello_subgroup)
      $B/01_hello_subgroup --validate 2>&1 | tee "$OUT/01_hello_subgroup.log"; echo "exit ${PIPESTATUS[0]}" | tee -a "$OUT/01_hello_subgroup.log" ;;
    02_reduce)
      { $B/02_reduce --validate; echo "exit $?"; $B/02_reduce --validate --size 4194307 --variant fast; echo "exit $?"; } > "$OUT/02_reduce_check.log" 2>&1
      grep -E "FAIL|SKIP|02_reduce:|exit|validation" "$OUT/02_reduce_check.log" | tail -8
      $B/02_reduce --bench --json > "$OUT/02_reduce_bench.json" 2> "$OUT/02_reduce_bench.log"; echo "bench exit $?"
      grep -E "BENCH (copy|fast)|FAIL" "$OUT/02_reduce_bench.log" | tail -8
      tail -6 "$OUT/02_reduce_bench.log"
      # The fast variant's two knobs at n = 2^28 and 2^20: workgroups and loads in flight.
      for g in 1056 2112 4224 8448; do for u in 2 4 8; do
        $B/02_reduce --bench --variant fast --size 268435456 --fast-groups $g --fast-unroll $u 2>&1 | grep -E "BENCH fast|FAIL" | sed "s/^/g=$g u=$u /"
      done; done > "$OUT/02_reduce_sweep.log"
      for g in 256 1024 2112; do for u in 1 2 4; do
        $B/02_reduce --bench --variant fast --size 1048576 --fast-groups $g --fast-unroll $u 2>&1 | grep -E "BENCH fast|FAIL" | sed "s/^/g=$g u=$u /"
      done; done >> "$OUT/02_reduce_sweep.log"
      sort -t'=' -k1,1 "$OUT/02_reduce_sweep.log" | awk '{print}' | tail -30 ;;
    *)
      $B/$s --validate > "$OUT/$s.log" 2>&1; echo "$s exit $?"
      $B/$s --bench --json > "$OUT/${s}_bench.json" 2>> "$OUT/$s.log"; echo "$s bench exit $?"
      grep -E "BENCH|FAIL" "$OUT/$s.log" | tail -20 ;;
  esac
done
