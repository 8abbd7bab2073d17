//! `cargo xtask bench [--quick] [--out FILE] [--bin-dir DIR] [--peers FILE | --peers-run SCRIPT]
//! [--resume RECORD] [--only SAMPLE,... [--merge RECORD]] [--iters N]`: every sample's `--bench --json` run
//! gathered into one JSON document, the record of a measurement:
//!
//! ```text
//! { "schema": "subgroup-suite-bench/2", "commit": "<git HEAD at build time>",
//!   "date": "YYYY-MM-DD HH:MM UTC", "quick": bool,
//!   "device": <the first bench sample's "device", verbatim>,
//!   "runs": [{"sample", "commit", "date", "wall_seconds"}, ...],   (one per sample)
//!   "samples": [<each sample's document verbatim, 00_properties --json first>],
//!   "peers": <the peers document verbatim, or null> }
//! ```
//!
//! With `--bin-dir` it runs prebuilt binaries and builds nothing, so it works where there is no
//! cargo and no project (a GPU machine the binaries were carried to).
//!
//! `--peers-run SCRIPT` runs the peers script (`xtask/peers/peers.py`: PyTorch's CUB and cuBLAS
//! timed with CUDA events) with `python3 SCRIPT --json FILE` right before the samples, so that
//! both are measured in one GPU run. Where python3, torch or CUDA is missing, the script says
//! why in one line (exit 3) and the record has no peers; any other failure fails the bench.
//!
//! `--out` is written again after each sample, so a run cut short (a time limit) leaves a
//! record of the samples it finished. `--resume RECORD` takes such a record of the same clean
//! build and runs only the samples it lacks or that did not succeed there (as a fresh run is
//! judged: PASS, SKIP, or FALLBACK on a CPU device); the record keeps RECORD's date (when the
//! measurement began) and its peers unless new ones are given: it counts as the same run.
//!
//! `--only SAMPLE,...` runs only those samples (with 00_properties for the device facts). With
//! `--merge RECORD` it re-measures them into RECORD (of any build, on the same device): their
//! documents and `runs` entries are replaced, the others are kept, and new peers replace only
//! the peer rows of the samples re-measured. `--out` defaults to RECORD then.
//!
//! One progress bar (see `bench_report::BenchProgress`) runs across the whole bench when stderr
//! is a terminal, with an estimate of the time left from the wall times of the record at
//! `--out` (or the resumed or merged one). Samples that ran on different devices (name,
//! driver, versions) fail the bench.

use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bench_report::BenchProgress;

use crate::json::{self, Value};
use crate::report::Document;
use crate::samples::{self, Outcome, Samples, EXIT_FALLBACK, EXIT_SKIP, NO_BENCH, PROPERTIES};
use crate::{prereqs, reserve_stdout, Error, Result};

const SCHEMA: &str = "subgroup-suite-bench/2";
/// Records of the first schema (no `runs`) can still be resumed or merged.
const SCHEMAS_READ: &[&str] = &["subgroup-suite-bench/1", SCHEMA];

/// The peers script's exit code for "no python3 / torch / CUDA here": no peers, no failure.
const PEERS_UNAVAILABLE: i32 = 3;

/// The commit xtask was built from, `-dirty` with uncommitted changes (see build.rs).
const COMMIT: &str = match option_env!("SUITE_COMMIT") {
    Some(commit) => commit,
    None => "unknown",
};

/// What `--quick` adds to each bench run: a few repetitions at one mid-sized input.
const QUICK_ARGS: &[&str] = &["--iters", "5", "--size", "1048576"];
/// The same for 06_gemm, whose `--size N` is an N×N×N problem.
const QUICK_GEMM_ARGS: &[&str] = &["--iters", "5", "--size", "256"];

#[derive(Debug, Default, PartialEq)]
struct Options {
    quick: bool,
    out: Option<PathBuf>,
    bin_dir: Option<PathBuf>,
    peers: Option<PathBuf>,
    peers_run: Option<PathBuf>,
    resume: Option<PathBuf>,
    only: Vec<String>,
    merge: Option<PathBuf>,
    /// Timed runs per measurement, passed to every sample (its default otherwise).
    iters: Option<String>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self> {
        let mut options = Options::default();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = |slot: &mut Option<PathBuf>| match (slot.is_some(), args.next()) {
                (false, Some(value)) => {
                    *slot = Some(PathBuf::from(value));
                    Ok(())
                }
                (true, _) => Err(Error::usage(format!("bench: {arg} given twice"))),
                (false, None) => Err(Error::usage(format!("bench: {arg} needs a value"))),
            };
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--out" => value(&mut options.out)?,
                "--bin-dir" => value(&mut options.bin_dir)?,
                "--peers" => value(&mut options.peers)?,
                "--peers-run" => value(&mut options.peers_run)?,
                "--resume" => value(&mut options.resume)?,
                "--merge" => value(&mut options.merge)?,
                "--iters" => match args.next() {
                    Some(n) if n.parse::<u32>().is_ok_and(|n| n >= 1) => options.iters = Some(n.clone()),
                    _ => return Err(Error::usage("bench: --iters needs a count of 1 or more")),
                },
                "--only" => match args.next() {
                    Some(list) => options.only.extend(list.split(',').filter(|s| !s.is_empty()).map(String::from)),
                    None => return Err(Error::usage("bench: --only needs a value")),
                },
                other => return Err(Error::usage(format!("bench: unexpected argument `{other}`"))),
            }
        }
        if options.peers.is_some() && options.peers_run.is_some() {
            return Err(Error::usage("bench: give --peers or --peers-run, not both"));
        }
        if options.merge.is_some() && options.only.is_empty() {
            return Err(Error::usage("bench: --merge needs --only SAMPLE,..."));
        }
        if options.quick && options.iters.is_some() {
            return Err(Error::usage("bench: --quick sets its own --iters"));
        }
        if options.merge.is_some() && options.resume.is_some() {
            return Err(Error::usage("bench: give --merge or --resume, not both"));
        }
        Ok(options)
    }
}

/// One sample run and what it wrote on stdout.
struct BenchRun {
    name: String,
    code: Option<i32>,
    stdout: String,
    info: RunInfo,
}

/// When, by which build and for how long a sample was measured (the record's `runs`).
#[derive(Clone, Debug, PartialEq)]
struct RunInfo {
    commit: String,
    date: String,
    wall_seconds: Option<f64>,
}

impl RunInfo {
    fn to_json(&self, name: &str) -> String {
        let wall = self.wall_seconds.map_or("null".to_string(), |s| format!("{s:.1}"));
        format!(
            "{{\"sample\": {}, \"commit\": {}, \"date\": {}, \"wall_seconds\": {wall}}}",
            json::quote(name),
            json::quote(&self.commit),
            json::quote(&self.date)
        )
    }
}

impl BenchRun {
    /// Exit 0 or 77 (the device lacks a feature), or 3 (FALLBACK) on a CPU device, whose
    /// workgroups have no forward-progress guarantee (as in `cargo xtask test`; the record
    /// keeps the status and the fallen-back row untimed): anything else fails the bench.
    fn succeeded(&self) -> bool {
        match self.code {
            Some(0 | EXIT_SKIP) => true,
            Some(EXIT_FALLBACK) => self.document().is_some_and(|d| d.device_type() == Some("CPU")),
            _ => false,
        }
    }

    fn document(&self) -> Option<Document> {
        Document::parse(&self.stdout).ok()
    }

    /// The run that wrote `document`, if it succeeded as [`succeeded`](Self::succeeded) judges
    /// a fresh run (what `--resume` keeps).
    fn succeeded_from(document: String, info: RunInfo) -> Option<Self> {
        let parsed = json::parse(&document).ok()?;
        let code = match parsed.get("status").and_then(Value::as_str)? {
            "PASS" => 0,
            "SKIP" => EXIT_SKIP,
            "FALLBACK" => EXIT_FALLBACK,
            _ => return None,
        };
        let name = parsed.get("sample").and_then(Value::as_str)?.to_string();
        Some(BenchRun { name, code: Some(code), stdout: document, info }).filter(BenchRun::succeeded)
    }

    /// The sample's document as it wrote it, or a stand-in naming the sample and its exit
    /// when it wrote none (an error, a crash).
    fn embedded_document(&self) -> String {
        if self.document().is_some() {
            return self.stdout.trim().to_string();
        }
        let code = self.code.map_or("null".to_string(), |code| code.to_string());
        format!(
            "{{\n  \"sample\": {},\n  \"status\": {},\n  \"exit_code\": {code},\n  \
             \"error\": \"no JSON document on stdout\"\n}}",
            json::quote(&self.name),
            json::quote(Outcome::from_code(self.code).label())
        )
    }
}

/// `cargo xtask bench ...`
pub fn run(root: &Path, args: &[String]) -> Result {
    let options = Options::parse(args)?;
    // The document may go to stdout: everything else goes to stderr.
    reserve_stdout();
    let started = SystemTime::now();
    let samples = match &options.bin_dir {
        Some(dir) => Samples::prebuilt(dir)?,
        None => {
            let samples = Samples::workspace(root)?;
            prereqs::ensure()?;
            samples::build(root)?;
            samples
        }
    };
    if !samples.contains(PROPERTIES) {
        return Err(Error::usage(format!("bench: no {PROPERTIES} among the samples")));
    }
    let only = resolve_only(&samples, &options.only)?;
    let date = utc_minute(started);
    let mut earlier = match (&options.resume, &options.merge) {
        (Some(path), _) => Earlier::read(path, options.quick, Some(COMMIT))?,
        (_, Some(path)) => Earlier::read(path, options.quick, None)?.without(&only),
        _ => Earlier { date: date.clone(), runs: Vec::new(), peers: None },
    };
    let out = options.out.clone().or_else(|| options.merge.clone());
    let names: Vec<&str> = std::iter::once(PROPERTIES)
        .chain(samples.names.iter().map(String::as_str).filter(|name| !NO_BENCH.contains(name)))
        .filter(|name| only.is_empty() || *name == PROPERTIES || only.iter().any(|o| o == name))
        .collect();
    // The samples to run now, with the wall time each took in the previous record.
    let previous = previous_walls(out.as_deref().or(options.resume.as_deref()));
    let to_run: Vec<(String, Option<f64>)> = names
        .iter()
        .filter(|name| !earlier.runs.iter().any(|run| run.name == **name))
        .map(|name| (name.to_string(), previous.iter().find(|(n, _)| n == name).map(|(_, s)| *s)))
        .collect();
    let mut progress = BenchProgress::new(to_run);

    let mut problems = Vec::new();
    // A bad peers file or a failed peers run loses the peers, not the measurement: recorded
    // as null (or as the earlier ones), and the bench fails.
    let fresh_peers = match (&options.peers, &options.peers_run) {
        (Some(path), _) => Some(read_peers(path)),
        (_, Some(script)) => run_peers(script, &only, &progress),
        _ => None,
    };
    let peers = match fresh_peers {
        Some(Ok(peers)) if options.merge.is_some() => Some(merge_peers(earlier.peers.take(), &peers, &only)),
        Some(Ok(peers)) => Some(peers),
        Some(Err(why)) => {
            progress.println(&format!("bench: {why}; the record keeps no new peers"));
            problems.push(why);
            earlier.peers.take()
        }
        None => earlier.peers.take(),
    };
    let mut runs = Vec::new();
    for name in names {
        if let Some(at) = earlier.runs.iter().position(|run| run.name == name) {
            progress.println(&format!("==> {name}: kept from the earlier record"));
            runs.push(earlier.runs.swap_remove(at));
            continue;
        }
        let mut args = vec!["--json"];
        if name != PROPERTIES {
            args.insert(0, "--bench");
            if options.quick {
                args.extend(if name.starts_with("06_") { QUICK_GEMM_ARGS } else { QUICK_ARGS });
            }
            if let Some(iters) = &options.iters {
                args.extend(["--iters", iters.as_str()]);
            }
        }
        progress.start(name);
        runs.push(run_sample(&samples, name, &args, &progress));
        progress.finish_sample();
        if let Some(path) = &out {
            write_record(path, &bench_document(&runs, &earlier.runs, options.quick, &earlier.date, peers.as_deref()))?;
        }
    }
    progress.finish();
    // A merged record keeps the samples it did not re-measure, in the order of the samples.
    let merged: Vec<BenchRun> = std::mem::take(&mut earlier.runs);

    problems.extend(
        runs.iter()
            .filter(|run| !run.succeeded())
            .map(|run| format!("{} {}", run.name, Outcome::from_code(run.code).label())),
    );
    let all: Vec<&BenchRun> = runs.iter().chain(&merged).collect();
    if devices_differ(&all) {
        problems.push("the samples ran on different devices (a resumed or merged record of another machine?)".into());
    }
    let document = bench_document(&runs, &merged, options.quick, &earlier.date, peers.as_deref());
    match &out {
        Some(path) => {
            write_record(path, &document)?;
            eprintln!("bench: wrote {}", path.display());
        }
        None => io::stdout()
            .write_all(document.as_bytes())
            .map_err(|e| Error::failed(format!("cannot write the document to stdout: {e}")))?,
    }
    eprint!("{}", summary(&runs));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Error::failed(format!("bench: {}", problems.join(", "))))
    }
}

/// `--only`'s names as the samples' full names (`03` or `03_scan` → `03_scan`).
fn resolve_only(samples: &Samples, only: &[String]) -> Result<Vec<String>> {
    only.iter()
        .map(|wanted| {
            let found = samples.names.iter().find(|name| *name == wanted || name.split('_').next() == Some(wanted));
            match found {
                Some(name) if NO_BENCH.contains(&name.as_str()) => {
                    Err(Error::usage(format!("bench: {name} has no bench mode")))
                }
                Some(name) => Ok(name.clone()),
                None => Err(Error::usage(format!("bench: no sample `{wanted}`"))),
            }
        })
        .collect()
}

/// Each sample's wall seconds in the record at `path`, if it is a record that has them.
fn previous_walls(path: Option<&Path>) -> Vec<(String, f64)> {
    let Some(text) = path.and_then(|path| fs::read_to_string(path).ok()) else { return Vec::new() };
    let Ok(record) = json::parse(&text) else { return Vec::new() };
    let runs = record.get("runs").map(Value::elements).unwrap_or_default();
    runs.iter()
        .filter_map(|run| Some((run.get("sample")?.as_str()?.to_string(), run.get("wall_seconds")?.as_f64()?)))
        .collect()
}

/// Runs one sample, its stderr shown through the progress bar, its stdout kept.
fn run_sample(samples: &Samples, name: &str, args: &[&str], progress: &BenchProgress) -> BenchRun {
    progress.println(&format!("==> {name} {}", args.join(" ")));
    let mut cmd = samples.command(name);
    cmd.args(args);
    let started = Instant::now();
    let date = utc_minute(SystemTime::now());
    let result = run_with_lines(&mut cmd, |line| progress.line(line));
    let wall_seconds = Some(started.elapsed().as_secs_f64());
    let info = RunInfo { commit: COMMIT.to_string(), date, wall_seconds };
    match result {
        Ok((status, stdout)) => {
            if status.code().is_none() {
                progress.println(&format!("{name}: crashed ({status})"));
            }
            let outcome = Outcome::from_code(status.code()).label();
            progress.println(&format!("{name}: {outcome} after {:.0} s", started.elapsed().as_secs_f64()));
            BenchRun { name: name.to_string(), code: status.code(), stdout, info }
        }
        Err(e) => {
            progress.println(&format!("{name}: cannot run {}: {e}", samples.path(name).display()));
            BenchRun { name: name.to_string(), code: None, stdout: String::new(), info }
        }
    }
}

/// Runs `cmd`, handing each line of its stderr to `on_line` as it comes; returns its status
/// and its whole stdout. Both pipes are drained at once: a child blocked on a full stderr
/// would never close stdout.
fn run_with_lines(cmd: &mut Command, mut on_line: impl FnMut(&str)) -> io::Result<(std::process::ExitStatus, String)> {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let mut stdout = child.stdout.take();
    let reader = thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(stdout) = &mut stdout {
            let _ = stdout.read_to_end(&mut text);
        }
        String::from_utf8_lossy(&text).into_owned()
    });
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines() {
            match line {
                Ok(line) => on_line(&line),
                Err(_) => break,
            }
        }
    }
    let stdout = reader.join().unwrap_or_default();
    Ok((child.wait()?, stdout))
}

/// The peers script's categories (`--only`) that stand beside `samples`; empty means all.
fn peer_categories(samples: &[String]) -> Vec<&'static str> {
    let mut categories = Vec::new();
    for sample in samples {
        categories.extend(match sample.split('_').next() {
            Some("02") => &["copy", "reduce"][..],
            Some("03") => &["scan"],
            Some("04") => &["compact"],
            Some("05") => &["histogram"],
            Some("06") => &["gemm"],
            _ => &[],
        });
    }
    categories
}

/// Runs the peers script (see the module documentation): `None` where it says the machine
/// cannot run it, else its document or why it failed.
fn run_peers(script: &Path, only: &[String], progress: &BenchProgress) -> Option<std::result::Result<String, String>> {
    let file = std::env::temp_dir().join(format!("subgroup-suite-peers-{}.json", std::process::id()));
    let mut cmd = Command::new("python3");
    cmd.arg(script).arg("--json").arg(&file);
    let categories = peer_categories(only);
    if !only.is_empty() {
        if categories.is_empty() {
            progress.println("==> peers: none stand beside the samples chosen");
            return None;
        }
        cmd.arg("--only").arg(categories.join(","));
    }
    progress.println(&format!("==> peers: python3 {} --json FILE", script.display()));
    let started = Instant::now();
    let mut said = Vec::new();
    let result = run_with_lines(&mut cmd, |line| {
        said.push(line.to_string());
        progress.println(line);
    });
    match result {
        Err(e) => {
            progress.println(&format!("bench: peers: cannot run python3 ({e}); the record has no peers"));
            None
        }
        Ok((status, _)) if status.code() == Some(PEERS_UNAVAILABLE) => {
            let why = said.last().cloned().unwrap_or_default();
            progress.println(&format!("bench: no peers recorded: {why}"));
            None
        }
        Ok((status, _)) if !status.success() => Some(Err(format!("the peers script failed ({status})"))),
        Ok(_) => {
            progress.println(&format!("peers: done after {:.0} s", started.elapsed().as_secs_f64()));
            let peers = read_peers(&file);
            let _ = fs::remove_file(&file);
            Some(peers)
        }
    }
}

/// `earlier`'s peers with the rows of `only`'s samples replaced by `fresh`'s; `fresh` alone
/// when there were none.
fn merge_peers(earlier: Option<String>, fresh: &str, only: &[String]) -> String {
    let Some(earlier) = earlier else { return fresh.to_string() };
    let rows_of = |text: &str| -> Vec<String> {
        json::raw_member(text, "rows")
            .and_then(json::raw_elements)
            .unwrap_or_default()
            .into_iter()
            .map(String::from)
            .collect()
    };
    let sample_of =
        |row: &str| json::parse(row).ok().and_then(|r| r.get("sample").and_then(Value::as_str).map(String::from));
    let mut rows: Vec<String> = rows_of(&earlier)
        .into_iter()
        .filter(|row| !sample_of(row).is_some_and(|sample| only.contains(&sample)))
        .collect();
    rows.extend(rows_of(fresh));
    let Some(fresh_rows) = json::raw_member(fresh, "rows") else { return fresh.to_string() };
    let joined: Vec<String> = rows.iter().map(|row| format!("    {}", row.trim())).collect();
    fresh.replacen(fresh_rows, &format!("[\n{}\n  ]", joined.join(",\n")), 1)
}

/// Whether the runs name more than one device (text of their `device` members; null aside).
fn devices_differ(runs: &[&BenchRun]) -> bool {
    let mut devices: Vec<&str> = runs.iter().filter_map(|run| json::raw_member(&run.stdout, "device")).collect();
    devices.retain(|device| *device != "null");
    devices.sort_unstable();
    devices.dedup();
    devices.len() > 1
}

/// Writes a record whole or not at all: a run killed while writing keeps the previous one.
fn write_record(path: &Path, document: &str) -> Result {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    fs::write(&partial, document)
        .and_then(|()| fs::rename(&partial, path))
        .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))
}

/// What `--resume` or `--merge` takes from an earlier record: its date, its peers and its
/// runs that succeeded.
struct Earlier {
    date: String,
    runs: Vec<BenchRun>,
    peers: Option<String>,
}

impl Earlier {
    /// The record at `path`, if it is as quick and, where `build` is given (`--resume`), of
    /// that clean build.
    fn read(path: &Path, quick: bool, build: Option<&str>) -> Result<Self> {
        let shown = path.display();
        let text = fs::read_to_string(path).map_err(|e| Error::usage(format!("bench: cannot read {shown}: {e}")))?;
        let record = json::parse(&text).map_err(|e| Error::usage(format!("bench: {shown}: {e}")))?;
        let commit = record.get("commit").and_then(Value::as_str).unwrap_or("none");
        let schema = record.get("schema").and_then(Value::as_str).unwrap_or("none");
        if !SCHEMAS_READ.contains(&schema) {
            return Err(Error::usage(format!("bench: {shown} is not a bench record (schema {schema})")));
        }
        if let Some(build) = build {
            // A build with uncommitted changes, or of unknown commit, says nothing about its code.
            let clean = build != "unknown" && !build.ends_with("-dirty");
            if commit != build || !clean {
                return Err(Error::usage(format!(
                    "bench: {shown} is not a record of these binaries, or they are not of a clean commit \
                     (record {commit}, binaries {build})"
                )));
            }
        }
        if record.get("quick") != Some(&Value::Bool(quick)) {
            return Err(Error::usage(format!("bench: {shown} was {}a --quick run", if quick { "not " } else { "" })));
        }
        let date = record.get("date").and_then(Value::as_str).unwrap_or_default().to_string();
        let infos = record.get("runs").map(Value::elements).unwrap_or_default();
        let info_of = |name: &str| {
            let run = infos.iter().find(|run| run.get("sample").and_then(Value::as_str) == Some(name));
            let text = |key: &str, or: &str| {
                run.and_then(|run| run.get(key)).and_then(Value::as_str).unwrap_or(or).to_string()
            };
            RunInfo {
                commit: text("commit", commit),
                date: text("date", &date),
                wall_seconds: run.and_then(|run| run.get("wall_seconds")).and_then(Value::as_f64),
            }
        };
        let samples = json::raw_member(&text, "samples").and_then(json::raw_elements).unwrap_or_default();
        let runs = samples
            .iter()
            .filter_map(|raw| {
                let document = json::outdent(raw, "    ");
                let name = json::parse(&document).ok()?.get("sample")?.as_str()?.to_string();
                BenchRun::succeeded_from(document, info_of(&name))
            })
            .collect();
        let peers = json::raw_member(&text, "peers").filter(|peers| *peers != "null");
        Ok(Earlier { date, runs, peers: peers.map(|peers| json::outdent(peers, "  ")) })
    }

    /// Without the runs of `samples` (to be measured again), and without 00_properties, which
    /// every bench runs for the device facts.
    fn without(mut self, samples: &[String]) -> Self {
        self.runs.retain(|run| run.name != PROPERTIES && !samples.contains(&run.name));
        self
    }
}

/// The schema of the document `xtask/peers/peers.py` writes, the only one the reports read.
const PEERS_SCHEMA: &str = "subgroup-suite-peers/1";

/// The peers file's text, if it is one JSON document of `PEERS_SCHEMA` whose every row names
/// the sample it stands beside (another script's rows would be kept but never shown).
fn read_peers(path: &Path) -> std::result::Result<String, String> {
    let shown = path.display();
    let text = fs::read_to_string(path).map_err(|e| format!("cannot read the peers file {shown}: {e}"))?;
    let document = json::parse(&text).map_err(|e| format!("the peers file {shown} is not JSON: {e}"))?;
    let schema = document.get("schema").and_then(Value::as_str).unwrap_or("none");
    if schema != PEERS_SCHEMA {
        return Err(format!(
            "the peers file {shown} has schema {schema}, not {PEERS_SCHEMA}: it was not written by xtask/peers/peers.py"
        ));
    }
    let rows = document.get("rows").map(Value::elements).unwrap_or_default();
    if rows.iter().any(|row| row.get("sample").and_then(Value::as_str).is_none()) {
        return Err(format!("the peers file {shown} has a row that names no sample"));
    }
    Ok(text.trim().to_string())
}

/// The bench document (see the module documentation): `runs` (this bench's) and `kept` (an
/// earlier record's), in the order of the samples' names.
fn bench_document(runs: &[BenchRun], kept: &[BenchRun], quick: bool, date: &str, peers: Option<&str>) -> String {
    let mut all: Vec<&BenchRun> = runs.iter().chain(kept).collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    // `device` sits at the top level of both documents: its text fits here unchanged.
    let device = all
        .iter()
        .filter(|run| !NO_BENCH.contains(&run.name.as_str()) && run.document().is_some())
        .filter_map(|run| json::raw_member(&run.stdout, "device"))
        .find(|device| *device != "null")
        .unwrap_or("null");
    let documents: Vec<String> =
        all.iter().map(|run| format!("    {}", json::indent(&run.embedded_document(), "    "))).collect();
    let infos: Vec<String> = all.iter().map(|run| format!("    {}", run.info.to_json(&run.name))).collect();
    format!(
        "{{\n  \"schema\": {},\n  \"commit\": {},\n  \"date\": {},\n  \"quick\": {quick},\n  \
         \"device\": {},\n  \"runs\": [\n{}\n  ],\n  \"samples\": [\n{}\n  ],\n  \"peers\": {}\n}}\n",
        json::quote(SCHEMA),
        json::quote(COMMIT),
        json::quote(date),
        device,
        infos.join(",\n"),
        documents.join(",\n"),
        json::indent(peers.unwrap_or("null"), "  "),
    )
}

/// The human summary: per sample its outcome and bench rows.
fn summary(runs: &[BenchRun]) -> String {
    let mut text = String::from("\nbench summary:\n");
    for run in runs {
        text.push_str(&format!("{}: {}\n", run.name, Outcome::from_code(run.code).label()));
        let Some(document) = run.document() else { continue };
        let rows = document.bench_rows();
        if rows.is_empty() {
            continue;
        }
        let width = rows.iter().map(|row| row.variant.len()).max().unwrap_or(0).max(7);
        text.push_str(&format!(
            "  {:<width$}  {:>10}  {:>11}  {:>9}  {:>9}\n",
            "variant", "n", "median µs", "GB/s", "% of copy"
        ));
        let number = |value: Option<f64>, scale: f64, decimals: usize| {
            value.map_or("-".to_string(), |v| format!("{:.decimals$}", v * scale))
        };
        for row in rows {
            text.push_str(&format!(
                "  {:<width$}  {:>10}  {:>11}  {:>9}  {:>9}\n",
                row.variant,
                number(row.n, 1.0, 0),
                number(row.median_ns, 1e-3, 2),
                number(row.gbps, 1.0, 1),
                number(row.pct_of_copy, 1.0, 1),
            ));
        }
    }
    text
}

/// `YYYY-MM-DD HH:MM UTC` of `time` (times before 1970 read as 1970-01-01 00:00).
fn utc_minute(time: SystemTime) -> String {
    let seconds = time.duration_since(UNIX_EPOCH).map_or(0, |since| since.as_secs());
    let (year, month, day) = civil_from_days(seconds / 86_400);
    let minute_of_day = seconds % 86_400 / 60;
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", minute_of_day / 60, minute_of_day % 60)
}

/// The Gregorian (year, month, day) of the day `days` after 1970-01-01: Howard Hinnant's
/// `civil_from_days`, counting in 400-year eras from 0000-03-01 so that leap days fall at the
/// end of each counted year.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let since_era_start = days + 719_468; // days from 0000-03-01 to 1970-01-01
    let era = since_era_start / 146_097;
    let day_of_era = since_era_start % 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Value;
    use crate::report::tests::document;
    use std::time::Duration;

    fn at(seconds: u64) -> String {
        utc_minute(UNIX_EPOCH + Duration::from_secs(seconds))
    }

    #[test]
    fn dates() {
        assert_eq!(at(0), "1970-01-01 00:00 UTC");
        assert_eq!(at(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(at(1_709_164_800), "2024-02-29 00:00 UTC");
        assert_eq!(at(1_764_556_200), "2025-12-01 02:30 UTC");
        assert_eq!(at(4_102_444_799), "2099-12-31 23:59 UTC");
        assert_eq!(utc_minute(UNIX_EPOCH - Duration::from_secs(60)), "1970-01-01 00:00 UTC");
    }

    #[test]
    fn options() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert_eq!(Options::parse(&[]).unwrap(), Options::default());
        let all = Options::parse(&args(&["--quick", "--out", "o.json", "--bin-dir", "bin", "--peers", "p.json"]));
        let all = all.unwrap();
        assert!(all.quick);
        assert_eq!(all.out.as_deref(), Some(Path::new("o.json")));
        assert_eq!(all.bin_dir.as_deref(), Some(Path::new("bin")));
        assert_eq!(all.peers.as_deref(), Some(Path::new("p.json")));
        let resume = Options::parse(&args(&["--resume", "r.json"])).unwrap();
        assert_eq!(resume.resume.as_deref(), Some(Path::new("r.json")));
        assert!(Options::parse(&args(&["--out"])).is_err());
        assert!(Options::parse(&args(&["--out", "a", "--out", "b"])).is_err());
        assert_eq!(Options::parse(&args(&["--iters", "20"])).unwrap().iters.as_deref(), Some("20"));
        assert!(Options::parse(&args(&["--iters", "0"])).is_err());
        assert!(Options::parse(&args(&["--quick", "--iters", "20"])).is_err(), "--quick sets its own");
        assert!(Options::parse(&args(&["--frobnicate"])).is_err());
    }

    fn info() -> RunInfo {
        RunInfo { commit: "0123abc".into(), date: "2025-12-01 02:30 UTC".into(), wall_seconds: Some(1.5) }
    }

    const PROPERTIES_DOCUMENT: &str =
        "{\n  \"sample\": \"00_properties\",\n  \"status\": \"PASS\",\n  \"device\": null\n}";

    fn reduce_document() -> String {
        document("PASS", Some("DiscreteGpu"), &[("fast add u32", "PASS")])
    }

    /// 00_properties and 02_reduce, both passed, then `last`.
    fn runs_then(last: BenchRun) -> [BenchRun; 3] {
        [
            BenchRun { name: PROPERTIES.into(), code: Some(0), stdout: PROPERTIES_DOCUMENT.into(), info: info() },
            BenchRun { name: "02_reduce".into(), code: Some(0), stdout: reduce_document(), info: info() },
            last,
        ]
    }

    #[test]
    fn the_document_splices_the_samples_verbatim() {
        let reduce = reduce_document();
        let runs =
            runs_then(BenchRun { name: "03_scan".into(), code: None, stdout: "{ half a docu".into(), info: info() });
        let text = bench_document(&runs, &[], true, "2025-12-01 02:30 UTC", Some("{\"device\": \"NVIDIA H200\"}"));
        let bench = json::parse(&text).unwrap();
        assert_eq!(bench.get("schema").and_then(Value::as_str), Some(SCHEMA));
        assert_eq!(bench.get("commit").and_then(Value::as_str), Some(COMMIT));
        assert_eq!(bench.get("date").and_then(Value::as_str), Some("2025-12-01 02:30 UTC"));
        assert_eq!(bench.get("quick"), Some(&Value::Bool(true)));
        let device = bench.get("device").unwrap();
        assert_eq!(Some(device), json::parse(&reduce).unwrap().get("device"));
        let samples = bench.get("samples").unwrap().elements();
        assert_eq!(samples.len(), 3);
        assert_eq!(samples[1], json::parse(&reduce).unwrap());
        assert_eq!(samples[2].get("status").and_then(Value::as_str), Some("CRASH"));
        assert_eq!(samples[2].get("exit_code"), Some(&Value::Null));
        assert_eq!(bench.get("peers").unwrap().get("device").and_then(Value::as_str), Some("NVIDIA H200"));
        // The device object keeps its text.
        assert!(text.contains(&format!("\"device\": {},", json::raw_member(&reduce, "device").unwrap())));

        let no_peers = bench_document(&runs[..1], &[], false, "d", None);
        let no_peers = json::parse(&no_peers).unwrap();
        assert_eq!((no_peers.get("device"), no_peers.get("peers")), (Some(&Value::Null), Some(&Value::Null)));
    }

    #[test]
    fn resume_keeps_the_succeeded_runs_date_and_peers() {
        let runs = runs_then(BenchRun {
            name: "03_scan".into(),
            code: Some(1),
            stdout: document("FAIL", None, &[]),
            info: info(),
        });
        let peers = "{\n  \"device\": \"NVIDIA H200\"\n}";
        let path = std::env::temp_dir().join(format!("xtask-resume-{}.json", std::process::id()));
        let record = bench_document(&runs, &[], false, "2025-12-01 02:30 UTC", Some(peers));
        // As if made by a build of commit 0123abc, whatever this build is.
        let record = record.replace(&json::quote(COMMIT), "\"0123abc\"");
        write_record(&path, &record).unwrap();
        let earlier = Earlier::read(&path, false, Some("0123abc")).unwrap();
        assert_eq!(earlier.date, "2025-12-01 02:30 UTC");
        assert_eq!(earlier.peers.as_deref(), Some(peers));
        let kept: Vec<_> = earlier.runs.iter().map(|run| (run.name.as_str(), run.stdout.as_str())).collect();
        assert_eq!(kept, [(PROPERTIES, PROPERTIES_DOCUMENT), ("02_reduce", reduce_document().trim())]);
        assert!(Earlier::read(&path, true, Some("0123abc")).is_err(), "a full record does not resume a --quick run");
        assert!(Earlier::read(&path, false, Some("4567def")).is_err(), "another build's record is refused");
        let dirty = record.replace("\"0123abc\"", "\"0123abc-dirty\"");
        write_record(&path, &dirty).unwrap();
        assert!(Earlier::read(&path, false, Some("0123abc-dirty")).is_err(), "uncommitted changes are refused");
        fs::remove_file(&path).unwrap();

        // A FALLBACK is kept as a fresh run would judge it: on a CPU device only.
        let fell_back = |device_type| BenchRun::succeeded_from(document("FALLBACK", Some(device_type), &[]), info());
        assert!(fell_back("CPU").is_some());
        assert!(fell_back("DiscreteGpu").is_none());
        assert!(BenchRun::succeeded_from(document("FAIL", Some("CPU"), &[]), info()).is_none());

        assert!(!devices_differ(&runs.iter().collect::<Vec<_>>()));
        let other = document("PASS", Some("IntegratedGpu"), &[]);
        let differ = runs_then(BenchRun { name: "03_scan".into(), code: Some(0), stdout: other, info: info() });
        assert!(devices_differ(&differ.iter().collect::<Vec<_>>()));
    }

    #[test]
    fn only_merge_and_peers_run_options() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let merge = Options::parse(&args(&["--only", "03,05_atomics", "--merge", "r.json", "--peers-run", "p.py"]));
        let merge = merge.unwrap();
        assert_eq!(merge.only, ["03", "05_atomics"]);
        assert_eq!(merge.merge.as_deref(), Some(Path::new("r.json")));
        assert_eq!(merge.peers_run.as_deref(), Some(Path::new("p.py")));
        assert!(Options::parse(&args(&["--merge", "r.json"])).is_err(), "--merge needs --only");
        assert!(Options::parse(&args(&["--peers", "a", "--peers-run", "b"])).is_err());
        assert!(Options::parse(&args(&["--only", "03", "--merge", "r", "--resume", "r"])).is_err());
        assert_eq!(peer_categories(&args(&["02_reduce", "04_compaction"])), ["copy", "reduce", "compact"]);
    }

    #[test]
    fn merged_peers_replace_only_the_remeasured_samples_rows() {
        let earlier = r#"{"device": "GPU", "rows": [
            {"sample": "02_reduce", "work": "old sum"},
            {"sample": "03_scan", "work": "old cumsum"}
        ]}"#;
        let fresh = r#"{"device": "GPU", "rows": [
            {"sample": "03_scan", "work": "new cumsum"}
        ]}"#;
        let merged = merge_peers(Some(earlier.to_string()), fresh, &["03_scan".to_string()]);
        let parsed = json::parse(&merged).unwrap();
        let works: Vec<&str> =
            parsed.get("rows").unwrap().elements().iter().filter_map(|r| r.get("work")?.as_str()).collect();
        assert_eq!(works, ["old sum", "new cumsum"]);
        assert_eq!(merge_peers(None, fresh, &[]), fresh);
    }

    #[test]
    fn the_document_lists_each_samples_run() {
        let runs =
            runs_then(BenchRun { name: "03_scan".into(), code: Some(0), stdout: reduce_document(), info: info() });
        let (now, kept) = runs.split_at(2);
        let text = bench_document(kept, now, false, "d", None);
        let bench = json::parse(&text).unwrap();
        let names: Vec<&str> =
            bench.get("runs").unwrap().elements().iter().filter_map(|r| r.get("sample")?.as_str()).collect();
        assert_eq!(names, [PROPERTIES, "02_reduce", "03_scan"], "sorted by name, kept and new together");
        let first = &bench.get("runs").unwrap().elements()[0];
        assert_eq!(first.get("wall_seconds").and_then(Value::as_f64), Some(1.5));
        assert_eq!(first.get("commit").and_then(Value::as_str), Some("0123abc"));
    }

    #[test]
    fn peers_of_another_schema_or_without_samples_are_refused() {
        let path = std::env::temp_dir().join(format!("peers-schema-{}.json", std::process::id()));
        let row = r#"{"sample": "06_gemm", "beside": "best f32", "work": "torch.mm", "tflops": 50.0}"#;
        let cases = [
            (format!(r#"{{"schema": "{PEERS_SCHEMA}", "rows": [{row}]}}"#), true),
            (format!(r#"{{"device": "GPU", "rows": [{row}]}}"#), false),
            (format!(r#"{{"schema": "{PEERS_SCHEMA}", "rows": [{{"work": "sgemm", "tflops": 50.0}}]}}"#), false),
        ];
        for (text, good) in cases {
            fs::write(&path, &text).unwrap();
            assert_eq!(read_peers(&path).is_ok(), good, "{text}");
        }
        fs::remove_file(&path).ok();
    }

    #[test]
    fn summary_lists_bench_rows() {
        let reduce = r#"{"sample": "02_reduce", "status": "PASS", "bench": [
            {"variant": "copy", "n": 1048576, "median_ns": 2048.0, "gbps": 4096.0, "pct_of_copy": null},
            {"variant": "fast add u32", "n": 1048576, "median_ns": 1500.0, "gbps": 2796.2, "pct_of_copy": 68.26}
        ]}"#;
        let runs = [
            BenchRun { name: "02_reduce".into(), code: Some(0), stdout: reduce.into(), info: info() },
            BenchRun { name: "03_scan".into(), code: Some(77), stdout: String::new(), info: info() },
        ];
        let text = summary(&runs);
        assert!(text.contains("02_reduce: PASS\n"), "{text}");
        assert!(text.contains("  fast add u32     1048576         1.50     2796.2       68.3\n"), "{text}");
        assert!(text.contains("  copy             1048576         2.05     4096.0          -\n"), "{text}");
        assert!(text.contains("03_scan: SKIP\n"), "{text}");
    }
}
