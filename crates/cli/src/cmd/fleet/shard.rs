//! Sharded fleet runs: `ramp fleet --shard K/N` runs one contiguous range
//! of connections, and `ramp fleet merge` joins the shards into the run
//! directory the unsharded run would have written, byte for byte.
//!
//! Why it is exact: a fleet's summary, charts and report are computed from
//! its records, read back in connection order, and every connection's
//! records depend only on (plan, connection index). Shard K of N holds
//! connections `[K·C/N, (K+1)·C/N)` (contiguous, so all arms of a connection
//! are in one shard and the paired differences stay in-shard), and the
//! merge concatenates the shards' records in shard order: the merged
//! records file is the unsharded one, and the rest follows from the same
//! code. The partial state of a shard is therefore its records themselves
//! (exact, about 1.2 KB per connection and arm; docs/distributed.md weighs
//! a compact form for 10⁷ connections), described by a manifest,
//! `shard.json`, which the merge checks.
//!
//! What a merge refuses: shards of different runs (any difference in the
//! plan's parameters, the `fleet.params` file, or in the ramp version), a
//! shard missing, given twice, or of another shard count, a records file
//! that does not match its manifest (truncated, appended to, edited), a
//! manifest whose range is not its shard's, and a record whose `conn` is
//! not the connection its line must hold (another shard's records copied in
//! with a manifest rewritten to match). The merged records are written to a
//! temporary file and renamed only when every check has passed, so a failed
//! merge leaves nothing that blocks a retry.

use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use ramp_vocab::atomic_file::write_atomic;

/// The manifest's file name in a shard directory.
pub const MANIFEST: &str = "shard.json";
/// The manifest format's name and version: bump the version when a field
/// changes meaning.
const FORMAT: &str = "ramp-fleet-shard";
const FORMAT_VERSION: u32 = 1;

/// `--shard K/N`: shard K (from 0) of N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..n`.
    pub k: u64,
    /// The shard count.
    pub n: u64,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}`: expected K/N, e.g. 0/8"))?;
        let k: u64 = k
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: K must be a whole number"))?;
        let n: u64 = n
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: N must be a whole number"))?;
        if n == 0 || k >= n {
            return Err(format!("`{s}`: need 0 <= K < N"));
        }
        Ok(Shard { k, n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl Shard {
    /// The connections of this shard among `total`: `[first, end)`.
    pub fn range(self, total: u64) -> (u64, u64) {
        let at = |k: u64| (u128::from(total) * u128::from(k) / u128::from(self.n)) as u64;
        (at(self.k), at(self.k + 1))
    }

    /// The line this shard adds to `fleet.params`, so that `--resume`
    /// continues only the same shard.
    pub fn params_line(self) -> String {
        format!("shard = {self}\n")
    }
}

/// `shard.json`.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Manifest {
    format: String,
    version: u32,
    /// The ramp version that ran the shard.
    ramp: String,
    shard: u64,
    shards: u64,
    pub(crate) first_connection: u64,
    pub(crate) end_connection: u64,
    pub(crate) records_lines: u64,
    records_bytes: u64,
    /// FNV-1a (64 bit) of the records file, hex.
    records_fnv1a64: String,
    /// The files of the shard directory that the merge reads besides this
    /// manifest, so that a driver moving shards between machines copies
    /// exactly these (ramp_lab.dist does).
    #[serde(default)]
    files: Vec<String>,
}

/// Length, line count and FNV-1a 64 of a file.
fn digest(path: &Path) -> anyhow::Result<(u64, u64, u64)> {
    let f = fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut r = BufReader::with_capacity(1 << 20, f);
    let mut buf = vec![0u8; 1 << 20];
    let (mut bytes, mut lines, mut h) = (0u64, 0u64, ramp_vocab::fnv::Fnv1a64::new());
    loop {
        let n = r
            .read(&mut buf)
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            break;
        }
        h.write(&buf[..n]);
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        bytes += n as u64;
    }
    Ok((bytes, lines, h.finish()))
}

/// Writes `dir/shard.json` for a finished shard whose records are in
/// `records`.
pub fn write_manifest(
    dir: &Path,
    records: &Path,
    shard: Shard,
    total: u64,
    files: &[&str],
) -> anyhow::Result<()> {
    let (bytes, lines, h) = digest(records)?;
    let (first, end) = shard.range(total);
    let m = Manifest {
        format: FORMAT.into(),
        version: FORMAT_VERSION,
        ramp: env!("CARGO_PKG_VERSION").into(),
        shard: shard.k,
        shards: shard.n,
        first_connection: first,
        end_connection: end,
        records_lines: lines,
        records_bytes: bytes,
        records_fnv1a64: format!("{h:016x}"),
        files: files.iter().map(|f| f.to_string()).collect(),
    };
    write_atomic(
        &dir.join(MANIFEST),
        serde_json::to_string_pretty(&m)?.as_bytes(),
    )?;
    Ok(())
}

/// One shard directory, checked.
pub(crate) struct Checked {
    pub(crate) dir: PathBuf,
    pub(crate) manifest: Manifest,
    /// `fleet.params` without the shard line: the run's parameters.
    pub(crate) params: String,
}

/// Reads a manifest's text (what a user's or another machine's file
/// holds): the format, and the numbers the merge relies on, in range
/// (a shard count of at least 1, the shard below it, a connection range
/// that does not run backwards, the records' hash as 16 hex digits).
pub(crate) fn parse_manifest(text: &str) -> Result<Manifest, String> {
    let m: Manifest =
        serde_json::from_str(text).map_err(|e| format!("not a shard manifest ({e})"))?;
    if m.format != FORMAT || m.version != FORMAT_VERSION {
        return Err(format!(
            "format {} v{}, this ramp reads {FORMAT} v{FORMAT_VERSION}",
            m.format, m.version
        ));
    }
    if m.shards == 0 || m.shard >= m.shards {
        return Err(format!(
            "shard {}/{}: need 0 <= shard < shards",
            m.shard, m.shards
        ));
    }
    if m.first_connection > m.end_connection {
        return Err(format!(
            "connections {}..{} run backwards",
            m.first_connection, m.end_connection
        ));
    }
    if m.records_fnv1a64.len() != 16 || !m.records_fnv1a64.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "records_fnv1a64 `{}` is not 16 hex digits",
            m.records_fnv1a64
        ));
    }
    Ok(m)
}

fn check(dir: &Path, records_name: &str, params_name: &str) -> anyhow::Result<Checked> {
    let mpath = dir.join(MANIFEST);
    let text = fs::read_to_string(&mpath).with_context(|| {
        format!(
            "{}: no {MANIFEST} (is this a finished `ramp fleet --shard` directory?)",
            dir.display()
        )
    })?;
    let m = parse_manifest(&text).map_err(|e| anyhow::anyhow!("{}: {e}", mpath.display()))?;
    let records = dir.join(records_name);
    let (bytes, lines, h) = digest(&records)?;
    if (bytes, lines, format!("{h:016x}"))
        != (m.records_bytes, m.records_lines, m.records_fnv1a64.clone())
    {
        bail!(
            "{}: {} bytes / {} lines, but {MANIFEST} says {} / {}{}: the records were truncated or \
             changed after the shard finished; run the shard again",
            records.display(),
            bytes,
            lines,
            m.records_bytes,
            m.records_lines,
            if bytes == m.records_bytes {
                " and the contents differ"
            } else {
                ""
            }
        );
    }
    let params = fs::read_to_string(dir.join(params_name))
        .with_context(|| format!("{}: reading {params_name}", dir.display()))?;
    let params = params_of(&m, &params)
        .map_err(|e| anyhow::anyhow!("{}: {params_name} {e}", dir.display()))?;
    Ok(Checked {
        dir: dir.to_path_buf(),
        params,
        manifest: m,
    })
}

/// A shard's `fleet.params` without its shard line: the run's parameters.
pub(crate) fn params_of(m: &Manifest, params: &str) -> Result<String, String> {
    let line = Shard {
        k: m.shard,
        n: m.shards,
    }
    .params_line();
    params
        .strip_suffix(&line)
        .map(str::to_string)
        .ok_or_else(|| format!("does not end with `{}`", line.trim()))
}

/// What the merge checks the shards against: the run's connection count
/// and arms per connection (from the plan), and the file names.
pub struct MergeSpec<'a> {
    /// Connections of the whole run.
    pub connections: u64,
    /// Records per connection.
    pub arms: u64,
    /// The records file's name in each shard directory.
    pub records_name: &'a str,
    /// The parameters file's name in each shard directory.
    pub params_name: &'a str,
}

/// Checks `dirs` as the complete set of shards of one run and writes their
/// records, concatenated in shard order, to `out_records`; returns the
/// run's parameters (`fleet.params` without the shard line). On any error
/// `out_records` is not created. Each line (with its newline) also goes
/// to `each_line` as it is copied, so that a caller that reads the merged
/// records (the summary) needs no second pass over them.
pub fn merge_records(
    dirs: &[PathBuf],
    out_records: &Path,
    spec: &MergeSpec,
    params_difference: impl Fn(&str, &str) -> String,
    each_line: &mut dyn FnMut(&[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let (records_name, params_name) = (spec.records_name, spec.params_name);
    if dirs.is_empty() {
        bail!("merge: give the shard directories");
    }
    let mut shards = dirs
        .iter()
        .map(|d| check(d, records_name, params_name))
        .collect::<anyhow::Result<Vec<_>>>()?;
    check_shard_set(&mut shards, spec, params_difference)?;
    let tmp = out_records.with_extension("ndjson.merging");
    let written = concat_checked(&shards, &tmp, spec, each_line);
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, out_records)
        .with_context(|| format!("renaming {} to {}", tmp.display(), out_records.display()))?;
    Ok(shards[0].params.clone())
}

/// Checks checked shards as the complete set of one run's shards (same
/// parameters, version and shard count; each shard once; none missing;
/// each holding its range of `spec.connections`) and sorts them into
/// shard order. Reads no file.
pub(crate) fn check_shard_set(
    shards: &mut [Checked],
    spec: &MergeSpec,
    params_difference: impl Fn(&str, &str) -> String,
) -> anyhow::Result<()> {
    let Some(first) = shards.first() else {
        bail!("merge: give the shard directories");
    };
    for s in &shards[1..] {
        if s.params != first.params {
            bail!(
                "{} and {} are shards of different runs: they differ in {}",
                first.dir.display(),
                s.dir.display(),
                params_difference(&first.params, &s.params)
            );
        }
        if s.manifest.ramp != first.manifest.ramp {
            bail!(
                "{} was run by ramp {} and {} by ramp {}: merge shards of one version",
                first.dir.display(),
                first.manifest.ramp,
                s.dir.display(),
                s.manifest.ramp
            );
        }
        if s.manifest.shards != first.manifest.shards {
            bail!(
                "{} is shard {}/{} but {} is {}/{}",
                first.dir.display(),
                first.manifest.shard,
                first.manifest.shards,
                s.dir.display(),
                s.manifest.shard,
                s.manifest.shards
            );
        }
    }
    let n = first.manifest.shards;
    shards.sort_by_key(|s| s.manifest.shard);
    if let Some(w) = shards
        .windows(2)
        .find(|w| w[0].manifest.shard == w[1].manifest.shard)
    {
        bail!(
            "merge: shard {}/{n} given twice ({} and {})",
            w[0].manifest.shard,
            w[0].dir.display(),
            w[1].dir.display()
        );
    }
    // Sorted, distinct and each below n: a shard is missing exactly when
    // there are fewer than n. Name the first few, without walking 0..n
    // (a manifest may claim 10^18 shards).
    if (shards.len() as u64) < n {
        let (mut missing, mut next) = (Vec::new(), 0u64);
        for k in shards.iter().map(|s| s.manifest.shard).chain([n]) {
            missing.extend((next..k).take(MISSING_NAMED).map(|k| format!("{k}/{n}")));
            next = k.saturating_add(1);
        }
        missing.truncate(MISSING_NAMED);
        let more = n - shards.len() as u64 - missing.len() as u64;
        bail!(
            "merge: shard {} missing{}",
            missing.join(", "),
            if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            }
        );
    }
    for s in shards.iter() {
        let m = &s.manifest;
        let want = Shard { k: m.shard, n }.range(spec.connections);
        if (m.first_connection, m.end_connection) != want {
            bail!(
                "{}: {MANIFEST} says connections {}..{}, but shard {}/{n} of a {}-connection run \
                 holds {}..{}",
                s.dir.display(),
                m.first_connection,
                m.end_connection,
                m.shard,
                spec.connections,
                want.0,
                want.1
            );
        }
        let arms = spec.arms.max(1);
        let want_lines = (m.end_connection - m.first_connection).saturating_mul(arms);
        if m.records_lines != want_lines {
            bail!(
                "{}: {} lines, but connections {}..{} with {arms} arms need {want_lines}",
                s.dir.join(spec.records_name).display(),
                m.records_lines,
                m.first_connection,
                m.end_connection
            );
        }
    }
    Ok(())
}

/// How many missing shards a merge error names.
const MISSING_NAMED: usize = 10;

/// A record's connection index, read without building the record: the
/// one field the merge and `--resume` check. (Defined here because the
/// shard-manifest fuzz target compiles this file on its own.)
#[derive(Deserialize)]
pub(crate) struct ConnOnly {
    pub(crate) conn: u64,
}

/// Writes the shards' records to `tmp` in order, checking that line `i` of
/// a shard starting at connection `first` is connection `first + i / arms`,
/// and hands each line to `each_line`.
fn concat_checked(
    shards: &[Checked],
    tmp: &Path,
    spec: &MergeSpec,
    each_line: &mut dyn FnMut(&[u8]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let f = fs::File::create(tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let arms = spec.arms.max(1);
    for s in shards {
        let p = s.dir.join(spec.records_name);
        let f = fs::File::open(&p).with_context(|| format!("opening {}", p.display()))?;
        let mut r = BufReader::with_capacity(1 << 20, f);
        let mut line = Vec::new();
        let mut i = 0u64;
        loop {
            line.clear();
            let got = r
                .read_until(b'\n', &mut line)
                .with_context(|| format!("reading {}", p.display()))?;
            if got == 0 {
                break;
            }
            let want = s.manifest.first_connection + i / arms;
            let conn = serde_json::from_slice::<ConnOnly>(&line).map(|c| c.conn);
            if conn.as_ref().ok() != Some(&want) {
                bail!(
                    "{}:{}: {}, but shard {}/{} must hold connection {want} there (its range is \
                     {}..{}): the shard's records are not its connections; run the shard again",
                    p.display(),
                    i + 1,
                    match conn {
                        Ok(c) => format!("connection {c}"),
                        Err(e) => format!("not a record ({e})"),
                    },
                    s.manifest.shard,
                    s.manifest.shards,
                    s.manifest.first_connection,
                    s.manifest.end_connection
                );
            }
            w.write_all(&line)
                .with_context(|| format!("writing {}", tmp.display()))?;
            each_line(&line).with_context(|| format!("{}:{}", p.display(), i + 1))?;
            i += 1;
        }
    }
    w.flush()
        .with_context(|| format!("writing {}", tmp.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_tile_the_connections() {
        for total in [1u64, 7, 100, 1001] {
            for n in 1..=9u64 {
                let mut next = 0;
                for k in 0..n {
                    let (a, b) = Shard { k, n }.range(total);
                    assert_eq!(a, next);
                    next = b;
                }
                assert_eq!(next, total);
            }
        }
    }

    fn manifest(shard: u64, shards: u64, first: u64, end: u64) -> String {
        format!(
            "{{\"format\":\"{FORMAT}\",\"version\":{FORMAT_VERSION},\"ramp\":\"0\",\
             \"shard\":{shard},\"shards\":{shards},\"first_connection\":{first},\
             \"end_connection\":{end},\"records_lines\":{},\"records_bytes\":1,\
             \"records_fnv1a64\":\"0123456789abcdef\"}}",
            end.saturating_sub(first)
        )
    }

    #[test]
    fn a_manifest_s_numbers_are_checked_when_read() {
        assert!(parse_manifest(&manifest(0, 1, 0, 5)).is_ok());
        // A shard count of 0 divided by zero in the range check.
        for (text, why) in [
            (manifest(0, 0, 0, 5), "need 0 <= shard < shards"),
            (manifest(2, 2, 0, 5), "need 0 <= shard < shards"),
            (manifest(0, 1, 5, 2), "run backwards"),
            (
                manifest(0, 1, 0, 5).replace("0123456789abcdef", "xyz"),
                "16 hex digits",
            ),
            ("{}".to_string(), "not a shard manifest"),
        ] {
            let e = parse_manifest(&text).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
    }

    #[test]
    fn a_manifest_claiming_a_huge_shard_count_is_refused_at_once() {
        // Listing the missing shards walked 0..N: N = 10^18 never ended.
        let m = parse_manifest(&manifest(0, 1_000_000_000_000_000_000, 0, 0)).unwrap();
        let mut shards = vec![Checked {
            dir: PathBuf::from("s0"),
            manifest: m,
            params: String::new(),
        }];
        let spec = MergeSpec {
            connections: 100,
            arms: 1,
            records_name: "records.ndjson",
            params_name: "fleet.params",
        };
        let e = check_shard_set(&mut shards, &spec, |_, _| String::new())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("shard 1/1000000000000000000, 2/") && e.contains("more)"),
            "{e}"
        );
    }

    #[test]
    fn shard_syntax_is_checked() {
        assert_eq!("2/8".parse(), Ok(Shard { k: 2, n: 8 }));
        assert!("8/8".parse::<Shard>().is_err());
        assert!("1/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().unwrap_err().contains("K/N"));
    }
}
