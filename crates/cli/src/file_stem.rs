//! File names made from user text: a controller's name (`ramp sim
//! --trace`), an arm's label (`ramp compare`).

/// `text` with every character but ASCII letters, digits, `.`, `-` and
/// `+` replaced by `_`, so that a name like `cubic+rapidstart(iw=30)` is
/// one portable file name on every file system (no separators, no
/// parentheses, no `=`).
pub(crate) fn safe_stem(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::safe_stem;

    #[test]
    fn only_portable_characters_remain() {
        assert_eq!(
            safe_stem("cubic+rapidstart(iw=30,beta=0.7)"),
            "cubic+rapidstart_iw_30_beta_0.7_"
        );
        assert_eq!(safe_stem("a/b\\c d"), "a_b_c_d");
    }
}
