//! The records file of a fleet run: cutting it back for `--resume`, and
//! reading the summary's fields back from it.

use std::fs;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

use anyhow::{bail, Context};
use ramp_sim::fleet::summary::{Row, Summarizer, Summary};
use ramp_vocab::record_keys as k;

use super::chart_sample::{ChartSample, Sampled};
use super::shard::ConnOnly;

/// The spill directory of a run's summary, inside the run directory
/// (removed when the summary is done).
const SPILL_DIR: &str = ".summary-spill";

/// What a run keeps of its records for the files written at the end: the
/// streaming summary (memory flat in the number of connections), and the
/// rows of the connections the charts and grid tables are drawn from
/// (none with `--no-charts`, a bounded sample for charts, every one for a
/// grid's tables).
pub(super) struct Readback {
    summary: Summarizer,
    rows: Option<ChartSample>,
}

impl Readback {
    /// A read-back for the run in `out` with `arms` (baseline first),
    /// keeping the rows `rows` samples; the summary's pass at the end uses
    /// `threads` threads.
    pub(super) fn new(
        out: &Path,
        arms: &[String],
        rows: Option<ChartSample>,
        threads: usize,
    ) -> Readback {
        Readback {
            summary: Summarizer::new(arms, Some(out.join(SPILL_DIR)), spill_entries())
                .with_threads(threads),
            rows,
        }
    }

    /// Adds one record's row (records come in connection order).
    pub(super) fn push(&mut self, row: Row) -> anyhow::Result<()> {
        self.summary.push(&row)?;
        if let Some(rows) = &mut self.rows {
            rows.push(row);
        }
        Ok(())
    }

    /// Adds every record of `records`, streamed.
    pub(super) fn read_file(&mut self, records: &Path) -> anyhow::Result<()> {
        for_each_row(records, |row| self.push(row))
    }

    /// The summary and the rows kept (none unless asked for).
    pub(super) fn finish(
        self,
        pops: &[String],
        bins: &[String],
    ) -> anyhow::Result<(Summary, Sampled)> {
        let s = self.summary.finish(pops, bins)?;
        let rows = self.rows.map(ChartSample::finish).unwrap_or(Sampled {
            seen: 0,
            rows: Vec::new(),
        });
        Ok((s, rows))
    }
}

/// Values the summary holds before spilling a sorted run:
/// [`ramp_sim::fleet::summarizer::DEFAULT_SPILL_ENTRIES`], or
/// `RAMP_SUMMARY_SPILL_ENTRIES` (a test makes small runs spill with it).
fn spill_entries() -> usize {
    std::env::var("RAMP_SUMMARY_SPILL_ENTRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ramp_sim::fleet::summarizer::DEFAULT_SPILL_ENTRIES)
}

/// Calls `f` with each record's row, in file order, streaming the file.
fn for_each_row(
    records: &Path,
    mut f: impl FnMut(Row) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let file = fs::File::open(records).with_context(|| format!("opening {}", records.display()))?;
    for (i, line) in BufReader::with_capacity(1 << 20, file).lines().enumerate() {
        let line = line.with_context(|| format!("reading {}", records.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let row = row_of(&line)
            .with_context(|| format!("{}: line {} is not a record", records.display(), i + 1))?;
        f(row).with_context(|| format!("{}: line {}", records.display(), i + 1))?;
    }
    Ok(())
}

/// What `--resume` checks in the records already on disk, besides the
/// last whole connection's `conn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LineCheck {
    /// Only the last whole connection: the caller reads every line's
    /// fields next anyway (a whole run's summary reads the records back
    /// before simulating), and that read names a damaged line.
    LastOnly,
    /// Every line's `conn` is the connection its place says (a shard,
    /// whose records nothing else reads before the merge): a damaged or
    /// misplaced middle line is found before the resumed simulation, not
    /// after it. Only `conn` is read.
    EachConn,
}

/// Cuts `records` back to its last whole connection (`arms` lines each)
/// and returns how many connections it holds. A torn last line (the run
/// was killed mid-write) and a connection with only some of its arms are
/// dropped; they are simulated again.
/// `first` is the run's first connection (a shard's range starts there).
/// Lines are parsed only as `check` says.
pub(super) fn prepare_resume(
    records: &Path,
    arms: u64,
    first: u64,
    check: LineCheck,
) -> anyhow::Result<u64> {
    let mut f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(records)
        .with_context(|| format!("opening {}", records.display()))?;
    let not_a_record = |line: u64| {
        anyhow::anyhow!(
            "--resume: {}: line {line} is not a record; the file is damaged (remove it and \
             rerun, or choose another --out)",
            records.display()
        )
    };
    let mut lines = 0u64;
    let mut keep = 0u64; // bytes up to the end of the last whole connection
    let mut offset = 0u64;
    let mut last_conn_line = Vec::new();
    {
        let mut r = BufReader::with_capacity(1 << 20, &mut f);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = r
                .read_until(b'\n', &mut line)
                .with_context(|| format!("reading {}", records.display()))?;
            if n == 0 || line.last() != Some(&b'\n') {
                break;
            }
            offset += n as u64;
            if check == LineCheck::EachConn {
                let want = first + lines / arms;
                match serde_json::from_slice::<ConnOnly>(&line) {
                    Ok(c) if c.conn == want => {}
                    Ok(c) => bail!(
                        "--resume: {}: line {} is connection {}, but connection {want} belongs \
                         there; the file was not written by this run",
                        records.display(),
                        lines + 1,
                        c.conn
                    ),
                    Err(_) => return Err(not_a_record(lines + 1)),
                }
            }
            lines += 1;
            if lines.is_multiple_of(arms) {
                keep = offset;
                std::mem::swap(&mut last_conn_line, &mut line);
            }
        }
    }
    let done = lines / arms;
    if done > 0 {
        let conn = serde_json::from_slice::<ConnOnly>(&last_conn_line)
            .map_err(|_| not_a_record(done * arms))?
            .conn;
        if conn != first + done - 1 {
            bail!(
                "--resume: {}: line {} should be connection {} but is not; the file was not written \
                 by this run",
                records.display(),
                done * arms,
                first + done - 1
            );
        }
    }
    f.set_len(keep)
        .with_context(|| format!("truncating {}", records.display()))?;
    f.seek(SeekFrom::End(0))?;
    Ok(done)
}

/// Reads the summary's fields back from the records file (so a resumed run
/// summarises everything, not just what this process simulated).
#[cfg(test)]
fn read_rows(records: &Path) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for_each_row(records, |r| {
        rows.push(r);
        Ok(())
    })?;
    Ok(rows)
}

/// One record line's summary fields.
pub fn row_of(line: &str) -> anyhow::Result<Row> {
    let RowFields(mut v) = serde_json::from_str(line)?;
    let conn = v[CONN].as_ref().and_then(|x| x.as_u64());
    let mut text = |f: usize| v[f].take().and_then(|x| x.as_str().map(str::to_string));
    let (Some(conn), Some(arm)) = (conn, text(GROUP)) else {
        bail!("not a fleet record (no conn or group)");
    };
    let (pop, bin) = (text(POP), text(SIZE_BIN));
    let num = |f: usize| v[f].as_ref().and_then(|x| x.as_u64());
    Ok(Row {
        conn,
        arm,
        pop: pop.unwrap_or_default(),
        bin: bin.unwrap_or_default(),
        // Page loads: the measured page's bytes and load time.
        size_bytes: num(PAGE_BYTES).or_else(|| num(CONTENT_LENGTH)).unwrap_or(0),
        completed: v[COMPLETED]
            .as_ref()
            .and_then(|x| x.as_bool())
            .unwrap_or(false),
        ttlb_us: num(PAGE_LOAD_US).or_else(|| num(TTLB_US)).unwrap_or(0),
        packets_sent: num(PACKETS_SENT).unwrap_or(0),
        packets_lost: num(PACKETS_LOST).unwrap_or(0),
    })
}

/// The keys the summary reads, and their places in [`RowFields`].
const KEYS: [&str; 11] = [
    k::CONN,
    k::GROUP,
    k::POP,
    k::SIZE_BIN,
    k::CONTENT_LENGTH,
    k::COMPLETED,
    k::TTLB_US,
    k::PACKETS_SENT,
    k::PACKETS_LOST,
    k::PAGE_BYTES,
    k::PAGE_LOAD_US,
];
const CONN: usize = 0;
const GROUP: usize = 1;
const POP: usize = 2;
const SIZE_BIN: usize = 3;
const CONTENT_LENGTH: usize = 4;
const COMPLETED: usize = 5;
const TTLB_US: usize = 6;
const PACKETS_SENT: usize = 7;
const PACKETS_LOST: usize = 8;
const PAGE_BYTES: usize = 9;
const PAGE_LOAD_US: usize = 10;

/// The value under each of [`KEYS`] in one record (the last one, if a key
/// repeats, as a JSON map would keep it), read without building the whole
/// record as a map: a record has about fifty fields, and reading them all
/// back into a map was a measurable share of a fleet run.
struct RowFields([Option<serde_json::Value>; KEYS.len()]);

impl<'de> serde::Deserialize<'de> for RowFields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RowFields, D::Error> {
        d.deserialize_map(RowFieldsVisitor)
    }
}

struct RowFieldsVisitor;

impl<'de> serde::de::Visitor<'de> for RowFieldsVisitor {
    type Value = RowFields;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a fleet record (a JSON object)")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<RowFields, A::Error> {
        let mut r = RowFields(Default::default());
        while let Some(Key(key)) = m.next_key()? {
            match key {
                Some(i) => r.0[i] = Some(m.next_value()?),
                None => {
                    m.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(r)
    }
}

/// A record's key: its place in [`KEYS`], or `None` for one the summary
/// does not read (found without copying the key).
struct Key(Option<usize>);

impl<'de> serde::Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl serde::de::Visitor<'_> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a record key")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Key, E> {
        Ok(Key(KEYS.iter().position(|k| *k == s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_taken_from_the_records_are_the_rows_read_back_from_their_lines() {
        // A live run hands the summary the rows the simulator takes from
        // each record; a resumed or merged run reads them back from the
        // lines. Both must agree field for field: the seed experiment and
        // a page-load preset (page bytes and load time in place of the
        // object's).
        for (preset, n) in [("rapid-start-2026", 6), ("iw10-vs-iw32-pages", 3)] {
            let plan = ramp_sim::fleet::experiments::plan(preset, n, 11).unwrap();
            for i in 0..n {
                for a in plan.run_connection_rows(i).unwrap() {
                    assert_eq!(row_of(&a.line).unwrap(), a.row, "{preset} connection {i}");
                }
            }
        }
    }

    #[test]
    fn rows_read_the_last_value_of_each_key_and_skip_the_rest() {
        let dir = std::env::temp_dir().join(format!("ramp-rows-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("records.ndjson");
        // Nested values and escapes in skipped fields, a repeated key (the
        // last wins, as in a JSON map), an escaped key that spells "pop",
        // a field of the wrong type (read as absent), a page load's size
        // and load time (preferred to the object's), and a blank line.
        let lines = [
            r#"{"conn":3,"group":"a","x":{"y":[1,2,{"z":"}"}]},"pop":"eu","size-bin":"1MB","content_length":5,"completed":true,"ttlb-us":7,"num-packets.sent":9,"num-packets.lost":1,"conn":4}"#,
            "",
            r#"{"group":"b","conn":5,"\u0070op":"asia","ttlb-us":"late","completed":1,"s":"a\"b","page-load-us":8,"content_length":3,"page.bytes":6}"#,
        ];
        fs::write(&path, lines.join("\n")).unwrap();
        let rows = read_rows(&path).unwrap();
        fs::remove_dir_all(&dir).unwrap();
        let got: Vec<_> = rows
            .iter()
            .map(|r| {
                (
                    r.conn,
                    r.arm.as_str(),
                    r.pop.as_str(),
                    r.bin.as_str(),
                    r.size_bytes,
                    r.completed,
                    r.ttlb_us,
                    r.packets_sent,
                    r.packets_lost,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (4, "a", "eu", "1MB", 5, true, 7, 9, 1),
                (5, "b", "asia", "", 6, false, 8, 0, 0)
            ]
        );
    }
}
