//! Human-written quantities in scenario and population files, kept as text
//! for the one grammar of [`ramp_vocab::units`] (B = bytes, b = bits, units
//! required on rates and durations, percentages for loss).

/// A quantity as a file writes it: a string (`"20mbit"`) or a bare TOML
/// number, kept as text for the parsers above. Anything else is refused
/// with a message that says what was expected.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct QuantityText(pub String);

impl<'de> serde::Deserialize<'de> for QuantityText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = QuantityText;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a quantity: a string such as \"20mbit\", \"40ms\", \"3MB\", \"0.5%\", or a number")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<QuantityText, E> {
                Ok(QuantityText(v.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<QuantityText, E> {
                Ok(QuantityText(v.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<QuantityText, E> {
                Ok(QuantityText(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<QuantityText, E> {
                Ok(QuantityText(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_wrong_toml_type_says_what_a_quantity_is() {
        let e = crate::Scenario::from_toml("[path]\nrate = true\n", "t")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("\"20mbit\""), "{e}");
        assert!(!e.contains("untagged"), "{e}");
    }
}
