//! Sharded runs: `--shard K/N` and `ramp fleet merge` give the unsharded
//! run's bytes (for a plain run and for a sensitivity study), a shard
//! resumes, and the merges that must be refused are (foreign, missing,
//! duplicate or truncated shards, records of the wrong connections, an
//! output that is an input).

use std::path::{Path, PathBuf};

use super::{files, fleet, fleet_loud, fleet_seed, merge, ok, shards, tmp};
use crate::common::ramp;

#[test]
fn sharded_runs_merge_into_the_unsharded_run_byte_for_byte() {
    let full = tmp("unsharded");
    ok(&fleet(&full, &[]));
    let want = files(&full);
    for n in [1u64, 3, 8, 30] {
        let mut dirs = shards(&format!("n{n}"), n, &[]);
        // Any order on the command line.
        dirs.reverse();
        let out = tmp(&format!("merged{n}"));
        ok(&merge(&dirs, &out));
        assert!(files(&out) == want, "{n} shards: merged run differs");
    }
}

#[test]
fn a_shard_resumes_after_a_kill() {
    let d = shards("resume", 3, &[]).remove(1);
    let want = std::fs::read(d.join("records.ndjson")).unwrap();
    let cut = tmp("resume-cut");
    std::fs::create_dir_all(&cut).unwrap();
    for f in ["fleet.params", "fleet.plan.json"] {
        std::fs::copy(d.join(f), cut.join(f)).unwrap();
    }
    std::fs::write(cut.join("records.ndjson"), &want[..want.len() / 2]).unwrap();
    ok(&fleet(&cut, &["--shard", "1/3", "--resume"]));
    assert!(std::fs::read(cut.join("records.ndjson")).unwrap() == want);
    // Resuming as another shard is refused.
    let o = fleet(&cut, &["--shard", "2/3", "--resume"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("shard"));
}

#[test]
fn a_fresh_shard_names_its_range_and_a_resumed_one_where_it_picks_up() {
    // A fresh shard used to say "resuming at connection 8".
    let d = tmp("shard-note");
    let o = fleet_loud(&d, &["--shard", "1/3"]);
    ok(&o);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("shard 1/3: connections 8..16"), "{e}");
    assert!(!e.contains("resuming"), "{e}");
    let records = d.join("records.ndjson");
    let want = std::fs::read(&records).unwrap();
    let cut = want.iter().filter(|&&b| b == b'\n').take(4 * 3).count();
    let at = want
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(cut - 1)
        .unwrap()
        .0;
    std::fs::write(&records, &want[..=at]).unwrap();
    let o = fleet_loud(&d, &["--shard", "1/3", "--resume"]);
    ok(&o);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("shard 1/3: connections 8..16, resuming at connection 11"),
        "{e}"
    );
    assert!(std::fs::read(&records).unwrap() == want);
    // A shard's records are read by nothing else before the merge: its
    // resume checks each line's connection before simulating.
    let text = String::from_utf8(want).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[5] = "{\"conn\": 9, broken";
    std::fs::write(&records, lines.join("\n") + "\n").unwrap();
    let o = fleet(&d, &["--shard", "1/3", "--resume"]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("line 6 is not a record"), "{e}");
    lines[5] = lines[9];
    std::fs::write(&records, lines.join("\n") + "\n").unwrap();
    let e =
        String::from_utf8_lossy(&fleet(&d, &["--shard", "1/3", "--resume"]).stderr).into_owned();
    assert!(
        e.contains("line 6 is connection 10, but connection 9"),
        "{e}"
    );
}

#[test]
fn merge_refuses_foreign_missing_duplicate_and_truncated_shards() {
    let dirs = shards("refuse", 3, &[]);
    let err = |dirs: &[PathBuf], name: &str| -> String {
        let o = merge(dirs, &tmp(name));
        assert!(!o.status.success(), "{name}: merge succeeded");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // A shard of another seed.
    let other = tmp("refuse-other-seed");
    ok(&fleet_seed(&other, "6", &["--shard", "2/3"]));
    let e = err(&[dirs[0].clone(), dirs[1].clone(), other], "m-seed");
    assert!(e.contains("different runs") && e.contains("seed"), "{e}");
    let e = err(&dirs[..2], "m-missing");
    assert!(e.contains("missing"), "{e}");
    let e = err(
        &[
            dirs[0].clone(),
            dirs[1].clone(),
            dirs[1].clone(),
            dirs[2].clone(),
        ],
        "m-dup",
    );
    assert!(e.contains("twice"), "{e}");
    // A truncated records file.
    let r = dirs[2].join("records.ndjson");
    let bytes = std::fs::read(&r).unwrap();
    std::fs::write(&r, &bytes[..bytes.len() - 10]).unwrap();
    let e = err(&dirs, "m-trunc");
    assert!(e.contains("truncated"), "{e}");
    // A truncated manifest.
    std::fs::write(&r, &bytes).unwrap();
    let m = dirs[1].join("shard.json");
    let text = std::fs::read_to_string(&m).unwrap();
    std::fs::write(&m, &text[..text.len() / 2]).unwrap();
    let e = err(&dirs, "m-manifest");
    assert!(e.contains("shard manifest"), "{e}");
}

/// Rewrites `dir`'s manifest so that it matches the records now there
/// (what a tamperer, or a buggy driver, would do).
fn reseal(dir: &Path) {
    let r = std::fs::read(dir.join("records.ndjson")).unwrap();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in &r {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let m = dir.join("shard.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
    v["records_bytes"] = r.len().into();
    v["records_lines"] = r.iter().filter(|&&b| b == b'\n').count().into();
    v["records_fnv1a64"] = format!("{h:016x}").into();
    std::fs::write(&m, v.to_string()).unwrap();
}

#[test]
fn merge_checks_each_record_is_its_shards_connection_and_a_failure_blocks_no_retry() {
    let dirs = shards("conncheck", 2, &[]);
    let good1 = std::fs::read(dirs[1].join("records.ndjson")).unwrap();
    // Shard 0's records copied into shard 1, the manifest rewritten to match.
    std::fs::copy(
        dirs[0].join("records.ndjson"),
        dirs[1].join("records.ndjson"),
    )
    .unwrap();
    reseal(&dirs[1]);
    let out = tmp("conncheck-out");
    let o = merge(&dirs, &out);
    assert!(!o.status.success(), "merge of copied records succeeded");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("records.ndjson:1: connection 0") && e.contains("must hold connection 12"),
        "{e}"
    );
    assert!(!out.join("records.ndjson").exists());
    // The shard run again, the same merge into the same directory works.
    std::fs::write(dirs[1].join("records.ndjson"), &good1).unwrap();
    reseal(&dirs[1]);
    ok(&merge(&dirs, &out));
    assert_eq!(
        std::fs::read(out.join("records.ndjson")).unwrap().len(),
        std::fs::read(dirs[0].join("records.ndjson")).unwrap().len() + good1.len()
    );
}

#[test]
fn the_manifest_lists_its_files_and_describe_says_what_a_driver_needs() {
    let d = shards("files", 2, &[]).remove(0);
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("shard.json")).unwrap()).unwrap();
    let files: Vec<&str> = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(files, ["records.ndjson", "fleet.params", "fleet.plan.json"]);
    for f in files {
        assert!(d.join(f).is_file(), "{f}");
    }
    // Short flags glued to their values, and a later flag overriding an
    // earlier one, as a driver appends its own.
    let o = ramp()
        .args([
            "fleet",
            "-n",
            "24",
            "-j2",
            "-oX",
            "--describe",
            "-o",
            "Y",
            "--no-charts",
        ])
        .output()
        .unwrap();
    ok(&o);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["out"], "Y");
    assert_eq!(v["threads"], 2);
    assert_eq!(v["no_charts"], true);
    assert_eq!(v["connections"], 24);
    assert!(!Path::new("Y").exists() && !Path::new("X").exists());
}

#[test]
fn merge_refuses_an_output_that_is_one_of_its_shards() {
    let dirs = shards("selfout", 2, &[]);
    let o = merge(&dirs, &dirs[1]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("that is an input"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_sensitivity_study_is_the_same_bytes_at_any_shard_and_thread_count() {
    // 1 base + 2 x 13 one-at-a-time + 4 Latin-hypercube points, 24
    // connections each.
    let study = ["--sensitivity", "4", "-j", "2"];
    let full = tmp("study");
    let o = fleet(&full, &study);
    ok(&o);
    let want = files(&full);
    let points = std::fs::read_to_string(full.join("points.ndjson")).unwrap();
    assert_eq!(points.lines().count(), 31);
    assert!(points.starts_with("{\"conn\":0,"), "{points}");
    assert!(points.contains("\"point\":\"high:paths.fixed_aqm_share\""));
    // Every reading of every slice, after the earlier keys.
    let first = points.lines().next().unwrap();
    let at = |k: &str| first.find(k).unwrap_or_else(|| panic!("{k}: {first}"));
    assert!(at("\"loss_order_margin_pct\"") < at("\"global_readings\""));
    assert!(at("\"global_readings\"") < at("\"pop_readings\""));
    assert!(at("\"pop_readings\"") < at("\"bin_readings\""));
    assert!(first.contains("\"median_pct\""), "{first}");
    let md = std::fs::read_to_string(full.join("sensitivity.md")).unwrap();
    for want in [
        "## Declared assumptions",
        "## One at a time",
        "## 90 % intervals over the Latin hypercube (4 points)",
        "| global |",
        "## Published figures",
        "| figure | published | ten-point average | p1–p99 average | change of the mean | change of the median |",
        "| bin:trend | 4.30 |",
        "| loss:baseline | 1.52 |",
        "## What explains the global gain's variance",
        "| parameter | ten-point average | p1–p99 average | change of the mean | change of the median |",
        "| base point |",
        "| R² |",
    ] {
        assert!(md.contains(want), "{want}: {md}");
    }
    // The tornado and the variance shares under every reading, after the
    // earlier analysis keys.
    assert_eq!(md.matches("### Under every reading").count(), 2, "{md}");
    let json = std::fs::read_to_string(full.join("sensitivity.json")).unwrap();
    let at = |k: &str| json.find(k).unwrap_or_else(|| panic!("{k}: {json}"));
    assert!(at("\"loss_order_held\"") < at("\"by_reading\""));
    for r in ["\"ten-point\"", "\"p1-99\"", "\"mean\"", "\"median\""] {
        assert!(json.contains(&format!("\"reading\": {r}")), "{r}: {json}");
    }
    // One thread: the same bytes.
    let one = tmp("study-j1");
    ok(&fleet(&one, &["--sensitivity", "4", "-j", "1"]));
    assert!(files(&one) == want, "thread count changed the study");
    // Sharded by point, any shard count, merged: the same bytes.
    for n in [2u64, 4] {
        let dirs = shards(&format!("study{n}"), n, &study);
        let out = tmp(&format!("study-merged{n}"));
        ok(&merge(&dirs, &out));
        assert!(files(&out) == want, "{n} shards: merged study differs");
    }
    // Resuming a study is refused with a reason.
    let o = fleet(&tmp("study-resume"), &["--sensitivity", "4", "--resume"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not resume"));
}

#[test]
fn a_study_draws_a_tornado_chart_per_reading() {
    let out = tmp("study-charts");
    let o = ramp()
        .args([
            "fleet",
            "--preset",
            "rapid-start-2026",
            "-n",
            "4",
            "--seed",
            "5",
            "-q",
        ])
        .args(["--sensitivity", "2", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    ok(&o);
    for f in [
        "tornado.png",
        "tornado-p1-99.png",
        "tornado-mean.png",
        "tornado-median.png",
    ] {
        let bytes = std::fs::read(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(bytes.starts_with(b"\x89PNG"), "{f}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
