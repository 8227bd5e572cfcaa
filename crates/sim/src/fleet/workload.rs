//! The workload: one object per connection, its size drawn from a
//! distribution, and the size bins results are reported in — or page loads
//! ([`PageLoads`]): several objects per connection from the 3GPP HTTP
//! model, page load time as the metric, binned by page bytes.

use ramp_vocab::rng::Rng;

/// Object sizes.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every object has this many bytes.
    Fixed(u64),
    /// Log-uniform on `[lo, hi)` bytes.
    LogUniform {
        /// Smallest size, bytes.
        lo: u64,
        /// Largest size, bytes.
        hi: u64,
    },
}

/// The seed experiment's size-bin edges, bytes (the Rapid Start slides, IETF 125: 200 KB –
/// 400 KB / 400 – 800 KB / 800 KB – 1.6 MB / 1.6 – 3.2 MB).
pub const SEED_BIN_EDGES: [u64; 5] = [200_000, 400_000, 800_000, 1_600_000, 3_200_000];

/// A workload: sizes and the bins they are reported in.
#[derive(Clone, PartialEq)]
pub struct Workload {
    /// Size distribution.
    pub sizes: SizeDist,
    /// Ascending bin edges, bytes; a size falls in `[edge[i], edge[i+1])`,
    /// below the first edge in bin "< first", at or above the last in
    /// "≥ last".
    pub bin_edges: Vec<u64>,
    /// The client side of the connections (all off by default).
    pub users: super::users::Users,
    /// Page loads instead of one object per connection (None: objects).
    pub pages: Option<PageLoads>,
}

/// Page loads: each connection fetches a page drawn from the 3GPP HTTP
/// model (crate::web) — a main object, then its embedded objects one
/// parsing time after it arrived — on one connection (crate::page); the
/// metric is the page load time (`page-load-us`).
#[derive(Clone, Debug, PartialEq)]
pub struct PageLoads {
    /// The page model.
    pub model: crate::web::HttpModel,
    /// Share of page loads that find a warm connection: the measured page
    /// is the connection's second, one reading time (below the idle
    /// timeout) after the first. 0: every page opens its connection.
    pub warm_share: f64,
}

/// Separates the warm-connection draw from the page draws.
const WARM_STREAM: u64 = 0x3A2B_0F0F_9E1C_2026;

impl PageLoads {
    /// The requests of the connection whose path seed is `path_seed`.
    pub fn requests(&self, path_seed: u64) -> crate::page::Requests {
        let warm =
            self.warm_share > 0.0 && Rng::new(path_seed, WARM_STREAM).next_f64() < self.warm_share;
        self.model.requests(path_seed, warm)
    }
}

/// Page-byte bins of page loads: pages below 10 KB, decades to 1 MB, and
/// above [assumption: decades, as the Google presets' object bins].
pub const PAGE_BIN_EDGES: [u64; 3] = [10_000, 100_000, 1_000_000];

/// The run's parameters (`fleet.params`) print the workload with `{:?}`:
/// the users' model appears only when on, so runs without it keep their
/// parameters, and `--resume` their directories.
impl core::fmt::Debug for Workload {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("Workload");
        d.field("sizes", &self.sizes)
            .field("bin_edges", &self.bin_edges);
        if !self.users.is_off() {
            d.field("users", &self.users);
        }
        if let Some(p) = &self.pages {
            d.field("pages", p);
        }
        d.finish()
    }
}

impl Workload {
    /// The seed experiment's: log-uniform 200 KB – 3.2 MB, its four bins.
    pub fn seed() -> Workload {
        Workload {
            sizes: SizeDist::LogUniform {
                lo: SEED_BIN_EDGES[0],
                hi: SEED_BIN_EDGES[4],
            },
            bin_edges: SEED_BIN_EDGES.to_vec(),
            users: Default::default(),
            pages: None,
        }
    }

    /// This workload with page loads (binned by page bytes) instead of
    /// single objects.
    pub fn with_pages(mut self, pages: PageLoads) -> Workload {
        self.pages = Some(pages);
        self.bin_edges = PAGE_BIN_EDGES.to_vec();
        self
    }

    /// Draws one size (one draw from `rng` whatever the distribution, so
    /// switching distributions never shifts later draws).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let u = rng.next_f64();
        match self.sizes {
            SizeDist::Fixed(n) => n,
            SizeDist::LogUniform { lo, hi } => {
                let lo = lo.max(1);
                let top = hi.saturating_sub(1).max(lo);
                let (l, h) = (lo as f64, hi.max(lo) as f64);
                ((l.ln() + u * (h.ln() - l.ln())).exp().floor() as u64).clamp(lo, top)
            }
        }
    }

    /// The bin label of a size, e.g. `200KB-400KB`.
    pub fn bin_of(&self, size: u64) -> String {
        bin_label(&self.bin_edges, size)
    }

    /// All bin labels in order (only those between the edges when the
    /// distribution cannot fall outside them).
    pub fn bin_labels(&self) -> Vec<String> {
        let e = &self.bin_edges;
        if e.is_empty() {
            return vec!["all".to_string()];
        }
        let mut out = Vec::new();
        // The smallest and largest size the distribution can draw (a
        // page can be any size).
        let (lo, hi) = match self.sizes {
            _ if self.pages.is_some() => (1, u64::MAX),
            SizeDist::Fixed(n) => (n, n),
            SizeDist::LogUniform { lo, hi } => (lo.max(1), hi.saturating_sub(1).max(lo.max(1))),
        };
        if lo < e[0] {
            out.push(bin_label(e, lo));
        }
        for w in e.windows(2) {
            if hi >= w[0] && lo < w[1] {
                out.push(bin_label(e, w[0]));
            }
        }
        if hi >= e[e.len() - 1] {
            out.push(bin_label(e, hi));
        }
        out
    }
}

/// A size in the seed's style: `200KB`, `1.6MB`.
pub fn format_size(bytes: u64) -> String {
    if bytes >= 1_000_000 {
        let mb = bytes as f64 / 1e6;
        if (mb - mb.round()).abs() < 1e-9 {
            format!("{}MB", mb.round() as u64)
        } else {
            format!("{mb:.1}MB")
        }
    } else if bytes >= 1000 {
        format!("{}KB", bytes / 1000)
    } else {
        format!("{bytes}B")
    }
}

fn bin_label(edges: &[u64], size: u64) -> String {
    if edges.is_empty() {
        return "all".to_string();
    }
    let i = edges.iter().take_while(|&&e| size >= e).count();
    if i == 0 {
        format!("<{}", format_size(edges[0]))
    } else if i == edges.len() {
        format!(">={}", format_size(edges[i - 1]))
    } else {
        format!("{}-{}", format_size(edges[i - 1]), format_size(edges[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_bins_are_the_papers() {
        let w = Workload::seed();
        assert_eq!(
            w.bin_labels(),
            ["200KB-400KB", "400KB-800KB", "800KB-1.6MB", "1.6MB-3.2MB"]
        );
        assert_eq!(w.bin_of(200_000), "200KB-400KB");
        assert_eq!(w.bin_of(1_599_999), "800KB-1.6MB");
        assert_eq!(w.bin_of(3_199_999), "1.6MB-3.2MB");
        let mut rng = Rng::from_u64(3);
        for _ in 0..1000 {
            let s = w.sample(&mut rng);
            assert!((200_000..=3_200_000).contains(&s));
        }
    }
}
