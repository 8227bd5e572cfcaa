//! Headless Chromium for the end-to-end tests of report.html: finding a
//! binary, running it with the flags every run needs, and reading the
//! console messages it logged.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A Chromium binary: `RAMP_CHROMIUM`, else one of the usual names on PATH,
/// else Debian's headless shell.
pub(crate) fn find_browser() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("RAMP_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let names = [
        "chromium",
        "chromium-headless-shell",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ];
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    // Debian's chromium-headless-shell installs outside PATH.
    let p = PathBuf::from("/usr/lib/chromium/chromium-headless-shell");
    p.is_file().then_some(p)
}

/// Runs the browser with the flags every invocation needs, killing it
/// after two minutes. Output goes through files: a dumped DOM is megabytes,
/// more than a pipe holds while we wait.
pub(crate) fn browser(bin: &Path, profile: &Path, extra: &[String], url: &str) -> Output {
    std::fs::create_dir_all(profile).unwrap();
    let out_path = profile.join("stdout.txt");
    let err_path = profile.join("stderr.txt");
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(extra)
    .arg(url)
    .stdout(Stdio::from(std::fs::File::create(&out_path).unwrap()))
    .stderr(Stdio::from(std::fs::File::create(&err_path).unwrap()));
    let mut child = cmd.spawn().expect("start browser");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("browser did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let status = child.wait().expect("browser status");
    Output {
        status,
        stdout: std::fs::read(&out_path).unwrap(),
        stderr: std::fs::read(&err_path).unwrap(),
    }
}

/// Console messages Chromium logged for the page (our page logs none, so
/// any is a failure).
pub(crate) fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}
