//! One progress bar across a whole `cargo xtask bench`: samples done of all, the current sample
//! and its current measurement, elapsed time, and an estimate of the time left from the
//! previous record's wall time per sample. Drawn only when stderr is a terminal; otherwise the
//! lines it is given pass straight to stderr.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The bench's progress bar (see the module documentation).
pub struct BenchProgress {
    bar: ProgressBar,
    /// Each sample to run and its wall time in the previous record, if that record had it.
    plan: Vec<(String, Option<f64>)>,
    current: usize,
    sample_started: Instant,
}

impl BenchProgress {
    /// A bar over `plan`: the samples in order, with their previous wall seconds.
    pub fn new(plan: Vec<(String, Option<f64>)>) -> Self {
        let target =
            if std::io::stderr().is_terminal() { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let bar = ProgressBar::with_draw_target(Some(plan.len() as u64), target);
        let style = ProgressStyle::with_template("[{elapsed_precise}] {bar:24} {pos}/{len} samples  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(500));
        BenchProgress { bar, plan, current: 0, sample_started: Instant::now() }
    }

    /// `name` starts.
    pub fn start(&mut self, name: &str) {
        self.current = self.plan.iter().position(|(n, _)| n == name).unwrap_or(self.current);
        self.sample_started = Instant::now();
        self.show(name, "starting");
    }

    /// A line the running sample wrote on stderr: passed on, and shown as its measurement when
    /// it is one (`BENCH variant n=...`).
    pub fn line(&self, line: &str) {
        self.println(line);
        if let Some(rest) = line.strip_prefix("BENCH ") {
            let measurement: String =
                rest.split("median").next().unwrap_or(rest).split_whitespace().collect::<Vec<_>>().join(" ");
            let name = self.plan.get(self.current).map_or("", |p| p.0.as_str());
            self.show(name, &measurement);
        }
    }

    /// Prints `line` above the bar (or to stderr when there is no bar).
    pub fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    /// The current sample ended.
    pub fn finish_sample(&mut self) {
        self.bar.inc(1);
    }

    /// The whole bench ended: the bar goes.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn show(&self, name: &str, what: &str) {
        let eta = self.eta().map_or(String::new(), |s| format!("  ETA {}", clock(s)));
        self.bar.set_message(format!("{name}: {what}{eta}"));
    }

    /// Seconds left: the current sample's previous wall time less what it has run, and the
    /// later samples' previous times; `None` when the previous record lacks any of them.
    fn eta(&self) -> Option<f64> {
        let (_, current) = self.plan.get(self.current)?;
        let left_of_current = (current.as_ref()? - self.sample_started.elapsed().as_secs_f64()).max(0.0);
        let later: Option<f64> = self.plan.iter().skip(self.current + 1).map(|(_, s)| *s).sum();
        Some(left_of_current + later?)
    }
}

fn clock(seconds: f64) -> String {
    let s = seconds.round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}
