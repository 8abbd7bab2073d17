//! The bench record's readers and writers outside the samples: `cargo xtask report` (the book's
//! result pages, tables and SVG charts, from records) and `cargo xtask bench`'s progress bar.
//! A crate of its own so that its dependencies (plotters, indicatif, serde_json) are built
//! once for xtask, apart from the samples and shaderc.

pub mod charts;
pub mod pages;
pub mod progress;
pub mod record;

use std::fs;
use std::path::{Path, PathBuf};

pub use progress::BenchProgress;

/// Write the files, or only compare them with what is on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Write,
    Check,
}

/// Generates the page, fragments and charts of each record in `records`, then writes them
/// (removing files of the record's folder that it no longer generates) or, in
/// [`Mode::Check`], lists every file that differs from what it would write. Returns one line
/// per record written, or the differences as the error.
pub fn report(records: &[PathBuf], mode: Mode) -> Result<Vec<String>, String> {
    let mut done = Vec::new();
    let mut stale = Vec::new();
    for path in records {
        let shown = path.display();
        let text = fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
        let record = record::parse(&text).map_err(|e| format!("{shown}: {e}"))?;
        let files = pages::generate(path, &record).map_err(|e| format!("{shown}: {e}"))?;
        let folder = path.with_extension("");
        let extra = extra_files(&folder, &files);
        match mode {
            Mode::Write => {
                fs::create_dir_all(&folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
                for file in &files {
                    if fs::read(&file.path).ok().as_deref() != Some(file.contents.as_slice()) {
                        fs::write(&file.path, &file.contents)
                            .map_err(|e| format!("cannot write {}: {e}", file.path.display()))?;
                    }
                }
                for path in &extra {
                    fs::remove_file(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
                }
                done.push(format!("report: {shown} → {} files", files.len()));
            }
            Mode::Check => {
                for file in &files {
                    if fs::read(&file.path).ok().as_deref() != Some(file.contents.as_slice()) {
                        stale.push(format!("{} differs from what `cargo xtask report` writes", file.path.display()));
                    }
                }
                stale.extend(extra.iter().map(|p| format!("{} is not written by `cargo xtask report`", p.display())));
                done.push(format!("report: {shown}: {} files current", files.len()));
            }
        }
    }
    if stale.is_empty() {
        Ok(done)
    } else {
        Err(stale.join("\n"))
    }
}

/// Files in `folder` that `files` does not name.
fn extra_files(folder: &Path, files: &[pages::File]) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(folder) else { return Vec::new() };
    let mut extra: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && !files.iter().any(|f| f.path == *p))
        .collect();
    extra.sort();
    extra
}
