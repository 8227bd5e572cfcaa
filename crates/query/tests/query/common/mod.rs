//! Shared helpers for the integration tests: a deterministic stats-log
//! generator and a runner for the `ndq` binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A scratch directory removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("ndq-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }

    pub fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// xorshift64*: deterministic test data without extra dependencies.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

pub const GROUPS: [&str; 4] = ["baseline", "jumpstart", "rapid-no-jump", "rapidstart"];

/// `n` stats-like lines: integer and float fields, a group, sometimes a
/// missing or null field, some filler keys.
pub fn stats_log(n: usize, seed: u64) -> String {
    let mut r = Rng(seed.max(1));
    let mut s = String::new();
    for i in 0..n {
        let g = GROUPS[r.below(4) as usize];
        let cl = 200_000 + r.below(3_000_000);
        let ttlb = 20 + r.below(2000);
        let rtt = 1 + r.below(300);
        let loss = (r.unit() * 1e4).round() / 1e6;
        let lat = if r.below(20) == 0 {
            "null".to_string()
        } else {
            format!("{:.3}", r.unit() * 500.0)
        };
        let extra = if r.below(10) == 0 {
            String::new()
        } else {
            format!(",\"num-ptos\":{}", r.below(3))
        };
        s.push_str(&format!(
            "{{\"conn_id\":{i},\"group\":\"{g}\",\"pop\":\"p{}\",\"content_length\":{cl},\"ttlb\":{ttlb},\"rtt.minimum\":{rtt},\"loss\":{loss},\"lat\":{lat}{extra},\"pad\":\"{}\",\"nested\":{{\"a\":[1,2,{{\"b\":null}}]}}}}\n",
            r.below(7),
            "x".repeat(r.below(40) as usize)
        ));
    }
    s
}

pub fn ndq() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ndq"))
}

pub fn run_ndq(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut c = ndq();
    c.args(args).stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().expect("ndq binary runs");
    if let Some(b) = stdin {
        let mut w = child.stdin.take().unwrap();
        w.write_all(b).unwrap();
    }
    child.wait_with_output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts that `o` exited with `code` and that its stderr contains
/// `needle`; a failure shows the whole stderr.
pub fn assert_fails_with(o: &Output, code: i32, needle: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    assert!(e.contains(needle), "expected {needle:?} in:\n{e}");
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}
