//! `ramp plot`: draw one chart from a trace or records file.

use anyhow::Context as _;
use ramp_plot::chart::{
    save, AbChart, DeliveryChart, GridChart, PairedChart, Theme, TimeSeqChart, XyChart, XyData,
};
use ramp_plot::packet_log::PacketSeries;
use ramp_plot::{
    ab_curves_of, grid_curves, paired_deltas_of, read_trace, AbOptions, AbSamples, Facet, GridAxis,
    GridSamples,
};
use std::path::{Path, PathBuf};

/// Arguments of `ramp plot`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    chart: ChartCmd,
}

#[derive(clap::Subcommand, Debug)]
enum ChartCmd {
    /// Time-sequence chart of one connection, with RTT and queue panels.
    Timeseq {
        /// Trace file (NDJSON, docs/formats.md).
        trace: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// In-order bytes delivered over time, one line per trace.
    Delivery {
        /// Trace files, one line each (normally one per algorithm, same path).
        #[arg(required = true, num_args = 1..)]
        traces: Vec<PathBuf>,
        /// Leave the bottleneck queue off the right axis.
        #[arg(long)]
        no_queue: bool,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Percentile (1..99) against % change of TTLB vs the baseline arm.
    Ab {
        /// Records file (NDJSON; ramp or h2o-style stats).
        records: PathBuf,
        #[command(flatten)]
        ab: AbArgs,
        /// Bootstrap resamples for the 95% band.
        #[arg(long, default_value_t = 400, value_parser = crate::ranges::number_in(1usize, 100_000))]
        resamples: usize,
        /// Seed of the bootstrap resampling.
        #[arg(long, default_value_t = 0x5eed)]
        seed: u64,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// CDF of per-path % change of TTLB (arms that share paths).
    Paired {
        /// Records file (NDJSON).
        records: PathBuf,
        #[command(flatten)]
        ab: AbArgs,
        /// Record keys identifying a path, comma-separated.
        #[arg(long, default_value = "seed", value_delimiter = ',')]
        pair_key: Vec<String>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// TTLB (median, p10-p90 band) and packets lost against a grid axis,
    /// one line per arm (records of `ramp fleet` with a grid population,
    /// or any records with path.* keys).
    Grid {
        /// Records file (NDJSON).
        records: PathBuf,
        /// The x axis: loss, rate, rtt, queue or size (default: the first
        /// that varies, in that order). Other axes are pooled.
        #[arg(long)]
        axis: Option<String>,
        /// Record key naming the arm.
        #[arg(long, default_value = "group")]
        arm_key: String,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Throughput (arriving and delivered, Mbit/s) and the delay through
    /// the link over time, from `ramp shell --packet-log`, as Mahimahi's
    /// mm-throughput-graph and mm-delay-graph draw a --downlink-log.
    Packets {
        /// Per-packet log (NDJSON).
        log: PathBuf,
        /// The direction: `down` (towards the shell's command) or `up`.
        #[arg(long, default_value = "down", value_parser = ["down", "up"])]
        dir: String,
        /// Bin width, ms.
        #[arg(long, default_value_t = 50)]
        bin_ms: u32,
        /// Draw the delay through the link instead of throughput.
        #[arg(long)]
        delay: bool,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// y against x from a CSV (header `x label,series,...`, one row per
    /// x), one line per series: bench tables such as a rate ratio
    /// against RTT.
    Xy {
        /// CSV file.
        csv: PathBuf,
        /// Description of the y axis.
        #[arg(long, default_value = "")]
        y_label: String,
        /// Shade a reference band of y: `--band LO HI` (e.g. `--band 0.5 2`).
        #[arg(long, num_args = 2, value_names = ["LO", "HI"])]
        band: Option<Vec<f64>>,
        /// Logarithmic y axis.
        #[arg(long)]
        log_y: bool,
        #[command(flatten)]
        out: OutputArgs,
    },
}

impl ChartCmd {
    /// The files the chart reads.
    fn inputs(&self) -> Vec<&std::path::Path> {
        match self {
            ChartCmd::Timeseq { trace, .. } => vec![trace],
            ChartCmd::Delivery { traces, .. } => traces.iter().map(|t| t.as_path()).collect(),
            ChartCmd::Ab { records, .. }
            | ChartCmd::Paired { records, .. }
            | ChartCmd::Grid { records, .. } => vec![records],
            ChartCmd::Xy { csv, .. } => vec![csv],
            ChartCmd::Packets { log, .. } => vec![log],
        }
    }
}

#[derive(clap::Args, Debug)]
struct AbArgs {
    /// Name of the baseline arm.
    #[arg(long, default_value = "baseline")]
    baseline: String,
    /// Facet: a record key (e.g. `pop`), `size` (decade object-size bins) or
    /// `size:EDGE,EDGE,...` (bin edges as sizes: `300KB,1MB` or bytes).
    #[arg(long)]
    by: Option<String>,
    /// Record key naming the arm.
    #[arg(long, default_value = "group")]
    arm_key: String,
}

impl AbArgs {
    fn options(&self) -> anyhow::Result<AbOptions> {
        let mut o = AbOptions::new(&self.baseline);
        o.arm_key = self.arm_key.clone();
        if let Some(by) = &self.by {
            o.facet = Facet::parse(by)?;
        }
        Ok(o)
    }
}

#[derive(clap::Args, Debug)]
struct OutputArgs {
    /// Output file: .png or .svg.
    #[arg(short, long)]
    output: PathBuf,
    /// Page colours.
    #[arg(long, value_enum, default_value_t = ThemeArg::Light)]
    theme: ThemeArg,
    /// Chart title (default: from the data).
    #[arg(long)]
    title: Option<String>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum ThemeArg {
    Light,
    Dark,
}

impl From<ThemeArg> for Theme {
    fn from(t: ThemeArg) -> Theme {
        match t {
            ThemeArg::Light => Theme::Light,
            ThemeArg::Dark => Theme::Dark,
        }
    }
}

/// Runs `ramp plot`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let out = match &args.chart {
        ChartCmd::Timeseq { out, .. }
        | ChartCmd::Delivery { out, .. }
        | ChartCmd::Ab { out, .. }
        | ChartCmd::Paired { out, .. }
        | ChartCmd::Grid { out, .. }
        | ChartCmd::Xy { out, .. }
        | ChartCmd::Packets { out, .. } => out,
    };
    // Fail on a bad output name, or an output over an input, before
    // reading any input.
    ramp_plot::chart::Format::of_path(&out.output)?;
    crate::clobber::refuse_output_over_inputs("--output", &out.output, &args.chart.inputs())?;
    let theme = Theme::from(out.theme);
    match &args.chart {
        ChartCmd::Timeseq { trace, out } => {
            let t = read_trace(trace)?;
            let mut c = TimeSeqChart::new(&t);
            if let Some(title) = &out.title {
                c = c.title(title);
            }
            save(&c, &out.output, theme)?;
        }
        ChartCmd::Delivery {
            traces,
            no_queue,
            out,
        } => {
            let ts = traces
                .iter()
                .map(|p| read_trace(p))
                .collect::<Result<Vec<_>, _>>()?;
            let mut c = DeliveryChart::new(ts.iter().collect()).queue(!no_queue);
            if let Some(title) = &out.title {
                c = c.title(title);
            }
            save(&c, &out.output, theme)?;
        }
        ChartCmd::Ab {
            records,
            ab,
            resamples,
            seed,
            out,
        } => {
            let mut o = ab.options()?;
            o.bootstrap.resamples = *resamples;
            o.bootstrap.seed = *seed;
            // Streamed: only arm, TTLB, facet and path of each line are kept.
            let samples = AbSamples::read(records, &o)?;
            let result =
                ab_curves_of(&samples, &o).with_context(|| format!("{}", records.display()))?;
            let mut c = AbChart::new(&result);
            if let Some(title) = &out.title {
                c = c.title(title);
            }
            save(&c, &out.output, theme)?;
        }
        ChartCmd::Paired {
            records,
            ab,
            pair_key,
            out,
        } => {
            let mut o = ab.options()?;
            o.pair_keys = pair_key.clone();
            let samples = AbSamples::read(records, &o)?;
            let result =
                paired_deltas_of(&samples, &o).with_context(|| format!("{}", records.display()))?;
            let mut c = PairedChart::new(&result);
            if let Some(title) = &out.title {
                c = c.title(title);
            }
            save(&c, &out.output, theme)?;
        }
        ChartCmd::Grid {
            records,
            axis,
            arm_key,
            out,
        } => {
            grid(records, axis.as_deref(), arm_key, out, theme)?;
        }
        ChartCmd::Packets {
            log,
            dir,
            bin_ms,
            delay,
            out,
        } => {
            packets(log, dir, *bin_ms, *delay, out, theme)?;
        }
        ChartCmd::Xy {
            csv,
            y_label,
            band,
            log_y,
            out,
        } => {
            xy(csv, y_label, band.as_deref(), *log_y, out, theme)?;
        }
    }
    Ok(())
}

/// `ramp plot grid`: TTLB and packets lost against one grid axis (`axis`,
/// or the first that varies).
fn grid(
    records: &Path,
    axis: Option<&str>,
    arm_key: &str,
    out: &OutputArgs,
    theme: Theme,
) -> anyhow::Result<()> {
    let axis = axis.map(GridAxis::parse).transpose()?;
    let samples = GridSamples::read(records, arm_key)?;
    let axis = match axis {
        Some(a) => a,
        None => *samples.varying_axes().first().ok_or_else(|| {
            anyhow::anyhow!(
                "{}: no grid axis varies (no grid.* or path.* key takes 2..{} values); \
                 name one with --axis",
                records.display(),
                ramp_plot::grid::MAX_AXIS_VALUES
            )
        })?,
    };
    let result =
        grid_curves(&samples, axis, &[]).with_context(|| format!("{}", records.display()))?;
    let mut c = GridChart::new(&result);
    if let Some(title) = &out.title {
        c = c.title(title);
    }
    save(&c, &out.output, theme)?;
    Ok(())
}

/// `ramp plot packets`: throughput or delay through the link over time,
/// from a per-packet log.
fn packets(
    log: &Path,
    dir: &str,
    bin_ms: u32,
    delay: bool,
    out: &OutputArgs,
    theme: Theme,
) -> anyhow::Result<()> {
    let f = std::fs::File::open(log).with_context(|| format!("reading {}", log.display()))?;
    let s = PacketSeries::read(
        std::io::BufReader::new(f),
        dir,
        f64::from(bin_ms.max(1)) / 1e3,
    )
    .with_context(|| format!("{}", log.display()))?;
    let (data, y) = if delay {
        (s.delay(), "delay through the link (ms)")
    } else {
        (s.throughput(), "Mbit/s")
    };
    let title = out.title.clone().unwrap_or_else(|| {
        format!(
            "{} {dir}link, {bin_ms} ms bins",
            if delay { "delay" } else { "throughput" }
        )
    });
    let c = XyChart::new(&data, title, y).linear_x(true);
    save(&c, &out.output, theme)?;
    Ok(())
}

/// `ramp plot xy`: y against x from a CSV, one line per series.
fn xy(
    csv: &Path,
    y_label: &str,
    band: Option<&[f64]>,
    log_y: bool,
    out: &OutputArgs,
    theme: Theme,
) -> anyhow::Result<()> {
    // A chart's points: a few thousand rows. The cap refuses
    // `/dev/zero` or a records file at once instead of reading it whole.
    const MAX_XY_CSV_BYTES: u64 = 64 << 20;
    let text =
        ramp_vocab::bounded_read::read_capped_to_string(csv, MAX_XY_CSV_BYTES, "an xy chart's CSV")
            .with_context(|| format!("reading {}", csv.display()))?;
    let data = XyData::parse_csv(&text).with_context(|| format!("{}", csv.display()))?;
    let title = out.title.clone().unwrap_or_else(|| y_label.to_string());
    let mut c = XyChart::new(&data, title, y_label).log_y(log_y);
    if let Some([lo, hi]) = band {
        c = c.band(*lo, *hi);
    }
    save(&c, &out.output, theme)?;
    Ok(())
}
