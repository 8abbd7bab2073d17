#!/usr/bin/env bash
# Session 3, third call: single-pass scan at 2^26 (where this machine's copy runs at full
# speed) and 2^28 (where 1 GiB buffers copy at ~1.7 TB/s): one workgroup per tile vs
# persistent, wide vs narrow look-back, and the look-back-free ceiling of each.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
scan() { $B/03_scan --bench --inclusive --iters 20 "$@" 2>&1 \
  | grep -E "BENCH|FAIL|falling" | grep -v "empty dispatch" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-200; }
for size in 67108864 268435456; do
  scan --size $size --type u32 --variant single-pass,intrinsic --groups 0
  scan --size $size --type u32 --variant single-pass --groups 0 --narrow-lookback
  scan --size $size --type u32 --variant single-pass --groups 0 --skip-lookback
  scan --size $size --type u32 --variant single-pass --groups 1024
  scan --size $size --type u32 --variant single-pass --groups 1024 --narrow-lookback
  scan --size $size --type u32 --variant single-pass --groups 1024 --skip-lookback
  scan --size $size --type u32 --variant single-pass --groups 0 --items 32
  scan --size $size --type u32 --variant single-pass --groups 0 --items 32 --narrow-lookback
done | tee "$R/sizes.log"
