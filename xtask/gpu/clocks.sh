#!/usr/bin/env bash
# Session 4, diagnosis: after >= 2 s of idle the 1 GiB copy ran at 1.66 TB/s and stayed there.
# nvidia-smi samples clocks, P-state and event reasons every 200 ms while the probe idles and
# works on a schedule; then the benches with a long pre-warm.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
nvidia-smi -q | grep -i -E "Persistence|Performance State|Power Limit|Clocks Event|Idle|Applications Clocks" -A1 | head -30 > "$R/smi_before.txt"
nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,power.draw,clocks_event_reasons.active,utilization.gpu,utilization.memory --format=csv -lms 200 > "$R/smi_trace.csv" 2>&1 &
SMI=$!
sleep 1
date +"probe start %T.%N" | tee "$R/probe.log"
$B/memory_probe --sizes 268435456 --pairs 1 --schedule-only --schedule i0,i3000,i0,b500,b1000,b2000,b4000,i0,i3000,b4000 2>&1 | grep -v "^type" | tee -a "$R/probe.log"
date +"probe end %T.%N" | tee -a "$R/probe.log"
short() { grep -E "BENCH|FAIL|falling" | grep -v empty | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-160; }
red() { $B/02_reduce --bench --variant fast --op add --type f32 --iters 20 "$@" 2>&1 | short | sed "s/^/[reduce $*] /"; }
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass "$@" 2>&1 | short | sed "s/^/[scan $*] /"; }
{ red --size 268435456 --prewarm-ms 3000
  scan --size 268435456 --type u32 --prewarm-ms 3000
  scan --size 268435456 --type f32 --prewarm-ms 3000; } | tee "$R/benches.log"
kill $SMI
grep -v "^timestamp" "$R/smi_trace.csv" | awk -F', ' '{print $2, $3, $4, $5, $6}' | uniq -c | head -60
