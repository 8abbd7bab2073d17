//! The files the report writes for one record `DIR/STEM.json`:
//!
//! * `DIR/STEM.md`: the device's page, everything below in one place;
//! * `DIR/STEM/SAMPLE.md`: one fragment per sample, with mdBook anchors `chart`, `table`,
//!   `largest` and `peers` (05: `chart`, `histogram`, `append`, `peers`; GEMM: `chart`,
//!   `table`, `peers`, and `tune`, the tuner's grid, where the record has it), for chapters to `{{#include}}`, and `DIR/STEM/SAMPLE.svg`, its chart;
//! * `DIR/STEM/summary.md` (anchor `summary`) and `DIR/STEM/device.md` (anchor `device`).
//!
//! Fragments name their images relative to `docs/src/` (where the chapters are); the page names
//! them relative to its own folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::charts::{self, BarChart, Line, LineChart, LineStyle};
use crate::record::{PeerRow, Record, Row, SampleRun};

/// Bench rows that are not a variant's measurement.
const NOT_VARIANTS: &[&str] = &["warm-up clock probe, fastest", "empty dispatch (floor)"];
const COPY: &str = "copy (ceiling)";
const FLOOR: &str = "empty dispatch (floor)";

/// One file to write: where, and its bytes.
pub struct File {
    pub path: PathBuf,
    pub contents: Vec<u8>,
}

/// `2^k` for a power of two, else the number.
pub fn pow2(n: u64) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// Every file the report writes for the record at `path`.
pub fn generate(path: &Path, record: &Record) -> Result<Vec<File>, String> {
    let stem = path.file_stem().and_then(|s| s.to_str()).ok_or_else(|| format!("{}: no file stem", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let context = Context::new(stem, record);
    let mut files = Vec::new();
    let mut page = context.page_head();
    for sample in record.samples.iter().filter(|s| s.bench.iter().any(|r| !NOT_VARIANTS.contains(&r.variant.as_str())))
    {
        let fragment = context.sample_fragment(sample)?;
        if let Some(svg) = &fragment.svg {
            files.push(File {
                path: dir.join(stem).join(format!("{}.svg", sample.sample)),
                contents: svg.clone().into_bytes(),
            });
        }
        let header = context.generated_note();
        files.push(File {
            path: dir.join(stem).join(format!("{}.md", sample.sample)),
            contents: format!("{header}\n{}", fragment.anchored("results/")).into_bytes(),
        });
        page.push_str(&format!("\n## {}\n\n{}", sample.sample, context.run_note(&sample.sample)));
        page.push_str(&fragment.plain(""));
    }
    page.push_str(&context.unmatched_peers());
    files.push(File { path: dir.join(format!("{stem}.md")), contents: page.into_bytes() });
    let note = context.generated_note();
    let summary = anchored("summary", &context.summary());
    files.push(File { path: dir.join(stem).join("summary.md"), contents: format!("{note}\n{summary}").into_bytes() });
    let device = anchored("device", &context.device_table());
    files.push(File { path: dir.join(stem).join("device.md"), contents: format!("{note}\n{device}").into_bytes() });
    Ok(files)
}

/// A fragment's parts, each kept under its anchor name; the chart's image path is filled in
/// when the fragment is written (relative to the chapters or to the page).
struct Fragment {
    chart_alt: String,
    chart_file: Option<String>,
    svg: Option<String>,
    parts: Vec<(&'static str, String)>,
}

impl Fragment {
    fn image(&self, prefix: &str) -> Option<String> {
        let file = self.chart_file.as_ref()?;
        Some(format!("![{}]({prefix}{file})\n", self.chart_alt))
    }

    /// With anchors, images relative to `docs/src/` (`prefix` = `results/`).
    fn anchored(&self, prefix: &str) -> String {
        let mut text = String::new();
        if let Some(image) = self.image(prefix) {
            text.push_str(&anchored("chart", &image));
        }
        for (name, body) in &self.parts {
            text.push('\n');
            text.push_str(&anchored(name, body));
        }
        text
    }

    /// For the device page: no anchors, images relative to the page.
    fn plain(&self, prefix: &str) -> String {
        let mut text = self.image(prefix).map(|i| format!("{i}\n")).unwrap_or_default();
        for (_, body) in &self.parts {
            text.push_str(body);
            text.push('\n');
        }
        text
    }
}

fn anchored(name: &str, body: &str) -> String {
    format!("<!-- ANCHOR: {name} -->\n{body}<!-- ANCHOR_END: {name} -->\n")
}

/// What every part of one record's report needs.
struct Context<'a> {
    stem: &'a str,
    record: &'a Record,
    device: String,
}

impl<'a> Context<'a> {
    fn new(stem: &'a str, record: &'a Record) -> Self {
        let device = record.device.as_ref().map_or_else(|| stem.to_string(), |d| d.name.clone());
        Context { stem, record, device }
    }

    fn generated_note(&self) -> String {
        format!(
            "<!-- Generated by `cargo xtask report` from {}.json: do not edit. Images are named relative to docs/src/. -->\n",
            self.stem
        )
    }

    fn peers(&self) -> &[PeerRow] {
        self.record.peers.as_ref().map_or(&[], |p| p.rows.as_slice())
    }

    fn peer_label(&self) -> Option<String> {
        self.record.peers.as_ref().map(|p| p.label())
    }

    fn page_head(&self) -> String {
        let mut page = format!("# {}\n\n", self.device);
        page.push_str(&format!(
            "<!-- Generated by `cargo xtask report` from {}.json: do not edit. -->\n\n\
             Every table and chart on this page comes from the record `docs/src/results/{}.json`, \
             made by `cargo xtask bench`{}. GB/s counts the fewest bytes the work must move, over \
             the median GPU time (timestamps) of the timed runs; \"% of copy\" compares it with the \
             copy kernel measured in the same process.\n\n",
            self.stem,
            self.stem,
            if self.record.quick { " --quick" } else { "" }
        ));
        page.push_str(&self.device_table());
        if let Some(label) = self.peer_label() {
            page.push_str(&format!(
                "\n**The peer** is {label}, measured in the same GPU run right before the samples. \
                 **Note:** at small n the peer's time includes a kernel launch (and PyTorch's own \
                 overhead), which the Vulkan timestamps do not: compare at large n.\n"
            ));
        }
        page.push_str("\n## Summary\n\n");
        page.push_str(&self.summary());
        page
    }

    fn device_table(&self) -> String {
        let mut t = String::from("| device | driver | Vulkan | subgroup size | measured | commit | peer |\n");
        t.push_str("| --- | --- | --- | --- | --- | --- | --- |\n");
        let (driver, api, subgroup) = match &self.record.device {
            Some(d) => (
                format!("{} {}", d.driver_name, d.driver_info).trim().to_string(),
                d.api_version.clone(),
                d.subgroup_size.map_or("-".into(), |s| s.to_string()),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let peer = self.peer_label().unwrap_or_else(|| "none".into());
        // A merged record keeps the date its first measurement began; the samples re-measured
        // since carry their own dates ("YYYY-MM-DD HH:MM UTC", which sorts as text), and the
        // commit is the build of the latest merge, so the column gives the span.
        let last = self.record.runs.iter().map(|r| r.date.as_str()).max().filter(|&d| d > self.record.date.as_str());
        let measured = match last {
            Some(last) => format!("{} to {last}", self.record.date),
            None => self.record.date.clone(),
        };
        let _ = writeln!(
            t,
            "| {} | {driver} | {api} | {subgroup} | {measured} | `{}` | {peer} |",
            self.device, self.record.commit
        );
        t
    }

    /// "Measured at commit C, DATE." when the record names a run per sample.
    fn run_note(&self, sample: &str) -> String {
        let status = self.record.samples.iter().find(|s| s.sample == sample).map(|s| s.status.as_str());
        let run = self.record.runs.iter().find(|r| r.sample == sample);
        let mut note = format!("Status {}", status.unwrap_or("-"));
        if let Some(run) = run {
            let _ = write!(note, "; measured at commit `{}`, {}", run.commit, run.date);
        }
        note.push_str(".\n\n");
        note
    }

    fn summary(&self) -> String {
        let mut t =
            String::from("| sample | fastest variant at the largest size | size | rate | share | beside the peer |\n");
        t.push_str("| --- | --- | --- | ---: | ---: | --- |\n");
        for sample in &self.record.samples {
            let Some(best) = fastest_at_largest(sample) else { continue };
            let peer = self
                .peer_beside(sample, best)
                .map_or("-".to_string(), |p| format!("{} ({})", ratio(p.median_us * 1e3 / best.median_ns), p.work));
            let (size, rate, share) = match best.gemm_shape() {
                Some((m, n, k)) => (
                    format!("{m}×{n}×{k}"),
                    format!("{:.2} TFLOP/s", best.tflops),
                    best.pct_of_peak.map_or("-".into(), |p| format!("{p:.1} % of peak")),
                ),
                None => (
                    pow2(best.n),
                    format!("{:.1} GB/s", best.gbps),
                    best.pct_of_copy.map_or("-".into(), |p| format!("{p:.1} % of copy")),
                ),
            };
            let _ = writeln!(t, "| {} | {} | {size} | {rate} | {share} | {peer} |", sample.sample, best.variant);
        }
        t
    }

    fn peer_beside(&self, sample: &SampleRun, row: &Row) -> Option<&PeerRow> {
        self.peers().iter().find(|p| p.is_beside(&sample.sample, row))
    }

    fn unmatched_peers(&self) -> String {
        let matched =
            |p: &PeerRow| self.record.samples.iter().any(|s| s.bench.iter().any(|r| p.is_beside(&s.sample, r)));
        let rows: Vec<&PeerRow> = self.peers().iter().filter(|p| !matched(p)).collect();
        if rows.is_empty() {
            return String::new();
        }
        let mut t = String::from("\n## Peer rows beside no row of the record\n\n");
        t.push_str("| work | size | median µs | GB/s | TFLOP/s |\n| --- | --- | --- | --- | --- |\n");
        for p in rows {
            let _ = writeln!(
                t,
                "| {} | {} | {:.2} | {} | {} |",
                p.work,
                p.size_label(),
                p.median_us,
                p.gbps.map_or("-".into(), |g| format!("{g:.1}")),
                p.tflops.map_or("-".into(), |t| format!("{t:.1}"))
            );
        }
        t
    }

    fn sample_fragment(&self, sample: &SampleRun) -> Result<Fragment, String> {
        if sample.bench.iter().any(|r| r.gemm_shape().is_some()) {
            return self.gemm_fragment(sample);
        }
        if sample.sample.starts_with("05_") {
            return self.atomics_fragment(sample);
        }
        self.streaming_fragment(sample)
    }

    /// The device, when `sample`'s `rows` were measured, and how often each.
    fn reps_note(&self, sample: &SampleRun, rows: &[&Row]) -> String {
        let reps: Vec<u64> = rows.iter().map(|r| r.reps).collect();
        let (lo, hi) = (reps.iter().min().copied().unwrap_or(0), reps.iter().max().copied().unwrap_or(0));
        let reps = if lo == hi { lo.to_string() } else { format!("{lo}–{hi}") };
        // A merged record re-measures some samples: their own run's date, else the record's.
        let run = self.record.runs.iter().find(|r| r.sample == sample.sample);
        let date = run.map_or(self.record.date.as_str(), |r| r.date.as_str());
        format!("{}, measured {date}, median of {reps} timed runs each", self.device)
    }

    /// 02, 03, 04 and any sample of streaming rows: GB/s against n.
    fn streaming_fragment(&self, sample: &SampleRun) -> Result<Fragment, String> {
        let rows: Vec<&Row> = sample.bench.iter().filter(|r| r.variant != NOT_VARIANTS[0] && r.n > 0).collect();
        let variants = distinct(rows.iter().filter(|r| r.variant != FLOOR).map(|r| r.variant.as_str()));
        let sizes = distinct_sorted(rows.iter().map(|r| r.n));
        let at = |variant: &str, n: u64| rows.iter().copied().find(|r| r.variant == variant && r.n == n);

        let mut table = format!("*GB/s by n; {}.*\n\n| variant |", self.reps_note(sample, &rows));
        for &n in &sizes {
            let _ = write!(table, " {} |", pow2(n));
        }
        table.push_str("\n| --- |");
        table.push_str(&" ---: |".repeat(sizes.len()));
        table.push('\n');
        for variant in &variants {
            let _ = write!(table, "| {variant} |");
            for &n in &sizes {
                let cell = at(variant, n).map_or("-".into(), |r| format!("{:.1}", r.gbps));
                let _ = write!(table, " {cell} |");
            }
            table.push('\n');
        }

        let largest_n = sizes.last().copied().unwrap_or(0);
        let mut largest = format!(
            "*At n = {}; {}.*\n\n| variant | median µs | fastest µs | GB/s | % of copy |\n\
             | --- | ---: | ---: | ---: | ---: |\n",
            pow2(largest_n),
            self.reps_note(sample, &rows)
        );
        for variant in variants.iter().copied().chain([FLOOR]) {
            let Some(r) = at(variant, largest_n) else { continue };
            let gbps = if r.bytes > 0 { format!("{:.1}", r.gbps) } else { "-".into() };
            let _ = writeln!(
                largest,
                "| {} | {:.2} | {:.2} | {gbps} | {} |",
                r.variant,
                r.median_ns / 1e3,
                r.min_ns / 1e3,
                percent(r.pct_of_copy)
            );
        }

        let mut parts = vec![("table", table), ("largest", largest)];
        parts.extend(self.peers_table(sample, &rows).map(|t| ("peers", t)));

        let (what, keep) = chart_series(&sample.sample);
        let mut lines = Vec::new();
        for (i, variant) in variants.iter().filter(|v| **v != COPY && v.ends_with(keep)).enumerate() {
            let points = sizes.iter().filter_map(|&n| at(variant, n).map(|r| (log2(n), r.gbps))).collect();
            lines.push(Line { name: variant.to_string(), points, style: LineStyle::Variant(i) });
        }
        let copy: Vec<(f64, f64)> = sizes.iter().filter_map(|&n| at(COPY, n).map(|r| (log2(n), r.gbps))).collect();
        if !copy.is_empty() {
            lines.push(Line { name: "copy kernel (same run)".into(), points: copy, style: LineStyle::Copy });
        }
        let peer_rows: Vec<&PeerRow> = self
            .peers()
            .iter()
            .filter(|p| {
                p.sample.as_deref() == Some(&sample.sample) && p.beside.as_deref().is_some_and(|b| b.ends_with(keep))
            })
            .filter(|p| p.beside.as_deref() != Some(COPY))
            .collect();
        for work in distinct(peer_rows.iter().map(|p| p.work.as_str())) {
            let mut points: Vec<(f64, f64)> =
                peer_rows.iter().filter(|p| p.work == work).filter_map(|p| Some((log2(p.n?), p.gbps?))).collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let label = self.peer_label().unwrap_or_default();
            lines.push(Line { name: format!("peer: {work} ({label})"), points, style: LineStyle::Peer });
        }
        let title = format!("{} {what}: GB/s against n, {}", sample.sample, self.device);
        let x_ticks = sizes.iter().map(|&n| (log2(n), pow2(n))).collect();
        let chart = LineChart {
            title: &title,
            x_desc: "n, elements (log2 axis)",
            y_desc: "GB/s (fewest bytes moved / median time)",
            x_ticks,
            lines,
        };
        Ok(self.charted(sample, title.clone(), charts::line_chart(&chart)?, parts))
    }

    /// A fragment of `parts` with the chart `svg`, written beside the sample's fragment.
    fn charted(&self, sample: &SampleRun, title: String, svg: String, parts: Vec<(&'static str, String)>) -> Fragment {
        let chart_file = Some(format!("{}/{}.svg", self.stem, sample.sample));
        Fragment { chart_alt: title, chart_file, svg: Some(svg), parts }
    }

    /// Each peer row of `sample` beside the row it stands for.
    fn peers_table(&self, sample: &SampleRun, rows: &[&Row]) -> Option<String> {
        let label = self.peer_label()?;
        let mut t = format!(
            "*Beside the peer, {label}, measured in the same GPU run; × peer is the peer's time \
             over ours (above 1: ours is faster). At small n the peer's time includes a kernel \
             launch that the Vulkan timestamps do not.*\n\n\
             | variant | n | median µs | peer | peer µs | × peer |\n| --- | --- | ---: | --- | ---: | ---: |\n"
        );
        let mut any = false;
        for row in rows {
            for peer in self.peers().iter().filter(|p| p.is_beside(&sample.sample, row)) {
                any = true;
                let size = row.gemm_shape().map_or_else(|| pow2(row.n), |(m, n, k)| format!("{m}×{n}×{k}"));
                let _ = writeln!(
                    t,
                    "| {} | {size} | {:.2} | {} | {:.2} | {} |",
                    row.variant,
                    row.median_ns / 1e3,
                    peer.work,
                    peer.median_us,
                    ratio(peer.median_us * 1e3 / row.median_ns)
                );
            }
        }
        any.then_some(t)
    }

    /// 05: histogram forms by bins × spread, append forms by keep ratio, at the largest n;
    /// the chart sets naive beside the best form.
    fn atomics_fragment(&self, sample: &SampleRun) -> Result<Fragment, String> {
        let rows: Vec<&Row> = sample.bench.iter().filter(|r| r.n > 0).collect();
        let largest_n = rows.iter().map(|r| r.n).max().unwrap_or(0);
        let at_largest: Vec<&Row> = rows.iter().copied().filter(|r| r.n == largest_n).collect();
        let histogram: Vec<(&Row, HistogramKey)> =
            at_largest.iter().filter_map(|r| Some((*r, HistogramKey::parse(&r.variant)?))).collect();
        let append: Vec<(&Row, AppendKey)> =
            at_largest.iter().filter_map(|r| Some((*r, AppendKey::parse(&r.variant)?))).collect();
        let note = self.reps_note(sample, &at_largest);
        let copy = at_largest.iter().find(|r| r.variant == COPY).map(|r| r.gbps);
        let copy_note = copy.map_or(String::new(), |c| format!(" The copy kernel: {c:.1} GB/s."));

        let forms = distinct(histogram.iter().map(|(_, k)| k.form.as_str()));
        let groups = distinct(histogram.iter().map(|(_, k)| (k.bins, k.spread.as_str())));
        let mut hist = format!(
            "*Histogram, GB/s of keys at n = {}, by form; {note}.{copy_note}*\n\n| bins | spread |",
            pow2(largest_n)
        );
        for form in &forms {
            let _ = write!(hist, " {form} |");
        }
        let _ = write!(hist, "\n| ---: | --- |{}\n", " ---: |".repeat(forms.len()));
        for &(bins, spread) in &groups {
            let _ = write!(hist, "| {bins} | {spread} |");
            for form in &forms {
                let cell = histogram
                    .iter()
                    .find(|(_, k)| k.bins == bins && k.spread == spread && k.form == *form)
                    .map_or("-".into(), |(r, _)| format!("{:.1}", r.gbps));
                let _ = write!(hist, " {cell} |");
            }
            hist.push('\n');
        }

        let append_forms = distinct(append.iter().map(|(_, k)| k.form.as_str()));
        let keeps = distinct(append.iter().map(|(_, k)| k.keep));
        let mut app =
            format!("*Append, GB/s of elements at n = {}, by form; {note}.{copy_note}*\n\n| kept |", pow2(largest_n));
        for form in &append_forms {
            let _ = write!(app, " {form} |");
        }
        let _ = write!(app, "\n| ---: |{}\n", " ---: |".repeat(append_forms.len()));
        for &keep in &keeps {
            let _ = write!(app, "| {keep} % |");
            for form in &append_forms {
                let cell = append
                    .iter()
                    .find(|(_, k)| k.keep == keep && k.form == *form)
                    .map_or("-".into(), |(r, _)| format!("{:.1}", r.gbps));
                let _ = write!(app, " {cell} |");
            }
            app.push('\n');
        }

        let mut parts = vec![("histogram", hist), ("append", app)];
        parts.extend(self.peers_table(sample, &rows).map(|t| ("peers", t)));

        let bar_groups = groups
            .iter()
            .map(|&(bins, spread)| {
                let of =
                    |form: &str| histogram.iter().find(|(_, k)| k.bins == bins && k.spread == spread && k.form == form);
                let naive = of("naive").map_or(0.0, |(r, _)| r.gbps);
                let best = histogram
                    .iter()
                    .filter(|(_, k)| k.bins == bins && k.spread == spread && k.form != "naive")
                    .max_by(|a, b| a.0.gbps.total_cmp(&b.0.gbps));
                let best = best.map_or((0.0, String::new()), |(r, k)| (r.gbps, k.form.clone()));
                (format!("{bins} {spread}"), vec![(naive, String::new()), best])
            })
            .collect();
        let title = format!("{} histogram at n = {}: GB/s of keys, {}", sample.sample, pow2(largest_n), self.device);
        let chart = BarChart {
            title: &title,
            x_desc: "bins and key spread",
            y_desc: "GB/s of keys (log axis)",
            bars: vec!["naive (one atomic per key)".into(), "best form (named above its bar)".into()],
            groups: bar_groups,
        };
        Ok(self.charted(sample, title.clone(), charts::bar_chart(&chart)?, parts))
    }

    /// GEMM rows: TFLOP/s by shape, a line per variant, the peer beside.
    fn gemm_fragment(&self, sample: &SampleRun) -> Result<Fragment, String> {
        let rows: Vec<&Row> = sample.bench.iter().filter(|r| r.gemm_shape().is_some()).collect();
        let variants = distinct(rows.iter().map(|r| r.variant.as_str()));
        let shapes = distinct(rows.iter().filter_map(|r| r.gemm_shape()));
        let at = |variant: &str, shape: (u64, u64, u64)| {
            rows.iter().copied().find(|r| r.variant == variant && r.gemm_shape() == Some(shape))
        };
        let label = |(m, n, k): (u64, u64, u64)| format!("{m}×{n}×{k}");
        let mut table = format!("*TFLOP/s by shape M×N×K; {}.*\n\n| variant |", self.reps_note(sample, &rows));
        for &shape in &shapes {
            let _ = write!(table, " {} |", label(shape));
        }
        let _ = write!(table, "\n| --- |{}\n", " ---: |".repeat(shapes.len()));
        for variant in &variants {
            let _ = write!(table, "| {variant} |");
            for &shape in &shapes {
                let cell = at(variant, shape).map_or("-".into(), |r| match r.pct_of_peak {
                    Some(p) => format!("{:.2} ({p:.0} % of peak)", r.tflops),
                    None => format!("{:.2}", r.tflops),
                });
                let _ = write!(table, " {cell} |");
            }
            table.push('\n');
        }
        let mut parts = vec![("table", table)];
        parts.extend(self.peers_table(sample, &rows).map(|t| ("peers", t)));
        parts.extend(tuner_grid(sample).map(|t| ("tune", t)));
        parts.extend(ceilings(sample, Ceilings::MatrixUnits).map(|t| ("ceilings", t)));
        parts.extend(ceilings(sample, Ceilings::Simt).map(|t| ("simt_ceilings", t)));

        // The chart draws the f32 variants beside the f32 peer (cuBLAS SGEMM): the other types'
        // peers run on tensor cores, an order of magnitude above any SIMT kernel, and belong to
        // a chart of their own kernels. The tables hold every row.
        let charted = |v: &&&str| v.ends_with(" f32") && !v.starts_with("best ");
        let mut lines: Vec<Line> = variants
            .iter()
            .filter(charted)
            .enumerate()
            .map(|(i, variant)| Line {
                name: variant.to_string(),
                points: shapes
                    .iter()
                    .enumerate()
                    .filter_map(|(x, &s)| at(variant, s).map(|r| (x as f64, r.tflops)))
                    .collect(),
                style: LineStyle::Variant(i),
            })
            .collect();
        let peer_rows: Vec<&PeerRow> = self
            .peers()
            .iter()
            .filter(|p| p.sample.as_deref() == Some(&sample.sample) && p.beside.as_deref() == Some("best f32"))
            .collect();
        for work in distinct(peer_rows.iter().map(|p| p.work.as_str())) {
            let points = shapes
                .iter()
                .enumerate()
                .filter_map(|(x, &(m, n, k))| {
                    let p =
                        peer_rows.iter().find(|p| p.work == work && (p.m, p.n, p.k) == (Some(m), Some(n), Some(k)))?;
                    Some((x as f64, p.tflops?))
                })
                .collect();
            lines.push(Line { name: format!("peer: {work}"), points, style: LineStyle::Peer });
        }
        let title = format!("{} (f32): TFLOP/s by shape, {}", sample.sample, self.device);
        let x_ticks = shapes.iter().enumerate().map(|(x, &s)| (x as f64, label(s))).collect();
        let chart = LineChart {
            title: &title,
            x_desc: "shape M×N×K",
            y_desc: "TFLOP/s (2·M·N·K / median time)",
            x_ticks,
            lines,
        };
        Ok(self.charted(sample, title.clone(), charts::line_chart(&chart)?, parts))
    }
}

/// The tuner's grid the sample recorded (`extra.tuned.grid`: type, class, shape, configuration,
/// TFLOP/s): a row per configuration, a column per type and class.
fn tuner_grid(sample: &SampleRun) -> Option<String> {
    let grid = sample.extra.get("tuned")?.get("grid")?.as_array()?;
    let text = |point: &serde_json::Value, key: &str| point.get(key).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let columns = distinct(grid.iter().map(|p| (text(p, "elem"), text(p, "class"), text(p, "shape"))));
    let configs = distinct(grid.iter().map(|p| text(p, "config")));
    if columns.is_empty() || configs.is_empty() {
        return None;
    }
    let mut t = String::from("*The tuner's grid, TFLOP/s of each configuration by type and size class (the shape it was timed at); - where it does not fit the device.*\n\n| configuration |");
    for (elem, class, shape) in &columns {
        let _ = write!(t, " {elem} {class} ({shape}) |");
    }
    let _ = write!(t, "\n| --- |{}\n", " ---: |".repeat(columns.len()));
    for config in &configs {
        let _ = write!(t, "| `{config}` |");
        for (elem, class, shape) in &columns {
            let point = grid.iter().find(|p| {
                text(p, "config") == *config
                    && text(p, "elem") == *elem
                    && text(p, "class") == *class
                    && text(p, "shape") == *shape
            });
            let cell = point.and_then(|p| p.get("tflops")?.as_f64()).map_or("-".into(), |v| format!("{v:.2}"));
            let _ = write!(t, " {cell} |");
        }
        t.push('\n');
    }
    Some(t)
}

/// Which of a GEMM sample's ceilings a table holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ceilings {
    /// The f32 FMA ceiling and the SIMT configurations' ceilings (chapter 06).
    Simt,
    /// The matrix units' (chapter 06b).
    MatrixUnits,
}

/// The ceilings a GEMM sample timed beside its rows (`peak …`, `feed …`, `staging …`,
/// `cached …`, `resident …` and `inner …`: operations but no shape of their own), one line
/// each; the SIMT ones are the FMA ceiling and those of an f32 `register` configuration.
fn ceilings(sample: &SampleRun, which: Ceilings) -> Option<String> {
    let simt = |r: &Row| r.variant == "peak f32 FMA" || r.variant.contains(" register f32 ");
    let rows: Vec<&Row> = sample
        .bench
        .iter()
        .filter(|r| r.gemm_shape().is_none() && r.flops > 0 && simt(r) == (which == Ceilings::Simt))
        .collect();
    if rows.is_empty() {
        return None;
    }
    let caption = match which {
        Ceilings::Simt => "*The f32 ceilings timed in the same run: a kernel that only multiply-adds (`peak f32 FMA`), and a `register` configuration with part of its work taken out, its operations over the time of what is left: its tiles resident in shared memory, so that only the multiply-adds, their shared-memory reads and the barriers remain (`resident`), the same without the barriers (`inner`), or the staging alone, global loads, shared stores and barriers without the multiply-adds (`staging`, with the GB/s of tiles it read).*",
        Ceilings::MatrixUnits => "*The matrix units' ceilings timed in the same run: kernels that only multiply-add (`peak`), multiply-add fed by fragment loads from shared memory with a barrier per step (`feed`), a GEMM configuration with its multiply-adds taken out, its operations over the time of its staging and fragment loads alone (`staging`, with the GB/s of tiles it read), or with its tiles reloaded from a few K steps that stay in the cache (`cached`); a `peak` row that names a configuration is its multiply-adds alone; TOP/s where the row says so.*",
    };
    let mut t = format!("{caption}\n\n| kernel | TFLOP/s | GB/s |\n| --- | ---: | ---: |\n");
    for r in rows {
        let gbps = if r.bytes > 0 { format!("{:.0}", r.gbps) } else { "-".into() };
        let _ = writeln!(t, "| {} | {:.2} | {gbps} |", r.variant, r.tflops);
    }
    Some(t)
}

/// Which of a sample's variants its chart draws (by name suffix), and what the title calls them.
fn chart_series(sample: &str) -> (&'static str, &'static str) {
    match sample {
        "02_reduce" => ("(add, f32)", " f32"),
        "03_scan" => ("(inclusive, f32)", " f32"),
        "04_compaction" => ("(select f32, half kept)", " keep 50%"),
        _ => ("", ""),
    }
}

/// The variant with the most GB/s (GEMM: TFLOP/s) at the sample's largest n, the copy aside.
fn fastest_at_largest(sample: &SampleRun) -> Option<&Row> {
    let rows = sample.bench.iter().filter(|r| !NOT_VARIANTS.contains(&r.variant.as_str()) && r.variant != COPY);
    let rows: Vec<&Row> = rows.collect();
    let largest = rows.iter().map(|r| r.m.unwrap_or(1) * r.n * r.k.unwrap_or(1)).max()?;
    rows.into_iter()
        .filter(|r| r.m.unwrap_or(1) * r.n * r.k.unwrap_or(1) == largest)
        .max_by(|a, b| rate(a).total_cmp(&rate(b)))
}

/// What "fastest" compares: TFLOP/s for a GEMM row, GB/s otherwise.
fn rate(row: &Row) -> f64 {
    if row.gemm_shape().is_some() {
        row.tflops
    } else {
        row.gbps
    }
}

/// `histogram FORM BINS bins SPREAD`
struct HistogramKey {
    form: String,
    bins: u32,
    spread: String,
}

impl HistogramKey {
    fn parse(variant: &str) -> Option<Self> {
        let words: Vec<&str> = variant.split(' ').collect();
        match words.as_slice() {
            ["histogram", form, bins, "bins", spread] => {
                Some(HistogramKey { form: form.to_string(), bins: bins.parse().ok()?, spread: spread.to_string() })
            }
            _ => None,
        }
    }
}

/// `append FORM keep K%`
struct AppendKey {
    form: String,
    keep: u32,
}

impl AppendKey {
    fn parse(variant: &str) -> Option<Self> {
        let words: Vec<&str> = variant.split(' ').collect();
        match words.as_slice() {
            ["append", form, "keep", keep] => {
                Some(AppendKey { form: form.to_string(), keep: keep.strip_suffix('%')?.parse().ok()? })
            }
            _ => None,
        }
    }
}

fn distinct<T: PartialEq>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

fn distinct_sorted(items: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut out: Vec<u64> = items.collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn log2(n: u64) -> f64 {
    (n as f64).log2()
}

fn percent(p: Option<f64>) -> String {
    p.map_or("-".into(), |p| format!("{p:.1}"))
}

fn ratio(r: f64) -> String {
    format!("{r:.2}×")
}
