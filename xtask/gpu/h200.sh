#!/usr/bin/env bash
# Runs on the lent NVIDIA H200 (the workplace's `device` tool), from the project root, after
# `bash ../shared/gpu/bundle.sh --with-validation` prepared .gl/ (Vulkan loader, validation
# layer) and .gpu/ (stripped release binaries + glsl/). For each sample: correctness with
# validation, then the bench. Everything lands in $OUT/results.tgz (one file comes back), and a
# summary is printed. GPU clocks are logged every 250 ms to tell throttling from slow code.
# Usage: [CHECK=0] bash xtask/gpu/h200.sh [SAMPLE...]   (default: every sample in .gpu/bin;
#        CHECK=0 skips the --validate runs)
set -u
source "$(dirname "$0")/setup.sh"
OUT=${OUT:-/tmp/out}
R="$OUT/run"
mkdir -p "$R"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv; } > "$R/env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,temperature.gpu --format=csv -lms 250 > "$R/clocks.csv" 2>&1 &
smi=$!
for s in ${*:-$(ls $B)}; do
  if [ "${CHECK:-1}" = 1 ]; then
    $B/$s --validate > "$R/${s}_check.log" 2>&1
    echo "$s --validate: exit $? | $(tail -1 "$R/${s}_check.log" | cut -c1-150)"
    grep -E "^FAIL|^SKIP|falling back|VUID|SYNC-" "$R/${s}_check.log" | cut -c1-200 | head -5
  fi
  case $s in
    00_properties) $B/00_properties > "$R/00_properties.txt" 2>&1; $B/00_properties --json > "$R/00_properties.json" 2>/dev/null ;;
    01_hello_subgroup) ;;
    *)
      $B/$s --bench --json > "$R/${s}_bench.json" 2> "$R/${s}_bench.log"
      echo "$s --bench: exit $?"
      grep -E "n=(1048576|268435456) " "$R/${s}_bench.log" | grep BENCH | cut -c1-130 ;;
  esac
done
# Extra runs a sample asks for (tuning sweeps), if present.
[ -f xtask/gpu/extra.sh ] && bash xtask/gpu/extra.sh "$B" "$R" 2>&1 | tail -40
kill $smi 2>/dev/null
echo "clocks (sm MHz, mem MHz) seen: $(awk -F', ' 'NR>1 {print $2"/"$3}' "$R/clocks.csv" | sort | uniq -c | sort -rn | head -5 | tr '\n' ' ')"
tar -czf "$OUT/results.tgz" -C "$R" . && rm -rf "$R"
