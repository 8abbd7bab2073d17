//! Argument parsing, context creation and the outcome → exit code mapping.

use crate::report::{out, set_json_mode, Report};
use anyhow::Result;
use std::process::ExitCode;
use vk_compute::{Context, ContextOptions, SetupError, Unsupported};

pub const EXIT_PASS: u8 = 0;
pub const EXIT_FAIL: u8 = 1;
pub const EXIT_ERROR: u8 = 2;
/// A fast path did not complete and its portable fallback produced the checked result.
pub const EXIT_FALLBACK: u8 = 3;
pub const EXIT_SKIP: u8 = 77;

/// A deliberate fault compiled into the checked kernels (`--inject-fault`), to prove that the
/// checks fail when a kernel is wrong. See `glsl/include/fault.glsl`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// One workgroup (or tile) contributes nothing.
    DropWorkgroup,
    /// One element is read from its neighbour's index.
    OffByOne,
}

impl Fault {
    /// INJECT_FAULT's value for this fault in glsl/include/fault.glsl.
    pub fn define(self) -> u32 {
        match self {
            Fault::DropWorkgroup => 1,
            Fault::OffByOne => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Fault::DropWorkgroup => "drop-workgroup",
            Fault::OffByOne => "off-by-one",
        }
    }
}

/// A device feature that `--without-features` can hide.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// `shaderBufferInt64Atomics`: 64-bit atomics on storage buffers.
    Int64Atomics,
}

/// The flags every sample shares. Samples flatten this into their own clap struct.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct CommonArgs {
    /// Use the device with this index (see --list-devices) instead of the best ranked one.
    #[arg(long)]
    pub device: Option<usize>,
    /// List the Vulkan devices and exit.
    #[arg(long)]
    pub list_devices: bool,
    /// Enable the Khronos validation layer (synchronization validation included); any validation
    /// or performance message fails the run (the layer's general notes do not).
    #[arg(long)]
    pub validate: bool,
    /// Problem size (elements); the default runs the sample's set of small, odd sizes.
    #[arg(long)]
    pub size: Option<u64>,
    /// Seed of the random inputs (printed on every run; pass it back to replay).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Timed repetitions per measurement in --bench mode (after warm-up; default 50).
    #[arg(long)]
    pub iters: Option<u32>,
    /// In --bench mode, time this many back-to-back runs between each pair of timestamps and
    /// report the time per run (default 1: each run timed alone, timestamp costs included).
    #[arg(long)]
    pub batch: Option<u32>,
    /// Time every variant with GPU timestamps and compare with a copy kernel.
    #[arg(long)]
    pub bench: bool,
    /// Print one JSON document on stdout (the human-readable text goes to stderr).
    #[arg(long)]
    pub json: bool,
    /// Require this subgroup size (needs subgroup size control; an error if the device cannot).
    #[arg(long)]
    pub subgroup_size: Option<u32>,
    /// Pretend the device lacks these subgroup operation families (e.g. `arithmetic,clustered`),
    /// to exercise fallbacks and SKIP paths on a device that has them.
    #[arg(long, value_delimiter = ',')]
    pub without_ops: Vec<String>,
    /// Pretend the device lacks these features (`int64-atomics`: shaderBufferInt64Atomics), to
    /// exercise the paths for devices without them on a device that has them.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub without_features: Vec<Feature>,
    /// Print each kernel's driver statistics (registers, spills, …) where the device offers
    /// VK_KHR_pipeline_executable_properties (NVIDIA does; lavapipe 22.3 does not).
    #[arg(long)]
    pub pipeline_stats: bool,
    /// Compile the checked kernels with a deliberate fault and plant the deciding value where
    /// it strikes: every check must then FAIL (and a fallback counts as a failure). Proves
    /// that the checks can fail; `cargo xtask test` runs it at a small and the largest size.
    #[arg(long, value_enum)]
    pub inject_fault: Option<Fault>,
}

impl CommonArgs {
    /// A clear error (exit 2) when `--size` elements of `elem_bytes` each cannot be one storage
    /// buffer on this device or be indexed with 32 bits; nothing without `--size`. Call it before
    /// generating a large input.
    pub fn check_size(&self, ctx: &Context, elem_bytes: u64) -> Result<()> {
        let Some(n) = self.size else { return Ok(()) };
        let limit = crate::largest_size(ctx, elem_bytes);
        if n > limit {
            return Err(SetupError(format!(
                "--size {n}: at most {limit} elements of {elem_bytes} bytes fit one buffer on {} (maxStorageBufferRange {} bytes, 32-bit indices)",
                ctx.caps().name,
                ctx.caps().max_storage_buffer_range
            ))
            .into());
        }
        Ok(())
    }

    /// The seed in use (set by [`run_sample`] before the sample runs).
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or(0)
    }

    /// How --bench measurements repeat: 5 warm-up runs, `--iters` timed, `--batch` per stamp.
    pub fn timing(&self) -> crate::Timing {
        crate::Timing { warmup: 5, iters: self.iters.unwrap_or(50), batch: self.batch.unwrap_or(1) }
    }

    /// For samples that time nothing (00, 01) or check nothing a fault could break (00): a
    /// clear error instead of silently ignoring the bench options or `--inject-fault`.
    pub fn reject_bench_options(&self, sample: &str) -> Result<()> {
        let given: Vec<&str> = [
            ("--bench", self.bench),
            ("--iters", self.iters.is_some()),
            ("--batch", self.batch.is_some()),
            ("--inject-fault", self.inject_fault.is_some()),
        ]
        .into_iter()
        .filter_map(|(flag, on)| on.then_some(flag))
        .collect();
        if !given.is_empty() {
            return Err(SetupError(format!(
                "{sample} has no timed or fault-checked kernels: {} not accepted",
                given.join(", ")
            ))
            .into());
        }
        Ok(())
    }

    /// The shader defines of `--inject-fault` (none without it): the fault, the element where
    /// the sample planted the deciding value, and the workgroup (or tile) that covers it.
    pub fn fault_defines(&self, element: u64, workgroup: u64) -> Vec<(&'static str, String)> {
        match self.inject_fault {
            None => Vec::new(),
            Some(fault) => vec![
                ("INJECT_FAULT", fault.define().to_string()),
                ("FAULT_ELEMENT", element.to_string()),
                ("FAULT_WORKGROUP", workgroup.to_string()),
            ],
        }
    }

    /// Under `--inject-fault`, an error unless `n` elements in tiles of `tile` reach the tile
    /// after the one that holds `element`: a dropped tile shows in the tiles after it (the
    /// single passes' offsets), so the faulty one must not be the last.
    pub fn check_fault_reach(&self, variant: &str, n: u64, tile: u32, element: usize) -> Result<()> {
        let faulty = element as u64 / u64::from(tile);
        if self.inject_fault.is_some() && n.div_ceil(u64::from(tile)) < faulty + 2 {
            return vk_compute::setup_error(format!(
                "--inject-fault: {variant} needs --size of at least {} (tiles of {tile})",
                (faulty + 1) * u64::from(tile) + 1
            ));
        }
        Ok(())
    }

    pub fn context_options(&self) -> Result<ContextOptions> {
        let mut hidden_ops = 0;
        for name in &self.without_ops {
            hidden_ops |= vk_compute::SubgroupOps::from_name(name)
                .ok_or_else(|| SetupError(format!("--without-ops: unknown operation family `{name}`")))?;
        }
        Ok(ContextOptions {
            device_index: self.device,
            validate: self.validate,
            subgroup_size: self.subgroup_size,
            pipeline_statistics: self.pipeline_stats,
            hidden_ops,
            hide_int64_atomics: self.without_features.contains(&Feature::Int64Atomics),
            ..Default::default()
        })
    }
}

/// A sample's clap arguments, which contain the common ones.
pub trait SampleArgs: clap::Parser {
    fn common(&self) -> &CommonArgs;
    fn common_mut(&mut self) -> &mut CommonArgs;
    /// How [`run_sample`] makes the context: the common options, which a sample may extend
    /// (06_gemm asks for cooperative matrices when a variant that uses them is selected).
    fn context_options(&self) -> Result<ContextOptions> {
        self.common().context_options()
    }
}

/// Implement [`SampleArgs`] for a sample's argument struct with a `common: CommonArgs` field.
#[macro_export]
macro_rules! sample_args {
    ($args:ty) => {
        impl $crate::SampleArgs for $args {
            fn common(&self) -> &$crate::CommonArgs {
                &self.common
            }
            fn common_mut(&mut self) -> &mut $crate::CommonArgs {
                &mut self.common
            }
        }
    };
}

/// Parse the arguments and fix the seed; `Err` carries the exit code of `--list-devices`.
fn parse_args<A: SampleArgs>(sample: &str) -> Result<A, ExitCode> {
    let mut args = A::parse();
    set_json_mode(args.common().json);
    if args.common().list_devices {
        return Err(exit_with(|| list_devices_report(sample)));
    }
    let seed = args.common().seed.unwrap_or_else(fresh_seed);
    args.common_mut().seed = Some(seed);
    out(format!("{sample}: seed = {seed} (replay with --seed {seed})"));
    Ok(args)
}

/// Parse the arguments, create the context, run the sample, and turn the outcome into an exit
/// code: 0 PASS, 1 FAIL (wrong results or validation messages), 2 error, 3 FALLBACK, 77 SKIP.
pub fn run_sample<A: SampleArgs>(sample: &str, run: impl FnOnce(&Context, &A, &mut Report) -> Result<()>) -> ExitCode {
    let args = match parse_args::<A>(sample) {
        Ok(args) => args,
        Err(code) => return code,
    };
    let common = args.common();
    exit_with(|| {
        let ctx = Context::new(args.context_options()?)?;
        for name in &common.without_ops {
            out(format!("pretending the device lacks {name} subgroup operations"));
        }
        for feature in &common.without_features {
            out(format!("pretending the device lacks {}", crate::value_name(*feature)));
        }
        let validation = ctx.validation_counter();
        out(device_line(&ctx));
        crate::subgroup_check::full_subgroups(&ctx)?;
        if common.pipeline_stats && !ctx.caps().pipeline_executable_info {
            out(format!(
                "note: {} does not offer VK_KHR_pipeline_executable_properties: --pipeline-stats prints nothing",
                ctx.caps().name
            ));
        }
        let mut report = Report::new(sample, Some(&ctx), common.seed());
        report.fault = common.inject_fault;
        if let Some(fault) = common.inject_fault {
            out(format!("injected fault: {} (every check must FAIL)", fault.name()));
        }
        let result = run(&ctx, &args, &mut report);
        // Drop the context first: leaks are reported while the device is destroyed.
        drop(ctx);
        report.validation_messages += validation.count();
        result.map(|()| report)
    })
}

/// Like [`run_sample`] for samples that make their own contexts (00_properties visits every
/// device): `run` fills a report that has no single device.
pub fn run_plain<A: SampleArgs>(sample: &str, run: impl FnOnce(&A, &mut Report) -> Result<()>) -> ExitCode {
    let args = match parse_args::<A>(sample) {
        Ok(args) => args,
        Err(code) => return code,
    };
    exit_with(|| {
        let mut report = Report::new(sample, None, args.common().seed());
        run(&args, &mut report).map(|()| report)
    })
}

/// Map a finished report or an error to the exit code, printing one clear line for errors.
pub fn exit_with(f: impl FnOnce() -> Result<Report>) -> ExitCode {
    match f() {
        Ok(report) => ExitCode::from(report.finish()),
        Err(e) => {
            if let Some(reason) = e.chain().find_map(|c| c.downcast_ref::<Unsupported>()) {
                out(format!("SKIP: {reason}"));
                ExitCode::from(EXIT_SKIP)
            } else if e.chain().any(|c| c.downcast_ref::<SetupError>().is_some()) {
                eprintln!("error: {e:#}");
                ExitCode::from(EXIT_ERROR)
            } else {
                eprintln!("FAIL: {e:#}");
                ExitCode::from(EXIT_FAIL)
            }
        }
    }
}

fn list_devices_report(sample: &str) -> Result<Report> {
    for caps in vk_compute::list_devices()? {
        out(format!(
            "{}: {} ({}), Vulkan {}, driver {} {}, {}",
            caps.index,
            caps.name,
            caps.device_type,
            caps.api_version,
            caps.driver_name,
            caps.driver_info,
            caps.subgroup_summary()
        ));
    }
    Ok(Report::new(sample, None, 0).listing_only())
}

/// `device 0: NAME (type), Vulkan X, driver Y, subgroup size S (min, max)` for the log.
pub fn device_line(ctx: &Context) -> String {
    let c = ctx.caps();
    let (min, max) = c.subgroup_size_range();
    format!(
        "device {}: {} ({}), Vulkan {}, driver {} {}, subgroup size {} (min {min}, max {max}){}{}",
        c.index,
        c.name,
        c.device_type,
        c.api_version,
        c.driver_name,
        c.driver_info,
        c.subgroup_size,
        ctx.options.subgroup_size.map(|s| format!(", required {s}")).unwrap_or_default(),
        if ctx.options.validate { ", validation on" } else { "" }
    )
}

/// The tile arguments of the samples whose stable variants work in tiles (03, 04): the
/// workgroup, the elements per invocation and, for the single pass, who looks back. Flatten it
/// into a sample's arguments; the sample's tile shapes (by n or by form) give the defaults.
#[derive(clap::Args, Debug, Clone)]
pub struct TileArgs {
    /// Invocations per workgroup (a multiple of the largest subgroup size), the single pass's
    /// look-back subgroup included. Default: the sample's tile shape (see its chapter).
    #[arg(long)]
    pub workgroup: Option<u32>,
    /// Elements per invocation (a multiple of 4), loaded at once: a tile is (workgroup −
    /// look-back subgroup) × items elements. Default: the sample's tile shape (see its chapter).
    #[arg(long)]
    pub items: Option<u32>,
    /// single-pass: who looks back over the predecessors' states.
    #[arg(long, value_enum, default_value_t = crate::lookback::Lookback::Auto)]
    pub lookback: crate::lookback::Lookback,
    /// single-pass: the width of the tile-state words (default: 64 where the device has 64-bit
    /// buffer atomics, else 32).
    #[arg(long, value_enum)]
    pub lookback_word: Option<crate::lookback::LookbackWord>,
    /// single-pass with the look-back subgroup: build for subgroups of this many lanes whatever
    /// the device's size, to see the kernel's own check of its subgroups catch a difference
    /// (a SKIP, never a wrong result).
    #[arg(long, hide = true)]
    pub assume_lookback_lanes: Option<u32>,
}

impl TileArgs {
    /// `--workgroup` if given, else the sample's `default` or, on a device that allows fewer
    /// invocations a workgroup, the largest multiple of the largest subgroup size that it allows.
    pub fn workgroup_or(&self, ctx: &Context, default: u32) -> u32 {
        let subgroup = ctx.caps().subgroup_size_range().1;
        self.workgroup.unwrap_or(default.min(ctx.caps().max_workgroup_invocations / subgroup * subgroup))
    }

    /// `--workgroup` and `--items`, where given: the workgroup a multiple of the largest
    /// subgroup size (tiles are laid out by subgroup, and each subgroup's last lane brings its
    /// total: no partial subgroups), the items a multiple of 4 (16-byte loads) up to `max_items`.
    /// `--lookback` only where a single pass runs (`single_pass_runs`).
    pub fn check(&self, ctx: &Context, max_items: u32, single_pass_runs: bool) -> Result<()> {
        let single_pass_options = self.lookback != crate::lookback::Lookback::Auto
            || self.lookback_word.is_some()
            || self.assume_lookback_lanes.is_some();
        if single_pass_options && !single_pass_runs {
            return vk_compute::setup_error(
                "--lookback, --lookback-word and --assume-lookback-lanes change the single pass only: add --variant single-pass",
            );
        }
        let largest = ctx.caps().subgroup_size_range().1;
        if let Some(w) = self.workgroup.filter(|&w| w == 0 || !w.is_multiple_of(largest)) {
            return vk_compute::setup_error(format!(
                "--workgroup {w}: must be a multiple of the largest subgroup size {largest}"
            ));
        }
        if let Some(i) = self.items.filter(|&i| i == 0 || !i.is_multiple_of(4) || i > max_items) {
            return vk_compute::setup_error(format!("--items {i}: must be a multiple of 4 in 4..={max_items}"));
        }
        Ok(())
    }
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    // Keep seeds short enough to retype.
    (nanos as u64 ^ u64::from(std::process::id())) % 1_000_000_007
}
