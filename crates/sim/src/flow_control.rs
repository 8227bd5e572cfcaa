//! Client receive windows (QUIC flow control, RFC 9000 §4): the client
//! advertises how many stream bytes the server may send (MAX_STREAM_DATA,
//! per stream; MAX_DATA, for the connection) and raises the limits as its
//! application consumes data.
//!
//! The windows default to Chrome's: `InitializeQuicConfig` in Chromium's
//! `net/quic/quic_context.cc` (chromium/chromium
//! dafa5001f61ef0c8a87c02daab8d8f3f5b4ea101) sends
//! `kQuicStreamMaxRecvWindowSize` = 6 MiB per stream and
//! `kQuicSessionMaxRecvWindowSize` = 15 MiB per connection as the initial
//! flow-control windows.
//!
//! When to raise a limit: quiche's `QuicFlowController` (the flow
//! controller Chrome runs) sends a window update once the window still
//! open falls below half the window, moving the limit to `consumed +
//! window`. The browser's application is modelled as reading every byte
//! the moment it is delivered in order. quiche can also auto-tune a window
//! upward when updates come faster than every two RTTs; that is not
//! modelled, so the windows here are the smallest Chrome starts with.

/// Chrome's per-stream receive window, bytes
/// (`kQuicStreamMaxRecvWindowSize`, net/quic/quic_context.cc).
pub(crate) const CHROME_STREAM_WINDOW: u64 = 6 * 1024 * 1024;
/// Chrome's per-connection receive window, bytes
/// (`kQuicSessionMaxRecvWindowSize`, net/quic/quic_context.cc).
pub(crate) const CHROME_CONNECTION_WINDOW: u64 = 15 * 1024 * 1024;

/// Smallest window a scenario may give: one full packet's stream data, so
/// a transfer always makes progress.
pub(crate) const MIN_WINDOW: u64 = 1200;
/// Largest window a scenario may give (1 GiB): far above any path's
/// bandwidth-delay product in the simulator.
pub(crate) const MAX_WINDOW: u64 = 1 << 30;

/// The client's receive windows, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowWindows {
    /// Per stream (MAX_STREAM_DATA).
    pub stream: u64,
    /// Per connection (MAX_DATA).
    pub connection: u64,
}

impl FlowWindows {
    /// Chrome's windows.
    pub const CHROME: FlowWindows = FlowWindows {
        stream: CHROME_STREAM_WINDOW,
        connection: CHROME_CONNECTION_WINDOW,
    };

    /// The limit on the response's stream bytes before any update: the
    /// response is one stream, so the smaller window binds.
    pub fn initial_limit(&self) -> u64 {
        self.stream.min(self.connection)
    }
}

/// The client's side: the limits it advertised and when to raise them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReceiveWindows {
    windows: FlowWindows,
    /// Advertised MAX_STREAM_DATA (the response stream's limit).
    stream_limit: u64,
    /// Advertised MAX_DATA.
    connection_limit: u64,
    /// Updates sent.
    pub updates: u64,
}

impl ReceiveWindows {
    /// Limits as advertised in the transport parameters
    /// (`initial_max_stream_data_bidi_local`, `initial_max_data`; RFC 9000
    /// §18.2).
    pub(crate) fn new(windows: FlowWindows) -> ReceiveWindows {
        ReceiveWindows {
            windows,
            stream_limit: windows.stream,
            connection_limit: windows.connection,
            updates: 0,
        }
    }

    /// The application has consumed `consumed` bytes (of the one stream,
    /// hence of the connection). Returns the new limits to advertise
    /// (MAX_STREAM_DATA, MAX_DATA) when either falls below half its window
    /// open, as quiche's `QuicFlowController::MaybeSendWindowUpdate` does.
    pub(crate) fn on_consumed(&mut self, consumed: u64) -> Option<(u64, u64)> {
        let mut changed = false;
        if self.stream_limit.saturating_sub(consumed) < self.windows.stream / 2 {
            self.stream_limit = consumed + self.windows.stream;
            changed = true;
        }
        if self.connection_limit.saturating_sub(consumed) < self.windows.connection / 2 {
            self.connection_limit = consumed + self.windows.connection;
            changed = true;
        }
        if changed {
            self.updates += 1;
            Some((self.stream_limit, self.connection_limit))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9000_4_1_limits_rise_only_once_half_the_window_is_consumed() {
        let mut r = ReceiveWindows::new(FlowWindows {
            stream: 10_000,
            connection: 40_000,
        });
        assert_eq!(r.on_consumed(4_000), None);
        assert_eq!(r.on_consumed(5_000), None, "5 000 still open of 10 000");
        assert_eq!(r.on_consumed(5_001), Some((15_001, 40_000)));
        assert_eq!(r.on_consumed(20_001), Some((30_001, 60_001)));
        assert_eq!(r.updates, 2);
    }

    #[test]
    fn chrome_windows_are_6_and_15_mib() {
        assert_eq!(FlowWindows::CHROME.stream, 6_291_456);
        assert_eq!(FlowWindows::CHROME.connection, 15_728_640);
        assert_eq!(FlowWindows::CHROME.initial_limit(), 6_291_456);
    }
}
