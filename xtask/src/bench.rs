//! `cargo xtask bench [--quick] [--out FILE] [--bin-dir DIR] [--peers FILE] [--resume RECORD]`:
//! every sample's `--bench --json` run gathered into one JSON document, the record of a
//! measurement:
//!
//! ```text
//! { "schema": "subgroup-suite-bench/1", "commit": "<git HEAD at build time>",
//!   "date": "YYYY-MM-DD HH:MM UTC", "quick": bool,
//!   "device": <the first bench sample's "device", verbatim>,
//!   "samples": [<each sample's document verbatim, 00_properties --json first>],
//!   "peers": <the --peers file verbatim, or null> }
//! ```
//!
//! With `--bin-dir` it runs prebuilt binaries and builds nothing, so it works where there is no
//! cargo and no project (a GPU machine the binaries were carried to).
//!
//! `--out` is written again after each sample, so a run cut short (a time limit) leaves a
//! record of the samples it finished. `--resume RECORD` takes such a record of the same clean
//! build and runs only the samples it lacks or that did not succeed there (as a fresh run is
//! judged: PASS, SKIP, or FALLBACK on a CPU device); the record keeps
//! RECORD's date (when the measurement began) and its peers unless `--peers` is given. Samples
//! that ran on different devices (name, driver, versions) fail the bench.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::json::{self, Value};
use crate::report::Document;
use crate::samples::{self, run_captured, Outcome, Samples, EXIT_FALLBACK, EXIT_SKIP, NO_BENCH, PROPERTIES};
use crate::{prereqs, progress, reserve_stdout, step, Error, Result};

const SCHEMA: &str = "subgroup-suite-bench/1";

/// The commit xtask was built from, `-dirty` with uncommitted changes (see build.rs).
const COMMIT: &str = match option_env!("SUITE_COMMIT") {
    Some(commit) => commit,
    None => "unknown",
};

/// What `--quick` adds to each bench run: a few repetitions at one mid-sized input.
const QUICK_ARGS: &[&str] = &["--iters", "5", "--size", "1048576"];

#[derive(Debug, Default, PartialEq)]
struct Options {
    quick: bool,
    out: Option<PathBuf>,
    bin_dir: Option<PathBuf>,
    peers: Option<PathBuf>,
    resume: Option<PathBuf>,
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
                "--resume" => value(&mut options.resume)?,
                other => return Err(Error::usage(format!("bench: unexpected argument `{other}`"))),
            }
        }
        Ok(options)
    }
}

/// One sample run and what it wrote on stdout.
struct BenchRun {
    name: String,
    code: Option<i32>,
    stdout: String,
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
    fn succeeded_from(document: String) -> Option<Self> {
        let parsed = json::parse(&document).ok()?;
        let code = match parsed.get("status").and_then(Value::as_str)? {
            "PASS" => 0,
            "SKIP" => EXIT_SKIP,
            "FALLBACK" => EXIT_FALLBACK,
            _ => return None,
        };
        let name = parsed.get("sample").and_then(Value::as_str)?.to_string();
        Some(BenchRun { name, code: Some(code), stdout: document }).filter(BenchRun::succeeded)
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
    let mut earlier = match &options.resume {
        Some(path) => Earlier::read(path, options.quick, COMMIT)?,
        None => Earlier { date: utc_minute(started), runs: Vec::new(), peers: None },
    };
    let mut problems = Vec::new();
    // A bad peers file loses the peers, not the measurement: recorded as null, bench fails.
    let peers = match options.peers.as_deref().map(read_peers) {
        Some(Ok(peers)) => Some(peers),
        Some(Err(why)) => {
            eprintln!("bench: {why}; \"peers\" is null");
            problems.push(why);
            None
        }
        None => earlier.peers.take(),
    };
    let names = std::iter::once(PROPERTIES)
        .chain(samples.names.iter().map(String::as_str).filter(|name| !NO_BENCH.contains(name)));
    let mut runs = Vec::new();
    for name in names {
        if let Some(at) = earlier.runs.iter().position(|run| run.name == name) {
            progress(format!("==> {name}: kept from the resumed record"));
            runs.push(earlier.runs.swap_remove(at));
            continue;
        }
        let mut args = vec!["--json"];
        if name != PROPERTIES {
            args.insert(0, "--bench");
            if options.quick {
                args.extend(QUICK_ARGS);
            }
        }
        runs.push(run_sample(&samples, name, &args));
        if let Some(path) = &options.out {
            write_record(path, &bench_document(&runs, options.quick, &earlier.date, peers.as_deref()))?;
        }
    }

    problems.extend(
        runs.iter()
            .filter(|run| !run.succeeded())
            .map(|run| format!("{} {}", run.name, Outcome::from_code(run.code).label())),
    );
    if devices_differ(&runs) {
        problems.push("the samples ran on different devices (a resumed record of another machine?)".into());
    }
    let document = bench_document(&runs, options.quick, &earlier.date, peers.as_deref());
    match &options.out {
        Some(path) => {
            write_record(path, &document)?;
            progress(format!("bench: wrote {}", path.display()));
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

/// Runs one sample, its stderr passing through, its stdout kept.
fn run_sample(samples: &Samples, name: &str, args: &[&str]) -> BenchRun {
    step(&format!("{name} {}", args.join(" ")));
    let mut cmd = samples.command(name);
    cmd.args(args);
    let started = Instant::now();
    match run_captured(&mut cmd) {
        Ok(run) => {
            if run.status.code().is_none() {
                eprintln!("{name}: crashed ({})", run.status);
            }
            let outcome = Outcome::from_code(run.status.code()).label();
            progress(format!("{name}: {outcome} after {:.0} s", started.elapsed().as_secs_f64()));
            BenchRun { name: name.to_string(), code: run.status.code(), stdout: run.stdout }
        }
        Err(e) => {
            eprintln!("{name}: cannot run {}: {e}", samples.path(name).display());
            BenchRun { name: name.to_string(), code: None, stdout: String::new() }
        }
    }
}

/// Whether the runs name more than one device (text of their `device` members; null aside).
fn devices_differ(runs: &[BenchRun]) -> bool {
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

/// What `--resume` takes from an earlier record: its date, its peers and its runs that succeeded.
struct Earlier {
    date: String,
    runs: Vec<BenchRun>,
    peers: Option<String>,
}

impl Earlier {
    /// The record at `path`, if it is of the clean build `build` (a commit) and as quick.
    fn read(path: &Path, quick: bool, build: &str) -> Result<Self> {
        let shown = path.display();
        let text = fs::read_to_string(path).map_err(|e| Error::usage(format!("bench: cannot read {shown}: {e}")))?;
        let record = json::parse(&text).map_err(|e| Error::usage(format!("bench: {shown}: {e}")))?;
        let commit = record.get("commit").and_then(Value::as_str).unwrap_or("none");
        // A build with uncommitted changes, or of unknown commit, says nothing about its code.
        let clean = build != "unknown" && !build.ends_with("-dirty");
        if record.get("schema").and_then(Value::as_str) != Some(SCHEMA) || commit != build || !clean {
            return Err(Error::usage(format!(
                "bench: {shown} is not a record of these binaries, or they are not of a clean commit \
                 (record {commit}, binaries {build})"
            )));
        }
        if record.get("quick") != Some(&Value::Bool(quick)) {
            return Err(Error::usage(format!("bench: {shown} was {}a --quick run", if quick { "not " } else { "" })));
        }
        let date = record.get("date").and_then(Value::as_str).unwrap_or_default().to_string();
        let samples = json::raw_member(&text, "samples").and_then(json::raw_elements).unwrap_or_default();
        let runs = samples.iter().filter_map(|raw| BenchRun::succeeded_from(json::outdent(raw, "    "))).collect();
        let peers = json::raw_member(&text, "peers").filter(|peers| *peers != "null");
        Ok(Earlier { date, runs, peers: peers.map(|peers| json::outdent(peers, "  ")) })
    }
}

/// The peers file's text, if it is one JSON document.
fn read_peers(path: &Path) -> std::result::Result<String, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("cannot read the peers file {}: {e}", path.display()))?;
    json::parse(&text).map_err(|e| format!("the peers file {} is not JSON: {e}", path.display()))?;
    Ok(text.trim().to_string())
}

/// The bench document (see the module documentation).
fn bench_document(runs: &[BenchRun], quick: bool, date: &str, peers: Option<&str>) -> String {
    // `device` sits at the top level of both documents: its text fits here unchanged.
    let device = runs
        .iter()
        .filter(|run| !NO_BENCH.contains(&run.name.as_str()) && run.document().is_some())
        .filter_map(|run| json::raw_member(&run.stdout, "device"))
        .find(|device| *device != "null")
        .unwrap_or("null");
    let documents: Vec<String> =
        runs.iter().map(|run| format!("    {}", json::indent(&run.embedded_document(), "    "))).collect();
    format!(
        "{{\n  \"schema\": {},\n  \"commit\": {},\n  \"date\": {},\n  \"quick\": {quick},\n  \
         \"device\": {},\n  \"samples\": [\n{}\n  ],\n  \"peers\": {}\n}}\n",
        json::quote(SCHEMA),
        json::quote(COMMIT),
        json::quote(date),
        device,
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
        assert!(Options::parse(&args(&["--iters", "5"])).is_err());
    }

    const PROPERTIES_DOCUMENT: &str =
        "{\n  \"sample\": \"00_properties\",\n  \"status\": \"PASS\",\n  \"device\": null\n}";

    fn reduce_document() -> String {
        document("PASS", Some("DiscreteGpu"), &[("fast add u32", "PASS")])
    }

    /// 00_properties and 02_reduce, both passed, then `last`.
    fn runs_then(last: BenchRun) -> [BenchRun; 3] {
        [
            BenchRun { name: PROPERTIES.into(), code: Some(0), stdout: PROPERTIES_DOCUMENT.into() },
            BenchRun { name: "02_reduce".into(), code: Some(0), stdout: reduce_document() },
            last,
        ]
    }

    #[test]
    fn the_document_splices_the_samples_verbatim() {
        let reduce = reduce_document();
        let runs = runs_then(BenchRun { name: "03_scan".into(), code: None, stdout: "{ half a docu".into() });
        let text = bench_document(&runs, true, "2025-12-01 02:30 UTC", Some("{\"device\": \"NVIDIA H200\"}"));
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

        let no_peers = bench_document(&runs[..1], false, "d", None);
        let no_peers = json::parse(&no_peers).unwrap();
        assert_eq!((no_peers.get("device"), no_peers.get("peers")), (Some(&Value::Null), Some(&Value::Null)));
    }

    #[test]
    fn resume_keeps_the_succeeded_runs_date_and_peers() {
        let runs = runs_then(BenchRun { name: "03_scan".into(), code: Some(1), stdout: document("FAIL", None, &[]) });
        let peers = "{\n  \"device\": \"NVIDIA H200\"\n}";
        let path = std::env::temp_dir().join(format!("xtask-resume-{}.json", std::process::id()));
        let record = bench_document(&runs, false, "2025-12-01 02:30 UTC", Some(peers));
        // As if made by a build of commit 0123abc, whatever this build is.
        let record = record.replace(&json::quote(COMMIT), "\"0123abc\"");
        write_record(&path, &record).unwrap();
        let earlier = Earlier::read(&path, false, "0123abc").unwrap();
        assert_eq!(earlier.date, "2025-12-01 02:30 UTC");
        assert_eq!(earlier.peers.as_deref(), Some(peers));
        let kept: Vec<_> = earlier.runs.iter().map(|run| (run.name.as_str(), run.stdout.as_str())).collect();
        assert_eq!(kept, [(PROPERTIES, PROPERTIES_DOCUMENT), ("02_reduce", reduce_document().trim())]);
        assert!(Earlier::read(&path, true, "0123abc").is_err(), "a full record does not resume a --quick run");
        assert!(Earlier::read(&path, false, "4567def").is_err(), "another build's record is refused");
        let dirty = record.replace("\"0123abc\"", "\"0123abc-dirty\"");
        write_record(&path, &dirty).unwrap();
        assert!(Earlier::read(&path, false, "0123abc-dirty").is_err(), "uncommitted changes are refused");
        fs::remove_file(&path).unwrap();

        // A FALLBACK is kept as a fresh run would judge it: on a CPU device only.
        let fell_back = |device_type| BenchRun::succeeded_from(document("FALLBACK", Some(device_type), &[]));
        assert!(fell_back("CPU").is_some());
        assert!(fell_back("DiscreteGpu").is_none());
        assert!(BenchRun::succeeded_from(document("FAIL", Some("CPU"), &[])).is_none());

        assert!(!devices_differ(&runs));
        let other = document("PASS", Some("IntegratedGpu"), &[]);
        assert!(devices_differ(&runs_then(BenchRun { name: "03_scan".into(), code: Some(0), stdout: other })));
    }

    #[test]
    fn summary_lists_bench_rows() {
        let reduce = r#"{"sample": "02_reduce", "status": "PASS", "bench": [
            {"variant": "copy", "n": 1048576, "median_ns": 2048.0, "gbps": 4096.0, "pct_of_copy": null},
            {"variant": "fast add u32", "n": 1048576, "median_ns": 1500.0, "gbps": 2796.2, "pct_of_copy": 68.26}
        ]}"#;
        let runs = [
            BenchRun { name: "02_reduce".into(), code: Some(0), stdout: reduce.into() },
            BenchRun { name: "03_scan".into(), code: Some(77), stdout: String::new() },
        ];
        let text = summary(&runs);
        assert!(text.contains("02_reduce: PASS\n"), "{text}");
        assert!(text.contains("  fast add u32     1048576         1.50     2796.2       68.3\n"), "{text}");
        assert!(text.contains("  copy             1048576         2.05     4096.0          -\n"), "{text}");
        assert!(text.contains("03_scan: SKIP\n"), "{text}");
    }
}
