#!/usr/bin/env bash
# Session 3, diagnosis: at 2^28 even the look-back-free single pass ran at a third of the copy,
# at 2^26 at 88 %. Is it the number of workgroups (tiles) or the bytes? Tile sizes 4096, 8192,
# 16384 at 2^27 and 2^28, without and with the look-back.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass --type u32 "$@" 2>&1 | grep -E "BENCH|FAIL|falling" | grep -v "empty" | sed "s/^/[$*] /" | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-170; }
{ scan --size 134217728 --skip-lookback
  scan --size 268435456 --skip-lookback
  scan --size 268435456 --skip-lookback --items 32
  scan --size 268435456 --skip-lookback --workgroup 1024
  scan --size 268435456 --items 32
  scan --size 268435456 --workgroup 1024
  scan --size 134217728; } | tee "$R/wgcount.log"
