//! 05_atomics — many invocations bumping the same counters: what subgroup aggregation buys on
//! this device, for a uniform address and for data-dependent ones.
//!
//! 1. **append** (slot allocation): every kept element appends its index to an array, at a slot
//!    from one counter. `naive`: one `atomicAdd` per kept element; `subgroup`: `subgroupAdd`,
//!    one `subgroupElect`ed atomic per subgroup, `subgroupBroadcastFirst` of the base;
//!    `workgroup`: places from a shared-memory counter, one device atomic per workgroup.
//! 2. **histogram** of u32 keys into 1–4096 bins, keys spread uniformly, Zipf-like, or 90 % in
//!    one bin, each workgroup walking chunks of keys in a grid-stride loop over a capped grid.
//!    `naive`: one device `atomicAdd` per key; `subgroup`: `subgroupAllEqual`, else a match
//!    loop that adds equal keys together and stops at the first round that matches one lane
//!    alone (each round's leader from a ballot and `subgroupShuffle`, in uniform control flow); `partition-nv`: one add per
//!    distinct key from `subgroupPartitionNV`; `shared`: a private histogram in shared memory
//!    per workgroup, flushed once; `shared-subgroup`: the match loop in front of it;
//!    `shared-leader`: one round of it, for the first lane's key.
//!
//! Every run checks the result exactly: the counter, each kept index in exactly one slot and
//! poison after them; every bin (keys outside the bins count nowhere). `--count-atomics`
//! reports the atomics each variant issued.
//! Run: `cargo run --release --bin 05_atomics [-- --bench] [--workload histogram --bins 256
//! --spread hot --variant naive,shared-subgroup --size 1000003]`

use anyhow::{Context as _, Result};
use clap::ValueEnum;
use harness::reference::{self, Spread};
use harness::{or_all, out, Bench, Report};
use std::process::ExitCode;
use vk_compute::{Barrier, Buffer, Context, Kernel, KernelDesc, Recorder};

#[cfg(test)]
mod tests;
mod variants;

use variants::{Args, Leader, Variant, Workload};

fn main() -> ExitCode {
    harness::run_sample::<Args>("05_atomics", run)
}

// ANCHOR: host_path
/// The host path of one variant on one input, as a Vulkan program runs it: the input is
/// already in a device buffer (shared by the variants); the variant's output and counters go
/// beside it; under `--bench` the run is timed on them; then the checked run (poison the
/// slots, zero the counters, dispatch, submit and wait, read back) is compared with the CPU.
/// Returns the median time of a run that passed under `--bench`.
#[allow(clippy::too_many_arguments)]
fn run_and_check(
    runner: &Runner,
    label: &str,
    device_input: &Buffer<u32>,
    input: &Input,
    case: Case,
    timer: Option<&Bench>,
    args: &Args,
    report: &mut Report,
) -> Result<Option<f64>> {
    let n = input.data().len() as u64;
    // Buffers: the slots or bins, and the counters.
    let mut buffers = runner.buffers(input, case)?;
    // --bench: time whole runs (Runner::record) on these buffers.
    let timed = Bench::time_if(timer, runner.ctx, |rec| runner.record(rec, device_input, &buffers, n as u32, case))?;
    // The checked run: poison, one run, read back, and the CPU's check (Runner::checked_run).
    let (result, control) =
        runner.checked_run(device_input, &mut buffers, input, case).with_context(|| format!("{label} n={n}"))?;
    let passed = report.check(label, Some(n), &result);
    if args.count_atomics {
        out(format!(
            "  {label} n={n}: {} device atomics, {} shared atomics",
            control[GLOBAL_ATOMICS], control[SHARED_ATOMICS]
        ));
    }
    // A time counts only for a run that passed.
    Ok(match (passed, &timed) {
        (true, Some(t)) => {
            t.row(report, label, n, 4 * n);
            Some(t.times.median_ns())
        }
        _ => None,
    })
}
// ANCHOR_END: host_path

/// The host path's steps, in the order it takes them.
impl<'c> Runner<'c> {
    fn buffers(&self, input: &Input, case: Case) -> Result<Buffers<'c>> {
        let (len, threshold) = match (input, case) {
            (Input::Append(a), _) => (a.values.len(), a.threshold),
            (Input::Keys(_), Case::Bins(bins, _)) => (bins as usize, 0),
            _ => anyhow::bail!("input and case disagree"),
        };
        Ok(Buffers {
            output: Buffer::new(
                self.ctx,
                if self.workload == Workload::Append { "slots" } else { "bins" },
                len.max(1),
            )?,
            control: Buffer::from_slice(self.ctx, "control", &[0u32; SHARED_ATOMICS + 1])?,
            threshold,
        })
    }

    // ANCHOR: record
    /// Record one whole run over `n` elements: counters (and bins) to zero, one dispatch.
    fn record<'r>(
        &'r self,
        rec: &mut Recorder<'_, 'r>,
        input: &'r Buffer<u32>,
        b: &'r Buffers,
        n: u32,
        case: Case,
    ) -> Result<()> {
        rec.fill(&b.control, 0);
        if self.workload == Workload::Histogram {
            rec.fill(&b.output, 0);
        }
        // The zeroed words land before any workgroup adds to them.
        rec.barrier(Barrier::TransferToCompute);
        let groups = match self.workload {
            Workload::Append => n.div_ceil(WORKGROUP),
            Workload::Histogram => {
                let Case::Bins(bins, _) = case else { anyhow::bail!("histogram without bins") };
                // Each workgroup walks the chunks `workgroup + k × groups`.
                histogram_groups(n, bins)
            }
        };
        // The kernel reads the n elements and writes the slots (append: up to n) or the bins.
        let outputs = match case {
            Case::Keep(_) => n as usize,
            Case::Bins(bins, _) => bins as usize,
        };
        let io =
            [input.binding_for(n as usize), b.output.binding_for(outputs), b.control.binding_for(SHARED_ATOMICS + 1)];
        rec.dispatch(self.kernel(case)?, &io, &[n, b.threshold], self.ctx.grid(groups.max(1))?)?;
        // The slots, bins and counters are complete before anything reads them.
        rec.barrier(Barrier::ComputeToCompute);
        Ok(())
    }
    // ANCHOR_END: record

    /// The run that gets checked: poison the slots, run once, read back, compare with the CPU.
    /// Returns the check and the control words.
    fn checked_run(
        &self,
        device_input: &Buffer<u32>,
        b: &mut Buffers,
        input: &Input,
        case: Case,
    ) -> Result<(harness::Check, Vec<u32>)> {
        let n = input.data().len() as u32;
        let mut rec = Recorder::new(self.ctx)?;
        if self.workload == Workload::Append {
            rec.fill(&b.output, harness::POISON);
            // The poison lands before the kernel writes the slots.
            rec.barrier(Barrier::TransferToCompute);
        }
        self.record(&mut rec, device_input, b, n, case)?;
        rec.submit_and_wait().context("the checked run")?;
        let control = b.control.download().context("read the counters")?;
        let mut output = b.output.download().context("read the output")?;
        let check = match (input, case) {
            (Input::Append(a), _) => {
                output.truncate(a.values.len());
                reference::check_append(a, &output, control[COUNTER])
            }
            (Input::Keys(keys), Case::Bins(bins, _)) => reference::check_histogram(keys, bins, &output),
            _ => anyhow::bail!("input and case disagree"),
        };
        Ok((check, control))
    }
}

/// Invocations per workgroup.
const WORKGROUP: u32 = 256;
/// The element where `--inject-fault` strikes and around which the input is planted: in
/// workgroup 48 of append, and in histogram chunk 3 (chunks of HISTOGRAM_CHUNK = 4096 keys).
const PLANTED: usize = 12_288;
/// The control words (glsl/05_atomics): append's slot counter, then the atomics counted.
const COUNTER: usize = 0;
const GLOBAL_ATOMICS: usize = 1;
const SHARED_ATOMICS: usize = 2;

fn run(ctx: &Context, args: &Args, report: &mut Report) -> Result<()> {
    args.common.check_size(ctx, 4)?;
    if args.bins.iter().any(|&b| b == 0 || b > 4096) {
        return vk_compute::setup_error("--bins must be from 1 to 4096");
    }
    if args.count_atomics && args.common.bench {
        return vk_compute::setup_error("--count-atomics adds atomics of its own: not with --bench");
    }
    if args.common.inject_fault.is_some() && args.common.size.is_none_or(|n| n < 4 * PLANTED as u64) {
        return vk_compute::setup_error(format!("--inject-fault needs --size of at least {}", 4 * PLANTED));
    }
    let seed = args.common.seed();
    let mut timer = Bench::start(ctx, &args.common, report)?;
    let mut sizes = harness::run_sizes(ctx, &args.common, &[1, 7, 1_000_003, harness::random::size(seed, 2, 1 << 21)]);
    if args.common.bench && args.common.size.is_none() {
        // Two sizes, not the usual ten: the naive variants take up to 0.2 s a run at 2^28 on
        // a hot bin, over 12 cases. 2^20, where launch costs count, and the largest.
        let largest = sizes.last().copied();
        sizes.retain(|&n| n == 1 << 20 || Some(n) == largest);
    }
    for workload in or_all(&args.workload, Workload::value_variants()) {
        if workload == Workload::Histogram {
            // The match loop needs no reconvergence guarantee (its subgroup operations run in
            // uniform control flow); where the device offers one, the shader asks for it anyway.
            let reconvergence = match (ctx.maximal_reconvergence(), ctx.caps().maximal_reconvergence) {
                (true, _) => "enabled: main is [[maximally_reconverges]]",
                (false, true) => "offered, not enabled (the validation layer is older than the headers)",
                (false, false) => "not offered by the device",
            };
            out(format!("histogram: VK_KHR_shader_maximal_reconvergence {reconvergence}"));
        }
        let variants: Vec<Variant> =
            or_all(&args.variant, Variant::value_variants()).into_iter().filter(|v| v.applies(workload)).collect();
        let mut runners = Vec::new();
        for variant in variants {
            let name = format!("{} {}", harness::value_name(workload), harness::value_name(variant));
            if let Some(runner) = report.skip_unless(&name, Runner::new(ctx, workload, variant, args)?) {
                runners.push((name, runner));
            }
        }
        // The cases: keep ratios (append) or bins × spreads (histogram).
        let cases: Vec<Case> = match workload {
            Workload::Append => or_all(&args.keep_ratio, &[1, 10, 50, 100]).into_iter().map(Case::Keep).collect(),
            Workload::Histogram => {
                let spreads = or_all(
                    &args.spread,
                    if args.common.bench { &[Spread::Uniform, Spread::Hot] } else { Spread::value_variants() },
                );
                let bins = or_all(&args.bins, &[1, 16, 256, 4096]);
                bins.iter().flat_map(|&b| spreads.iter().map(move |&s| Case::Bins(b, s))).collect()
            }
        };
        for &n in &sizes {
            for &case in &cases {
                let input = Input::new(case, n as usize, seed);
                let device_input = Buffer::from_slice(ctx, "input", input.data())?; // read by every variant
                if let Some(timer) = &mut timer {
                    timer.copy_ceiling(ctx, n * 4, report)?;
                }
                let mut medians = Vec::new();
                for (name, runner) in &runners {
                    let label = format!("{name} {}", case.label());
                    let median =
                        run_and_check(runner, &label, &device_input, &input, case, timer.as_ref(), args, report)?;
                    medians.extend(median.map(|m| (name.clone(), m)));
                }
                print_speedups(&medians, case, n);
            }
        }
    }
    Ok(())
}

/// One line per case in --bench: each variant's speed against `naive` in the same run.
fn print_speedups(medians: &[(String, f64)], case: Case, n: u64) {
    let Some(&(_, naive)) = medians.iter().find(|(name, _)| name.ends_with(" naive")) else {
        return;
    };
    let ratios: Vec<String> = medians
        .iter()
        .map(|(name, ns)| format!("{} {:.2}×", name.rsplit(' ').next().unwrap_or(name), naive / ns))
        .collect();
    out(format!("  speed-up over naive, {} n={n}: {}", case.label(), ratios.join(", ")));
}

/// One measured case: a keep ratio (append) or bins and a spread (histogram).
#[derive(Clone, Copy, Debug)]
enum Case {
    Keep(u32),
    Bins(u32, Spread),
}

impl Case {
    fn label(self) -> String {
        match self {
            Case::Keep(ratio) => format!("keep {ratio}%"),
            Case::Bins(bins, spread) => format!("{bins} bins {}", harness::value_name(spread)),
        }
    }
}

/// The input of one case.
enum Input {
    Append(reference::AppendInput),
    Keys(Vec<u32>),
}

impl Input {
    fn new(case: Case, n: usize, seed: u64) -> Self {
        match case {
            Case::Keep(ratio) => Input::Append(reference::append_input(ratio, n, seed, PLANTED)),
            Case::Bins(bins, spread) => Input::Keys(reference::histogram_keys(spread, bins, n, seed, PLANTED)),
        }
    }

    fn data(&self) -> &[u32] {
        match self {
            Input::Append(a) => &a.values,
            Input::Keys(k) => k,
        }
    }
}

/// 16-byte vectors each histogram invocation loads per chunk (the shader's ITEMS): four loads
/// in flight per turn of the workgroup's loop.
const HISTOGRAM_ITEMS: u32 = 4;
/// Keys per histogram chunk, the unit of a workgroup's grid-stride loop.
const HISTOGRAM_CHUNK: u32 = WORKGROUP * 4 * HISTOGRAM_ITEMS;
/// The most histogram workgroups in one dispatch: about one full wave of 256-invocation
/// workgroups on a device of over a hundred multiprocessors holding 8 such workgroups each. Each
/// workgroup flushes its private bins once, so a bin in device memory takes at most this many
/// atomics whatever the size: at 2^28 keys and 256 bins, 1024 instead of 65 536 per bin (one
/// per 4096-key chunk).
/// Chapter 05 has what that does to `shared` at 256 bins.
const HISTOGRAM_MAX_GROUPS: u32 = 1024;
/// Keys per bin each histogram workgroup gets at least (the grid shrinks for that, down to
/// one workgroup), so the flushes of the private bins take at most one device atomic per 8 keys.
const HISTOGRAM_KEYS_PER_BIN: u32 = 8;

/// The histogram's grid for `n` keys into `bins` bins: one workgroup per chunk, as few as
/// leave each at least HISTOGRAM_KEYS_PER_BIN keys per bin, at most HISTOGRAM_MAX_GROUPS.
fn histogram_groups(n: u32, bins: u32) -> u32 {
    let chunks = n.div_ceil(HISTOGRAM_CHUNK);
    let filled = n.div_ceil(HISTOGRAM_KEYS_PER_BIN * bins);
    chunks.min(filled).clamp(1, HISTOGRAM_MAX_GROUPS)
}

/// One variant of one workload: its pipelines, one per bin count for the histogram.
struct Runner<'c> {
    ctx: &'c Context,
    workload: Workload,
    kernels: Vec<(u32, Kernel<'c>)>,
}

/// A variant's device buffers for one input (the input itself is shared by the variants).
struct Buffers<'c> {
    /// append: the slots; histogram: the bins.
    output: Buffer<'c, u32>,
    /// The slot counter, then the atomics counted (see COUNTER).
    control: Buffer<'c, u32>,
    threshold: u32,
}

impl<'c> Runner<'c> {
    fn new(ctx: &'c Context, workload: Workload, variant: Variant, args: &Args) -> Result<Result<Self, String>> {
        let leader = Leader::pick(ctx);
        let needs = variant.needs(workload, leader);
        if let Some(reason) = ctx.subgroup_kernel_unsupported(needs, WORKGROUP) {
            let leader_missing = (needs & leader.needs()) != 0 && !ctx.subgroup_ops().has(leader.needs());
            let either = if leader_missing { " (Shuffle or else Arithmetic would do)" } else { "" };
            return Ok(Err(format!("{reason}{either}")));
        }
        let variant_define = format!("VARIANT_{}", harness::value_name(variant).to_uppercase().replace('-', "_"));
        let kernel = |bins: u32| -> Result<Kernel<'c>> {
            // The fault strikes the workgroup (append) or the chunk (histogram) holding PLANTED.
            let (shader, per_fault_unit) = match workload {
                Workload::Append => ("05_atomics/append.comp", WORKGROUP),
                Workload::Histogram => ("05_atomics/histogram.comp", HISTOGRAM_CHUNK),
            };
            let mut defines = vec![
                (variant_define.as_str(), "1".to_string()),
                ("COUNT_ATOMICS", u32::from(args.count_atomics).to_string()),
            ];
            if workload == Workload::Histogram {
                defines.extend([
                    ("BINS", bins.to_string()),
                    ("ITEMS", HISTOGRAM_ITEMS.to_string()),
                    ("LEADER_BY_MIN", u32::from(leader == Leader::Min).to_string()),
                    ("MAXIMAL_RECONVERGENCE", u32::from(ctx.maximal_reconvergence()).to_string()),
                    ("SPLIT_LANES", u32::from(args.split_lanes).to_string()),
                    ("LEADER_IN_BRANCH", u32::from(args.leader_in_branch).to_string()),
                ]);
            }
            defines.extend(args.common.fault_defines(PLANTED as u64, (PLANTED as u32 / per_fault_unit).into()));
            let desc = KernelDesc {
                shader,
                defines: defines.iter().map(|(k, v)| (*k, v.clone())).collect(),
                buffers: 3,
                push_constant_bytes: 8,
                workgroup_size: WORKGROUP,
                ..Default::default()
            };
            Kernel::new(ctx, &desc)
        };
        let kernels = match workload {
            Workload::Append => vec![(0, kernel(0)?)],
            Workload::Histogram => {
                let bins = or_all(&args.bins, &[1, 16, 256, 4096]);
                bins.iter().map(|&b| Ok((b, kernel(b)?))).collect::<Result<_>>()?
            }
        };
        Ok(Ok(Runner { ctx, workload, kernels }))
    }

    fn kernel(&self, case: Case) -> Result<&Kernel<'c>> {
        let bins = match case {
            Case::Keep(_) => 0,
            Case::Bins(bins, _) => bins,
        };
        self.kernels.iter().find(|(b, _)| *b == bins).map(|(_, k)| k).context("no pipeline for this bin count")
    }
}
