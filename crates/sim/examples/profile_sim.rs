//! A fixed workload for instruction-count profiling:
//! `valgrind --tool=callgrind target/release/examples/profile_sim [N]`
//! (N seed-100m 3 MB connections, alternating newreno and rapidstart).
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let sc = ramp_sim::Scenario::load("seed-100m").expect("preset");
    let specs = ramp_cc::spec::parse_list("newreno,rapidstart").expect("specs");
    let mut packets = 0;
    for i in 0..n {
        let spec = &specs[(i as usize) % specs.len()];
        let flows = ramp_sim::flows_for(&sc, spec, "", 1 + i).expect("flows");
        let out = ramp_sim::simulate(&sc, flows, 1 + i, &mut ramp_sim::TraceSink::off());
        packets += out.packets;
    }
    println!("{n} connections, {packets} packets");
}
