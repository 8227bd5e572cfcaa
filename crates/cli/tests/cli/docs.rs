//! Tests that keep the documentation's lists from going stale silently:
//! every controller the registry knows is named where a reader looks for
//! controllers, and every page of docs/ is reachable from its index.

use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root (this crate is crates/cli).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every part name of `Registry::builtin()` appears, in backticks as it is
/// typed, in docs/algorithms.md (the controllers' reference) and README.md
/// (the first page a user reads).
#[test]
fn every_registered_controller_is_named_in_algorithms_md_and_readme() {
    let names = ramp_cc::spec::Registry::builtin().names();
    assert!(!names.is_empty());
    for page in ["docs/algorithms.md", "README.md"] {
        let text = read(page);
        let missing: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| !text.contains(&format!("`{n}`")) && !text.contains(&format!("`{n}(")))
            .collect();
        assert!(
            missing.is_empty(),
            "{page} does not name these registered controllers: {missing:?}"
        );
    }
}

/// `ramp serve --help` names every registered controller (it listed five
/// of them, without bbr3 and prague, before it was generated from the
/// registry).
#[test]
fn serve_help_names_every_registered_controller() {
    let out = crate::common::ramp()
        .args(["serve", "--help"])
        .output()
        .expect("ramp serve --help runs");
    let help = String::from_utf8_lossy(&out.stdout);
    let cc = help
        .split("--cc <CC>")
        .nth(1)
        .and_then(|rest| rest.split("\n      --").next())
        .unwrap_or_else(|| panic!("no --cc in {help}"));
    let words: Vec<&str> = cc
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .collect();
    let missing: Vec<&str> = ramp_cc::spec::Registry::builtin()
        .names()
        .into_iter()
        .filter(|n| !words.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "serve --help's --cc lacks {missing:?}: {cc}"
    );
}

/// Every fleet preset (`ramp fleet --list-presets`) has its row, in
/// backticks, in docs/experiments.md's table of presets.
#[test]
fn every_fleet_preset_is_in_experiments_md() {
    let text = read("docs/experiments.md");
    let missing: Vec<&str> = ramp_sim::fleet::experiments::PRESETS
        .iter()
        .map(|(name, _)| *name)
        .filter(|n| !text.contains(&format!("| `{n}`")) && !text.contains(&format!(", `{n}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/experiments.md's preset table lacks {missing:?}"
    );
}

/// Every markdown file under docs/ is linked from docs/README.md, the
/// index README.md points to.
#[test]
fn every_docs_page_is_linked_from_the_docs_index() {
    let index = read("docs/README.md");
    let docs = root().join("docs");
    let mut pages = Vec::new();
    collect_md(&docs, &docs, &mut pages);
    assert!(pages.len() > 10, "found only {pages:?}");
    let missing: Vec<&String> = pages
        .iter()
        .filter(|p| p.as_str() != "README.md" && !index.contains(&format!("]({p})")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/README.md does not link these pages: {missing:?}"
    );
}

/// The markdown files under `dir`, as paths relative to `base` with `/`.
fn collect_md(base: &Path, dir: &Path, out: &mut Vec<String>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_md(base, &path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            let rel = path.strip_prefix(base).unwrap();
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
}

/// A test that skips must say so where `cargo test` shows it: the harness
/// captures `eprintln!` of a passing test, so a skip printed that way is a
/// bare `ok`. Skips go through `ramp_vocab::note!` (or
/// `ramp_host::timing::loud`), which write to the process's stderr, as
/// `SKIPPED: <test>: <why>`.
#[test]
fn every_skipped_test_says_so_on_stderr_without_nocapture() {
    let mut files = Vec::new();
    collect_rs(&root().join("crates"), &mut files);
    let mut captured = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap_or_default();
        for (i, _) in text.match_indices("eprintln!(") {
            let after = text[i + "eprintln!(".len()..].trim_start();
            let lower = after.get(..9).unwrap_or(after).to_ascii_lowercase();
            if lower.starts_with("\"skip") {
                let line = text[..i].matches('\n').count() + 1;
                captured.push(format!("{}:{line}", f.display()));
            }
        }
    }
    assert!(
        captured.is_empty(),
        "skips printed with eprintln! (captured, so cargo test shows a bare `ok`); use \
         ramp_vocab::note!(\"SKIPPED: <test>: <why>\"): {captured:?}"
    );
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        // Build directories (fuzz targets' too) hold no sources of ours.
        if name == "target" {
            continue;
        }
        if p.is_dir() {
            collect_rs(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
