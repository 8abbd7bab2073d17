//! The fault-injection step of `cargo xtask test`: every check of a correct suite must FAIL when
//! a sample runs with `--inject-fault` (its kernels compiled with `INJECT_FAULT`: the workgroup
//! or tile that covers the planted element contributing nothing, or that element read from its
//! neighbour). A check that still passes under a fault could not have caught that bug. Each
//! test runs at a small size and at the largest the device allows (at most 2^28).

use std::time::{Duration, Instant};

use crate::report::Document;
use crate::samples::{run_captured, Samples, EXIT_FALLBACK, EXIT_SKIP};
use crate::{step, Error, Result};

/// A size with a partial last workgroup and a few hundred workgroups.
const SMALL_SIZE: u64 = 100_003;

/// lavapipe's largest storage buffer (`maxStorageBufferRange`, 128 MiB) in 4-byte elements: the
/// largest size when the device could not be asked.
pub const LAVAPIPE_LARGEST: u64 = 128 * 1024 * 1024 / 4;

/// One fault-injection test: `binary --json --inject-fault FAULT --size SIZE ARGS`, at the small
/// size and at the largest.
struct FaultTest {
    binary: &'static str,
    fault: &'static str,
    args: &'static [&'static str],
}

const FAULT_TESTS: &[FaultTest] = &[
    // A dropped workgroup changes every operation's result (the planted value decides min, max,
    // and, or); an element read from its neighbour changes only the sum-like ones for sure.
    // Both cover `add f32` on real values too, whose planted value is larger than the rounding
    // bound (harness::reference::planted_real).
    FaultTest { binary: "02_reduce", fault: "drop-workgroup", args: &[] },
    FaultTest { binary: "02_reduce", fault: "off-by-one", args: &["--op", "add,mul,xor"] },
    // fast's hand-overs that its default (an atomic result) does not take.
    FaultTest {
        binary: "02_reduce",
        fault: "drop-workgroup",
        args: &["--variant", "fast", "--fast-result", "last-workgroup"],
    },
    FaultTest {
        binary: "02_reduce",
        fault: "drop-workgroup",
        args: &["--variant", "fast", "--fast-result", "last-workgroup", "--fast-fences"],
    },
    // A scan shows either fault in every later element.
    FaultTest { binary: "03_scan", fault: "drop-workgroup", args: &[] },
    FaultTest { binary: "03_scan", fault: "off-by-one", args: &[] },
    // Both look-backs, whichever the device's default is.
    FaultTest {
        binary: "03_scan",
        fault: "drop-workgroup",
        args: &["--variant", "single-pass", "--lookback", "subgroup"],
    },
    FaultTest {
        binary: "03_scan",
        fault: "drop-workgroup",
        args: &["--variant", "single-pass", "--lookback", "narrow"],
    },
    // The single pass's 16-element tiles (its default from 2^22 to 2^24) at both sizes.
    FaultTest {
        binary: "03_scan",
        fault: "drop-workgroup",
        args: &["--variant", "single-pass", "--lookback", "subgroup", "--items", "16"],
    },
    // Half the elements kept: a dropped workgroup loses some, a shifted read changes one.
    // The 32-bit look-backs, as on a device without 64-bit buffer atomics.
    FaultTest {
        binary: "03_scan",
        fault: "drop-workgroup",
        args: &["--variant", "single-pass", "--without-features", "int64-atomics"],
    },
    FaultTest {
        binary: "03_scan",
        fault: "off-by-one",
        args: &["--variant", "single-pass", "--without-features", "int64-atomics"],
    },
    FaultTest {
        binary: "04_compaction",
        fault: "drop-workgroup",
        args: &["--keep-ratio", "50", "--variant", "single-pass", "--without-features", "int64-atomics"],
    },
    FaultTest {
        binary: "04_compaction",
        fault: "off-by-one",
        args: &["--keep-ratio", "50", "--variant", "single-pass", "--without-features", "int64-atomics"],
    },
    FaultTest { binary: "04_compaction", fault: "drop-workgroup", args: &["--keep-ratio", "50"] },
    FaultTest { binary: "04_compaction", fault: "off-by-one", args: &["--keep-ratio", "50"] },
    FaultTest {
        binary: "04_compaction",
        fault: "drop-workgroup",
        args: &["--keep-ratio", "50", "--variant", "single-pass", "--lookback", "subgroup"],
    },
    FaultTest {
        binary: "04_compaction",
        fault: "drop-workgroup",
        args: &["--keep-ratio", "50", "--variant", "single-pass", "--lookback", "narrow"],
    },
    // With the look-back subgroup, half kept does not fit the slice: the first depth is read
    // again after the look-back, so a shifted read must strike the same way twice.
    FaultTest {
        binary: "04_compaction",
        fault: "off-by-one",
        args: &["--keep-ratio", "50", "--variant", "single-pass", "--lookback", "subgroup"],
    },
    // A tenth kept: with the look-back subgroup a segment's few kept elements are staged while
    // the look-back goes on, a path of its own.
    FaultTest {
        binary: "04_compaction",
        fault: "drop-workgroup",
        args: &["--keep-ratio", "10", "--variant", "single-pass", "--lookback", "subgroup"],
    },
    FaultTest {
        binary: "04_compaction",
        fault: "off-by-one",
        args: &["--keep-ratio", "10", "--variant", "single-pass", "--lookback", "subgroup"],
    },
    // Half kept (at 100 % a shifted read keeps the same set), and bins a shifted key can move
    // between (one bin holds every key).
    FaultTest { binary: "05_atomics", fault: "drop-workgroup", args: &["--keep-ratio", "50", "--bins", "256,4096"] },
    FaultTest { binary: "05_atomics", fault: "off-by-one", args: &["--keep-ratio", "50", "--bins", "256,4096"] },
    // --shape takes precedence over the runner's --size (06's is an N×N×N problem): one
    // problem below and across the tiles, every variant, type and strategy.
    FaultTest { binary: "06_gemm", fault: "drop-workgroup", args: &["--shape", "257x129x511"] },
    FaultTest { binary: "06_gemm", fault: "off-by-one", args: &["--shape", "257x129x511"] },
];

/// Fault tests of kernels that need what a device may lack (the second field says what): where
/// it lacks it, every check SKIPs and the test is not applicable there, not broken.
const FEATURE_FAULT_TESTS: &[(FaultTest, &str)] = &[
    // 06's tensor-core kernels alone, so that they cannot hide among the SIMT kernels'
    // failures: every type, both faults.
    (
        FaultTest {
            binary: "06_gemm",
            fault: "drop-workgroup",
            args: &["--shape", "257x129x511", "--variant", "coopmat,coopmat-f32,coopmat2"],
        },
        "cooperative matrices",
    ),
    (
        FaultTest {
            binary: "06_gemm",
            fault: "off-by-one",
            args: &["--shape", "257x129x511", "--variant", "coopmat,coopmat-f32,coopmat2"],
        },
        "cooperative matrices",
    ),
];

/// What one fault-injection run showed.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// Exit 1, no check passed, at least one failed: the fault was caught everywhere it ran.
    Detected { failed: usize, skipped: usize },
    /// These checks still passed (or fell back) under the fault; empty when the run exited
    /// 0 or 3 without naming a passing check.
    Undetected { variants: Vec<String> },
    /// The run SKIPped as a whole (exit 77, every result SKIP) and the test needs what the
    /// device lacks: nothing there to inject a fault into. The first SKIP's reason.
    NotApplicable(String),
    /// Neither: an error, a crash, a skip, no document, or exit 1 without a failed check.
    Broken(String),
}

impl Verdict {
    /// Whether the run shows no missed fault: detected, or not applicable on this device.
    fn is_detected(&self) -> bool {
        matches!(self, Verdict::Detected { .. } | Verdict::NotApplicable(_))
    }

    fn describe(&self) -> String {
        match self {
            Verdict::Detected { failed, skipped: 0 } => format!("detected: {failed} check(s) failed"),
            Verdict::Detected { failed, skipped } => {
                format!("detected: {failed} check(s) failed, {skipped} skipped")
            }
            Verdict::Undetected { variants } if variants.is_empty() => "fault not detected: the run passed".to_string(),
            Verdict::Undetected { variants } => format!("fault not detected by: {}", variants.join(", ")),
            Verdict::NotApplicable(why) => format!("not applicable here: {why}"),
            Verdict::Broken(why) => format!("no verdict: {why}"),
        }
    }
}

/// The verdict on a `--inject-fault --json` run from its exit code (`None`: killed by a
/// signal) and its stdout. `needs`: what the test's kernels need that a device may lack (see
/// [`FEATURE_FAULT_TESTS`]); only such a test may be not applicable.
fn fault_verdict(code: Option<i32>, stdout: &str, needs: Option<&str>) -> Verdict {
    let document = Document::parse(stdout);
    if let (Some(needs), Some(EXIT_SKIP), Ok(document)) = (needs, code, &document) {
        let results = document.results();
        if !results.is_empty() && results.iter().all(|result| result.status == "SKIP") {
            let why = results.first().map_or("", |r| r.detail);
            return Verdict::NotApplicable(format!("needs {needs}: {why}"));
        }
    }
    if let Ok(document) = &document {
        let passed: Vec<String> = document
            .results()
            .iter()
            .filter(|result| result.status == "PASS" || result.status == "FALLBACK")
            .map(|result| result.variant.to_string())
            .collect();
        if !passed.is_empty() {
            return Verdict::Undetected { variants: passed };
        }
    }
    match code {
        Some(1) => {}
        Some(0 | EXIT_FALLBACK) => return Verdict::Undetected { variants: Vec::new() },
        Some(code) => return Verdict::Broken(format!("exit {code}")),
        None => return Verdict::Broken("killed by a signal".to_string()),
    }
    let document = match document {
        Ok(document) => document,
        Err(why) => return Verdict::Broken(format!("exit 1 without a JSON document ({why})")),
    };
    let results = document.results();
    if let Some(odd) = results.iter().find(|result| result.status != "FAIL" && result.status != "SKIP") {
        return Verdict::Broken(format!("check `{}` has status {}", odd.variant, odd.status));
    }
    let failed = results.iter().filter(|result| result.status == "FAIL").count();
    if failed == 0 {
        return Verdict::Broken("exit 1 but no check failed".to_string());
    }
    Verdict::Detected { failed, skipped: results.len() - failed }
}

/// Runs every [`FAULT_TESTS`] and [`FEATURE_FAULT_TESTS`] entry (the binaries built by the
/// samples step); fails unless each one's fault was detected (or, for the latter, the device
/// lacks what it needs).
pub fn run(samples: &Samples, largest: u64) -> Result {
    let mut rows: Vec<(String, Verdict, Duration)> = Vec::new();
    let tests =
        FAULT_TESTS.iter().map(|test| (test, None)).chain(FEATURE_FAULT_TESTS.iter().map(|(t, n)| (t, Some(*n))));
    let runs = tests.flat_map(|(test, needs)| [(test, needs, SMALL_SIZE), (test, needs, largest)]);
    for (test, needs, size) in runs {
        if !samples.contains(test.binary) {
            println!("{}: not in this suite, skipped", test.binary);
            continue;
        }
        let size = size.to_string();
        let mut cmd = samples.command(test.binary);
        cmd.args(["--json", "--inject-fault", test.fault, "--size", &size]).args(test.args);
        let label = format!("{} --inject-fault {} --size {size} {}", test.binary, test.fault, test.args.join(" "));
        let label = label.trim_end().to_string();
        step(&format!("{label} --json"));
        let start = Instant::now();
        let verdict = match run_captured(&mut cmd) {
            Ok(run) => fault_verdict(run.status.code(), &run.stdout, needs),
            Err(e) => Verdict::Broken(format!("cannot run {}: {e}", samples.path(test.binary).display())),
        };
        println!("{label}: {}", verdict.describe());
        rows.push((label, verdict, start.elapsed()));
    }
    let width = rows.iter().map(|(label, ..)| label.len()).max().unwrap_or(0).max(9);
    println!("\n{:<width$}  {:>8}  verdict", "fault run", "seconds");
    for (label, verdict, time) in &rows {
        println!("{label:<width$}  {:>8.2}  {}", time.as_secs_f64(), verdict.describe());
    }
    let missed = rows.iter().filter(|(_, verdict, _)| !verdict.is_detected()).count();
    if missed == 0 {
        Ok(())
    } else {
        Err(Error::failed(format!("{missed} of {} fault-injection run(s) did not detect the fault", rows.len())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::document;

    #[test]
    fn the_largest_size_is_lavapipes_buffer_limit() {
        assert_eq!(LAVAPIPE_LARGEST, 33_554_432);
    }

    #[test]
    fn every_check_failing_is_detection() {
        let all_fail = document("FAIL", Some("CPU"), &[("fast add u32", "FAIL"), ("naive add u32", "FAIL")]);
        assert_eq!(fault_verdict(Some(1), &all_fail, None), Verdict::Detected { failed: 2, skipped: 0 });
        let with_skip = document("FAIL", Some("CPU"), &[("fast add u32", "FAIL"), ("fast mul f32", "SKIP")]);
        assert_eq!(fault_verdict(Some(1), &with_skip, None), Verdict::Detected { failed: 1, skipped: 1 });
    }

    #[test]
    fn a_passing_check_is_a_missed_fault() {
        let mixed = document(
            "FAIL",
            Some("CPU"),
            &[("fast add u32", "FAIL"), ("naive min u32", "PASS"), ("fast max u32", "FALLBACK")],
        );
        let missed = Verdict::Undetected { variants: vec!["naive min u32".into(), "fast max u32".into()] };
        assert_eq!(fault_verdict(Some(1), &mixed, None), missed);
        assert_eq!(missed.describe(), "fault not detected by: naive min u32, fast max u32");
        let passed = document("PASS", Some("CPU"), &[("fast add u32", "PASS")]);
        assert_eq!(
            fault_verdict(Some(0), &passed, None),
            Verdict::Undetected { variants: vec!["fast add u32".into()] }
        );
        assert_eq!(fault_verdict(Some(0), "", None), Verdict::Undetected { variants: Vec::new() });
        assert_eq!(fault_verdict(Some(3), "", None), Verdict::Undetected { variants: Vec::new() });
    }

    #[test]
    fn other_runs_give_no_verdict() {
        let skipped = document("SKIP", Some("CPU"), &[("fast add u32", "SKIP")]);
        assert!(matches!(fault_verdict(Some(77), &skipped, None), Verdict::Broken(_)));
        assert!(matches!(fault_verdict(Some(1), &skipped, None), Verdict::Broken(_)));
        assert!(matches!(fault_verdict(Some(1), "FAIL fast add u32", None), Verdict::Broken(_)));
        assert!(matches!(fault_verdict(Some(2), "", None), Verdict::Broken(_)));
        assert!(matches!(fault_verdict(None, "", None), Verdict::Broken(_)));
        let no_results = document("FAIL", Some("CPU"), &[]);
        // A test that needs nothing a device may lack must not SKIP.
        assert!(matches!(fault_verdict(Some(77), &skipped, None), Verdict::Broken(_)));
        assert_eq!(fault_verdict(Some(1), &no_results, None), Verdict::Broken("exit 1 but no check failed".into()));
    }

    #[test]
    fn a_skip_for_a_missing_feature_is_not_applicable() {
        let skipped = document("SKIP", Some("CPU"), &[("coopmat f16", "SKIP"), ("coopmat2 int8", "SKIP")]);
        let verdict = fault_verdict(Some(77), &skipped, Some("cooperative matrices"));
        assert!(matches!(verdict, Verdict::NotApplicable(_)) && verdict.is_detected(), "{verdict:?}");
        // A partial skip is judged as before: the checks that ran must fail.
        let mixed = document("FAIL", Some("CPU"), &[("coopmat f16", "FAIL"), ("coopmat2 int8", "SKIP")]);
        let verdict = fault_verdict(Some(1), &mixed, Some("cooperative matrices"));
        assert_eq!(verdict, Verdict::Detected { failed: 1, skipped: 1 });
        let passed = document("PASS", Some("CPU"), &[("coopmat f16", "PASS")]);
        assert!(!fault_verdict(Some(0), &passed, Some("cooperative matrices")).is_detected());
    }
}
