//! An external sort of fixed-size entries (`u128`): the fleet summary's
//! way of computing exact percentiles of any number of connections in a
//! bounded amount of memory.
//!
//! Entries are buffered up to a budget; a full buffer is sorted and written
//! to a run file in the spill directory; at the end the runs (and the last
//! buffer) are merged in order. Memory: the buffer plus one read buffer per
//! run. With no spill directory everything stays in memory (what a summary
//! of rows already in memory uses).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Bytes of one entry on disk (little-endian `u128`).
const ENTRY_BYTES: usize = 16;

/// Runs on disk at most: more are merged into one first (files open at
/// once, and read buffers held, stay bounded however long the input).
const MAX_RUNS: usize = 32;

/// Read buffer of each run during the merge.
const RUN_READ_BUFFER: usize = 64 * 1024;

/// Sorted runs on disk plus the entries not yet spilled.
pub(crate) struct ExternalSort {
    buffer: Vec<u128>,
    budget: usize,
    dir: Option<PathBuf>,
    runs: Vec<PathBuf>,
    compactions: u64,
}

impl ExternalSort {
    /// A sort that spills to `dir` (created when first needed, removed by
    /// [`ExternalSort::cleanup`]) whenever `budget` entries are buffered;
    /// without `dir` every entry stays in memory.
    pub(crate) fn new(dir: Option<PathBuf>, budget: usize) -> ExternalSort {
        ExternalSort {
            buffer: Vec::new(),
            budget: budget.max(1),
            dir,
            runs: Vec::new(),
            compactions: 0,
        }
    }

    /// Adds one entry.
    pub(crate) fn push(&mut self, e: u128) -> io::Result<()> {
        self.buffer.push(e);
        if self.dir.is_some() && self.buffer.len() >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Runs written so far (0: everything is in memory).
    pub(crate) fn runs(&self) -> usize {
        self.runs.len()
    }

    fn spill(&mut self) -> io::Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        if self.runs.is_empty() {
            fs::create_dir_all(dir)?;
        }
        self.buffer.sort_unstable();
        let path = dir.join(format!("run-{:06}", self.runs.len()));
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        for e in &self.buffer {
            w.write_all(&e.to_le_bytes())?;
        }
        w.flush()?;
        self.runs.push(path);
        self.buffer.clear();
        if self.runs.len() >= MAX_RUNS {
            self.compact()?;
        }
        Ok(())
    }

    /// Calls `f` with every entry in ascending order.
    pub(crate) fn for_each_sorted(
        &mut self,
        f: impl FnMut(u128) -> io::Result<()>,
    ) -> io::Result<()> {
        self.buffer.sort_unstable();
        let mem = self.buffer.iter().copied();
        merge(&self.runs, mem, f)
    }

    /// Merges every run into one, so that the merge at the end never
    /// opens more than [`MAX_RUNS`] files at once.
    fn compact(&mut self) -> io::Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        self.compactions += 1;
        let path = dir.join(format!("merged-{:06}", self.compactions));
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        merge(&self.runs, std::iter::empty(), |e| {
            w.write_all(&e.to_le_bytes())
        })?;
        w.flush()?;
        for p in self.runs.drain(..) {
            fs::remove_file(p)?;
        }
        self.runs.push(path);
        Ok(())
    }

    /// Removes the run files and the spill directory (if this sort made it
    /// and it is empty).
    pub(crate) fn cleanup(&mut self) {
        for p in self.runs.drain(..) {
            let _ = fs::remove_file(p);
        }
        if let Some(d) = &self.dir {
            let _ = remove_dir_if_empty(d);
        }
    }
}

impl Drop for ExternalSort {
    fn drop(&mut self) {
        self.cleanup();
    }
}

/// Calls `f` with the entries of the sorted `runs` and of the sorted
/// `mem` in ascending order.
fn merge(
    runs: &[PathBuf],
    mut mem: impl Iterator<Item = u128>,
    mut f: impl FnMut(u128) -> io::Result<()>,
) -> io::Result<()> {
    if runs.is_empty() {
        // Nothing spilled (the preset's four arms spill from about 50 000
        // connections on): the sorted memory is the order, no heap needed.
        return mem.try_for_each(f);
    }
    let mut readers = runs
        .iter()
        .map(|p| Ok(BufReader::with_capacity(RUN_READ_BUFFER, File::open(p)?)))
        .collect::<io::Result<Vec<_>>>()?;
    // Source `readers.len()` is the in-memory entries.
    let mem_src = readers.len();
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(e) = next_entry(r)? {
            heap.push(Reverse((e, i)));
        }
    }
    if let Some(e) = mem.next() {
        heap.push(Reverse((e, mem_src)));
    }
    while let Some(Reverse((e, src))) = heap.pop() {
        f(e)?;
        let next = if src == mem_src {
            mem.next()
        } else {
            next_entry(&mut readers[src])?
        };
        if let Some(n) = next {
            heap.push(Reverse((n, src)));
        }
    }
    Ok(())
}

fn remove_dir_if_empty(d: &Path) -> io::Result<()> {
    if d.exists() && fs::read_dir(d)?.next().is_none() {
        fs::remove_dir(d)?;
    }
    Ok(())
}

fn next_entry(r: &mut impl Read) -> io::Result<Option<u128>> {
    let mut b = [0u8; ENTRY_BYTES];
    match r.read_exact(&mut b) {
        Ok(()) => Ok(Some(u128::from_le_bytes(b))),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ramp_vocab::rng::Rng;

    fn sorted_out(s: &mut ExternalSort) -> Vec<u128> {
        let mut out = Vec::new();
        s.for_each_sorted(|e| {
            out.push(e);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn spilled_runs_merge_to_the_in_memory_order() {
        let dir = std::env::temp_dir().join(format!("ramp-spill-test-{}", std::process::id()));
        let mut rng = Rng::from_u64(7);
        let entries: Vec<u128> = (0..10_000)
            .map(|_| u128::from(rng.next_u64() % 500) << 64 | u128::from(rng.next_u64() % 97))
            .collect();
        let mut disk = ExternalSort::new(Some(dir.clone()), 100);
        let mut mem = ExternalSort::new(None, 100);
        for &e in &entries {
            disk.push(e).unwrap();
            mem.push(e).unwrap();
        }
        assert!(
            (1..=MAX_RUNS).contains(&disk.runs()) && disk.compactions > 0,
            "the test must spill and compact"
        );
        assert_eq!(mem.runs(), 0);
        let mut want = entries.clone();
        want.sort_unstable();
        assert_eq!(sorted_out(&mut disk), want);
        assert_eq!(sorted_out(&mut mem), want);
        drop(disk);
        assert!(!dir.exists(), "the spill directory is removed");
    }
}
