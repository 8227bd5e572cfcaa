//! A new link element, written outside ramp-link as a new one is: its
//! struct, its option table (one `ramp_link::element_option!` row a key,
//! as ramp-link's own elements write theirs) and its check, nothing else.
//! The scenario file's table reader ([`FileElement`]) and the command
//! line's value parser (`ramp_link::parse_spec`) read it with no code of
//! its own, to the same value and the same errors. A real element also takes a
//! field and a row in `ramp_link::LinkElements`/`ELEMENTS` and the line
//! in `ramp_link::Link` that applies it (docs/architecture.md); the
//! second test shows that this file's `[path]` reader then takes its
//! table with no line of its own, as the CLI's flags do (its tests in
//! cli/src/link_elements.rs).

use core::time::Duration;

use ramp_link::{
    element_option, key_help, parse_spec, spec_of, Element, ElementError, ElementOption,
};

use super::path::FileElement;

/// A toy element: reorder `share` of the packets by `by`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Reorder {
    share: f64,
    by: Duration,
}

impl Element for Reorder {
    const OPTIONS: &'static [ElementOption<Reorder>] = &[
        element_option!(share: number, "<0..1>", "share of the packets held back"),
        element_option!(by: duration, "<duration>", "how long a held packet waits"),
    ];
    const DEFAULT: Reorder = Reorder {
        share: 0.01,
        by: Duration::from_millis(1),
    };
    fn check(&self) -> Result<(), ElementError> {
        if (0.0..=1.0).contains(&self.share) {
            Ok(())
        } else {
            Err(ElementError::Value {
                key: "share",
                reason: "must lie in [0, 1]".into(),
            })
        }
    }
}

/// `[path.reorder]` as the scenario file's reader reads it.
fn from_toml(table: &str) -> Result<Reorder, String> {
    #[derive(serde::Deserialize)]
    struct Path {
        reorder: FileElement,
    }
    let p: Path = toml::from_str(&format!("[reorder]\n{table}")).map_err(|e| e.to_string())?;
    p.reorder.element("reorder")
}

#[test]
fn a_new_element_is_read_by_the_file_and_the_flag_parser_through_its_table_alone() {
    let file = from_toml("share = 0.05\nby = \"4ms\"\n").unwrap();
    let flag = parse_spec::<Reorder>("share=0.05,by=4ms").unwrap();
    assert_eq!(file, flag);
    assert_eq!(
        file,
        Reorder {
            share: 0.05,
            by: Duration::from_millis(4)
        }
    );
    // Keys left out keep the defaults; the printer reads back.
    assert_eq!(from_toml("").unwrap(), Reorder::DEFAULT);
    assert_eq!(parse_spec::<Reorder>(&spec_of(&flag)), Ok(flag));
    // The same refusal both ways, naming the key.
    let e = from_toml("share = 2\n").unwrap_err();
    assert_eq!(e, "path.reorder.share: must lie in [0, 1]");
    let e = parse_spec::<Reorder>("share=2").unwrap_err().to_string();
    assert_eq!(e, "share: must lie in [0, 1]");
    let e = from_toml("delay = \"1ms\"\n").unwrap_err();
    assert_eq!(e, "path.reorder.delay: unknown key (keys: share, by)");
    // Help comes from the table.
    assert_eq!(
        key_help::<Reorder>(),
        [
            "share=<0..1>  share of the packets held back (default 0.01)",
            "by=<duration>  how long a held packet waits (default 1ms)"
        ]
    );
}

/// Every element of `ramp_link::ELEMENTS`, written as its
/// `[path.TABLE]` from its example text, gives the path its slot gives
/// from the same text, and an unknown key in it is refused with the
/// table's name: the reader has no line of its own per element.
#[test]
fn every_listed_element_is_read_from_its_table_with_no_code_of_its_own_here() {
    let base = crate::Scenario::from_toml("", "t").unwrap().path.elements;
    for s in ramp_link::ELEMENTS {
        let n = &s.names;
        let mut table = format!("[path.{}]\n", n.table);
        for kv in n.example.split(',') {
            let (k, v) = kv.split_once('=').unwrap();
            table += &format!("{k} = \"{v}\"\n");
        }
        let sc = crate::Scenario::from_toml(&table, "t").unwrap();
        let mut want = base;
        s.set_spec(&mut want, n.example).unwrap();
        assert_eq!(sc.path.elements, want, "{table}");
        let e = crate::Scenario::from_toml(&format!("{table}nonsense = 1\n"), "t")
            .unwrap_err()
            .to_string();
        let key = format!("path.{}.nonsense: unknown key", n.table);
        assert!(e.contains(&key), "{e}");
    }
}
