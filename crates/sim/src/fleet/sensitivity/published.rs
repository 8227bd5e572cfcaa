//! The published production figures and each one's verdict against the
//! model's interval: a TTLB figure under every [`Reading`] the sources
//! leave open, a loss figure once.

use std::collections::BTreeMap;

use crate::fleet::summary::percentile;

use super::design::{Point, PointKind};
use super::figures::{Figures, Reading, Readings};

/// A figure the Rapid Start production experiment published (the Rapid
/// Start slides, IETF 125), as a [`Figures::named`] name or an aggregate.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Published {
    /// What it is.
    pub what: &'static str,
    /// The published value, %.
    pub value: f64,
}

/// The published figures the `rapid-start-2026` preset is compared with:
/// global gain, the smallest and largest per-POP gain, the smallest and
/// largest size bin's gain, the size trend (`bin:trend`: the largest
/// bin's change minus the smallest bin's, −10.6 − (−14.9) = +4.3 points;
/// positive when the largest objects gain less), the four arms' average
/// loss, the baseline's loss P50/P90/P99, and the loss order's margin (the
/// published averages' smallest step: rapidstart 1.98 − rapid-no-jump 1.92
/// = 0.06 point). The first six are TTLB changes and get a verdict under
/// every [`Reading`].
pub const RAPID_START_2026: [Published; 14] = [
    Published {
        what: "global",
        value: -14.7,
    },
    Published {
        what: "pop:least gain",
        value: -10.8,
    },
    Published {
        what: "pop:most gain",
        value: -21.5,
    },
    Published {
        what: "bin:first",
        value: -14.9,
    },
    Published {
        what: "bin:last",
        value: -10.6,
    },
    Published {
        what: "bin:trend",
        value: 4.3,
    },
    Published {
        what: "loss:baseline",
        value: 1.52,
    },
    Published {
        what: "loss:jumpstart",
        value: 1.61,
    },
    Published {
        what: "loss:rapid-no-jump",
        value: 1.92,
    },
    Published {
        what: "loss:rapidstart",
        value: 1.98,
    },
    Published {
        what: "baseline-loss-p50",
        value: 0.62,
    },
    Published {
        what: "baseline-loss-p90",
        value: 4.36,
    },
    Published {
        what: "baseline-loss-p99",
        value: 13.80,
    },
    Published {
        what: "loss-order-margin",
        value: 0.06,
    },
];

impl Published {
    /// Whether the figure is a TTLB change (read under every [`Reading`])
    /// rather than a loss figure.
    pub fn is_ttlb(&self) -> bool {
        self.what == "global" || self.what.starts_with("pop:") || self.what.starts_with("bin:")
    }
}

/// A published figure against the model's 90 % interval of the same
/// quantity.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Verdict {
    /// The published figure.
    pub published: Published,
    /// The model's 5th and 95th percentile over the LHS points.
    pub interval: (f64, f64),
    /// Whether the published value lies inside.
    pub inside: bool,
    /// The reading the model's TTLB figure is taken under; `None` for a
    /// loss figure.
    pub reading: Option<Reading>,
}

/// A slice's change under `r`: from the readings, or for a points file
/// written before them, from the fields that carried the ten-point
/// average and the global change of the mean (NaN otherwise).
fn read(readings: Option<&Readings>, legacy: Option<f64>, r: Reading) -> f64 {
    match readings.map(|x| x.get(r)) {
        Some(v) if !v.is_nan() => v,
        _ => legacy.unwrap_or(f64::NAN),
    }
}

/// Every region's or bin's change under `r`.
fn slices(
    readings: &BTreeMap<String, Readings>,
    ten_point: &BTreeMap<String, f64>,
    r: Reading,
) -> BTreeMap<String, f64> {
    let legacy = |k: &String| {
        (r == Reading::TenPoint)
            .then(|| ten_point.get(k).copied())
            .flatten()
    };
    readings
        .keys()
        .chain(ten_point.keys())
        .map(|k| (k.clone(), read(readings.get(k), legacy(k), r)))
        .collect()
}

/// One point's value of a TTLB figure under `r`: `global`, for
/// `pop:least gain` / `pop:most gain` the largest / smallest per-POP
/// change, for `bin:first` / `bin:last` the first / last size bin in
/// `bins` order, `bin:trend` the last minus the first.
fn ttlb_value(what: &str, f: &Figures, bins: &[String], r: Reading) -> Option<f64> {
    let global_legacy = match r {
        Reading::TenPoint => Some(f.global_pct),
        Reading::Mean => Some(f.global_mean_pct),
        _ => None,
    };
    let pops = || slices(&f.pop_readings, &f.pop_pct, r).into_values();
    let bin =
        |b: Option<&String>| b.and_then(|b| slices(&f.bin_readings, &f.bin_pct, r).get(b).copied());
    match what {
        "global" => Some(read(Some(&f.global_readings), global_legacy, r)),
        "pop:least gain" => pops().reduce(f64::max),
        "pop:most gain" => pops().reduce(f64::min),
        "bin:first" => bin(bins.first()),
        "bin:last" => bin(bins.last()),
        "bin:trend" => Some(bin(bins.last())? - bin(bins.first())?),
        _ => None,
    }
}

/// The model's LHS values of a published quantity: a TTLB figure under
/// `reading` ([`ttlb_value`]), or a named loss figure.
fn lhs_values(
    what: &str,
    reading: Option<Reading>,
    points: &[Point],
    figures: &[Figures],
    bins: &[String],
) -> Vec<f64> {
    points
        .iter()
        .zip(figures)
        .filter(|(p, _)| matches!(p.kind, PointKind::Lhs(_)))
        .filter_map(|(_, f)| match reading {
            Some(r) => ttlb_value(what, f, bins, r),
            None => f.named().into_iter().find(|x| x.0 == what).map(|x| x.1),
        })
        .filter(|v| v.is_finite())
        .collect()
}

/// Each published figure against the model's interval: a TTLB figure
/// once per [`Reading`] (in [`Reading::ALL`]'s order), a loss figure once.
pub fn verdicts(
    published: &[Published],
    points: &[Point],
    figures: &[Figures],
    bins: &[String],
) -> Vec<Verdict> {
    let readings = |p: &Published| -> Vec<Option<Reading>> {
        if p.is_ttlb() {
            Reading::ALL.iter().copied().map(Some).collect()
        } else {
            vec![None]
        }
    };
    published
        .iter()
        .flat_map(|p| readings(p).into_iter().map(move |r| (p, r)))
        .map(|(p, reading)| {
            let mut v = lhs_values(p.what, reading, points, figures, bins);
            v.sort_by(f64::total_cmp);
            let interval = (percentile(&v, 5.0), percentile(&v, 95.0));
            Verdict {
                published: p.clone(),
                interval,
                inside: interval.0 <= p.value && p.value <= interval.1,
                reading,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::sensitivity::analysis::analyze;
    use crate::fleet::sensitivity::design::design;
    use crate::fleet::sensitivity::test_support::{decl, fig};

    #[test]
    fn the_baseline_loss_percentiles_and_the_loss_order_margin_get_intervals() {
        let a = decl();
        let d = design(&a, 40, 1);
        let figs: Vec<Figures> = d.iter().map(|p| fig(p.values[0].1)).collect();
        let an = analyze(&d, &figs);
        let names: Vec<&str> = an.intervals.iter().map(|i| i.figure.as_str()).collect();
        let tail = &names[names.len() - 4..];
        assert_eq!(
            tail,
            [
                "baseline-loss-p50",
                "baseline-loss-p90",
                "baseline-loss-p99",
                "loss-order-margin"
            ]
        );
        // P99 = 12 + the first parameter (a share in [0, 1]).
        let p99 = &an.intervals[names.len() - 2];
        assert!(
            p99.lo >= 12.0 && p99.hi <= 13.0 && p99.lo < p99.hi,
            "{p99:?}"
        );
        // The new published figures find their model intervals.
        let v = verdicts(&RAPID_START_2026, &d, &figs, &["x".to_string()]);
        let new = v.iter().filter(|v| {
            v.published.what.starts_with("baseline-loss") || v.published.what == "loss-order-margin"
        });
        assert_eq!(new.clone().count(), 4);
        assert!(new.clone().all(|v| v.interval.0.is_finite()), "{v:?}");
        let p99 = v.iter().find(|v| v.published.what == "baseline-loss-p99");
        assert!(!p99.unwrap().inside, "13.8 is above 12 + 1");
        assert_eq!(an.loss_order_held, 40);
    }

    fn verdict<'a>(v: &'a [Verdict], what: &str, r: Option<Reading>) -> &'a Verdict {
        v.iter()
            .find(|v| v.published.what == what && v.reading == r)
            .unwrap_or_else(|| panic!("no verdict for {what} {r:?}"))
    }

    #[test]
    fn every_ttlb_figure_gets_an_interval_under_every_reading() {
        let d = design(&decl(), 40, 1);
        // Per point: ten-point = the first parameter's value (a share in
        // [0, 1]), the other readings 1, 2, 3 above it (`fig`).
        let figs: Vec<Figures> = d.iter().map(|p| fig(p.values[0].1)).collect();
        let v = verdicts(&RAPID_START_2026, &d, &figs, &["x".to_string()]);
        // Six TTLB figures x four readings, eight loss figures once.
        assert_eq!(v.len(), 6 * 4 + 8);
        for p in RAPID_START_2026.iter().filter(|p| p.is_ttlb()) {
            let got: Vec<Option<Reading>> = v
                .iter()
                .filter(|v| v.published.what == p.what)
                .map(|v| v.reading)
                .collect();
            assert_eq!(got, Reading::ALL.map(Some), "{}", p.what);
        }
        let within = |v: &Verdict, lo: f64, hi: f64| {
            assert!(
                lo <= v.interval.0 && v.interval.0 < v.interval.1 && v.interval.1 <= hi,
                "{v:?} not within {lo} … {hi}"
            );
        };
        for (i, r) in Reading::ALL.into_iter().enumerate() {
            let k = i as f64;
            within(verdict(&v, "global", Some(r)), k, k + 1.0);
            // Least gain: the larger of the two POPs (global + 1).
            within(verdict(&v, "pop:least gain", Some(r)), k + 1.0, k + 2.0);
            within(verdict(&v, "pop:most gain", Some(r)), k - 1.0, k);
            // One bin: the trend is zero, and 4.3 is outside.
            let t = verdict(&v, "bin:trend", Some(r));
            assert_eq!(t.interval, (0.0, 0.0));
            assert!(!t.inside);
        }
        assert!(verdict(&v, "baseline-loss-p99", None)
            .interval
            .0
            .is_finite());
    }

    #[test]
    fn the_size_trend_is_the_last_bin_minus_the_first_under_each_reading() {
        let d = design(&decl(), 40, 1);
        // Largest bin gains 3 … 6 points less than the smallest.
        let figs: Vec<Figures> = d
            .iter()
            .map(|p| {
                let mut f = fig(-20.0);
                let first = f.bin_readings["x"];
                let mut last = first;
                let t = 3.0 + 3.0 * p.values[0].1;
                last.ten_point_pct += t;
                last.p1_99_pct += t;
                last.mean_pct += t;
                last.median_pct += t;
                f.bin_readings = [("small".to_string(), first), ("large".to_string(), last)].into();
                f
            })
            .collect();
        let bins = ["small".to_string(), "large".to_string()];
        let v = verdicts(&RAPID_START_2026, &d, &figs, &bins);
        for r in Reading::ALL {
            let t = verdict(&v, "bin:trend", Some(r));
            assert!(t.inside, "4.3 inside {t:?}");
            assert!(t.interval.0 >= 3.0 && t.interval.1 <= 6.0, "{t:?}");
            // The bins themselves: -20 + the reading's offset.
            let first = verdict(&v, "bin:first", Some(r));
            assert_eq!(first.interval.0, first.interval.1);
        }
    }

    #[test]
    fn a_points_file_from_before_the_readings_keeps_its_two_readings() {
        let d = design(&decl(), 40, 1);
        let figs: Vec<Figures> = d
            .iter()
            .map(|p| {
                let mut j = serde_json::to_value(fig(p.values[0].1)).unwrap();
                let m = j.as_object_mut().unwrap();
                for k in ["global_readings", "pop_readings", "bin_readings"] {
                    assert!(m.remove(k).is_some(), "{k}");
                }
                serde_json::from_value(j).unwrap()
            })
            .collect();
        let v = verdicts(&RAPID_START_2026, &d, &figs, &["x".to_string()]);
        // The ten-point figures come from the older fields, as does the
        // global change of the mean (`fig`: half the ten-point change).
        let ten = verdict(&v, "pop:least gain", Some(Reading::TenPoint));
        assert!(ten.interval.0 >= 1.0 && ten.interval.1 <= 2.0, "{ten:?}");
        let mean = verdict(&v, "global", Some(Reading::Mean));
        assert!(mean.interval.0 >= 0.0 && mean.interval.1 <= 0.5, "{mean:?}");
        // What the file never had has no interval.
        let med = verdict(&v, "pop:least gain", Some(Reading::Median));
        assert!(med.interval.0.is_nan() && !med.inside, "{med:?}");
    }
}
