//! The autotuner and its tables: `--tune` times a grid of configurations (tile shapes ×
//! padding × subgroup strategy × workgroup size, [`simt::grid`]; the cooperative-matrix block
//! shapes, [`coopmat::grid`]) on one problem per size class, keeps the fastest per class, type and variant, and saves them keyed by device and
//! driver. Later runs take the configuration of a problem's class from, in order: `--config
//! FILE`, the per-user cache, the committed table of the reference device (compiled in), else
//! the first configuration of the grid the device can run.

use crate::check::{self, Kind};
use crate::coopmat::{self, CmConfig};
use crate::kernels::{Built, Job};
use crate::simt::{self, Config, Elem, Shape, Variant};
use anyhow::{Context as _, Result};
use harness::{out, Report, Timing};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use vk_compute::Context;

/// The committed table of the reference device (see `--tune-out`).
const COMMITTED: &str = include_str!("../tuned/nvidia.json");

/// Problems are tuned by class: their best configurations differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// M, N and K all large.
    Square,
    /// K below 1024: few steps along K per block, so fewer, larger blocks are no help.
    ShortK,
    /// M or N below 256, or fewer than 2048² outputs: too few blocks of the large tiles to
    /// fill the device (a 128×256 tile makes 128 blocks of 2048², 32 of 1024²).
    Skinny,
}

impl Class {
    pub fn of(shape: Shape) -> Class {
        if shape.m.min(shape.n) < 256 || u64::from(shape.m) * u64::from(shape.n) < 2048 * 2048 {
            Class::Skinny
        } else if shape.k < 1024 {
            Class::ShortK
        } else {
            Class::Square
        }
    }

    /// The problem a class is tuned on: the bench's shape of that class (small on a CPU device).
    fn tuning_shape(self, cpu: bool) -> Shape {
        let s = |m, n, k| Shape { m, n, k };
        match (self, cpu) {
            (Class::Square, false) => s(4096, 4096, 4096),
            (Class::ShortK, false) => s(4096, 4096, 256),
            (Class::Skinny, false) => s(8192, 64, 8192),
            (Class::Square, true) => s(256, 256, 256),
            (Class::ShortK, true) => s(256, 256, 64),
            (Class::Skinny, true) => s(256, 16, 256),
        }
    }
}

/// The fastest configuration of one type, class and variant.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Best {
    pub elem: Elem,
    pub class: Class,
    pub variant: Variant,
    pub config: String,
    pub tflops: f64,
}

/// One point of the tuning grid: its TFLOP/s, or why it did not run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Point {
    pub elem: Elem,
    pub class: Class,
    pub shape: String,
    pub config: String,
    pub tflops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Point {
    /// The variant's name: the configuration's first word (a configuration the device cannot
    /// have is named by its variant alone).
    fn variant_name(&self) -> &str {
        self.config.split_whitespace().next().unwrap_or("")
    }
}

/// The tuning of one device and driver.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Table {
    pub device: String,
    pub driver: String,
    pub best: Vec<Best>,
    #[serde(default)]
    pub grid: Vec<Point>,
}

impl Table {
    /// Take from `other` what this table lacks: the best of each type, class and variant it has
    /// none for, and the grid points of each type and variant it holds no points of (a grid
    /// tuned here replaces the other's whole, so that points of configurations the grid no
    /// longer has go with it). Whether anything was taken.
    fn fill_from(&mut self, other: &Table) -> bool {
        let before = (self.best.len(), self.grid.len());
        for b in &other.best {
            if !self.best.iter().any(|n| (n.elem, n.class, n.variant) == (b.elem, b.class, b.variant)) {
                self.best.push(b.clone());
            }
        }
        let tuned_here = |p: &Point| self.grid.iter().any(|n| (n.elem, n.variant_name()) == (p.elem, p.variant_name()));
        let kept: Vec<Point> = other.grid.iter().filter(|p| !tuned_here(p)).cloned().collect();
        self.grid.extend(kept);
        (self.best.len(), self.grid.len()) != before
    }
}

/// A file of tables (the cache, `--tune-out`, the committed table).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TableFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    #[serde(default)]
    pub tables: Vec<Table>,
}

fn device_key(ctx: &Context) -> (String, String) {
    let caps = ctx.caps();
    (caps.name.clone(), format!("{} {}", caps.driver_name, caps.driver_info))
}

impl TableFile {
    fn read(path: &Path) -> Result<TableFile> {
        let text = std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parse {}", path.display()))
    }

    /// The table of this device and driver; a note for a table of another driver.
    fn find(&self, ctx: &Context, source: &str) -> Option<Table> {
        let (device, driver) = device_key(ctx);
        if let Some(t) = self.tables.iter().find(|t| t.device == device && t.driver == driver) {
            return Some(t.clone());
        }
        for t in self.tables.iter().filter(|t| t.device == device) {
            out(format!("note: {source} was tuned with driver {}, not {driver}: ignored", t.driver));
        }
        None
    }

    /// Put `table` in the file at `path`, replacing the one of the same device and driver.
    fn merge_into(path: &Path, table: &Table) -> Result<()> {
        let mut file = if path.is_file() { TableFile::read(path)? } else { TableFile::default() };
        let mut merged = table.clone();
        // A tuning of some variants or types keeps what the file says of the others.
        if let Some(old) = file.tables.iter().find(|t| t.device == table.device && t.driver == table.driver) {
            merged.fill_from(old);
        }
        file.tables.retain(|t| !(t.device == table.device && t.driver == table.driver));
        file.tables.push(merged);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(&file)? + "\n";
        std::fs::write(path, text).with_context(|| format!("write {}", path.display()))
    }
}

/// The per-user cache: `$XDG_CACHE_HOME/subgroup-suite/gemm-tune.json`, else under `~/.cache`.
pub fn cache_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("subgroup-suite").join("gemm-tune.json"))
}

/// The configurations this run uses: a table (if any matched) and one pinned by `--config NAME`.
pub struct Choice {
    pub table: Option<Table>,
    pub source: String,
    pub pinned: Option<Config>,
    pub pinned_coop: Option<CmConfig>,
}

impl Choice {
    /// `--config FILE|NAME`, else the cache, else the committed table.
    pub fn load(ctx: &Context, config: Option<&str>) -> Result<Choice> {
        let mut choice = Choice { table: None, source: "built-in defaults".into(), pinned: None, pinned_coop: None };
        if let Some(arg) = config {
            if Path::new(arg).is_file() {
                choice.table = TableFile::read(Path::new(arg))?.find(ctx, arg);
                choice.source = arg.to_string();
                if choice.table.is_none() {
                    out(format!("note: {arg} holds no table for this device and driver: built-in defaults"));
                }
                return Ok(choice);
            }
            choice.pinned = Config::parse(arg);
            choice.pinned_coop = CmConfig::parse(arg);
            if choice.pinned.is_none() && choice.pinned_coop.is_none() {
                return vk_compute::setup_error(format!(
                    "--config {arg}: neither a file nor a configuration like `register 128x128x8 8x8 pad4`, `subgroup 64x128x8 8x4 pad4 shuffleXor`, `coopmat 16x16x16 sg2x4 t4x2 bk32` or `coopmat2 128x128x32 wg256`"
                ));
            }
        }
        if let Some(path) = cache_path().filter(|p| p.is_file()) {
            let shown = path.display().to_string();
            match TableFile::read(&path) {
                Ok(file) => choice.table = file.find(ctx, &shown),
                Err(e) => out(format!("note: {shown} ignored: {e:#}")),
            }
            if choice.table.is_some() {
                choice.source = shown;
            }
        }
        let committed: TableFile = serde_json::from_str(COMMITTED).context("parse the committed tuned table")?;
        let committed = committed.find(ctx, "samples/06_gemm/tuned/nvidia.json");
        match (&mut choice.table, committed) {
            (None, Some(table)) => {
                choice.table = Some(table);
                choice.source = "samples/06_gemm/tuned/nvidia.json (committed)".into();
            }
            // The cache may hold a tuning of some variants or types only: the committed table
            // of the same device and driver answers for the rest, its landscape included (the
            // record's `tuned` is this table).
            (Some(cached), Some(table)) => {
                let took = cached.fill_from(&table);
                if took {
                    choice.source += ", and for what it lacks samples/06_gemm/tuned/nvidia.json (committed)";
                }
            }
            _ => {}
        }
        Ok(choice)
    }

    /// The configuration of `variant` for `shape` and `elem`: pinned, tuned, or the default.
    pub fn config(&self, ctx: &Context, variant: Variant, elem: Elem, shape: Shape) -> Option<Config> {
        if let Some(p) = self.pinned.filter(|p| p.variant == variant) {
            return Some(p);
        }
        let class = Class::of(shape);
        let tuned = self
            .table
            .as_ref()
            .and_then(|t| t.best.iter().find(|b| b.elem == elem && b.class == class && b.variant == variant));
        tuned.and_then(|b| Config::parse(&b.config)).or_else(|| simt::default_config(ctx, variant, elem, None))
    }

    /// The configuration of cooperative-matrix `variant` for `shape` and `elem`: pinned, tuned,
    /// or the first of its grid the device can run; else why none.
    pub fn coop_config(&self, ctx: &Context, variant: Variant, elem: Elem, shape: Shape) -> Result<CmConfig, String> {
        let class = Class::of(shape);
        let tuned = self
            .table
            .as_ref()
            .and_then(|t| t.best.iter().find(|b| b.elem == elem && b.class == class && b.variant == variant))
            .and_then(|b| CmConfig::parse(&b.config));
        coopmat::config(ctx, variant, elem, self.pinned_coop.filter(|p| p.variant == variant).or(tuned))
    }
}

/// Run the tuner for `elems` over the grids of `variants`, save the table in the cache (and at `out_path`), return it.
pub fn tune(
    ctx: &Context,
    seed: u64,
    (elems, variants): (&[Elem], &[Variant]),
    out_path: Option<&Path>,
    report: &mut Report,
) -> Result<Table> {
    let cpu = ctx.caps().is_cpu();
    let classes = [Class::Square, Class::ShortK, Class::Skinny];
    let (device, driver) = device_key(ctx);
    let mut table = Table { device, driver, best: Vec::new(), grid: Vec::new() };
    let timing = Timing { warmup: 2, iters: if cpu { 2 } else { 10 }, batch: 1 };
    // Each type's grid: the SIMT tiles for f32 and f16, the cooperative-matrix blocks for the
    // types the matrix units take (none where the device lacks them: their reason is noted).
    // A configuration the device cannot have is named by its variant, with the reason.
    let jobs = |elem: Elem| -> Vec<(String, Result<Job, String>)> {
        let mut jobs: Vec<(String, Result<Job, String>)> = Vec::new();
        if elem.simt() {
            let simt = [Variant::Register, Variant::Subgroup].into_iter().filter(|v| variants.contains(v));
            let simt = simt.flat_map(simt::grid);
            jobs.extend(simt.map(|c| (c.name(), Ok(Job::Simt(c)))));
        }
        for variant in [Variant::Coopmat, Variant::Coopmat2] {
            if variants.contains(&variant) && coopmat::output(variant, elem).is_some() {
                let grid = coopmat::grid(ctx, variant, elem).into_iter();
                jobs.extend(
                    grid.map(|c| (c.as_ref().map_or(harness::value_name(variant), |c| c.name()), c.map(Job::Coop))),
                );
            }
        }
        jobs
    };
    let total: usize = elems.iter().map(|&e| jobs(e).len() * classes.len()).sum();
    let mut done = 0;
    for &elem in elems {
        // Build and check each configuration once per type.
        let mut built = Vec::new();
        for (config, job) in jobs(elem) {
            let gemm = match job {
                Ok(job) => job.build(ctx, elem, None)?.map(|g| (job, g)),
                Err(why) => Err(why),
            };
            match gemm {
                Err(why) => {
                    for &class in &classes {
                        let shape = class.tuning_shape(cpu).label();
                        let note = Some(why.clone());
                        table.grid.push(Point { elem, class, shape, config: config.clone(), tflops: None, note });
                    }
                }
                Ok((job, gemm)) => {
                    let label = format!("tune {} {} [{}]", job.name(), harness::value_name(elem), gemm.describe());
                    report.pipeline_stats(&label, [gemm.kernel()])?;
                    if tuning_check(ctx, &job, &gemm, elem, seed, report)? {
                        built.push((job, gemm));
                    }
                }
            }
        }
        let grid_len = jobs(elem).len();
        for &class in &classes {
            let shape = class.tuning_shape(cpu);
            let x = check::inputs(shape, elem, Kind::Real, seed, 1.0, 0.0);
            let mut io = crate::Io::upload(ctx, elem, &x, shape)?;
            // Building and checking the grid leaves the device idle: bring its clocks up before the
            // first point is timed, or that point runs at idle clocks and reads as a slow tile.
            harness::warm_up_for(ctx, std::time::Duration::from_secs(1))?;
            for (job, gemm) in &built {
                done += 1;
                if let Some(why) = io.prepare(ctx, gemm, shape)? {
                    out(format!("tune [{done}/{total}] {}: {why}", job.name()));
                    continue;
                }
                let times = harness::time_gpu(ctx, &timing, |rec| gemm.record(rec, io.bindings()?, shape, 1.0, 0.0))?;
                let tflops = shape.flops() as f64 / times.median_ns() / 1e3;
                out(format!(
                    "tune [{done}/{total}] {} {class:?} {}: {} {tflops:.2} TFLOP/s",
                    harness::value_name(elem),
                    shape.label(),
                    job.name()
                ));
                let point =
                    Point { elem, class, shape: shape.label(), config: job.name(), tflops: Some(tflops), note: None };
                table.grid.push(point);
                let variant = match job {
                    Job::Simt(c) => c.variant,
                    Job::Coop(c) => c.variant,
                };
                let slot = table.best.iter_mut().find(|b| b.elem == elem && b.class == class && b.variant == variant);
                match slot {
                    Some(b) if b.tflops >= tflops => {}
                    Some(b) => *b = Best { elem, class, variant, config: job.name(), tflops },
                    None => table.best.push(Best { elem, class, variant, config: job.name(), tflops }),
                }
            }
            done += grid_len - built.len();
        }
    }
    for b in &table.best {
        out(format!(
            "tuned: {} {:?} {}: {} ({:.2} TFLOP/s)",
            harness::value_name(b.elem),
            b.class,
            harness::value_name(b.variant),
            b.config,
            b.tflops
        ));
    }
    let paths: Vec<PathBuf> = cache_path().into_iter().chain(out_path.map(Path::to_path_buf)).collect();
    for path in paths {
        TableFile::merge_into(&path, &table)?;
        out(format!("tuned table saved to {}", path.display()));
    }
    Ok(table)
}

/// Check a configuration before timing it: exact small integers at two small shapes (an
/// aligned one, whose 16-byte paths it takes, and an odd one). A failure is recorded in the
/// report and the configuration left out of the tuning.
fn tuning_check(ctx: &Context, job: &Job, gemm: &Built, elem: Elem, seed: u64, report: &mut Report) -> Result<bool> {
    for shape in [Shape { m: 136, n: 272, k: 80 }, Shape { m: 67, n: 45, k: 37 }] {
        let x = check::inputs(shape, elem, Kind::Exact, seed, 2.0, -1.0);
        let mut io = crate::Io::upload(ctx, elem, &x, shape)?;
        if let Some(why) = io.prepare(ctx, gemm, shape)? {
            anyhow::bail!(why);
        }
        let got = io.checked_run(ctx, gemm, shape, x.alpha, x.beta)?;
        let sample = check::Sample::of(shape, seed);
        let wants = check::reference(shape, &x, &sample);
        let result = check::compare(shape, Kind::Exact, &got, &wants, gemm.rounding());
        if !result.passed() {
            let label = format!("tune {} {} {}", job.name(), harness::value_name(elem), shape.label());
            report.check(&label, None, &result);
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(elem: Elem, config: &str, tflops: Option<f64>) -> Point {
        let shape = "4096x4096x4096".to_string();
        let note = tflops.is_none().then(|| format!("{config}: does not fit"));
        Point { elem, class: Class::Square, shape, config: config.into(), tflops, note }
    }

    /// A new tuning of one type and variant replaces that grid whole (stale and unfit points
    /// included) and keeps the grids of the others.
    #[test]
    fn a_tuning_replaces_its_grid_and_keeps_the_others() {
        let path = std::env::temp_dir().join(format!("gemm-tune-merge-{}.json", std::process::id()));
        let table = |grid: Vec<Point>| Table { device: "GPU".into(), driver: "1".into(), best: Vec::new(), grid };
        let old = table(vec![
            point(Elem::Int8, "coopmat 16x16x32 sg2x4 t4x4 bk32", Some(1.0)),
            point(Elem::Int8, "coopmat", None),
            point(Elem::Int8, "coopmat2 128x128x32 wg256", Some(2.0)),
            point(Elem::F16, "coopmat 16x16x16 sg4x4 t2x4 bk16", Some(3.0)),
        ]);
        TableFile::merge_into(&path, &old).expect("write the old table");
        let new = table(vec![point(Elem::Int8, "coopmat 16x16x32 sg2x4 t4x2 bk32", Some(4.0))]);
        TableFile::merge_into(&path, &new).expect("merge the new table");
        let file = TableFile::read(&path).expect("read the merged table");
        std::fs::remove_file(&path).ok();
        let configs: Vec<(Elem, &str)> = file.tables[0].grid.iter().map(|p| (p.elem, p.config.as_str())).collect();
        let want = [
            (Elem::Int8, "coopmat 16x16x32 sg2x4 t4x2 bk32"),
            (Elem::Int8, "coopmat2 128x128x32 wg256"),
            (Elem::F16, "coopmat 16x16x16 sg4x4 t2x4 bk16"),
        ];
        assert_eq!(configs, want);
    }
}
