//! The delivery curve (the form of the Rapid Start slides and Kazuho Oku's
//! quicly simulator plots): in-order bytes available at the receiver over
//! time, one line per trace; the bottleneck queue on the right axis. The
//! time a curve reaches the object size is its TTLB; plateaus are
//! head-of-line stalls while losses are repaired.

use super::axes::{cartesian, de, legend, mesh, steps, styled_secondary, Frame};
use super::fit::{ellipsize, spec_entries, spec_key, spec_key_height, titled, SpecEntry};
use super::style::Theme;
use super::thin::thin_steps;
use super::Chart;
use crate::error::{Error, Result};
use crate::trace::Trace;
use crate::units::{byte_unit, format_ms, format_number, nice_scale, time_unit};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Delivery curves of several traces (normally one per algorithm, same path).
#[derive(Debug, Clone)]
pub struct DeliveryChart<'a> {
    traces: Vec<&'a Trace>,
    title: Option<String>,
    queue: Option<bool>,
}

/// With more traces than this, queues are left off unless asked for: eight
/// dashed queue lines bury the delivery curves.
const AUTO_QUEUE_MAX_TRACES: usize = 3;

impl<'a> DeliveryChart<'a> {
    /// Curves for `traces`. The queue is shown when the traces have it and
    /// there are at most three of them (see [`DeliveryChart::queue`]).
    pub fn new(traces: Vec<&'a Trace>) -> Self {
        DeliveryChart {
            traces,
            title: None,
            queue: None,
        }
    }

    /// Replaces the title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Shows or hides the queue on the right axis (overriding the default).
    pub fn queue(mut self, show: bool) -> Self {
        self.queue = Some(show);
        self
    }

    fn default_title(&self) -> String {
        let mut t = "In-order bytes delivered".to_string();
        let Some(first) = self.traces.first() else {
            return t;
        };
        let m = &first.meta;
        if let Some(s) = &m.scenario {
            t.push_str(&format!(" — {s}"));
        }
        // The path belongs in the title only if every trace ran over it.
        if self.traces.iter().all(|tr| tr.meta.path == m.path) {
            let p = m.path_summary();
            if !p.is_empty() {
                t.push_str(&format!(": {p}"));
            }
        }
        t
    }
}

/// Time (ms) at which `trace` delivered its whole object, if it did.
pub fn ttlb_ms(trace: &Trace) -> Option<f64> {
    let size = trace.meta.content_length?;
    trace
        .delivered
        .iter()
        .find(|d| d.bytes >= size)
        .map(|d| d.t_us as f64 / 1000.0)
}

/// Widest a trace's name may be in the legend (a third of the plot): the
/// legend sits inside the plot, over the start of the curves.
const LEGEND_NAME_PX: u32 = 330;

/// Width and height of the chart without its spec key.
const SIZE: (u32, u32) = (1100, 620);

impl DeliveryChart<'_> {
    /// The key under the plot: each trace's full controller spec, for the
    /// traces whose legend label does not say it.
    fn spec_key(&self, theme: Theme) -> Vec<SpecEntry> {
        let items: Vec<_> = self
            .traces
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let spec = t.meta.spec()?;
                Some((theme.series(i), t.meta.label(), spec.to_string()))
            })
            .collect();
        spec_entries(SIZE.0, &items)
    }
}

impl Chart for DeliveryChart<'_> {
    fn size(&self) -> (u32, u32) {
        // The colours do not change the key's height.
        (
            SIZE.0,
            SIZE.1 + spec_key_height(&self.spec_key(Theme::default())),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: Theme) -> Result<()> {
        if self.traces.is_empty() {
            return Err(Error::Data("delivery chart: no traces".to_string()));
        }
        let title = self.title.clone().unwrap_or_else(|| self.default_title());
        let key = self.spec_key(theme);
        let (_, h) = root.dim_in_pixel();
        let (plot, key_area) = root.split_vertically(h - spec_key_height(&key));
        spec_key(&key_area, &key, theme)?;
        let area = titled(&plot, &title, &[], theme)?;
        let ms = |t: u64| t as f64 / 1000.0;
        let end = self
            .traces
            .iter()
            .map(|t| ms(t.delivered.last().map_or(0, |d| d.t_us)))
            .fold(1.0, f64::max);
        let y_max = self
            .traces
            .iter()
            .flat_map(|t| {
                t.delivered
                    .last()
                    .map(|d| d.bytes as f64)
                    .into_iter()
                    .chain(t.meta.content_length.map(|c| c as f64))
            })
            .fold(1.0, f64::max);
        let q_max = self
            .traces
            .iter()
            .flat_map(|t| t.queue.iter().map(|q| q.bytes as f64))
            .fold(0.0, f64::max);
        let wanted = self
            .queue
            .unwrap_or(self.traces.len() <= AUTO_QUEUE_MAX_TRACES);
        let show_queue = wanted && q_max > 0.0;
        let x = nice_scale(0.0, end, 12);
        let xu = time_unit(x.hi);
        let y = nice_scale(0.0, y_max, 8);
        let yu = byte_unit(y.hi);
        let y2 = nice_scale(0.0, q_max.max(1.0), 8);
        let y2u = byte_unit(y2.hi);
        let frame = Frame {
            left: 78,
            right: if show_queue { 78 } else { 10 },
            bottom: 44,
            caption: None,
        };
        let mut chart = cartesian(&area, None, &x, &y, frame, show_queue, theme)?
            .set_secondary_coord(super::axes::ranged(&x), super::axes::ranged(&y2));
        mesh(
            &mut chart,
            &format!("time since connection start ({})", xu.suffix),
            xu,
            &format!("bytes delivered in order ({})", yu.suffix),
            yu,
            theme,
            true,
        )?;
        if show_queue {
            let f2 = move |v: &f64| format_number(v / y2u.divisor);
            let mut m = chart.configure_secondary_axes();
            styled_secondary(&mut m, theme)
                .y_desc(format!("bottleneck queue ({}), dashed", y2u.suffix))
                .y_label_formatter(&f2);
            de(m.draw())?;
        }
        let (w, _) = area.dim_in_pixel();
        for (i, tr) in self.traces.iter().enumerate() {
            let c = theme.series(i);
            // Past the palette, lines repeat colours dashed.
            let dashed = i >= super::style::SERIES.len();
            let mut pts: Vec<(f64, f64)> = vec![(0.0, 0.0)];
            pts.extend(tr.delivered.iter().map(|d| (ms(d.t_us), d.bytes as f64)));
            // Not called TTLB: producers define TTLB from the server's
            // request time; this is the receiver's last in-order byte.
            let name = ellipsize(&tr.meta.label(), LEGEND_NAME_PX, 13.0);
            let label = match ttlb_ms(tr) {
                Some(t) => format!("{name} — last byte {}", format_ms(t)),
                None => name,
            };
            let line = thin_steps(&steps(&pts), (x.lo, x.hi), w);
            let anno = if dashed {
                de(chart.draw_series(DashedLineSeries::new(line, 8, 4, c.stroke_width(2))))?
            } else {
                de(chart.draw_series(LineSeries::new(line, c.stroke_width(2))))?
            };
            anno.label(label).legend(move |(a, b)| {
                let style = c.stroke_width(3);
                let e: DynElement<'static, _, _> = if dashed {
                    plotters::element::DashedPathElement::new(
                        vec![(a, b), (a + 20, b)],
                        6,
                        3,
                        style,
                    )
                    .into_dyn()
                } else {
                    PathElement::new(vec![(a, b), (a + 20, b)], style).into_dyn()
                };
                e
            });
            if show_queue && !tr.queue.is_empty() {
                let q: Vec<(f64, f64)> = tr
                    .queue
                    .iter()
                    .map(|s| (ms(s.t_us), s.bytes as f64))
                    .collect();
                de(chart.draw_secondary_series(DashedLineSeries::new(
                    thin_steps(&steps(&q), (x.lo, x.hi), w),
                    4,
                    3,
                    c.mix(0.8).stroke_width(1),
                )))?;
            }
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft, theme)
    }
}
