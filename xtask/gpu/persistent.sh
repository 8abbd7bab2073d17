#!/usr/bin/env bash
# Session 3, second call: the persistent, pipelined single-pass scan — correctness, shapes,
# workgroup counts, look-back modes, the look-back-free ceiling; and the copy ceiling at
# several sizes in one process (is the 1.7 TB/s state size-dependent?).
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
$B/03_scan --validate --variant single-pass > "$R/check.log" 2>&1; echo "03_scan single-pass --validate: exit $? | $(tail -1 "$R/check.log" | cut -c1-100)"
grep -E "falling|FAIL" "$R/check.log" | head -3
scan() { $B/03_scan --bench --inclusive --size 268435456 --iters 20 "$@" 2>&1 \
  | grep -E "BENCH|FAIL|SKIP|STATS|falling" | grep -v "empty dispatch" | sed "s/^/[$*] /" | sed -E "s/Binary Size.*Shared/… Shared/" | cut -c1-230; }
{
  scan --type u32 --variant single-pass --pipeline-stats
  scan --type u32 --variant single-pass --skip-lookback
  scan --type u32 --variant single-pass --narrow-lookback
  scan --type u32 --variant single-pass --groups 528
  scan --type u32 --variant single-pass --groups 2048
  scan --type u32 --variant single-pass --items 32 --pipeline-stats
  scan --type u32 --variant single-pass --items 32 --skip-lookback
  scan --type u32 --variant single-pass --items 8
  scan --type u32 --variant single-pass --workgroup 512 --items 16
  scan --type u32 --variant single-pass --workgroup 128 --items 16
  scan --type f32 --variant single-pass
} | tee "$R/scan.log"
for p in 22 24 26 28; do $B/02_reduce --bench --variant fast --type f32 --op add --iters 20 --size $((1<<p)) 2>&1 | grep -E "copy|fast" | sed "s/^/[2^$p] /"; done | tee "$R/sizes.log"
