//! 03_scan's command line and its variants: the flags, the variant names, what holds each
//! variant's tile states, and the tile shapes the flags pick from the table in main.rs.

use super::{REDUCE_THEN_SCAN_TILE, SINGLE_PASS_TILES};
use clap::{Parser, ValueEnum};
use harness::lookback::StateWord;
use harness::reference::F32OrU32;
use vk_compute::Context;

#[derive(Parser, Debug)]
#[command(
    about = "Prefix sums from subgroup shuffles to a single-pass decoupled look-back scan",
    after_help = "Tiles (--workgroup × --items) by default: the single pass 512 × 12 up to 2^20 elements, \
                  256 × 24 up to 2^22, 256 × 16 up to 2^24, 256 × 24 above (workgroups within the device's \
                  limit); single-pass-simple and reduce-then-scan 256 × 32 (chapter 03, tiles by n)."
)]
pub struct Args {
    #[command(flatten)]
    pub common: harness::CommonArgs,
    /// Which variants to run (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub variant: Vec<Variant>,
    /// Only inclusive scans.
    #[arg(long, conflicts_with = "exclusive")]
    pub inclusive: bool,
    /// Only exclusive scans.
    #[arg(long)]
    pub exclusive: bool,
    /// Which element types (default: both).
    #[arg(long = "type", value_enum, value_delimiter = ',')]
    pub ty: Vec<F32OrU32>,
    // --workgroup, --items (their defaults in after_help) and --lookback.
    #[command(flatten)]
    pub tile: harness::TileArgs,
}

harness::sample_args!(Args);

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Variant {
    Hillis,
    Shuffle,
    Intrinsic,
    // The single pass in its simplest correct form (glsl/03_scan/single_pass_simple.comp).
    SinglePassSimple,
    SinglePass,
}

/// A variant's name in the report: variant, mode and type, as `single-pass inclusive u32`.
pub fn variant_name(variant: Variant, ty: F32OrU32, exclusive: bool) -> String {
    let mode = if exclusive { "exclusive" } else { "inclusive" };
    format!("{} {mode} {ty:?}", harness::value_name(variant)).to_lowercase()
}

/// How a variant's tile states are held, or why it cannot run here (a SKIP): the single pass's
/// `--lookback-word` (its 32-bit form where the device lacks 64-bit buffer atomics);
/// single-pass-simple's one 64-bit word, which has no 32-bit form. The other variants hold none.
pub fn state_word(variant: Variant, ctx: &Context, tile: &harness::TileArgs) -> Result<StateWord, String> {
    match variant {
        Variant::SinglePass => harness::lookback::state_word(ctx, tile.lookback_word, StateWord::TwoWords32),
        Variant::SinglePassSimple if !ctx.caps().has_int64_buffer_atomics() => {
            Err("the device lacks 64-bit buffer atomics (shaderInt64, shaderBufferInt64Atomics): the simple single \
             pass keeps flag and value in one 64-bit word (single-pass has a 32-bit form)"
                .into())
        }
        _ => Ok(StateWord::Tagged64),
    }
}

/// How a variant lays out a tile: invocations × elements per invocation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileShape {
    /// Invocations per workgroup, the look-back subgroup included.
    pub workgroup: u32,
    /// Elements per invocation.
    pub items: u32,
}

/// The tiles a variant runs with, by n: the single pass's table, with `--workgroup` and
/// `--items` replacing its invocations per workgroup and elements per invocation (a default
/// workgroup within the device's limit, TileArgs::workgroup_or); one shape for the other variants.
pub fn tile_shapes(variant: Variant, tile: &harness::TileArgs, ctx: &Context) -> Vec<(u64, TileShape)> {
    let table = match variant {
        Variant::SinglePass => SINGLE_PASS_TILES.to_vec(),
        _ => vec![(u64::MAX, REDUCE_THEN_SCAN_TILE)],
    };
    let given = |shape: TileShape| TileShape {
        workgroup: tile.workgroup_or(ctx, shape.workgroup),
        items: tile.items.unwrap_or(shape.items),
    };
    table.into_iter().map(|(n, shape)| (n, given(shape))).collect()
}
