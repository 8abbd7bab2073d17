#!/usr/bin/env bash
# Session 4, diagnosis: the tile scan ran at 94 % of copy at 2^27 with its buffers in memory
# type 4 (DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT) and at 22-24 % in type 1 (DEVICE_LOCAL,
# gpu-allocator's pick). The benches at 2^28 in each, processes alternating.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
short() { grep -E "BENCH|FAIL|falling" | grep -v empty | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-160; }
red() { $B/02_reduce --bench --variant fast --op add --type f32 --iters 20 "$@" 2>&1 | short | sed "s/^/[reduce $*] /"; }
scan() { $B/03_scan --bench --inclusive --iters 20 --variant single-pass,reduce-then-scan "$@" 2>&1 | short | sed "s/^/[scan $*] /"; }
{ for i in 1 2; do
    red --size 268435456 --memory-type 1
    red --size 268435456 --memory-type 4
  done
  for i in 1 2; do
    scan --size 268435456 --type u32 --memory-type 1
    scan --size 268435456 --type u32 --memory-type 4
  done
  scan --size 268435456 --type f32 --memory-type 4
  scan --size 67108864 --type u32 --memory-type 4; } | tee "$R/memtype.log"
