//! 04_compaction's command line and its variants: the flags, and what each variant's kernels
//! for one form are built for (the tile shapes by form are in main.rs).

use super::{depths, tile_shape, Compactor, WORKGROUP};
use anyhow::Result;
use clap::{Parser, ValueEnum};
use harness::lookback::StateWord;
use harness::reference::{F32OrU32, Form};
use harness::Report;
use std::rc::Rc;
use vk_compute::{Context, SubgroupOps};

#[derive(Parser, Debug)]
#[command(
    about = "Stream compaction: naive atomics, ballot-aggregated atomics, a stable single pass",
    after_help = "Tiles (--workgroup × --items) by default: the stable variants 512 × 16, unique 256 × 24 \
                  (chapter 04), 512 × 12 twice where the single pass loads two depths; the unordered ones \
                  256 × 1 (workgroups within the device's limit)."
)]
pub struct Args {
    #[command(flatten)]
    pub common: harness::CommonArgs,
    /// Which variants to run (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub variant: Vec<Variant>,
    /// Which forms (default: all; with --bench: select).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub form: Vec<Form>,
    /// Element types: f32 or u32 (default: both; with --bench: f32).
    #[arg(long = "type", value_enum, value_delimiter = ',')]
    pub ty: Vec<F32OrU32>,
    /// Percent of the elements kept (default: 0, 1, 10, 50, 99, 100; with --bench: 10, 50).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(0..=100))]
    pub keep_ratio: Vec<u32>,
    // --workgroup, --items (their defaults in after_help) and --lookback.
    #[command(flatten)]
    pub tile: harness::TileArgs,
    /// single-pass select and flags with the look-back subgroup: loads of `items` a lane in a
    /// tile, 1 or 2 (the other forms and look-backs load one). Default: two from 2^25 elements, one below.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2))]
    pub depth: Option<u32>,
}

harness::sample_args!(Args);

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Variant {
    Naive,
    Aggregated,
    SinglePass,
    ThreePass,
}

impl Variant {
    /// Whether the variant keeps the kept elements in the input's order.
    pub fn stable(self) -> bool {
        matches!(self, Variant::SinglePass | Variant::ThreePass)
    }
}

impl Args {
    /// `--depth 2` asks for what only the single pass's select and flags with the look-back
    /// subgroup do: refuse it where none of the chosen variants and forms would.
    pub fn check_depth(&self, variants: &[Variant], forms: &[Form]) -> Result<()> {
        let two_deep_forms = forms.iter().any(|f| matches!(f, Form::Select | Form::Flags));
        if self.depth == Some(2) && !(variants.contains(&Variant::SinglePass) && two_deep_forms) {
            return vk_compute::setup_error(
                "--depth 2 changes the single pass's select and flags only: add --variant single-pass --form select",
            );
        }
        if self.depth == Some(2) && self.tile.lookback == harness::lookback::Lookback::Narrow {
            return vk_compute::setup_error("--depth 2 needs the look-back subgroup: drop --lookback narrow");
        }
        Ok(())
    }
}

/// What a variant's kernels for one form are built for: the workgroup, elements an invocation
/// and look-back lanes.
#[derive(Clone, Copy)]
pub struct Plan {
    pub variant: Variant,
    pub form: Form,
    pub workgroup: u32,
    pub items: u32,
    /// The single pass's look-back subgroup (0: the narrow look-back, or another variant).
    pub lookback_lanes: u32,
    /// The single pass's tile-state word (unused by the other variants).
    pub word: StateWord,
}

impl Plan {
    /// `Err` (a SKIP) with the reason when the device lacks what the variant needs.
    pub fn new(ctx: &Context, variant: Variant, form: Form, args: &Args) -> Result<Result<Self, String>> {
        let ballot = SubgroupOps::BASIC | SubgroupOps::BALLOT;
        let needs = match variant {
            Variant::Naive => 0,
            Variant::Aggregated => ballot,
            Variant::SinglePass | Variant::ThreePass => ballot | SubgroupOps::ARITHMETIC | SubgroupOps::VOTE,
        };
        let (workgroup, items) = match variant {
            Variant::SinglePass | Variant::ThreePass => tile_shape(ctx, form, args),
            Variant::Naive | Variant::Aggregated => (args.tile.workgroup_or(ctx, WORKGROUP), 1),
        };
        let single_pass = variant == Variant::SinglePass;
        // The single pass's tile states: one 64-bit word where the device has 64-bit atomics,
        // else (or with --lookback-word 32) a 2-bit flag and a 30-bit count.
        let word = match single_pass {
            true => harness::lookback::state_word(ctx, args.tile.lookback_word, StateWord::Packed32),
            false => Ok(StateWord::Packed32),
        };
        let word = match word {
            Ok(word) => word,
            Err(reason) => return Ok(Err(reason)),
        };
        let lanes = harness::lookback::lookback_lanes(ctx, needs, &args.tile, workgroup, single_pass)?;
        Ok(lanes.map(|lookback_lanes| Plan { variant, form, workgroup, items, lookback_lanes, word }))
    }
}

/// A variant's pipelines, each with the largest input it runs ([`harness::for_size`]).
pub type BySize<'c> = Vec<(u64, Rc<Compactor<'c>>)>;

/// One form and type's pipelines for each of `variants` the device can run (the rest SKIP in
/// `report`), named for the report, by input size (their depths, main.rs's `depths`, for inputs
/// of up to `largest` elements). The single pass's depths share one three-pass fallback; the
/// other variants have none.
pub fn compactors<'c>(
    ctx: &'c Context,
    args: &Args,
    variants: &[Variant],
    form: Form,
    ty: F32OrU32,
    largest: u64,
    report: &mut Report,
) -> Result<Vec<(String, BySize<'c>)>> {
    let mut compactors = Vec::new();
    for &variant in variants {
        let name = format!("{} {} {ty:?}", harness::value_name(variant), harness::value_name(form)).to_lowercase();
        let Some(plan) = report.skip_unless(&name, Plan::new(ctx, variant, form, args)?) else {
            continue;
        };
        let name = if variant == Variant::SinglePass { name + plan.word.label() } else { name };
        // The single pass's depths share one three-pass fallback; the other variants have none.
        let single = variant == Variant::SinglePass;
        let three = if single { Plan::new(ctx, Variant::ThreePass, form, args)?.ok() } else { None };
        let fallback = three.map(|three| Compactor::new(ctx, &three, ty, args, 1, None).map(Rc::new)).transpose()?;
        let by_size = report.build_by_size(
            &name,
            depths(&plan, args, largest),
            |depth| format!("{name}, {depth} deep"),
            |compactor: &Compactor| &compactor.kernels,
            |&depth| Compactor::new(ctx, &plan, ty, args, depth, fallback.clone()).map(Ok),
        )?;
        if !by_size.is_empty() {
            compactors.push((name, by_size));
        }
    }
    Ok(compactors)
}
