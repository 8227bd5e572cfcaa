//! Failing fast when nothing listens at a server's address.
//!
//! quinn's endpoint socket is unconnected, and Linux reports ICMP errors
//! only to connected UDP sockets (without `IP_RECVERR`), so a handshake
//! with a closed port waits for the whole timeout (60 s by default in
//! `ramp get`). [`unreachable`] runs beside the handshake: a connected
//! UDP socket sends an empty datagram to the server's address (a QUIC
//! server ignores it; RFC 9000 §14.1 gives packets a minimum size) and
//! reads the ICMP port- or host-unreachable that comes back as an error
//! on the socket.

use std::net::SocketAddr;
use std::time::Duration;

/// How often the empty datagram is sent again while the handshake goes on
/// (ICMP errors may be rate-limited or lost).
const RESEND: Duration = Duration::from_millis(500);

/// Runs `handshake` to `addr`, ending it early with an error naming `addr`
/// if the network says nothing listens there.
pub(crate) async fn or_unreachable<T>(
    addr: SocketAddr,
    handshake: impl std::future::Future<Output = Result<T, String>>,
) -> Result<T, String> {
    tokio::select! {
        r = handshake => r,
        e = unreachable(addr) => Err(e),
    }
}

/// Completes with a message naming `addr` once the network says nothing
/// listens there; otherwise never completes (race it with the handshake).
async fn unreachable(addr: SocketAddr) -> String {
    let bind: SocketAddr = if addr.is_ipv4() {
        SocketAddr::from(([0, 0, 0, 0], 0))
    } else {
        SocketAddr::from(([0u16; 8], 0))
    };
    let Ok(sock) = tokio::net::UdpSocket::bind(bind).await else {
        return std::future::pending().await;
    };
    if sock.connect(addr).await.is_err() {
        return std::future::pending().await;
    }
    let mut buf = [0u8; 64];
    loop {
        let sent = sock.send(&[]).await;
        let got = match sent {
            Err(e) => Err(e),
            Ok(_) => match tokio::time::timeout(RESEND, sock.recv(&mut buf)).await {
                Ok(r) => r,
                Err(_) => continue,
            },
        };
        if let Err(e) = got {
            if is_unreachable(&e) {
                return format!("{addr} is unreachable: {e} (nothing listens there for UDP)");
            }
            tokio::time::sleep(RESEND).await;
        }
    }
}

/// Whether `e` is the network saying nothing listens there (an ICMP port
/// or host unreachable reported on a connected UDP socket).
pub(crate) fn is_unreachable(e: &std::io::Error) -> bool {
    use std::io::ErrorKind as K;
    matches!(
        e.kind(),
        K::ConnectionRefused | K::HostUnreachable | K::NetworkUnreachable
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_closed_udp_port_is_reported_within_a_second() {
        let addr = std::net::UdpSocket::bind("127.0.0.1:0")
            .and_then(|s| s.local_addr())
            .expect("ephemeral port");
        // The socket is gone: its port answers with ICMP port unreachable.
        // Within a second on a machine that keeps up; the 30 s timeout
        // only ends a hang.
        let t0 = std::time::Instant::now();
        let pressure = ramp_host::timing::CpuPressure::now();
        let m = tokio::time::timeout(Duration::from_secs(30), unreachable(addr))
            .await
            .expect("reported");
        assert!(m.contains(&addr.to_string()), "{m}");
        ramp_host::timing::promptly(
            "a_closed_udp_port_is_reported_within_a_second",
            t0,
            Duration::from_secs(1),
            pressure,
        );
    }

    #[tokio::test]
    async fn a_bound_port_is_not_reported() {
        let s = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
        let addr = s.local_addr().expect("addr");
        let r = tokio::time::timeout(Duration::from_millis(1200), unreachable(addr)).await;
        assert!(r.is_err(), "{r:?}");
    }
}
