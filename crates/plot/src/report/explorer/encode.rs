//! The explorer's data in the page: typed little-endian columns in one
//! buffer, base64-encoded, plus a JSON header naming each column's type,
//! offset and length. The columns are compact by their types (dictionary
//! codes of one byte, whole microseconds in four) and carry no
//! general-purpose compression: the page decodes them synchronously while
//! it loads, in any browser, with no DecompressionStream (11.6 MB of
//! base64 for 100 000 paths × 4 arms, docs/charts.md § Explorer).
//!
//! Column types, the smallest that holds the values exactly:
//! - dictionary codes: `u8` (up to 254 values; 255 = absent), `u16`
//!   (65535 = absent) or `u32`;
//! - record values: `u32` when every value is a whole number below
//!   2³² − 1 (`u32::MAX` = absent), else `f64` (NaN = absent);
//! - range attributes: `f64`.
//!
//! Values are never rounded, so the page computes from the same doubles
//! as the Rust summaries (a microsecond TTLB is a whole number).

use super::data::ExplorerData;
use base64::Engine as _;
use serde_json::{json, Value};

/// One column in the buffer.
struct Column {
    name: String,
    ty: &'static str,
    offset: usize,
    len: usize,
}

/// Builds the buffer.
#[derive(Default)]
struct Buffer {
    bytes: Vec<u8>,
    columns: Vec<Column>,
}

impl Buffer {
    /// Starts a column at an 8-byte boundary (typed arrays need their
    /// element alignment).
    fn start(&mut self, name: String, ty: &'static str, len: usize) {
        while !self.bytes.len().is_multiple_of(8) {
            self.bytes.push(0);
        }
        self.columns.push(Column {
            name,
            ty,
            offset: self.bytes.len(),
            len,
        });
    }

    fn codes(&mut self, name: String, codes: &[Option<u32>], distinct: usize) {
        if distinct < 255 {
            self.start(name, "u8", codes.len());
            self.bytes
                .extend(codes.iter().map(|c| c.map_or(u8::MAX, |c| c as u8)));
        } else if distinct < 65535 {
            self.start(name, "u16", codes.len());
            for c in codes {
                let v = c.map_or(u16::MAX, |c| c as u16);
                self.bytes.extend(v.to_le_bytes());
            }
        } else {
            self.start(name, "u32", codes.len());
            for c in codes {
                self.bytes.extend(c.unwrap_or(u32::MAX).to_le_bytes());
            }
        }
    }

    fn values(&mut self, name: String, values: &[f64]) {
        let whole = values
            .iter()
            .all(|v| v.is_nan() || (v.fract() == 0.0 && *v >= 0.0 && *v < f64::from(u32::MAX)));
        if whole {
            self.start(name, "u32", values.len());
            for v in values {
                let w = if v.is_nan() { u32::MAX } else { *v as u32 };
                self.bytes.extend(w.to_le_bytes());
            }
        } else {
            self.floats(name, values);
        }
    }

    fn floats(&mut self, name: String, values: &[f64]) {
        self.start(name, "f64", values.len());
        for v in values {
            self.bytes.extend(v.to_le_bytes());
        }
    }
}

/// The encoded data: the JSON header and the base64 of the gzipped buffer.
pub(super) struct Encoded {
    /// Header: arms, filters, metrics and the columns' layout.
    pub meta: Value,
    /// base64 (standard alphabet) of the buffer.
    pub base64: String,
}

/// Encodes `d`; `meta` gets the columns' layout added under `columns`.
pub(super) fn encode(d: &ExplorerData, mut meta: Value) -> Encoded {
    let mut buf = Buffer::default();
    let mut dims = Vec::new();
    for (i, dim) in d.dims.iter().enumerate() {
        let name = format!("dim{i}");
        buf.codes(name.clone(), &dim.codes, dim.values.len());
        dims.push(json!({"key": dim.key, "label": dim.label, "values": dim.values, "col": name}));
    }
    let mut ranges = Vec::new();
    for (i, r) in d.ranges.iter().enumerate() {
        let name = format!("range{i}");
        buf.floats(name.clone(), &r.values);
        ranges.push(json!({"key": r.key, "label": r.label, "scale": r.scale, "col": name}));
    }
    let mut values = serde_json::Map::new();
    for (i, c) in d.values.iter().enumerate() {
        let name = format!("value{i}");
        buf.values(name.clone(), &c.values);
        values.insert(c.key.clone(), Value::String(name));
    }
    let columns: Vec<Value> = buf
        .columns
        .iter()
        .map(|c| json!({"name": c.name, "type": c.ty, "offset": c.offset, "len": c.len}))
        .collect();
    if let Value::Object(m) = &mut meta {
        m.insert("dims".into(), Value::Array(dims));
        m.insert("ranges".into(), Value::Array(ranges));
        m.insert("values".into(), Value::Object(values));
        m.insert("columns".into(), Value::Array(columns));
        m.insert("bytes".into(), json!(buf.bytes.len()));
    }
    Encoded {
        meta,
        base64: base64::engine::general_purpose::STANDARD.encode(&buf.bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn columns_round_trip_through_base64() {
        let text = "\
{\"group\":\"a\",\"conn\":1,\"access\":\"mobile\",\"ttlb-us\":1000,\"path.rtt-ms\":20.5,\"num-packets.sent\":3}
{\"group\":\"b\",\"conn\":1,\"access\":\"mobile\",\"ttlb-us\":1500.5,\"path.rtt-ms\":20.5,\"num-packets.sent\":4}
";
        let d = ExplorerData::from_records(&parse_records(text, "r").unwrap());
        let e = encode(&d, json!({}));
        let raw = base64::engine::general_purpose::STANDARD
            .decode(&e.base64)
            .unwrap();
        assert_eq!(Some(raw.len() as u64), e.meta["bytes"].as_u64());
        let cols = e.meta["columns"].as_array().unwrap();
        let col = |name: &str| cols.iter().find(|c| c["name"] == name).unwrap();
        // ttlb-us has a fraction: f64. packets: u32. access: u8.
        let t = col(e.meta["values"]["ttlb-us"].as_str().unwrap());
        assert_eq!(t["type"], "f64");
        let off = t["offset"].as_u64().unwrap() as usize;
        assert_eq!(off % 8, 0);
        let second = f64::from_le_bytes(raw[off + 8..off + 16].try_into().unwrap());
        assert_eq!(second, 1500.5);
        let s = col(e.meta["values"]["num-packets.sent"].as_str().unwrap());
        assert_eq!(s["type"], "u32");
        let off = s["offset"].as_u64().unwrap() as usize;
        assert_eq!(
            u32::from_le_bytes(raw[off + 4..off + 8].try_into().unwrap()),
            4
        );
        assert_eq!(col("dim0")["type"], "u8");
    }
}
