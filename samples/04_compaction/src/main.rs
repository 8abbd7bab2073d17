//! 04_compaction — keep the elements that pass a test (stream compaction, select-if, filter),
//! four ways, from one atomic per element to a stable single pass.
//!
//! 1. `naive`: one `atomicAdd` per kept element for its output slot (order scrambled).
//! 2. `aggregated`: `subgroupBallot` of the test, each lane's rank from
//!    `subgroupBallotExclusiveBitCount`, one `subgroupElect`ed lane reserves the subgroup's slots
//!    with one atomic, `subgroupBroadcastFirst` hands the base on (order kept within a subgroup
//!    only).
//! 3. `single-pass`: stable, in one pass: per-tile counts, the tile's offset from 03's decoupled
//!    look-back (glsl/include/lookback.glsl), the kept elements staged in shared memory and
//!    written coalesced. Falls back to `three-pass` (FALLBACK) if workgroups make no progress.
//!    A tile's state is one 64-bit word where the device has 64-bit buffer atomics, else (or
//!    with `--lookback-word 32`) a 32-bit word of a 2-bit flag and a 30-bit count, zeroed before
//!    every run (no room for the epoch), for inputs of up to 2^30 - 1 elements.
//! 4. `three-pass`: stable, for reference: count per tile, scan the counts, scatter.
//!
//! Forms: `select` (x < threshold), `flags` (flags[i] != 0), `partition` (kept ones in order at
//! the front, the rest after them in reverse order, as CUB's DevicePartition), `unique` (drop
//! consecutive duplicates). Every run checks the count exactly, stable output element by element
//! and unordered output as a multiset, and the rest of the output (rejected in reverse, or
//! untouched poison). A stable variant whose workgroups see other subgroups than it was built
//! for does nothing and SKIPs with the reason. Run: `cargo run --release --bin 04_compaction [-- --bench]
//! [--variant single-pass --form select --keep-ratio 50 --size 1000003]`

use anyhow::{Context as _, Result};
use clap::ValueEnum;
use harness::lookback::{Finished, Run, StateWord};
use harness::reference::{self, CompactionInput, F32OrU32, Form};
use harness::{or_all, Bench, Report};
use std::process::ExitCode;
use std::rc::Rc;
use vk_compute::{Barrier, Buffer, Context, Kernel, KernelDesc, Recorder};

mod variants;

use variants::{Args, Plan, Variant};

fn main() -> ExitCode {
    harness::run_sample::<Args>("04_compaction", run)
}

// ANCHOR: host_path
/// The host path of one variant on one input, as a Vulkan program runs it: upload the input
/// (and its flags) into device buffers, time the compaction on them under `--bench`, then the
/// checked run (poison the output, record the dispatches and their barriers, submit and wait,
/// read back the count and the output), and check them against the CPU's compaction.
fn compact_and_check(
    compactor: &Compactor,
    label: &str,
    ty: F32OrU32,
    input: &CompactionInput,
    timer: Option<&Bench>,
    report: &mut Report,
) -> Result<()> {
    let n = input.data.len() as u64;
    // Buffers: the input and flags uploaded, the output, control words and scratch.
    let mut b = compactor.buffers(input)?;
    // --bench: each timed run takes the next epoch; they count once their submission completed.
    let timed = b.tile_states.time_if(timer, compactor.ctx, |rec, run| compactor.record(rec, &b, n as usize, run))?;
    // The checked run: the output poisoned first, then one compaction (or its fallback), read back.
    let done = compactor.compact(&mut b, input).with_context(|| format!("{label} n={n}"))?;
    if let Some(reason) = &done.wrong_shape {
        report.skip(&format!("{label} n={n}"), reason);
        return Ok(());
    }
    // Verify: the count exactly, the kept elements in order (stable) or as a multiset, and the
    // rest of the output.
    let stable = compactor.variant.stable();
    let result = reference::check_compaction(compactor.form, ty.into(), input, &done.output, done.count, stable);
    let redone_by = done.fell_back.then_some("three passes");
    let bytes = reference::compaction_bytes(compactor.form, input, done.count);
    report.check_and_time(label, n, &result, redone_by, timed.as_ref(), bytes);
    Ok(())
}
// ANCHOR_END: host_path

/// The host path's steps, in the order it takes them.
impl<'c> Compactor<'c> {
    fn buffers(&self, input: &CompactionInput) -> Result<Buffers<'c>> {
        let ctx = self.ctx;
        let n = input.data.len();
        let tiles = harness::tiles(n, self.tile) as usize;
        let states = if self.variant == Variant::SinglePass { tiles } else { 0 };
        Ok(Buffers {
            input: Buffer::from_slice(ctx, "input", &input.data)?,
            output: Buffer::new(ctx, "output", n.max(1))?,
            flags: Buffer::from_slice(ctx, "flags", &input.flags)?,
            control: Buffer::from_slice(ctx, "control", &[0u32; CONTROL_WORDS])?,
            tile_states: harness::lookback::TileStates::new(ctx, states, NEXT_TILE, self.word)?,
            partials: Buffer::new(ctx, "partials", tiles)?,
            threshold_bits: input.threshold_bits,
        })
    }

    // ANCHOR: record
    /// Record one whole compaction of `n` elements into `b.output`, the single pass as `run`
    /// (its epoch, and whether its states are zeroed first). Recording changes nothing: the
    /// caller settles the run after its submission (TileStates::settle).
    fn record<'r>(&'r self, rec: &mut Recorder<'_, 'r>, b: &'r Buffers, n: usize, run: Run) -> Result<()> {
        let io = [b.input.binding(), b.output.binding(), b.flags.binding(), b.control.binding()];
        let with = |scratch| [io[0], io[1], io[2], io[3], scratch];
        // The single pass takes a new epoch: the tile states of earlier runs read as not ready
        // and its counters count on (harness::lookback::Epochs), so only its first run on the
        // buffers zeroes them, and not its count, which its last tile writes (so a checked run's
        // poison there stays until then); the 32-bit states, which hold no epoch, are zeroed
        // before every run (TileStates::record_start). The other variants' slot counters start
        // at zero every run.
        let epoch = if self.variant == Variant::SinglePass {
            b.tile_states.record_start(rec, &b.control, run)?;
            run.epoch
        } else {
            rec.fill_range(&b.control, KEPT, NEXT_TILE - KEPT, 0).context("reset the counters")?;
            // The zeroed counters land before any workgroup reads them.
            rec.barrier(Barrier::TransferToCompute);
            0
        };
        let push = [n as u32, b.threshold_bits, epoch];
        let tiles = harness::tiles(n, self.tile);
        match self.variant {
            Variant::Naive | Variant::Aggregated | Variant::SinglePass => {
                let scratch =
                    if self.variant == Variant::SinglePass { b.tile_states.binding() } else { b.partials.binding() };
                rec.dispatch(&self.kernels[0], &with(scratch), &push, self.ctx.grid(tiles)?)?;
            }
            Variant::ThreePass => {
                rec.dispatch(&self.kernels[0], &with(b.partials.binding()), &push, self.ctx.grid(tiles)?)?;
                // Pass 1's counts are written before pass 2 scans them.
                rec.barrier(Barrier::ComputeToCompute);
                let scan_io = [b.input.binding(), b.output.binding(), b.partials.binding(), b.control.binding()];
                rec.dispatch(&self.kernels[1], &scan_io, &tiles, [1, 1, 1])?;
                // Pass 2's prefixes are written before pass 3 reads them.
                rec.barrier(Barrier::ComputeToCompute);
                rec.dispatch(&self.kernels[2], &with(b.partials.binding()), &push, self.ctx.grid(tiles)?)?;
            }
        }
        // The output and the count are complete before anything reads them.
        rec.barrier(Barrier::ComputeToCompute);
        Ok(())
    }
    // ANCHOR_END: record

    // ANCHOR: compact
    /// The run that gets checked: poison the output, compact once; a single pass that stalled
    /// (in this run or any earlier one on `b`) is redone by the three passes.
    fn compact(&self, b: &mut Buffers, input: &CompactionInput) -> Result<Compacted> {
        let n = input.data.len();
        let mut rec = Recorder::new(self.ctx)?;
        rec.fill(&b.output, harness::POISON);
        if self.variant == Variant::SinglePass {
            // The count too: the single pass writes it without a reset before each run.
            rec.fill_range(&b.control, KEPT, 1, harness::POISON).context("poison the count")?;
        }
        // The poison lands before the kernels write the output and the count, and before a
        // reset's fill of the counters (fill after fill: this barrier covers transfers too).
        rec.barrier(Barrier::ComputeToCompute);
        let run = b.tile_states.next_run();
        self.record(&mut rec, b, n, run)?;
        let submitted = rec.submit_and_wait().context("the checked compaction");
        b.tile_states.settle(run, submitted)?;
        let control = b.control.download().context("read the counters")?;
        let (single_pass, tiles) = (self.variant == Variant::SinglePass, harness::tiles(n, self.tile));
        match b.tile_states.finished(&control, single_pass, tiles, self.workgroup, self.lookback_lanes)? {
            Finished::Clean => {}
            Finished::Stalled => {
                let fallback = self.fallback.as_ref().context("single pass stalled and there is no fallback")?;
                let redone = fallback.compact(&mut fallback.buffers(input)?, input)?;
                return Ok(Compacted { fell_back: true, ..redone });
            }
            Finished::WrongShape(reason) => {
                return Ok(Compacted { output: Vec::new(), count: 0, fell_back: false, wrong_shape: Some(reason) })
            }
        }
        let mut output = b.output.download().context("read the output")?;
        output.truncate(n);
        Ok(Compacted { output, count: control[KEPT], fell_back: false, wrong_shape: None })
    }
    // ANCHOR_END: compact
}

/// Invocations per workgroup of the unordered variants, and of unique's stable ones.
const WORKGROUP: u32 = 256;
/// The element where `--inject-fault` strikes and around which the input is planted: in
/// workgroup 48 of the one-element-per-invocation variants, in tile 1 or 2 of the stable ones.
const PLANTED: usize = 12_288;
/// The control words (glsl/04_compaction/predicate.glsl): kept, rejected, then the single
/// pass's counters (harness::lookback::COUNTERS: next tile, tiles written, stalled).
const KEPT: usize = 0;
const NEXT_TILE: usize = 2;
/// `stalled`: a look-back gave up (bit 0) or a workgroup saw other subgroups (bit 1 and up,
/// harness::lookback::wrong_shape).
const STALLED: usize = NEXT_TILE + 2;
const CONTROL_WORDS: usize = NEXT_TILE + harness::lookback::COUNTERS;

fn run(ctx: &Context, args: &Args, report: &mut Report) -> Result<()> {
    let seed = args.common.seed();
    args.common.check_size(ctx, 4)?;
    let bench = args.common.bench;
    let variants = or_all(&args.variant, Variant::value_variants());
    args.tile.check(ctx, 128, variants.contains(&Variant::SinglePass))?;
    let forms = or_all(&args.form, if bench { &[Form::Select] } else { Form::value_variants() });
    args.check_depth(&variants, &forms)?;
    let types = or_all(&args.ty, if bench { &[F32OrU32::F32] } else { F32OrU32::value_variants() });
    let ratios = or_all(&args.keep_ratio, if bench { &[10, 50] } else { &[0, 1, 10, 50, 99, 100] });
    let mut timer = Bench::start(ctx, &args.common, report)?;
    // Sizes: one, a prime, 2^20+3 (the last tile partial), and a random size.
    let sizes = harness::run_sizes(ctx, &args.common, &[1, 7, 1_000_003, harness::random::size(seed, 2, 1 << 21)]);
    let largest = sizes.iter().max().copied().unwrap_or(0);
    for &form in &forms {
        for &ty in &types {
            let compactors = variants::compactors(ctx, args, &variants, form, ty, largest, report)?;
            for &n in &sizes {
                for &ratio in &ratios {
                    let input = reference::compaction_input(form, ty.into(), ratio, n as usize, seed, PLANTED);
                    if let Some(timer) = &mut timer {
                        timer.copy_ceiling(ctx, n * 4, report)?;
                    }
                    for (name, by_size) in &compactors {
                        let Some(compactor) = harness::for_size(by_size, n) else {
                            continue;
                        };
                        let label = format!("{name} keep {ratio}%");
                        args.common.check_fault_reach(name, n, compactor.tile, PLANTED)?;
                        // The single pass's 32-bit state counts up to 2^30 - 1.
                        let refused = (compactor.variant == Variant::SinglePass).then(|| compactor.word.refuses(n));
                        if let Some(reason) = refused.flatten() {
                            report.skip(&format!("{label} n={n}"), &reason);
                            continue;
                        }
                        compact_and_check(compactor, &label, ty, &input, timer.as_ref(), report)?;
                    }
                }
            }
        }
    }
    Ok(())
}

// ANCHOR: tile_shape
/// The stable variants' workgroup size and elements per invocation by form, one load a tile
/// (chapter 04 compares the shapes): 512 × 16, few enough registers for several workgroups a
/// multiprocessor and one look-back subgroup for 15 data subgroups; unique keeps 256 × 24. Two loads a tile take TWO_DEEP_ITEMS a lane at each.
/// `--workgroup` and `--items` replace either; a default workgroup shrinks to the device's
/// limit (TileArgs::workgroup_or). Args' after_help repeats this for `--help`.
fn tile_shape(ctx: &Context, form: Form, args: &Args) -> (u32, u32) {
    let (workgroup, items) = if form == Form::Unique { (WORKGROUP, 24) } else { (512, 16) };
    (args.tile.workgroup_or(ctx, workgroup), args.tile.items.unwrap_or(items))
}
// ANCHOR_END: tile_shape

// ANCHOR: two_deep
/// Whether a single-pass tile may load `items` a lane twice: select and flags with the look-back
/// subgroup (the first depth's kept elements staged in the slice while the second loads, or read
/// again after the look-back), which halves the look-backs a byte with no more elements held
/// (at TWO_DEEP_ITEMS a lane, select holds no more registers than one depth of 16). Not
/// partition (which would read the first depth again for its rejected elements) nor unique
/// (which holds more registers at two depths than at one), as chapter 04's comparison of them
/// found, nor the narrow look-back and the three passes.
fn two_deep_possible(variant: Variant, form: Form, lookback_lanes: u32) -> bool {
    variant == Variant::SinglePass && lookback_lanes > 0 && matches!(form, Form::Select | Form::Flags)
}

/// Where two loads a tile pay, by default: from 2^25 elements (chapter 04 finds the crossover,
/// at 16 a lane a depth and again at TWO_DEEP_ITEMS). Half as many tiles leave half the
/// workgroups to overlap their look-backs, which below that costs more than it saves.
const TWO_DEEP_FROM: u64 = 1 << 25;

/// Elements an invocation loads at each of two depths, unless `--items` says otherwise: 12, not
/// 16. At 512 × 16 the first depth's test bits, held for its re-read, cost select registers and
/// so workgroups a multiprocessor; at 512 × 12 it holds no more than one depth of 16 (chapter 04
/// compares the two by share of elements kept).
const TWO_DEEP_ITEMS: u32 = 12;

/// Loads of `items` a lane a tile by input size, as (largest n, depth): one, or `--depth`'s,
/// for every n; where two_deep_possible and `--depth` is not given, two from TWO_DEEP_FROM
/// elements, if an input that large (`largest`) will run.
fn depths(plan: &Plan, args: &Args, largest: u64) -> Vec<(u64, u32)> {
    match args.depth {
        _ if !two_deep_possible(plan.variant, plan.form, plan.lookback_lanes) => vec![(u64::MAX, 1)],
        Some(depth) => vec![(u64::MAX, depth)],
        None if largest >= TWO_DEEP_FROM => vec![(TWO_DEEP_FROM - 1, 1), (u64::MAX, 2)],
        None => vec![(u64::MAX, 1)],
    }
}
// ANCHOR_END: two_deep

/// One variant's pipelines for one form and type.
struct Compactor<'c> {
    ctx: &'c Context,
    variant: Variant,
    form: Form,
    /// Elements per tile (stable variants) or per workgroup (the others).
    tile: u32,
    /// naive, aggregated, single-pass: one kernel; three-pass: count, scan, scatter.
    kernels: Vec<Kernel<'c>>,
    /// single-pass only: the three passes to fall back to when workgroups stall (one for
    /// both depths).
    fallback: Option<Rc<Compactor<'c>>>,
    /// single-pass only: how a tile's state is held.
    word: StateWord,
    /// Invocations per workgroup, and the look-back subgroup's lanes (0: none): the subgroup
    /// shape the stable kernels are built for.
    workgroup: u32,
    lookback_lanes: u32,
}

/// Device buffers for one input.
struct Buffers<'c> {
    input: Buffer<'c, u32>,
    output: Buffer<'c, u32>,
    flags: Buffer<'c, u32>,
    /// kept, rejected, next tile, tiles written, stalled (see predicate.glsl).
    control: Buffer<'c, u32>,
    /// single-pass: the tile states and the runs' epochs (harness::lookback).
    tile_states: harness::lookback::TileStates<'c>,
    /// three-pass: the per-tile counts, then their prefixes.
    partials: Buffer<'c, u32>,
    threshold_bits: u32,
}

/// What one checked run produced, or why a stable variant did nothing (`wrong_shape`: its
/// workgroups saw other subgroups than it was built for).
struct Compacted {
    output: Vec<u32>,
    count: u32,
    fell_back: bool,
    wrong_shape: Option<String>,
}

impl<'c> Compactor<'c> {
    /// `plan`'s pipelines with tiles `depth` loads deep (2 only where two_deep_possible, see
    /// depths); `fallback`, for the single pass, is the three passes it falls back to.
    fn new(
        ctx: &'c Context,
        plan: &Plan,
        ty: F32OrU32,
        args: &Args,
        depth: u32,
        fallback: Option<Rc<Compactor<'c>>>,
    ) -> Result<Self> {
        let Plan { variant, form, workgroup, items, lookback_lanes, word } = *plan;
        let items = if depth == 2 { args.tile.items.unwrap_or(TWO_DEEP_ITEMS) } else { items };
        let tile = if variant.stable() { (workgroup - lookback_lanes) * items * depth } else { workgroup };
        let kernel = |shader, buffers, push_constant_bytes, defines| {
            let desc = KernelDesc {
                shader,
                defines,
                buffers,
                push_constant_bytes,
                workgroup_size: workgroup,
                ..Default::default()
            };
            Kernel::new(ctx, &desc)
        };
        // The compaction kernels: n, threshold bits and the single pass's epoch as push constants.
        let compaction = |shader, mode: &str| {
            let data = if ty == F32OrU32::F32 { "DATA_F32" } else { "DATA_U32" };
            let (single, count) = (u32::from(mode == "single"), u32::from(mode == "count"));
            let mut defines = harness::numeric_defines(&[
                (data, 1),
                (form.define(), 1),
                ("ITEMS", items),
                ("DEPTH", depth),
                ("MODE_SINGLE_PASS", single),
                ("MODE_COUNT", count),
            ]);
            defines.extend(harness::lookback::defines(ctx, lookback_lanes, word));
            // --inject-fault: the workgroup (or tile) that holds PLANTED.
            defines.extend(args.common.fault_defines(PLANTED as u64, (PLANTED as u32 / tile).into()));
            kernel(shader, 5, 12, defines)
        };
        let kernels = match variant {
            Variant::Naive => vec![compaction("04_compaction/naive.comp", "")?],
            Variant::Aggregated => vec![compaction("04_compaction/aggregated.comp", "")?],
            Variant::SinglePass => vec![compaction("04_compaction/stable.comp", "single")?],
            Variant::ThreePass => {
                // Pass 2, the exclusive scan of the tiles' counts in one workgroup, is 03's.
                let scan = harness::numeric_defines(&[
                    ("TYPE_U32", 1),
                    ("SCAN_INTRINSIC", 1),
                    ("EXCLUSIVE", 1),
                    ("ITEMS", items),
                    ("PASS", 2),
                    // Where it reports a wrong subgroup shape among the control words.
                    ("STALLED_WORD", STALLED as u32),
                ]);
                vec![
                    compaction("04_compaction/stable.comp", "count")?,
                    kernel("03_scan/reduce_then_scan.comp", 4, 4, scan)?,
                    compaction("04_compaction/stable.comp", "scatter")?,
                ]
            }
        };
        Ok(Compactor { ctx, variant, form, tile, kernels, fallback, word, workgroup, lookback_lanes })
    }
}
