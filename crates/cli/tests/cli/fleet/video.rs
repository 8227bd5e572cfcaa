//! A share of objects are video segments sized by the path's rate
//! (`[workload] video_share`): a run with segments is the same bytes at
//! any thread and shard count, every arm of a connection fetches the same
//! object, and the share is in `fleet.params`.

use std::path::{Path, PathBuf};

use super::{files, merge, ok, output, tmp};
use crate::common::ramp;

const POPULATION: &str = "[workload]\nvideo_share = 0.5\n[[region]]\nname = \"west-europe\"\n\
                          [[region]]\nname = \"africa\"\n";

/// `ramp fleet --population FILE -n 40 --seed 5 -q --no-charts -o OUT` + `extra`.
fn run(file: &Path, out: &Path, extra: &[&str]) {
    ok(&output(
        ramp()
            .args(["fleet", "--population"])
            .arg(file)
            .args(["-n", "40", "--seed", "5", "-q", "--no-charts", "-o"])
            .arg(out)
            .args(extra),
    ));
}

/// The record's `content_length`.
fn size(line: &str) -> u64 {
    let k = "\"content_length\":";
    let at = line.find(k).expect("content_length") + k.len();
    let rest = &line[at..];
    rest[..rest.find(',').expect("a key after it")]
        .parse()
        .expect("a size")
}

#[test]
fn segments_are_the_same_bytes_at_any_thread_and_shard_count() {
    let dir = tmp("video");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("half.toml");
    std::fs::write(&file, POPULATION).unwrap();
    let full = dir.join("j2");
    run(&file, &full, &["-j", "2"]);
    let want = files(&full);
    let params = std::fs::read_to_string(full.join("fleet.params")).unwrap();
    assert!(
        params.contains("\nworkload.video_share = 0.5\n"),
        "{params}"
    );
    // Some objects are segments (a rung of Apple's ladder x 6 s), and the
    // four arms of a connection fetch the same object.
    let records = std::fs::read_to_string(full.join("records.ndjson")).unwrap();
    let sizes: Vec<u64> = records.lines().map(size).collect();
    assert_eq!(sizes.len(), 40 * 4);
    for conn in sizes.chunks(4) {
        assert!(conn.iter().all(|s| *s == conn[0]), "{conn:?}");
    }
    let segment = |s: &u64| {
        ramp_sim::fleet::video::LADDER_KBPS
            .iter()
            .any(|r| r * 1000 * ramp_sim::fleet::video::SEGMENT_SECONDS / 8 == *s)
    };
    assert!(sizes.iter().any(segment), "{sizes:?}");
    assert!(!sizes.iter().all(segment), "{sizes:?}");
    let one = dir.join("j1");
    run(&file, &one, &["-j", "1"]);
    assert!(files(&one) == want, "thread count changed the run");
    let dirs: Vec<PathBuf> = (0..3)
        .map(|k| {
            let d = dir.join(format!("shard{k}"));
            run(&file, &d, &["--shard", &format!("{k}/3")]);
            d
        })
        .collect();
    let merged = dir.join("merged");
    ok(&merge(&dirs, &merged));
    assert!(files(&merged) == want, "3 shards: merged run differs");
    let _ = std::fs::remove_dir_all(&dir);
}
