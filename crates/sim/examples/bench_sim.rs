//! `cargo run --release -p ramp-sim --example bench_sim [SECONDS]`: the same
//! measurement as `ramp bench sim`, without the CLI.
fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    let sc = ramp_sim::Scenario::load("seed-100m").expect("preset");
    let specs = ramp_cc::spec::parse_list("newreno,rapidstart").expect("specs");
    let w = ramp_sim::BenchWorkload::Scenario {
        scenario: Box::new(sc),
        specs,
    };
    let stop = ramp_sim::BenchStop::Budget(std::time::Duration::from_secs_f64(secs));
    let r = ramp_sim::run_bench(&w, stop).expect("bench");
    println!(
        "{} connections, {} packets, {} events in {:.2} s wall, {:.2} s CPU: {:.2} M packets/CPU-s ({:.2} M/s wall), {:.2} M events/s",
        r.connections,
        r.packets,
        r.events,
        r.seconds,
        r.cpu_seconds.unwrap_or(f64::NAN),
        r.packets_per_cpu_sec() / 1e6,
        r.packets_per_sec() / 1e6,
        r.events as f64 / r.seconds / 1e6
    );
}
