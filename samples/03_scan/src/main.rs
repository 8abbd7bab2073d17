//! 03_scan — prefix sums (inclusive and exclusive, u32 and f32), from subgroup primitives to a
//! single-pass device-wide scan with decoupled look-back.
//!
//! Subgroup level, three ways to scan one value per lane: `hillis` (Hillis-Steele in shared
//! memory), `shuffle` (a `subgroupShuffleUp` loop whose step count follows gl_SubgroupSize) and
//! `intrinsic` (`subgroupInclusiveAdd` / `subgroupExclusiveAdd`). Workgroup level: subgroup scans
//! plus a scan of the subgroup totals (chunked, so 32 subgroups of 8 lanes work). Device level:
//! each primitive runs inside the portable three-pass reduce-then-scan, and two single passes
//! chain the tiles with decoupled look-back: `single-pass-simple` in its simplest form (one
//! invocation walks back one tile at a time; one 64-bit state word a tile, zeroed before every
//! run, so a SKIP without 64-bit buffer atomics) and `single-pass`, the fast one (one 64-bit word
//! a tile where the device has those atomics, else, or with `--lookback-word 32`, two tagged
//! 32-bit words). Both fall back to reduce-then-scan (and say FALLBACK) if workgroups make no
//! progress, and SKIP with the reason if their workgroups see other subgroups than they were built
//! for. Every output element is checked exactly: f32 inputs are small integers whose prefix sums
//! are exact in f32 in any order.
//! Run: `cargo run --release --bin 03_scan [-- --bench] [--variant single-pass]`

use anyhow::{Context as _, Result};
use clap::ValueEnum;
use harness::lookback::{Finished, Run, StateWord};
use harness::reference::{self, F32OrU32};
use harness::{or_all, Bench, Report};
use std::process::ExitCode;
use std::rc::Rc;
use vk_compute::{Barrier, Buffer, Context, Kernel, KernelDesc, Recorder, SubgroupOps};

mod args;
mod simple;
#[cfg(test)]
mod tests;

use args::{state_word, tile_shapes, variant_name, Args, TileShape, Variant};

fn main() -> ExitCode {
    harness::run_sample::<Args>("03_scan", run)
}

// ANCHOR: host_path
/// The host path of one variant on one input, as a Vulkan program runs it: upload the input
/// into device buffers, time the scan on them under `--bench`, then the checked run (poison the
/// output, record the dispatches and their barriers, submit and wait, read back), and check
/// every element against the CPU's scan.
fn scan_and_check(
    scanner: &Scanner,
    name: &str,
    ty: F32OrU32,
    exclusive: bool,
    input: &[u32],
    bench: Option<&Bench>,
    report: &mut Report,
) -> Result<()> {
    let n = input.len() as u64;
    // Buffers: the input uploaded, the output, and the variant's scratch (Scanner::buffers).
    let mut b = scanner.buffers(input)?;
    // --bench: each timed run takes the next epoch; they count once their submission completed.
    let timed = b.tile_states.time_if(bench, scanner.ctx, |rec, run| scanner.record(rec, &b, input.len(), run))?;
    // The checked run: the output poisoned first, then one scan (or its fallback), read back.
    let scanned = scanner.scan(&mut b, input).with_context(|| format!("{name} n={n}"))?;
    if let Some(reason) = &scanned.wrong_shape {
        report.skip(&format!("{name} n={n}"), reason);
        return Ok(());
    }
    // Verify: every element exactly (f32 inputs are small integers, exact in any order).
    let result = reference::check_scan(ty.into(), exclusive, input, &scanned.output);
    let redone_by = scanned.fell_back.then_some("reduce-then-scan");
    // One read and one write of every element.
    report.check_and_time(name, n, &result, redone_by, timed.as_ref(), 2 * n * 4);
    Ok(())
}
// ANCHOR_END: host_path

/// The host path's steps, in the order it takes them.
impl<'c> Scanner<'c> {
    fn buffers(&self, input: &[u32]) -> Result<Buffers<'c>> {
        let tiles = harness::tiles(input.len(), self.tile) as usize;
        // Each kind of scan binds only its own scratch buffer: the others get one element.
        let (partials, states, simple) = match self.variant {
            Variant::SinglePass => (1, tiles, 1),
            Variant::SinglePassSimple => (1, 0, tiles),
            _ => (tiles, 0, 1),
        };
        let ctx = self.ctx;
        Ok(Buffers {
            input: Buffer::from_slice(ctx, "input", input)?,
            output: Buffer::new(ctx, "output", input.len())?,
            partials: Buffer::new(ctx, "partials", partials)?,
            simple_states: Buffer::new(ctx, "simple tile states", simple)?,
            // The counters are the control buffer's only words.
            tile_states: harness::lookback::TileStates::new(ctx, states, 0, self.word)?,
            control: Buffer::from_slice(ctx, "control", &[0u32; harness::lookback::COUNTERS])?,
        })
    }

    // ANCHOR: record
    /// Record one whole scan of `n` elements into `b.output`, the single pass as `run` (its
    /// epoch, and whether its states are zeroed first). Recording changes nothing: the caller
    /// settles the run after its submission (TileStates::settle).
    fn record<'r>(&'r self, rec: &mut Recorder<'_, 'r>, b: &'r Buffers, n: usize, run: Run) -> Result<()> {
        let tiles = harness::tiles(n, self.tile);
        let grid = self.ctx.grid(tiles)?;
        let io = [b.input.binding(), b.output.binding()];
        if self.variant == Variant::SinglePassSimple {
            return simple::record(rec, &self.kernels[0], b, n, grid);
        }
        if self.single_pass() {
            // A new epoch: the states of earlier runs read as not ready, so they need no reset
            // (harness::lookback::Epochs); only the first run on the buffers zeroes them.
            b.tile_states.record_start(rec, &b.control, run)?;
            let bindings = [io[0], io[1], b.tile_states.binding(), b.control.binding()];
            rec.dispatch(&self.kernels[0], &bindings, &[n as u32, run.epoch], grid)?;
            // The output is complete before anything reads it (readback or the next repeat).
            rec.barrier(Barrier::ComputeToCompute);
            return Ok(());
        }
        let bindings = [io[0], io[1], b.partials.binding(), b.control.binding()];
        rec.dispatch(&self.kernels[0], &bindings, &(n as u32), grid)?;
        // Pass 1's tile sums are written before pass 2 scans them.
        rec.barrier(Barrier::ComputeToCompute);
        rec.dispatch(&self.kernels[1], &bindings, &tiles, [1, 1, 1])?;
        // Pass 2's prefixes are written before pass 3 reads them.
        rec.barrier(Barrier::ComputeToCompute);
        rec.dispatch(&self.kernels[2], &bindings, &(n as u32), grid)?;
        // The output is complete before anything reads it.
        rec.barrier(Barrier::ComputeToCompute);
        Ok(())
    }
    // ANCHOR_END: record

    /// The run that gets checked: poison the output, scan `input` once; a single pass that
    /// stalled (in this run or any earlier one on `b`) is redone by reduce-then-scan, and one
    /// that saw other subgroups than it was built for is not trusted (`wrong_shape`).
    fn scan(&self, b: &mut Buffers, input: &[u32]) -> Result<Scanned> {
        let mut rec = Recorder::new(self.ctx)?;
        rec.fill(&b.output, harness::POISON);
        // The poison lands before the scan writes the output.
        rec.barrier(Barrier::TransferToCompute);
        let run = b.tile_states.next_run();
        self.record(&mut rec, b, input.len(), run)?;
        let submitted = rec.submit_and_wait().context("the checked scan");
        b.tile_states.settle(run, submitted)?;
        let control = b.control.download().context("read the control words")?;
        let tiles = harness::tiles(input.len(), self.tile);
        let finished = if self.variant == Variant::SinglePassSimple {
            let states = b.simple_states.download().context("read the tile states")?;
            simple::finished(&control, &states, tiles, self.workgroup)
        } else {
            b.tile_states.finished(&control, self.single_pass(), tiles, self.workgroup, self.lookback_lanes)?
        };
        match finished {
            Finished::Clean => {}
            Finished::Stalled => {
                let fallback = self.fallback.as_ref().context("single-pass stalled and there is no fallback")?;
                let redone = fallback.scan(&mut fallback.buffers(input)?, input)?;
                return Ok(Scanned { fell_back: true, ..redone });
            }
            Finished::WrongShape(reason) => {
                return Ok(Scanned { output: Vec::new(), fell_back: false, wrong_shape: Some(reason) })
            }
        }
        let output = b.output.download().context("read the scan's output")?;
        Ok(Scanned { output, fell_back: false, wrong_shape: None })
    }
}

/// The element where `--inject-fault` strikes, and where every input holds a value unlike its
/// neighbour (so a read shifted by one changes the scan): in tile 1 to 3 of every variant at
/// the default tile sizes (3584 to 12288 elements).
const PLANTED: usize = 12_288;

/// The control word `stalled` (after the single pass's next tile and tiles written), which every
/// kernel's shape check writes to as well (glsl/include/subgroup_shape.glsl).
const STALLED_WORD: usize = 2;

/// Invocations per workgroup, unless a tile shape says otherwise.
const WORKGROUP: u32 = 256;

/// The tile of the reduce-then-scan variants, of single-pass-simple and of the single passes' fallback.
const REDUCE_THEN_SCAN_TILE: TileShape = TileShape { workgroup: WORKGROUP, items: 32 };

// ANCHOR: tiles_by_n
/// The single pass's tile for each n (up to and including the first figure); chapter 03 has the
/// measurements behind it. Every tile scans its rows while the look-back goes on: its aggregate
/// goes out after one subgroupAdd, and after the wait only the stores are left. Below 2^25
/// elements the scan is bound by the look-back chain's latency, and small tiles, which hold few
/// registers and so fit more workgroups on a multiprocessor, finish sooner. Up to 2^20 every
/// tile runs at once whatever its registers, and workgroups of 512 with 12 elements an
/// invocation take tiles of about the same size with 3 rows a lane. From 2^25 the scan is bound
/// by memory, and 256 × 24 suits it: more elements a load than 256 × 16, and fewer
/// registers than larger tiles, which fit fewer workgroups on a multiprocessor. Args'
/// after_help repeats this table for `--help`.
const SINGLE_PASS_TILES: [(u64, TileShape); 4] = [
    (1 << 20, TileShape { workgroup: 512, items: 12 }),
    (1 << 22, TileShape { workgroup: WORKGROUP, items: 24 }),
    (1 << 24, TileShape { workgroup: WORKGROUP, items: 16 }),
    (u64::MAX, TileShape { workgroup: WORKGROUP, items: 24 }),
];
// ANCHOR_END: tiles_by_n

fn run(ctx: &Context, args: &Args, report: &mut Report) -> Result<()> {
    let seed = args.common.seed();
    args.common.check_size(ctx, 4)?;
    let variants = or_all(&args.variant, Variant::value_variants());
    args.tile.check(ctx, 64, variants.contains(&Variant::SinglePass))?;
    if args.common.inject_fault.is_some() && args.common.size.is_none() {
        return vk_compute::setup_error("--inject-fault needs --size (two tiles past the faulty one at least)");
    }
    let types = or_all(&args.ty, F32OrU32::value_variants());
    let modes: Vec<bool> = match (args.inclusive, args.exclusive) {
        (true, _) => vec![false],
        (_, true) => vec![true],
        _ if args.common.bench => vec![false],
        _ => vec![false, true],
    };
    let mut bench = Bench::start(ctx, &args.common, report)?;
    // Odd sizes: empty, one, a prime, 1 000 003, 2^21+3, 2^22+3, 2^24+3 (the last four take each
    // of the single pass's tile shapes, SINGLE_PASS_TILES), and a random size.
    let defaults =
        [0, 1, 7, 1_000_003, (1 << 21) + 3, (1 << 22) + 3, (1 << 24) + 3, harness::random::size(seed, 2, 1 << 22)];
    let mut sizes = harness::run_sizes(ctx, &args.common, &defaults);
    if args.common.bench && args.common.size.is_none() {
        // Every power of two from 2^20 to 2^25, where a single pass is bound by its chain of
        // look-backs more than by memory; the bench sizes hold the even powers.
        let fits = harness::largest_size(ctx, 4);
        sizes.extend([1u64 << 21, 1 << 23, 1 << 25].into_iter().filter(|&n| n <= fits));
        sizes.sort_unstable();
        sizes.dedup();
    }
    for &ty in &types {
        let mut scanners = Vec::new();
        for &exclusive in &modes {
            for &variant in &variants {
                let mut name = variant_name(variant, ty, exclusive);
                // The single passes' tile states: one 64-bit word where the device has 64-bit
                // atomics, else (or with --lookback-word 32) single-pass's 32-bit words.
                let Some(word) = report.skip_unless(&name, state_word(variant, ctx, &args.tile)) else { continue };
                name.push_str(word.label());
                // One fallback for every tile shape of a single pass.
                let fallback = match variant {
                    Variant::SinglePass | Variant::SinglePassSimple => {
                        let workgroup = args.tile.workgroup_or(ctx, WORKGROUP);
                        let shape = TileShape { workgroup, ..REDUCE_THEN_SCAN_TILE };
                        Scanner::new(ctx, Variant::Intrinsic, ty, exclusive, shape, word, None, args)?.map(Rc::new).ok()
                    }
                    _ => None,
                };
                let shapes = report.build_by_size(
                    &name,
                    tile_shapes(variant, &args.tile, ctx),
                    |shape| format!("{name}, {} × {} items", shape.workgroup, shape.items),
                    |scanner: &Scanner| &scanner.kernels,
                    |&shape| Scanner::new(ctx, variant, ty, exclusive, shape, word, fallback.clone(), args),
                )?;
                if !shapes.is_empty() {
                    scanners.push((name, exclusive, shapes));
                }
            }
        }
        for &n in &sizes {
            let input = reference::scan_input(ty.into(), n as usize, seed, PLANTED);
            if let Some(bench) = &mut bench {
                bench.copy_ceiling(ctx, n * 4, report)?;
            }
            for (name, exclusive, shapes) in &scanners {
                let Some(scanner) = harness::for_size(shapes, n) else { continue };
                args.common.check_fault_reach(name, input.len() as u64, scanner.tile, PLANTED)?;
                scan_and_check(scanner, name, ty, *exclusive, &input, bench.as_ref(), report)?;
            }
        }
    }
    Ok(())
}

/// The pipelines of one variant for one type and mode.
struct Scanner<'c> {
    ctx: &'c Context,
    /// Elements per tile: the invocations that load × items (the single pass's look-back
    /// subgroup loads none).
    tile: u32,
    /// Which kernels (`kernels`) and scratch buffers (`Buffers`) it has.
    variant: Variant,
    /// reduce-then-scan: passes 1, 2, 3; the single passes: one kernel.
    kernels: Vec<Kernel<'c>>,
    /// The single passes only: the reduce-then-scan to fall back to when workgroups stall.
    fallback: Option<Rc<Scanner<'c>>>,
    /// single-pass only: how a tile's state is held.
    word: StateWord,
    /// Invocations per workgroup, and the look-back subgroup's lanes (0: narrow): the subgroup
    /// shape the kernel is built for.
    workgroup: u32,
    lookback_lanes: u32,
}

/// Device buffers for one input.
struct Buffers<'c> {
    input: Buffer<'c, u32>,
    output: Buffer<'c, u32>,
    /// reduce-then-scan: per-tile sums, then their prefixes.
    partials: Buffer<'c, u32>,
    /// single-pass-simple: a tile's state, flag << 32 | value, zeroed before every run.
    simple_states: Buffer<'c, u64>,
    /// single-pass: the tile states and the runs' epochs (harness::lookback).
    tile_states: harness::lookback::TileStates<'c>,
    /// single-pass: [next tile, tiles written] (counted up across runs), stalled (never reset,
    /// so it covers every run on these buffers).
    control: Buffer<'c, u32>,
}

/// What a scan produced: the output, and whether the single pass fell back; or why the single
/// pass did nothing (its workgroups saw other subgroups than it was built for).
struct Scanned {
    output: Vec<u32>,
    fell_back: bool,
    wrong_shape: Option<String>,
}

impl<'c> Scanner<'c> {
    /// The pipelines of `variant` with tiles of `shape` (and, for the single pass, tile states
    /// held as `word` says); `fallback`, for the single pass, is the reduce-then-scan it falls
    /// back to.
    #[allow(clippy::too_many_arguments)]
    fn new(
        ctx: &'c Context,
        variant: Variant,
        ty: F32OrU32,
        exclusive: bool,
        shape: TileShape,
        word: StateWord,
        fallback: Option<Rc<Scanner<'c>>>,
        args: &Args,
    ) -> Result<Result<Self, String>> {
        let (workgroup, items) = (shape.workgroup, shape.items);
        let (primitive, needs) = match variant {
            Variant::Hillis => ("SCAN_HILLIS", SubgroupOps::BASIC),
            Variant::Shuffle => ("SCAN_SHUFFLE", SubgroupOps::BASIC | SubgroupOps::SHUFFLE_RELATIVE),
            Variant::Intrinsic | Variant::SinglePassSimple => {
                ("SCAN_INTRINSIC", SubgroupOps::BASIC | SubgroupOps::ARITHMETIC)
            }
            Variant::SinglePass => (
                "SCAN_INTRINSIC",
                SubgroupOps::BASIC
                    | SubgroupOps::ARITHMETIC
                    | SubgroupOps::BALLOT
                    | SubgroupOps::VOTE
                    | SubgroupOps::SHUFFLE,
            ),
        };
        let single_pass = variant == Variant::SinglePass;
        // Also SKIPs a workgroup with a partial subgroup: every variant gives lanes slots by
        // subgroup ID.
        let lanes = harness::lookback::lookback_lanes(ctx, needs, &args.tile, workgroup, single_pass)?;
        let lookback_lanes = match lanes {
            Ok(lanes) => lanes,
            Err(reason) => return Ok(Err(reason)),
        };
        let tile = (workgroup - lookback_lanes) * items;
        let defines = |pass: Option<u32>| {
            let mut d = vec![
                (if ty == F32OrU32::F32 { "TYPE_F32" } else { "TYPE_U32" }, "1".to_string()),
                (primitive, "1".to_string()),
                ("EXCLUSIVE", u32::from(exclusive).to_string()),
                ("ITEMS", items.to_string()),
            ];
            let lookback = harness::lookback::defines(ctx, lookback_lanes, word).into_iter();
            // The simple single pass defines its own flags and state word: it takes only POLL_BURST.
            let simple = variant == Variant::SinglePassSimple;
            d.extend(lookback.filter(|(name, _)| !simple || *name == "POLL_BURST"));
            // --inject-fault: the tile that holds PLANTED.
            d.extend(args.common.fault_defines(PLANTED as u64, (PLANTED / tile as usize) as u64));
            if let Some(p) = pass {
                d.push(("PASS", p.to_string()));
                // Where reduce-then-scan reports a wrong subgroup shape among the control words.
                d.push(("STALLED_WORD", STALLED_WORD.to_string()));
            }
            d
        };
        let kernel = |shader, pass, buffers| {
            let desc = KernelDesc {
                shader,
                defines: defines(pass),
                buffers,
                // n, and the single pass's epoch
                push_constant_bytes: if single_pass { 8 } else { 4 },
                workgroup_size: workgroup,
                ..Default::default()
            };
            Kernel::new(ctx, &desc)
        };
        let kernels = match variant {
            Variant::SinglePass => vec![kernel("03_scan/single_pass.comp", None, 4)?],
            Variant::SinglePassSimple => vec![kernel("03_scan/single_pass_simple.comp", None, 4)?],
            _ => (1..=3).map(|pass| kernel("03_scan/reduce_then_scan.comp", Some(pass), 4)).collect::<Result<_>>()?,
        };
        Ok(Ok(Scanner { ctx, variant, tile, kernels, fallback, word, workgroup, lookback_lanes }))
    }

    fn single_pass(&self) -> bool {
        self.variant == Variant::SinglePass
    }
}
