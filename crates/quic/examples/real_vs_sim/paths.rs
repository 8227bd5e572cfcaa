//! The paths of `real_vs_sim`'s table, and how each is set up in the relay
//! and in the simulator: the same rate, delay, buffer, loss and
//! discipline, and with `--cellular` / `--wifi-jitter` the same ramp-link
//! path elements on the downlink (the simulator's forward link).

use std::time::Duration;

use ramp_quic::relay::RelayConfig;

/// One row's path.
#[derive(Clone, Copy)]
pub(crate) struct Path {
    pub(crate) name: &'static str,
    pub(crate) rate_mbit: u64,
    pub(crate) rtt_ms: u64,
    pub(crate) queue_ms: u64,
    pub(crate) loss: f64,
    /// Queue discipline, both in the relay and in the simulator.
    pub(crate) aqm: &'static str,
    /// A cellular downlink (`ramp_link::Cellular::CELLREPLAY`), both in
    /// the relay and in the simulator.
    pub(crate) cellular: bool,
    /// Wi-Fi delay variation on the downlink
    /// (`ramp_link::Jitter::WIFI_SUI_2016`), both in the relay and in the
    /// simulator.
    pub(crate) wifi_jitter: bool,
}

/// The simulator's seed. With a path element that draws random numbers
/// on, the relay runs with the seed whose downlink draws from the same
/// streams (`ramp_link::downlink_seed`), so real and simulated runs see the
/// same base-delay drift (and the same delay-variation draws, packet for
/// packet, as far as they carry the same packets).
pub(crate) const SIM_SEED: u64 = 1;

impl Path {
    /// The relay's side: discipline and path elements.
    pub(crate) fn configure_relay(
        &self,
        cfg: &mut RelayConfig,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        cfg.up.aqm = self.aqm.parse()?;
        cfg.down.aqm = cfg.up.aqm;
        if self.cellular || self.wifi_jitter {
            cfg.seed = ramp_link::downlink_seed(SIM_SEED);
        }
        if self.cellular {
            cfg.down.elements.cellular = Some(ramp_link::Cellular::CELLREPLAY);
            cfg.down.base_rtt = Duration::from_millis(self.rtt_ms);
        }
        if self.wifi_jitter {
            cfg.down.elements.jitter = Some(ramp_link::Jitter::WIFI_SUI_2016);
        }
        Ok(())
    }

    /// The simulator's side: the `[path]` subtables of the elements (their
    /// defaults are the same constants).
    pub(crate) fn sim_tables(&self) -> String {
        let mut t = String::new();
        if self.cellular {
            t.push_str("[path.cellular]\n");
        }
        if self.wifi_jitter {
            let j = ramp_link::Jitter::WIFI_SUI_2016;
            t.push_str(&format!(
                "[path.jitter]\nmedian = \"{}us\"\np90 = \"{}us\"\n",
                j.median.as_micros(),
                j.p90.as_micros()
            ));
        }
        t
    }
}

/// The table's heading note for the elements on.
pub(crate) fn elements_note(cellular: bool, wifi_jitter: bool) -> &'static str {
    match (cellular, wifi_jitter) {
        (false, false) => "",
        (true, false) => "; cellular downlink (CellReplay defaults) in both",
        (false, true) => "; Wi-Fi delay variation on the downlink (WiFiSeer defaults) in both",
        (true, true) => {
            "; cellular downlink and Wi-Fi delay variation (CellReplay, WiFiSeer defaults) in both"
        }
    }
}

/// The paths of the table: name, rate, RTT, queue, loss, discipline.
pub(crate) fn paths() -> Vec<Path> {
    let p = |name, rate_mbit, rtt_ms, queue_ms, loss, aqm| Path {
        name,
        rate_mbit,
        rtt_ms,
        queue_ms,
        loss,
        aqm,
        cellular: false,
        wifi_jitter: false,
    };
    vec![
        p("20m-40ms", 20, 40, 40, 0.0, "droptail"),
        p("100m-40ms", 100, 40, 40, 0.0, "droptail"),
        // seed-100m's path (100 Mbit/s, 30 ms, 30 ms queue).
        p("100m-30ms", 100, 30, 30, 0.0, "droptail"),
        p("20m-40ms-0.5%", 20, 40, 40, 0.005, "droptail"),
        p("20m-40ms-codel", 20, 40, 40, 0.0, "codel"),
    ]
}
