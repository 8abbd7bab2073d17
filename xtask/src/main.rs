//! `cargo xtask`: project automation, std only so that it builds in seconds.
//!
//! `cargo xtask` is an alias (see `.cargo/config.toml`) for `cargo run --package xtask --`.
//! Its own code is std only; its one dependency, `crates/bench_report`, holds the report's and
//! the progress bar's crates (plotters, serde_json, indicatif), and nothing depends on shaderc,
//! so xtask builds in seconds after the first time.
//!
//! * `cargo xtask run [NN|NN_name|all] [-- ARGS...]`: check prerequisites, build every sample
//!   (`--release`), run the selected samples (default: all) with ARGS, print a result table.
//! * `cargo xtask test [--quick]`: prerequisites, `cargo fmt --check`, docs include check,
//!   clippy, unit tests, then (skipped with `--quick`) every sample with `--validate --json`,
//!   on lavapipe also at subgroup sizes 4 and 16, and the fault-injection runs, which must
//!   FAIL every check. Stops at the first failing step; prints each step's wall time.
//! * `cargo xtask bench [--quick] [--out FILE] [--bin-dir DIR] [--peers FILE] [--resume RECORD]`:
//!   every sample's `--bench --json` in one JSON document (see `bench.rs`); with `--bin-dir`,
//!   prebuilt binaries and no build (for a machine without cargo); `--resume` finishes a
//!   record that a time limit cut short.
//! * `cargo xtask report [--check] [RECORD.json...]`: each record's device page, per-sample
//!   fragments and SVG charts next to it (default: every record in `docs/src/results/`);
//!   `--check` writes nothing and fails when a committed file differs (see `bench_report`).
//! * `cargo xtask docs`: docs checks, then the book built with mdbook (installed at a pinned
//!   version into the target directory when missing; see `book.rs`).
//! * `cargo xtask prereqs` (not in the help): only the prerequisites check.
//!
//! Everything except xtask is built with `--release` only: shaderc builds its C++ library from
//! source once per cargo profile, which takes a long time.
//! Sample exit codes: 0 PASS, 1 FAIL, 2 ERROR, 3 FALLBACK (a fast path did not complete, a
//! portable fallback produced the result), 77 SKIP; anything else (signal, panic) is a CRASH.
//! xtask itself exits 0 on success, 1 when a step or sample fails, 2 on bad usage or a missing
//! prerequisite.

mod bench;
mod book;
mod docs_check;
mod fault_injection;
mod figures_check;
mod json;
mod prereqs;
mod report;
mod samples;

use std::env;
use std::fmt::Display;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  run [NN|NN_name|all] [-- ARGS...]   build and run samples (default: all), ARGS go to each sample
  test [--quick]                      fmt, docs, clippy, unit tests, then every sample with
                                      --validate --json (on lavapipe also at subgroup sizes 4 and
                                      16) and the fault-injection runs (--quick skips the samples)
  bench [--quick] [--out FILE] [--bin-dir DIR] [--peers FILE | --peers-run SCRIPT]
        [--resume RECORD] [--only SAMPLE,... [--merge RECORD]] [--iters N]
                                      build, run 00_properties --json and every sample that has a
                                      bench mode with --bench --json, gather the documents into one
                                      JSON record in FILE (default: stdout), with a progress bar.
                                      --quick: each with --iters 5 at one mid-sized input;
                                      --bin-dir: the prebuilt binaries in DIR, no build;
                                      --peers-run: run the peers script (xtask/peers/peers.py)
                                      first and embed its rows; --peers: embed that JSON file;
                                      --out is rewritten after each sample, and --resume
                                      RECORD runs only the samples that record of the same
                                      build lacks or that did not succeed there;
                                      --only: those samples only; with --merge RECORD they are
                                      measured again into RECORD; --iters: timed runs each
  report [--check] [RECORD.json...]   write each record's device page, fragments and charts
                                      (default: every docs/src/results/*.json); --check
                                      writes nothing and fails when they are stale
  docs                                check docs includes and figures, build the book with mdbook
";

/// What ends xtask unsuccessfully: a message (printed to stderr) and the exit code.
#[derive(Debug)]
pub struct Error {
    pub code: u8,
    pub msg: String,
}

impl Error {
    /// A step or a sample failed: exit code 1.
    pub fn failed(msg: impl Into<String>) -> Self {
        Error { code: 1, msg: msg.into() }
    }

    /// Bad usage or a missing prerequisite: exit code 2.
    pub fn usage(msg: impl Into<String>) -> Self {
        Error { code: 2, msg: msg.into() }
    }
}

pub type Result<T = ()> = std::result::Result<T, Error>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {}", e.msg);
            ExitCode::from(e.code)
        }
    }
}

fn dispatch(args: &[String]) -> Result {
    let root = project_root();
    let Some((command, rest)) = args.split_first() else {
        return Err(Error::usage(format!("missing command\n\n{USAGE}")));
    };
    match command.as_str() {
        "run" => samples::run(&root, rest),
        "test" => test(&root, rest),
        "bench" => bench::run(&root, rest),
        "report" => report(&root, rest),
        "docs" => no_args(rest).and_then(|()| docs(&root)),
        "prereqs" => no_args(rest).and_then(|()| prereqs::ensure()),
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(Error::usage(format!("unknown command `{other}`\n\n{USAGE}"))),
    }
}

fn no_args(args: &[String]) -> Result {
    match args {
        [] => Ok(()),
        _ => Err(Error::usage(format!("unexpected arguments: {}", args.join(" ")))),
    }
}

/// The workspace root: the parent of xtask's own manifest directory.
pub fn project_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// Set when stdout carries a document (`bench`): progress lines then go to stderr.
static STDOUT_IS_RESERVED: AtomicBool = AtomicBool::new(false);

/// Keeps stdout for a document: from now on [`progress`] and [`step`] write to stderr, and so
/// do the tools xtask runs (cargo, apt-get) through [`progress_stdio`].
pub fn reserve_stdout() {
    STDOUT_IS_RESERVED.store(true, Ordering::SeqCst);
}

/// Prints a progress line: stdout, or stderr once stdout is reserved.
pub fn progress(line: impl Display) {
    if STDOUT_IS_RESERVED.load(Ordering::SeqCst) {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

/// Where a tool's stdout goes: the terminal's stdout, or stderr once stdout is reserved.
pub fn progress_stdio() -> Stdio {
    if STDOUT_IS_RESERVED.load(Ordering::SeqCst) {
        io::stderr().into()
    } else {
        Stdio::inherit()
    }
}

/// Prints a step header: `==> what`.
pub fn step(what: &str) {
    progress(format!("==> {what}"));
}

/// Announces and runs `cargo ARGS` in the project root (cargo from `$CARGO`, else `cargo`).
pub fn cargo_step(root: &Path, args: &[&str]) -> Result {
    let what = format!("cargo {}", args.join(" "));
    step(&what);
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run_checked(Command::new(cargo).current_dir(root).args(args).stdout(progress_stdio()), &what)
}

/// Runs `cmd` (described as `what` in errors), failing unless it exits successfully.
pub fn run_checked(cmd: &mut Command, what: &str) -> Result {
    match cmd.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(Error::failed(format!("`{what}` failed ({status})"))),
        Err(e) => Err(Error::failed(format!("cannot run `{what}`: {e}"))),
    }
}

/// The wall time of each step, printed at the end whether the steps passed or not.
#[derive(Default)]
struct StepTimes(Vec<(String, Duration)>);

impl StepTimes {
    /// Runs `body` as the step `name`, recording its wall time.
    fn time(&mut self, name: &str, body: impl FnOnce() -> Result) -> Result {
        let start = Instant::now();
        let result = body();
        self.0.push((name.to_string(), start.elapsed()));
        result
    }

    fn print(&self) {
        let width = self.0.iter().map(|(name, _)| name.len()).max().unwrap_or(0).max(5);
        println!("\n{:<width$}  {:>8}", "step", "seconds");
        for (name, time) in &self.0 {
            println!("{name:<width$}  {:>8.1}", time.as_secs_f64());
        }
        let total: Duration = self.0.iter().map(|(_, time)| *time).sum();
        println!("{:<width$}  {:>8.1}", "total", total.as_secs_f64());
    }
}

fn test(root: &Path, args: &[String]) -> Result {
    let quick = match args {
        [] => false,
        [flag] if flag == "--quick" => true,
        _ => return Err(Error::usage(format!("test: unexpected arguments: {}", args.join(" ")))),
    };
    let mut times = StepTimes::default();
    let result = test_steps(root, quick, &mut times);
    times.print();
    result?;
    println!("test: all steps passed");
    Ok(())
}

/// The steps of `cargo xtask test`, in order, each timed; stops at the first that fails.
fn test_steps(root: &Path, quick: bool, times: &mut StepTimes) -> Result {
    let cargo = |args: &'static [&'static str]| move || cargo_step(root, args);
    times.time("prerequisites", || {
        step("prerequisites");
        prereqs::ensure()
    })?;
    times.time("fmt", cargo(&["fmt", "--all", "--", "--check"]))?;
    times.time("docs checks", || {
        step("docs checks: includes, figures typed by hand, generated results current");
        docs_check::run(root)?;
        report_check(root)
    })?;
    times.time("book", || book::build(root))?;
    times.time("clippy", cargo(&["clippy", "--release", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    times.time("unit tests", cargo(&["test", "--release", "--workspace", "--exclude", "xtask"]))?;
    times.time("xtask unit tests", cargo(&["test", "--package", "xtask"]))?;
    if quick {
        step("samples with --validate --json and fault injection: skipped (--quick)");
        return Ok(());
    }
    let samples = samples::Samples::workspace(root)?;
    let mut device = None;
    times.time("samples", || {
        step("samples with --validate --json");
        samples::build(root)?;
        device = samples::probe_device(&samples);
        samples::validate_all(&samples, device.as_ref())
    })?;
    let largest = device.as_ref().map_or(fault_injection::LAVAPIPE_LARGEST, |d| d.largest_size);
    times.time("fault injection", || {
        step("fault injection: every check must FAIL");
        fault_injection::run(&samples, largest)
    })
}

fn docs(root: &Path) -> Result {
    step("docs checks");
    docs_check::run(root)?;
    report_check(root)?;
    book::build(root)
}

/// The records the report covers by default: every `docs/src/results/*.json`, sorted.
fn records(root: &Path) -> Result<Vec<PathBuf>> {
    let dir = root.join("docs").join("src").join("results");
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::failed(format!("cannot list {}: {e}", dir.display())))?;
    let mut records: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    records.sort();
    Ok(records)
}

/// `cargo xtask report [--check] [RECORD.json...]`
fn report(root: &Path, args: &[String]) -> Result {
    let check = args.iter().any(|a| a == "--check");
    if let Some(flag) = args.iter().find(|a| a.starts_with("--") && *a != "--check") {
        return Err(Error::usage(format!("report: unexpected argument `{flag}`")));
    }
    let mut paths: Vec<PathBuf> = args.iter().filter(|a| !a.starts_with("--")).map(PathBuf::from).collect();
    if paths.is_empty() {
        paths = records(root)?;
    }
    let mode = if check { bench_report::Mode::Check } else { bench_report::Mode::Write };
    match bench_report::report(&paths, mode) {
        Ok(lines) => {
            lines.iter().for_each(progress);
            Ok(())
        }
        Err(why) => Err(Error::failed(format!(
            "{why}
run `cargo xtask report` and commit the result"
        ))),
    }
}

/// The generated results pages match the checked-in records.
fn report_check(root: &Path) -> Result {
    report(root, &["--check".to_string()])
}
