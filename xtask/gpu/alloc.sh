#!/usr/bin/env bash
# Session 4, diagnosis: most processes read and wrote 1 GiB buffers at ~1.7 TB/s, and the tile
# scan slowed beyond 256 MiB buffers (gpu-allocator's block size: larger buffers get a block of
# their own). Same call, processes alternating: pooled (default) vs --dedicated-memory
# (VkMemoryDedicatedAllocateInfo for every device buffer).
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
nvidia-smi -q | grep -i -E -A4 "BAR1 Memory|FB Memory|Confidential|Compute Mode|Addressing Mode" | head -40 > "$R/smi.txt"
short() { grep -E "BENCH|FAIL|falling" | grep -v empty | sed -E "s/ +n=[0-9]+ +/ /" | cut -c1-160; }
red() { $B/02_reduce --bench --variant fast --op add --type f32 --iters 10 "$@" 2>&1 | short | sed "s/^/[reduce $*] /"; }
scan() { $B/03_scan --bench --inclusive --iters 10 --variant single-pass --type u32 "$@" 2>&1 | short | sed "s/^/[scan $*] /"; }
{ for i in 1 2 3 4; do
    red --size 268435456
    red --size 268435456 --dedicated-memory
  done
  for i in 1 2; do
    scan --size 134217728 --skip-lookback
    scan --size 134217728 --skip-lookback --dedicated-memory
    scan --size 268435456
    scan --size 268435456 --dedicated-memory
  done
  red --size 536870912
  red --size 536870912 --dedicated-memory; } | tee "$R/alloc.log"
