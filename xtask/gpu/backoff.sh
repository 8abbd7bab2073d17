#!/usr/bin/env bash
# Session 3, fourth call: does spinning between polls (--backoff) relieve the look-back?
# Single-pass u32 at 2^26 and 2^28, one workgroup per tile unless --groups says otherwise.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass "$@" 2>&1 \
  | grep -E "BENCH|FAIL|falling|SKIP" | grep -v "empty dispatch" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-200; }
for size in 67108864 268435456; do
  for b in 0 32 128 512; do scan --size $size --type u32 --groups 0 --narrow-lookback --backoff $b; done
  for b in 0 128; do scan --size $size --type u32 --groups 0 --backoff $b; done
  scan --size $size --type u32 --groups 0 --narrow-lookback --backoff 128 --items 32
  scan --size $size --type u32 --groups 1024 --backoff 128
done | tee "$R/backoff.log"
