//! Samples: discovery (`samples/NN_name/`, binary `NN_name`), building, running, result table.
//! Used by `cargo xtask run` and by the `--validate` step of `cargo xtask test`.

use std::env;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::{cargo_step, prereqs, step, Error, Result};

/// Extra arguments that keep a sample small under `cargo xtask test`, by binary name, e.g.
/// `("05_scan", &["--size", "65536"])`. Empty for now: the samples' defaults are small.
const SMALL_ARGS: &[(&str, &[&str])] = &[];

/// Code paths a sample's default run does not take, validated too: (binary, arguments).
const ALTERNATE_PATHS: &[(&str, &[&str])] = &[
    // The memory-barrier hand-over of partials (the default uses 64-bit flagged partials).
    ("02_reduce", &["--variant", "fast", "--fast-result", "last-workgroup", "--fast-fences"]),
    // The last workgroup reducing the partials for every operation (the default folds them
    // into the result with one atomic per workgroup where an atomic exists).
    ("02_reduce", &["--variant", "fast", "--fast-result", "last-workgroup"]),
    // Each look-back whatever the device's default: a subgroup without elements looking back
    // while the others load (the default on a GPU with a fixed subgroup size), the first
    // subgroup after the tile scan (the default elsewhere, lavapipe included), the workgroup.
    ("03_scan", &["--variant", "single-pass", "--lookback", "subgroup"]),
    ("03_scan", &["--variant", "single-pass", "--lookback", "narrow"]),
    ("03_scan", &["--variant", "single-pass", "--lookback", "wide"]),
    // Packed tile states (all in few cache lines), the layout before session 6.
    ("03_scan", &["--variant", "single-pass", "--state-stride", "1"]),
    // Bench mode: warm-up (clock probe, copies), copy ceiling and timestamps, at a small size.
    ("02_reduce", &["--bench", "--size", "4099", "--iters", "3"]),
    // The atomic result's alternating accumulators over many runs, several workgroups.
    ("02_reduce", &["--bench", "--variant", "fast", "--fast-result", "atomic", "--size", "1000003", "--iters", "3"]),
    ("03_scan", &["--bench", "--size", "4099", "--iters", "3"]),
];

/// Validation-layer message markers: output containing one fails `test` even after exit 0.
const VALIDATION_MARKERS: &[&str] = &["VUID-", "SYNC-HAZARD", "Validation Error"];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    Pass,
    Fail,
    Error,
    Skip,
    Crash,
}

impl Outcome {
    /// From a sample's exit code (`None`: killed by a signal).
    fn from_code(code: Option<i32>) -> Self {
        match code {
            Some(0) => Outcome::Pass,
            Some(1) => Outcome::Fail,
            Some(2) => Outcome::Error,
            Some(77) => Outcome::Skip,
            _ => Outcome::Crash,
        }
    }

    fn is_failure(self) -> bool {
        matches!(self, Outcome::Fail | Outcome::Error | Outcome::Crash)
    }

    fn label(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Error => "ERROR",
            Outcome::Skip => "SKIP",
            Outcome::Crash => "CRASH",
        }
    }
}

/// `cargo xtask run [NN|NN_name|all] [-- ARGS...]`
pub fn run(root: &Path, args: &[String]) -> Result {
    let (selectors, extra) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let all = discover(root)?;
    let selected = match selectors {
        [] => select(&all, "all"),
        [one] => select(&all, one),
        _ => return Err(Error::usage("run: give one sample, then `--` and its arguments")),
    };
    if selected.is_empty() {
        return Err(Error::usage(format!(
            "unknown sample `{}`; use NN, NN_name or all. Samples:\n  {}",
            selectors.join(" "),
            all.join("\n  ")
        )));
    }
    prereqs::ensure()?;
    let jobs: Vec<(&String, Vec<String>)> = selected.iter().map(|&name| (name, extra.to_vec())).collect();
    run_samples(root, &jobs, false)
}

/// Runs every sample with `--validate` (and its `SMALL_ARGS`), then the `ALTERNATE_PATHS`: any
/// exit other than 0 or 77, or a validation message in the output, fails.
pub fn validate_all(root: &Path) -> Result {
    let all = discover(root)?;
    let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let mut jobs: Vec<(&String, Vec<String>)> = Vec::new();
    for name in select(&all, "all") {
        let small = SMALL_ARGS.iter().find(|(n, _)| n == name).map_or(&[][..], |(_, a)| a);
        jobs.push((name, args(small)));
    }
    for (binary, extra) in ALTERNATE_PATHS {
        if let Some(name) = all.iter().find(|n| n == binary) {
            jobs.push((name, args(extra)));
        }
    }
    run_samples(root, &jobs, true)
}

/// Builds, then runs each (sample, arguments) job, with `--validate` and capture if `validate`.
fn run_samples(root: &Path, jobs: &[(&String, Vec<String>)], validate: bool) -> Result {
    build(root)?;
    let mut results = Vec::new();
    for (name, extra) in jobs {
        let name = *name;
        let mut cmd = Command::new(binary(root, name));
        cmd.current_dir(root);
        if validate {
            cmd.arg("--validate").stdin(Stdio::null());
        }
        cmd.args(extra);
        let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy()).collect();
        step(format!("{name} {}", args.join(" ")).trim_end());
        let start = Instant::now();
        // Capture (for the validation markers) only under `test`: `run` keeps the terminal.
        let result = if validate { run_tee(&mut cmd) } else { cmd.status().map(|status| (status, String::new())) };
        let outcome = match result {
            Ok((status, output)) => outcome_of(name, status, &output),
            Err(e) => {
                eprintln!("{name}: cannot run {}: {e}", binary(root, name).display());
                Outcome::Error
            }
        };
        let label = if extra.is_empty() { name.clone() } else { format!("{name} {}", extra.join(" ")) };
        results.push((label, outcome, start.elapsed()));
    }
    finish(&results)
}

/// Sample binary names: the folder names under `samples/` that hold a Cargo.toml, sorted.
fn discover(root: &Path) -> Result<Vec<String>> {
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
    Ok(names)
}

/// The samples matching `all`, `NN` or `NN_name`.
fn select<'a>(all: &'a [String], selector: &str) -> Vec<&'a String> {
    all.iter()
        .filter(|name| {
            selector == "all" || name.as_str() == selector || name.split_once('_').is_some_and(|(nn, _)| nn == selector)
        })
        .collect()
}

fn build(root: &Path) -> Result {
    cargo_step(root, &["build", "--release", "--bins", "--workspace", "--exclude", "xtask"])
}

/// `<target>/release/<name>`, target being `$CARGO_TARGET_DIR` (relative to the root) or `target`.
fn binary(root: &Path, name: &str) -> PathBuf {
    let target = match env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root.join(dir),
        _ => root.join("target"),
    };
    target.join("release").join(format!("{name}{}", env::consts::EXE_SUFFIX))
}

/// The outcome from the exit status, turning a PASS into a FAIL if `output` holds a validation
/// message.
fn outcome_of(name: &str, status: ExitStatus, output: &str) -> Outcome {
    let outcome = Outcome::from_code(status.code());
    let marker = VALIDATION_MARKERS.iter().find(|m| output.contains(**m));
    match (outcome, marker) {
        (Outcome::Crash, _) => eprintln!("{name}: crashed ({status})"),
        (Outcome::Pass, Some(marker)) => {
            eprintln!("{name}: exited 0 but its output contains `{marker}`: FAIL");
            return Outcome::Fail;
        }
        _ => {}
    }
    outcome
}

/// Runs `cmd`, echoing its stdout and stderr as they come, and returns both as one text.
fn run_tee(cmd: &mut Command) -> io::Result<(ExitStatus, String)> {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let stderr_thread = thread::spawn(move || tee(stderr, io::stderr()));
    let mut output = tee(stdout, io::stdout());
    output.push(b'\n');
    output.extend(stderr_thread.join().unwrap_or_default());
    let status = child.wait()?;
    Ok((status, String::from_utf8_lossy(&output).into_owned()))
}

fn tee(source: Option<impl Read>, mut sink: impl Write) -> Vec<u8> {
    let mut all = Vec::new();
    let mut buf = [0; 8192];
    if let Some(mut source) = source {
        while let Ok(n @ 1..) = source.read(&mut buf) {
            all.extend_from_slice(&buf[..n]);
            let _ = sink.write_all(&buf[..n]).and_then(|()| sink.flush());
        }
    }
    all
}

/// Prints the result table; fails if any sample failed, errored or crashed.
fn finish(results: &[(String, Outcome, Duration)]) -> Result {
    let width = results.iter().map(|(name, ..)| name.len()).max().unwrap_or(0).max(6);
    println!("\n{:<width$}  {:<6}  {:>8}", "sample", "result", "seconds");
    for (name, outcome, time) in results {
        println!("{name:<width$}  {:<6}  {:>8.2}", outcome.label(), time.as_secs_f64());
    }
    let failed = results.iter().filter(|(_, outcome, _)| outcome.is_failure()).count();
    if failed == 0 {
        Ok(())
    } else {
        Err(Error::failed(format!("{failed} of {} sample(s) failed", results.len())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes() {
        let outcomes: Vec<_> =
            [Some(0), Some(1), Some(2), Some(77), Some(101), None].into_iter().map(Outcome::from_code).collect();
        use Outcome::*;
        assert_eq!(outcomes, [Pass, Fail, Error, Skip, Crash, Crash]);
        assert!(!Skip.is_failure() && !Pass.is_failure() && Error.is_failure());
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

    #[cfg(unix)]
    #[test]
    fn validation_messages_fail_a_pass() {
        use std::os::unix::process::ExitStatusExt;
        let script = "echo fine; echo 'VUID-vkCmdDispatch-None-08606' >&2";
        let mut cmd = Command::new("sh");
        let (status, output) = run_tee(cmd.args(["-c", script])).unwrap();
        assert!(output.contains("fine") && output.contains("VUID-"));
        assert_eq!(outcome_of("x", status, &output), Outcome::Fail);
        assert_eq!(outcome_of("x", status, "all good"), Outcome::Pass);
        assert_eq!(outcome_of("x", ExitStatus::from_raw(77 << 8), "VUID-"), Outcome::Skip);
        assert_eq!(outcome_of("x", ExitStatus::from_raw(9), ""), Outcome::Crash);
    }
}
