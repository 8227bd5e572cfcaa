//! Fuzzes the relay's datagram classification (what the network sends it):
//! never a panic, and only long-header datagrams of 1200 bytes or more may
//! open a client.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramp_quic::relay::{classify, DatagramKind};

fuzz_target!(|data: &[u8]| {
    if classify(data) == DatagramKind::ClientInitial {
        assert!(data.len() >= 1200 && data[0] & 0x80 != 0);
    }
});
