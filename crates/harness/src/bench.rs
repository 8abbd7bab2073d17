//! GPU timing with timestamp queries, and the copy kernel that gives the bandwidth ceiling.

use anyhow::{Context as _, Result};
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Bring the GPU back to full speed ([`warm_up`]) right before the measurement.
    pub prewarm: bool,
}

/// Time `record` (which records one run of the work) as `timing` says, all repetitions in one
/// command buffer, after a [`warm_up`] if `timing.prewarm`; returns the per-run time of each
/// timed repetition.
pub fn time_gpu<'r>(
    ctx: &Context,
    timing: &Timing,
    record: impl FnMut(&mut Recorder<'_, 'r>) -> Result<()>,
) -> Result<GpuTimes> {
    if timing.prewarm {
        warm_up(ctx, MAX_WARM_UP)?;
    }
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
/// bytes, bounded by the device's buffer range and by one dispatch of workgroups that take
/// `per_workgroup` elements each.
pub fn bench_sizes(ctx: &Context, size: Option<u64>, per_workgroup: u64) -> Vec<u64> {
    if let Some(n) = size {
        return vec![n];
    }
    let max_n = (ctx.caps.max_storage_buffer_range / 4).min(1 << 28);
    let max_groups = u64::from(ctx.caps.max_workgroup_count[0]);
    (10..=28)
        .step_by(2)
        .map(|p| 1u64 << p)
        .filter(|&n| n <= max_n && n.div_ceil(per_workgroup.max(1)) <= max_groups)
        .collect()
}

/// The start of every bench: warm the GPU up (its fastest copy is the first row), then time an
/// empty dispatch as the floor row.
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

/// Time per warm-up copy of the fastest batch seen in this process (f64 bits; 0: none yet).
static FASTEST_WARM_COPY_NS: AtomicU64 = AtomicU64::new(0);

/// Copy scratch buffers until the GPU runs the copies at ≥ 97 % of the fastest speed this
/// process has seen (at most `max`): after a second or two without work (the CPU preparing
/// inputs) the GPU lowers its clocks and needs seconds of steady work to raise them again, so
/// every measurement starts with this. If the GPU is already fast it costs one batch (~1 ms on
/// an H200). Skipped on CPU devices (lavapipe), where a batch takes half a second.
pub fn warm_up(ctx: &Context, max: Duration) -> Result<()> {
    if ctx.caps.is_cpu() {
        return Ok(());
    }
    warm_up_until(ctx, max, false).map(|_| ())
}

/// Copy for all of `duration`: the first warm-up of a process, which sets the speed
/// [`warm_up`] waits for. Returns the fastest copy as a bench row.
pub fn warm_up_for(ctx: &Context, duration: Duration) -> Result<BenchRow> {
    warm_up_until(ctx, duration, true)
}

fn warm_up_until(ctx: &Context, max: Duration, full_duration: bool) -> Result<BenchRow> {
    let vec4s = 4 << 20; // 64 MiB per buffer: past the L2, so the copies use DRAM
    let src = Buffer::<[u32; 4]>::new(ctx, "warm-up src", vec4s)?;
    let dst = Buffer::<[u32; 4]>::new(ctx, "warm-up dst", vec4s)?;
    let kernel = Kernel::new(ctx, &copy_desc())?;
    let n = vec4s as u32;
    let mut rec = Recorder::new(ctx)?;
    rec.fill(&src, 0);
    // The fill lands before the copies read `src`.
    rec.barrier(Barrier::TransferToCompute);
    rec.submit_and_wait().context("warm-up fill")?;
    // 256 copies per submission (~8 ms at full speed): the GPU is busy > 95 % of the time, which
    // is what makes its clocks rise (with 20 per submission, 4 s sometimes did not).
    let batch = Timing { warmup: 0, iters: 1, batch: 256, prewarm: false };
    let start = std::time::Instant::now();
    loop {
        let times = time_runs(ctx, &batch, |rec| {
            rec.dispatch(&kernel, &[src.binding(), dst.binding()], &n, [n.div_ceil(256).min(32768), 1, 1])
        })?;
        let ns = times.median_ns();
        let fastest = f64::from_bits(FASTEST_WARM_COPY_NS.load(Ordering::Relaxed));
        if fastest == 0.0 || ns < fastest {
            FASTEST_WARM_COPY_NS.store(ns.to_bits(), Ordering::Relaxed);
        }
        let up_to_speed = fastest > 0.0 && ns <= fastest / 0.97;
        if start.elapsed() >= max || (up_to_speed && !full_duration) || !ns.is_finite() {
            let fastest = GpuTimes { ns: vec![f64::from_bits(FASTEST_WARM_COPY_NS.load(Ordering::Relaxed))] };
            return Ok(BenchRow::new(
                "warm-up copy, fastest",
                u64::from(n) * 4,
                2 * u64::from(n) * 16,
                0,
                &fastest,
                None,
            ));
        }
    }
}

fn copy_desc() -> KernelDesc<'static> {
    KernelDesc {
        shader: "common/copy.comp",
        buffers: 2,
        push_constant_bytes: 4,
        workgroup_size: 256,
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
        }
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
    let groups = vec4s.div_ceil(256).clamp(1, 32768) as u32;
    let n = u32::try_from(vec4s).context("copy size beyond 2^32 vec4s")?;
    let mut rec = Recorder::new(ctx)?;
    rec.fill(src, 0x0102_0304);
    // The fill must land before the copy kernel reads `src`.
    rec.barrier(Barrier::TransferToCompute);
    rec.submit_and_wait()?;
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
