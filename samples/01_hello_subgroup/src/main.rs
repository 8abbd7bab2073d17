//! 01_hello_subgroup — the classic first subgroup program, made correct at every subgroup size.
//!
//! One workgroup; each lane takes `lane + 1`. The shader shows `subgroupAdd` (the subgroup's
//! sum), `subgroupBallot` + `subgroupBallotBitCount` (how many lanes have `lane % 3 == 0`),
//! `subgroupBroadcastFirst` and a `subgroupShuffle` from `(lane + 1) % gl_SubgroupSize`, a lane
//! that exists at every size. It also runs the most common bug — `subgroupAdd` inside
//! `if (lane == 0)` — and checks that it returns what the specification says: lane 0's own value.
//! The CPU computes the expected values from the subgroups the device really formed.
//!
//! Run: `cargo run --release --bin 01_hello_subgroup [-- --validate] [--size 100]`

use anyhow::Result;
use clap::Parser;
use harness::{out, Check, Report};
use std::collections::BTreeMap;
use std::process::ExitCode;
use vk_compute::{Buffer, Context, Kernel, KernelDesc, Recorder, SubgroupOps, Unsupported};

#[derive(Parser, Debug)]
#[command(about = "Hello, subgroup: sum, ballot count, broadcast and shuffle in one workgroup")]
struct Args {
    #[command(flatten)]
    common: harness::CommonArgs,
}

harness::sample_args!(Args);

/// What one lane recorded; mirrors `struct Lane` in `glsl/01_hello_subgroup/hello.comp`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
struct Lane {
    subgroup_id: u32,
    lane: u32,
    subgroup_size: u32,
    sum: u32,
    multiples_of_3: u32,
    first: u32,
    shuffled: u32,
    sum_inside_if: u32,
}

const NEEDED: u32 = SubgroupOps::BASIC | SubgroupOps::ARITHMETIC | SubgroupOps::BALLOT | SubgroupOps::SHUFFLE;

fn main() -> ExitCode {
    harness::run_sample::<Args>("01_hello_subgroup", run)
}

fn run(ctx: &Context, args: &Args, report: &mut Report) -> Result<()> {
    args.common.reject_bench_options("01_hello_subgroup")?;
    if let Some(reason) = ctx.missing_subgroup_ops(NEEDED) {
        return Err(Unsupported(reason).into());
    }
    // 64 is the seed article's workgroup; 100 leaves a partial subgroup at sizes 8, 16, 32, 64.
    let sizes = match args.common.size {
        Some(n) => vec![u32::try_from(n).unwrap_or(u32::MAX)],
        None => vec![64, 100],
    };
    for workgroup_size in sizes {
        let lanes = hello(ctx, workgroup_size)?;
        let check = verify(&lanes, workgroup_size, ctx.fixed_subgroup_size());
        report.check("hello", Some(u64::from(workgroup_size)), &check);
    }
    Ok(())
}

// ANCHOR: gpu
/// Dispatch one workgroup of `workgroup_size` lanes; return what every lane recorded.
fn hello(ctx: &Context, workgroup_size: u32) -> Result<Vec<Lane>> {
    let kernel = Kernel::new(
        ctx,
        &KernelDesc { shader: "01_hello_subgroup/hello.comp", buffers: 1, workgroup_size, ..Default::default() },
    )?;
    let mut lanes = Buffer::<Lane>::new(ctx, "lanes", workgroup_size as usize)?;
    let mut rec = Recorder::new(ctx)?;
    rec.fill(&lanes, harness::POISON);
    // The poison fill must land before the shader overwrites the buffer.
    rec.barrier(vk_compute::Barrier::TransferToCompute);
    rec.dispatch(&kernel, &[lanes.binding()], &(), [1, 1, 1])?;
    rec.submit_and_wait()?;
    lanes.download()
}
// ANCHOR_END: gpu

// ANCHOR: verify
/// Check every lane against values computed from the subgroups the device formed.
fn verify(lanes: &[Lane], workgroup_size: u32, fixed_size: Option<u32>) -> Check {
    let mut got = Vec::new();
    let mut want = Vec::new();
    let mut by_subgroup: BTreeMap<u32, Vec<&Lane>> = BTreeMap::new();
    for lane in lanes {
        by_subgroup.entry(lane.subgroup_id).or_default().push(lane);
    }
    let size = lanes.first().map(|l| l.subgroup_size).unwrap_or(0);
    if let Some(fixed) = fixed_size {
        got.push(("subgroup size".to_string(), size));
        want.push(("subgroup size".to_string(), fixed));
    }
    // A lane the shader never wrote still holds the poison pattern.
    let written = lanes.iter().filter(|l| l.lane != harness::POISON).count() as u32;
    got.push(("lanes written".into(), written));
    want.push(("lanes written".into(), workgroup_size));
    // The expected values below come from the IDs the device reported: check first that they
    // describe a real partition of the workgroup. Each (subgroup, lane) once, lanes below the
    // size, subgroup IDs 0, 1, … without gaps, and as many subgroups as the size implies.
    let distinct = lanes.iter().map(|l| (l.subgroup_id, l.lane)).collect::<std::collections::BTreeSet<_>>().len();
    got.push(("distinct (subgroup, lane) pairs".into(), distinct as u32));
    want.push(("distinct (subgroup, lane) pairs".into(), workgroup_size));
    let lanes_in_range = lanes.iter().filter(|l| l.lane < size).count() as u32;
    got.push(("lanes below gl_SubgroupSize".into(), lanes_in_range));
    want.push(("lanes below gl_SubgroupSize".into(), workgroup_size));
    let ids: Vec<u32> = by_subgroup.keys().copied().collect();
    got.push(("subgroup IDs without gaps".into(), u32::from(ids.iter().enumerate().all(|(i, &id)| id == i as u32))));
    want.push(("subgroup IDs without gaps".into(), 1));
    got.push(("subgroups".into(), by_subgroup.len() as u32));
    want.push(("subgroups".into(), workgroup_size.div_ceil(size.max(1))));
    for (id, members) in &by_subgroup {
        let present: Vec<u32> = members.iter().map(|l| l.lane).collect();
        let sum = present.iter().fold(0u32, |s, l| s.wrapping_add(l.wrapping_add(1)));
        let multiples = present.iter().filter(|l| *l % 3 == 0).count() as u32;
        let first = present.iter().min().map_or(0, |l| l + 1);
        if members.len() < size as usize || *id < 2 {
            out(format!(
                "  subgroup {id}: {} lanes of {size}: sum={} (want {sum}) count={} (want {multiples}) bcast={} (want {first}) \
                 shuffled[lane 0]={} | subgroupAdd inside if (lane == 0) = {} (lane 0's own value, as specified)",
                members.len(),
                members[0].sum,
                members[0].multiples_of_3,
                members[0].first,
                members.iter().find(|l| l.lane == 0).map_or(0, |l| l.shuffled),
                members.iter().find(|l| l.lane == 0).map_or(0, |l| l.sum_inside_if),
            ));
        }
        for l in members {
            let at = |what: &str| format!("subgroup {id} lane {} {what}", l.lane);
            got.extend([
                (at("size"), l.subgroup_size),
                (at("sum"), l.sum),
                (at("count"), l.multiples_of_3),
                (at("bcast"), l.first),
            ]);
            want.extend([(at("size"), size), (at("sum"), sum), (at("count"), multiples), (at("bcast"), first)]);
            // The shuffle's source lane may be inactive in a partial subgroup: undefined, skip.
            let source = (l.lane + 1) % size.max(1);
            if present.contains(&source) {
                got.push((at("shuffled"), l.shuffled));
                want.push((at("shuffled"), source + 1));
            }
            // Inside `if (lane == 0)` only lane 0 is active: its "sum" is its own value, 1.
            got.push((at("sum inside if"), l.sum_inside_if));
            want.push((at("sum inside if"), if l.lane == 0 { 1 } else { 0 }));
        }
    }
    let mut check = harness::compare_exact(&got, &want);
    check.rule = format!("exact, {} subgroups of size {size}", by_subgroup.len());
    check
}
// ANCHOR_END: verify

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs on the default device (lavapipe in CI); fails, never passes, without one.
    #[test]
    fn hello_passes_on_full_and_partial_subgroups() {
        let ctx = Context::new(Default::default()).expect("a Vulkan device (lavapipe in CI)");
        for workgroup_size in [1, 7, 64, 100] {
            let lanes = hello(&ctx, workgroup_size).expect("dispatch");
            let check = verify(&lanes, workgroup_size, ctx.fixed_subgroup_size());
            assert!(check.passed(), "workgroup {workgroup_size}: {:?}", check.first);
        }
    }

    #[test]
    fn verify_catches_a_wrong_sum() {
        let mut lanes: Vec<Lane> = (0..8)
            .map(|l| Lane {
                lane: l,
                subgroup_size: 8,
                sum: 36,
                multiples_of_3: 3,
                first: 1,
                shuffled: (l + 1) % 8 + 1,
                sum_inside_if: u32::from(l == 0),
                ..Default::default()
            })
            .collect();
        assert!(verify(&lanes, 8, Some(8)).passed());
        lanes[3].sum = 35;
        assert_eq!(verify(&lanes, 8, Some(8)).mismatches, 1);
    }
}
