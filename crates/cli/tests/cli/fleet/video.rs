//! A share of objects are video segments sized by the path's rate
//! (`[workload] video_share`): a run with segments is the same bytes at
//! any thread and shard count, every arm of a connection fetches the same
//! object, and the share is in `fleet.params`.

use super::{population_same_bytes_at_any_thread_and_shard_count, tmp};

const POPULATION: &str = "[workload]\nvideo_share = 0.5\n[[region]]\nname = \"west-europe\"\n\
                          [[region]]\nname = \"africa\"\n";

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
    let full = population_same_bytes_at_any_thread_and_shard_count(&file, 40, &dir);
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
    let _ = std::fs::remove_dir_all(&dir);
}
