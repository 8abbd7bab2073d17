//! 02_reduce's variants: what each one's pipeline is built from (shader, defines, constants),
//! why the device may not run it (a SKIP with the reason), and the rounding chain its check
//! allows for. The host path that runs them is in main.rs.

use super::args::{Args, FastResult, Variant};
use super::{Reducer, PLANTED, WORKGROUP};
use anyhow::Result;
use harness::reference::{self, Op, Ty};
use vk_compute::{Context, Kernel, KernelDesc, SubgroupOps};

impl<'c> Reducer<'c> {
    /// Build the variant's pipeline, or say why the device cannot run it.
    pub(super) fn new(ctx: &'c Context, variant: Variant, ty: Ty, op: Op, args: &Args) -> Result<Result<Self, String>> {
        let ops = ctx.subgroup_ops();
        let arith = SubgroupOps::BASIC | SubgroupOps::ARITHMETIC;
        let shuffle = SubgroupOps::BASIC | SubgroupOps::SHUFFLE;
        let (has_arith, has_shuffle) = (ops.has(arith), ops.has(shuffle));
        let mut defines = vec![(ty.define(), "1".to_string()), (op.define(), "1".to_string())];
        // --inject-fault: the workgroup that reads PLANTED (fast: vec4 PLANTED / 4 in the first
        // grid step; the textbook variants: one element per invocation).
        let faulty_workgroup = if variant == Variant::Fast { PLANTED / 4 } else { PLANTED } / WORKGROUP as usize;
        defines.extend(args.common.fault_defines(PLANTED as u64, faulty_workgroup as u64));
        let (shader, usable, needs) = match variant {
            Variant::Tree => ("02_reduce/tree.comp", true, 0),
            Variant::Hybrid => ("02_reduce/hybrid.comp", has_arith, arith),
            Variant::Subgroup => ("02_reduce/subgroup_only.comp", has_arith, arith),
            Variant::Shuffle => ("02_reduce/shuffle_xor.comp", has_shuffle, shuffle),
            Variant::Fast => {
                if !has_arith && has_shuffle {
                    defines.push(("USE_SHUFFLE", "1".into())); // the fallback without arithmetic
                }
                let flagged = ctx.caps().has_int64_buffer_atomics() && !args.fast_fences;
                defines.push(("FLAGGED_PARTIALS", u32::from(flagged).to_string()));
                ("02_reduce/fast.comp", has_arith || has_shuffle, arith | shuffle)
            }
        };
        let atomic_result = match (variant, args.fast_result) {
            (Variant::Fast, FastResult::Atomic) => match no_atomic_result(ctx, ty, op) {
                Some(why) => return Ok(Err(format!("--fast-result atomic: {why}"))),
                None => true,
            },
            (Variant::Fast, FastResult::Auto) => !args.fast_fences && no_atomic_result(ctx, ty, op).is_none(),
            _ => false,
        };
        if variant == Variant::Fast {
            defines.push(("ATOMIC_RESULT", u32::from(atomic_result).to_string()));
        }
        if !usable {
            let missing = ops.missing(needs);
            let either = if variant == Variant::Fast { " (either Arithmetic or Shuffle would do)" } else { "" };
            return Ok(Err(format!("the device lacks subgroup operations {missing:?}{either}")));
        }
        // Every subgroup variant gives lanes slots by subgroup ID, and the butterfly reads every
        // lane: a partial subgroup would lose values.
        if let Some(reason) = ctx.partial_subgroups(WORKGROUP).filter(|_| variant != Variant::Tree) {
            return Ok(Err(reason));
        }
        let smallest = ctx.fixed_subgroup_size().unwrap_or(ctx.caps().min_subgroup_size());
        if variant == Variant::Subgroup && smallest < 2 {
            return Ok(Err(format!("subgroups of {smallest} lane cannot reduce anything (subgroup size {smallest})")));
        }
        let max_subgroups = WORKGROUP / smallest.max(1);
        let constants = match variant {
            Variant::Subgroup => vec![max_subgroups],
            Variant::Fast => vec![args.fast_unroll],
            _ => vec![],
        };
        let desc = KernelDesc {
            shader,
            defines,
            buffers: if variant == Variant::Fast { 4 } else { 2 },
            push_constant_bytes: 8,
            workgroup_size: WORKGROUP,
            constants,
            ..Default::default()
        };
        let kernel = Kernel::new(ctx, &desc)?;
        let identity = reference::identity(ty, op);
        let (fast_groups, fast_unroll) = (args.fast_groups, args.fast_unroll);
        Ok(Ok(Reducer { ctx, variant, kernel, identity, max_subgroups, fast_groups, fast_unroll, atomic_result }))
    }

    /// Longest chain of sequential operations on one value outside the tree parts (an
    /// invocation's loads, and with an atomic result the workgroups' partials): it bounds the
    /// float rounding error (see `check`).
    pub(super) fn chain(&self, n: usize) -> u64 {
        match self.variant {
            Variant::Fast => {
                let groups = u64::from(self.fast_grid(n));
                let stride = groups * u64::from(WORKGROUP);
                // An atomic result adds the workgroups' partials one after another.
                let atomic_chain = if self.atomic_result { groups } else { 0 };
                4 * (n as u64 / 4).div_ceil(stride) + 4 + atomic_chain
            }
            _ => 1,
        }
    }
}

/// Why the fast variant cannot fold partials into the result atomically, if it cannot.
fn no_atomic_result(ctx: &Context, ty: Ty, op: Op) -> Option<String> {
    match (ty, op) {
        (_, Op::Mul) => Some("GLSL has no atomic multiply".into()),
        (Ty::F32, Op::Min | Op::Max) => {
            Some("atomic f32 min/max (GL_EXT_shader_atomic_float2) is not used here".into())
        }
        (Ty::F32, _) if !ctx.caps().buffer_float32_atomic_add => {
            Some("the device lacks shaderBufferFloat32AtomicAdd".into())
        }
        _ => None,
    }
}
