//! 03_scan — prefix sums (inclusive and exclusive, u32 and f32), from subgroup primitives to a
//! single-pass device-wide scan with decoupled look-back.
//!
//! Subgroup level, three ways to scan one value per lane: `hillis` (Hillis-Steele in shared
//! memory), `shuffle` (a `subgroupShuffleUp` loop whose step count follows gl_SubgroupSize) and
//! `intrinsic` (`subgroupInclusiveAdd` / `subgroupExclusiveAdd`). Workgroup level: subgroup scans
//! plus a scan of the subgroup totals (chunked, so 32 subgroups of 8 lanes work). Device level:
//! each primitive runs inside the portable three-pass reduce-then-scan; `single-pass` is the
//! chained scan with decoupled look-back, which falls back to reduce-then-scan if workgroups
//! make no progress. Run: `cargo run --release --bin 03_scan [-- --bench] [--variant single-pass]`

use anyhow::{Context as _, Result};
use clap::{Parser, ValueEnum};
use harness::{compare_exact, compare_floats, out, BenchRow, Check, Report};
use std::process::ExitCode;
use vk_compute::{Barrier, Buffer, Context, Kernel, KernelDesc, Recorder, SubgroupOps};

#[derive(Parser, Debug)]
#[command(about = "Prefix sums from subgroup shuffles to a single-pass decoupled look-back scan")]
struct Args {
    #[command(flatten)]
    common: harness::CommonArgs,
    /// Which variants to run (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    variant: Vec<Variant>,
    /// Only inclusive scans.
    #[arg(long, conflicts_with = "exclusive")]
    inclusive: bool,
    /// Only exclusive scans.
    #[arg(long)]
    exclusive: bool,
    /// Which element types (default: both).
    #[arg(long = "type", value_enum, value_delimiter = ',')]
    ty: Vec<Ty>,
    /// Invocations per workgroup (a multiple of the subgroup size), the single pass's
    /// look-back subgroup included.
    #[arg(long, default_value_t = 256)]
    workgroup: u32,
    /// Elements per invocation (a multiple of 4); a tile is (workgroup − look-back subgroup) ×
    /// items elements.
    #[arg(long, default_value_t = 32)]
    items: u32,
    /// single-pass: who looks back over the predecessors' states (auto: `subgroup` on a GPU
    /// whose subgroup size is fixed, else `narrow`).
    #[arg(long, value_enum, default_value_t = Lookback::Auto)]
    lookback: Lookback,
    /// single-pass experiment: poll the whole look-back window from the start, instead of one
    /// invocation first waiting for the closest predecessor.
    #[arg(long, hide = true)]
    no_prewait: bool,
    /// single-pass timing experiment: every tile starts from 0 instead of looking back (the
    /// result is not a scan and is not checked); shows what the look-back costs.
    #[arg(long, hide = true)]
    skip_lookback: bool,
    /// single-pass experiment (--bench): count the look-back's windows and repolls per tile
    /// (the pre-wait's polls of the closest predecessor are not counted).
    #[arg(long, hide = true)]
    lookback_stats: bool,
    /// single-pass experiment: 64-bit words from one tile's state to the next (16: one state
    /// per 128-byte cache line; 1: packed, as before session 6).
    #[arg(long, hide = true, default_value_t = 16)]
    state_stride: u32,
}

/// Who looks back in the single pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Lookback {
    /// `subgroup` on a GPU whose subgroup size is fixed and at most an eighth of the workgroup,
    /// else `narrow`; `narrow` with --skip-lookback.
    Auto,
    /// The workgroup's last subgroup holds no elements and looks back while the others load.
    Subgroup,
    /// The first subgroup, after the tile is loaded and scanned: gl_SubgroupSize tiles per
    /// round trip.
    Narrow,
    /// The whole workgroup, after the tile is loaded and scanned: `workgroup` tiles per round
    /// trip.
    Wide,
}

harness::sample_args!(Args);

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Variant {
    Hillis,
    Shuffle,
    Intrinsic,
    SinglePass,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Ty {
    U32,
    F32,
}

fn main() -> ExitCode {
    harness::run_sample::<Args>("03_scan", run)
}

fn run(ctx: &Context, args: &Args, report: &mut Report) -> Result<()> {
    let seed = args.common.seed();
    if let Some(n) = args.common.size {
        harness::check_size(ctx, n, 4)?;
    }
    let variants = if args.variant.is_empty() { Variant::value_variants().to_vec() } else { args.variant.clone() };
    check_single_pass_options(args, &variants)?;
    let types = if args.ty.is_empty() { Ty::value_variants().to_vec() } else { args.ty.clone() };
    let modes: Vec<bool> = match (args.inclusive, args.exclusive) {
        (true, _) => vec![false],
        (_, true) => vec![true],
        _ if args.common.bench => vec![false],
        _ => vec![false, true],
    };
    if args.common.bench {
        return bench(ctx, args, &variants, &types, report);
    }
    // Odd sizes: empty, one, a prime, 2^20+3, 2^22+3, and a random size.
    let max = ctx.caps.max_storage_buffer_range / 4;
    let sizes: Vec<u64> = match args.common.size {
        Some(n) => vec![n],
        None => [0, 1, 7, 1_000_003, (1 << 22) + 3, harness::random::size(seed, 2, 1 << 22)]
            .into_iter()
            .filter(|&n| n <= max)
            .collect(),
    };
    for &ty in &types {
        let inputs: Vec<Vec<u32>> = sizes.iter().map(|&n| make_input(ty, n as usize, seed)).collect();
        for &exclusive in &modes {
            for &variant in &variants {
                let name = variant_name(variant, ty, exclusive);
                let Some(scanner) = report.skip_unless(&name, Scanner::new(ctx, variant, ty, exclusive, args)?) else {
                    continue;
                };
                for input in &inputs {
                    let (got, fell_back) = scanner.scan(input).with_context(|| format!("{name} n={}", input.len()))?;
                    let mut result = check(ty, exclusive, input, &got, scanner.chain(input.len()));
                    if fell_back {
                        result.rule += "; single pass stalled, result from the reduce-then-scan fallback";
                    }
                    report.check(&name, Some(input.len() as u64), &result);
                }
            }
        }
    }
    Ok(())
}

fn variant_name(variant: Variant, ty: Ty, exclusive: bool) -> String {
    let v = format!("{variant:?}").to_lowercase();
    format!("{v} {} {ty:?}", if exclusive { "exclusive" } else { "inclusive" }).to_lowercase()
}

// ANCHOR: scanner
/// The pipelines of one variant for one type and mode.
struct Scanner<'c> {
    ctx: &'c Context,
    /// Elements per invocation, and per tile (the invocations that load × items: the single
    /// pass's look-back subgroup loads none).
    items: u32,
    tile: u32,
    /// reduce-then-scan: passes 1, 2, 3; single-pass: one kernel.
    kernels: Vec<Kernel<'c>>,
    /// single-pass: 64-bit words from one tile's state to the next's.
    state_stride: usize,
    /// single-pass only: the reduce-then-scan to fall back to when workgroups stall.
    fallback: Option<Box<Scanner<'c>>>,
}

/// Device buffers for one input.
struct Buffers<'c> {
    input: Buffer<'c, u32>,
    output: Buffer<'c, u32>,
    /// reduce-then-scan: per-tile sums, then their prefixes.
    partials: Buffer<'c, u32>,
    /// single-pass: tile t's state (flag << 32 | value bits) at index t × state stride.
    tile_states: Buffer<'c, u64>,
    /// single-pass: [next tile, tiles written, windows read, repolls (`--lookback-stats`)]
    /// (reset every run), stalled (reset once, so it covers every run on these buffers).
    control: Buffer<'c, u32>,
}

/// single-pass: the flag of a tile state that holds the inclusive prefix (HAS_PREFIX in the shader).
const HAS_PREFIX: u64 = 2;
/// single-pass: the control words, in the shader's order (the first `STALLED` are reset every run).
const NEXT_TILE: usize = 0;
const TILES_WRITTEN: usize = 1;
const STAT_WINDOWS: usize = 2;
const STAT_REPOLLS: usize = 3;
const STALLED: usize = 4;

impl<'c> Scanner<'c> {
    fn new(ctx: &'c Context, variant: Variant, ty: Ty, exclusive: bool, args: &Args) -> Result<Result<Self, String>> {
        let (workgroup, items) = (args.workgroup, args.items);
        if items == 0 || items % 4 != 0 || items > 64 {
            return vk_compute::setup_error(format!("--items {items}: must be a multiple of 4 in 4..=64"));
        }
        // The subgroup totals are written by each subgroup's last lane, and the single pass
        // lays tiles out by subgroup: no partial subgroups.
        let largest = ctx.caps.subgroup_size_range().1;
        if workgroup == 0 || workgroup % largest != 0 {
            return vk_compute::setup_error(format!(
                "--workgroup {workgroup}: must be a multiple of the largest subgroup size {largest}"
            ));
        }
        // A varying subgroup size without computeFullSubgroups could leave a subgroup partial
        // even then. (Without subgroup size control the size is fixed: full subgroups.)
        if let Some(control) = &ctx.caps.size_control {
            if control.min_size != control.max_size && !control.full_subgroups {
                return Ok(Err(format!(
                    "subgroup sizes vary ({}..={}) and the device cannot require full subgroups",
                    control.min_size, control.max_size
                )));
            }
        }
        let (primitive, needs) = match variant {
            Variant::Hillis => ("SCAN_HILLIS", SubgroupOps::BASIC),
            Variant::Shuffle => ("SCAN_SHUFFLE", SubgroupOps::BASIC | SubgroupOps::SHUFFLE_RELATIVE),
            Variant::Intrinsic => ("SCAN_INTRINSIC", SubgroupOps::BASIC | SubgroupOps::ARITHMETIC),
            Variant::SinglePass => (
                "SCAN_INTRINSIC",
                SubgroupOps::BASIC
                    | SubgroupOps::ARITHMETIC
                    | SubgroupOps::BALLOT
                    | SubgroupOps::VOTE
                    | SubgroupOps::SHUFFLE,
            ),
        };
        let ops = ctx.caps.subgroup_ops;
        if !ops.has(needs) {
            return Ok(Err(format!("the device lacks subgroup operations {:?}", ops.missing(needs))));
        }
        if variant == Variant::SinglePass && !ctx.caps.has_int64_buffer_atomics() {
            return Ok(Err("the device lacks 64-bit buffer atomics (shaderInt64, shaderBufferInt64Atomics), \
                 which hold each tile's flag and value in one word"
                .into()));
        }
        let (lookback, lookback_lanes) = match variant {
            Variant::SinglePass => match single_pass_lookback(ctx, args)? {
                Ok(chosen) => chosen,
                Err(reason) => return Ok(Err(reason)),
            },
            _ => (Lookback::Narrow, 0),
        };
        let defines = |pass: Option<u32>| {
            let mut d = vec![
                (if ty == Ty::F32 { "TYPE_F32" } else { "TYPE_U32" }, "1".to_string()),
                (primitive, "1".to_string()),
                ("EXCLUSIVE", u32::from(exclusive).to_string()),
                ("ITEMS", items.to_string()),
                ("WIDE_LOOKBACK", u32::from(lookback == Lookback::Wide).to_string()),
                ("PREWAIT", u32::from(!args.no_prewait).to_string()),
                ("SKIP_LOOKBACK", u32::from(args.skip_lookback).to_string()),
                ("LOOKBACK_SUBGROUP", u32::from(lookback_lanes > 0).to_string()),
                ("LOOKBACK_LANES", lookback_lanes.to_string()),
                ("LOOKBACK_STATS", u32::from(args.lookback_stats).to_string()),
                ("STATE_STRIDE", args.state_stride.to_string()),
            ];
            if let Some(p) = pass {
                d.push(("PASS", p.to_string()));
            }
            d
        };
        let kernel = |shader, pass, buffers| {
            let desc = KernelDesc {
                shader,
                defines: defines(pass),
                buffers,
                push_constant_bytes: 4,
                workgroup_size: workgroup,
                ..Default::default()
            };
            Kernel::new(ctx, &desc)
        };
        if variant == Variant::SinglePass {
            let fallback = Scanner::new(ctx, Variant::Intrinsic, ty, exclusive, args)?.map(Box::new).ok();
            let kernels = vec![kernel("03_scan/single_pass.comp", None, 4)?];
            let tile = (workgroup - lookback_lanes) * items;
            let state_stride = args.state_stride as usize;
            return Ok(Ok(Scanner { ctx, items, tile, kernels, state_stride, fallback }));
        }
        let kernels =
            (1..=3).map(|pass| kernel("03_scan/reduce_then_scan.comp", Some(pass), 3)).collect::<Result<_>>()?;
        Ok(Ok(Scanner { ctx, items, tile: workgroup * items, kernels, state_stride: 1, fallback: None }))
    }

    /// Tiles over `n` elements: one workgroup each (single pass, and passes 1 and 3 of
    /// reduce-then-scan).
    fn tiles(&self, n: usize) -> u32 {
        (n as u32).div_ceil(self.tile).max(1)
    }

    fn single_pass(&self) -> bool {
        self.kernels.len() == 1
    }

    fn buffers(&self, input: &[u32]) -> Result<Buffers<'c>> {
        let tiles = self.tiles(input.len()) as usize;
        // Each kind of scan binds only its own scratch buffer: the other gets one element.
        let (partials, states) = if self.single_pass() { (1, tiles * self.state_stride) } else { (tiles, 1) };
        let ctx = self.ctx;
        let b = Buffers {
            input: Buffer::from_slice(ctx, "input", input)?,
            output: Buffer::new(ctx, "output", input.len())?,
            partials: Buffer::new(ctx, "partials", partials)?,
            tile_states: Buffer::new(ctx, "tile states", states)?,
            control: Buffer::from_slice(ctx, "control", &[0u32; STALLED + 1])?,
        };
        let mut rec = Recorder::new(ctx)?;
        rec.fill(&b.output, harness::POISON);
        // The poison lands before the scan writes the output.
        rec.barrier(Barrier::TransferToCompute);
        rec.submit_and_wait()?;
        Ok(b)
    }

    // ANCHOR: record
    /// Record one whole scan of `n` elements into `b.output`.
    fn record<'r>(&'r self, rec: &mut Recorder<'_, 'r>, b: &'r Buffers, n: usize) -> Result<()> {
        let tiles = self.tiles(n);
        let io = [b.input.binding(), b.output.binding()];
        if self.single_pass() {
            rec.fill(&b.tile_states, 0);
            // The tile counters and the look-back statistics; not `stalled` (the last word).
            rec.fill_range(&b.control, NEXT_TILE, STALLED, 0).context("reset the tile counters")?;
            // Tile states (NOT_READY) and the tile counter are zero before any workgroup reads them.
            rec.barrier(Barrier::TransferToCompute);
            let bindings = [io[0], io[1], b.tile_states.binding(), b.control.binding()];
            rec.dispatch(&self.kernels[0], &bindings, &(n as u32), [tiles, 1, 1])?;
            // The output is complete before anything reads it (readback or the next repeat).
            rec.barrier(Barrier::ComputeToCompute);
            return Ok(());
        }
        let bindings = [io[0], io[1], b.partials.binding()];
        rec.dispatch(&self.kernels[0], &bindings, &(n as u32), [tiles, 1, 1])?;
        // Pass 1's tile sums are written before pass 2 scans them.
        rec.barrier(Barrier::ComputeToCompute);
        rec.dispatch(&self.kernels[1], &bindings, &tiles, [1, 1, 1])?;
        // Pass 2's prefixes are written before pass 3 reads them.
        rec.barrier(Barrier::ComputeToCompute);
        rec.dispatch(&self.kernels[2], &bindings, &(n as u32), [tiles, 1, 1])?;
        // The output is complete before anything reads it.
        rec.barrier(Barrier::ComputeToCompute);
        Ok(())
    }
    // ANCHOR_END: record

    /// Scan `input` on the GPU; a stalled single pass is redone by reduce-then-scan (then the
    /// flag is true).
    fn scan(&self, input: &[u32]) -> Result<(Vec<u32>, bool)> {
        let mut b = self.buffers(input)?;
        let mut rec = Recorder::new(self.ctx)?;
        self.record(&mut rec, &b, input.len())?;
        rec.submit_and_wait()?;
        if self.single_pass() && !b.completed(self.tiles(input.len()), self.state_stride)? {
            out(format!(
                "  single-pass n={}: a workgroup gave up waiting for its predecessor (no forward progress?); \
                 falling back to reduce-then-scan",
                input.len()
            ));
            let fallback = self.fallback.as_ref().context("single-pass stalled and there is no fallback")?;
            return Ok((fallback.scan(input)?.0, true));
        }
        Ok((b.output.download()?, false))
    }

    /// Longest chain of sequential float additions into one output beyond the tree levels:
    /// the items of one invocation plus the carries between tiles (single-pass) or between
    /// chunks of partials (reduce-then-scan).
    fn chain(&self, n: usize) -> u64 {
        let tiles = n.div_ceil(self.tile as usize) as u64;
        let carries = if self.single_pass() { tiles } else { tiles.div_ceil(u64::from(self.tile)) + 1 };
        carries + u64::from(self.items)
    }
}
// ANCHOR_END: scanner

/// The single pass's options that no other variant reads, and the experiments that only a bench
/// reports, checked once: a switch that would change nothing is an error, not a silent no-op.
fn check_single_pass_options(args: &Args, variants: &[Variant]) -> Result<()> {
    if !(1..=64).contains(&args.state_stride) {
        return vk_compute::setup_error(format!("--state-stride {}: must be in 1..=64", args.state_stride));
    }
    let single_pass_only = args.lookback != Lookback::Auto
        || args.state_stride != 16
        || args.no_prewait
        || args.skip_lookback
        || args.lookback_stats;
    if single_pass_only && !variants.contains(&Variant::SinglePass) {
        return vk_compute::setup_error(
            "--lookback, --state-stride, --no-prewait, --skip-lookback and --lookback-stats change the single pass only: \
             add --variant single-pass",
        );
    }
    if (args.skip_lookback || args.lookback_stats) && !args.common.bench {
        return vk_compute::setup_error("--skip-lookback and --lookback-stats are bench experiments: add --bench");
    }
    if args.skip_lookback && (args.no_prewait || args.state_stride != 16 || args.lookback_stats) {
        return vk_compute::setup_error(
            "--skip-lookback publishes and polls no states: not with --no-prewait, --state-stride or --lookback-stats",
        );
    }
    Ok(())
}

/// The single pass's look-back form (`auto` resolved) and the invocations it takes from the
/// tile (the look-back subgroup's lanes, else 0).
fn single_pass_lookback(ctx: &Context, args: &Args) -> Result<Result<(Lookback, u32), String>> {
    let fixed = ctx.fixed_subgroup_size();
    let lookback = match args.lookback {
        Lookback::Auto if args.skip_lookback => Lookback::Narrow,
        // A CPU driver runs a workgroup's subgroups one after another, so a look-back subgroup
        // overlaps nothing there (and lavapipe's benches stalled more often with it). Its cost,
        // invocations that load nothing, was measured at an eighth of the workgroup (32 of 256
        // on the H200); larger shares stay opt-in.
        Lookback::Auto => match fixed {
            Some(size) if !ctx.caps.is_cpu() && args.workgroup >= 8 * size => Lookback::Subgroup,
            _ => Lookback::Narrow,
        },
        chosen => chosen,
    };
    // Switches that the chosen path ignores: an error, not a silent no-op.
    if args.skip_lookback && lookback != Lookback::Narrow {
        return vk_compute::setup_error("--skip-lookback replaces the narrow look-back: use it with --lookback narrow");
    }
    if args.lookback_stats && lookback == Lookback::Wide {
        return vk_compute::setup_error("--lookback-stats counts the subgroup and narrow look-backs only");
    }
    if lookback != Lookback::Subgroup {
        return Ok(Ok((lookback, 0)));
    }
    let Some(size) = fixed else {
        return Ok(Err("--lookback subgroup needs a fixed subgroup size (pass --subgroup-size N)".into()));
    };
    if args.workgroup < 2 * size {
        return vk_compute::setup_error(format!(
            "--lookback subgroup: --workgroup {} leaves no subgroup of {size} lanes for the elements",
            args.workgroup
        ));
    }
    Ok(Ok((lookback, size)))
}

impl Buffers<'_> {
    /// Whether a single pass over `tiles` tiles finished cleanly: every tile claimed, written
    /// and published, no stall.
    fn completed(&mut self, tiles: u32, state_stride: usize) -> Result<bool> {
        let control = self.control.download().context("read the tile counters")?;
        let states = self.tile_states.download().context("read the tile states")?;
        let all_published = states.iter().step_by(state_stride).all(|&s| s >> 32 == HAS_PREFIX);
        let counted = |word: usize| control[word] == tiles;
        Ok(counted(NEXT_TILE) && counted(TILES_WRITTEN) && control[STALLED] == 0 && all_published)
    }
}

fn make_input(ty: Ty, n: usize, seed: u64) -> Vec<u32> {
    match ty {
        Ty::U32 => harness::random::u32s(n, seed, 0, u32::MAX),
        Ty::F32 => harness::random::f32s(n, seed, -1.0, 1.0).iter().map(|x| x.to_bits()).collect(),
    }
}

// ANCHOR: check
/// u32: exact (wrapping). f32: element i within k·2^-24·Σ_{j≤i}|x_j| of the f64 prefix sum,
/// k = 2·log2(n) + chain + 4 (the rounding bound of the summation order).
fn check(ty: Ty, exclusive: bool, input: &[u32], got: &[u32], chain: u64) -> Check {
    match ty {
        Ty::U32 => {
            let mut running = 0u32;
            let want: Vec<u32> = input
                .iter()
                .map(|&x| {
                    let before = running;
                    running = running.wrapping_add(x);
                    if exclusive {
                        before
                    } else {
                        running
                    }
                })
                .collect();
            compare_exact(got, &want)
        }
        Ty::F32 => {
            let (mut running, mut abs) = (0f64, 0f64);
            let mut want = Vec::with_capacity(input.len());
            let mut scale = Vec::with_capacity(input.len());
            for &bits in input {
                let x = f64::from(f32::from_bits(bits));
                let before = running;
                running += x;
                abs += x.abs();
                want.push(if exclusive { before } else { running });
                scale.push(abs);
            }
            let k = 2.0 * (input.len().max(2) as f64).log2().ceil() + chain as f64 + 4.0;
            let u = f64::from(f32::EPSILON) / 2.0;
            let got: Vec<f32> = got.iter().map(|&b| f32::from_bits(b)).collect();
            compare_floats(&got, &want, |i| k * u * scale[i], &format!("|got - f64 prefix| <= {k}·2^-24·Σ|x| up to i"))
        }
    }
}
// ANCHOR_END: check

// ANCHOR: bench
/// Sizes 2^10 … 2^28 (bounded by the device), GB/s counting one read and one write of every
/// element, a copy of the same bytes measured in the same run, each result checked.
fn bench(ctx: &Context, args: &Args, variants: &[Variant], types: &[Ty], report: &mut Report) -> Result<()> {
    let seed = args.common.seed();
    // One workgroup per tile: the tile count must fit one dispatch (the single pass's tiles are
    // smaller by its look-back subgroup).
    let lookback_lanes = match variants.contains(&Variant::SinglePass) {
        true => single_pass_lookback(ctx, args)?.map_or(0, |(_, lanes)| lanes),
        false => 0,
    };
    let tile = u64::from(args.workgroup - lookback_lanes) * u64::from(args.items);
    let sizes = harness::bench_sizes(ctx, args.common.size, tile);
    let exclusive = args.exclusive;
    let timing = args.common.timing();
    harness::start_bench(ctx, &timing, report)?;
    for &ty in types {
        for &n in &sizes {
            let input = make_input(ty, n as usize, seed);
            let copy = harness::copy_ceiling(ctx, n * 4, &timing)?;
            let copy_gbps = copy.gbps;
            report.bench_row(copy);
            for &variant in variants {
                let name = variant_name(variant, ty, exclusive);
                let Some(scanner) = report.skip_unless(&name, Scanner::new(ctx, variant, ty, exclusive, args)?) else {
                    continue;
                };
                for kernel in &scanner.kernels {
                    report.pipeline_stats(&name, kernel)?;
                }
                let mut b = scanner.buffers(&input)?;
                let times = harness::time_gpu(ctx, &timing, |rec| scanner.record(rec, &b, input.len()))?;
                let skip_lookback = args.skip_lookback && scanner.single_pass();
                if scanner.single_pass()
                    && !skip_lookback
                    && !b.completed(scanner.tiles(input.len()), scanner.state_stride)?
                {
                    report.skip(&name, "workgroups stalled (no forward progress): not timed");
                    continue;
                }
                if args.lookback_stats && scanner.single_pass() {
                    let control = b.control.download().context("read the look-back statistics")?;
                    let tiles = f64::from(scanner.tiles(input.len()));
                    out(format!(
                        "  {name} n={n}: look-back windows read per tile {:.2}, of them repolls {:.2} (last run)",
                        f64::from(control[STAT_WINDOWS]) / tiles,
                        f64::from(control[STAT_REPOLLS]) / tiles
                    ));
                }
                let got = b.output.download()?;
                if skip_lookback {
                    report.skip(&name, "--skip-lookback timing experiment: the result is not a scan, not checked");
                } else {
                    report.check(&name, Some(n), &check(ty, exclusive, &input, &got, scanner.chain(input.len())));
                }
                report.bench_row(BenchRow::new(&name, n, 2 * n * 4, 0, &times, Some(copy_gbps)));
            }
        }
    }
    Ok(())
}
// ANCHOR_END: bench
