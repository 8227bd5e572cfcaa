//! Which line, and which key, an error is about: the TOML reader's own
//! errors carry a byte span, and the errors found after the parse start
//! with the key they are about.

/// The line of the key an error is about: `header` is the line of the
/// table the error was found in, and `err` starts with the key (`rtt_ms:
/// ...`, `mix.wifi: ...`) or with keys that break a rule together
/// (`docsis_share + l4s_share: ...`). The first line after the header,
/// before the next table header, that sets the key, or one of the keys
/// (`rtt_ms = ...`, or `mix = ...` for `mix.wifi`); the header's own line
/// if none does (a key set in a sub-table, or an error about the table as
/// a whole).
pub(super) fn key_line(text: &str, header: usize, err: &str) -> usize {
    let is_key = |k: &str| {
        !k.is_empty()
            && !k.starts_with('.')
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    };
    let keys: Vec<&str> = match err.split_once(':') {
        Some((prefix, _)) => prefix.split(" + ").collect(),
        None => Vec::new(),
    };
    if keys.is_empty() || !keys.iter().all(|k| is_key(k)) {
        // Not `key: ...`: an error about the table as a whole.
        return header;
    }
    let sets = |line: &str, k: &str| {
        line.trim_start()
            .strip_prefix(k)
            .is_some_and(|rest| rest.trim_start().starts_with(['=', '.']))
    };
    let sets_one = |line: &str| {
        keys.iter().any(|k| {
            let first = k.split('.').next().unwrap_or_default();
            sets(line, k) || sets(line, first)
        })
    };
    text.lines()
        .enumerate()
        .skip(header)
        .take_while(|(_, l)| !l.trim_start().starts_with('['))
        .find(|(_, l)| sets_one(l))
        .map_or(header, |(i, _)| i + 1)
}

/// The key whose value starts at byte `offset`, as `table.key` (the
/// nearest table header above it, `[paths]` → `paths.KEY`, `[[region]]` →
/// `region.KEY`; an inline table's key as `mix.mobile`), for the TOML
/// reader's errors about a value (`invalid type: string "x", expected
/// f64`), which give the value's span but not its key. `None` when the
/// span is not on a `key = value` line (an unknown key, a table header, an
/// array element on a line of its own) or the key is quoted.
pub(super) fn value_key(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let before = text.get(start..offset)?;
    let bare = |k: &str| {
        let k = k.trim();
        (!k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .then(|| k.to_string())
    };
    let (first, rest) = before.split_once('=')?;
    let mut key = bare(first)?;
    // `mix = { mobile = "x" }`: the inline table's key before the value.
    if let Some(eq) = rest.rfind('=') {
        let inner = &rest[..eq];
        let from = inner.rfind(['{', ',']).map_or(0, |i| i + 1);
        key = format!("{key}.{}", bare(&inner[from..])?);
    }
    let table = text[..start]
        .lines()
        .rev()
        .map(str::trim_start)
        .find(|l| l.starts_with('['))
        .map(|l| {
            l.trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
        });
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_named_by_its_table_and_key() {
        let text = "name = 1\n[[region]]\nname = \"x\"\nmix = { mobile = 2, wifi = \"w\" }\n\
                    [paths]\nwifi_jitter = 3\n";
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(value_key(text, at("1")).as_deref(), Some("name"));
        assert_eq!(value_key(text, at("\"x\"")).as_deref(), Some("region.name"));
        assert_eq!(
            value_key(text, at("\"w\"")).as_deref(),
            Some("region.mix.wifi")
        );
        assert_eq!(
            value_key(text, at("3")).as_deref(),
            Some("paths.wifi_jitter")
        );
        // A key itself, or a header: no value, no name.
        assert_eq!(value_key(text, at("wifi_jitter")), None);
        assert_eq!(value_key(text, at("[paths]")), None);
    }

    #[test]
    fn keys_that_break_a_rule_together_give_the_first_line_setting_one() {
        let text = "[paths]\n# c\nl4s_share = 0.6\ndocsis_share = 0.5\n";
        assert_eq!(key_line(text, 1, "docsis_share + l4s_share: exceeds 1"), 3);
        assert_eq!(key_line(text, 1, "docsis_share: x"), 4);
        assert_eq!(key_line(text, 1, "the table as a whole"), 1);
        assert_eq!(key_line(text, 1, "region `x`: y"), 1);
    }
}
