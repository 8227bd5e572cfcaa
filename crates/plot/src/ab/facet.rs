//! Facets: how records split into small multiples (a record key, or
//! object-size bins of `content_length`).

use crate::error::{Error, Result};
use crate::record::Record;
use crate::units::format_bytes;

/// How to split records into facets (small multiples).
#[derive(Debug, Clone, PartialEq)]
pub enum Facet {
    /// One panel for everything.
    None,
    /// One panel per value of a record key (e.g. `pop`).
    Key(String),
    /// One panel per object-size bin of `content_length`; the edges are
    /// bin boundaries in bytes, ascending.
    SizeBins(Vec<f64>),
}

impl Facet {
    /// Decade size bins: < 10 KB, 10–100 KB, 100 KB–1 MB, 1–10 MB, ≥ 10 MB.
    pub fn decade_size_bins() -> Facet {
        Facet::SizeBins(vec![1e4, 1e5, 1e6, 1e7])
    }

    /// Parses a `--by` value: `size` (decade bins), `size:300KB,1MB,…`
    /// (explicit edges, sizes as everywhere: `300KB`, `1MiB`, `200000`), or
    /// any record key.
    pub fn parse(spec: &str) -> Result<Facet> {
        if spec == "size" {
            return Ok(Facet::decade_size_bins());
        }
        if let Some(edges) = spec.strip_prefix("size:") {
            let mut v = Vec::new();
            for e in edges.split(',') {
                // The one size grammar: `300KB`, `1MiB`, `200000`.
                let x = ramp_vocab::units::parse_size(e)
                    .map_err(|err| Error::Data(format!("--by size:…: {err}")))?;
                v.push(x as f64);
            }
            if v.is_empty() || v.windows(2).any(|w| w[0] >= w[1]) {
                return Err(Error::Data(
                    "--by size:…: bin edges must be ascending".to_string(),
                ));
            }
            return Ok(Facet::SizeBins(v));
        }
        Ok(Facet::Key(spec.to_string()))
    }

    /// The facet of a record as (sort key, label), or `None` if it has none.
    pub(crate) fn of(&self, r: &Record) -> Option<(u64, String)> {
        match self {
            Facet::None => Some((0, String::new())),
            Facet::Key(k) => r.text(k).map(|v| (0, v)),
            Facet::SizeBins(edges) => {
                let size = r.f64("content_length")?;
                let i = edges.iter().take_while(|&&e| size >= e).count();
                let label = if i == 0 {
                    format!("< {}", format_bytes(edges[0]))
                } else if i == edges.len() {
                    format!("≥ {}", format_bytes(edges[i - 1]))
                } else {
                    format!(
                        "{} – {}",
                        format_bytes(edges[i - 1]),
                        format_bytes(edges[i])
                    )
                };
                Some((i as u64, label))
            }
        }
    }

    /// A name for titles, e.g. `pop` or `object size`.
    pub fn describe(&self) -> String {
        match self {
            Facet::None => String::new(),
            Facet::Key(k) => k.clone(),
            Facet::SizeBins(_) => "object size".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ab::test_records as recs;
    use crate::ab::{ab_curves, AbOptions};

    #[test]
    fn facets_by_key_and_size_bin() {
        let mut lines = Vec::new();
        for (pop, size) in [("ams", 5_000), ("nrt", 50_000), ("ams", 2_000_000)] {
            for arm in ["base", "x"] {
                lines.push(format!(
                    "{{\"group\":\"{arm}\",\"ttlb\":10,\"pop\":\"{pop}\",\"content_length\":{size}}}"
                ));
            }
        }
        let rs = recs(&lines);
        let mut o = AbOptions::new("base");
        o.facet = Facet::Key("pop".into());
        let r = ab_curves(&rs, &o).unwrap();
        let names: Vec<_> = r.panels.iter().map(|p| p.facet.as_str()).collect();
        assert_eq!(names, ["ams", "nrt"]);
        o.facet = Facet::decade_size_bins();
        let r = ab_curves(&rs, &o).unwrap();
        let names: Vec<_> = r.panels.iter().map(|p| p.facet.as_str()).collect();
        assert_eq!(names, ["< 10 KB", "10 KB – 100 KB", "1 MB – 10 MB"]);
        assert_eq!(
            Facet::parse("size:1,2").unwrap(),
            Facet::SizeBins(vec![1.0, 2.0])
        );
        assert!(Facet::parse("size:2,1").is_err());
        assert_eq!(
            Facet::parse("size:300KB,1MiB").unwrap(),
            Facet::SizeBins(vec![300_000.0, 1_048_576.0])
        );
    }
}
