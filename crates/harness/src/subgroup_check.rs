//! A run-time check that the driver forms the subgroups it promises, run before every sample:
//! every subgroup of a full workgroup has all `gl_SubgroupSize` lanes, the subgroup IDs and lane
//! IDs are unique and complete, and `gl_NumSubgroups × gl_SubgroupSize` is the workgroup size.
//! Every sample relies on that; a driver that breaks it (lavapipe at
//! `LP_NATIVE_VECTOR_WIDTH` ≥ 1024 forms subgroups of 16 active lanes with a
//! `gl_SubgroupSize` of 32) makes the sample SKIP with the reason instead of FAIL or crash.

use anyhow::{Context as _, Result};
use std::cell::RefCell;
use std::collections::BTreeSet;
use vk_compute::{Barrier, Buffer, Context, Kernel, KernelDesc, Recorder, Unsupported};

/// Words the shader writes per invocation: size, subgroups, subgroup ID, lane, lanes counted.
const WORDS: usize = 5;

/// `Err(Unsupported)` (a SKIP) when the device's subgroups are not what it promises in the
/// samples' usual workgroup (256 invocations, or one subgroup of the largest size).
pub fn full_subgroups(ctx: &Context) -> Result<()> {
    let largest = ctx.caps().subgroup_size_range().1.max(1);
    let workgroup = 256u32.next_multiple_of(largest).min(ctx.caps().max_workgroup_invocations);
    full_subgroups_at(ctx, workgroup)?.map_err(|reason| Unsupported(reason).into())
}

/// What a self-check ran on: the context (its address), the device, the required subgroup size
/// and the workgroup size.
type CheckedOn = (usize, usize, Option<u32>, u32);

thread_local! {
    /// The checks run so far, with their verdicts.
    static CHECKED: RefCell<Vec<(CheckedOn, Result<(), String>)>> = const { RefCell::new(Vec::new()) };
}

/// `Err(reason)` (a SKIP) when the device's subgroups are not what it promises in a workgroup
/// of `workgroup` invocations: a kernel that lays its work out by subgroup calls it for the
/// size it dispatches (03 and 04 run 512), since a driver may form subgroups differently in a
/// larger workgroup. Run once a size and context.
pub fn full_subgroups_at(ctx: &Context, workgroup: u32) -> Result<Result<(), String>> {
    let key = (std::ptr::from_ref(ctx) as usize, ctx.caps().index, ctx.options.subgroup_size, workgroup);
    if let Some(verdict) = CHECKED.with(|c| c.borrow().iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())) {
        return Ok(verdict);
    }
    let verdict = check_at(ctx, workgroup)?;
    CHECKED.with(|c| c.borrow_mut().push((key, verdict.clone())));
    Ok(verdict)
}

/// One run of the self-check at `workgroup` invocations.
fn check_at(ctx: &Context, workgroup: u32) -> Result<Result<(), String>> {
    let largest = ctx.caps().subgroup_size_range().1.max(1);
    if ctx.partial_subgroups(workgroup).is_some() || !workgroup.is_multiple_of(largest) {
        // Partial subgroups are legal here: nothing to hold the driver to. The samples' variants
        // that need full subgroups SKIP by themselves (Context::partial_subgroups).
        return Ok(Ok(()));
    }
    let desc = KernelDesc {
        shader: "common/subgroup_check.comp",
        buffers: 1,
        workgroup_size: workgroup,
        ..Default::default()
    };
    let kernel = Kernel::new(ctx, &desc).context("subgroup self-check kernel")?;
    let mut words = Buffer::<u32>::new(ctx, "subgroup self-check", WORDS * workgroup as usize)?;
    let mut rec = Recorder::new(ctx)?;
    rec.fill(&words, crate::POISON);
    // The poison lands before the check overwrites it.
    rec.barrier(Barrier::TransferToCompute);
    rec.dispatch(&kernel, &[words.binding()], &(), [1, 1, 1])?;
    rec.submit_and_wait().context("subgroup self-check")?;
    let words = words.download().context("read the subgroup self-check")?;
    let promised = ctx.fixed_subgroup_size();
    let broken = match (promised, words.first()) {
        (Some(size), Some(&seen)) if size != seen => Some(format!("gl_SubgroupSize {seen} where {size} is promised")),
        _ => broken_promise(&words, workgroup),
    };
    Ok(match broken {
        None => Ok(()),
        Some(what) => Err(format!(
            "{}'s subgroups break its own promises in workgroups of {workgroup} ({what}), so no subgroup result \
             here could be trusted (lavapipe does this at LP_NATIVE_VECTOR_WIDTH >= 1024)",
            ctx.caps().name
        )),
    })
}

/// What is wrong with the subgroups one workgroup of `workgroup` invocations reported, if anything.
fn broken_promise(words: &[u32], workgroup: u32) -> Option<String> {
    let size = words[0];
    if size == 0 || !workgroup.is_multiple_of(size) {
        return Some(format!("gl_SubgroupSize {size} in a workgroup of {workgroup}"));
    }
    let mut seen = BTreeSet::new();
    for w in words.chunks_exact(WORDS) {
        let [s, subgroups, id, lane, counted] = [w[0], w[1], w[2], w[3], w[4]];
        if s != size {
            return Some(format!("gl_SubgroupSize {s} and {size} in one workgroup"));
        }
        if subgroups != workgroup / size {
            return Some(format!("gl_NumSubgroups {subgroups} with {workgroup} invocations of size {size}"));
        }
        if counted != size {
            return Some(format!("subgroup {id} has {counted} active lanes of gl_SubgroupSize {size}"));
        }
        if id >= subgroups || lane >= size || !seen.insert((id, lane)) {
            return Some(format!("subgroup ID {id}, lane {lane} out of range or repeated"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(size: u32, workgroup: u32, lanes_counted: u32) -> Vec<u32> {
        (0..workgroup).flat_map(|i| [size, workgroup / size, i / size, i % size, lanes_counted]).collect()
    }

    #[test]
    fn full_subgroups_pass() {
        assert_eq!(broken_promise(&words(8, 256, 8), 256), None);
    }

    #[test]
    fn half_active_subgroups_fail() {
        // lavapipe at width 1024: size 32, 16 lanes active each.
        assert!(broken_promise(&words(32, 256, 16), 256).is_some());
    }

    #[test]
    fn repeated_lane_fails() {
        let mut w = words(8, 64, 8);
        w[WORDS + 3] = 0; // invocation 1 claims lane 0 of subgroup 0 again
        assert!(broken_promise(&w, 64).is_some());
    }
}
