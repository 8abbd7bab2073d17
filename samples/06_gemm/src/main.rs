//! 06_gemm — C = α·A·B + β·C in f32 (and with f16 inputs, f32 accumulation), from one output
//! per invocation to register tiles fed through the subgroup, with an autotuner; then on the
//! matrix units (tensor cores) through cooperative matrices, in f16, bf16 and int8.
//!
//! 1. `naive`: one output per invocation, every operand from global memory.
//! 2. `shared`: T×T tiles staged in shared memory, each element loaded once per workgroup.
//! 3. `register`: a TM×TN block of accumulators per invocation, 4-vector global loads,
//!    double-buffered shared tiles with a transposed, padded A tile.
//! 4. `subgroup`: `register` with the A fragments passed between lanes by subgroup operations
//!    (`--strategy broadcast|shuffleXor|electFirst`, a specialization constant).
//! 5. `coopmat`, `coopmat-f32`: subgroup-scope fragments of a shape the device lists
//!    (VK_KHR_cooperative_matrix), tiles staged by hand; D in the inputs' width or in f32.
//! 6. `coopmat2`: workgroup-scope matrices loaded through tensor layouts
//!    (VK_NV_cooperative_matrix2). See coopmat.rs; a device without them SKIPs with the reason.
//!
//! Row-major A (M×K), B (K×N), C (M×N); any M, N, K. Every variant is checked against an f64
//! CPU reference on real inputs within a rounding bound derived from K, and exactly on small
//! integers; large problems on sampled rows and columns that always include the ones a planted
//! fault hits. `--peak` times an FMA-only kernel, the device's f32 ceiling, and an MMA-only
//! kernel per listed cooperative-matrix shape; `--tune` times a grid of configurations and
//! saves the fastest per size class (see tune.rs).
//! Run: `cargo run --release --bin 06_gemm [-- --bench] [--shape 257x129x511 --variant register]`

mod args;
mod check;
mod coopmat;
mod kernels;
mod simt;
mod tune;

use anyhow::{Context as _, Result};
use args::{label, shapes, Args};
use check::Kind;
use clap::ValueEnum;
use coopmat::Out;
use harness::{or_all, out, BenchRow, GpuTimes, Report, Timing};
use kernels::{Built, Job};
use simt::{Config, Elem, IoBindings, Shape, Strategy, Variant};
use std::collections::hash_map::{Entry, HashMap};
use std::collections::HashSet;
use std::process::ExitCode;
use vk_compute::{vk, Barrier, Buffer, Context, Kernel, KernelDesc, Recorder};

fn main() -> ExitCode {
    harness::run_sample::<Args>("06_gemm", run)
}

fn run(ctx: &Context, args: &Args, report: &mut Report) -> Result<()> {
    let common = &args.common;
    let seed = common.seed();
    let bench = common.bench;
    let shapes = shapes(ctx, args)?;
    let variants = or_all(&args.variant, Variant::value_variants());
    let elems = or_all(&args.ty, Elem::value_variants());
    let (alpha, beta) =
        (args.alpha.unwrap_or(if bench { 1.0 } else { 1.5 }), args.beta.unwrap_or(if bench { 0.0 } else { -0.5 }));
    harness::Bench::start(ctx, common, report)?;
    let timed_peaks = args.peak || bench;
    let peak = if timed_peaks { Some(peak_tflops(ctx, report)?) } else { None };
    let coop_peaks =
        if timed_peaks && variants.iter().any(|v| v.is_coopmat()) { coopmat::peaks(ctx, report)? } else { Vec::new() };
    let mut choice = tune::Choice::load(ctx, args.config.as_deref())?;
    if args.tune {
        let tuned: Vec<Variant> = or_all(&args.variant, Variant::value_variants())
            .into_iter()
            .filter(|v| !matches!(v, Variant::Naive | Variant::Shared))
            .collect();
        choice.table = Some(tune::tune(ctx, seed, (&elems, &tuned), args.tune_out.as_deref(), report)?);
        choice.source = "this run's --tune".into();
    }
    out(format!("configurations: {}", choice.source));
    let mut built: HashMap<String, Option<Built>> = HashMap::new();
    let mut skipped = HashSet::new(); // a SKIP is said once per variant and type
    let mut configs_used = Vec::new();
    for &shape in &shapes {
        if common.inject_fault.is_some() {
            built.clear(); // the fault's defines depend on the shape
        }
        for &elem in &elems {
            // The configurations of this shape: one per variant (subgroup: per strategy).
            let mut runs: Vec<(String, Job)> = Vec::new();
            for &variant in &variants {
                let name = label(variant, None, elem);
                let job = match (coopmat::output(variant, elem), variant.is_coopmat()) {
                    // Not for this type: said only when both were asked for by name.
                    (None, _) if args.variant.is_empty() || args.ty.is_empty() => continue,
                    (None, _) => Err(coopmat::unavailable(ctx, variant, elem).unwrap_or_default()),
                    (Some(_), true) => choice.coop_config(ctx, variant, elem, shape).map(Job::Coop),
                    (Some(_), false) => choice.config(ctx, variant, elem, shape).map(Job::Simt).ok_or_else(|| {
                        let subgroup = simt::subgroup_size(ctx).map(|s| s.0);
                        let reason = simt::grid(variant)[0].unsupported(ctx, elem, subgroup);
                        reason.unwrap_or_else(|| "no configuration fits".into())
                    }),
                };
                let config = match job {
                    Ok(Job::Simt(config)) => config,
                    Ok(coop) => {
                        runs.push((name, coop));
                        continue;
                    }
                    Err(why) => {
                        if skipped.insert(name.clone()) {
                            report.skip(&name, &why);
                        }
                        continue;
                    }
                };
                let strategies: Vec<Option<Strategy>> = match (variant, bench && args.strategy.is_empty()) {
                    (Variant::Subgroup, false) => {
                        or_all(&args.strategy, Strategy::value_variants()).into_iter().map(Some).collect()
                    }
                    _ => vec![config.strategy],
                };
                for s in strategies {
                    let config = Config { strategy: s, ..config };
                    runs.push((label(variant, s.filter(|_| !bench), elem), Job::Simt(config)));
                }
            }
            // ANCHOR: checked_runs
            let mut best: Option<(f64, GpuTimes, String, Option<f64>, u64)> = None;
            for kind in [Kind::Real, Kind::Exact] {
                let x = check::inputs(shape, elem, kind, seed, alpha, beta);
                let sample = check::Sample::of(shape, seed);
                let wants = check::reference(shape, &x, &sample);
                let mut io = Io::upload(ctx, elem, &x, shape)?;
                for (name, job) in &runs {
                    let gemm = match built.entry(format!("{} {elem:?}", job.name())) {
                        Entry::Occupied(e) => e.into_mut(),
                        Entry::Vacant(slot) => {
                            let fault = common.inject_fault.map(|_| (common, shape));
                            let gemm = report.skip_unless(name, job.build(ctx, elem, fault)?);
                            if let Some(gemm) = &gemm {
                                report.pipeline_stats(&format!("{name} [{}]", gemm.describe()), [gemm.kernel()])?;
                            }
                            slot.insert(gemm)
                        }
                    };
                    let Some(gemm) = gemm else { continue }; // skipped, said once
                    let (alpha, beta) = (x.alpha, x.beta);
                    if let Some(why) = io.prepare(ctx, gemm, shape)? {
                        report.skip(name, &why);
                        continue;
                    }
                    let timed = if bench && kind == Kind::Real {
                        Some(measure(ctx, common, |rec| gemm.record(rec, io.bindings()?, shape, alpha, beta))?)
                    } else {
                        None
                    };
                    let got = io
                        .checked_run(ctx, gemm, shape, alpha, beta)
                        .with_context(|| format!("{name} {}", shape.label()))?;
                    let result = check::compare(shape, kind, &got, &wants, gemm.rounding());
                    let what = format!(
                        "{name} {} {} ({})",
                        shape.label(),
                        if kind == Kind::Exact { "exact" } else { "real" },
                        sample.describe(shape)
                    );
                    if let (true, Some(times)) = (report.check(&what, None, &result), timed) {
                        let ceiling = if job.is_coop() { coopmat::peak_of(&coop_peaks, elem) } else { peak };
                        let bytes = Io::bytes_of(elem, gemm.out(), shape, beta);
                        let mnk = (shape.m.into(), shape.n.into(), shape.k.into());
                        report.bench_row(BenchRow::gemm(name, mnk, bytes, &times, ceiling));
                        out(format!("  {name} {}: {}", shape.label(), job.name()));
                        configs_used
                            .push(serde_json::json!({ "row": name, "shape": shape.label(), "config": job.name() }));
                        if shape.m >= 4096 && shape.k >= 4096 {
                            ceilings(ctx, common, report, (gemm, name, &job.name()), &io, shape)?;
                        }
                        if best.as_ref().is_none_or(|(t, ..)| times.median_ns() < *t) {
                            best = Some((times.median_ns(), times, job.name(), ceiling, bytes));
                        }
                    }
                }
            }
            // ANCHOR_END: checked_runs
            if let Some((_, times, config, ceiling, bytes)) = best {
                let name = format!("best {}", harness::value_name(elem));
                let mnk = (shape.m.into(), shape.n.into(), shape.k.into());
                report.bench_row(BenchRow::gemm(&name, mnk, bytes, &times, ceiling));
                out(format!("  {name} {}: {config}", shape.label()));
                configs_used.push(serde_json::json!({ "row": name, "shape": shape.label(), "config": config }));
            }
        }
    }
    report.extra = serde_json::json!({ "configurations": choice.source, "peak_tflops": peak, "coopmat_peaks": coop_peaks, "configs": configs_used, "tuned": choice.table });
    Ok(())
}

/// The device buffers of one problem: A and B (packed elements of `elem`), C_in (f32) and the
/// output D (room for 32 bits an element, whatever the kernel writes).
pub struct Io<'c> {
    /// The element type A and B hold.
    elem: Elem,
    a: Buffer<'c, u32>,
    b: Buffer<'c, u32>,
    c: Buffer<'c, f32>,
    d: Buffer<'c, u32>,
    /// Split-K's workspace, grown to the largest a configuration has needed.
    work: Option<Buffer<'c, f32>>,
    /// The texel format A and B are bound in too, once a configuration with texel loads has
    /// made their views (`simt::texel_format`).
    texels: Option<vk::Format>,
}

impl<'c> Io<'c> {
    /// Upload A, B and C_in, A and B as `elem` (16-bit elements packed two to a word, 8-bit
    /// ones four, lowest bits first).
    pub fn upload(ctx: &'c Context, elem: Elem, x: &check::Inputs, shape: Shape) -> Result<Self> {
        let per_word = (4 / elem.bytes()) as usize;
        let words = |v: &[f32]| -> Vec<u32> {
            v.chunks(per_word)
                .map(|p| {
                    p.iter().enumerate().fold(0, |w, (i, &e)| w | check::elem_bits(e, elem) << (32 / per_word * i))
                })
                .collect()
        };
        Ok(Io {
            elem,
            a: Buffer::from_slice(ctx, "A", &words(&x.a))?,
            b: Buffer::from_slice(ctx, "B", &words(&x.b))?,
            c: Buffer::from_slice(ctx, "C", &x.c)?,
            d: Buffer::new(ctx, "D", shape.m as usize * shape.n as usize)?,
            work: None,
            texels: None,
        })
    }

    /// Make room for `gemm`'s split-K workspace over `shape` and make the texel views it reads
    /// A and B through, or say why they do not fit.
    pub fn prepare(&mut self, ctx: &'c Context, gemm: &Built, shape: Shape) -> Result<Option<String>> {
        if gemm.texel_loads() && self.texels.is_none() {
            let format = simt::texel_format(self.elem).context("texel loads of this element type")?;
            for matrix in [&self.a, &self.b] {
                match matrix.texel_binding(format) {
                    Ok(_) => {}
                    Err(e) if e.is::<vk_compute::SetupError>() => return Ok(Some(format!("{}: {e}", gemm.describe()))),
                    Err(e) => return Err(e),
                }
            }
            self.texels = Some(format);
        }
        let len = gemm.workspace_len(shape);
        if len > harness::largest_size(ctx, 4) {
            return Ok(Some(format!(
                "{}: a split-K workspace of {len} floats does not fit one buffer",
                gemm.describe()
            )));
        }
        if len > 0 && self.work.as_ref().is_none_or(|w| (w.len() as u64) < len) {
            self.work = Some(Buffer::new(ctx, "split-K workspace", len as usize)?);
        }
        Ok(None)
    }

    /// What a GEMM binds. The texel views were made by `prepare`; their buffers hand back
    /// the cached views.
    pub fn bindings(&self) -> Result<IoBindings<'_>> {
        let texels = match self.texels {
            Some(format) => Some([self.a.texel_binding(format)?, self.b.texel_binding(format)?]),
            None => None,
        };
        Ok(IoBindings {
            abcd: [self.a.binding(), self.b.binding(), self.c.binding(), self.d.binding()],
            work: self.work.as_ref().map(Buffer::binding),
            texels,
        })
    }

    /// Bytes the problem must move at least: A and B once, D written, C_in read where β ≠ 0.
    fn bytes_of(elem: Elem, out: Out, s: Shape, beta: f32) -> u64 {
        let (m, n, k) = (u64::from(s.m), u64::from(s.n), u64::from(s.k));
        (m * k + k * n) * elem.bytes() + m * n * (out.bytes() + if beta == 0.0 { 0 } else { 4 })
    }

    // ANCHOR: checked_run
    /// The run that gets checked: D poisoned, one GEMM, D read back and widened to f64.
    pub fn checked_run(
        &mut self,
        ctx: &Context,
        gemm: &Built,
        shape: Shape,
        alpha: f32,
        beta: f32,
    ) -> Result<Vec<f64>> {
        let mut rec = Recorder::new(ctx)?;
        rec.fill(&self.d, harness::POISON);
        if let Some(work) = &self.work {
            rec.fill(work, harness::POISON); // a slice that is not written shows in D
        }
        // The poison lands before the kernel writes D and the workspace.
        rec.barrier(Barrier::TransferToCompute);
        gemm.record(&mut rec, self.bindings()?, shape, alpha, beta)?;
        rec.submit_and_wait().context("the checked run")?;
        let words = self.d.download().context("read D")?;
        Ok(check::widen(&words, gemm.out(), shape.m as usize * shape.n as usize))
    }
    // ANCHOR_END: checked_run
}

/// Time `record` with --iters and --batch, but no more repetitions than fit about a second
/// of device time (two on a CPU device), so that the slowest variants at the largest shapes
/// (naive at 8192³) stay within a bench's time.
fn measure<'r>(
    ctx: &Context,
    common: &harness::CommonArgs,
    mut record: impl FnMut(&mut Recorder<'_, 'r>) -> Result<()>,
) -> Result<GpuTimes> {
    let one = harness::time_gpu(ctx, &Timing { warmup: 0, iters: 1, batch: 1 }, &mut record)?.median_ns();
    let budget = if ctx.caps().is_cpu() { 2e9 } else { 1e9 };
    let iters = common.iters.unwrap_or(50).min((budget / one.max(1.0)) as u32).max(3);
    let timing = Timing { warmup: iters.min(5), iters, batch: common.batch.unwrap_or(1) };
    harness::time_gpu(ctx, &timing, record)
}

/// The ceilings of `gemm` at `shape`, where it has any (simt.rs, coopmat.rs), as ceiling rows: the
/// GEMM's operations over the time of the kernel with part of its work taken out, and the
/// tiles' bytes over that time where it loads them (what the L2 cache delivered).
fn ceilings(
    ctx: &Context,
    common: &harness::CommonArgs,
    report: &mut Report,
    (gemm, name, config): (&Built, &str, &str),
    io: &Io,
    shape: Shape,
) -> Result<()> {
    for (kind, ceiling, bytes) in gemm.ceilings(ctx, shape)? {
        let label = format!("{kind} {name} {} ({config})", shape.label());
        report.pipeline_stats(&label, [ceiling.kernel()])?;
        let times = measure(ctx, common, |rec| ceiling.record(rec, io.bindings()?, shape, 1.0, 0.0))?;
        let ops = 2 * u64::from(shape.m) * u64::from(shape.n) * u64::from(shape.k);
        report.bench_row(BenchRow::new(&label, 0, bytes, ops, &times, None));
    }
    Ok(())
}

/// The f32 SIMT ceiling: an FMA-only kernel (glsl/06_gemm/peak.comp), as a bench row.
fn peak_tflops(ctx: &Context, report: &mut Report) -> Result<f64> {
    let cpu = ctx.caps().is_cpu();
    let (groups, steps): (u32, u32) = if cpu { (64, 256) } else { (4096, 2048) };
    let desc = KernelDesc {
        shader: "06_gemm/peak.comp",
        buffers: 1,
        push_constant_bytes: 8,
        workgroup_size: 256,
        ..Default::default()
    };
    let kernel = Kernel::new(ctx, &desc).context("the FMA-only kernel")?;
    let sink = Buffer::<f32>::new(ctx, "sink", groups as usize * 256)?;
    let timing = Timing { warmup: 5, iters: if cpu { 3 } else { 20 }, batch: 1 };
    let push = [steps, 1.0f32.to_bits()];
    let times = harness::time_gpu(ctx, &timing, |rec| rec.dispatch(&kernel, &[sink.binding()], &push, [groups, 1, 1]))?;
    let flops = u64::from(groups) * 256 * u64::from(steps) * 8 * 2;
    let row = BenchRow::new("peak f32 FMA", 0, 0, flops, &times, None);
    let tflops = row.tflops;
    report.bench_row(row);
    Ok(tflops)
}
