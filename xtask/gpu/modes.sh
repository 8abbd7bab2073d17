#!/usr/bin/env bash
# Session 3, extra call: the same 2^28 benches in several processes (each process lands in a
# fast or a slow memory state for its 1 GiB buffers), and scan shapes at 2^26.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
red() { $B/02_reduce --bench --variant fast --type f32 --op add --iters 20 "$@" 2>&1 | grep -E "BENCH (copy|fast)|FAIL" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-170; }
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass "$@" 2>&1 | grep -E "BENCH|FAIL|falling" | grep -v "empty" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-170; }
{ for i in 1 2 3 4; do red --size 268435456; done; } | tee "$R/reduce_modes.log"
{ for i in 1 2 3; do scan --size 268435456 --type u32; done
  scan --size 67108864 --type u32 --skip-lookback
  scan --size 67108864 --type u32 --narrow-lookback
  scan --size 67108864 --type u32 --workgroup 1024 --items 32
  scan --size 67108864 --type u32 --workgroup 512 --items 16
  scan --size 67108864 --type u32 --no-prewait; } | tee "$R/scan_modes.log"
