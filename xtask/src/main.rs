//! `cargo xtask`: project automation, std only so that it builds in seconds.
//!
//! `cargo xtask` is an alias (see `.cargo/config.toml`) for `cargo run --package xtask --`.
//!
//! * `cargo xtask run [NN|NN_name|all] [-- ARGS...]`: check prerequisites, build every sample
//!   (`--release`), run the selected samples (default: all) with ARGS, print a result table.
//! * `cargo xtask test [--quick]`: prerequisites, `cargo fmt --check`, docs include check,
//!   clippy, unit tests, then every sample with `--validate` (skipped with `--quick`).
//!   Stops at the first failing step.
//! * `cargo xtask docs`: docs include check, then `mdbook build docs` if mdbook is installed.
//! * `cargo xtask prereqs` (not in the help): only the prerequisites check.
//!
//! Everything except xtask is built with `--release` only: shaderc builds its C++ library from
//! source once per cargo profile, which takes a long time.
//! Sample exit codes: 0 PASS, 1 FAIL, 2 ERROR, 77 SKIP; anything else (signal, panic) is a CRASH.
//! xtask itself exits 0 on success, 1 when a step or sample fails, 2 on bad usage or a missing
//! prerequisite.

mod docs_check;
mod prereqs;
mod samples;

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  run [NN|NN_name|all] [-- ARGS...]   build and run samples (default: all), ARGS go to each sample
  test [--quick]                      fmt, docs, clippy, unit tests, samples with --validate
                                      (--quick skips the samples)
  docs                                check docs includes, build the book with mdbook
";

/// What ends xtask unsuccessfully: a message (printed to stderr) and the exit code.
#[derive(Debug)]
pub struct Error {
    pub code: u8,
    pub msg: String,
}

impl Error {
    /// A step or a sample failed: exit code 1.
    pub fn failed(msg: impl Into<String>) -> Self {
        Error { code: 1, msg: msg.into() }
    }

    /// Bad usage or a missing prerequisite: exit code 2.
    pub fn usage(msg: impl Into<String>) -> Self {
        Error { code: 2, msg: msg.into() }
    }
}

pub type Result<T = ()> = std::result::Result<T, Error>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {}", e.msg);
            ExitCode::from(e.code)
        }
    }
}

fn dispatch(args: &[String]) -> Result {
    let root = project_root();
    let Some((command, rest)) = args.split_first() else {
        return Err(Error::usage(format!("missing command\n\n{USAGE}")));
    };
    match command.as_str() {
        "run" => samples::run(&root, rest),
        "test" => test(&root, rest),
        "docs" => no_args(rest).and_then(|()| docs(&root)),
        "prereqs" => no_args(rest).and_then(|()| prereqs::ensure()),
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(Error::usage(format!("unknown command `{other}`\n\n{USAGE}"))),
    }
}

fn no_args(args: &[String]) -> Result {
    match args {
        [] => Ok(()),
        _ => Err(Error::usage(format!("unexpected arguments: {}", args.join(" ")))),
    }
}

/// The workspace root: the parent of xtask's own manifest directory.
pub fn project_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// Prints a step header: `==> what`.
pub fn step(what: &str) {
    println!("==> {what}");
}

/// Announces and runs `cargo ARGS` in the project root (cargo from `$CARGO`, else `cargo`).
pub fn cargo_step(root: &Path, args: &[&str]) -> Result {
    let what = format!("cargo {}", args.join(" "));
    step(&what);
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run_checked(Command::new(cargo).current_dir(root).args(args), &what)
}

/// Runs `cmd` (described as `what` in errors), failing unless it exits successfully.
pub fn run_checked(cmd: &mut Command, what: &str) -> Result {
    match cmd.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(Error::failed(format!("`{what}` failed ({status})"))),
        Err(e) => Err(Error::failed(format!("cannot run `{what}`: {e}"))),
    }
}

fn test(root: &Path, args: &[String]) -> Result {
    let quick = match args {
        [] => false,
        [flag] if flag == "--quick" => true,
        _ => return Err(Error::usage(format!("test: unexpected arguments: {}", args.join(" ")))),
    };
    step("prerequisites");
    prereqs::ensure()?;
    cargo_step(root, &["fmt", "--all", "--", "--check"])?;
    step("docs include check");
    docs_check::run(root)?;
    cargo_step(root, &["clippy", "--release", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    cargo_step(root, &["test", "--release", "--workspace", "--exclude", "xtask"])?;
    cargo_step(root, &["test", "--package", "xtask"])?;
    if quick {
        step("samples with --validate: skipped (--quick)");
    } else {
        step("samples with --validate");
        samples::validate_all(root)?;
    }
    println!("test: all steps passed");
    Ok(())
}

fn docs(root: &Path) -> Result {
    step("docs include check");
    docs_check::run(root)?;
    if prereqs::find_on_path("mdbook").is_none() {
        println!("mdbook is not installed, so the book was not built; install it with `cargo install mdbook`");
        return Ok(());
    }
    step("mdbook build docs");
    run_checked(Command::new("mdbook").current_dir(root).args(["build", "docs"]), "mdbook build docs")
}
