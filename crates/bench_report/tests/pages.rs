//! The report's output for a small record: every file, the same bytes each time, the anchors
//! chapters include, and each peer beside its row.

use std::path::Path;

use bench_report::pages::{generate, File};
use bench_report::record;
fn row(variant: &str, n: u64, gbps: f64) -> String {
    format!(
        r#"{{"variant": "{variant}", "n": {n}, "bytes": {}, "flops": 0, "reps": 50, "median_ns": {}, "min_ns": 900.0,
            "gbps": {gbps}, "tflops": 0.0, "pct_of_copy": 50.0}}"#,
        4 * n,
        4.0 * n as f64 / gbps
    )
}

fn record_text() -> String {
    let reduce = [
        row("copy (ceiling)", 1 << 20, 2000.0),
        row("fast add f32", 1 << 20, 1000.0),
        row("fast add f32", 1 << 22, 1800.0),
    ];
    let atomics = [
        row("histogram naive 256 bins uniform", 1 << 20, 10.0),
        row("histogram shared 256 bins uniform", 1 << 20, 900.0),
        row("append subgroup keep 50%", 1 << 20, 700.0),
    ];
    let gemm = r#"{"variant": "register f32", "n": 4096, "m": 4096, "k": 4096, "bytes": 0, "flops": 137438953472,
        "reps": 20, "median_ns": 3000000.0, "min_ns": 2900000.0, "gbps": 0.0, "tflops": 45.8, "pct_of_copy": null,
        "pct_of_peak": 76.0}"#;
    format!(
        r#"{{"schema": "subgroup-suite-bench/2", "commit": "abc", "date": "2026-12-06 06:00 UTC", "quick": false,
          "device": {{"name": "Test GPU", "driver_name": "drv", "driver_info": "1.0", "api_version": "1.4", "subgroup_size": 32}},
          "runs": [{{"sample": "02_reduce", "commit": "abc", "date": "2026-12-06 06:00 UTC", "wall_seconds": 10.0}},
                   {{"sample": "06_gemm", "commit": "abc", "date": "2026-12-07 08:00 UTC", "wall_seconds": 20.0}}],
          "samples": [
            {{"sample": "02_reduce", "status": "PASS", "bench": [{}]}},
            {{"sample": "05_atomics", "status": "PASS", "bench": [{}]}},
            {{"sample": "06_gemm", "status": "PASS", "bench": [{gemm}]}}
          ],
          "peers": {{"device": "Test GPU", "torch": "2.11.0", "label": "PyTorch 2.11.0, CUB/cuBLAS, CUDA events", "rows": [
            {{"sample": "02_reduce", "beside": "fast add f32", "work": "torch.sum(x)", "n": 4194304, "median_us": 18.64, "gbps": 900.0}},
            {{"sample": "06_gemm", "beside": "register f32", "work": "sgemm", "m": 4096, "n": 4096, "k": 4096, "median_us": 2700.0, "tflops": 50.9}},
            {{"work": "orphan", "size": 1024, "median_us": 1.0}}
          ]}}}}"#,
        reduce.join(","),
        atomics.join(",")
    )
}

fn files() -> Vec<File> {
    let record = record::parse(&record_text()).unwrap();
    generate(Path::new("docs/src/results/test.json"), &record).unwrap()
}

fn text_of<'a>(files: &'a [File], path: &str) -> &'a str {
    let file = files.iter().find(|f| f.path == Path::new(path)).unwrap_or_else(|| panic!("{path} not written"));
    std::str::from_utf8(&file.contents).unwrap()
}

#[test]
fn every_fragment_page_and_chart_is_written_the_same_each_time() {
    let (first, second) = (files(), files());
    let names: Vec<String> = first.iter().map(|f| f.path.display().to_string()).collect();
    for expected in [
        "docs/src/results/test.md",
        "docs/src/results/test/02_reduce.md",
        "docs/src/results/test/02_reduce.svg",
        "docs/src/results/test/05_atomics.svg",
        "docs/src/results/test/06_gemm.md",
        "docs/src/results/test/summary.md",
        "docs/src/results/test/device.md",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing from {names:?}");
    }
    assert!(first.iter().zip(&second).all(|(a, b)| a.path == b.path && a.contents == b.contents));
}

#[test]
fn fragments_carry_their_anchors_and_the_peer_beside_its_row() {
    let files = files();
    let reduce = text_of(&files, "docs/src/results/test/02_reduce.md");
    for anchor in ["chart", "table", "largest", "peers"] {
        assert!(reduce.contains(&format!("<!-- ANCHOR: {anchor} -->")), "{anchor}: {reduce}");
    }
    assert!(reduce.contains("](results/test/02_reduce.svg)"), "fragment images are relative to docs/src");
    // 18.64 µs for the peer against 4·2^22 B / 1800 GB/s = 9.32 µs here: 2.00×.
    assert!(reduce.contains("| fast add f32 | 2^22 | 9.32 | torch.sum(x) | 18.64 | 2.00× |"), "{reduce}");
    let atomics = text_of(&files, "docs/src/results/test/05_atomics.md");
    assert!(atomics.contains("| 256 | uniform | 10.0 | 900.0 |"), "{atomics}");
    assert!(atomics.contains("| 50 % | 700.0 |"), "{atomics}");
    let gemm = text_of(&files, "docs/src/results/test/06_gemm.md");
    assert!(gemm.contains("| register f32 | 45.80 (76 % of peak) |"), "{gemm}");
    assert!(gemm.contains("| register f32 | 4096×4096×4096 | 3000.00 | sgemm | 2700.00 | 0.90× |"), "{gemm}");
    let page = text_of(&files, "docs/src/results/test.md");
    assert!(page.contains("](test/02_reduce.svg)"), "page images are relative to the page");
    assert!(page.contains("| orphan |"), "unmatched peer rows are listed");
    assert!(page.contains("measured at commit `abc`"));
    // A sample merged in later: the device table gives the span of the measurement.
    let device = text_of(&files, "docs/src/results/test/device.md");
    assert!(device.contains("| 2026-12-06 06:00 UTC to 2026-12-07 08:00 UTC | `abc` |"), "{device}");
    let svg = text_of(&files, "docs/src/results/test/02_reduce.svg");
    assert!(svg.contains("Test GPU") && svg.contains("GB/s") && svg.contains("peer: torch.sum(x)"));
    assert!(!svg.contains("font-family=\"Arial"), "only the generic family");
}
