//! The run's report: one line per check as it happens, a summary table at the end, and with
//! `--json` one JSON document on stdout.

use crate::bench::BenchRow;
use crate::compare::Check;
use crate::run::{Fault, EXIT_FAIL, EXIT_FALLBACK, EXIT_PASS, EXIT_SKIP};
use serde::Serialize;
use std::fmt::Display;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use vk_compute::Context;

static JSON_MODE: AtomicBool = AtomicBool::new(false);

pub(crate) fn set_json_mode(on: bool) {
    JSON_MODE.store(on, Ordering::SeqCst);
}

/// Print a line for the reader: stdout, or stderr when stdout carries the JSON document.
/// A closed pipe (`| head`) is not an error worth a panic: the line is dropped.
pub fn out(line: impl Display) {
    use std::io::Write;
    let _ = if JSON_MODE.load(Ordering::SeqCst) {
        writeln!(std::io::stderr(), "{line}")
    } else {
        writeln!(std::io::stdout(), "{line}")
    };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Status {
    #[serde(rename = "PASS")]
    Pass,
    #[serde(rename = "FAIL")]
    Fail,
    #[serde(rename = "SKIP")]
    Skip,
    /// The fast path did not complete; its portable fallback produced the result, which
    /// passed the check. A failure under `--inject-fault`: a fault must not be rescued.
    #[serde(rename = "FALLBACK")]
    Fallback,
}

#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub variant: String,
    pub size: Option<u64>,
    pub status: Status,
    pub detail: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct DeviceSummary {
    pub index: usize,
    pub name: String,
    pub device_type: String,
    pub driver_name: String,
    pub driver_info: String,
    pub api_version: String,
    pub subgroup_size: u32,
    pub required_subgroup_size: Option<u32>,
    /// The largest storage buffer in bytes (`maxStorageBufferRange`).
    pub max_storage_buffer_range: u64,
}

/// Everything a run found. Samples add checks, skips, bench rows and free-form `extra` data.
#[derive(Debug, Serialize)]
pub struct Report {
    pub sample: String,
    /// The run's status (set when the report is finished).
    pub status: Option<Status>,
    /// The fault compiled into the kernels (`--inject-fault`), if any.
    #[serde(serialize_with = "fault_name")]
    pub fault: Option<Fault>,
    pub device: Option<DeviceSummary>,
    pub seed: u64,
    pub validation_messages: u32,
    pub results: Vec<Outcome>,
    pub bench: Vec<BenchRow>,
    /// Sample-specific data for the JSON document (e.g. 00_properties' device list).
    pub extra: serde_json::Value,
    #[serde(skip)]
    listing_only: bool,
}

impl Report {
    pub fn new(sample: &str, ctx: Option<&Context>, seed: u64) -> Self {
        let device = ctx.map(|ctx| DeviceSummary {
            index: ctx.caps().index,
            name: ctx.caps().name.clone(),
            device_type: ctx.caps().device_type.clone(),
            driver_name: ctx.caps().driver_name.clone(),
            driver_info: ctx.caps().driver_info.clone(),
            api_version: ctx.caps().api_version.clone(),
            subgroup_size: ctx.caps().subgroup_size,
            required_subgroup_size: ctx.options.subgroup_size,
            max_storage_buffer_range: ctx.caps().max_storage_buffer_range,
        });
        Report {
            sample: sample.into(),
            status: None,
            fault: None,
            device,
            seed,
            validation_messages: 0,
            results: Vec::new(),
            bench: Vec::new(),
            extra: serde_json::Value::Null,
            listing_only: false,
        }
    }

    pub(crate) fn listing_only(mut self) -> Self {
        self.listing_only = true;
        self
    }

    /// Record a comparison; prints `PASS variant (n=..)` or `FAIL ...` with the first mismatches.
    /// Returns whether it passed.
    pub fn check(&mut self, variant: &str, size: Option<u64>, check: &Check) -> bool {
        let n = size.map(|s| format!(" n={s}")).unwrap_or_default();
        let status = if check.passed() { Status::Pass } else { Status::Fail };
        let detail = if check.passed() {
            format!("{} compared, {}", check.compared, check.rule)
        } else {
            format!(
                "{} of {} differ ({}); first: {}",
                check.mismatches,
                check.compared,
                check.rule,
                check.first.join("; ")
            )
        };
        out(format!("{:<4} {variant}{n}: {detail}", if check.passed() { "PASS" } else { "FAIL" }));
        if !check.passed() {
            for line in &check.first {
                out(format!("       {line}"));
            }
        }
        self.results.push(Outcome { variant: variant.into(), size, status, detail });
        check.passed()
    }

    /// Record the comparison of a checked run: [`check`](Self::check), or, when a fallback
    /// produced the result (`fell_back`: why), [`check_fallback`](Self::check_fallback).
    /// Returns whether it passed on the run's own path, so that its time is a measurement.
    pub fn check_run(&mut self, variant: &str, size: Option<u64>, check: &Check, fell_back: Option<&str>) -> bool {
        match fell_back {
            Some(why) => {
                self.check_fallback(variant, size, check, why);
                false
            }
            None => self.check(variant, size, check),
        }
    }

    /// Record a checked run ([`check_run`](Self::check_run)) and, when it passed on its own path
    /// and was timed, its bench row ([`Timed::row`](crate::Timed::row), `bytes` moved): a stalled or
    /// failed run's time is no measurement. `redone_by`: what redid a single pass that stalled.
    pub fn check_and_time(
        &mut self,
        variant: &str,
        n: u64,
        check: &Check,
        redone_by: Option<&str>,
        timed: Option<&crate::Timed>,
        bytes: u64,
    ) {
        let why = redone_by.map(|by| format!("{}; {by} redid it", crate::lookback::STALLED));
        if let (true, Some(t)) = (self.check_run(variant, Some(n), check, why.as_deref()), timed) {
            t.row(self, variant, n, bytes);
        }
    }

    /// Record a comparison of a result that a fallback produced because the fast path did not
    /// complete (`why`): FALLBACK when it matches, FAIL when not, and FAIL under
    /// `--inject-fault` either way (a fault must not be rescued by the fallback).
    pub fn check_fallback(&mut self, variant: &str, size: Option<u64>, check: &Check, why: &str) {
        if !check.passed() || self.fault.is_some() {
            let mut failed = check.clone();
            if check.passed() {
                failed.mismatches = 1;
                failed.first = vec![format!("{why}; the fallback's result cannot prove the injected fault caught")];
            }
            self.check(variant, size, &failed);
            return;
        }
        let n = size.map(|s| format!(" n={s}")).unwrap_or_default();
        let detail = format!("{why}; the fallback's result: {} compared, {}", check.compared, check.rule);
        out(format!("FALLBACK {variant}{n}: {detail}"));
        self.results.push(Outcome { variant: variant.into(), size, status: Status::Fallback, detail });
    }

    /// Record a variant the device cannot run, with the reason.
    pub fn skip(&mut self, variant: &str, reason: &str) {
        out(format!("SKIP {variant}: {reason}"));
        self.results.push(Outcome { variant: variant.into(), size: None, status: Status::Skip, detail: reason.into() });
    }

    /// `Some(value)` when the variant could be built; otherwise record the SKIP with its reason.
    pub fn skip_unless<T>(&mut self, variant: &str, built: Result<T, String>) -> Option<T> {
        match built {
            Ok(value) => Some(value),
            Err(reason) => {
                self.skip(variant, &reason);
                None
            }
        }
    }

    /// A variant's pipelines chosen by input size (03's tiles by n, 04's loads a tile): `build`
    /// for each row of `table`, (largest n, what to build) sorted by size, giving the (largest
    /// n, pipelines) rows that [`crate::for_size`] picks from. An entry equal to an earlier one
    /// (03's 256 × 24 tiles up to 2^22 and again from 2^25) shares that row's pipelines instead
    /// of building them again. Each built row's kernels' statistics are printed under `label` of
    /// its entry. A row that cannot be built records the variant's SKIP with the reason and ends
    /// the table: larger sizes do not run.
    pub fn build_by_size<'c, E: PartialEq, T>(
        &mut self,
        variant: &str,
        table: Vec<(u64, E)>,
        label: impl Fn(&E) -> String,
        kernels: impl Fn(&T) -> &[vk_compute::Kernel<'c>],
        mut build: impl FnMut(&E) -> anyhow::Result<Result<T, String>>,
    ) -> anyhow::Result<Vec<(u64, Rc<T>)>> {
        let mut built_for: Vec<(E, Rc<T>)> = Vec::with_capacity(table.len());
        let mut rows = Vec::with_capacity(table.len());
        for (max_n, entry) in table {
            let earlier = built_for.iter().find(|(e, _)| *e == entry).map(|(_, t)| Rc::clone(t));
            let built = match earlier {
                Some(built) => built,
                None => {
                    let Some(built) = self.skip_unless(variant, build(&entry)?) else { break };
                    self.pipeline_stats(&label(&entry), kernels(&built))?;
                    Rc::new(built)
                }
            };
            rows.push((max_n, Rc::clone(&built)));
            built_for.push((entry, built));
        }
        Ok(rows)
    }

    /// Print each kernel's driver statistics on one line (nothing unless `--pipeline-stats`).
    pub fn pipeline_stats<'k, 'c: 'k>(
        &mut self,
        variant: &str,
        kernels: impl IntoIterator<Item = &'k vk_compute::Kernel<'c>>,
    ) -> anyhow::Result<()> {
        for kernel in kernels {
            let stats = kernel.statistics()?;
            if !stats.is_empty() {
                let list: Vec<String> = stats.iter().map(|(k, v)| format!("{k}={v}")).collect();
                out(format!("STATS {variant} [{}]: {}", kernel.name, list.join(", ")));
            }
        }
        Ok(())
    }

    /// Record a timing row (see [`crate::time_gpu`]).
    pub fn bench_row(&mut self, row: BenchRow) {
        out(row.line());
        self.bench.push(row);
    }

    /// FAIL when anything failed (or the validation layer spoke); else FALLBACK when a result
    /// came from a fallback; SKIP when everything was skipped; else PASS.
    pub fn status(&self) -> Status {
        let any = |s| self.results.iter().any(|r| r.status == s);
        if self.validation_messages > 0 || any(Status::Fail) {
            Status::Fail
        } else if any(Status::Fallback) {
            Status::Fallback
        } else if !self.results.is_empty() && self.results.iter().all(|r| r.status == Status::Skip) {
            Status::Skip
        } else {
            Status::Pass
        }
    }

    /// Print the summary (and the JSON document); return the exit code.
    pub(crate) fn finish(mut self) -> u8 {
        if self.listing_only {
            return EXIT_PASS;
        }
        self.status = Some(self.status());
        let count = |s| self.results.iter().filter(|r| r.status == s).count();
        if self.validation_messages > 0 {
            out(format!("FAIL: {} validation message(s)", self.validation_messages));
        }
        let status = self.status();
        out(format!(
            "{}: {status:?} ({} passed, {} failed, {} fell back, {} skipped, {} validation messages, seed {})",
            self.sample,
            count(Status::Pass),
            count(Status::Fail),
            count(Status::Fallback),
            count(Status::Skip),
            self.validation_messages,
            self.seed
        ));
        if JSON_MODE.load(Ordering::SeqCst) {
            match serde_json::to_string_pretty(&self) {
                Ok(doc) => {
                    use std::io::Write;
                    let _ = writeln!(std::io::stdout(), "{doc}");
                }
                Err(e) => eprintln!("error: cannot write the JSON report: {e}"),
            }
        }
        match status {
            Status::Pass => EXIT_PASS,
            Status::Fail => EXIT_FAIL,
            Status::Skip => EXIT_SKIP,
            Status::Fallback => EXIT_FALLBACK,
        }
    }
}

fn fault_name<S: serde::Serializer>(fault: &Option<Fault>, s: S) -> Result<S::Ok, S::Error> {
    match fault {
        Some(f) => s.serialize_str(f.name()),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_equal_to_an_earlier_one_shares_its_build() {
        let mut report = Report::new("test", None, 0);
        let mut builds = 0;
        let table = vec![(10, 24u32), (20, 16), (u64::MAX, 24)];
        let rows = report
            .build_by_size(
                "v",
                table,
                |e| e.to_string(),
                |_: &u32| &[],
                |&e| {
                    builds += 1;
                    Ok(Ok(e))
                },
            )
            .expect("builds");
        assert_eq!(builds, 2);
        assert_eq!(rows.iter().map(|(n, t)| (*n, **t)).collect::<Vec<_>>(), [(10, 24), (20, 16), (u64::MAX, 24)]);
        assert!(Rc::ptr_eq(&rows[0].1, &rows[2].1));
    }
}
