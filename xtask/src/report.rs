//! The fields xtask reads from a sample's `--json` document (the harness's `Report`):
//! `status`, `device.device_type`, `device.subgroup_size`, `results[].{variant, status}` and
//! `bench[].{variant, n, median_ns, gbps, pct_of_copy}`.

use crate::json::{self, Value};

/// One sample's `--json` document, parsed.
#[derive(Debug)]
pub struct Document(Value);

/// One entry of `results`: a check of one variant.
#[derive(Debug, PartialEq)]
pub struct CheckResult<'a> {
    pub variant: &'a str,
    /// `PASS`, `FAIL`, `SKIP` or `FALLBACK`.
    pub status: &'a str,
    /// What the check found, or why it SKIPped.
    pub detail: &'a str,
}

/// One entry of `bench`: a timed variant.
#[derive(Debug, PartialEq)]
pub struct BenchRow<'a> {
    pub variant: &'a str,
    pub n: Option<f64>,
    pub median_ns: Option<f64>,
    pub gbps: Option<f64>,
    pub pct_of_copy: Option<f64>,
}

impl Document {
    /// Parses a sample's stdout; an error says why it is not one JSON object.
    pub fn parse(stdout: &str) -> Result<Self, String> {
        match json::parse(stdout)? {
            value @ Value::Object(_) => Ok(Document(value)),
            _ => Err("the JSON document is not an object".to_string()),
        }
    }

    /// The run's overall `status`.
    pub fn status(&self) -> Option<&str> {
        self.0.get("status").and_then(Value::as_str)
    }

    /// `device.device_type` (`CPU` for lavapipe); `None` when `device` is null.
    pub fn device_type(&self) -> Option<&str> {
        self.device()?.get("device_type").and_then(Value::as_str)
    }

    /// `device.subgroup_size`; `None` when `device` is null.
    pub fn subgroup_size(&self) -> Option<u32> {
        let size = self.device()?.get("subgroup_size").and_then(Value::as_f64)?;
        Some(size as u32)
    }

    /// `device.driver_name` (`llvmpipe` for lavapipe); `None` when `device` is null.
    pub fn driver_name(&self) -> Option<&str> {
        self.device()?.get("driver_name").and_then(Value::as_str)
    }

    /// `device.max_storage_buffer_range` in bytes; `None` when `device` is null.
    pub fn max_storage_buffer_range(&self) -> Option<u64> {
        Some(self.device()?.get("max_storage_buffer_range").and_then(Value::as_f64)? as u64)
    }

    fn device(&self) -> Option<&Value> {
        self.0.get("device").filter(|device| **device != Value::Null)
    }

    /// The checks in `results`, in order.
    pub fn results(&self) -> Vec<CheckResult<'_>> {
        let results = self.0.get("results").map_or(&[][..], Value::elements);
        results
            .iter()
            .map(|result| CheckResult {
                variant: result.get("variant").and_then(Value::as_str).unwrap_or("?"),
                status: result.get("status").and_then(Value::as_str).unwrap_or("?"),
                detail: result.get("detail").and_then(Value::as_str).unwrap_or(""),
            })
            .collect()
    }

    /// The rows of `bench`, in order.
    pub fn bench_rows(&self) -> Vec<BenchRow<'_>> {
        let rows = self.0.get("bench").map_or(&[][..], Value::elements);
        let number = |row: &Value, key: &str| row.get(key).and_then(Value::as_f64);
        rows.iter()
            .map(|row| BenchRow {
                variant: row.get("variant").and_then(Value::as_str).unwrap_or("?"),
                n: number(row, "n"),
                median_ns: number(row, "median_ns"),
                gbps: number(row, "gbps"),
                pct_of_copy: number(row, "pct_of_copy"),
            })
            .collect()
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A document as the harness writes it (serde_json pretty-printed).
    pub fn document(status: &str, device_type: Option<&str>, results: &[(&str, &str)]) -> String {
        let device = match device_type {
            Some(kind) => format!(
                "{{\n    \"index\": 0,\n    \"name\": \"llvmpipe (LLVM 19.1.7, 256 bits)\",\n    \
                 \"device_type\": \"{kind}\",\n    \"driver_name\": \"llvmpipe\",\n    \
                 \"subgroup_size\": 8,\n    \"required_subgroup_size\": null\n  }}"
            ),
            None => "null".to_string(),
        };
        let results: Vec<String> = results
            .iter()
            .map(|(variant, status)| {
                format!(
                    "    {{\n      \"variant\": \"{variant}\",\n      \"size\": 100003,\n      \
                     \"status\": \"{status}\",\n      \"detail\": \"status: PASS in a detail\"\n    }}"
                )
            })
            .collect();
        format!(
            "{{\n  \"sample\": \"02_reduce\",\n  \"status\": \"{status}\",\n  \"fault\": null,\n  \
             \"device\": {device},\n  \"seed\": 1,\n  \"validation_messages\": 0,\n  \
             \"results\": [\n{}\n  ],\n  \"bench\": [],\n  \"extra\": {{ \"status\": \"PASS\" }}\n}}\n",
            results.join(",\n")
        )
    }

    #[test]
    fn statuses_come_from_results_only() {
        let text = document("FAIL", Some("CPU"), &[("fast add u32", "FAIL"), ("naive add u32", "SKIP")]);
        let doc = Document::parse(&text).unwrap();
        assert_eq!(doc.status(), Some("FAIL"));
        assert_eq!(
            doc.results(),
            [
                CheckResult { variant: "fast add u32", status: "FAIL", detail: "status: PASS in a detail" },
                CheckResult { variant: "naive add u32", status: "SKIP", detail: "status: PASS in a detail" }
            ]
        );
    }

    #[test]
    fn device_type_and_subgroup_size() {
        let cpu = Document::parse(&document("FALLBACK", Some("CPU"), &[])).unwrap();
        assert_eq!((cpu.device_type(), cpu.subgroup_size()), (Some("CPU"), Some(8)));
        let gpu = Document::parse(&document("PASS", Some("DiscreteGpu"), &[])).unwrap();
        assert_eq!(gpu.device_type(), Some("DiscreteGpu"));
        let none = Document::parse(&document("PASS", None, &[])).unwrap();
        assert_eq!((none.device_type(), none.subgroup_size()), (None, None));
    }

    #[test]
    fn bench_rows() {
        let text = r#"{"bench": [
            {"variant": "copy", "n": 1048576, "median_ns": 2000.0, "gbps": 4194.3, "pct_of_copy": null},
            {"variant": "fast add u32", "n": 1048576, "median_ns": 1500.5, "gbps": 2795.5, "pct_of_copy": 66.6}
        ]}"#;
        let doc = Document::parse(text).unwrap();
        let rows = doc.bench_rows();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].pct_of_copy, None);
        assert_eq!(
            rows[1],
            BenchRow {
                variant: "fast add u32",
                n: Some(1048576.0),
                median_ns: Some(1500.5),
                gbps: Some(2795.5),
                pct_of_copy: Some(66.6)
            }
        );
    }

    #[test]
    fn not_a_document() {
        assert!(Document::parse("").is_err());
        assert!(Document::parse("[]").is_err());
        assert!(Document::parse("PASS fast add u32").is_err());
    }
}
