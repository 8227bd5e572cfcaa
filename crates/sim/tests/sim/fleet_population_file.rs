//! Custom population files: good ones load, bad ones say where and why.

use ramp_sim::fleet::population_file::PopulationFile;
use ramp_sim::fleet::Population;

#[test]
fn regions_and_workload_load() {
    let f = PopulationFile::parse(
        "name = \"mine\"\n[workload]\nmin_size = \"100KB\"\nmax_size = \"1MB\"\nbins = [\"100KB\", \"1MB\"]\n\
         [[region]]\nname = \"west-europe\"\nweight = 2\n\
         [[region]]\nname = \"mars\"\nrate_mbps = [1, 2, 4, 8, 16]\nrtt_ms = [400, 500, 600, 700, 800]\n\
         mix = { mobile = 1, wifi = 0, wired = 0 }\n",
        "stem",
    )
    .unwrap();
    assert_eq!(f.name, "mine");
    let Population::Regions(rs) = &f.population else {
        panic!("regions expected")
    };
    assert_eq!(rs.len(), 2);
    assert_eq!(rs[0].weight, 2.0);
    assert!((rs[1].rate_mbps.at(0.5) - 4.0).abs() < 1e-9);
    assert_eq!(f.workload.bin_edges, [100_000, 1_000_000]);
}

#[test]
fn grid_loads() {
    let f = PopulationFile::parse(
        "[grid]\nrates = [\"10mbit\", \"100mbit\"]\nrtts = [\"40ms\"]\nqueues = [\"40ms\"]\n\
         losses = [\"0%\", \"2%\"]\nsizes = [\"1MB\"]\nseeds = 3\n",
        "g",
    )
    .unwrap();
    let Population::Grid(g) = &f.population else {
        panic!("grid expected")
    };
    assert_eq!(g.cells(), 4);
    assert_eq!(g.connections(), 12);
    assert_eq!(g.cell(1).label, "rate=10mbit,loss=2%");
    let f = PopulationFile::parse(
        "[grid]\nrates = [\"10mbit\"]\nrtts = [\"40ms\"]\nqueues = [\"40ms\"]\n\
         losses = [\"0%\", \"7%\"]\nsizes = [\"1MB\"]\n",
        "g",
    )
    .unwrap();
    let Population::Grid(g) = &f.population else {
        panic!("grid expected")
    };
    assert_eq!(g.cell(1).label, "loss=7%");
}

fn err(text: &str) -> String {
    PopulationFile::parse(text, "bad").unwrap_err().to_string()
}

#[test]
fn malformed_files_name_line_and_key() {
    // Unknown key.
    let e = err("[[region]]\nname = \"africa\"\nwieght = 1\n");
    assert!(e.contains("line 3") && e.contains("wieght"), "{e}");
    // Wrong type.
    let e = err("[[region]]\nname = \"africa\"\nweight = \"heavy\"\n");
    assert!(
        e.contains("line 3") && e.contains("weight") || e.contains("line 3"),
        "{e}"
    );
    // Quantiles of the wrong length, in the second region.
    let e = err("[[region]]\nname = \"africa\"\n\n[[region]]\nname = \"x\"\nrate_mbps = [1, 2]\nrtt_ms = [1, 2, 3, 4, 5]\n");
    assert!(
        e.contains("line 6") && e.contains("region `x`") && e.contains("rate_mbps"),
        "{e}"
    );
    // Descending quantiles.
    let e =
        err("[[region]]\nname = \"x\"\nrate_mbps = [5, 4, 3, 2, 1]\nrtt_ms = [1, 2, 3, 4, 5]\n");
    assert!(
        e.contains("rate_mbps") && e.contains("non-decreasing"),
        "{e}"
    );
    // New region without tables.
    let e = err("[[region]]\nname = \"atlantis\"\n");
    assert!(e.contains("atlantis") && e.contains("rate_mbps"), "{e}");
    // Mix out of range.
    let e = err("[[region]]\nname = \"africa\"\nmix = { mobile = 2, wifi = 0, wired = 0 }\n");
    assert!(e.contains("mix.mobile"), "{e}");
    // Bad unit in a grid.
    let e = err(
        "\n[grid]\nrates = [\"fast\"]\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\n",
    );
    assert!(
        e.contains("line 3") && e.contains("grid.rates") && e.contains("fast"),
        "{e}"
    );
    // Empty axis.
    let e = err("[grid]\nrates = []\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\n");
    assert!(e.contains("rates"), "{e}");
    // Both or neither.
    assert!(err("").contains("nothing to sample"));
    let e = err("[[region]]\nname = \"africa\"\n[grid]\nrates = [\"1mbit\"]\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\n");
    assert!(e.contains("not both"), "{e}");
    // Not TOML at all.
    let e = err("[[region]\nname = 1\n");
    assert!(e.contains("line 1"), "{e}");
    // Duplicate region.
    let e = err("[[region]]\nname = \"africa\"\n[[region]]\nname = \"africa\"\n");
    assert!(e.contains("line 3") && e.contains("twice"), "{e}");
    // Workload.
    let e =
        err("[workload]\nmin_size = \"2MB\"\nmax_size = \"1MB\"\n[[region]]\nname = \"africa\"\n");
    assert!(
        e.contains("line 3") && e.contains("workload.max_size"),
        "{e}"
    );
}

#[test]
fn page_loads_are_a_workload_key() {
    let f = PopulationFile::parse(
        "[workload]\npages = true\nwarm_share = 0.25\n[[region]]\nname = \"africa\"\n",
        "p",
    )
    .unwrap();
    let p = f.workload.pages.as_ref().expect("page loads");
    assert_eq!(p.warm_share, 0.25);
    assert_eq!(p.model, ramp_sim::HttpModel::default());
    assert_eq!(
        f.workload.bin_edges,
        ramp_sim::fleet::workload::PAGE_BIN_EDGES
    );
    assert!(f.workload.bin_labels().contains(&"<10KB".to_string()));
    // Off unless asked for: the object workload is unchanged.
    let f = PopulationFile::parse("[[region]]\nname = \"africa\"\n", "p").unwrap();
    assert!(f.workload.pages.is_none());
    let e = err("[workload]\nwarm_share = 0.5\n[[region]]\nname = \"africa\"\n");
    assert!(e.contains("warm_share") && e.contains("pages"), "{e}");
    let e = err("[workload]\npages = true\nwarm_share = 2\n[[region]]\nname = \"africa\"\n");
    assert!(e.contains("warm_share") && e.contains("[0, 1]"), "{e}");
}

/// The buffer keys of `[paths]`: the MBA table by name, the old range as
/// `"assumed"` or a range; out-of-range and unknown values say which key.
#[test]
fn buffer_tables_are_paths_keys() {
    use ramp_sim::fleet::access::BufferDepth;
    let paths = |body: &str| {
        let f = PopulationFile::parse(
            &format!("[[region]]\nname = \"africa\"\n[paths]\n{body}\n"),
            "p",
        )
        .unwrap();
        let Population::Regions(rs) = f.population else {
            panic!("regions expected")
        };
        rs[0].paths.clone()
    };
    assert_eq!(
        paths("droptail_buffer = \"mba-2023\"").droptail_buffer,
        BufferDepth::mba_2023()
    );
    assert_eq!(
        paths("droptail_buffer = \"assumed\"").droptail_buffer,
        BufferDepth::ASSUMED
    );
    assert_eq!(
        paths("droptail_buffer = [20, 80]").droptail_buffer,
        BufferDepth::LogUniform(20.0, 80.0)
    );
    assert_eq!(paths("mobile_aqm_share = 0.5").mobile_aqm_share, 0.5);
    let e = err("[[region]]\nname = \"africa\"\n[paths]\nmobile_aqm_share = 2\n");
    assert!(e.contains("mobile_aqm_share"), "{e}");
    let m = paths("aqm_buffer_ms = [50, 100]\nmobile_buffer = [100, 1000]");
    assert_eq!(m.aqm_buffer_ms, (50.0, 100.0));
    assert_eq!(m.mobile_buffer, BufferDepth::LogUniform(100.0, 1000.0));
    assert_eq!(
        paths("mobile_buffer = \"jiang-2012\"").mobile_buffer,
        BufferDepth::MOBILE_JIANG_2012
    );
    assert_eq!(
        paths("mobile_buffer = \"mba-2023\"").mobile_buffer,
        BufferDepth::mba_2023()
    );
    let e = err("[[region]]\nname = \"africa\"\n[paths]\ndroptail_buffer = \"mba-2011\"\n");
    assert!(
        e.contains("droptail_buffer") && e.contains("mba-2011"),
        "{e}"
    );
    let e = err("[[region]]\nname = \"africa\"\n[paths]\naqm_buffer_ms = [300, 100]\n");
    assert!(e.contains("aqm_buffer_ms") && e.contains("lo <= hi"), "{e}");
    let e = err("[[region]]\nname = \"africa\"\n[paths]\nmobile_buffer = [0, 100]\n");
    assert!(e.contains("mobile_buffer"), "{e}");
    let e = err("[[region]]\nname = \"africa\"\n[paths]\nmobile_buffer = \"assumed\"\n");
    assert!(
        e.contains("mobile_buffer") && e.contains("jiang-2012"),
        "{e}"
    );
}

#[test]
fn assumptions_are_declared_with_value_range_and_reason() {
    use ramp_sim::fleet::assumptions::Param;
    // Without [[assumption]] tables: the built-in declarations, holding
    // the values the file sets.
    let f = PopulationFile::parse(
        "[[region]]\nname = \"west-europe\"\n[paths]\nfixed_aqm_share = 0.5\naccess_correlation = 0.3\n",
        "p",
    )
    .unwrap();
    assert_eq!(f.assumptions.len(), Param::ALL.len());
    let aqm = &f.assumptions[0];
    assert_eq!(aqm.param, Param::FixedAqmShare);
    assert_eq!(aqm.value, 0.5);
    let rho = f
        .assumptions
        .iter()
        .find(|a| a.param == Param::AccessCorrelation)
        .unwrap();
    assert_eq!(rho.value, 0.3);
    // A table replaces its key's declaration.
    let f = PopulationFile::parse(
        "[[region]]\nname = \"west-europe\"\n\
         [[assumption]]\nkey = \"paths.fixed_aqm_share\"\nrange = [0.5, 0.9]\nreason = \"mine\"\nvalue = 0.7\n",
        "p",
    )
    .unwrap();
    assert_eq!(f.assumptions[0].range, (0.5, 0.9));
    assert_eq!(f.assumptions[0].reason, "mine");
    assert!(f.assumptions[0].describe().contains("[0.5, 0.9]: mine"));
}

#[test]
fn bad_assumptions_name_line_and_key() {
    // The line of the key the error is about: `key` on line 4, `range`
    // on 5, `value` on 7 (the table's header is line 3).
    let bad = |body: &str, line: usize, want: &str| {
        let text = format!("[[region]]\nname = \"africa\"\n[[assumption]]\n{body}");
        let e = PopulationFile::parse(&text, "p").unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("line {line}: ")) && e.contains(want),
            "{e}"
        );
    };
    bad(
        "key = \"paths.nope\"\nrange = [0, 1]\nreason = \"r\"\n",
        4,
        "unknown parameter `paths.nope`",
    );
    bad(
        "key = \"paths.fixed_aqm_share\"\nrange = [0.8, 1]\nreason = \"r\"\n",
        5,
        "outside the range",
    );
    bad(
        "key = \"paths.fixed_aqm_share\"\nrange = [0, 1]\nreason = \"r\"\nvalue = 0.2\n",
        7,
        "not the population's",
    );
    bad(
        "key = \"paths.fixed_aqm_share\"\nrange = [0, 2]\nreason = \"r\"\n",
        5,
        "inside [0, 1]",
    );
    let e = PopulationFile::parse(
        "[[region]]\nname = \"africa\"\n[paths]\naccess_correlation = 1.5\n",
        "p",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("access_correlation"), "{e}");
}

#[test]
fn client_processing_reaches_every_connection_of_the_plan() {
    use ramp_sim::fleet::experiments;
    let f = PopulationFile::parse(
        "[[region]]\nname = \"west-europe\"\n[paths]\nclient_processing_ms = 30\n",
        "cp",
    )
    .unwrap();
    let mut plan = experiments::plan("rapid-start-2026", 20, 1).unwrap();
    let base = plan
        .connection(0)
        .scenario
        .endpoint
        .client_handshake_processing;
    assert!(base.is_zero(), "the preset's default is 0, got {base:?}");
    plan.population = f.population;
    for i in 0..20 {
        let c = plan.connection(i);
        assert_eq!(
            c.scenario.endpoint.client_handshake_processing,
            core::time::Duration::from_millis(30)
        );
    }
    let e = err("[[region]]\nname = \"africa\"\n[paths]\nclient_processing_ms = -1\n");
    assert!(e.contains("client_processing_ms"), "{e}");
    let e = err("[[region]]\nname = \"africa\"\n[paths]\nmobile_share_scale = 4\n");
    assert!(e.contains("mobile_share_scale"), "{e}");
}

#[test]
fn capacity_weight_and_cross_traffic_share_are_read_and_declared() {
    use ramp_sim::fleet::assumptions::Param;
    let f = PopulationFile::parse(
        "[[region]]\nname = \"west-europe\"\n[paths]\ncapacity_weight = 0.25\n\
         cross_traffic_share = 0.1\n",
        "cw",
    )
    .unwrap();
    assert_eq!(Param::CapacityWeight.get(&f.population), Some(0.25));
    assert_eq!(Param::CrossTrafficShare.get(&f.population), Some(0.1));
    let keys: Vec<&str> = f.assumptions.iter().map(|a| a.param.key()).collect();
    assert!(keys.contains(&"paths.capacity_weight"), "{keys:?}");
    assert!(keys.contains(&"paths.cross_traffic_share"), "{keys:?}");
    let e = err("[[region]]\nname = \"africa\"\n[paths]\ncapacity_weight = 1.5\n");
    assert!(e.contains("capacity_weight: must lie in [0, 1]"), "{e}");
}

#[test]
fn video_share_is_a_workload_key_and_declared() {
    use ramp_sim::fleet::assumptions::Param;
    let p = Param::VideoShare;
    let f = PopulationFile::parse(
        "[workload]\nvideo_share = 0.3\n[[region]]\nname = \"west-europe\"\n\
         [[region]]\nname = \"africa\"\n",
        "v",
    )
    .unwrap();
    assert_eq!(p.get(&f.population), Some(0.3));
    let d = f.assumptions.iter().find(|a| a.param == p).unwrap();
    assert_eq!((d.value, d.range), (0.3, (0.0, 0.65)));
    assert!(d.reason.contains("Sandvine"), "{}", d.reason);
    // Without the key: no segments, the model before.
    let f = PopulationFile::parse("[[region]]\nname = \"africa\"\n", "v").unwrap();
    assert_eq!(p.get(&f.population), Some(0.0));
    assert_eq!(p.bounds(), (0.0, 1.0));
}

#[test]
fn respect_app_limited_share_is_an_endpoint_key_and_declared() {
    use ramp_sim::fleet::assumptions::Param;
    let p = Param::RespectAppLimitedShare;
    let f = PopulationFile::parse(
        "[[region]]\nname = \"west-europe\"\n[[region]]\nname = \"africa\"\n\
         [endpoint]\nrespect_app_limited_share = 0.25\n",
        "ra",
    )
    .unwrap();
    assert_eq!(p.get(&f.population), Some(0.25));
    let Population::Regions(rs) = &f.population else {
        panic!("regions expected")
    };
    assert!(rs.iter().all(|r| r.respect_app_limited_share == 0.25));
    let d = f.assumptions.iter().find(|a| a.param == p).unwrap();
    assert_eq!((d.value, d.range), (0.25, (0.0, 1.0)));
    // Without the table: the production record's 0.
    let f = PopulationFile::parse("[[region]]\nname = \"africa\"\n", "ra").unwrap();
    assert_eq!(p.get(&f.population), Some(0.0));
    assert_eq!(p.bounds(), (0.0, 1.0));
}

/// Issue #36: an error found after the parse names the key's own line, not
/// the line of its table's header; a negative quantile is called negative,
/// not "non-decreasing".
#[test]
fn errors_name_the_keys_own_line() {
    let e = err(
        "name = \"x\"\n\n[[region]]\nname = \"mars\"\nrate_mbps = [1, 2, 4, 8, 16]\n\
                 rtt_ms = [400, 500, 600, 700, -800]\n",
    );
    assert!(
        e.starts_with(
            "line 6: region `mars`: rtt_ms: values must be non-negative numbers, got -800"
        ),
        "{e}"
    );
    let e = err("[[region]]\nname = \"africa\"\n\n[paths]\n# c\n\naqm_buffer_ms = [0, 1]\n");
    assert!(e.starts_with("line 7: paths.aqm_buffer_ms"), "{e}");
    // An inline table's key: the line that sets `mix`.
    let e = err(
        "[[region]]\nname = \"africa\"\nweight = 1\nmix = { mobile = 2, wifi = 0, wired = 0 }\n",
    );
    assert!(e.starts_with("line 4: region `africa`: mix.mobile"), "{e}");
    // The second region's key, not the first region's.
    let e = err(
        "[[region]]\nname = \"africa\"\nrtt_ms = [1, 2, 3, 4, 5]\n[[region]]\nname = \"x\"\n\
                 rate_mbps = [1, 2, 3, 4, 5]\nrtt_ms = [5, 4, 3, 2, 1]\n",
    );
    assert!(e.starts_with("line 7: region `x`: rtt_ms"), "{e}");
    // An error about the region as a whole stays on its header.
    let e = err("\n[[region]]\nname = \"atlantis\"\n");
    assert!(e.starts_with("line 2: region `atlantis`"), "{e}");
    // A workload key.
    let e =
        err("[workload]\nmin_size = \"2MB\"\nmax_size = \"1MB\"\n[[region]]\nname = \"africa\"\n");
    assert!(e.starts_with("line 3: workload.max_size"), "{e}");
}

/// Issue #36: a `mix` whose shares do not sum to 1 was divided by its sum
/// without a word; it is refused with its line. Two-decimal rounding
/// (0.33 × 3) still loads.
#[test]
fn a_mix_that_does_not_sum_to_one_is_refused() {
    let e = err("[[region]]\nname = \"africa\"\nmix = { mobile = 0.9, wifi = 0.9, wired = 0.9 }\n");
    assert!(
        e.starts_with("line 3: region `africa`: mix: mobile + wifi + wired must sum to 1"),
        "{e}"
    );
    assert!(e.contains("got 2.7"), "{e}");
    let f = PopulationFile::parse(
        "[[region]]\nname = \"africa\"\nmix = { mobile = 0.33, wifi = 0.33, wired = 0.33 }\n",
        "p",
    );
    assert!(f.is_ok(), "{:?}", f.err());
}

/// The `[paths]` key `computer_wifi_share` (the share of laptops' and
/// desktops' requests over Wi-Fi, docs/sensitivity.md): read into every
/// region, moving the other devices between wired and Wi-Fi by the
/// documented arithmetic; absent, the default leaves the mix as given; out
/// of its range or not a number, refused naming the key and its line.
#[test]
fn computer_wifi_share_is_read_into_every_region() {
    use ramp_sim::fleet::population::COMPUTER_WIFI_SHARE;
    let text = |paths: &str| {
        format!(
            "[[region]]\nname = \"west-europe\"\n[[region]]\nname = \"mars\"\n\
             rate_mbps = [1, 2, 4, 8, 16]\nrtt_ms = [40, 50, 60, 70, 80]\n\
             mix = {{ mobile = 0.2, wifi = 0.4, wired = 0.4 }}\n[paths]\n{paths}"
        )
    };
    let regions = |paths: &str| {
        let f = PopulationFile::parse(&text(paths), "cw").unwrap();
        let Population::Regions(rs) = f.population else {
            panic!("regions expected")
        };
        rs
    };
    let rs = regions("computer_wifi_share = 0.8\n");
    assert!(rs.iter().all(|r| r.paths.computer_wifi_share == 0.8));
    // mars: the other devices are wired / (1 - 0.5) = 0.8 of the mix;
    // at d = 0.8, Wi-Fi gains 0.8 x (0.8 - 0.5) = 0.24 from wired.
    let m = rs[1].scaled_mix();
    assert!((m.wifi - 0.64).abs() < 1e-12, "{m:?}");
    assert!((m.wired - 0.16).abs() < 1e-12, "{m:?}");
    assert_eq!(m.mobile, 0.2);
    let rs = regions("");
    assert!(rs
        .iter()
        .all(|r| r.paths.computer_wifi_share == COMPUTER_WIFI_SHARE));
    assert_eq!(rs[1].scaled_mix(), rs[1].mix, "the default moves nothing");
    for bad in [
        "computer_wifi_share = 1.5\n",
        "computer_wifi_share = -0.1\n",
    ] {
        let e = err(&text(bad));
        assert_eq!(e, "line 9: paths.computer_wifi_share: must lie in [0, 1]");
    }
    // A wrong type is named by its line and key (the TOML reader's
    // message, which lacks the key).
    let e = err(&text("computer_wifi_share = \"half\"\n"));
    assert_eq!(
        e,
        "line 9: paths.computer_wifi_share: invalid type: string \"half\", expected f64"
    );
}

/// Every error the population reader gives, pinned byte for byte: the
/// file's readers may be moved or retyped, but not what a user reads.
#[test]
fn every_population_error_text_is_pinned() {
    const R: &str = "[[region]]\nname = \"west-europe\"\n";
    let cases: &[(String, &str)] = &[
        // The TOML reader's own errors.
        ("[[region]]\nname = \"africa\"\nwieght = 1\n".into(), "line 3: unknown field `wieght`, expected one of `name`, `weight`, `rate_mbps`, `rtt_ms`, `mix`, `chrome_ack_share`, `capacity`"),
        ("[[region]\n".into(), "line 1: invalid table header\nexpected `.`, `]]`"),
        (format!("{R}[paths]\nfixed_aqm_share = \"x\"\n"), "line 4: paths.fixed_aqm_share: invalid type: string \"x\", expected f64"),
        (format!("{R}weight = \"heavy\"\n"), "line 3: region.weight: invalid type: string \"heavy\", expected f64"),
        (format!("{R}[workload]\npages = 3\n"), "line 4: workload.pages: invalid type: integer `3`, expected a boolean"),
        // The file as a whole.
        ("".into(), "no [[region]] tables and no [grid]: nothing to sample"),
        (format!("{R}[grid]\nrates = [\"1mbit\"]\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\n"), "give either [[region]] tables or a [grid], not both"),
        (format!("{R}weight = 0\n"), "every region has weight 0"),
        (format!("{R}{R}"), "line 3: region `west-europe`: defined twice"),
        // [workload]
        (format!("{R}[workload]\nsize = \"1MB\"\nmin_size = \"1KB\"\n"), "line 4: workload.size: give either size or min_size/max_size"),
        (format!("{R}[workload]\nsize = \"1 parsec\"\n"), "line 4: workload.size: size `1 parsec`: unknown unit (B, KB, MB, GB, KiB, MiB, GiB, e.g. `3MB`)"),
        (format!("{R}[workload]\nmin_size = \"1MB\"\nmax_size = \"1KB\"\n"), "line 5: workload.max_size: must exceed min_size, which must be positive"),
        (format!("{R}[workload]\nwarm_share = 2\npages = true\n"), "line 4: workload.warm_share: must lie in [0, 1], not 2"),
        (format!("{R}[workload]\nwarm_share = 0.5\n"), "line 4: workload.warm_share: needs pages = true"),
        (format!("{R}[workload]\nbins = [\"1KB\", \"x\"]\n"), "line 4: workload.bins: size `x`: expected a number followed by a unit"),
        (format!("{R}[workload]\nbins = [\"2KB\", \"1KB\"]\n"), "line 4: workload.bins: edges must be strictly ascending"),
        // [users]
        (format!("{R}[users]\nflow_control = \"firefox\"\n"), "line 4: users.flow_control: unknown setting `firefox` (use chrome, off)"),
        // [grid]
        ("[grid]\nrates = [\"fast\"]\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\n".into(), "line 2: grid.rates: rate `fast`: expected a number followed by a unit"),
        ("[grid]\nrates = [\"1mbit\"]\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\nack_policy = \"sometimes\"\n".into(), "line 6: grid.ack_policy: `sometimes`: unknown ACK policy (use rfc9000, chrome, or ackfreq(N,DELAY))"),
        ("[grid]\nrates = [\"1mbit\"]\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\naqm = \"red\"\n".into(), "line 6: grid.aqm: queue discipline 'red': unknown (valid: droptail, step:<delay>, codel, fq_codel, pie, docsis_pie, dualpi2, docsis_lld)"),
        ("[grid]\nrates = [\"1mbit\"]\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\nseeds = 0\n".into(), "line 6: grid.seeds: must be at least 1"),
        ("[grid]\nrates = []\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\n".into(), "line 2: grid.rates: needs at least one value"),
        // [paths]
        (format!("{R}[paths]\nfixed_aqm_share = 2\n"), "line 4: paths.fixed_aqm_share: must lie in [0, 1]"),
        (format!("{R}[paths]\ndocsis_share = 0.7\nl4s_share = 0.5\n"), "line 4: paths.docsis_share + l4s_share: 0.7 + 0.5 exceeds 1 (both are shares of the AQM'd fixed accesses)"),
        (format!("{R}[paths]\nwifi_loss_max = 0.6\n"), "line 4: paths.wifi_loss_max: must lie in [0, 0.5]"),
        (format!("{R}[paths]\nwifi_jitter = \"median=x\"\n"), "line 4: paths.wifi_jitter: median: duration `x`: expected a number followed by a unit"),
        (format!("{R}[paths]\ncellular = \"nonsense=1\"\n"), "line 4: paths.cellular: nonsense: unknown key (keys: light_bytes, light_fraction, idle_reset, drift_mean, drift_period)"),
        (format!("{R}[paths]\ntraces = [\"/nonexistent/ramp.trace\"]\n"), "line 4: paths.traces: /nonexistent/ramp.trace: cannot read the trace: No such file or directory (os error 2)"),
        (format!("{R}[paths]\ntrace_share = 0.5\n"), "line 4: paths.trace_share: give the traces to draw from (traces = [\"file\", ...])"),
        (format!("{R}[paths]\ndroptail_buffer = \"mba-2011\"\n"), "line 4: paths.droptail_buffer: unknown table `mba-2011` (\"mba-2023\", \"assumed\" or [lo, hi] in ms)"),
        (format!("{R}[paths]\nmobile_buffer = [5, 1]\n"), "line 4: paths.mobile_buffer: give [lo, hi] in ms with 1 <= lo <= hi <= 10000, got [5, 1]"),
        (format!("{R}[paths]\naqm_buffer_ms = [0, 100000]\n"), "line 4: paths.aqm_buffer_ms: give [lo, hi] in ms with 1 <= lo <= hi <= 10000, got [0, 100000]"),
        (format!("{R}[paths]\nmobile_aqm_share = -1\n"), "line 4: paths.mobile_aqm_share: must lie in [0, 1]"),
        (format!("{R}[paths]\naccess_correlation = 5\n"), "line 4: paths.access_correlation: must lie in [0, 0.95]"),
        (format!("{R}[paths]\ncapacity_weight = 2\n"), "line 4: paths.capacity_weight: must lie in [0, 1]"),
        (format!("{R}[paths]\ncross_traffic_users = 0\n"), "line 4: paths.cross_traffic_users: must lie in 1..=64"),
        // [endpoint]
        (format!("{R}[endpoint]\nrespect_app_limited_share = 1.5\n"), "line 4: endpoint.respect_app_limited_share: must lie in [0, 1], not 1.5"),
        (format!("{R}[endpoint]\nrespect = 1\n"), "line 4: unknown field `respect`, expected `respect_app_limited_share`"),
        ("[grid]\nrates = [\"1mbit\"]\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\n[endpoint]\nrespect_app_limited_share = 1\n".into(), "line 6: endpoint: a grid has no regions to set it on (its arms run as written)"),
        // [workload] video_share
        ("[workload]\nvideo_share = 1.5\n[[region]]\nname = \"africa\"\n".into(), "line 2: workload.video_share: must lie in [0, 1], not 1.5"),
        ("[workload]\nsize = \"1MB\"\nvideo_share = 0.5\n[[region]]\nname = \"africa\"\n".into(), "line 3: workload.video_share: needs min_size/max_size (a segment's size follows its path), not a fixed size"),
        ("[workload]\npages = true\nvideo_share = 0.5\n[[region]]\nname = \"africa\"\n".into(), "line 3: workload.video_share: applies to single objects, not pages = true"),
        ("[workload]\nvideo_share = 0.5\n[grid]\nrates = [\"1mbit\"]\nrtts = [\"1ms\"]\nqueues = [\"1ms\"]\nsizes = [\"1MB\"]\n".into(), "line 2: workload.video_share: a grid's cells carry their own sizes"),
        // [[region]]
        ("[[region]]\nname = \"atlantis\"\n".into(), "line 1: region `atlantis`: rate_mbps and rtt_ms are required for a region that is not built in (east-asia, se-asia, west-europe, east-europe, africa, north-america, south-america)"),
        ("[[region]]\nname = \"\"\nrate_mbps = [1, 2, 3, 4, 5]\nrtt_ms = [1, 2, 3, 4, 5]\n".into(), "line 2: region ``: name: must be non-empty text"),
        (format!("{R}weight = -1\n"), "line 3: region `west-europe`: weight: must be a non-negative number"),
        (format!("{R}rate_mbps = [1, 2]\n"), "line 3: region `west-europe`: rate_mbps: give 5 values (p10, p25, p50, p75, p90), got 2"),
        (format!("{R}rtt_ms = [1, 2, 3, 4, -5]\n"), "line 3: region `west-europe`: rtt_ms: values must be non-negative numbers, got -5"),
        (format!("{R}rtt_ms = [5, 4, 3, 2, 1]\n"), "line 3: region `west-europe`: rtt_ms: quantile values must be non-decreasing"),
        (format!("{R}mix = {{ mobile = 2, wifi = 0, wired = 0 }}\n"), "line 3: region `west-europe`: mix.mobile: must lie in [0, 1]"),
        (format!("{R}mix = {{ mobile = 0.5, wifi = 0.5, wired = 0.5 }}\n"), "line 3: region `west-europe`: mix: mobile + wifi + wired must sum to 1 (they are shares of the region's connections; policed is a share of its own), got 1.5"),
        (format!("{R}chrome_ack_share = 2\n"), "line 3: region `west-europe`: chrome_ack_share: must lie in [0, 1]"),
        (format!("{R}capacity = {{ fixed = 0, mobile = 1 }}\n"), "line 3: region `west-europe`: capacity.fixed: must lie in (0, 100]"),
        // [[assumption]]
        (format!("{R}[[assumption]]\nkey = \"paths.nothing\"\nrange = [0, 1]\nreason = \"r\"\n"), "line 4: assumption: unknown parameter `paths.nothing` (one of: paths.fixed_aqm_share, paths.wifi_fq_codel_share, paths.mobile_aqm_share, paths.access_correlation, region.chrome_ack_share, paths.mobile_share_scale, paths.computer_wifi_share, paths.client_processing_ms, paths.cross_traffic_share, paths.capacity_weight, endpoint.respect_app_limited_share, paths.cross_traffic_users, workload.video_share)"),
        (format!("{R}[[assumption]]\nkey = \"paths.fixed_aqm_share\"\nrange = [0, 1]\nreason = \"r\"\n[[assumption]]\nkey = \"paths.fixed_aqm_share\"\nrange = [0, 1]\nreason = \"r\"\n"), "line 8: assumption: paths.fixed_aqm_share: declared twice"),
        (format!("{R}[[assumption]]\nkey = \"paths.fixed_aqm_share\"\nrange = [0.8, 0.9]\nreason = \"r\"\n"), "line 5: assumption: paths.fixed_aqm_share: the population's value 0.7 lies outside the range [0.8, 0.9]"),
    ];
    let mut wrong = Vec::new();
    for (text, want) in cases {
        let got = err(text);
        if got != *want {
            wrong.push(format!("{text:?}\n  got:  {got:?}\n  want: {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
