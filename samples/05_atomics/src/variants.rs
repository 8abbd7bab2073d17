//! 05_atomics' command line and its variants: the flags, the workloads, which variants apply
//! to each and the subgroup operations they need.

use clap::{Parser, ValueEnum};
use harness::reference::Spread;
use vk_compute::{Context, SubgroupOps};

#[derive(Parser, Debug)]
#[command(about = "Atomics under contention: per-lane, subgroup-aggregated, workgroup-privatized")]
pub struct Args {
    #[command(flatten)]
    pub common: harness::CommonArgs,
    /// Which workloads (default: both).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub workload: Vec<Workload>,
    /// Which variants (default: every one that applies to the workload).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub variant: Vec<Variant>,
    /// append: percent of the elements kept (default: 1, 10, 50, 100).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(0..=100))]
    pub keep_ratio: Vec<u32>,
    /// histogram: bins, 1 to 4096 (default: 1, 16, 256, 4096).
    #[arg(long, value_delimiter = ',')]
    pub bins: Vec<u32>,
    /// histogram: how the keys spread over the bins (default: all three; with --bench:
    /// uniform and hot).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub spread: Vec<Spread>,
    /// Count the atomics each variant issues, in the shader, and report them (checked runs
    /// only: counting costs atomics of its own, so not with --bench).
    #[arg(long)]
    pub count_atomics: bool,
    /// Tests only: model an implementation that runs the lanes of a divergent branch in two
    /// groups (histogram.comp's SPLIT_LANES): each half of the subgroup, by lane parity, runs
    /// the match loop on its own.
    #[arg(long, hide = true)]
    pub split_lanes: bool,
    /// Tests only: the match loop picks its leader inside its `if (waiting)` branch, a subgroup
    /// operation in divergent control flow (histogram.comp's LEADER_IN_BRANCH); with
    /// --split-lanes it miscounts.
    #[arg(long, hide = true)]
    pub leader_in_branch: bool,
}

harness::sample_args!(Args);

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Workload {
    Append,
    Histogram,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Variant {
    /// One atomic on device memory per element (both workloads).
    Naive,
    /// One atomic per subgroup (append); histogram: one per key shared by several lanes of a
    /// subgroup, matched round by round until a round finds a key alone, then one per lane left.
    Subgroup,
    /// append: places from a shared-memory counter, one device atomic per workgroup.
    Workgroup,
    /// histogram: the lanes with equal keys from subgroupPartitionNV.
    PartitionNv,
    /// histogram: a private histogram in shared memory per workgroup.
    Shared,
    /// histogram: the subgroup match loop (as `subgroup`) in front of the shared histogram.
    SharedSubgroup,
    /// histogram: one round of the match loop (the first lane's key) in front of the shared
    /// histogram; the other lanes add one by one.
    SharedLeader,
}

impl Variant {
    /// Whether the variant runs `workload`.
    pub fn applies(self, workload: Workload) -> bool {
        match workload {
            Workload::Append => matches!(self, Variant::Naive | Variant::Subgroup | Variant::Workgroup),
            Workload::Histogram => self != Variant::Workgroup,
        }
    }

    /// The subgroup operations the variant's shader needs on `workload`; `leader` says how
    /// the histogram's match loop finds its leader's key.
    pub fn needs(self, workload: Workload, leader: Leader) -> u32 {
        let ops = match (self, workload) {
            (Variant::Naive | Variant::Workgroup | Variant::Shared, _) => 0,
            (Variant::Subgroup, Workload::Append) => SubgroupOps::ARITHMETIC | SubgroupOps::BALLOT,
            (Variant::Subgroup | Variant::SharedSubgroup, _) => {
                SubgroupOps::VOTE | SubgroupOps::BALLOT | leader.needs()
            }
            (Variant::PartitionNv, _) => SubgroupOps::BALLOT | SubgroupOps::PARTITIONED_NV,
            (Variant::SharedLeader, _) => SubgroupOps::BALLOT,
        };
        if ops == 0 {
            0
        } else {
            ops | SubgroupOps::BASIC
        }
    }
}

/// How the histogram's match loop finds the key of a round's leader, in uniform control flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leader {
    /// The first lane still waiting (a ballot and subgroupBallotFindLSB) and its key from
    /// subgroupShuffle.
    Shuffle,
    /// The smallest key still waiting, from subgroupMin (LEADER_BY_MIN): where the device has
    /// arithmetic but no shuffle.
    Min,
}

impl Leader {
    /// Shuffle where the device has it, else Min where it has arithmetic, else Shuffle (whose
    /// SKIP names what is missing).
    pub fn pick(ctx: &Context) -> Self {
        let ops = ctx.subgroup_ops();
        if !ops.has(SubgroupOps::SHUFFLE) && ops.has(SubgroupOps::ARITHMETIC) {
            Leader::Min
        } else {
            Leader::Shuffle
        }
    }

    pub fn needs(self) -> u32 {
        match self {
            Leader::Shuffle => SubgroupOps::SHUFFLE,
            Leader::Min => SubgroupOps::ARITHMETIC,
        }
    }
}
