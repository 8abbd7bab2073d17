//! Samples: discovery (`samples/NN_name/`, binary `NN_name`), building, running, result table.
//! Used by `cargo xtask run`, by the samples step of `cargo xtask test` (every sample with
//! `--validate --json`, judged by exit code and document) and by `cargo xtask bench`.

use std::env;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::report::Document;
use crate::{cargo_step, prereqs, progress, step, Error, Result};

/// The sample that prints the device facts; it takes neither `--bench` nor `--inject-fault`.
pub const PROPERTIES: &str = "00_properties";
/// The sample whose `--json` document names the device every sample picks.
const HELLO: &str = "01_hello_subgroup";
/// Samples without timed or fault-checked kernels (they reject [`BENCH_OPTIONS`]):
/// `00_properties` runs with `--json` alone for the device facts under `bench`.
pub const NO_BENCH: &[&str] = &[PROPERTIES, HELLO];
/// The sample options that only samples with timed or fault-checked kernels take: the list
/// `harness::CommonArgs::reject_bench_options` refuses (xtask, std only, cannot import it).
const BENCH_OPTIONS: &[&str] = &["--bench", "--iters", "--batch", "--inject-fault"];

/// Code paths a sample's default run does not take, validated too: (binary, arguments).
const ALTERNATE_PATHS: &[(&str, &[&str])] = &[
    // The memory-barrier hand-over of partials (the default uses 64-bit flagged partials).
    ("02_reduce", &["--variant", "fast", "--fast-result", "last-workgroup", "--fast-fences"]),
    // The last workgroup reducing the partials for every operation (the default folds them
    // into the result with one atomic per workgroup where an atomic exists).
    ("02_reduce", &["--variant", "fast", "--fast-result", "last-workgroup"]),
    // Each look-back whatever the device's default: a subgroup without elements looking back
    // while the others load (the default on a GPU with a fixed subgroup size), and the first
    // subgroup after the tile scan (the default elsewhere, lavapipe included).
    ("03_scan", &["--variant", "single-pass", "--lookback", "subgroup"]),
    LOOKBACK_NARROW,
    // Bench mode: warm-up (clock probe, copies), copy ceiling and timestamps, at a small size.
    ("02_reduce", &["--bench", "--size", "4099", "--iters", "3"]),
    // The atomic result's alternating accumulators over many runs, several workgroups.
    ("02_reduce", &["--bench", "--variant", "fast", "--fast-result", "atomic", "--size", "1000003", "--iters", "3"]),
    // Several tiles over many runs on the same tile states: every epoch after the first.
    ("03_scan", &["--bench", "--size", "100003", "--iters", "3"]),
    // The 32-bit look-backs with the look-back subgroup (lavapipe's default is narrow), over
    // many runs, and 04's tiles two loads deep.
    (
        "03_scan",
        &[
            "--bench",
            "--variant=single-pass",
            "--lookback=subgroup",
            "--lookback-word=32",
            "--size=100003",
            "--iters=3",
        ],
    ),
    (
        "04_compaction",
        &["--variant=single-pass", "--lookback=subgroup", "--lookback-word=32", "--depth=2", "--size=100003"],
    ),
    ("04_compaction", &["--bench", "--variant=single-pass", "--lookback-word=32", "--size=100003", "--iters=3"]),
    // 04's single pass with the look-back lavapipe's default (narrow) does not take, and over many runs.
    ("04_compaction", &["--variant", "single-pass", "--lookback", "subgroup"]),
    // ... and its tiles two loads deep, which by default only inputs of 2^25 elements or more take.
    ("04_compaction", &["--variant", "single-pass", "--lookback", "subgroup", "--depth", "2"]),
    ("04_compaction", &["--bench", "--variant", "single-pass", "--size", "100003", "--iters", "3"]),
];

/// The scan's look-back by the first subgroup after the tile scan: of the alternate paths, the
/// one also run at every lavapipe width.
const LOOKBACK_NARROW: (&str, &[&str]) = ("03_scan", &["--variant", "single-pass", "--lookback", "narrow"]);

/// The single passes as on a device without 64-bit buffer atomics (their 32-bit look-backs: 03's
/// two tagged words, 04's flag and count in one word), run at the default subgroup size and at
/// every lavapipe width, at one size of many tiles with a partial last one.
const WITHOUT_INT64_ATOMICS: &[(&str, &[&str])] = &[
    ("03_scan", &["--variant", "single-pass", "--without-features", "int64-atomics", "--size", "1000003"]),
    ("04_compaction", &["--variant", "single-pass", "--without-features", "int64-atomics", "--size", "300007"]),
];

/// A lavapipe subgroup size other than its default 8: lavapipe's subgroup is LLVM's native
/// vector width in 32-bit lanes, set with `LP_NATIVE_VECTOR_WIDTH`.
struct LavapipeWidth {
    /// Table label, e.g. `sg4`.
    label: &'static str,
    subgroup_size: u32,
    /// The value of `LP_NATIVE_VECTOR_WIDTH` (bits).
    vector_width: &'static str,
}

/// The subgroup sizes that `test` adds on lavapipe, each for every sample's default run (but
/// 00_properties') plus [`LOOKBACK_NARROW`] and [`WITHOUT_INT64_ATOMICS`].
const LAVAPIPE_WIDTHS: &[LavapipeWidth] = &[
    LavapipeWidth { label: "sg4", subgroup_size: 4, vector_width: "128" },
    LavapipeWidth { label: "sg16", subgroup_size: 16, vector_width: "512" },
];

/// Validation-layer message markers: output containing one fails `test` even after exit 0.
const VALIDATION_MARKERS: &[&str] = &["VUID-", "SYNC-HAZARD", "Validation Error"];

/// The sample exit code for FALLBACK: a fast path did not complete and a portable fallback
/// produced the checked result.
pub const EXIT_FALLBACK: i32 = 3;
/// The sample exit code for SKIP: the device lacks a required feature.
pub const EXIT_SKIP: i32 = 77;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    Pass,
    Fail,
    Error,
    Fallback,
    Skip,
    Crash,
}

impl Outcome {
    /// From a sample's exit code (`None`: killed by a signal).
    pub fn from_code(code: Option<i32>) -> Self {
        match code {
            Some(0) => Outcome::Pass,
            Some(1) => Outcome::Fail,
            Some(2) => Outcome::Error,
            Some(EXIT_FALLBACK) => Outcome::Fallback,
            Some(EXIT_SKIP) => Outcome::Skip,
            _ => Outcome::Crash,
        }
    }

    /// FALLBACK is not a failure here: `test` turns a FALLBACK it does not accept into FAIL.
    fn is_failure(self) -> bool {
        matches!(self, Outcome::Fail | Outcome::Error | Outcome::Crash)
    }

    /// The name of the outcome, also the document's `status` for PASS, FAIL, FALLBACK and SKIP.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Error => "ERROR",
            Outcome::Fallback => "FALLBACK",
            Outcome::Skip => "SKIP",
            Outcome::Crash => "CRASH",
        }
    }
}

/// The sample binaries: their names, where they are and where they run.
pub struct Samples {
    /// Binary names (`NN_name`), sorted.
    pub names: Vec<String>,
    bin_dir: PathBuf,
    /// The samples' working directory: the project root, or xtask's own for prebuilt binaries
    /// (whose project root, compiled into xtask, may not exist where they run).
    work_dir: Option<PathBuf>,
}

impl Samples {
    /// The workspace's samples (`samples/NN_name/`), where `cargo build --release` puts them:
    /// `<target>/release`, target being `$CARGO_TARGET_DIR` (relative to the root) or `target`.
    pub fn workspace(root: &Path) -> Result<Self> {
        let dir = root.join("samples");
        let entries = fs::read_dir(&dir).map_err(|e| Error::failed(format!("cannot list {}: {e}", dir.display())))?;
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok())
            .filter(|entry| entry.path().join("Cargo.toml").is_file())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        if names.is_empty() {
            return Err(Error::failed(format!("no samples found in {}", dir.display())));
        }
        let target = match env::var_os("CARGO_TARGET_DIR") {
            Some(dir) if !dir.is_empty() => root.join(dir),
            _ => root.join("target"),
        };
        Ok(Samples { names, bin_dir: target.join("release"), work_dir: Some(root.to_path_buf()) })
    }

    /// Prebuilt sample binaries in `dir`: every executable named `NN_name` (so not xtask).
    pub fn prebuilt(dir: &Path) -> Result<Self> {
        let entries = fs::read_dir(dir).map_err(|e| Error::usage(format!("cannot list {}: {e}", dir.display())))?;
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok())
            .filter(|entry| prereqs::is_executable(&entry.path()))
            .filter_map(|entry| {
                let file_name = entry.file_name().into_string().ok()?;
                let name = file_name.strip_suffix(env::consts::EXE_SUFFIX)?;
                is_sample_name(name).then(|| name.to_string())
            })
            .collect();
        names.sort();
        if names.is_empty() {
            return Err(Error::usage(format!("no sample binaries (NN_name) in {}", dir.display())));
        }
        Ok(Samples { names, bin_dir: dir.to_path_buf(), work_dir: None })
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.bin_dir.join(format!("{name}{}", env::consts::EXE_SUFFIX))
    }

    /// A command that runs sample `name` in the samples' working directory.
    pub fn command(&self, name: &str) -> Command {
        let mut cmd = Command::new(self.path(name));
        if let Some(dir) = &self.work_dir {
            cmd.current_dir(dir);
        }
        cmd
    }
}

/// `NN_name`: two digits, an underscore, a name.
fn is_sample_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.len() > 3 && bytes[..2].iter().all(u8::is_ascii_digit) && bytes[2] == b'_'
}

/// The samples matching `all`, `NN` or `NN_name`.
fn select<'a>(all: &'a [String], selector: &str) -> Vec<&'a String> {
    all.iter()
        .filter(|name| {
            selector == "all" || name.as_str() == selector || name.split_once('_').is_some_and(|(nn, _)| nn == selector)
        })
        .collect()
}

/// Builds every sample (`--release`).
pub fn build(root: &Path) -> Result {
    cargo_step(root, &["build", "--release", "--bins", "--workspace", "--exclude", "xtask"])
}

/// One line of a result table.
struct Row {
    label: String,
    outcome: Outcome,
    time: Duration,
}

/// `cargo xtask run [NN|NN_name|all] [-- ARGS...]`
pub fn run(root: &Path, args: &[String]) -> Result {
    let (selectors, extra) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let samples = Samples::workspace(root)?;
    let selected = match selectors {
        [] => select(&samples.names, "all"),
        [one] => select(&samples.names, one),
        _ => return Err(Error::usage("run: give one sample, then `--` and its arguments")),
    };
    if selected.is_empty() {
        return Err(Error::usage(format!(
            "unknown sample `{}`; use NN, NN_name or all. Samples:\n  {}",
            selectors.join(" "),
            samples.names.join("\n  ")
        )));
    }
    prereqs::ensure()?;
    build(root)?;
    let mut rows = Vec::new();
    let several = selected.len() > 1;
    for name in selected {
        if several && lacks_bench_mode(name, extra) {
            let label = format!("{name} (no timed or fault-checked kernels)");
            rows.push(Row { label, outcome: Outcome::Skip, time: Duration::ZERO });
            continue;
        }
        let mut cmd = samples.command(name);
        cmd.args(extra);
        let label = command_line(&cmd, name);
        step(&label);
        let start = Instant::now();
        // The sample keeps the terminal: nothing is captured.
        let outcome = match cmd.status() {
            Ok(status) => {
                let outcome = Outcome::from_code(status.code());
                if outcome == Outcome::Crash {
                    eprintln!("{name}: crashed ({status})");
                }
                outcome
            }
            Err(e) => {
                eprintln!("{name}: cannot run {}: {e}", samples.path(name).display());
                Outcome::Error
            }
        };
        rows.push(Row { label, outcome, time: start.elapsed() });
    }
    finish(&rows)
}

/// Whether `run` over several samples skips `name`: `extra` asks for a bench option (`--bench`,
/// `--iters`, …) and the sample has no bench mode, so it would only end in its usage error.
/// Named alone, a sample gets the options whatever they are.
fn lacks_bench_mode(name: &str, extra: &[String]) -> bool {
    NO_BENCH.contains(&name) && extra.iter().any(|a| BENCH_OPTIONS.contains(&a.split('=').next().unwrap_or(a)))
}

/// One validation run under `test`.
struct Job<'a> {
    name: &'a str,
    args: Vec<String>,
    /// The lavapipe subgroup size it runs at, if not the default.
    width: Option<&'static LavapipeWidth>,
}

impl Job<'_> {
    /// `name args [sgN]`, for the result table.
    fn label(&self) -> String {
        let mut label = self.name.to_string();
        for arg in &self.args {
            label.push(' ');
            label.push_str(arg);
        }
        if let Some(width) = self.width {
            label.push_str(&format!(" [{}]", width.label));
        }
        label
    }
}

/// The samples step of `cargo xtask test`: builds, then runs every sample, the
/// `ALTERNATE_PATHS` and [`WITHOUT_INT64_ATOMICS`] with `--validate --json`, and on lavapipe
/// also every sample's default run, [`LOOKBACK_NARROW`] and [`WITHOUT_INT64_ATOMICS`] at the
/// [`LAVAPIPE_WIDTHS`]. Each run is judged
/// by its exit code and its document ([`judge_validation`]).
pub fn validate_all(samples: &Samples, device: Option<&Device>) -> Result {
    let on_lavapipe = device.is_some_and(|d| d.lavapipe);
    if !on_lavapipe {
        progress("subgroup sizes 4 and 16 are lavapipe-only (LP_NATIVE_VECTOR_WIDTH): skipped on this driver");
    }
    let rows: Vec<Row> =
        validation_jobs(&samples.names, on_lavapipe).iter().map(|job| validate(samples, job, on_lavapipe)).collect();
    finish(&rows)
}

/// The validation runs of [`validate_all`] for the samples `names`.
fn validation_jobs(names: &[String], on_lavapipe: bool) -> Vec<Job<'_>> {
    let to_args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let present = |name: &str| names.iter().find(|n| *n == name);
    let mut jobs = Vec::new();
    for name in names {
        jobs.push(Job { name, args: Vec::new(), width: None });
    }
    for (name, args) in ALTERNATE_PATHS.iter().chain(WITHOUT_INT64_ATOMICS) {
        if let Some(name) = present(name) {
            jobs.push(Job { name, args: to_args(args), width: None });
        }
    }
    if on_lavapipe {
        for width in LAVAPIPE_WIDTHS {
            for name in names.iter().filter(|name| *name != PROPERTIES) {
                jobs.push(Job { name, args: Vec::new(), width: Some(width) });
            }
            for (name, args) in std::iter::once(&LOOKBACK_NARROW).chain(WITHOUT_INT64_ATOMICS) {
                if let Some(name) = present(name) {
                    jobs.push(Job { name, args: to_args(args), width: Some(width) });
                }
            }
        }
    }
    jobs
}

/// What `cargo xtask test` needs to know of the device the samples choose.
pub struct Device {
    /// Whether it is lavapipe (`LP_NATIVE_VECTOR_WIDTH` sets its subgroup size).
    pub lavapipe: bool,
    /// The largest size the fault tests run at: the most 4-byte elements one buffer holds,
    /// at most the largest bench size (2^28).
    pub largest_size: u64,
}

/// The device the samples run on, from `01_hello_subgroup --json` (which picks it as every
/// sample does); `None` when that fails.
pub fn probe_device(samples: &Samples) -> Option<Device> {
    if !samples.contains(HELLO) {
        progress(format!("no {HELLO}: the device is unknown"));
        return None;
    }
    let mut cmd = samples.command(HELLO);
    cmd.arg("--json");
    step(&format!("{} (which device)", command_line(&cmd, HELLO)));
    let document = match run_captured(&mut cmd).map(|run| Document::parse(&run.stdout)) {
        Ok(Ok(document)) => document,
        Ok(Err(why)) => {
            eprintln!("{HELLO}: no JSON document ({why}): the device is unknown");
            return None;
        }
        Err(e) => {
            eprintln!("{HELLO}: cannot run: {e}: the device is unknown");
            return None;
        }
    };
    let range = document.max_storage_buffer_range()?;
    Some(Device { lavapipe: document.driver_name() == Some("llvmpipe"), largest_size: (range / 4).min(1 << 28) })
}

/// Runs one job with `--validate --json` and judges it. On lavapipe a sample other than
/// 00_properties that SKIPs as a whole fails: it has everything the samples need there, so a
/// SKIP would mean a check (the subgroup self-check, say) misfired and nothing was tested.
fn validate(samples: &Samples, job: &Job, on_lavapipe: bool) -> Row {
    let mut cmd = samples.command(job.name);
    cmd.args(["--validate", "--json"]).args(&job.args);
    let mut shown = command_line(&cmd, job.name);
    if let Some(width) = job.width {
        cmd.env("LP_NATIVE_VECTOR_WIDTH", width.vector_width);
        shown = format!("LP_NATIVE_VECTOR_WIDTH={} {shown}", width.vector_width);
    }
    step(&shown);
    let label = job.label();
    let start = Instant::now();
    let outcome = match run_captured(&mut cmd) {
        Ok(run) => match judge_validation(&label, &run, job.width.map(|w| w.subgroup_size)) {
            Outcome::Skip if on_lavapipe && job.name != PROPERTIES => {
                eprintln!("{label}: skipped as a whole on lavapipe, where everything it needs exists: FAIL");
                Outcome::Fail
            }
            outcome => outcome,
        },
        Err(e) => {
            eprintln!("{label}: cannot run {}: {e}", samples.path(job.name).display());
            Outcome::Error
        }
    };
    Row { label, outcome, time: start.elapsed() }
}

/// The outcome of a `--validate --json` run: the exit code's, except that
/// * a PASS or FALLBACK needs a JSON document on stdout whose `status` says the same;
/// * a validation message anywhere in the output turns a PASS or FALLBACK into FAIL;
/// * a FALLBACK counts only on a CPU device (lavapipe), whose workgroups have no
///   forward-progress guarantee between them; elsewhere every fast path must complete;
/// * at a lavapipe width, a device reporting another subgroup size fails (the row would lie).
fn judge_validation(label: &str, run: &Captured, subgroup_size: Option<u32>) -> Outcome {
    let outcome = Outcome::from_code(run.status.code());
    match outcome {
        Outcome::Crash => {
            eprintln!("{label}: crashed ({})", run.status);
            return outcome;
        }
        Outcome::Pass | Outcome::Fallback => {}
        Outcome::Fail | Outcome::Error | Outcome::Skip => return outcome,
    }
    let document = match Document::parse(&run.stdout) {
        Ok(document) => document,
        Err(why) => {
            eprintln!("{label}: {} but stdout is not one JSON document ({why}): FAIL", run.status);
            return Outcome::Fail;
        }
    };
    if document.status() != Some(outcome.label()) {
        let status = document.status().unwrap_or("missing");
        eprintln!("{label}: {} but the document's status is {status}: FAIL", run.status);
        return Outcome::Fail;
    }
    let output = format!("{}\n{}", run.stdout, run.stderr);
    if let Some(marker) = VALIDATION_MARKERS.iter().find(|m| output.contains(**m)) {
        eprintln!("{label}: {} but its output contains `{marker}`: FAIL", outcome.label());
        return Outcome::Fail;
    }
    if let (Some(expected), Some(reported)) = (subgroup_size, document.subgroup_size()) {
        if expected != reported {
            eprintln!("{label}: the device reports subgroup size {reported}, not {expected}: FAIL");
            return Outcome::Fail;
        }
    }
    if outcome == Outcome::Fallback {
        match document.device_type() {
            Some("CPU") => println!("FALLBACK accepted: CPU device (no forward-progress guarantee between workgroups)"),
            other => {
                let device_type = other.unwrap_or("unknown");
                eprintln!("{label}: FALLBACK on a {device_type} device, where every fast path must complete: FAIL");
                return Outcome::Fail;
            }
        }
    }
    outcome
}

/// `name ARGS` of a sample command, for step headers and table rows.
fn command_line(cmd: &Command, name: &str) -> String {
    let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy()).collect();
    format!("{name} {}", args.join(" ")).trim_end().to_string()
}

/// What a run with captured output left.
pub struct Captured {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` with stdin closed, capturing stdout (the JSON document under `--json`) and
/// stderr; stderr also goes on to the terminal as it comes.
pub fn run_captured(cmd: &mut Command) -> io::Result<Captured> {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    // Both pipes are drained at once: a child blocked on a full stderr would never close stdout.
    let stderr_thread = thread::spawn(move || tee(stderr, Some(io::stderr())));
    let stdout = tee(stdout, None::<io::Stdout>);
    let stderr = stderr_thread.join().unwrap_or_default();
    let status = child.wait()?;
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    Ok(Captured { status, stdout: text(stdout), stderr: text(stderr) })
}

/// Reads `source` to its end, copying it to `sink` (if any) as it comes; returns all of it.
fn tee(source: Option<impl Read>, mut sink: Option<impl Write>) -> Vec<u8> {
    let mut all = Vec::new();
    let mut buf = [0; 8192];
    if let Some(mut source) = source {
        while let Ok(n @ 1..) = source.read(&mut buf) {
            all.extend_from_slice(&buf[..n]);
            if let Some(sink) = &mut sink {
                let _ = sink.write_all(&buf[..n]).and_then(|()| sink.flush());
            }
        }
    }
    all
}

/// Prints the result table; fails if any run failed, errored or crashed.
fn finish(rows: &[Row]) -> Result {
    let width = rows.iter().map(|row| row.label.len()).max().unwrap_or(0).max(6);
    println!("\n{:<width$}  {:<8}  {:>8}", "sample", "result", "seconds");
    for row in rows {
        println!("{:<width$}  {:<8}  {:>8.2}", row.label, row.outcome.label(), row.time.as_secs_f64());
    }
    let failed = rows.iter().filter(|row| row.outcome.is_failure()).count();
    if failed == 0 {
        Ok(())
    } else {
        Err(Error::failed(format!("{failed} of {} sample run(s) failed", rows.len())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::document;

    #[test]
    fn bench_options_skip_the_samples_without_a_bench_mode() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(lacks_bench_mode("00_properties", &args(&["--bench"])));
        assert!(lacks_bench_mode("01_hello_subgroup", &args(&["--validate", "--iters=5"])));
        assert!(!lacks_bench_mode("01_hello_subgroup", &args(&["--validate"])));
        assert!(!lacks_bench_mode("02_reduce", &args(&["--bench"])));
    }

    #[test]
    fn exit_codes() {
        let outcomes: Vec<_> = [Some(0), Some(1), Some(2), Some(3), Some(77), Some(101), None]
            .into_iter()
            .map(Outcome::from_code)
            .collect();
        use Outcome::*;
        assert_eq!(outcomes, [Pass, Fail, Error, Fallback, Skip, Crash, Crash]);
        assert!(!Skip.is_failure() && !Pass.is_failure() && !Fallback.is_failure() && Error.is_failure());
    }

    #[test]
    fn selectors() {
        let all: Vec<String> = ["00_properties", "01_hello_subgroup", "02_reduce"].map(String::from).into();
        assert_eq!(select(&all, "all").len(), 3);
        assert_eq!(select(&all, "01"), [&all[1]]);
        assert_eq!(select(&all, "02_reduce"), [&all[2]]);
        assert!(select(&all, "03").is_empty());
        assert!(select(&all, "reduce").is_empty());
    }

    #[test]
    fn sample_names() {
        assert!(is_sample_name("00_properties") && is_sample_name("03_scan"));
        assert!(
            !is_sample_name("xtask") && !is_sample_name("0_x") && !is_sample_name("03_") && !is_sample_name("ab_c")
        );
    }

    #[test]
    fn job_labels() {
        let width = &LAVAPIPE_WIDTHS[0];
        let job = Job { name: "03_scan", args: vec!["--lookback".into(), "narrow".into()], width: Some(width) };
        assert_eq!(job.label(), "03_scan --lookback narrow [sg4]");
        assert_eq!(Job { name: "02_reduce", args: Vec::new(), width: None }.label(), "02_reduce");
    }

    #[test]
    fn validation_matrix() {
        let names: Vec<String> =
            ["00_properties", "01_hello_subgroup", "02_reduce", "03_scan"].map(String::from).into();
        let labels = |jobs: Vec<Job>| jobs.iter().map(Job::label).collect::<Vec<_>>();
        let default_width = labels(validation_jobs(&names, false));
        let present =
            |paths: &[(&str, &[&str])]| paths.iter().filter(|(name, _)| names.iter().any(|n| n == name)).count();
        let alternates = present(ALTERNATE_PATHS);
        assert!(alternates < ALTERNATE_PATHS.len(), "the list leaves 04_compaction's paths out");
        let without_int64 = present(WITHOUT_INT64_ATOMICS);
        assert_eq!(without_int64, 1, "03_scan's, not 04_compaction's");
        assert_eq!(default_width.len(), names.len() + alternates + without_int64);
        assert_eq!(default_width[..4], names[..]);
        assert!(default_width.iter().all(|label| !label.contains("[sg")));

        let lavapipe = labels(validation_jobs(&names, true));
        let at = |width: &str| lavapipe.iter().filter(|label| label.ends_with(width)).cloned().collect::<Vec<_>>();
        let subset = [
            "01_hello_subgroup",
            "02_reduce",
            "03_scan",
            "03_scan --variant single-pass --lookback narrow",
            "03_scan --variant single-pass --without-features int64-atomics --size 1000003",
        ];
        assert_eq!(at(" [sg4]"), subset.map(|label| format!("{label} [sg4]")));
        assert_eq!(at(" [sg16]"), subset.map(|label| format!("{label} [sg16]")));
        assert_eq!(lavapipe.len(), default_width.len() + 2 * subset.len());
        // Samples that are missing are left out, alternate paths included.
        let fewer: Vec<String> = ["00_properties", "02_reduce"].map(String::from).into();
        assert!(labels(validation_jobs(&fewer, true)).iter().all(|label| !label.starts_with("03_scan")));
    }

    #[cfg(unix)]
    fn captured(code: i32, stdout: &str, stderr: &str) -> Captured {
        use std::os::unix::process::ExitStatusExt;
        let status = ExitStatus::from_raw(code << 8);
        Captured { status, stdout: stdout.to_string(), stderr: stderr.to_string() }
    }

    #[cfg(unix)]
    #[test]
    fn capture_keeps_stdout_and_stderr_apart() {
        let script = "echo '{\"status\": \"PASS\"}'; echo 'VUID-vkCmdDispatch-None-08606' >&2; exit 3";
        let run = run_captured(Command::new("sh").args(["-c", script])).unwrap();
        assert_eq!(run.status.code(), Some(3));
        assert_eq!(run.stdout, "{\"status\": \"PASS\"}\n");
        assert!(run.stderr.contains("VUID-") && !run.stdout.contains("VUID-"));
    }

    #[cfg(unix)]
    #[test]
    fn validation_runs_are_judged_by_exit_code_and_document() {
        use Outcome::*;
        let pass = document("PASS", Some("DiscreteGpu"), &[("fast add u32", "PASS")]);
        assert_eq!(judge_validation("x", &captured(0, &pass, "fine"), None), Pass);
        // A validation message, a missing or contradicting document: FAIL.
        assert_eq!(judge_validation("x", &captured(0, &pass, "VUID-x"), None), Fail);
        assert_eq!(judge_validation("x", &captured(0, "PASS", ""), None), Fail);
        let fallback_gpu = document("FALLBACK", Some("DiscreteGpu"), &[("fast add u32", "FALLBACK")]);
        assert_eq!(judge_validation("x", &captured(0, &fallback_gpu, ""), None), Fail);
        // FALLBACK: accepted on a CPU device only.
        assert_eq!(judge_validation("x", &captured(3, &fallback_gpu, ""), None), Fail);
        let fallback_cpu = document("FALLBACK", Some("CPU"), &[("fast add u32", "FALLBACK")]);
        assert_eq!(judge_validation("x", &captured(3, &fallback_cpu, ""), None), Fallback);
        assert_eq!(judge_validation("x", &captured(3, &fallback_cpu, "Validation Error: x"), None), Fail);
        // The exit code decides FAIL, ERROR, SKIP and CRASH, document or not.
        assert_eq!(judge_validation("x", &captured(1, &pass, ""), None), Fail);
        assert_eq!(judge_validation("x", &captured(2, "", "bad --size"), None), Error);
        assert_eq!(judge_validation("x", &captured(77, "", "VUID-"), None), Skip);
        assert_eq!(judge_validation("x", &captured(101, &pass, ""), None), Crash);
        // At a lavapipe width the device must report that subgroup size (the document says 8).
        let cpu_pass = document("PASS", Some("CPU"), &[("fast add u32", "PASS")]);
        assert_eq!(judge_validation("x", &captured(0, &cpu_pass, ""), Some(4)), Fail);
        assert_eq!(judge_validation("x", &captured(0, &cpu_pass, ""), Some(8)), Pass);
    }
}
