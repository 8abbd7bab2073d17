//! 06_gemm's command line: its arguments, the shapes they name, and the names of its rows.

use crate::simt::{Elem, Shape, Strategy, Variant};
use anyhow::Result;
use clap::{Parser, ValueEnum};
use harness::{or_all, out};
use std::path::PathBuf;
use vk_compute::{Context, ContextOptions};

#[derive(Parser, Debug)]
#[command(about = "GEMM from naive to subgroup register tiling, autotuned, and on cooperative matrices")]
pub struct Args {
    #[command(flatten)]
    pub common: harness::CommonArgs,
    /// Which variants (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub variant: Vec<Variant>,
    /// Input types (default: all; the SIMT variants take f32 and f16, the cooperative-matrix
    /// ones f16, bf16 and int8).
    #[arg(long = "type", value_enum, value_delimiter = ',')]
    pub ty: Vec<Elem>,
    /// subgroup: strategies (default: all three; with --bench the tuned one).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub strategy: Vec<Strategy>,
    /// Problems as MxNxK (takes precedence over --size N, which means NxNxN).
    #[arg(long, value_delimiter = ',', value_parser = parse_shape)]
    pub shape: Vec<Shape>,
    /// α of the checked runs (default 1.5; 1 with --bench).
    #[arg(long)]
    pub alpha: Option<f32>,
    /// β of the checked runs (default -0.5; 0 with --bench).
    #[arg(long)]
    pub beta: Option<f32>,
    /// Time the FMA-only kernel (also done by --bench): the f32 ceiling of GEMM rows; with a
    /// cooperative-matrix variant selected, also the MMA-only kernel of every listed shape.
    #[arg(long)]
    pub peak: bool,
    /// Time the tuning grid (of --variant's register and subgroup, else both), save the fastest
    /// per size class (cache, and --tune-out), use it.
    #[arg(long)]
    pub tune: bool,
    /// With --tune: also write the table into this file (merged by device and driver).
    #[arg(long)]
    pub tune_out: Option<PathBuf>,
    /// A tuned table to use (FILE), or one configuration to pin for its variant (NAME, e.g.
    /// `register 128x128x8 8x8 pad4`, `subgroup 64x128x8 8x4 pad4 electFirst`,
    /// `coopmat 16x16x16 sg2x4 t4x2 bk32`, `coopmat2 128x128x32 wg256`).
    #[arg(long)]
    pub config: Option<String>,
}

impl harness::SampleArgs for Args {
    fn common(&self) -> &harness::CommonArgs {
        &self.common
    }
    fn common_mut(&mut self) -> &mut harness::CommonArgs {
        &mut self.common
    }
    /// Cooperative matrices are enabled only when a variant that uses them is selected: a
    /// validation layer that predates them reports their feature structures as errors, and the
    /// SIMT variants must stay clean under --validate.
    fn context_options(&self) -> Result<ContextOptions> {
        let mut options = self.common.context_options()?;
        options.cooperative_matrix = or_all(&self.variant, Variant::value_variants()).iter().any(|v| v.is_coopmat());
        Ok(options)
    }
}

fn parse_shape(text: &str) -> Result<Shape, String> {
    let v: Vec<u32> =
        text.split('x').map(|p| p.parse().map_err(|_| format!("{text}: not MxNxK"))).collect::<Result<_, _>>()?;
    match v[..] {
        [m, n, k] if m > 0 && n > 0 && k > 0 => Ok(Shape { m, n, k }),
        _ => Err(format!("{text}: a shape is MxNxK, each at least 1")),
    }
}

/// The shapes the checks run by default: one element, odd sizes below and across the tiles.
const CHECK_SHAPES: [(u32, u32, u32); 4] = [(1, 1, 1), (17, 33, 65), (128, 128, 128), (257, 129, 511)];
/// The bench's shapes: squares, a short K, and a skinny N (the peers script's).
const BENCH_SHAPES: [(u32, u32, u32); 6] = [
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4096, 4096, 256),
    (8192, 64, 8192),
];

/// `register f32`, `subgroup shuffleXor f16`: a row's or a check's name.
pub fn label(variant: Variant, strategy: Option<Strategy>, elem: Elem) -> String {
    let strategy = strategy.map(|s| format!(" {}", harness::value_name(s))).unwrap_or_default();
    format!("{}{strategy} {}", harness::value_name(variant), harness::value_name(elem))
}

/// `--shape`, else `--size N` as N×N×N, else the bench's or the checks' shapes; each must fit
/// one buffer per matrix and 32-bit indices.
pub fn shapes(ctx: &Context, args: &Args) -> Result<Vec<Shape>> {
    let given = !args.shape.is_empty() || args.common.size.is_some();
    let mut shapes = args.shape.clone();
    if let (true, Some(n)) = (shapes.is_empty(), args.common.size) {
        let n = u32::try_from(n)
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| vk_compute::SetupError(format!("--size {n}: not a matrix edge")))?;
        shapes.push(Shape { m: n, n, k: n });
    }
    if shapes.is_empty() {
        let table = if args.common.bench { &BENCH_SHAPES[..] } else { &CHECK_SHAPES[..] };
        shapes = table.iter().map(|&(m, n, k)| Shape { m, n, k }).collect();
    }
    let largest = harness::largest_size(ctx, 4);
    let fits = |s: &Shape| {
        [s.m as u64 * s.k as u64, s.k as u64 * s.n as u64, s.m as u64 * s.n as u64].iter().all(|&e| e <= largest)
    };
    for s in shapes.iter().filter(|s| !fits(s)) {
        if given {
            return vk_compute::setup_error(format!(
                "{}: a matrix of more than {largest} elements does not fit one buffer on {}",
                s.label(),
                ctx.caps().name
            ));
        }
        out(format!(
            "note: {} left out: a matrix of more than {largest} elements does not fit one buffer here",
            s.label()
        ));
    }
    shapes.retain(fits);
    if args.common.inject_fault == Some(harness::Fault::OffByOne) && shapes.iter().any(|s| s.m * s.k < 2) {
        return vk_compute::setup_error("--inject-fault off-by-one reads A's next element: A needs at least 2");
    }
    Ok(shapes)
}
