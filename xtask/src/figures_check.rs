//! Figures typed by hand, and dead links. A record's figures reach the book only through the
//! fragments `cargo xtask report` generates, so the prose of the book's pages (`docs/src/*.md`,
//! not the generated `docs/src/results/`) and of README.md must not carry a number with a unit
//! of measurement: µs, us, ns, ms, GB/s, TB/s, TFLOP/s, TOP/s, "% of copy" or "% of the copy".
//! Left out: fenced code, include lines, HTML comments, and the sections headed "How we got
//! here" and "Lessons", whose figures are history rather than the current record. Figures that
//! come from no record (a datasheet's, an article's) are listed, one exact phrase a line, in
//! `docs/figures-allowed.txt`.
//!
//! Every relative link `](path)` in the book's pages must name an existing file.

use std::fs;
use std::path::Path;

use crate::{Error, Result};

/// The units a measured figure is written in.
const UNITS: &[&str] = &["µs", "us", "ns", "ms", "GB/s", "TB/s", "TFLOP/s", "TOP/s", "% of copy", "% of the copy"];
/// Sections whose figures are history.
const HISTORY: &[&str] = &["How we got here", "Lessons"];
const ALLOWED: &str = "docs/figures-allowed.txt";

/// Each problem as `FILE:LINE: what`.
pub fn check(root: &Path) -> Result<Vec<String>> {
    let allowed = fs::read_to_string(root.join(ALLOWED)).unwrap_or_default();
    let allowed: Vec<&str> = allowed.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let src = root.join("docs").join("src");
    let mut pages: Vec<_> = match fs::read_dir(&src) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect(),
        Err(_) => Vec::new(),
    };
    pages.sort();
    pages.push(root.join("README.md"));
    let mut problems = Vec::new();
    for page in pages.iter().filter(|p| p.is_file()) {
        let text =
            fs::read_to_string(page).map_err(|e| Error::failed(format!("cannot read {}: {e}", page.display())))?;
        let shown = page.strip_prefix(root).unwrap_or(page).display().to_string();
        for (line_no, figure) in typed_figures(&text, &allowed) {
            problems.push(format!("{shown}:{line_no}: `{figure}` typed by hand: include it from a generated fragment"));
        }
        let dir = page.parent().unwrap_or(root);
        for (line_no, target) in links(&text) {
            let path = target.split('#').next().unwrap_or("");
            if !path.is_empty() && !dir.join(path).exists() {
                problems.push(format!("{shown}:{line_no}: link to {target}: no such file"));
            }
        }
    }
    Ok(problems)
}

/// (line number, the figure) for each number-with-unit in `text`'s prose.
fn typed_figures(text: &str, allowed: &[&str]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fenced = false;
    let mut history_level: Option<usize> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if let Some(level) = heading_level(trimmed) {
            let title = trimmed[level..].trim();
            history_level = match history_level {
                Some(open) if level > open => Some(open),
                _ => HISTORY.iter().any(|h| title.starts_with(h)).then_some(level),
            };
            if history_level.is_some() {
                continue;
            }
        }
        if history_level.is_some() || trimmed.starts_with("<!--") || trimmed.contains("{{#") {
            continue;
        }
        let mut prose = line.to_string();
        for phrase in allowed {
            prose = prose.replace(phrase, "");
        }
        found.extend(figures_in(&prose).into_iter().map(|f| (index + 1, f)));
    }
    found
}

fn heading_level(line: &str) -> Option<usize> {
    let level = line.chars().take_while(|c| *c == '#').count();
    (level > 0 && line[level..].starts_with(' ')).then_some(level)
}

/// Each `NUMBER[ ]UNIT` in `line` (the number as written, with the unit).
fn figures_in(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for unit in UNITS {
        for (at, _) in line.match_indices(unit) {
            let after = &line[at + unit.len()..];
            if after.chars().next().is_some_and(|c| c.is_alphanumeric()) {
                continue;
            }
            let before = &line[..at];
            let before = before.strip_suffix(' ').or_else(|| before.strip_suffix('\u{a0}')).unwrap_or(before);
            let number: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',' || *c == '\u{202f}')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let starts_word =
                before[..before.len() - number.len()].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
            if number.chars().any(|c| c.is_ascii_digit()) && starts_word {
                found.push(format!("{}{}{unit}", number, &line[at - (line[..at].len() - before.len())..at]));
            }
        }
    }
    found
}

/// (line number, target) of each relative markdown link `](target)` outside fenced code.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            rest = &after[end..];
            let external = target.contains("://") || target.starts_with('#') || target.starts_with("mailto:");
            if !target.is_empty() && !external {
                found.push((index + 1, target.to_string()));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_with_units_are_found_in_prose_only() {
        let text = "# 03\n\nThe scan runs 3402.3 GB/s and 81 % of copy.\nA 1.5× gain at 12 µs.\n\
                    ```text\n100 µs in code\n```\n{{#include results/h200/03_scan.md:table}}\n\
                    ## How we got here\n- 145 µs against 45 µs\n### detail\n- 3 us\n## Pitfalls\n\
                    Plus 5us and a bus of 4 ms.\nminus 2 nsec";
        let found = typed_figures(text, &[]);
        let figures: Vec<&str> = found.iter().map(|(_, f)| f.as_str()).collect();
        assert_eq!(figures, ["3402.3 GB/s", "81 % of copy", "12 µs", "5us", "4 ms"]);
        assert_eq!(found[0].0, 3);
        assert_eq!(found[3].0, 14);
        assert!(typed_figures("HBM3 at 3.35 TB/s.", &["3.35 TB/s"]).is_empty(), "allowed phrases pass");
        assert!(typed_figures("a plain 32-lane subgroup, 2^20 elements", &[]).is_empty());
    }

    #[test]
    fn relative_links_are_listed() {
        let text = "[a](results/h200.md) [b](https://x.org) [c](#top)\n```\n[d](no.md)\n```\n![e](images/x.svg \"t\")";
        let found = links(text);
        assert_eq!(found, [(1, "results/h200.md".to_string()), (5, "images/x.svg".to_string())]);
    }
}
