//! Embeds the project's git commit as `SUITE_COMMIT` (for `cargo xtask bench`'s record):
//! `git rev-parse --short=12 HEAD`, with `-dirty` appended when `git status --porcelain` lists
//! anything, or `unknown` without git (or outside a git checkout).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest_dir.parent().unwrap_or(&manifest_dir).to_path_buf();
    let commit = match git(&root, &["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) => {
            let dirty = git(&root, &["status", "--porcelain"]).is_some_and(|changes| !changes.is_empty());
            if dirty {
                format!("{hash}-dirty")
            } else {
                hash
            }
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=SUITE_COMMIT={commit}");
    for path in watched_paths(&root) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// What moves the commit or its dirty mark, so that cargo reruns this script when it changes:
/// HEAD, the branch it points to (its loose ref, else packed-refs), the index (staging and
/// committing), and the workspace's sources and manifests (edits not yet staged). Nothing when
/// git is unavailable: cargo then reruns the script whenever a file of xtask changes.
fn watched_paths(root: &Path) -> Vec<PathBuf> {
    let absolute = |path: String| if Path::new(&path).is_absolute() { PathBuf::from(path) } else { root.join(path) };
    let Some(git_dir) = git(root, &["rev-parse", "--git-dir"]).map(absolute) else {
        return Vec::new();
    };
    let common_dir = git(root, &["rev-parse", "--git-common-dir"]).map_or_else(|| git_dir.clone(), absolute);
    let mut paths = vec![git_dir.join("HEAD"), git_dir.join("index")];
    // `HEAD` itself when detached; otherwise e.g. `refs/heads/main`.
    if let Some(branch) = git(root, &["rev-parse", "--symbolic-full-name", "HEAD"]).filter(|r| r.starts_with("refs/")) {
        let loose = common_dir.join(&branch);
        paths.push(if loose.is_file() { loose } else { common_dir.join("packed-refs") });
    }
    for source in ["Cargo.toml", "Cargo.lock", "crates", "samples", "glsl", "xtask"] {
        let path = root.join(source);
        if path.exists() {
            paths.push(path);
        }
    }
    paths
}

/// The trimmed stdout of `git ARGS` run in `dir`, if git ran and succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}
