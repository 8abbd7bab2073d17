//! 02_reduce — sum, product, min, max, and, or, xor of a whole array, five ways: from the
//! shared-memory tree to a bandwidth-bound single-dispatch reduce.
//!
//! 1. `tree`: shared-memory tree, log2(256) = 8 barrier rounds per workgroup, no subgroup ops.
//! 2. `hybrid`: `subgroupAdd` per subgroup, partials through shared memory (correct also when
//!    a workgroup has more subgroups than a subgroup has lanes).
//! 3. `subgroup`: subgroup reduction only, one partial per subgroup, no workgroup barrier.
//! 4. `shuffle`: a `subgroupShuffleXor` butterfly, for devices without subgroup arithmetic.
//! 5. `fast`: 16-byte loads, several in flight per invocation, one dispatch; each workgroup
//!    folds its partial into the result with one atomic where the operation has one, else the
//!    last workgroup to finish reduces the partials.
//!
//! Variants 1–4 run one element per invocation, on a 2D grid of workgroups when there are more
//! than 65535, and repeat the pass over the partials until one value is left. Every result is
//! checked against the CPU, exactly: f32 inputs are small integers (sums) or powers of two and
//! signs (products), whose results are exact in f32 in any order; one extra run of `add f32` on
//! real values in [-1, 1) keeps a stated rounding bound, where rounding is the lesson (one
//! planted value, n rounded up to a power of two, is larger than any such bound).
//! `--inject-fault` proves the checks fail on a broken kernel, on both kinds of input. Run: `cargo run --release --bin
//! 02_reduce [-- --bench] [--variant fast --op add --type f32 --size 1000003]`

use anyhow::{Context as _, Result};
use clap::ValueEnum;
use harness::reference::{self, Inputs, Op, Ty};
use harness::{or_all, Bench, Report};
use std::process::ExitCode;
use vk_compute::{Barrier, Buffer, Context, Kernel, Recorder};

mod args;
#[cfg(test)]
mod tests;
mod variants;

use args::{variant_name, Args, FastResult, Variant};

fn main() -> ExitCode {
    harness::run_sample::<Args>("02_reduce", run)
}

// ANCHOR: host_path
/// The host path of one variant on one input, as a Vulkan program runs it: upload the input
/// into a device buffer (scratch and result beside it), time the reduction on them under
/// `--bench`, then the checked run (poison the result, record the passes with a barrier after
/// each, submit and wait), read the result back and check it against the CPU's reduction.
fn reduce_and_check(
    reducer: &Reducer,
    name: &str,
    (ty, op, kind): (Ty, Op, Inputs),
    input: &[u32],
    bench: Option<&Bench>,
    report: &mut Report,
) -> Result<()> {
    let n = input.len() as u64;
    // Buffers: the input uploaded, the partials' scratch, the ticket and the result.
    let mut buffers = reducer.buffers(input)?;
    // Timed runs alternate the accumulators from the buffers' next one; the buffers learn
    // where the runs left off only once they ran.
    let mut slot = buffers.next_slot;
    let timed = Bench::time_if(bench, reducer.ctx, |rec| {
        reducer.record(rec, &buffers, input.len(), slot)?;
        slot ^= 1;
        Ok(())
    })?;
    buffers.next_slot = slot;
    // The checked run: the result poisoned first, then one reduction.
    let slot = reducer.run_once(&mut buffers).with_context(|| format!("{name} n={n}"))?;
    // Read back and verify against the CPU.
    let check = reducer.verify(&mut buffers, slot, ty, op, kind, input)?;
    // One read of every element.
    report.check_and_time(name, n, &check, None, timed.as_ref(), n * 4);
    Ok(())
}
// ANCHOR_END: host_path

/// The host path's steps, in the order it takes them.
impl<'c> Reducer<'c> {
    /// Upload `input` and allocate what the passes need. Bad sizes fail here, clearly.
    fn buffers(&self, input: &[u32]) -> Result<Buffers<'c>> {
        let n = input.len();
        let first_partials = match self.variant {
            Variant::Fast => self.fast_grid(n) as usize,
            Variant::Subgroup => n.div_ceil(WORKGROUP as usize).max(1) * self.max_subgroups as usize,
            _ => n.div_ceil(WORKGROUP as usize).max(1),
        };
        // fast: room for 64-bit flagged partials (zeroed below; each run leaves them zero).
        let words = if self.variant == Variant::Fast { 2 * first_partials } else { first_partials };
        let scratch = |name| Buffer::<u32>::new(self.ctx, name, words);
        let buffers = Buffers {
            input: Buffer::from_slice(self.ctx, "input", input)?,
            scratch: [scratch("partials A")?, scratch("partials B")?],
            ticket: Buffer::from_slice(self.ctx, "ticket", &[0u32, 0])?,
            output: Buffer::new(self.ctx, "result", WORKGROUP as usize)?,
            next_slot: 0,
        };
        let mut rec = Recorder::new(self.ctx)?;
        self.poison_output(&mut rec, &buffers, 0)?;
        rec.fill(&buffers.scratch[0], 0);
        // The poison (and identity), and the cleared partial flags land before the reduction runs.
        rec.barrier(Barrier::TransferToCompute);
        rec.submit_and_wait().context("poison the result, clear the partial flags")?;
        Ok(buffers)
    }

    /// Poison the result, so that a run that writes nothing cannot pass; with an atomic result
    /// the accumulator `slot` of the next run starts at the identity instead (each run resets
    /// the following run's).
    fn poison_output<'r>(&self, rec: &mut Recorder<'_, 'r>, b: &'r Buffers, slot: u32) -> Result<()> {
        if !self.atomic_result {
            rec.fill(&b.output, harness::POISON);
            return Ok(());
        }
        // Three disjoint fills (two fills of one range would need a barrier between them).
        let slot = slot as usize;
        if slot > 0 {
            rec.fill_range(&b.output, 0, slot, harness::POISON)?;
        }
        rec.fill_range(&b.output, slot, 1, self.identity)?;
        rec.fill_range(&b.output, slot + 1, b.output.len() - slot - 1, harness::POISON)?;
        Ok(())
    }

    /// The run that gets checked: poison the result first, then reduce once. Returns the
    /// result's slot in `output` (the accumulator with an atomic result, else 0); the buffers'
    /// next accumulator advances only once the run finished.
    fn run_once(&self, b: &mut Buffers) -> Result<u32> {
        let slot = b.next_slot;
        let mut rec = Recorder::new(self.ctx)?;
        self.poison_output(&mut rec, b, slot)?;
        // The poison (and the accumulator's identity) lands before the reduction writes.
        rec.barrier(Barrier::TransferToCompute);
        self.record(&mut rec, b, b.input.len(), slot)?;
        rec.submit_and_wait().context("the checked reduction")?;
        if !self.atomic_result {
            return Ok(0);
        }
        b.next_slot = slot ^ 1;
        Ok(slot)
    }

    /// Check the result in `output[slot]`, of the last run (waited for), against the CPU. fast:
    /// a flagged partial that never reached the last workgroup (counted in the ticket buffer's
    /// second word, over every run so far) fails the check too.
    fn verify(
        &self,
        b: &mut Buffers,
        slot: u32,
        ty: Ty,
        op: Op,
        kind: Inputs,
        input: &[u32],
    ) -> Result<harness::Check> {
        let got = b.output.download().context("read the result")?[slot as usize];
        let mut result = reference::check_reduce(ty, op, kind, input, got, self.chain(input.len()));
        if self.variant == Variant::Fast {
            let missing = b.ticket.download().context("read the missing-partials count")?[1];
            if missing > 0 {
                result.mismatches += 1;
                result.first.push(format!("{missing} partial(s) never reached the last workgroup"));
            }
        }
        Ok(result)
    }

    // ANCHOR: passes
    /// Record the whole reduction of `n` elements; the result lands in `output[0]` (with an
    /// atomic result, in the accumulator `output[slot]`, and the other one is reset for the
    /// next run). Recording changes nothing: the caller says which accumulator.
    fn record<'r>(&'r self, rec: &mut Recorder<'_, 'r>, b: &'r Buffers, n: usize, slot: u32) -> Result<()> {
        let mut m = n as u32;
        if self.variant == Variant::Fast {
            let partials = self.fast_grid(n) as usize;
            rec.dispatch(
                &self.kernel,
                &[
                    b.input.binding_for(n),
                    b.scratch[0].binding_for(partials),
                    b.ticket.binding_for(2),
                    b.output.binding_for(if self.atomic_result { 2 } else { 1 }),
                ],
                &[m, slot],
                [self.fast_grid(n), 1, 1],
            )?;
            return Ok(());
        }
        let mut src = b.input.binding_for(n);
        for pass in 0..64 {
            let groups = m.div_ceil(WORKGROUP).max(1);
            // `subgroup` leaves one partial per subgroup: slot j holds elements j·S..(j+1)·S
            // (S = the smallest subgroup size; slots of larger subgroups' gaps hold IDENTITY).
            let produced = match self.variant {
                Variant::Subgroup => m.div_ceil(WORKGROUP / self.max_subgroups),
                _ => groups,
            };
            // The last pass: all that is left fits one workgroup (one subgroup for `subgroup`).
            let last = match self.variant {
                Variant::Subgroup => m <= WORKGROUP / self.max_subgroups,
                _ => groups == 1,
            };
            let dst = if last { &b.output } else { &b.scratch[pass % 2] };
            if self.variant == Variant::Subgroup && self.ctx.fixed_subgroup_size().is_none() {
                // Sizes may vary: slots of subgroups that do not exist must hold the identity.
                rec.fill(dst, self.identity);
                // The fill lands before the pass writes its partials.
                rec.barrier(Barrier::TransferToCompute);
            }
            let first_pass = u32::from(pass == 0);
            let io = [src, dst.binding_for(produced as usize)];
            rec.dispatch(&self.kernel, &io, &[m, first_pass], self.ctx.grid(groups)?)?;
            // This pass's partials are written before the next pass (or the readback) reads them.
            rec.barrier(Barrier::ComputeToCompute);
            if last {
                break;
            }
            anyhow::ensure!(produced < m, "{:?}: pass {pass} does not shrink {m} elements", self.variant);
            src = dst.binding_for(produced as usize);
            m = produced;
        }
        Ok(())
    }
    // ANCHOR_END: passes
}

/// Invocations per workgroup for every variant: a power of two (the tree needs it), a multiple
/// of every subgroup size up to 128, and 32 subgroups at size 8 (more than a subgroup's lanes).
const WORKGROUP: u32 = 256;

/// The element where the deciding value is planted (in every run: min, max, and, or are then
/// decided by one element), and where `--inject-fault` strikes. Workgroup 1 of `fast` loads
/// it first (vec4 256); in the textbook variants, workgroup 4 of the first pass.
const PLANTED: usize = 4 * WORKGROUP as usize + 1;

fn run(ctx: &Context, args: &Args, report: &mut Report) -> Result<()> {
    let seed = args.common.seed();
    let variants = or_all(&args.variant, Variant::value_variants());
    let types = or_all(&args.ty, if args.common.bench { &[Ty::F32, Ty::U32] } else { Ty::value_variants() });
    args.common.check_size(ctx, 4)?;
    if !(1..=64).contains(&args.fast_unroll) || !(1..=1 << 20).contains(&args.fast_groups) {
        return vk_compute::setup_error("--fast-unroll must be in 1..=64 and --fast-groups in 1..=2^20");
    }
    if args.fast_fences && args.fast_result == FastResult::Atomic {
        return vk_compute::setup_error("--fast-fences is a last-workgroup hand-over: not with --fast-result atomic");
    }
    let ops = or_all(&args.op, if args.common.bench { &[Op::Add] } else { Op::value_variants() });
    if !types.iter().any(|&ty| ops.iter().any(|op| op.applies_to(ty))) {
        return vk_compute::setup_error(
            "no selected operation applies to the selected types (and/or/xor: integers; mul: f32)",
        );
    }
    // A fault strikes at PLANTED, in the second of at least two workgroups of `fast`.
    let smallest_faultable = (2 * WORKGROUP * args.fast_unroll * 4) as u64;
    if args.common.inject_fault.is_some()
        && (args.common.size.is_none_or(|n| n < smallest_faultable) || args.fast_groups < 2)
    {
        return vk_compute::setup_error(format!(
            "--inject-fault needs --size of at least {smallest_faultable} and --fast-groups of at least 2"
        ));
    }
    let mut bench = Bench::start(ctx, &args.common, report)?;
    // Odd sizes by default: empty, one element, a prime, 2^20+3, and a random size.
    let sizes = harness::run_sizes(ctx, &args.common, &[0, 1, 7, 1_000_003, harness::random::size(seed, 2, 1 << 21)]);
    for &ty in &types {
        for &op in ops.iter().filter(|op| op.applies_to(ty)) {
            // f32 add also runs on real values, with a rounding bound (not timed). The planted
            // value is larger than the bound, so a fault that loses or shifts it still fails.
            let real = ty == Ty::F32 && op == Op::Add && bench.is_none();
            for kind in [Inputs::Exact, Inputs::Real].into_iter().filter(|&k| k == Inputs::Exact || real) {
                let suffix = if kind == Inputs::Real { " (real inputs)" } else { "" };
                let mut reducers = Vec::new();
                for &variant in &variants {
                    let name = format!("{}{suffix}", variant_name(variant, op, ty));
                    if let Some(reducer) = report.skip_unless(&name, Reducer::new(ctx, variant, ty, op, args)?) {
                        report.pipeline_stats(&name, [&reducer.kernel])?;
                        reducers.push((name, reducer));
                    }
                }
                for &n in &sizes {
                    let input = reference::reduce_input(ty, op, kind, n as usize, seed, PLANTED);
                    if let Some(bench) = &mut bench {
                        bench.copy_ceiling(ctx, n * 4, report)?;
                    }
                    for (name, reducer) in &reducers {
                        reduce_and_check(reducer, name, (ty, op, kind), &input, bench.as_ref(), report)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// One variant compiled for one type and operation (built by `Reducer::new`, in variants.rs).
struct Reducer<'c> {
    ctx: &'c Context,
    variant: Variant,
    kernel: Kernel<'c>,
    identity: u32,
    /// subgroup: output slots per workgroup (workgroup size / smallest subgroup size).
    max_subgroups: u32,
    /// fast: the most workgroups, and loads in flight per invocation.
    fast_groups: u32,
    fast_unroll: u32,
    /// fast: each workgroup adds its partial to the result atomically (no last workgroup).
    atomic_result: bool,
}

/// Device buffers for one input: the input, two ping-pong scratch buffers for the partials,
/// the ticket of the fast variant, and the result.
struct Buffers<'c> {
    input: Buffer<'c, u32>,
    scratch: [Buffer<'c, u32>; 2],
    ticket: Buffer<'c, u32>,
    output: Buffer<'c, u32>,
    /// With an atomic result: the accumulator (output[0] or output[1]) the next run adds into.
    /// Each run resets the other one for the run after it. Advanced only for runs that were
    /// submitted and finished, never while recording.
    next_slot: u32,
}

impl Reducer<'_> {
    /// fast: workgroups for `n` elements: one per WORKGROUP × UNROLL vec4s, at most
    /// --fast-groups and the device's grid width (each then loops over the array).
    fn fast_grid(&self, n: usize) -> u32 {
        let per_group = (WORKGROUP * self.fast_unroll) as usize;
        let most = self.fast_groups.min(self.ctx.caps().max_workgroup_count[0]);
        (n / 4).div_ceil(per_group).clamp(1, most as usize) as u32
    }
}
