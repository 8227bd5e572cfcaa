//! The servers' per-connection draw of whether their CC respects the
//! app-limited state (`[endpoint] respect_app_limited_share`): a run whose
//! connections draw both ways is the same bytes at any thread and shard
//! count, and every arm of a connection runs the same draw.

use super::{population_same_bytes_at_any_thread_and_shard_count, tmp};

const POPULATION: &str = "[[region]]\nname = \"west-europe\"\n[[region]]\nname = \"africa\"\n\
                          [endpoint]\nrespect_app_limited_share = 0.5\n";

#[test]
fn a_mixed_share_is_the_same_bytes_at_any_thread_and_shard_count() {
    let dir = tmp("app-limited");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("half.toml");
    std::fs::write(&file, POPULATION).unwrap();
    let full = population_same_bytes_at_any_thread_and_shard_count(&file, 24, &dir);
    let params = std::fs::read_to_string(full.join("fleet.params")).unwrap();
    assert!(
        params.contains("\nendpoint.respect_app_limited_share = 0.5\n"),
        "{params}"
    );
    // Both draws occur, and the four arms of a connection share theirs.
    let records = std::fs::read_to_string(full.join("records.ndjson")).unwrap();
    let rules: Vec<&str> = records
        .lines()
        .map(|l| {
            if l.contains("cc_limited=always") {
                "always"
            } else {
                assert!(l.contains("cc_limited=quicly"), "{l}");
                "quicly"
            }
        })
        .collect();
    assert_eq!(rules.len(), 24 * 4);
    for conn in rules.chunks(4) {
        assert!(conn.iter().all(|r| *r == conn[0]), "{conn:?}");
    }
    assert!(rules.contains(&"always") && rules.contains(&"quicly"));
    let _ = std::fs::remove_dir_all(&dir);
}
