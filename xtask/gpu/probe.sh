#!/usr/bin/env bash
# Session 4, diagnosis: copy bandwidth per buffer pair, by memory type and allocation scheme
# (crates/harness/examples/memory_probe.rs, carried as .gpu/bin/memory_probe), in two
# processes; then the look-back-free tile scan at 2^27 in each DEVICE_LOCAL type.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
for p in 1 2; do $B/memory_probe 2>&1 | sed "s/^/[probe $p] /"; done | tee "$R/probe.log"
short() { grep -E "BENCH|FAIL|falling" | grep -v empty | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-160; }
scan() { $B/03_scan --bench --inclusive --iters 10 --variant single-pass --type u32 "$@" 2>&1 | short | sed "s/^/[scan $*] /"; }
for t in $(grep "^\[probe 1\] type" "$R/probe.log" | grep DEVICE_LOCAL | sed -E 's/.*type ([0-9]+):.*/\1/'); do
  for i in 1 2; do scan --size 134217728 --skip-lookback --memory-type $t; done
done | tee "$R/scan.log"
