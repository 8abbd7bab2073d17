//! 03_scan's command line and its variants: the flags, the variant names, and the tile shapes
//! the flags pick from the table in main.rs.

use super::{TileShape, REDUCE_THEN_SCAN_TILE, SINGLE_PASS_TILES};
use clap::{Parser, ValueEnum};
use harness::reference::F32OrU32;
use vk_compute::Context;

#[derive(Parser, Debug)]
#[command(
    about = "Prefix sums from subgroup shuffles to a single-pass decoupled look-back scan",
    after_help = "Tiles (--workgroup × --items) by default: the single pass 512 × 12 up to 2^20 elements, \
                  256 × 24 up to 2^22, 256 × 16 up to 2^24, 256 × 24 above (workgroups within the device's \
                  limit); reduce-then-scan 256 × 32 (chapter 03, tiles by n)."
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
    SinglePass,
}

/// A variant's name in the report: variant, mode and type, as `single-pass inclusive u32`.
pub fn variant_name(variant: Variant, ty: F32OrU32, exclusive: bool) -> String {
    let mode = if exclusive { "exclusive" } else { "inclusive" };
    format!("{} {mode} {ty:?}", harness::value_name(variant)).to_lowercase()
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
