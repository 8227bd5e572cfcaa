//! `ramp compare`: the main job.
//!
//! Runs several controllers on one simulated path (by default the draft's
//! simulator figure, `seed-100m`), each alone on the path with the same seed,
//! prints a comparison table, and writes a run directory: records, one trace
//! per arm, the charts as PNG, and a self-contained `report.html`.

use std::fs;
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context};
use ramp_cc::spec;
use ramp_sim::fleet::arms::Arm;
use ramp_sim::{flows_for, simulate, Record, Scenario, TraceSink};

use super::compare_traces::{CappedTrace, DeliveredCounter, Progress, MAX_TRACE_BYTES};
use crate::cc_list::{parse_arm_list, ArmList};
use crate::file_stem::safe_stem;
use crate::run_dir::{Owner, Staging};
use ramp_vocab::atomic_file::write_atomic;

/// The arm sets `ramp compare` runs when `--cc` names none. The first arm
/// of each is the baseline; the scenario supplies IW and the jump window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ArmSet {
    /// The seed experiment's four arms as it ran them, on quicly's Reno
    /// (β 0.7): baseline, jumpstart (Careful Resume), rapid-no-jump,
    /// rapidstart.
    Seed,
    /// The seed arms with draft-kazuho-ccwg-rapid-start-02's values for
    /// Rapid Start instead of quicly's (K 2/3, min of the two margins,
    /// exact RTTs, per-round floor, no low-RTT limit).
    SeedDraft02,
    /// The same four arms on RFC 9002's NewReno (β 0.5).
    Rfc9002,
    /// The seed arms and BBRv3 (draft-ietf-ccwg-bbr-06) as a fifth.
    SeedBbr3,
    /// Paced slow start, jump start, HyStart++ and Rapid Start, each over
    /// RFC 9002 NewReno and over CUBIC.
    Extended,
}

impl ArmSet {
    /// The set's `(label, spec)` pairs as ramp_cc::spec defines them, before
    /// any scenario's IW is applied.
    pub fn specs(self) -> &'static [(&'static str, &'static str)] {
        match self {
            ArmSet::Seed => &spec::SEED_ARMS,
            ArmSet::SeedDraft02 => &spec::SEED_DRAFT02_ARMS,
            ArmSet::Rfc9002 => &spec::RFC9002_SEED_ARMS,
            ArmSet::Extended => &spec::EXTENDED_ARMS,
            ArmSet::SeedBbr3 => &spec::SEED_BBR3_ARMS,
        }
    }

    /// The arms with the scenario's IW of `iw_packets`: an arm counting its
    /// window in quicly's unit (`iw=30x1472`, the seed arms) keeps the unit
    /// and takes the scenario's packet count; any other `iw=` is dropped,
    /// so that the scenario's IW in packets of its `mds` applies.
    pub fn arms(self, iw_packets: u64) -> Result<Vec<Arm>, spec::SpecError> {
        self.specs()
            .iter()
            .map(|(label, name)| {
                let spec = with_scenario_iw(&spec::parse(name)?, iw_packets);
                Ok(Arm {
                    label: label.to_string(),
                    spec,
                })
            })
            .collect()
    }
}

/// `spec` with the scenario's initial window of `iw_packets` packets, in
/// the spec's own unit when that is quicly's, else in the scenario's.
fn with_scenario_iw(spec: &spec::ControllerSpec, iw_packets: u64) -> spec::ControllerSpec {
    use ramp_cc::config::InitialWindow;
    match spec.as_loss_based() {
        Some(l) => match l.common.initial_window {
            Some(InitialWindow::Quicly {
                max_udp_payload_size,
                ..
            }) => {
                let mut l = l.clone();
                l.common.initial_window = Some(InitialWindow::Quicly {
                    packets: u32::try_from(iw_packets).unwrap_or(u32::MAX),
                    max_udp_payload_size,
                });
                spec::ControllerSpec::new(l)
            }
            _ => spec.without_initial_window(),
        },
        None => spec.without_initial_window(),
    }
}

/// Arguments of `ramp compare`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A preset name (`ramp sim --list-presets`) or a scenario TOML file.
    #[arg(long, default_value = "seed-100m")]
    scenario: String,
    /// Arms as `label=spec` or `spec`, comma-separated (commas inside
    /// parentheses belong to options); the first arm is the baseline.
    /// Overrides `--arms`.
    #[arg(long, value_name = "ARMS", value_parser = parse_arm_list)]
    cc: Option<ArmList>,
    /// The arm set when `--cc` is not given: the seed experiment's four
    /// arms on quicly's Reno β 0.7 (`seed`), the same on RFC 9002's β 0.5
    /// (`rfc9002`), or slow start, jump start, HyStart++ and Rapid Start
    /// over NewReno and CUBIC (`extended`).
    #[arg(long, value_enum, default_value_t = ArmSet::Seed)]
    arms: ArmSet,
    /// Object size, e.g. `3MB`; default: the scenario's.
    #[arg(long)]
    size: Option<String>,
    /// Path seed; default: the scenario's.
    #[arg(long)]
    seed: Option<u64>,
    /// The run directory to write.
    #[arg(short, long, default_value = "out")]
    out: PathBuf,
    /// Only print the table; write no files.
    #[arg(long)]
    no_report: bool,
    /// Write the table, records, scenario and report but no traces (and
    /// so no trace charts). Traces are otherwise capped at 128 MiB per
    /// arm (docs/simulator.md, "Ranges").
    #[arg(long, conflicts_with = "no_report")]
    no_traces: bool,
    /// Print each arm's full controller spec as a table column instead of
    /// in the legend under the table (rows are then as wide as the longest
    /// spec).
    #[arg(long)]
    wide: bool,
    /// Print the `--arms` set as `label<TAB>spec` lines, the specs exactly
    /// as ramp defines them (no scenario's IW applied), and run nothing:
    /// for harnesses that run the same arms elsewhere (bench/interop).
    #[arg(long, conflicts_with = "cc")]
    list_arms: bool,
}

/// Prints `set`'s arms, one `label<TAB>spec` line each.
fn list_arms(set: ArmSet) {
    for (label, name) in set.specs() {
        println!("{label}\t{name}");
    }
}

/// Runs the comparison.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.list_arms {
        list_arms(args.arms);
        return Ok(());
    }
    let file = std::path::Path::new(&args.scenario);
    if !args.no_report && file.exists() {
        // The staging swap replaces --out whole: a scenario inside it
        // would be deleted with the old run.
        crate::clobber::refuse_output_over_inputs("--out", &args.out, &[file])?;
    }
    let mut scenario = Scenario::load(&args.scenario)?;
    if let Some(size) = &args.size {
        scenario.size_bytes = ramp_vocab::units::parse_size(size)
            .map_err(|e| anyhow::anyhow!("--size {size}: {e}"))?;
    }
    // The same checks as `ramp sim` (e.g. `--size 0` is refused).
    scenario.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    let seed = args.seed.unwrap_or(scenario.seed);
    let arms = match &args.cc {
        Some(list) => list.items.clone(),
        None => args.arms.arms(scenario.endpoint.iw_packets)?,
    };

    // The run is written beside --out and swapped in at the end: it
    // replaces a previous compare run whole, and never touches a directory
    // another command made.
    let staging = if args.no_report {
        None
    } else {
        Some(Staging::begin(&args.out, Owner::Compare)?)
    };
    let work = staging
        .as_ref()
        .map_or(args.out.clone(), |s| s.path().to_path_buf());
    let traces_dir = work.join("traces");
    let shown_traces_dir = args.out.join("traces");
    let traced = staging.is_some() && !args.no_traces;
    if traced {
        fs::create_dir_all(&traces_dir)
            .with_context(|| format!("creating {}", traces_dir.display()))?;
    }
    let traces = traced.then_some(TraceDir {
        write: &traces_dir,
        shown: &shown_traces_dir,
    });

    let progress = Progress::new(arms.len(), scenario.size_bytes, !args.no_report);
    let records = run_arms(&scenario, &arms, seed, traces.as_ref(), &progress)?;

    print_table(&scenario, seed, &arms, &records, args.wide);

    if let Some(staging) = staging {
        progress.bar.set_message("charts and report");
        write_run_dir(&scenario, &arms, &records, &work, traced)?;
        staging.commit()?;
        progress.arm_done();
    }
    progress.finish();
    if !args.no_report {
        let what = if traced {
            "records.ndjson, traces/, delivery.png, timeseq-*.png, report.html"
        } else {
            "records.ndjson, report.html; no traces"
        };
        println!("\nwrote {} ({what})", args.out.display());
    }
    Ok(())
}

/// Where the arms' traces go: written into the staging directory, named in
/// messages by the run directory that staging becomes at commit, which is
/// the path the user asked for and will find.
struct TraceDir<'a> {
    write: &'a Path,
    shown: &'a Path,
}

/// The trace file of arm `i`: numbered so that name order is arm order.
fn trace_path(dir: &Path, i: usize, label: &str) -> PathBuf {
    dir.join(format!("{i:02}-{}.ndjson", safe_stem(label)))
}

/// Simulates every arm on its own copy of the path, in parallel. Each arm's
/// result depends only on (scenario, spec, seed), so the output is the same
/// at any thread count.
fn run_arms(
    scenario: &Scenario,
    arms: &[Arm],
    seed: u64,
    traces: Option<&TraceDir>,
    progress: &Progress,
) -> anyhow::Result<Vec<Record>> {
    let results = ramp_sim::map_ordered(arms.len() as u64, 0, |i| {
        let i = i as usize;
        let delivered = progress.delivered.as_ref().map(|d| d[i].clone());
        let r = run_arm(scenario, &arms[i], i, seed, traces, delivered);
        progress.arm_done();
        r
    });
    if results.len() < arms.len() {
        bail!("an arm did not run");
    }
    results
        .into_iter()
        .zip(arms)
        .map(|(r, arm)| r.with_context(|| format!("arm {}", arm.label)))
        .collect()
}

fn run_arm(
    scenario: &Scenario,
    arm: &Arm,
    index: usize,
    seed: u64,
    traces: Option<&TraceDir>,
    delivered: Option<Arc<std::sync::atomic::AtomicU64>>,
) -> anyhow::Result<Record> {
    let flows = flows_for(scenario, &arm.spec, &arm.label, seed)?;
    let path = traces.map(|t| trace_path(t.write, index, &arm.label));
    let truncated = Arc::new(AtomicBool::new(false));
    let mut sink = if let Some(path) = &path {
        let f = fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let w = CappedTrace::new(
            std::io::BufWriter::new(f),
            MAX_TRACE_BYTES,
            truncated.clone(),
        );
        TraceSink::off().with_ndjson(Box::new(w))
    } else {
        TraceSink::off()
    };
    if let Some(d) = delivered {
        sink = sink.with_output(Box::new(DeliveredCounter(d)));
    }
    let out = simulate(scenario, flows, seed, &mut sink);
    sink.finish().with_context(|| match &path {
        Some(p) => format!("writing {}", p.display()),
        None => "finishing the simulation's outputs".to_string(),
    })?;
    if let (true, Some(t)) = (truncated.load(Ordering::Relaxed), traces) {
        ramp_vocab::note!(
            "ramp compare: arm {}: trace cut at {} MiB, the cap per arm ({}): its charts cover the \
             start of the transfer; the table and records cover all of it (--no-traces writes none)",
            arm.label,
            MAX_TRACE_BYTES >> 20,
            trace_path(t.shown, index, &arm.label).display()
        );
    }
    out.records
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("no record for the flow under test"))
}

/// The legend's width: the table itself is about 95 columns, and a spec
/// longer than this is wrapped under its label.
const LEGEND_WIDTH: usize = 100;

/// Prints the comparison table. Each row is one arm under its label; the
/// controller specs, which can run to 200 characters, go in a legend under
/// the table so that the table fits a terminal, or in a column of their
/// own with `wide`.
fn print_table(scenario: &Scenario, seed: u64, arms: &[Arm], records: &[Record], wide: bool) {
    let p = &scenario.path;
    // The discipline is named when it is not the default drop-tail FIFO.
    let aqm = match p.aqm {
        ramp_link::Aqm::DropTail => String::new(),
        other => format!(" ({other})"),
    };
    println!(
        "scenario {}: {:.0} Mbit/s, {:.0} ms RTT, {:.0} ms queue{aqm}, IW {} pkts, jump {} pkts, {} bytes, seed {}",
        scenario.name,
        p.rate.bits_per_sec() as f64 / 1e6,
        p.rtt().as_secs_f64() * 1e3,
        p.queue_time().as_secs_f64() * 1e3,
        scenario.endpoint.iw_packets,
        scenario.endpoint.jump_packets,
        scenario.size_bytes,
        seed,
    );
    println!();
    let lw = arms
        .iter()
        .map(|a| a.label.len())
        .max()
        .unwrap_or(0)
        .max(10);
    // The controller column, when there is one: the label is followed by
    // the spec padded to the longest.
    let controller = |name: &str| -> String {
        if !wide {
            return String::new();
        }
        let cw = records
            .iter()
            .map(|r| r.cc_algorithm.len())
            .max()
            .unwrap_or(0)
            .max(10);
        format!(" {name:<cw$}")
    };
    println!(
        "{:<lw$}{} {:>9} {:>8} {:>10} {:>7} {:>6} {:>6} {:>5} {:>10} {:>9}",
        "arm",
        controller("controller"),
        "TTLB ms",
        "vs base",
        "client ms",
        "sent",
        "lost",
        "loss%",
        "rec.",
        "ss-exit KB",
        "end KB"
    );
    let base = records.first().map(|r| r.ttlb_us as f64);
    // TTLB is h2o's: request at the server to last byte acknowledged. The
    // client column is connection start to last byte received: it includes
    // the handshake but not the receiver's delay in acknowledging the last
    // packet, which can add up to max_ack_delay to the server's figure.
    for (arm, r) in arms.iter().zip(records) {
        let ttlb = if r.completed {
            format!("{:.1}", r.ttlb_us as f64 / 1e3)
        } else {
            "unfinished".to_string()
        };
        let delta = match base {
            Some(b) if b > 0.0 && r.completed => {
                format!("{:+.1}%", (r.ttlb_us as f64 / b - 1.0) * 100.0)
            }
            _ => "-".to_string(),
        };
        let loss_pct = if r.packets_sent > 0 {
            format!(
                "{:.2}",
                r.packets_lost as f64 * 100.0 / r.packets_sent as f64
            )
        } else {
            "-".to_string()
        };
        let ss_exit = r
            .cwnd_exiting_slow_start
            .map_or_else(|| "-".to_string(), |c| format!("{:.0}", c as f64 / 1e3));
        println!(
            "{:<lw$}{} {:>9} {:>8} {:>10.1} {:>7} {:>6} {:>6} {:>5} {:>10} {:>9.0}",
            arm.label,
            controller(&r.cc_algorithm),
            ttlb,
            delta,
            r.client_ttlb_us as f64 / 1e3,
            r.packets_sent,
            r.packets_lost,
            loss_pct,
            r.num_loss_episodes,
            ss_exit,
            r.cwnd as f64 / 1e3,
        );
    }
    if !wide {
        println!("\narms (label = controller; --wide puts the controller in the table):");
        for (arm, r) in arms.iter().zip(records) {
            let lines = wrap_spec(&r.cc_algorithm, LEGEND_WIDTH.saturating_sub(lw + 3));
            for (i, line) in lines.iter().enumerate() {
                let label = if i == 0 { arm.label.as_str() } else { "" };
                println!("  {label:<lw$} {line}");
            }
        }
    }
    println!(
        "\nTTLB: request at the server -> last byte acknowledged (h2o's definition; includes\n\
         the receiver's ACK delay for the last packet). client: connection start -> last byte\n\
         received."
    );
}

/// Splits a controller spec into lines of at most `width` characters where
/// it can: after a comma between options, or before the `+` that starts a
/// part. A single option longer than `width` stays whole.
fn wrap_spec(spec: &str, width: usize) -> Vec<String> {
    let mut pieces: Vec<&str> = Vec::new();
    let mut start = 0;
    for (i, c) in spec.char_indices() {
        if c == '+' && i > start {
            pieces.push(&spec[start..i]);
            start = i;
        } else if c == ',' {
            pieces.push(&spec[start..=i]);
            start = i + 1;
        }
    }
    if start < spec.len() {
        pieces.push(&spec[start..]);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for piece in pieces {
        if !line.is_empty() && line.len() + piece.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        line.push_str(piece);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Writes records, the scenario, the PNG charts and report.html. Every file
/// is written to a temporary name and renamed, so an interrupted run never
/// leaves a truncated file behind under the final name.
fn write_run_dir(
    scenario: &Scenario,
    arms: &[Arm],
    records: &[Record],
    out: &Path,
    traced: bool,
) -> anyhow::Result<()> {
    let mut text = String::new();
    for r in records {
        text.push_str(&r.to_json());
        text.push('\n');
    }
    write_atomic(&out.join("records.ndjson"), text.as_bytes())?;
    write_atomic(
        &out.join("scenario.toml"),
        scenario_toml(scenario, arms).as_bytes(),
    )?;

    let mut run = ramp_plot::RunData::load(out)?;
    // The report's title is the scenario's name. Without traces RunData
    // would fall back to the directory's name, which here is the staging
    // directory's, a name with this process's id in it: the same run would
    // not give the same bytes twice.
    run.title.clone_from(&scenario.name);
    if !traced {
        ramp_plot::write_report(&run, &out.join("report.html"))?;
        return Ok(());
    }
    let theme = ramp_plot::chart::style::Theme::Light;
    let title = format!("{}: in-order bytes delivered", scenario.name);
    let delivery =
        ramp_plot::chart::delivery::DeliveryChart::new(run.traces.iter().collect()).title(title);
    ramp_plot::chart::save(&delivery, &out.join("delivery.png"), theme)?;
    for (i, (trace, arm)) in run.traces.iter().zip(arms).enumerate() {
        let chart = ramp_plot::chart::timeseq::TimeSeqChart::new(trace)
            .title(format!("{}: {}", scenario.name, arm.label));
        let name = trace_path(Path::new(""), i, &arm.label);
        let stem = name.file_stem().and_then(|s| s.to_str()).unwrap_or("arm");
        ramp_plot::chart::save(&chart, &out.join(format!("timeseq-{stem}.png")), theme)?;
    }
    ramp_plot::write_report(&run, &out.join("report.html"))?;
    Ok(())
}

/// The scenario as run, in the scenario file's TOML vocabulary, for the
/// report (and to re-run it).
fn scenario_toml(s: &Scenario, arms: &[Arm]) -> String {
    let p = &s.path;
    let mut t = String::new();
    t.push_str(&format!("# ramp compare: scenario `{}`\n", s.name));
    t.push_str(&format!(
        "size = {}\nseed = {}\n\n[path]\n",
        s.size_bytes, s.seed
    ));
    t.push_str(&format!("rate = \"{}bit\"\n", p.rate.bits_per_sec()));
    t.push_str(&format!("rtt = \"{}us\"\n", p.rtt().as_micros()));
    t.push_str(&format!("queue = \"{}us\"\n", p.queue_time().as_micros()));
    t.push_str(&format!(
        "\n[endpoint]\nmds = {}\niw = {}\njump = {}\nack_policy = \"{:?}\"\n",
        s.endpoint.mds, s.endpoint.iw_packets, s.endpoint.jump_packets, s.endpoint.ack_policy
    ));
    t.push_str("\n# arms (label = controller)\n");
    for a in arms {
        t.push_str(&format!("# {} = {}\n", a.label, a.spec));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_arm_set_parses_and_leaves_iw_to_the_scenario() {
        for set in [ArmSet::Rfc9002, ArmSet::Extended] {
            let arms = set.arms(10).unwrap();
            assert!(arms.len() >= 4);
            assert!(arms.iter().all(|a| !a.spec.to_string().contains("iw=")));
        }
        // The seed arms keep quicly's unit and take the scenario's count.
        for set in [ArmSet::Seed, ArmSet::SeedBbr3] {
            let arms = set.arms(10).unwrap();
            assert!(arms.len() >= 4);
            for a in arms.iter().filter(|a| a.spec.as_loss_based().is_some()) {
                let s = a.spec.to_string();
                assert!(s.contains("iw=10x1472,") || !s.contains("iw="), "{s}");
            }
        }
        let seed = ArmSet::Seed.arms(30).unwrap();
        assert!(seed[0].spec.to_string().contains("iw=30x1472,"));
        let labels: Vec<_> = seed.iter().map(|a| a.label.as_str()).collect();
        assert_eq!(
            labels,
            ["baseline", "jumpstart", "rapid-no-jump", "rapidstart"]
        );
    }

    #[test]
    fn a_wrapped_spec_joins_back_to_itself_within_the_width() {
        let spec = "newreno(iw=30,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico)\
                    +rapidstart(jump=off,jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,\
                    k=11/18,thresh=max,clock=ms,off_below_ms=4)";
        for width in [1, 20, 60, 84, 400] {
            let lines = wrap_spec(spec, width);
            assert_eq!(lines.concat(), spec, "width {width}");
            if width >= 24 {
                assert!(lines.iter().all(|l| l.len() <= width), "{lines:?}");
            }
        }
        assert_eq!(wrap_spec("cubic", 3), ["cubic"]);
        assert_eq!(wrap_spec("", 10), [""]);
        // A part starts its line with its `+`, so the line says what it adds.
        assert_eq!(wrap_spec("cubic+hystart", 8), ["cubic", "+hystart"]);
    }
}
