//! What the host path runs, whichever family a kernel is of: a configuration ([`Job`]: a SIMT
//! tile of simt.rs or a cooperative-matrix block of coopmat.rs) and its built pipeline
//! ([`Built`]), with the output type and rounding the checks need.

use crate::check;
use crate::coopmat::{self, Out};
use crate::simt::{self, Config, Elem, IoBindings, Shape};
use anyhow::Result;
use vk_compute::{Context, Kernel, Recorder};

/// A configuration of either family: a SIMT one (simt.rs) or a cooperative-matrix one (coopmat.rs).
#[derive(Clone, Copy, Debug)]
pub enum Job {
    Simt(Config),
    Coop(coopmat::CmConfig),
}

impl Job {
    /// Its `--config NAME` form.
    pub fn name(&self) -> String {
        match self {
            Job::Simt(c) => c.name(),
            Job::Coop(c) => c.name(),
        }
    }

    pub fn is_coop(&self) -> bool {
        matches!(self, Job::Coop(_))
    }

    /// Build its pipeline for `elem`, or say why the device cannot (see the families' `new`).
    pub fn build<'c>(
        self,
        ctx: &'c Context,
        elem: Elem,
        fault: Option<(&harness::CommonArgs, Shape)>,
    ) -> Result<Result<Built<'c>, String>> {
        Ok(match self {
            Job::Simt(c) => simt::Gemm::new(ctx, c, elem, fault)?.map(Built::Simt),
            Job::Coop(c) => coopmat::CoopGemm::new(ctx, c, elem, fault)?.map(Built::Coop),
        })
    }
}

/// A built configuration: what the checked and timed runs record.
pub enum Built<'c> {
    Simt(simt::Gemm<'c>),
    Coop(coopmat::CoopGemm<'c>),
}

impl<'c> Built<'c> {
    /// Record D = α·A·B + β·C_in over `shape`: one workgroup per block of D (and per K slice
    /// with split-K, whose workspace a second dispatch sums).
    pub fn record<'r>(
        &'r self,
        rec: &mut Recorder<'_, 'r>,
        io: IoBindings<'r>,
        shape: Shape,
        alpha: f32,
        beta: f32,
    ) -> Result<()> {
        match self {
            Built::Simt(g) => g.record(rec, io, shape, alpha, beta),
            Built::Coop(g) => simt::record_blocks(rec, &g.kernel, &io.abcd, shape, (g.config.block, 1), (alpha, beta)),
        }
    }

    /// Whether the kernel reads A and B as texel buffers (`texels` in its name).
    pub fn texel_loads(&self) -> bool {
        matches!(self, Built::Simt(g) if g.config.texels != 0)
    }

    /// The ceilings of this configuration at `shape`, where it has any (simt.rs, coopmat.rs): each with
    /// its row's first word and the bytes of A and B tiles it loads (0 where it loads none).
    pub fn ceilings(&self, ctx: &'c Context, shape: Shape) -> Result<Vec<(&'static str, Built<'c>, u64)>> {
        Ok(match self {
            Built::Simt(g) => g
                .ceilings(ctx)?
                .into_iter()
                .map(|(kind, c)| {
                    let bytes = if kind == simt::Ceiling::Staging { g.staged_bytes(shape) } else { 0 };
                    (kind.label(), Built::Simt(c), bytes)
                })
                .collect(),
            Built::Coop(g) => g
                .ceilings(ctx, shape)?
                .into_iter()
                .map(|(kind, c)| {
                    (kind.label(), Built::Coop(c), if kind.loads_tiles() { g.staged_bytes(shape) } else { 0 })
                })
                .collect(),
        })
    }

    /// Elements of the split-K workspace `shape` needs (0: none).
    pub fn workspace_len(&self, shape: Shape) -> u64 {
        match self {
            Built::Simt(g) => g.workspace_len(shape),
            Built::Coop(_) => 0,
        }
    }

    pub fn kernel(&self) -> &Kernel<'c> {
        match self {
            Built::Simt(g) => &g.kernel,
            Built::Coop(g) => &g.kernel,
        }
    }

    /// What D holds, and how the check bounds its rounding.
    pub fn out(&self) -> Out {
        match self {
            Built::Simt(_) => Out::F32,
            Built::Coop(g) => g.out,
        }
    }

    pub fn rounding(&self) -> check::Rounding {
        match self {
            Built::Simt(_) => check::Rounding::SIMT,
            Built::Coop(g) => check::Rounding::matrix_units(g.out),
        }
    }

    /// `config, N invocations, B shared` for --pipeline-stats.
    pub fn describe(&self) -> String {
        let (name, invocations, shared) = match self {
            Built::Simt(g) => (g.config.name(), g.config.workgroup_size(), g.config.shared_bytes()),
            Built::Coop(g) => (g.config.name(), g.config.workgroup, g.config.shared_bytes(g.elem)),
        };
        format!("{name}, {invocations} invocations, {shared} B shared")
    }
}
