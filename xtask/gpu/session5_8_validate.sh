#!/usr/bin/env bash
# Session 5, call 8: after removing --oracle-aggregates and --tile-order (c413381): every
# sample's default run and 03's alternate paths with --validate, and the single pass at 2^28.
set -u
source "$(dirname "$0")/setup.sh"
R="${OUT:-/tmp/out}"; mkdir -p "$R"
v() { $B/$1 --validate "${@:2}" 2>&1 | tail -1 | sed "s/^/[$* --validate] /"; }
{ for s in 00_properties 01_hello_subgroup 02_reduce 03_scan; do v $s; done
  v 03_scan --variant single-pass --wide-lookback
  v 03_scan --variant single-pass --lookback-subgroup --workgroup 256
  $B/03_scan --bench --inclusive --type u32 --iters 20 --variant single-pass --size 268435456 2>&1 \
    | grep -E "BENCH (copy|singlepass)|FAIL|SKIP" | cut -c1-150; } | tee "$R/validate.log"
