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
struct Manifest {
    format: String,
    version: u32,
    /// The ramp version that ran the shard.
    ramp: String,
    shard: u64,
    shards: u64,
    first_connection: u64,
    end_connection: u64,
    records_lines: u64,
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
    let (mut bytes, mut lines, mut h) = (0u64, 0u64, 0xcbf2_9ce4_8422_2325u64);
    loop {
        let n = r
            .read(&mut buf)
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            break;
        }
        for &b in &buf[..n] {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        bytes += n as u64;
    }
    Ok((bytes, lines, h))
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
struct Checked {
    dir: PathBuf,
    manifest: Manifest,
    /// `fleet.params` without the shard line: the run's parameters.
    params: String,
}

fn check(dir: &Path, records_name: &str, params_name: &str) -> anyhow::Result<Checked> {
    let mpath = dir.join(MANIFEST);
    let text = fs::read_to_string(&mpath).with_context(|| {
        format!(
            "{}: no {MANIFEST} (is this a finished `ramp fleet --shard` directory?)",
            dir.display()
        )
    })?;
    let m: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a shard manifest", mpath.display()))?;
    if m.format != FORMAT || m.version != FORMAT_VERSION {
        bail!(
            "{}: format {} v{}, this ramp reads {FORMAT} v{FORMAT_VERSION}",
            mpath.display(),
            m.format,
            m.version
        );
    }
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
    let line = Shard {
        k: m.shard,
        n: m.shards,
    }
    .params_line();
    let Some(params) = params.strip_suffix(&line) else {
        bail!(
            "{}: {params_name} does not end with `{}`",
            dir.display(),
            line.trim()
        );
    };
    Ok(Checked {
        dir: dir.to_path_buf(),
        params: params.to_string(),
        manifest: m,
    })
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
/// `out_records` is not created.
pub fn merge_records(
    dirs: &[PathBuf],
    out_records: &Path,
    spec: &MergeSpec,
    params_difference: impl Fn(&str, &str) -> String,
) -> anyhow::Result<String> {
    let (records_name, params_name) = (spec.records_name, spec.params_name);
    if dirs.is_empty() {
        bail!("merge: give the shard directories");
    }
    let mut shards = dirs
        .iter()
        .map(|d| check(d, records_name, params_name))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let first = &shards[0];
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
    let have: Vec<u64> = shards.iter().map(|s| s.manifest.shard).collect();
    let missing: Vec<String> = (0..n)
        .filter(|k| !have.contains(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        bail!("merge: shard {} missing", missing.join(", "));
    }
    for s in &shards {
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
    }
    let tmp = out_records.with_extension("ndjson.merging");
    let written = concat_checked(&shards, &tmp, spec);
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    fs::rename(&tmp, out_records)
        .with_context(|| format!("renaming {} to {}", tmp.display(), out_records.display()))?;
    Ok(shards[0].params.clone())
}

/// A record's connection index: the one field the merge reads.
#[derive(Deserialize)]
struct ConnOnly {
    conn: u64,
}

/// Writes the shards' records to `tmp` in order, checking that line `i` of
/// a shard starting at connection `first` is connection `first + i / arms`.
fn concat_checked(shards: &[Checked], tmp: &Path, spec: &MergeSpec) -> anyhow::Result<()> {
    let f = fs::File::create(tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let arms = spec.arms.max(1);
    for s in shards {
        let p = s.dir.join(spec.records_name);
        let want_lines = (s.manifest.end_connection - s.manifest.first_connection) * arms;
        if s.manifest.records_lines != want_lines {
            bail!(
                "{}: {} lines, but connections {}..{} with {arms} arms need {want_lines}",
                p.display(),
                s.manifest.records_lines,
                s.manifest.first_connection,
                s.manifest.end_connection
            );
        }
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

    #[test]
    fn shard_syntax_is_checked() {
        assert_eq!("2/8".parse(), Ok(Shard { k: 2, n: 8 }));
        assert!("8/8".parse::<Shard>().is_err());
        assert!("1/0".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().unwrap_err().contains("K/N"));
    }
}
