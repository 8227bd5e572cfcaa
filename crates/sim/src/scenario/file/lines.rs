//! Which line of a scenario file an error is about.

use toml::Spanned;

use super::FileScenario;

/// The 1-based line of a byte offset in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The first line that opens table `name` or sets one of its keys:
/// `[name]`, `[name.x]`, `[[name.x]]` or a dotted `name.x = ...`.
fn table_line(text: &str, name: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start().trim_start_matches('[').trim_start();
            l.strip_prefix(name)
                .is_some_and(|rest| rest.trim_start().starts_with([']', '.']))
        })
        .map(|i| i + 1)
}

/// Where a file's keys and tables are, by line, for the errors found after
/// the parse ([`Scenario::validate`] and the tables' own checks), whose
/// messages start with the key they are about (`web 2: cc ...`,
/// `path.rate_step 3: ...`, `endpoint.iw ...`).
pub(super) struct KeyLines {
    /// Top-level keys (`size`, `time_limit`) and the `[path]` and
    /// `[endpoint]` tables.
    /// The elements' keys (`path.cellular.light_fraction`) come first, so
    /// that an error about one finds its own line before the table's.
    keys: Vec<(String, usize)>,
    flows: Vec<usize>,
    webs: Vec<usize>,
    rate_steps: Vec<usize>,
}

impl KeyLines {
    pub(super) fn of(f: &FileScenario, text: &str) -> KeyLines {
        let line = |start: usize| line_of(text, start);
        let mut keys = Vec::new();
        if let Some(p) = &f.path {
            for (table, e) in p.element_tables() {
                keys.extend(e.key_lines(table, text));
            }
        }
        let mut key = |k: &'static str, span: Option<core::ops::Range<usize>>| {
            if let Some(s) = span {
                keys.push((k.to_string(), line(s.start)));
            }
        };
        key("size", f.size.as_ref().map(Spanned::span));
        key("time_limit", f.time_limit.as_ref().map(Spanned::span));
        // `[path]` and `[endpoint]` by their first line in the text: toml's
        // spans are not available for a table that dotted keys or
        // `[[path.rate_step]]` create implicitly.
        for (k, line) in [
            ("path", table_line(text, "path")),
            ("endpoint", table_line(text, "endpoint")),
        ] {
            if let Some(l) = line {
                keys.push((k.to_string(), l));
            }
        }
        KeyLines {
            keys,
            flows: f.flow.iter().map(|t| line(t.span().start)).collect(),
            webs: f.web.iter().map(|t| line(t.span().start)).collect(),
            rate_steps: f
                .path
                .as_ref()
                .map(|p| p.rate_step.iter().map(|t| line(t.span().start)).collect())
                .unwrap_or_default(),
        }
    }

    /// The line of the key or table an error message starts with.
    pub(super) fn of_message(&self, m: &str) -> Option<usize> {
        // `flow 3: ...`, `web 1: ...`, `path.rate_step 2: ...`: the table.
        let nth = |prefix: &str, lines: &[usize]| {
            let rest = m.strip_prefix(prefix)?;
            let n: usize = rest[..rest.find(':')?].parse().ok()?;
            lines.get(n.checked_sub(1)?).copied()
        };
        nth("flow ", &self.flows)
            .or_else(|| nth("web ", &self.webs))
            .or_else(|| nth("path.rate_step ", &self.rate_steps))
            // Too many `[[flow]]` tables: the first one past the limit.
            .or_else(|| {
                let limit = m.strip_prefix("flows: ")?;
                let max: usize = limit.rsplit("..=").next()?.trim().parse().ok()?;
                self.flows.get(max).copied()
            })
            .or_else(|| {
                self.keys.iter().find_map(|(k, line)| {
                    let rest = m.strip_prefix(k.as_str())?;
                    rest.starts_with([':', '.', ' ']).then_some(*line)
                })
            })
    }
}
