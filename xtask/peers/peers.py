#!/usr/bin/env python3
"""Peer timings for the bench record: the samples' work done by the CUDA kernels PyTorch calls.

On an NVIDIA GPU with PyTorch, this script times with CUDA events the work the Vulkan samples
time (copy, reduce, scan, stream compaction, a 256-bin histogram, and GEMMs for 06_gemm), done
by PyTorch's kernels: CUB, cuBLAS, and ATen's own where PyTorch has no library call. It writes
one JSON document, which `cargo xtask bench --peers-run xtask/peers/peers.py` embeds in the bench
record as its "peers": xtask runs `python3 xtask/peers/peers.py --json FILE` right before the
samples, so that both are measured in one machine state. The report generator then puts each
peer row beside the sample row it stands for: a row's "sample" and "beside" are that sample's
name and its bench row's "variant", exactly as the sample prints them.

By hand:
    python3 xtask/peers/peers.py [--json FILE] [--only copy,reduce,scan,compact,histogram,gemm]
        [--sizes 20,22,24,26,28] [--gemm 1024,2048,4096,8192,4096x4096x256,8192x64x8192]
        [--reps 50] [--warmup 10]

Timing. The GPU first runs matrix products for CLOCK_WARM_UP_S seconds, so that its clocks have
left their idle state, as the samples' bench warms up before it measures. Then each operation
runs `--warmup` untimed calls and `--reps` timed ones, each timed call between its own pair of
CUDA events on the current stream; a row gives the median and the fastest. The events time the
stream from the start event to the end event. Where the GPU finishes a call before the host
has issued the next (small n), that interval includes the host's launch of the call's kernels,
and for the operations whose output size the host must learn first (x[x < t], torch.bincount)
the round trip that learns it; the samples' Vulkan timestamps, recorded in one command buffer,
include neither. Compare at large n. The inputs stay the same from call to call, as in the
samples, so a small input may stay in the GPU's cache in both.

Bytes are counted as the samples count them: copy 8n, reduce 4n, scan 8n, compaction 4n read
plus 4 bytes per kept element, histogram the keys' size × n. GB/s is bytes / median time; a
GEMM's TFLOP/s is 2·M·N·K / median time. The f32 GEMM runs with TF32 off (cuBLAS SGEMM).

Exit status: 0 with the rows printed (and written with --json); 3, with one line on stderr and
no JSON, where torch cannot be imported or sees no CUDA device; 1 on any other failure.
"""

import argparse
import json
import statistics
import sys
import time
import traceback

SCHEMA = "subgroup-suite-peers/1"
OPS = ("copy", "reduce", "scan", "compact", "histogram", "gemm")
DEFAULT_SIZES = "20,22,24,26,28"
DEFAULT_GEMM = "1024,2048,4096,8192,4096x4096x256,8192x64x8192"
DEV = "cuda"
# Seconds of GPU work before the first measurement: an idle GPU runs at low clocks.
CLOCK_WARM_UP_S = 1.0
# 04_compaction's f32 elements are u / SCALE for u uniform in 0..SCALE (harness::reference).
SCALE = 1_000_000
# The histogram's bins: the case the chapter on 05_atomics compares with torch.histc.
BINS = 256


class ArgumentParser(argparse.ArgumentParser):
    """argparse that exits with 1 on a bad command line, as on any failure but a missing GPU."""

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"peers: {message}", file=sys.stderr)
        sys.exit(1)


def positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def non_negative(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def op_list(text):
    ops = [op for op in text.split(",") if op]
    unknown = [op for op in ops if op not in OPS]
    if unknown or not ops:
        what = f"unknown {', '.join(unknown)}" if unknown else "no work named"
        raise argparse.ArgumentTypeError(f"{what} (known: {','.join(OPS)})")
    return set(ops)


def size_list(text):
    """Element counts from their log2s: "20,22" gives 2^20 and 2^22."""
    logs = [int(v) for v in text.split(",") if v]
    if not logs or any(not 0 <= v <= 30 for v in logs):
        raise argparse.ArgumentTypeError(f"{text}: log2 sizes from 0 to 30, comma-separated")
    return [1 << v for v in logs]


def gemm_list(text):
    """GEMM shapes as (M, N, K): "N" for N×N×N, or "MxNxK"."""
    shapes = []
    for shape in (s for s in text.split(",") if s):
        parts = shape.lower().split("x")
        if len(parts) not in (1, 3) or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise argparse.ArgumentTypeError(f"{shape}: a GEMM shape is N or MxNxK")
        dims = [int(p) for p in parts]
        shapes.append(tuple(dims * 3 if len(dims) == 1 else dims))
    return shapes


def parse_args(argv):
    ap = ArgumentParser(
        prog="peers.py",
        description="Time PyTorch's CUDA kernels (CUB, cuBLAS, ATen) on the samples' work, with CUDA events.",
    )
    ap.add_argument("--json", metavar="FILE", help="write the rows as JSON to FILE")
    ap.add_argument("--only", type=op_list, default=set(OPS), help=f"which work (default: {','.join(OPS)})")
    ap.add_argument(
        "--sizes", type=size_list, default=size_list(DEFAULT_SIZES),
        help=f"log2 of the streaming work's element counts (default: {DEFAULT_SIZES})",
    )
    ap.add_argument(
        "--gemm", type=gemm_list, default=gemm_list(DEFAULT_GEMM),
        help=f"GEMM shapes, N for N^3 or MxNxK (default: {DEFAULT_GEMM})",
    )
    ap.add_argument("--reps", type=positive, default=50, help="timed calls per row (default: 50)")
    ap.add_argument("--warmup", type=non_negative, default=10, help="untimed calls before them (default: 10)")
    return ap.parse_args(argv)


def load_torch():
    """torch with a CUDA device, or exit 3 with one line saying why not."""
    try:
        import torch
    except Exception as e:  # a missing module, or a torch whose libraries fail to load
        print(f"peers: torch cannot be imported ({type(e).__name__}: {e})", file=sys.stderr)
        sys.exit(3)
    if not torch.cuda.is_available():
        why = "CUDA unavailable" if torch.version.cuda else "built without CUDA"
        print(f"peers: no CUDA device (torch {torch.__version__}, {why})", file=sys.stderr)
        sys.exit(3)
    return torch


class Timer:
    """Times one operation with CUDA events and makes its row."""

    def __init__(self, torch, warmup, reps):
        self.torch = torch
        self.warmup = warmup
        self.reps = reps

    def time_us(self, fn):
        """Median and fastest of `reps` calls of fn, in µs, after `warmup` untimed calls."""
        for _ in range(self.warmup):
            fn()
        event = self.torch.cuda.Event
        pairs = [(event(enable_timing=True), event(enable_timing=True)) for _ in range(self.reps)]
        for start, end in pairs:
            start.record()
            fn()
            end.record()
        # Every end event has completed before its time is read.
        self.torch.cuda.synchronize()
        times = [start.elapsed_time(end) * 1e3 for start, end in pairs]  # elapsed_time is in ms
        return statistics.median(times), min(times)

    def row(self, fields, nbytes, flops, fn):
        median, fastest = self.time_us(fn)
        return {
            **fields,
            "bytes": nbytes,
            "flops": flops,
            "reps": self.reps,
            "median_us": round(median, 3),
            "min_us": round(fastest, 3),
            # bytes / µs / 1e3 is GB/s; flops / µs / 1e6 is TFLOP/s.
            "gbps": round(nbytes / median / 1e3, 2) if nbytes and median > 0 else None,
            "tflops": round(flops / median / 1e6, 3) if flops and median > 0 else None,
        }

    def stream(self, sample, beside, work, library, n, nbytes, fn):
        """A row of streaming work over n elements."""
        fields = {"sample": sample, "beside": beside, "work": work, "library": library, "n": n}
        return self.row(fields, nbytes, 0, fn)

    def gemm(self, beside, work, library, m, n, k, fn):
        """A row of an M×N×K GEMM (n is then the GEMM's N)."""
        fields = {"sample": "06_gemm", "beside": beside, "work": work, "library": library, "m": m, "n": n, "k": k}
        return self.row(fields, 0, 2 * m * n * k, fn)


def is_out_of_memory(torch, error):
    """Whether a RuntimeError is CUDA running out of memory, a failure rather than a refusal."""
    return isinstance(error, getattr(torch.cuda, "OutOfMemoryError", ()))


def warm_up_clocks(torch, seconds):
    """Keep the GPU busy for `seconds`, so that the first rows run at working clocks."""
    a = torch.randn(2048, 2048, device=DEV, dtype=torch.float16)
    c = torch.empty_like(a)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for _ in range(20):
            torch.mm(a, a, out=c)
        torch.cuda.synchronize()


def copy_rows(torch, timer, n):
    # 02_reduce's ceiling: copy_ between contiguous tensors of one dtype is a cudaMemcpyAsync.
    x = torch.rand(n, device=DEV)
    y = torch.empty_like(x)
    return [timer.stream("02_reduce", "copy (ceiling)", "y.copy_(x), f32", "CUDA memcpy", n, 8 * n, lambda: y.copy_(x))]


def reduce_rows(torch, timer, n):
    # torch.sum runs ATen's own reduction kernel (not CUB's DeviceReduce).
    x = torch.rand(n, device=DEV)
    # u32 stands as i32: CUDA sums of uint32 are not generally available, and the bits of a
    # wrapping 32-bit sum are the same. dtype=int32 keeps the sum from widening to i64.
    u = torch.randint(0, 16, (n,), device=DEV, dtype=torch.int32)
    return [
        timer.stream("02_reduce", "fast add f32", "torch.sum(x), f32", "ATen", n, 4 * n, lambda: torch.sum(x)),
        timer.stream(
            "02_reduce", "fast add u32", "torch.sum(x, dtype=torch.int32), i32", "ATen", n, 4 * n,
            lambda: torch.sum(u, dtype=torch.int32),
        ),
    ]


def scan_rows(torch, timer, n):
    # A 1-D cumsum is CUB's inclusive scan; the out tensors keep the result's type, without
    # which an integer cumsum widens to i64.
    x = torch.rand(n, device=DEV)
    y = torch.empty_like(x)
    u = torch.randint(0, 16, (n,), device=DEV, dtype=torch.int32)
    v = torch.empty_like(u)
    return [
        timer.stream(
            "03_scan", "single-pass inclusive f32", "torch.cumsum(x, 0, out=y), f32", "CUB", n, 8 * n,
            lambda: torch.cumsum(x, 0, out=y),
        ),
        timer.stream(
            "03_scan", "single-pass inclusive u32", "torch.cumsum(x, 0, dtype=torch.int32, out=y), i32", "CUB",
            n, 8 * n, lambda: torch.cumsum(u, 0, dtype=torch.int32, out=v),
        ),
    ]


def compact_rows(torch, timer, n):
    # The sample's select input: u / SCALE for u uniform in 0..SCALE, kept where below keep %
    # (harness::reference::compaction_input), so the same share is kept. x[x < t] runs ATen's
    # compare, a CUB-based nonzero that counts and lists the kept places, then a gather; the
    # host reads the count in between to size the output.
    x = torch.randint(0, SCALE, (n,), device=DEV, dtype=torch.int32).to(torch.float32).div_(SCALE)
    rows = []
    for keep in (10, 50):
        threshold = keep / 100
        kept = int((x < threshold).sum())
        rows.append(timer.stream(
            "04_compaction", f"single-pass select f32 keep {keep}%",
            f"x[x < {threshold}] (boolean-mask index), f32", "ATen + CUB", n, 4 * n + 4 * kept,
            lambda t=threshold: x[x < t],
        ))
    return rows


def histogram_rows(torch, timer, n):
    # 256 bins of uniform keys, beside 05_atomics' privatized shared-memory histogram. Both
    # torch calls run ATen's own histogram kernels.
    beside = f"histogram shared {BINS} bins uniform"
    x = torch.rand(n, device=DEV)
    rows = [timer.stream(
        "05_atomics", beside, f"torch.histc(x, bins={BINS}, min=0, max=1), f32 uniform in [0, 1)", "ATen",
        n, 4 * n, lambda: torch.histc(x, bins=BINS, min=0, max=1),
    )]
    del x
    keys = torch.randint(0, BINS, (n,), device=DEV, dtype=torch.int32)
    try:
        torch.bincount(keys, minlength=BINS)
        key_type = "i32"
    except RuntimeError as e:
        if is_out_of_memory(torch, e):
            raise
        # A torch whose CUDA bincount takes no i32 keys counts i64 ones, twice the bytes read.
        keys = keys.long()
        key_type = "i64"
    # bincount reads the keys' minimum and maximum back to the host before it counts.
    rows.append(timer.stream(
        "05_atomics", beside, f"torch.bincount(keys, minlength={BINS}), {key_type} keys uniform in 0..{BINS - 1}",
        "ATen", n, keys.element_size() * n, lambda: torch.bincount(keys, minlength=BINS),
    ))
    return rows


def gemm_rows(torch, timer, m, n, k):
    """sgemm, hgemm, bf16 and int8 GEMMs of A (M×K) by B (K×N), A and B random normal, each
    beside 06_gemm's row for its fastest configuration of that type ("best f32", ...)."""
    a = torch.randn(m, k, device=DEV)
    b = torch.randn(k, n, device=DEV)
    c = torch.empty(m, n, device=DEV)
    rows = [timer.gemm("best f32", "torch.mm(a, b), f32, TF32 off", "cuBLAS", m, n, k, lambda: torch.mm(a, b, out=c))]
    for dtype, beside, name in ((torch.float16, "best f16", "f16"), (torch.bfloat16, "best bf16", "bf16")):
        a_t, b_t = a.to(dtype), b.to(dtype)
        c_t = torch.empty(m, n, device=DEV, dtype=dtype)
        rows.append(timer.gemm(
            beside, f"torch.mm(a, b), {name} in, {name} out", "cuBLAS", m, n, k,
            lambda a_t=a_t, b_t=b_t, c_t=c_t: torch.mm(a_t, b_t, out=c_t),
        ))
        del a_t, b_t, c_t
    del a, b, c
    shape = f"{m}x{n}x{k}"
    # torch._int_mm (cuBLASLt, int8 in, int32 out) takes M above 16 and K, N multiples of 8;
    # a torch that refuses a shape anyway says so in a RuntimeError. B is held column-major
    # (the transpose of a row-major N×K): cuBLASLt's int8 kernels take A row-major and B
    # column-major, and a row-major B goes a slower way.
    if not hasattr(torch, "_int_mm"):
        print(f"peers: int8 gemm {shape} skipped: this torch has no torch._int_mm", file=sys.stderr)
    elif m <= 16 or k % 8 or n % 8:
        print(f"peers: int8 gemm {shape} skipped: torch._int_mm needs M > 16 and K, N multiples of 8", file=sys.stderr)
    else:
        a8 = torch.randint(-8, 8, (m, k), device=DEV, dtype=torch.int8)
        b8 = torch.randint(-8, 8, (n, k), device=DEV, dtype=torch.int8).t()
        try:
            rows.append(timer.gemm(
                "best int8", "torch._int_mm(a, b), int8 in, int32 out, B column-major", "cuBLASLt", m, n, k,
                lambda: torch._int_mm(a8, b8),
            ))
        except RuntimeError as e:
            if is_out_of_memory(torch, e):
                raise
            why = (str(e).strip().splitlines() or ["RuntimeError"])[0]
            print(f"peers: int8 gemm {shape} skipped: {why}", file=sys.stderr)
    return rows


STREAMING = (
    ("copy", copy_rows),
    ("reduce", reduce_rows),
    ("scan", scan_rows),
    ("compact", compact_rows),
    ("histogram", histogram_rows),
)


def measure(torch, args):
    """Every row the arguments ask for, in one document."""
    # cuBLAS SGEMM proper: without this, f32 matmuls may run on TF32 tensor cores.
    torch.backends.cuda.matmul.allow_tf32 = False
    timer = Timer(torch, args.warmup, args.reps)
    warm_up_clocks(torch, CLOCK_WARM_UP_S)
    rows = []
    streaming = [rows_of for op, rows_of in STREAMING if op in args.only]
    for n in args.sizes if streaming else []:
        for rows_of in streaming:
            rows += rows_of(torch, timer, n)
            # Each operation's tensors are gone here; hand their memory back before the next.
            torch.cuda.empty_cache()
    if "gemm" in args.only:
        for m, n, k in args.gemm:
            rows += gemm_rows(torch, timer, m, n, k)
            torch.cuda.empty_cache()
    version = torch.__version__.split("+")[0]
    return {
        "schema": SCHEMA,
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "label": f"PyTorch {version}, CUB/cuBLAS, CUDA events",
        "timer": (
            f"CUDA events around each call: {args.warmup} untimed calls, then {args.reps} timed ones, "
            f"median and fastest, after {CLOCK_WARM_UP_S:g} s of GPU work to raise the clocks"
        ),
        "rows": rows,
    }


def print_table(doc):
    print(f"{doc['device']}, torch {doc['torch']}, CUDA {doc['cuda']}")
    print(doc["timer"])
    print(f"{'work':<66} {'beside':<48} {'n or MxNxK':>15} {'median us':>11} {'GB/s':>8} {'TFLOP/s':>8}")
    for r in doc["rows"]:
        size = f"{r['m']}x{r['n']}x{r['k']}" if "m" in r else str(r["n"])
        gbps = f"{r['gbps']:8.1f}" if r["gbps"] is not None else f"{'':8}"
        tflops = f"{r['tflops']:8.2f}" if r["tflops"] is not None else f"{'':8}"
        beside = f"{r['sample']}: {r['beside']}"
        print(f"{r['work']:<66} {beside:<48} {size:>15} {r['median_us']:11.2f} {gbps} {tflops}")


def main(argv=None):
    args = parse_args(argv)
    torch = load_torch()
    try:
        doc = measure(torch, args)
        print_table(doc)
        if args.json:
            # Serialized first, so that a document that cannot be written whole leaves no file.
            text = json.dumps(doc, indent=1, allow_nan=False) + "\n"
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(text)
    except Exception as e:  # anything but a missing torch or GPU is a failure of the run
        traceback.print_exc()
        print(f"peers: failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
