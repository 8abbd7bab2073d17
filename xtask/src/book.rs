//! The book: `mdbook build docs` with mdbook at a pinned version, installed with
//! `cargo install --locked` into the target directory (so a CI cache that keeps the target
//! directory keeps mdbook too) when that version is not there yet.
//!
//! mdbook exits 0 after logging an error for a missing include or a broken template, so the
//! build fails on any line mdbook logs at ERROR or WARN level.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{progress, run_checked, step, Error, Result};

/// The mdbook release the book is built with.
const MDBOOK_VERSION: &str = "0.5.4";

/// Installs mdbook when needed, then builds the book into `docs/book`.
pub fn build(root: &Path) -> Result {
    let mdbook = ensure_mdbook(root)?;
    step("mdbook build docs");
    let output = Command::new(&mdbook)
        .current_dir(root)
        .args(["build", "docs"])
        .output()
        .map_err(|e| Error::failed(format!("cannot run {}: {e}", mdbook.display())))?;
    let log = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let problems: Vec<&str> = log.lines().filter(|line| line.contains("ERROR") || line.contains("WARN")).collect();
    if !output.status.success() || !problems.is_empty() {
        eprint!("{log}");
        return Err(Error::failed(format!(
            "mdbook build docs: {} ({} error or warning lines)",
            output.status,
            problems.len()
        )));
    }
    progress(format!("book: built into docs/book with mdbook {MDBOOK_VERSION}"));
    Ok(())
}

/// The pinned mdbook, installed under `<target dir>/tools` if it is not there yet.
fn ensure_mdbook(root: &Path) -> Result<PathBuf> {
    let target = env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let tools = target.join("tools");
    let mdbook = tools.join("bin").join("mdbook");
    let version = Command::new(&mdbook).arg("--version").output().ok();
    let wanted = format!("mdbook v{MDBOOK_VERSION}");
    if version.is_some_and(|v| String::from_utf8_lossy(&v.stdout).trim() == wanted) {
        return Ok(mdbook);
    }
    step(&format!("cargo install mdbook {MDBOOK_VERSION} (once per target directory)"));
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut install = Command::new(cargo);
    install.args(["install", "--locked", "--quiet", "--version", MDBOOK_VERSION, "mdbook", "--root"]).arg(&tools);
    // Its own target directory: the install must not share (and invalidate) the suite's builds.
    install.env("CARGO_TARGET_DIR", tools.join("build"));
    run_checked(&mut install, "cargo install mdbook")?;
    Ok(mdbook)
}
