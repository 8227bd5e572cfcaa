//! `ramp sim`: run controllers on one simulated path and print a table.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context;
use ramp_sim::scenario::presets;
use ramp_sim::scenario::QueueLimit;
use ramp_sim::{run_connection, Record, Scenario, TraceSink};
use ramp_vocab::units;

use crate::cc_list::{parse_cc_list, CcList};
use crate::file_stem::safe_stem;
use crate::link_elements::LinkElementFlags;
use crate::path_flags::PathFlags;

/// Arguments of `ramp sim`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A preset name (see --list-presets) or a TOML scenario file. Without
    /// it, the path flags alone define the path (other values as seed-100m).
    #[arg(long)]
    pub scenario: Option<String>,
    /// Controllers to compare, comma-separated (`newreno,rapidstart(beta=0.7)`).
    #[arg(long, default_value = "newreno,rapidstart", value_parser = parse_cc_list)]
    pub cc: CcList,
    /// Object size (e.g. 3MB, 500KB, 1MiB).
    #[arg(long)]
    pub size: Option<String>,
    /// Seed of the path (random losses); default: the scenario's.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The path: rate, RTT, queue, AQM and loss, each overriding the
    /// scenario's.
    #[command(flatten)]
    pub path: PathFlags,
    /// Cellular behaviour, Wi-Fi delay variation, ACK aggregation, a
    /// policer and Gilbert-Elliott loss, each overriding the scenario's
    /// (`[path.cellular]`, `[path.jitter]`, `path.ack_aggregation`,
    /// `[path.policer]`, `[path.gilbert_elliott]`, which take the same
    /// keys and values).
    #[command(flatten)]
    pub elements: LinkElementFlags,
    /// Client ACK policy: rfc9000, chrome, ackfreq(N,DELAY).
    #[arg(long)]
    pub ack_policy: Option<String>,
    /// Initial window, packets (1 ..= 10000; the jump window is twice it,
    /// at most 10000).
    #[arg(long, value_parser = crate::ranges::number_in(1, ramp_sim::scenario::MAX_WINDOW_PACKETS))]
    pub iw: Option<u64>,
    /// Append one stats record per connection (NDJSON) to this file.
    #[arg(long)]
    pub records: Option<PathBuf>,
    /// Write one NDJSON trace per connection into this directory.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Write one qlog 0.3 JSON-SEQ (.sqlog) per connection into this directory.
    #[arg(long)]
    pub qlog: Option<PathBuf>,
    /// Threads for untraced runs (output does not depend on it).
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// List the built-in presets with their parameters and exit.
    #[arg(long)]
    pub list_presets: bool,
}

/// Builds the scenario from `--scenario` and the path flags.
pub fn scenario_from(args: &Args) -> anyhow::Result<Scenario> {
    let mut sc = match &args.scenario {
        Some(s) => Scenario::load(s)?,
        None => {
            let p = presets::find("seed-100m").context("seed-100m preset missing")?;
            let mut sc = Scenario::from_preset(&p);
            sc.name = "custom".to_string();
            sc
        }
    };
    let flag = |name: &str, e: &dyn std::fmt::Display| anyhow::anyhow!("--{name}: {e}");
    let path = &args.path;
    if let Some(r) = path.rate {
        sc.path.rate = r;
    }
    if let Some(d) = path.rtt {
        sc.path.forward_delay = d / 2;
        sc.path.reverse_delay = d - d / 2;
    }
    if let Some(q) = path.queue {
        sc.path.queue = QueueLimit::Time(q);
    }
    if let Some(a) = path.aqm {
        sc.path.aqm = a;
    }
    if let Some(l) = path.loss_model() {
        sc.path.elements.loss = l;
    }
    args.elements.apply_to_path(&mut sc.path);
    if let Some(a) = &args.ack_policy {
        sc.endpoint.ack_policy =
            ramp_sim::AckPolicy::parse(a).map_err(|e| flag("ack-policy", &e))?;
    }
    if let Some(iw) = args.iw {
        sc.endpoint.set_initial_window(iw);
    }
    if let Some(s) = &args.size {
        sc.size_bytes = units::parse_size(s).map_err(|e| flag("size", &e))?;
    }
    if let Some(seed) = args.seed {
        sc.seed = seed;
    }
    sc.validate()
        .map_err(|e| anyhow::anyhow!("{}", in_flag_terms(&e.to_string(), args)))?;
    Ok(sc)
}

/// A range error about a value a flag set names the flag, not the
/// scenario key (`--rate 1kbit` is about `--rate`, not `path.rate`).
fn in_flag_terms(message: &str, args: &Args) -> String {
    let p = &args.path;
    let set_by_flag = [
        ("path.rate", "--rate", p.rate.is_some()),
        ("path.queue", "--queue", p.queue.is_some()),
        ("path.forward_delay", "--rtt", p.rtt.is_some()),
        ("path.reverse_delay", "--rtt", p.rtt.is_some()),
        ("endpoint.iw", "--iw", args.iw.is_some()),
        ("size", "--size", args.size.is_some()),
    ];
    // --rtt sets both one-way delays to half of it: the message speaks of
    // the RTT the user typed and its range, not of the half.
    if let Some(rtt) = p.rtt {
        let delay = ["path.forward_delay:", "path.reverse_delay:"];
        if delay.iter().any(|k| message.starts_with(k)) && message.contains("above the maximum") {
            let max = ramp_sim::Scenario::MAX_ONE_WAY_DELAY * 2;
            return format!("--rtt: {rtt:?} is above the maximum {max:?}");
        }
    }
    if let Some(m) = args.elements.in_flag_terms(message) {
        return m;
    }
    for (key, flag, given) in set_by_flag {
        if let Some(rest) = message.strip_prefix(key) {
            if given && rest.starts_with([':', ' ']) {
                return format!("{flag}{rest}");
            }
        }
    }
    message.to_string()
}

fn file_name(i: usize, cc: &str) -> String {
    format!("{i}-{}", safe_stem(cc))
}

/// Prints the preset table.
pub fn list_presets() {
    println!(
        "{:<28} {:>10} {:>8} {:>8} {:>7} {:>4}  source",
        "preset", "rate", "rtt", "queue", "loss", "iw"
    );
    for p in presets::all() {
        println!(
            "{:<28} {:>10} {:>8} {:>8} {:>7} {:>4}  {}",
            p.name,
            format!("{}mbit", p.rate.bits_per_sec() as f64 / 1e6),
            format!("{}ms", ramp_vocab::time::duration_millis_f64(p.rtt)),
            format!("{}ms", ramp_vocab::time::duration_millis_f64(p.queue)),
            format!("{}%", p.loss * 100.0),
            p.iw_packets,
            p.source
        );
    }
}

/// Runs `ramp sim`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.list_presets {
        list_presets();
        return Ok(());
    }
    if let Some(file) = args.scenario.as_deref().map(std::path::Path::new) {
        if file.exists() {
            for (what, out) in [
                ("--records", &args.records),
                ("--trace", &args.trace),
                ("--qlog", &args.qlog),
            ] {
                if let Some(out) = out {
                    crate::clobber::refuse_output_over_inputs(what, out, &[file])?;
                }
            }
        }
    }
    let sc = scenario_from(&args)?;
    let specs = &args.cc.items;
    for dir in [&args.trace, &args.qlog].into_iter().flatten() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let seed = sc.seed;
    let records: Vec<Record> = if args.trace.is_none() && args.qlog.is_none() {
        ramp_sim::run_arms(&sc, specs, seed, args.threads)?
    } else {
        let cfg = ramp_sim::cc_config(&sc);
        let mut out = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            let name = file_name(i, &spec.canonical_name(&cfg));
            let mut sink = TraceSink::off();
            if let Some(d) = &args.trace {
                let p = d.join(format!("{name}.ndjson"));
                let f = File::create(&p).with_context(|| format!("creating {}", p.display()))?;
                sink = sink.with_ndjson(Box::new(BufWriter::new(f)));
            }
            if let Some(d) = &args.qlog {
                let p = d.join(format!("{name}.sqlog"));
                let f = File::create(&p).with_context(|| format!("creating {}", p.display()))?;
                sink = sink.with_qlog(Box::new(BufWriter::new(f)));
            }
            let rec = run_connection(&sc, spec, seed, &mut sink)?;
            sink.finish().context("writing trace")?;
            out.push(rec);
        }
        out
    };
    if let Some(path) = &args.records {
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        let mut w = BufWriter::new(f);
        for r in &records {
            writeln!(w, "{}", r.to_json())?;
        }
        w.flush()?;
    }
    print_table(&sc, &records);
    if !sc.cross_flows.is_empty() || !sc.web.is_empty() {
        for spec in specs {
            let all = ramp_sim::run_flows(&sc, spec, seed, &mut TraceSink::off())?;
            print_sharing(&sc, &all);
        }
    }
    Ok(())
}

/// How one arm's run divided the bottleneck: each bulk flow (the flow
/// under test and the `[[flow]]`s) with its goodput, Jain's index over
/// those goodputs, and the web objects in one line.
fn print_sharing(sc: &Scenario, all: &[Record]) {
    let bulk = 1 + sc.cross_flows.len();
    let Some(first) = all.first() else {
        return;
    };
    println!();
    println!("sharing the bottleneck, arm {}:", first.cc_algorithm);
    println!(
        "  {:>4} {:<24} {:>9} {:>10} {:>10} {:>14}",
        "flow", "cc", "start ms", "bytes", "TTLB ms", "goodput Mbit/s"
    );
    let starts: Vec<f64> = std::iter::once(0.0)
        .chain(sc.cross_flows.iter().map(|f| f.start.as_secs_f64() * 1e3))
        .collect();
    let mut goodputs = Vec::new();
    for (r, start) in all.iter().take(bulk).zip(&starts) {
        let goodput = if r.completed && r.ttlb_us > 0 {
            r.content_length as f64 * 8.0 / r.ttlb_us as f64
        } else {
            0.0
        };
        goodputs.push(goodput);
        println!(
            "  {:>4} {:<24} {:>9.0} {:>10} {:>10.1} {:>14.2}",
            r.flow,
            r.cc_algorithm,
            start,
            r.content_length,
            r.ttlb_us as f64 / 1e3,
            goodput
        );
    }
    if bulk > 1 {
        println!(
            "  Jain's index over the bulk flows' goodput: {:.3}",
            ramp_sim::jain_index(&goodputs)
        );
    }
    let web = &all[bulk.min(all.len())..];
    if !web.is_empty() {
        let mut ttlb: Vec<f64> = web.iter().map(|r| r.ttlb_us as f64 / 1e3).collect();
        ttlb.sort_by(f64::total_cmp);
        let done = web.iter().filter(|r| r.completed).count();
        println!(
            "  web: {} objects ({} completed), {} bytes, TTLB median {:.1} ms",
            web.len(),
            done,
            web.iter().map(|r| r.content_length).sum::<u64>(),
            ttlb[ttlb.len() / 2]
        );
    }
}

fn print_table(sc: &Scenario, records: &[Record]) {
    println!(
        "scenario {}: {} Mbit/s, RTT {} ms, queue {} ms {}, loss {}%, ACK {}, {} bytes, seed {}",
        sc.name,
        sc.path.rate.bits_per_sec() as f64 / 1e6,
        ramp_vocab::time::duration_millis_f64(sc.path.rtt()),
        ramp_vocab::time::duration_millis_f64(sc.path.queue_time()),
        sc.path.aqm,
        sc.path.elements.loss.mean_loss() * 100.0,
        sc.endpoint.ack_policy,
        sc.size_bytes,
        sc.seed
    );
    let w = records
        .iter()
        .map(|r| r.cc_algorithm.len())
        .max()
        .unwrap_or(2)
        .max(10);
    println!(
        "{:<w$} {:>10} {:>8} {:>7} {:>9} {:>16} {:>12}",
        "cc", "TTLB ms", "sent", "lost", "episodes", "cwnd@ss-exit", "cwnd@end"
    );
    for r in records {
        let ttlb = if r.completed {
            format!("{:.1}", r.ttlb_us as f64 / 1e3)
        } else {
            "incomplete".to_string()
        };
        let exit = r
            .cwnd_exiting_slow_start
            .map(|b| b.to_string())
            .unwrap_or_else(|| "-".to_string());
        println!(
            "{:<w$} {:>10} {:>8} {:>7} {:>9} {:>16} {:>12}",
            r.cc_algorithm, ttlb, r.packets_sent, r.packets_lost, r.num_loss_episodes, exit, r.cwnd
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    /// The scenario `ramp sim` builds from these flags alone.
    fn from_flags(flags: &[&str]) -> Result<Scenario, String> {
        let cli = Cli::try_parse_from(std::iter::once("sim").chain(flags.iter().copied()))
            .map_err(|e| e.to_string())?;
        scenario_from(&cli.args).map_err(|e| e.to_string())
    }

    /// The scenario a file with these `[path]` lines gives.
    fn from_toml(path: &str) -> Result<Scenario, String> {
        Scenario::from_toml(&format!("[path]\n{path}"), "custom").map_err(|e| e.to_string())
    }

    /// One text, two doors: the same `KEY=VALUE` strings given as
    /// `--cellular`/`--wifi-jitter`/`--ack-aggregation` and as the scenario
    /// file's `[path.cellular]`/`[path.jitter]`/`path.ack_aggregation`
    /// give the same path, and the same bad value is refused through both
    /// with the same words.
    #[test]
    fn the_same_element_strings_give_the_same_path_through_toml_flags_and_population() {
        let cellular = [
            ("light_bytes", "100KB"),
            ("light_fraction", "0.25"),
            ("idle_reset", "20ms"),
            ("drift_mean", "0.3"),
            ("drift_period", "500ms"),
        ];
        let jitter = [("median", "2500us"), ("p90", "17ms")];
        let policer = [("rate", "10mbit"), ("burst", "32KB")];
        let ge = [
            ("p_good_to_bad", "0.01"),
            ("p_bad_to_good", "0.3"),
            ("loss_bad", "0.5"),
        ];
        let flag = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let table = |name: &str, pairs: &[(&str, &str)]| {
            let keys: String = pairs
                .iter()
                .map(|(k, v)| format!("{k} = \"{v}\"\n"))
                .collect();
            format!("[path.{name}]\n{keys}")
        };
        let cli = from_flags(&[
            &format!("--cellular={}", flag(&cellular)),
            &format!("--wifi-jitter={}", flag(&jitter)),
            "--ack-aggregation",
            "4ms",
            &format!("--policer={}", flag(&policer)),
            &format!("--gilbert-elliott={}", flag(&ge)),
        ])
        .unwrap();
        let file = from_toml(&format!(
            "ack_aggregation = \"4ms\"\n{}{}{}{}",
            table("cellular", &cellular),
            table("jitter", &jitter),
            table("policer", &policer),
            table("gilbert_elliott", &ge),
        ))
        .unwrap();
        assert_eq!(cli.path, file.path);
        assert!(cli.path.elements.cellular.is_some() && cli.path.elements.jitter.is_some());
        assert!(cli.path.elements.policer.is_some());
        assert!(matches!(
            cli.path.elements.loss,
            ramp_link::LossModel::GilbertElliott(_)
        ));
        assert_eq!(
            cli.path.elements.cellular.map(|c| ramp_link::spec_of(&c)),
            Some(flag(&cellular).replace("100KB", "100000"))
        );
        // The population file's `[paths] wifi_jitter` and `cellular` take
        // the same texts to the same elements.
        let pop = ramp_sim::fleet::population_file::PopulationFile::parse(
            &format!(
                "[[region]]\nname = \"west-europe\"\n[paths]\nwifi_jitter = \"{}\"\ncellular = \"{}\"\n",
                flag(&jitter),
                flag(&cellular)
            ),
            "p",
        )
        .unwrap();
        let ramp_sim::fleet::Population::Regions(rs) = pop.population else {
            panic!("regions")
        };
        assert_eq!(rs[0].paths.wifi_jitter, cli.path.elements.jitter);
        assert_eq!(rs[0].paths.cellular, cli.path.elements.cellular);
        // Alone, both give the same sourced defaults.
        let cli = from_flags(&["--cellular", "--wifi-jitter"]).unwrap();
        let file = from_toml("[path.cellular]\n[path.jitter]\n").unwrap();
        assert_eq!(cli.path, file.path);
        assert_eq!(
            cli.path.elements.cellular,
            Some(ramp_link::Cellular::CELLREPLAY)
        );
        assert_eq!(
            cli.path.elements.jitter,
            Some(ramp_link::Jitter::WIFI_SUI_2016)
        );
        let pop = ramp_sim::fleet::population_file::PopulationFile::parse(
            "[[region]]\nname = \"west-europe\"\n[paths]\nwifi_jitter = true\n",
            "p",
        )
        .unwrap();
        let ramp_sim::fleet::Population::Regions(rs) = pop.population else {
            panic!("regions")
        };
        assert_eq!(rs[0].paths.wifi_jitter, cli.path.elements.jitter);
        // A bad value: the same reason, after the flag or the key.
        for (name, pairs, reason) in [
            (
                "cellular",
                &[("light_fraction", "1.5")][..],
                "light_fraction: must lie in (0, 1]",
            ),
            ("cellular", &[("burst", "1")], "burst: unknown key"),
            ("jitter", &[("p90", "2s")], "p90: need 0 < median"),
            ("policer", &[("rate", "10mbit")], "burst: required"),
            (
                "gilbert_elliott",
                &[("p_good_to_bad", "0.1"), ("p_bad_to_good", "1.5")],
                "p_bad_to_good: must lie in [0, 1]",
            ),
        ] {
            let opt = match name {
                "jitter" => "wifi-jitter",
                "gilbert_elliott" => "gilbert-elliott",
                other => other,
            };
            let e = from_flags(&[&format!("--{opt}={}", flag(pairs))]).unwrap_err();
            assert!(e.contains(&format!("--{opt}")) && e.contains(reason), "{e}");
            let e = from_toml(&table(name, pairs)).unwrap_err();
            assert!(e.contains(&format!("path.{name}.{reason}")), "{e}");
        }
        let e = from_flags(&["--ack-aggregation", "0ms"]).unwrap_err();
        assert!(e.contains("--ack-aggregation") && e.contains("ack_aggregation: must be positive"));
        let e = from_toml("ack_aggregation = \"0ms\"\n").unwrap_err();
        assert!(e.contains("path.ack_aggregation: must be positive"), "{e}");
    }

    #[test]
    fn trace_file_names_are_safe() {
        assert_eq!(
            file_name(1, "rapidstart(beta=0.7)"),
            "1-rapidstart_beta_0.7_"
        );
    }
}
