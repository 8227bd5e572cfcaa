//! Video segments: a share of a fleet's objects are adaptive-bitrate video
//! segments, whose size follows the path (docs/experiments.md, "Population
//! model", item 10).
//!
//! A player fetches a video as segments of a fixed duration and picks each
//! segment's bit rate from its estimate of the throughput, so a segment's
//! size is the chosen rung of the bit-rate ladder times the segment
//! duration: fast paths fetch large segments and slow paths small ones.
//! The model takes each part from a public source:
//!
//! - the ladder and the duration: Apple's *HLS Authoring Specification for
//!   Apple Devices*, its example H.264 ladder ([`LADDER_KBPS`]) and its
//!   6 s target duration ([`SEGMENT_SECONDS`]);
//! - the rule: dash.js's `ThroughputRule` asks
//!   `AbrController.getQualityForBitrate` for the highest representation
//!   whose bit rate is at most `ThroughputHistory.getSafeAverageThroughput`,
//!   the average throughput times `streaming.abr.bandwidthSafetyFactor`,
//!   0.9 by default ([`BANDWIDTH_SAFETY_FACTOR`]; `src/core/Settings.js`);
//! - the throughput the player sees: the path's bottleneck rate. The
//!   segments this workload can hold (200 KB – 3.2 MB) are the rungs a
//!   path below about 5 Mbit/s picks; on such a path a segment takes most
//!   of its 6 s to arrive, many round trips, so the throughput one flow
//!   measures over it is close to the rate its bottleneck gives one flow
//!   (the model's connection has its bottleneck to itself). On faster
//!   paths the estimate only decides which rung above the workload's
//!   largest size the player takes, which the experiment does not count.
//!
//! A segment outside the workload's sizes (the ladder's 4.5–7.8 Mbit/s
//! rungs are 3.4–5.9 MB, its 145 kbit/s rung 109 KB) is not an object the
//! experiment counts: that connection keeps the object size drawn from the
//! workload's distribution, as a connection that is not a segment does. So
//! the share of the run's objects that are segments is the declared share
//! times the share of paths whose segment fits (reported by the runs).
//!
//! Not modelled: the player's first segments before its estimate settles,
//! variable-bit-rate segments (each is the rung's nominal size), audio
//! segments, other ladders, and other players' rules (hls.js's defaults,
//! `abrBandWidthFactor` 0.95 to keep a rung and `abrBandWidthUpFactor`
//! 0.7 to switch up, would put each rate boundary between 5 % lower and
//! 29 % higher).
//!
//! Which connections fetch segments is drawn from a generator of its own,
//! seeded by the path's seed, whatever the share: no other draw of any
//! connection moves with it, every arm of a connection fetches the same
//! object, and at share 0 every size is the workload's draw.

use ramp_vocab::rng::Rng;

use super::workload::SizeDist;

/// The share of connections whose object is a video segment, the default
/// of `Region::video_share`. \[assumption: 0, the model before this
/// mechanism; no public source gives the share of a CDN's objects
/// ≥ 200 KB that are video segments; range declared in
/// `super::assumptions`\]
pub const VIDEO_SHARE: f64 = 0.0;

/// The example H.264 bit-rate ladder of Apple's HLS Authoring
/// Specification for Apple Devices, kbit/s (416×234 at 145 up to
/// 1920×1080 at 7800), ascending.
pub const LADDER_KBPS: [u64; 9] = [145, 365, 730, 1100, 2000, 3000, 4500, 6000, 7800];

/// Segment duration, seconds: the HLS Authoring Specification's target
/// duration.
pub const SEGMENT_SECONDS: u64 = 6;

/// dash.js's `streaming.abr.bandwidthSafetyFactor` default: the share of
/// the measured average throughput the throughput rule spends.
pub const BANDWIDTH_SAFETY_FACTOR: f64 = 0.9;

/// The stream of the draw (any fixed number apart from the path-sampling,
/// cellular, users and app-limited streams).
const VIDEO_STREAM: u64 = 0x5E61_7E47_1D50_2026;

/// The rung, kbit/s, a player whose throughput estimate is
/// `throughput_bps` picks: the highest at most the estimate times
/// [`BANDWIDTH_SAFETY_FACTOR`], or the lowest if none is.
pub fn rung_kbps(throughput_bps: u64) -> u64 {
    let safe_kbps = throughput_bps as f64 * BANDWIDTH_SAFETY_FACTOR / 1000.0;
    LADDER_KBPS
        .iter()
        .rev()
        .copied()
        .find(|&r| r as f64 <= safe_kbps)
        .unwrap_or(LADDER_KBPS[0])
}

/// The size, bytes, of the segment a player on a path of `throughput_bps`
/// fetches: its rung times [`SEGMENT_SECONDS`].
pub fn segment_bytes(throughput_bps: u64) -> u64 {
    rung_kbps(throughput_bps) * 1000 * SEGMENT_SECONDS / 8
}

/// The object of the connection whose path seed is `path_seed`, on a path
/// of `rate_bps`, when a `share` of connections fetch video segments:
/// its segment if it draws one and the segment lies within `sizes`' range
/// (`[lo, hi)` of a log-uniform distribution; a fixed size never holds
/// one), otherwise `drawn`, the workload's draw. Returns the size and
/// whether it is a segment. The draw is made whatever the share.
pub fn object_size(
    share: f64,
    path_seed: u64,
    rate_bps: u64,
    drawn: u64,
    sizes: &SizeDist,
) -> (u64, bool) {
    let u = Rng::from_u64(path_seed ^ VIDEO_STREAM).next_f64();
    if u >= share {
        return (drawn, false);
    }
    let segment = segment_bytes(rate_bps);
    match *sizes {
        SizeDist::LogUniform { lo, hi } if (lo..hi).contains(&segment) => (segment, true),
        _ => (drawn, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: SizeDist = SizeDist::LogUniform {
        lo: 200_000,
        hi: 3_200_000,
    };

    #[test]
    fn a_segment_is_the_rung_under_nine_tenths_of_the_rate_times_six_seconds() {
        // (path rate, rung, segment bytes): the rung is the highest at or
        // below 0.9 x the rate.
        for (rate_bps, rung, bytes) in [
            (100_000, 145, 108_750), // below every rung: the lowest
            (500_000, 365, 273_750), // 450 kbit/s safe
            (811_111, 365, 273_750), // 729.9 kbit/s safe: just below 730
            (811_112, 730, 547_500), // 730.0 kbit/s safe
            (1_300_000, 1100, 825_000),
            (2_300_000, 2000, 1_500_000),
            (4_000_000, 3000, 2_250_000),
            (5_000_000, 4500, 3_375_000),
            (8_000_000, 6000, 4_500_000),
            (100_000_000, 7800, 5_850_000), // the top rung
        ] {
            assert_eq!(rung_kbps(rate_bps), rung, "{rate_bps}");
            assert_eq!(segment_bytes(rate_bps), bytes, "{rate_bps}");
        }
    }

    #[test]
    fn at_share_zero_every_object_is_the_workloads_draw() {
        for i in 0..5000u64 {
            assert_eq!(
                object_size(0.0, i * 7919, 1_000_000, 777_777, &SEED),
                (777_777, false)
            );
        }
    }

    #[test]
    fn the_share_is_the_chance_of_a_segment_where_one_fits() {
        let n = 20_000u64;
        let count = |share: f64, rate: u64| {
            (0..n)
                .filter(|&i| object_size(share, i * 7919, rate, 777_777, &SEED).1)
                .count() as f64
                / n as f64
        };
        assert_eq!(count(1.0, 1_000_000), 1.0);
        let half = count(0.5, 1_000_000);
        assert!((half - 0.5).abs() < 0.015, "{half}");
        // A path whose segment lies above the workload's sizes (3.4 MB at
        // 5 Mbit/s) or below them keeps the drawn object.
        assert_eq!(count(1.0, 5_000_000), 0.0);
        assert_eq!(count(1.0, 100_000), 0.0);
        assert_eq!(
            object_size(1.0, 3, 4_000_000, 777_777, &SEED),
            (2_250_000, true)
        );
        // A fixed size holds no segment.
        assert_eq!(
            object_size(1.0, 3, 1_000_000, 5, &SizeDist::Fixed(5)),
            (5, false)
        );
        // One connection draws alike every time (its path seed alone).
        assert_eq!(
            object_size(0.5, 42, 1_000_000, 1, &SEED),
            object_size(0.5, 42, 1_000_000, 1, &SEED)
        );
    }
}
