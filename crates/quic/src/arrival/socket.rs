//! The server's UDP socket with kernel receive times, and the quinn
//! runtime whose clock it shares ([`super`] explains the scheme).
//!
//! Sending is quinn's own tokio socket on a duplicate of the descriptor
//! (quinn-udp 0.5, GSO as before); receiving reads the original
//! descriptor with quinn-udp 0.6, whose `RecvMeta` carries the
//! `SO_TIMESTAMPNS` stamp (quinn-udp 0.6.3 `unix.rs` turns the option on
//! for every socket it wraps).

use std::fmt;
use std::io::{self, IoSliceMut};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Instant, SystemTime};

use quinn::udp::{EcnCodepoint, RecvMeta, Transmit};
use quinn::{AsyncTimer, AsyncUdpSocket, Runtime, TokioRuntime, UdpPoller};
use quinn_udp_stamped as stamped;
use tokio::io::Interest;

use super::{kernel_arrival, ArrivalLog, StrictClock};

/// quinn's tokio runtime with a [`StrictClock`] for `now`.
#[derive(Debug)]
pub(crate) struct StampedRuntime {
    clock: Arc<StrictClock>,
}

impl StampedRuntime {
    /// A runtime reading `clock`.
    pub(crate) fn new(clock: Arc<StrictClock>) -> StampedRuntime {
        StampedRuntime { clock }
    }
}

impl Runtime for StampedRuntime {
    fn new_timer(&self, i: Instant) -> Pin<Box<dyn AsyncTimer>> {
        TokioRuntime.new_timer(i)
    }

    fn spawn(&self, future: Pin<Box<dyn std::future::Future<Output = ()> + Send>>) {
        tokio::spawn(future);
    }

    fn wrap_udp_socket(&self, t: std::net::UdpSocket) -> io::Result<Arc<dyn AsyncUdpSocket>> {
        TokioRuntime.wrap_udp_socket(t)
    }

    fn now(&self) -> Instant {
        self.clock.now()
    }
}

/// A UDP socket that hands quinn one receive per driver wake-up and logs
/// each one's kernel arrival time.
pub(crate) struct StampedSocket {
    /// quinn's tokio socket on a duplicate descriptor: sends.
    send: Arc<dyn AsyncUdpSocket>,
    /// The original descriptor: receives.
    io: tokio::net::UdpSocket,
    state: stamped::UdpSocketState,
    clock: Arc<StrictClock>,
    log: Arc<ArrivalLog>,
    /// A receive was handed over in this wake-up: the next ask ends it.
    handed_over: AtomicBool,
}

impl fmt::Debug for StampedSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StampedSocket")
            .field("io", &self.io)
            .field("log", &self.log.len())
            .finish_non_exhaustive()
    }
}

/// What [`bind`] returns: the socket and runtime to build a quinn
/// endpoint with (`Endpoint::new_with_abstract_socket`), and the log the
/// controllers read.
pub(crate) struct Bound {
    /// The [`StampedSocket`].
    pub socket: Arc<dyn AsyncUdpSocket>,
    /// The [`StampedRuntime`] sharing its clock.
    pub runtime: Arc<dyn Runtime>,
    /// The socket's receive times.
    pub log: Arc<ArrivalLog>,
}

/// Receive buffer asked for on the server's socket (the kernel caps it at
/// `net.core.rmem_max`, 4 MiB on the benchmark VM), as the relay's and
/// `ramp load`'s sockets ask. The default (`rmem_default`, about 208 KiB)
/// overflowed when 1000 clients handshook at once while the server waited
/// for a CPU: 3374 and 4785 datagrams dropped by the kernel
/// (`RcvbufErrors`) in two runs on the 2-core VM at load 27. A larger
/// buffer helps only a server that gets a CPU back soon: with it, three
/// such runs still dropped 387–2286, and 3–15 % of the handshakes timed
/// out, so it is not a fix for a starved machine.
const RECV_BUFFER_BYTES: usize = 8 << 20;

/// Takes over the bound socket `sock`, with kernel receive times. Must be
/// called inside a tokio runtime.
pub(crate) fn wrap(sock: std::net::UdpSocket) -> io::Result<Bound> {
    // Best effort: a smaller buffer only costs handshakes in a burst.
    let _ = socket2::SockRef::from(&sock).set_recv_buffer_size(RECV_BUFFER_BYTES);
    let dup = sock.try_clone()?;
    let clock = Arc::new(StrictClock::new());
    let state = stamped::UdpSocketState::new((&sock).into())?;
    sock.set_nonblocking(true)?;
    let log = Arc::new(ArrivalLog::new());
    let socket = StampedSocket {
        send: TokioRuntime.wrap_udp_socket(dup)?,
        io: tokio::net::UdpSocket::from_std(sock)?,
        state,
        clock: clock.clone(),
        log: log.clone(),
        handed_over: AtomicBool::new(false),
    };
    Ok(Bound {
        socket: Arc::new(socket),
        runtime: Arc::new(StampedRuntime::new(clock)),
        log,
    })
}

/// quinn-udp 0.6's receive description as quinn-udp 0.5's (quinn's).
fn to_quinn_meta(m: &stamped::RecvMeta) -> RecvMeta {
    RecvMeta {
        addr: m.addr,
        len: m.len,
        stride: m.stride,
        ecn: m.ecn.and_then(|e| EcnCodepoint::from_bits(e as u8)),
        dst_ip: m.dst_ip,
    }
}

impl AsyncUdpSocket for StampedSocket {
    fn create_io_poller(self: Arc<Self>) -> Pin<Box<dyn UdpPoller>> {
        self.send.clone().create_io_poller()
    }

    fn try_send(&self, transmit: &Transmit) -> io::Result<()> {
        self.send.try_send(transmit)
    }

    fn poll_recv(
        &self,
        cx: &mut Context,
        bufs: &mut [IoSliceMut<'_>],
        meta: &mut [RecvMeta],
    ) -> Poll<io::Result<usize>> {
        if self.handed_over.swap(false, Ordering::Relaxed) {
            // One receive per wake-up, so that each gets its own `now`;
            // come back at once for the next.
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let (Some(buf), Some(out)) = (bufs.first_mut(), meta.first_mut()) else {
            return Poll::Ready(Ok(0));
        };
        loop {
            match self.io.poll_recv_ready(cx) {
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
            let mut m = [stamped::RecvMeta::default()];
            let res = self.io.try_io(Interest::READABLE, || {
                self.state
                    .recv((&self.io).into(), std::slice::from_mut(buf), &mut m)
            });
            match res {
                Ok(0) => continue,
                Ok(_) => {
                    let polled = self.clock.now();
                    let arrival = kernel_arrival(m[0].timestamp, polled, SystemTime::now());
                    self.log.record(polled, arrival);
                    *out = to_quinn_meta(&m[0]);
                    self.handed_over.store(true, Ordering::Relaxed);
                    return Poll::Ready(Ok(1));
                }
                // As quinn's own tokio socket does: a failed read (would
                // block, or an error the kernel queued, such as an ICMP
                // port unreachable) is not the endpoint's end; wait for
                // readiness again.
                Err(_) => continue,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.local_addr()
    }

    fn may_fragment(&self) -> bool {
        self.send.may_fragment()
    }

    fn max_transmit_segments(&self) -> usize {
        self.send.max_transmit_segments()
    }

    fn max_receive_segments(&self) -> usize {
        self.state.gro_segments()
    }
}
