//! The time-sequence chart of one connection (tcptrace lineage): stream
//! offset of every packet sent (dark dots), acknowledged (gold dots), lost
//! (×) and retransmitted (▲), with cwnd and bytes in flight as step lines
//! on the same byte axis; below it, time-aligned panels for RTT (min,
//! smoothed, latest) and the bottleneck queue (bytes, and ms when the
//! link rate is known).

use super::axes::{cartesian, de, legend, line_swatch, mesh, note, steps, styled_secondary, Frame};
use super::fit::{title_height, titled, wrap, NOTE_SIZE};
use super::style::{self, Theme};
use super::thin::{thin_points, thin_steps};
use super::Chart;
use crate::error::Result;
use crate::trace::Trace;
use crate::units::{byte_unit, format_number, nice_scale, time_unit, AxisUnit};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::HashMap;

/// Time-sequence chart of one trace.
#[derive(Debug, Clone)]
pub struct TimeSeqChart<'a> {
    trace: &'a Trace,
    title: Option<String>,
}

impl<'a> TimeSeqChart<'a> {
    /// A chart of `trace`, titled from its header.
    pub fn new(trace: &'a Trace) -> Self {
        TimeSeqChart { trace, title: None }
    }

    /// Replaces the title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    fn default_title(&self) -> String {
        let m = &self.trace.meta;
        let mut t = format!("Time sequence — {}", m.label());
        if let Some(s) = &m.scenario {
            t.push_str(&format!(" — {s}"));
        }
        let path = m.path_summary();
        if !path.is_empty() {
            t.push_str(&format!(": {path}"));
        }
        t
    }
}

const W: u32 = 1200;
const H: u32 = 900;
const FRAME: Frame = Frame {
    left: 78,
    right: 78,
    bottom: 36,
    caption: None,
};

fn ms(t_us: u64) -> f64 {
    t_us as f64 / 1000.0
}

impl TimeSeqChart<'_> {
    /// The lines under the title: the controller's full spec, when the
    /// title names the trace by a shorter label.
    fn subtitle(&self) -> Vec<String> {
        match self.trace.meta.spec() {
            Some(spec) => wrap(
                &format!("controller: {spec}"),
                W - 40,
                NOTE_SIZE,
                SUBTITLE_MAX_LINES,
            ),
            None => Vec::new(),
        }
    }
}

/// Lines of the controller spec under the title at most.
const SUBTITLE_MAX_LINES: usize = 3;

impl Chart for TimeSeqChart<'_> {
    fn size(&self) -> (u32, u32) {
        // The panels keep their height; the title band grows with the spec.
        (W, H + title_height(self.subtitle().len()) - title_height(0))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: Theme) -> Result<()> {
        let tr = self.trace;
        let title = self.title.clone().unwrap_or_else(|| self.default_title());
        let area = titled(root, &title, &self.subtitle(), theme)?;
        let (_, h) = area.dim_in_pixel();
        let (top, rest) = area.split_vertically(h * 56 / 100);
        let (_, rh) = rest.dim_in_pixel();
        let (mid, bottom) = rest.split_vertically(rh / 2);

        let end_ms = ms(tr.end_us()).max(1.0);
        let scale = nice_scale(0.0, end_ms, 12);
        let unit = time_unit(scale.hi);
        let t = TimeAxis {
            desc: format!("time since connection start ({})", unit.suffix),
            scale,
            unit,
        };
        self.draw_sequence(&top, &t, theme)?;
        self.draw_rtt(&mid, &t, theme)?;
        self.draw_queue(&bottom, &t, theme)
    }
}

/// The time axis the three panels share.
struct TimeAxis {
    /// Range and ticks, ms.
    scale: crate::units::Scale,
    /// The unit the labels show.
    unit: AxisUnit,
    /// The axis description.
    desc: String,
}

impl TimeSeqChart<'_> {
    fn draw_sequence<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        t: &TimeAxis,
        theme: Theme,
    ) -> Result<()> {
        let (x, xu, x_desc) = (&t.scale, t.unit, t.desc.as_str());
        let tr = self.trace;
        let end_of: HashMap<u64, f64> = tr
            .sent
            .iter()
            .filter_map(|s| s.stream.map(|(o, l)| (s.pn, (o + l) as f64)))
            .collect();
        let sent: Vec<(f64, f64)> = tr
            .sent
            .iter()
            .filter(|s| !s.retx)
            .filter_map(|s| s.stream.map(|(o, l)| (ms(s.t_us), (o + l) as f64)))
            .collect();
        let retx: Vec<(f64, f64)> = tr
            .sent
            .iter()
            .filter(|s| s.retx)
            .filter_map(|s| s.stream.map(|(o, l)| (ms(s.t_us), (o + l) as f64)))
            .collect();
        let acked: Vec<(f64, f64)> = tr
            .acked
            .iter()
            .filter_map(|a| end_of.get(&a.pn).map(|&y| (ms(a.t_us), y)))
            .collect();
        let lost: Vec<(f64, f64)> = tr
            .lost
            .iter()
            .filter_map(|l| {
                l.stream
                    .map(|(o, len)| (o + len) as f64)
                    .or_else(|| end_of.get(&l.pn).copied())
                    .map(|y| (ms(l.t_us), y))
            })
            .collect();
        let cwnd: Vec<(f64, f64)> = tr.cc.iter().map(|c| (ms(c.t_us), c.cwnd as f64)).collect();
        let inflight: Vec<(f64, f64)> = tr
            .cc
            .iter()
            .map(|c| (ms(c.t_us), c.inflight as f64))
            .collect();

        let y_max = sent
            .iter()
            .chain(&retx)
            .chain(&acked)
            .chain(&cwnd)
            .chain(&inflight)
            .map(|p| p.1)
            .fold(0.0, f64::max);
        let y = nice_scale(0.0, y_max.max(1.0), 8);
        let yu = byte_unit(y.hi);
        let mut chart = cartesian(area, None, x, &y, FRAME, false, theme)?;
        mesh(
            &mut chart,
            x_desc,
            xu,
            &format!("stream offset, window ({})", yu.suffix),
            yu,
            theme,
            false,
        )?;
        let (w, h) = area.dim_in_pixel();
        let thin = |pts: &[(f64, f64)]| thin_points(pts, (x.lo, x.hi), (y.lo, y.hi), w, h, 1.0);
        let thin_line = |pts: Vec<(f64, f64)>| thin_steps(&steps(&pts), (x.lo, x.hi), w);

        let sent_c = theme.sent();
        de(chart.draw_series(
            thin(&sent)
                .into_iter()
                .map(|p| Circle::new(p, 1.5, sent_c.filled())),
        ))?
        .label(format!("sent, new data ({})", sent.len()))
        .legend(move |(a, b)| Circle::new((a + 10, b), 3, sent_c.filled()));
        de(chart.draw_series(
            thin(&acked)
                .into_iter()
                .map(|p| Circle::new(p, 1.5, style::ACKED.filled())),
        ))?
        // Acknowledged packets include retransmissions, which "sent" (new
        // data) leaves to its own series: say so, or 2503 acknowledged of
        // 2500 sent reads as an error.
        .label(format!(
            "acknowledged, incl. retransmissions ({})",
            acked.len()
        ))
        .legend(|(a, b)| Circle::new((a + 10, b), 3, style::ACKED.filled()));
        if !cwnd.is_empty() {
            de(chart.draw_series(LineSeries::new(
                thin_line(cwnd),
                style::CWND.stroke_width(2),
            )))?
            .label("cwnd")
            .legend(line_swatch(style::CWND));
            de(chart.draw_series(LineSeries::new(
                thin_line(inflight),
                style::INFLIGHT.stroke_width(1),
            )))?
            .label("bytes in flight")
            .legend(line_swatch(style::INFLIGHT));
        }
        // Markers are bigger than dots: thin them on a coarser grid so a
        // burst of losses stays a readable band, not a solid smear.
        let thin3 = |pts: &[(f64, f64)]| thin_points(pts, (x.lo, x.hi), (y.lo, y.hi), w, h, 3.0);
        if !retx.is_empty() {
            de(chart.draw_series(
                thin3(&retx)
                    .into_iter()
                    .map(|p| TriangleMarker::new(p, 3, style::RETX.filled())),
            ))?
            .label(format!("retransmitted ({})", retx.len()))
            .legend(|(a, b)| TriangleMarker::new((a + 10, b), 4, style::RETX.filled()));
        }
        if !lost.is_empty() {
            de(chart.draw_series(
                thin3(&lost)
                    .into_iter()
                    .map(|p| Cross::new(p, 3, style::LOST.stroke_width(1))),
            ))?
            .label(format!("lost ({})", lost.len()))
            .legend(|(a, b)| Cross::new((a + 10, b), 4, style::LOST.stroke_width(2)));
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft, theme)
    }

    fn draw_rtt<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        t: &TimeAxis,
        theme: Theme,
    ) -> Result<()> {
        let (x, xu, x_desc) = (&t.scale, t.unit, t.desc.as_str());
        let rtt = &self.trace.rtt;
        if rtt.is_empty() {
            return note(area, "no RTT samples in this trace", theme);
        }
        let y_max = rtt
            .iter()
            .map(|r| r.latest_us.max(r.smoothed_us).max(r.min_us))
            .max()
            .unwrap_or(0) as f64
            / 1000.0;
        let y = nice_scale(0.0, y_max.max(1.0), 5);
        let ms_unit = AxisUnit {
            divisor: 1.0,
            suffix: "ms",
        };
        let mut chart = cartesian(area, None, x, &y, FRAME, false, theme)?;
        mesh(&mut chart, x_desc, xu, "RTT (ms)", ms_unit, theme, false)?;
        let (w, _) = area.dim_in_pixel();
        let line = |f: fn(&crate::trace::RttSample) -> u64| {
            let pts: Vec<(f64, f64)> = rtt
                .iter()
                .map(|r| (ms(r.t_us), f(r) as f64 / 1000.0))
                .collect();
            thin_steps(&pts, (x.lo, x.hi), w)
        };
        de(chart.draw_series(LineSeries::new(
            line(|r| r.latest_us),
            style::RTT_LATEST.stroke_width(1),
        )))?
        .label("latest")
        .legend(line_swatch(style::RTT_LATEST));
        de(chart.draw_series(LineSeries::new(
            line(|r| r.smoothed_us),
            style::RTT_SMOOTHED.stroke_width(2),
        )))?
        .label("smoothed")
        .legend(line_swatch(style::RTT_SMOOTHED));
        de(chart.draw_series(LineSeries::new(
            steps(&line(|r| r.min_us)),
            style::RTT_MIN.stroke_width(2),
        )))?
        .label("min")
        .legend(line_swatch(style::RTT_MIN));
        legend(&mut chart, SeriesLabelPosition::UpperLeft, theme)
    }

    fn draw_queue<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        t: &TimeAxis,
        theme: Theme,
    ) -> Result<()> {
        let (x, xu, x_desc) = (&t.scale, t.unit, t.desc.as_str());
        let q = &self.trace.queue;
        if q.is_empty() {
            return note(
                area,
                "no bottleneck-queue samples (real runs have none)",
                theme,
            );
        }
        let (w, _) = area.dim_in_pixel();
        let bytes: Vec<(f64, f64)> = q.iter().map(|s| (ms(s.t_us), s.bytes as f64)).collect();
        let delay: Vec<(f64, f64)> = q
            .iter()
            .map(|s| (ms(s.t_us), s.delay_us as f64 / 1000.0))
            .collect();
        let b_max = bytes.iter().map(|p| p.1).fold(0.0, f64::max);
        let d_max = delay.iter().map(|p| p.1).fold(0.0, f64::max);
        let y = nice_scale(0.0, b_max.max(1.0), 5);
        let yu = byte_unit(y.hi);
        let rate = self.trace.meta.path.rate_bps.filter(|r| *r > 0.0);
        // With a known rate the ms axis is the bytes axis re-labelled
        // (delay = bytes × 8 / rate), so one curve reads in both units.
        let y2 = match rate {
            Some(r) => {
                let hi_ms = y.hi * 8.0 / r * 1000.0;
                let s = nice_scale(0.0, hi_ms, 5);
                crate::units::Scale {
                    lo: 0.0,
                    hi: hi_ms,
                    ticks: s
                        .ticks
                        .into_iter()
                        .filter(|t| *t <= hi_ms * (1.0 + 1e-9))
                        .collect(),
                    step: s.step,
                }
            }
            None => nice_scale(0.0, d_max.max(0.001), 5),
        };
        let mut chart = cartesian(area, None, x, &y, FRAME, true, theme)?
            .set_secondary_coord(super::axes::ranged(x), super::axes::ranged(&y2));
        let y_desc = format!("queue ({})", yu.suffix);
        mesh(&mut chart, x_desc, xu, &y_desc, yu, theme, true)?;
        let f2 = |v: &f64| format_number(*v);
        let mut m = chart.configure_secondary_axes();
        styled_secondary(&mut m, theme)
            .y_desc("queueing delay (ms)")
            .y_label_formatter(&f2);
        de(m.draw())?;
        let steps_b = thin_steps(&steps(&bytes), (x.lo, x.hi), w);
        let fill = style::QUEUE.mix(0.25);
        de(chart.draw_series(AreaSeries::new(steps_b.clone(), 0.0, fill)))?;
        de(chart.draw_series(LineSeries::new(steps_b, style::QUEUE.stroke_width(1))))?
            .label(if rate.is_some() {
                "bottleneck queue (bytes, left; ms, right)"
            } else {
                "bottleneck queue (bytes)"
            })
            .legend(line_swatch(style::QUEUE));
        if rate.is_none() {
            let steps_d = thin_steps(&steps(&delay), (x.lo, x.hi), w);
            let c = style::RTT_MIN;
            de(chart.draw_secondary_series(LineSeries::new(steps_d, c.stroke_width(1))))?
                .label("queueing delay (ms)")
                .legend(line_swatch(c));
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft, theme)
    }
}
