//! Docs include check: every mdBook `{{#include PATH}}`, `{{#include PATH:ANCHOR}}` or
//! `{{#rustdoc_include ...}}` in `docs/src/**/*.md` must name an existing file (relative to the
//! .md file), and an ANCHOR must be defined in it by lines containing `ANCHOR: NAME` and
//! `ANCHOR_END: NAME`. Line ranges (`PATH:10:20`) are rejected: they silently rot when code moves.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Runs the check on `<root>/docs/src`, printing each problem.
pub fn run(root: &Path) -> Result {
    let mut report = check(root)?;
    report.problems.extend(crate::figures_check::check(root)?);
    for problem in &report.problems {
        eprintln!("{problem}");
    }
    if report.problems.is_empty() {
        println!("docs includes: ok ({} files, {} includes)", report.files, report.includes);
        Ok(())
    } else {
        Err(Error::failed(format!("docs include check: {} problem(s)", report.problems.len())))
    }
}

#[derive(Debug, Default)]
pub struct Report {
    pub files: usize,
    pub includes: usize,
    /// `docs/src/x.md:LINE: include of PATH: what is wrong`
    pub problems: Vec<String>,
}

pub fn check(root: &Path) -> Result<Report> {
    let src = root.join("docs").join("src");
    let mut mds = Vec::new();
    if src.is_dir() {
        collect_md(&src, &mut mds)?;
    }
    mds.sort();
    let mut report = Report { files: mds.len(), ..Report::default() };
    for md in &mds {
        let text = fs::read_to_string(md).map_err(|e| Error::failed(format!("cannot read {}: {e}", md.display())))?;
        let shown = md.strip_prefix(root).unwrap_or(md).display().to_string();
        let dir = md.parent().unwrap_or(root);
        for (index, line) in text.lines().enumerate() {
            for arg in directives(line) {
                report.includes += 1;
                if let Err(why) = check_include(dir, arg) {
                    let line_no = index + 1;
                    report.problems.push(format!("{shown}:{line_no}: include of {arg}: {why}"));
                }
            }
        }
    }
    Ok(report)
}

fn collect_md(dir: &Path, out: &mut Vec<PathBuf>) -> Result {
    let entries = fs::read_dir(dir).map_err(|e| Error::failed(format!("cannot list {}: {e}", dir.display())))?;
    for entry in entries {
        let path = entry.map_err(|e| Error::failed(format!("cannot list {}: {e}", dir.display())))?.path();
        if path.is_dir() {
            collect_md(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "md") {
            out.push(path);
        }
    }
    Ok(())
}

/// The arguments of the include directives on one line (`\{{#include ..}}` is escaped, skipped).
fn directives(line: &str) -> Vec<&str> {
    let mut args = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find("{{#") {
        let escaped = rest[..start].ends_with('\\');
        let after = &rest[start + 3..];
        let Some(end) = after.find("}}") else { break };
        rest = &after[end + 2..];
        if let Some((kind, arg)) = after[..end].split_once(char::is_whitespace) {
            if !escaped && (kind == "include" || kind == "rustdoc_include") {
                args.push(arg.trim());
            }
        }
    }
    args
}

/// Checks one include argument `PATH[:ANCHOR]`, `dir` being the .md file's directory.
fn check_include(dir: &Path, arg: &str) -> std::result::Result<(), String> {
    let (path, anchor) = arg.split_once(':').unwrap_or((arg, ""));
    if !anchor.is_empty() && anchor.chars().all(|c| c.is_ascii_digit() || c == ':') {
        return Err("use ANCHOR names, not line ranges".to_string());
    }
    let file = dir.join(path);
    if !file.is_file() {
        return Err("file missing".to_string());
    }
    if anchor.is_empty() {
        return Ok(());
    }
    let bytes = fs::read(&file).map_err(|e| format!("cannot read: {e}"))?;
    let text = String::from_utf8_lossy(&bytes);
    let Some(region) = anchored_region(&text, anchor) else {
        return Err(format!("anchor {anchor} not found"));
    };
    // Half an item is a risk of code; a markdown fragment's prose may hold `[0, 1)`.
    let is_markdown = file.extension().is_some_and(|ext| ext == "md");
    if !is_markdown && !balanced(&region) {
        return Err(format!("anchor {anchor} does not hold complete items (unbalanced braces or parentheses)"));
    }
    Ok(())
}

/// The lines between the `ANCHOR: name` line and the `ANCHOR_END: name` line after it.
fn anchored_region(text: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|line| has_marker(line, "ANCHOR:", name))?;
    let end = start + lines[start..].iter().position(|line| has_marker(line, "ANCHOR_END:", name))?;
    Some(lines[start + 1..end].join("\n"))
}

/// Whether every `{` and `(` of `code` closes inside it, and nothing closes that opened before:
/// an anchor that ends inside an open `impl` or function shows the reader half an item.
/// Line comments (`//`) are left out.
fn balanced(code: &str) -> bool {
    let mut depth = [0i64; 2];
    for line in code.lines() {
        let code = line.split("//").next().unwrap_or("");
        for c in code.chars() {
            let (slot, step) = match c {
                '{' => (0, 1),
                '}' => (0, -1),
                '(' => (1, 1),
                ')' => (1, -1),
                _ => continue,
            };
            depth[slot] += step;
            if depth[slot] < 0 {
                return false;
            }
        }
    }
    depth == [0, 0]
}

/// Whether a line contains `marker` followed by the whole word `name` (e.g. `// ANCHOR: name`).
fn has_marker(text: &str, marker: &str, name: &str) -> bool {
    text.lines().any(|line| {
        line.match_indices(marker).any(|(at, _)| {
            let after = line[at + marker.len()..].trim_start();
            let mut words = after.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'));
            words.next() == Some(name)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch project root under the system temp dir, removed on drop.
    struct TempRoot(PathBuf);

    impl TempRoot {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            TempRoot(dir)
        }

        fn write(&self, rel: &str, text: &str) {
            let path = self.0.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }

        fn problems(&self) -> Vec<String> {
            check(&self.0).unwrap().problems
        }
    }

    impl Drop for TempRoot {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const CODE: &str =
        "fn main() {\n    // ANCHOR: dispatch\n    go();\n    // ANCHOR_END: dispatch\n    // ANCHOR: half_open\n}\n";

    #[test]
    fn good_includes_pass() {
        let root = TempRoot::new("good");
        root.write("samples/a/src/main.rs", CODE);
        root.write(
            "docs/src/ch/a.md",
            "# A\n{{#include ../../../samples/a/src/main.rs}}\n\
             ```rust\n{{#rustdoc_include ../../../samples/a/src/main.rs:dispatch}}\n```\n\
             not a directive: \\{{#include missing.rs}}\n",
        );
        let report = check(&root.0).unwrap();
        assert_eq!(report.problems, Vec::<String>::new());
        assert_eq!((report.files, report.includes), (1, 2));
    }

    #[test]
    fn missing_file_and_anchor_are_reported() {
        let root = TempRoot::new("bad");
        root.write("code.rs", CODE);
        root.write(
            "docs/src/x.md",
            "{{#include ../../nope.rs}}\n\n{{#include ../../code.rs:other}} {{#include ../../code.rs:half_open}}\n",
        );
        assert_eq!(
            root.problems(),
            [
                "docs/src/x.md:1: include of ../../nope.rs: file missing",
                "docs/src/x.md:3: include of ../../code.rs:other: anchor other not found",
                "docs/src/x.md:3: include of ../../code.rs:half_open: anchor half_open not found",
            ]
        );
    }

    #[test]
    fn anchors_match_whole_words_only() {
        let root = TempRoot::new("words");
        root.write("code.rs", "// ANCHOR: dispatch_all\n// ANCHOR_END: dispatch_all\n");
        root.write("docs/src/x.md", "{{#include ../../code.rs:dispatch}}\n{{#include ../../code.rs:dispatch_all}}\n");
        assert_eq!(root.problems(), ["docs/src/x.md:1: include of ../../code.rs:dispatch: anchor dispatch not found"]);
    }

    #[test]
    fn an_anchor_that_ends_inside_an_item_is_reported() {
        assert!(balanced("fn a() {\n    b(c);\n}"));
        assert!(!balanced("impl X {\n    fn a() {}\n"));
        assert!(!balanced("    }\n}\nfn b() {"));
        assert!(balanced("// a comment with {\nfn a() {}"));
    }

    #[test]
    fn line_ranges_are_rejected() {
        let root = TempRoot::new("ranges");
        root.write("code.rs", CODE);
        root.write(
            "docs/src/x.md",
            "{{#include ../../code.rs:2:4}}\n{{#include ../../code.rs:3}}\n{{#include ../../code.rs::4}}\n",
        );
        let problems = root.problems();
        assert_eq!(problems.len(), 3);
        assert!(problems.iter().all(|p| p.ends_with(": use ANCHOR names, not line ranges")));
        assert!(problems[0].starts_with("docs/src/x.md:1: include of ../../code.rs:2:4:"));
    }

    #[test]
    fn no_docs_dir_is_fine() {
        let root = TempRoot::new("empty");
        let report = check(&root.0).unwrap();
        assert_eq!((report.files, report.includes, report.problems.len()), (0, 0, 0));
    }
}
