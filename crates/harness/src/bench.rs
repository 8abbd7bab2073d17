//! GPU timing with timestamp queries, and the copy kernel that gives the bandwidth ceiling.

use anyhow::{Context as _, Result};
use serde::Serialize;
use std::sync::Mutex;
use std::time::Duration;
use vk_compute::{Barrier, Buffer, Context, Kernel, KernelDesc, Recorder};

/// Per-repetition GPU times of one measurement, warm-up excluded.
#[derive(Clone, Debug)]
pub struct GpuTimes {
    pub ns: Vec<f64>,
}

impl GpuTimes {
    pub fn median_ns(&self) -> f64 {
        let mut v = self.ns.clone();
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }

    pub fn min_ns(&self) -> f64 {
        self.ns.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

/// How a measurement repeats: `warmup` untimed repetitions, then `iters` timed ones; each
/// timed one runs the work `batch` times back to back between its two timestamps and counts
/// the interval divided by `batch`. `batch` 1 is the GPU time of one isolated run, timestamp
/// and pipeline-drain costs included; a larger batch gives the time per run in a stream of
/// dependent runs (each still ordered after the previous by a barrier).
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub warmup: u32,
    pub iters: u32,
    pub batch: u32,
}

/// Time `record` (which records one run of the work) as `timing` says, all repetitions in one
/// command buffer, after a [`warm_up`]; returns the per-run time of each
/// timed repetition.
pub fn time_gpu<'r>(
    ctx: &Context,
    timing: &Timing,
    record: impl FnMut(&mut Recorder<'_, 'r>) -> Result<()>,
) -> Result<GpuTimes> {
    warm_up(ctx, MAX_WARM_UP)?;
    time_runs(ctx, timing, record)
}

/// [`time_gpu`] without the warm-up.
fn time_runs<'r>(
    ctx: &Context,
    timing: &Timing,
    mut record: impl FnMut(&mut Recorder<'_, 'r>) -> Result<()>,
) -> Result<GpuTimes> {
    let reps = timing.warmup + timing.iters.max(1);
    let batch = timing.batch.max(1);
    let mut rec = Recorder::with_timestamps(ctx, 2 * reps)?;
    let mut pairs = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        // Each run reads and writes the same buffers: order it after the previous one, so
        // the timestamps bracket exactly this repetition's runs.
        rec.barrier(Barrier::ComputeToCompute);
        let start = rec.timestamp()?;
        for run in 0..batch {
            if run > 0 {
                // Runs within a batch are ordered too.
                rec.barrier(Barrier::ComputeToCompute);
            }
            record(&mut rec)?;
        }
        let end = rec.timestamp()?;
        pairs.push((start, end));
    }
    let stamps = rec.submit_and_wait().context("timed submission")?;
    let ns = pairs[timing.warmup as usize..].iter().map(|&(s, e)| stamps.between(s, e) / f64::from(batch)).collect();
    Ok(GpuTimes { ns })
}

/// The sizes a `--bench` run measures: `size` if given, else 2^10, 2^12, … 2^28 elements of 4
/// bytes that fit one buffer on this device, and the largest that fits if that is not a
/// power of four (lavapipe: 2^25).
pub fn bench_sizes(ctx: &Context, size: Option<u64>) -> Vec<u64> {
    if let Some(n) = size {
        return vec![n];
    }
    let max_n = largest_size(ctx, 4).min(1 << 28);
    let mut sizes: Vec<u64> = (10..=28).step_by(2).map(|p| 1u64 << p).filter(|&n| n <= max_n).collect();
    let top = 1u64 << max_n.ilog2();
    if sizes.last() != Some(&top) {
        sizes.push(top);
    }
    sizes
}

/// The most elements of `elem_bytes` bytes one storage buffer holds on this device (32-bit
/// indices).
pub fn largest_size(ctx: &Context, elem_bytes: u64) -> u64 {
    (ctx.caps().max_storage_buffer_range / elem_bytes).min(u64::from(u32::MAX))
}

/// The name a value has on the command line (`single-pass` for `Variant::SinglePass`), so that
/// output and JSON name variants as the flags do.
pub fn value_name<T: clap::ValueEnum>(value: T) -> String {
    value.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
}

/// The entry for `n` in a table of (largest n, entry) sorted by size: pipelines chosen by input
/// size (03's tiles by n, 04's depths). `None` past the last row.
pub fn for_size<T>(table: &[(u64, T)], n: u64) -> Option<&T> {
    table.iter().find(|(max_n, _)| n <= *max_n).map(|(_, entry)| entry)
}

/// Shader `#define`s with numeric values, as a `KernelDesc` takes them.
pub fn numeric_defines(defines: &[(&'static str, u32)]) -> Vec<(&'static str, String)> {
    defines.iter().map(|&(name, value)| (name, value.to_string())).collect()
}

/// The chosen values, or all of them when none was chosen (a flag given no values).
pub fn or_all<T: Copy>(chosen: &[T], all: &[T]) -> Vec<T> {
    if chosen.is_empty() {
        all.to_vec()
    } else {
        chosen.to_vec()
    }
}

/// A sample's `--bench` state: how to time, and the copy ceiling of the size being measured.
/// The loop every sample runs: [`Bench::start`] once, then per size [`Bench::copy_ceiling`], and
/// per variant [`Bench::time_if`] before the checked run and [`Timed::row`] after it.
pub struct Bench {
    timing: Timing,
    copy_gbps: Option<f64>,
}

impl Bench {
    /// `None` without `--bench`; with it, the warm-up and the empty-dispatch floor rows first.
    pub fn start(ctx: &Context, common: &crate::CommonArgs, report: &mut crate::Report) -> Result<Option<Self>> {
        if !common.bench {
            return Ok(None);
        }
        let timing = common.timing();
        start_bench(ctx, &timing, report)?;
        Ok(Some(Bench { timing, copy_gbps: None }))
    }

    /// Measure the copy kernel over `bytes` (read + write): the ceiling row of this size.
    pub fn copy_ceiling(&mut self, ctx: &Context, bytes: u64, report: &mut crate::Report) -> Result<()> {
        let row = copy_ceiling(ctx, bytes, &self.timing)?;
        self.copy_gbps = Some(row.gbps);
        report.bench_row(row);
        Ok(())
    }

    /// Time `record` (which records one run of the work), as `--iters` and `--batch` say.
    pub fn time<'r>(&self, ctx: &Context, record: impl FnMut(&mut Recorder<'_, 'r>) -> Result<()>) -> Result<GpuTimes> {
        time_gpu(ctx, &self.timing, record)
    }

    /// [`Bench::time`] where `bench` is `Some` (with `--bench`); `None` without it. Each sample
    /// times its work this way before the checked run.
    pub fn time_if<'r>(
        bench: Option<&Self>,
        ctx: &Context,
        record: impl FnMut(&mut Recorder<'_, 'r>) -> Result<()>,
    ) -> Result<Option<Timed>> {
        bench.map(|b| Ok(Timed { times: b.time(ctx, record)?, copy_gbps: b.copy_gbps })).transpose()
    }
}

/// One variant's times, with the copy ceiling measured before them in the same run: what
/// [`Bench::time_if`] gives, and the variant's row once its checked run has passed.
pub struct Timed {
    pub times: GpuTimes,
    copy_gbps: Option<f64>,
}

impl Timed {
    /// The variant's row: GB/s from the `bytes` the work must move, % of the copy.
    pub fn row(&self, report: &mut crate::Report, variant: &str, n: u64, bytes: u64) {
        report.bench_row(BenchRow::new(variant, n, bytes, 0, &self.times, self.copy_gbps));
    }
}

/// The sizes a sample runs: `--size` if given; with `--bench` the [`bench_sizes`]; else
/// `defaults` that fit one buffer of 4-byte elements.
pub fn run_sizes(ctx: &Context, common: &crate::CommonArgs, defaults: &[u64]) -> Vec<u64> {
    match (common.size, common.bench) {
        (Some(n), _) => vec![n],
        (None, true) => bench_sizes(ctx, None),
        (None, false) => defaults.iter().copied().filter(|&n| n <= largest_size(ctx, 4)).collect(),
    }
}

/// The start of every bench: warm the GPU up (the fastest clock probe is the first row), then
/// time an empty dispatch as the floor row.
pub fn start_bench(ctx: &Context, timing: &Timing, report: &mut crate::Report) -> Result<()> {
    report.bench_row(warm_up_for(ctx, MAX_WARM_UP)?);
    report.bench_row(empty_dispatch(ctx, timing)?);
    Ok(())
}

/// The floor of any measurement: one workgroup of the copy kernel with nothing to copy,
/// timed like the samples' kernels.
pub fn empty_dispatch(ctx: &Context, timing: &Timing) -> Result<BenchRow> {
    let src = Buffer::<[u32; 4]>::new(ctx, "empty src", 1)?;
    let dst = Buffer::<[u32; 4]>::new(ctx, "empty dst", 1)?;
    let kernel = Kernel::new(ctx, &copy_desc())?;
    let times = time_gpu(ctx, timing, |rec| rec.dispatch(&kernel, &[src.binding(), dst.binding()], &0u32, [1, 1, 1]))?;
    Ok(BenchRow::new("empty dispatch (floor)", 0, 0, 0, &times, None))
}

/// The longest warm-up: an H200 whose SM clock fell to 345 MHz after ≥ 2 s idle took about
/// 2.5 s of steady copies to return to 1980 MHz (nvidia-smi samples, docs/src/02_reduce.md).
const MAX_WARM_UP: Duration = Duration::from_secs(4);
/// On a CPU device (lavapipe) there is no idle clock to leave (and the probe's time varies by
/// more than 3 % from run to run): the first warm-up only runs long enough to exercise its code
/// and the validation layer on it, the others probe once.
const FIRST_WARM_UP_CPU: Duration = Duration::from_millis(100);

/// The fastest clock-probe time seen in this process, per device index.
static FASTEST_PROBE_NS: Mutex<Vec<(usize, f64)>> = Mutex::new(Vec::new());

/// Record `ns` for this device; returns the fastest before it (None: the first probe).
fn note_probe(ctx: &Context, ns: f64) -> Option<f64> {
    let mut fastest = FASTEST_PROBE_NS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let device = ctx.caps().index;
    let before = fastest.iter().find(|(d, _)| *d == device).map(|&(_, f)| f);
    fastest.retain(|(d, _)| *d != device);
    fastest.push((device, before.map_or(ns, |f| f.min(ns))));
    before
}

/// Bring the GPU back to full clock before a measurement: after a second or two without work
/// (the CPU preparing an input) an H200 drops its SM clock to 345 MHz and needs seconds of
/// steady work to raise it again. A clock probe (a chain of dependent multiply-adds) is timed
/// first; if it runs within 3 % of the fastest probe this process has seen on this device, the
/// clock is up and nothing else happens (~10 µs of GPU time). Otherwise the GPU copies 64 MiB
/// buffers, 256 copies per submission so that it is busy > 95 % of the time, and probes again,
/// for at most `max`. The first call of a process runs all of `max` (see [`warm_up_for`]).
pub fn warm_up(ctx: &Context, max: Duration) -> Result<()> {
    warm_up_until(ctx, max, false).map(|_| ())
}

/// Keep the GPU busy for all of `duration`: the first warm-up of a process, which finds the
/// fastest probe time that [`warm_up`] then waits for. Returns that probe time as a bench row.
pub fn warm_up_for(ctx: &Context, duration: Duration) -> Result<BenchRow> {
    warm_up_until(ctx, duration, true)
}

fn warm_up_until(ctx: &Context, max: Duration, full_duration: bool) -> Result<BenchRow> {
    let cpu = ctx.caps().is_cpu();
    let max = match (cpu, full_duration) {
        (true, true) => max.min(FIRST_WARM_UP_CPU),
        (true, false) => Duration::ZERO,
        (false, _) => max,
    };
    // 16 Ki invocations × 4096 steps: ~10 µs at 1980 MHz, ~50 µs at 345 MHz on an H200.
    let (probe_invocations, probe_steps): (u32, u32) = (16384, if cpu { 16 } else { 4096 });
    let sink = Buffer::<f32>::new(ctx, "clock probe sink", probe_invocations as usize)?;
    let probe = Kernel::new(ctx, &clock_probe_desc()).context("clock probe kernel")?;
    let probe_timing = Timing { warmup: 1, iters: 3, batch: 1 };
    let mut load: Option<WarmUpLoad> = None;
    let start = std::time::Instant::now();
    loop {
        let ns = time_runs(ctx, &probe_timing, |rec| {
            rec.dispatch(&probe, &[sink.binding()], &probe_steps, [probe_invocations / PROBE_WORKGROUP, 1, 1])
        })?
        .median_ns();
        let fastest_before = note_probe(ctx, ns);
        let at_full_clock = fastest_before.is_some_and(|fastest| ns <= fastest * 1.03);
        let first_of_process = fastest_before.is_none();
        if (at_full_clock && !full_duration) || start.elapsed() >= max {
            if !at_full_clock && !full_duration && !first_of_process && !cpu {
                crate::out(format!(
                    "note: the GPU's clock probe still takes {:.1} µs after {:.1} s of warm-up (fastest {:.1} µs): the next measurement may be slow",
                    ns / 1e3,
                    max.as_secs_f64(),
                    fastest_before.unwrap_or(ns) / 1e3
                ));
            }
            let fastest = fastest_before.map_or(ns, |f| f.min(ns));
            let row_times = GpuTimes { ns: vec![fastest] };
            return Ok(BenchRow::new("warm-up clock probe, fastest", 0, 0, 0, &row_times, None));
        }
        if load.is_none() {
            load = Some(WarmUpLoad::new(ctx, cpu)?);
        }
        if let Some(load) = &load {
            load.run(ctx)?;
        }
    }
}

/// The warm-up's load: copies between two scratch buffers, many per submission.
struct WarmUpLoad<'c> {
    src: Buffer<'c, [u32; 4]>,
    dst: Buffer<'c, [u32; 4]>,
    copy: Kernel<'c>,
    copies: u32,
}

impl<'c> WarmUpLoad<'c> {
    fn new(ctx: &'c Context, cpu: bool) -> Result<Self> {
        // 64 MiB per buffer, past the L2, so the copies use DRAM; 256 copies (~8 ms on an
        // H200) per submission keep the GPU busy between submissions. Small on a CPU device.
        let (vec4s, copies) = if cpu { (1 << 16, 4) } else { (4 << 20, 256) };
        let src = Buffer::<[u32; 4]>::new(ctx, "warm-up src", vec4s)?;
        let dst = Buffer::<[u32; 4]>::new(ctx, "warm-up dst", vec4s)?;
        let copy = Kernel::new(ctx, &copy_desc()).context("warm-up copy kernel")?;
        let mut rec = Recorder::new(ctx)?;
        rec.fill(&src, 0);
        // The fill lands before the copies read `src`.
        rec.barrier(Barrier::TransferToCompute);
        rec.submit_and_wait().context("warm-up fill")?;
        Ok(Self { src, dst, copy, copies })
    }

    fn run(&self, ctx: &Context) -> Result<()> {
        let n = self.src.len() as u32;
        let mut rec = Recorder::new(ctx)?;
        for _ in 0..self.copies {
            rec.dispatch(&self.copy, &[self.src.binding(), self.dst.binding()], &n, [copy_groups(n.into()), 1, 1])?;
            // Successive copies write the same buffer: keep them ordered.
            rec.barrier(Barrier::ComputeToCompute);
        }
        rec.submit_and_wait().context("warm-up copies")?;
        Ok(())
    }
}

const PROBE_WORKGROUP: u32 = 64;
const COPY_WORKGROUP: u32 = 256;

/// Workgroups of the grid-stride copy over `vec4s` vectors: one vector per invocation, at most
/// 32768 workgroups (each then loops).
fn copy_groups(vec4s: u64) -> u32 {
    vec4s.div_ceil(u64::from(COPY_WORKGROUP)).clamp(1, 32768) as u32
}

fn clock_probe_desc() -> KernelDesc<'static> {
    KernelDesc {
        shader: "common/clock_probe.comp",
        buffers: 1,
        push_constant_bytes: 4,
        workgroup_size: PROBE_WORKGROUP,
        ..Default::default()
    }
}

fn copy_desc() -> KernelDesc<'static> {
    KernelDesc {
        shader: "common/copy.comp",
        buffers: 2,
        push_constant_bytes: 4,
        workgroup_size: COPY_WORKGROUP,
        ..Default::default()
    }
}

/// One row of a bench table: GB/s from the fewest bytes the work must move.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub variant: String,
    pub n: u64,
    pub bytes: u64,
    pub flops: u64,
    pub reps: usize,
    pub median_ns: f64,
    pub min_ns: f64,
    pub gbps: f64,
    pub tflops: f64,
    /// Bandwidth as a percentage of the copy kernel measured in the same run (if any).
    pub pct_of_copy: Option<f64>,
    /// A GEMM row's M and K (its N is `n`); absent from streaming rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub m: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<u64>,
    /// A GEMM row's TFLOP/s as a percentage of the device's ceiling measured in the same run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pct_of_peak: Option<f64>,
}

impl BenchRow {
    pub fn new(variant: &str, n: u64, bytes: u64, flops: u64, times: &GpuTimes, copy_gbps: Option<f64>) -> Self {
        let median = times.median_ns();
        let gbps = bytes as f64 / median;
        BenchRow {
            variant: variant.into(),
            n,
            bytes,
            flops,
            reps: times.ns.len(),
            median_ns: median,
            min_ns: times.min_ns(),
            gbps,
            tflops: flops as f64 / median / 1e3,
            pct_of_copy: copy_gbps.map(|c| 100.0 * gbps / c),
            m: None,
            k: None,
            pct_of_peak: None,
        }
    }

    /// A GEMM row: C (M×N) = A (M×K) · B (K×N), `2·M·N·K` flops and `bytes` of operands
    /// moved, with its TFLOP/s as a share of `peak_tflops` (a ceiling measured in the same run).
    pub fn gemm(
        variant: &str,
        (m, n, k): (u64, u64, u64),
        bytes: u64,
        times: &GpuTimes,
        peak_tflops: Option<f64>,
    ) -> Self {
        let mut row = BenchRow::new(variant, n, bytes, 2 * m * n * k, times, None);
        row.m = Some(m);
        row.k = Some(k);
        row.pct_of_peak = peak_tflops.map(|peak| 100.0 * row.tflops / peak);
        row
    }

    pub fn line(&self) -> String {
        let pct = self.pct_of_copy.map(|p| format!(" {p:5.1}% of copy")).unwrap_or_default();
        let flops = if self.flops > 0 { format!(" {:8.2} TFLOP/s", self.tflops) } else { String::new() };
        format!(
            "BENCH {:<28} n={:<11} median {:>10.2} µs  min {:>10.2} µs  {:>8.1} GB/s{flops}{pct}",
            self.variant,
            self.n,
            self.median_ns / 1e3,
            self.min_ns / 1e3,
            self.gbps
        )
    }
}

/// The bandwidth ceiling: a `uvec4` grid-stride copy of `bytes` (read + write counted),
/// measured in the same run as the sample's kernels.
pub fn copy_ceiling(ctx: &Context, bytes: u64, timing: &Timing) -> Result<BenchRow> {
    let vec4s = bytes.div_ceil(16) as usize;
    let src = Buffer::<[u32; 4]>::new(ctx, "copy src", vec4s)?;
    let dst = Buffer::<[u32; 4]>::new(ctx, "copy dst", vec4s)?;
    copy_between(ctx, &src, &dst, timing)
}

/// Time the copy kernel from `src` to `dst` (equal lengths; `src` is filled first).
pub fn copy_between(
    ctx: &Context,
    src: &Buffer<[u32; 4]>,
    dst: &Buffer<[u32; 4]>,
    timing: &Timing,
) -> Result<BenchRow> {
    anyhow::ensure!(src.len() == dst.len(), "copy between buffers of {} and {} vec4s", src.len(), dst.len());
    let vec4s = src.len() as u64;
    let kernel = Kernel::new(ctx, &copy_desc())?;
    let groups = copy_groups(vec4s);
    let n = u32::try_from(vec4s).context("copy size beyond 2^32 vec4s")?;
    let mut rec = Recorder::new(ctx)?;
    rec.fill(src, 0x0102_0304);
    // The fill must land before the copy kernel reads `src`.
    rec.barrier(Barrier::TransferToCompute);
    rec.submit_and_wait().context("fill the copy source")?;
    let times =
        time_gpu(ctx, timing, |rec| rec.dispatch(&kernel, &[src.binding(), dst.binding()], &n, [groups, 1, 1]))?;
    Ok(BenchRow::new("copy (ceiling)", vec4s * 4, 2 * vec4s * 16, 0, &times, None))
}

#[cfg(test)]
mod tests {
    use super::GpuTimes;

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(GpuTimes { ns: vec![3.0, 1.0, 2.0] }.median_ns(), 2.0);
        assert_eq!(GpuTimes { ns: vec![4.0, 1.0, 2.0, 3.0] }.median_ns(), 2.5);
    }
}
