//! The records file of a fleet run: cutting it back for `--resume`, and
//! reading the summary's fields back from it.

use std::fs;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

use anyhow::{bail, Context};
use ramp_sim::fleet::summary::Row;
use ramp_vocab::record_keys as k;

/// Cuts `records` back to its last whole connection (`arms` lines each)
/// and returns how many connections it holds. A torn last line (the run
/// was killed mid-write) and a connection with only some of its arms are
/// dropped; they are simulated again.
/// `first` is the run's first connection (a shard's range starts there).
pub fn prepare_resume(records: &Path, arms: u64, first: u64) -> anyhow::Result<u64> {
    let mut f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(records)
        .with_context(|| format!("opening {}", records.display()))?;
    let mut lines = 0u64;
    let mut keep = 0u64; // bytes up to the end of the last whole connection
    let mut offset = 0u64;
    let mut last_conn_line = String::new();
    {
        let mut r = BufReader::new(&mut f);
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
            lines += 1;
            // Every line must be a record: a damaged middle line would
            // otherwise surface only after the whole resumed simulation.
            if serde_json::from_slice::<serde_json::Value>(&line).is_err() {
                bail!(
                    "--resume: {}: line {lines} is not a record; the file is damaged (remove it \
                     and rerun, or choose another --out)",
                    records.display()
                );
            }
            if lines % arms == 0 {
                keep = offset;
                last_conn_line = String::from_utf8_lossy(&line).into_owned();
            }
        }
    }
    let done = lines / arms;
    if done > 0 {
        let v: serde_json::Value =
            serde_json::from_str(last_conn_line.trim()).with_context(|| {
                format!(
                    "--resume: {}: line {} is not a record",
                    records.display(),
                    done * arms
                )
            })?;
        if v.get(k::CONN).and_then(|c| c.as_u64()) != Some(first + done - 1) {
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
pub fn read_rows(records: &Path) -> anyhow::Result<Vec<Row>> {
    let f = fs::File::open(records).with_context(|| format!("opening {}", records.display()))?;
    let mut rows = Vec::new();
    for (i, line) in BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("reading {}", records.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}: line {}", records.display(), i + 1);
        let v: serde_json::Value = serde_json::from_str(&line).with_context(at)?;
        let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        let num = |k: &str| v.get(k).and_then(|x| x.as_u64());
        let (Some(conn), Some(arm)) = (num(k::CONN), text(k::GROUP)) else {
            bail!("{}: not a fleet record (no conn or group)", at());
        };
        rows.push(Row {
            conn,
            arm,
            pop: text(k::POP).unwrap_or_default(),
            bin: text(k::SIZE_BIN).unwrap_or_default(),
            // Page loads: the measured page's bytes and load time.
            size_bytes: num(k::PAGE_BYTES)
                .or_else(|| num(k::CONTENT_LENGTH))
                .unwrap_or(0),
            completed: v
                .get(k::COMPLETED)
                .and_then(|x| x.as_bool())
                .unwrap_or(false),
            ttlb_us: num(k::PAGE_LOAD_US)
                .or_else(|| num(k::TTLB_US))
                .unwrap_or(0),
            packets_sent: num(k::PACKETS_SENT).unwrap_or(0),
            packets_lost: num(k::PACKETS_LOST).unwrap_or(0),
        });
    }
    Ok(rows)
}
