//! Which line an error found after the TOML parse is about.

/// The line of the key an error is about: `header` is the line of the
/// table the error was found in, and `err` starts with the key (`rtt_ms:
/// ...`, `mix.wifi: ...`). The first line after the header, before the next
/// table header, that sets the key (`rtt_ms = ...`, or `mix = ...` for
/// `mix.wifi`); the header's own line if none does (a key set in a
/// sub-table, or an error about the table as a whole).
pub(super) fn key_line(text: &str, header: usize, err: &str) -> usize {
    let key: String = err
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    let first = key.split('.').next().unwrap_or_default();
    if first.is_empty() || !err[key.len()..].starts_with(':') {
        // Not `key: ...`: an error about the table as a whole.
        return header;
    }
    let sets = |line: &str, k: &str| {
        line.trim_start()
            .strip_prefix(k)
            .is_some_and(|rest| rest.trim_start().starts_with(['=', '.']))
    };
    text.lines()
        .enumerate()
        .skip(header)
        .take_while(|(_, l)| !l.trim_start().starts_with('['))
        .find(|(_, l)| sets(l, &key) || sets(l, first))
        .map_or(header, |(i, _)| i + 1)
}
