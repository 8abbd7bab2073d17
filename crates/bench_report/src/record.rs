//! A bench record as `cargo xtask bench` writes it (schema `subgroup-suite-bench/1` or `/2`), read
//! with only the members the report uses. Unknown members are ignored, so later schemas that add
//! members still read.

use serde::Deserialize;

/// The whole record: one device, every sample's document, the peers measured in the same GPU run.
#[derive(Debug, Deserialize)]
pub struct Record {
    pub schema: String,
    pub commit: String,
    pub date: String,
    #[serde(default)]
    pub quick: bool,
    pub device: Option<Device>,
    pub samples: Vec<SampleRun>,
    pub peers: Option<Peers>,
    /// Per sample: the commit and date it was measured at (schema 2; `--merge` re-measures one).
    #[serde(default)]
    pub runs: Vec<RunInfo>,
}

/// The device facts every sample document repeats.
#[derive(Debug, Deserialize)]
pub struct Device {
    pub name: String,
    #[serde(default)]
    pub device_type: String,
    #[serde(default)]
    pub driver_name: String,
    #[serde(default)]
    pub driver_info: String,
    #[serde(default)]
    pub api_version: String,
    pub subgroup_size: Option<u32>,
}

/// One sample's document; a stand-in (error, crash) has a status and no rows.
#[derive(Debug, Deserialize)]
pub struct SampleRun {
    pub sample: String,
    pub status: String,
    #[serde(default)]
    pub bench: Vec<Row>,
    pub validation_messages: Option<u64>,
    /// What a sample adds of its own (06_gemm: its tuner's grid, under `tuned.grid`).
    #[serde(default)]
    pub extra: serde_json::Value,
}

/// One timed measurement. Streaming rows count `n` elements; GEMM rows also carry `m` and `k`
/// (then `n` is the GEMM's N).
#[derive(Clone, Debug, Deserialize)]
pub struct Row {
    pub variant: String,
    pub n: u64,
    #[serde(default)]
    pub bytes: u64,
    #[serde(default)]
    pub flops: u64,
    #[serde(default)]
    pub reps: u64,
    pub median_ns: f64,
    pub min_ns: f64,
    #[serde(default)]
    pub gbps: f64,
    #[serde(default)]
    pub tflops: f64,
    pub pct_of_copy: Option<f64>,
    pub m: Option<u64>,
    pub k: Option<u64>,
    /// TFLOP/s as a percentage of the device's ceiling measured in the same run (GEMM).
    pub pct_of_peak: Option<f64>,
}

impl Row {
    /// The GEMM shape `(m, n, k)`, if this is a GEMM row.
    pub fn gemm_shape(&self) -> Option<(u64, u64, u64)> {
        Some((self.m?, self.n, self.k?))
    }
}

/// When and from which commit one sample of the record was measured.
#[derive(Debug, Deserialize)]
pub struct RunInfo {
    pub sample: String,
    pub commit: String,
    pub date: String,
    pub wall_seconds: Option<f64>,
}

/// The peers script's document (`xtask/peers/peers.py --json`).
#[derive(Debug, Deserialize)]
pub struct Peers {
    #[serde(default)]
    pub device: String,
    #[serde(default)]
    pub torch: String,
    /// How the page names the peer, e.g. "PyTorch 2.11.0, CUB/cuBLAS, CUDA events".
    pub label: Option<String>,
    pub timer: Option<String>,
    #[serde(default)]
    pub rows: Vec<PeerRow>,
}

impl Peers {
    /// The label the pages show for the peer.
    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| format!("PyTorch {}, CUB/cuBLAS", self.torch))
    }
}

/// One peer measurement, beside the record's row `sample` / `beside` at the same `n` (or shape).
/// Rows of an older peers document lack `sample` and `beside`; the page lists them unmatched.
#[derive(Clone, Debug, Deserialize)]
pub struct PeerRow {
    pub sample: Option<String>,
    pub beside: Option<String>,
    pub work: String,
    pub library: Option<String>,
    pub n: Option<u64>,
    /// Older documents: the element count, or a GEMM shape as text.
    pub size: Option<serde_json::Value>,
    pub m: Option<u64>,
    pub k: Option<u64>,
    pub median_us: f64,
    pub gbps: Option<f64>,
    pub tflops: Option<f64>,
}

impl PeerRow {
    /// Whether this peer row stands beside the record row `row` of `sample`.
    pub fn is_beside(&self, sample: &str, row: &Row) -> bool {
        self.sample.as_deref() == Some(sample)
            && self.beside.as_deref() == Some(row.variant.as_str())
            && self.n == Some(row.n)
            && self.m == row.m
            && self.k == row.k
    }

    /// The size as the page prints it.
    pub fn size_label(&self) -> String {
        match (self.m, self.n, self.k, &self.size) {
            (Some(m), Some(n), Some(k), _) => format!("{m}×{n}×{k}"),
            (_, Some(n), _, _) => crate::pages::pow2(n),
            (_, _, _, Some(serde_json::Value::Number(n))) => n.as_u64().map_or(n.to_string(), crate::pages::pow2),
            (_, _, _, Some(serde_json::Value::String(s))) => s.clone(),
            _ => "-".into(),
        }
    }
}

/// Parses a record's text.
pub fn parse(text: &str) -> Result<Record, String> {
    let record: Record = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if !record.schema.starts_with("subgroup-suite-bench/") {
        return Err(format!("schema `{}` is not a bench record's", record.schema));
    }
    Ok(record)
}
