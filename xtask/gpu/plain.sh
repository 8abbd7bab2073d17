#!/usr/bin/env bash
# Session 3, fifth call: atomic vs plain 8-byte loads of the tile states, with and without a
# pause between polls and the one-lane pre-wait; one workgroup per tile.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass "$@" 2>&1 \
  | grep -E "BENCH|FAIL|falling|SKIP" | grep -v "empty dispatch" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-200; }
for size in 67108864 268435456; do
  for look in --narrow-lookback --wide; do
    [ $look = --wide ] && look=""
    scan --size $size --type u32 --groups 0 $look
    scan --size $size --type u32 --groups 0 $look --plain-state-loads
    scan --size $size --type u32 --groups 0 $look --plain-state-loads --backoff 32
    scan --size $size --type u32 --groups 0 $look --plain-state-loads --no-prewait
  done
  scan --size $size --type u32 --groups 1024 --plain-state-loads
done | tee "$R/plain.log"
