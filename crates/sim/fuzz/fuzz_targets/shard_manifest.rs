//! Fuzzes what `ramp fleet merge` reads of shard directories a user hands
//! it: the `shard.json` manifests, each shard's `fleet.params`, and the
//! check that the set is one run's complete shards. The merge lives in the
//! `ramp` binary, so this target compiles that file as a module. The input
//! is up to four shards separated by `\0`, each a manifest and its params
//! text separated by `\x01`; the first byte picks the run's connection
//! and arm counts. Checked: never a panic or a hang (a manifest may claim
//! any numbers); a set that passes holds every connection exactly once,
//! in order, with the lines the arms need.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;

#[allow(dead_code, unreachable_pub)]
#[path = "../../../cli/src/cmd/fleet/shard.rs"]
mod shard;

fuzz_target!(|data: &[u8]| {
    let [sizes, rest @ ..] = data else { return };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let spec = shard::MergeSpec {
        connections: [0, 1, 7, 100, 1 << 40][usize::from(sizes & 7) % 5],
        arms: u64::from(sizes >> 3 & 3),
        records_name: "records.ndjson",
        params_name: "fleet.params",
    };
    let mut shards = Vec::new();
    for (i, piece) in text.split('\0').take(4).enumerate() {
        let (manifest, params) = piece.split_once('\x01').unwrap_or((piece, ""));
        let Ok(m) = shard::parse_manifest(manifest) else {
            return;
        };
        let Ok(params) = shard::params_of(&m, params) else {
            return;
        };
        shards.push(shard::Checked {
            dir: PathBuf::from(format!("s{i}")),
            manifest: m,
            params,
        });
    }
    if shard::check_shard_set(&mut shards, &spec, |a, b| format!("{a} / {b}")).is_ok() {
        let mut next = 0;
        for s in &shards {
            let m = &s.manifest;
            assert_eq!(m.first_connection, next, "a gap or an overlap");
            next = m.end_connection;
            assert_eq!(
                m.records_lines,
                (m.end_connection - m.first_connection).saturating_mul(spec.arms.max(1))
            );
        }
        assert_eq!(next, spec.connections, "connections missing at the end");
    }
});
