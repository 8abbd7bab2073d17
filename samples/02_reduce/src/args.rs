//! 02_reduce's command line and its variants: the flags, the variant names.

use clap::{Parser, ValueEnum};
use harness::reference::{Op, Ty};

#[derive(Parser, Debug)]
#[command(about = "Reduce an array five ways, from a shared-memory tree to a bandwidth-bound reduce")]
pub struct Args {
    #[command(flatten)]
    pub common: harness::CommonArgs,
    /// Which variants to run (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub variant: Vec<Variant>,
    /// Which operations (default: all that apply to the type).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub op: Vec<Op>,
    /// Which element types (default: all; with --bench: f32 and u32).
    #[arg(long = "type", value_enum, value_delimiter = ',')]
    pub ty: Vec<Ty>,
    /// fast: the most workgroups (each then loops over the array).
    #[arg(long, default_value_t = 2048)]
    pub fast_groups: u32,
    /// fast: 16-byte loads in flight per invocation and loop step.
    #[arg(long, default_value_t = 4)]
    pub fast_unroll: u32,
    /// fast: the last-workgroup hand-over, passing the partials with memory barriers even where
    /// 64-bit atomics would allow flagged partials (an A/B switch; not with --fast-result atomic).
    #[arg(long)]
    pub fast_fences: bool,
    /// fast: how the workgroups' partials become the result. `atomic`: each workgroup folds its
    /// partial in with one atomic (integer operations; f32 add where the device has
    /// shaderBufferFloat32AtomicAdd; SKIP otherwise); float sums then vary in the last bits
    /// from run to run. `last-workgroup`: the last workgroup to finish reduces the partials.
    /// `auto`: atomic where it exists, else the last workgroup.
    #[arg(long, value_enum, default_value = "auto")]
    pub fast_result: FastResult,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FastResult {
    Auto,
    Atomic,
    LastWorkgroup,
}

harness::sample_args!(Args);

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Variant {
    Tree,
    Hybrid,
    Subgroup,
    Shuffle,
    Fast,
}

/// A variant's name in the report: variant, operation and type, as `fast add f32`.
pub fn variant_name(variant: Variant, op: Op, ty: Ty) -> String {
    format!("{} {op:?} {ty:?}", harness::value_name(variant)).to_lowercase()
}
