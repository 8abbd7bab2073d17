#!/usr/bin/env bash
# A/B on the H200: single-pass look-back with and without the one-invocation pre-wait,
# alternating in separate processes (each prints its own copy ceiling).
set -u
source "$(dirname "$0")/setup.sh"
for round in 1 2; do for flag in "" "--no-prewait"; do
  $B/03_scan --bench --inclusive --type u32 --variant single-pass --size 268435456 --workgroup 512 --items 8 --iters 30 $flag 2>&1 \
    | grep -E "BENCH|FAIL|SKIP" | sed "s/^/[${flag:-prewait}] /" | cut -c1-150
done; done | tee "${OUT:-/tmp}/prewait.log"
