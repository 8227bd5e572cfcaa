//! The keys of a stats record (docs/formats.md), one definition shared by
//! the writers (the simulator's records, `ramp serve`'s) and the readers
//! (charts, reports, the fleet summary). Most follow h2o's
//! per-connection stats log, so logs of either can be queried the same way.

/// Scenario name.
pub const SCENARIO: &str = "scenario";
/// The A/B arm's label.
pub const GROUP: &str = "group";
/// The controller's canonical name.
pub const CC_ALGORITHM: &str = "cc.algorithm";
/// The path's seed.
pub const SEED: &str = "seed";
/// Flow index on a shared bottleneck (0 = the flow under test).
pub const FLOW: &str = "flow";
/// The transfer finished within the time limit.
pub const COMPLETED: &str = "completed";
/// Response body bytes.
pub const CONTENT_LENGTH: &str = "content_length";
/// Time to last byte, ms (h2o's `ttlb`, rounded down).
pub const TTLB_MS: &str = "ttlb";
/// Time to last byte, µs.
pub const TTLB_US: &str = "ttlb-us";
/// The client's time to last byte, µs.
pub const CLIENT_TTLB_US: &str = "client-ttlb-us";
/// Time to first byte, µs.
pub const TTFB_US: &str = "ttfb-us";
/// Handshake duration, µs.
pub const HANDSHAKE_US: &str = "handshake-us";
/// Packets sent.
pub const PACKETS_SENT: &str = "num-packets.sent";
/// Packets declared lost.
pub const PACKETS_LOST: &str = "num-packets.lost";
/// Packets acknowledged.
pub const PACKETS_ACKED: &str = "num-packets.ack-received";
/// Losses later found spurious.
pub const PACKETS_LOST_SPURIOUS: &str = "num-packets.lost-spurious";
/// Bytes sent.
pub const BYTES_SENT: &str = "num-bytes.sent";
/// Bytes declared lost.
pub const BYTES_LOST: &str = "num-bytes.lost";
/// Bytes acknowledged.
pub const BYTES_ACKED: &str = "num-bytes.ack-received";
/// Stream bytes sent again.
pub const STREAM_BYTES_RESENT: &str = "num-bytes.stream-data-resent";
/// Probe timeouts.
pub const PTOS: &str = "num-ptos";
/// Drops at the bottleneck queue.
pub const DROPS_QUEUE: &str = "path.drops-queue";
/// Random drops.
pub const DROPS_RANDOM: &str = "path.drops-random";
/// Policer drops.
pub const DROPS_POLICER: &str = "path.drops-policer";
/// Early drops by the queue discipline (CoDel, FQ-CoDel, PIE).
pub const DROPS_AQM: &str = "path.drops-aqm";
/// Packets the peer reported CE-marked in its ACK frames' ECN counts (h2o's
/// key for the same count).
pub const PACKETS_ACKED_ECN_CE: &str = "num-packets.acked-ecn-ce";
/// Packets the peer reported received ECT(0) (RFC 9000 §19.3.2).
pub const PACKETS_ACKED_ECN_ECT0: &str = "num-packets.acked-ecn-ect0";
/// Packets the peer reported received ECT(1) (RFC 9000 §19.3.2).
pub const PACKETS_ACKED_ECN_ECT1: &str = "num-packets.acked-ecn-ect1";
/// The bottleneck's queue discipline (`droptail`, `codel`, ...).
pub const PATH_AQM: &str = "path.aqm";
/// min_rtt, ms.
pub const RTT_MIN_MS: &str = "rtt.minimum";
/// smoothed_rtt, ms.
pub const RTT_SMOOTHED_MS: &str = "rtt.smoothed";
/// rttvar, ms.
pub const RTT_VARIANCE_MS: &str = "rtt.variance";
/// latest_rtt, ms.
pub const RTT_LATEST_MS: &str = "rtt.latest";
/// min_rtt, µs.
pub const RTT_MIN_US: &str = "rtt.minimum-us";
/// smoothed_rtt, µs.
pub const RTT_SMOOTHED_US: &str = "rtt.smoothed-us";
/// Congestion window at the end, bytes.
pub const CWND: &str = "cc.cwnd";
/// Slow-start threshold at the end, bytes (absent while infinite).
pub const SSTHRESH: &str = "cc.ssthresh";
/// The initial window, bytes.
pub const CWND_INITIAL: &str = "cc.cwnd-initial";
/// The window when slow start ended, bytes.
pub const CWND_EXITING_SLOW_START: &str = "cc.cwnd-exiting-slow-start";
/// The largest window, bytes.
pub const CWND_MAXIMUM: &str = "cc.cwnd-maximum";
/// Congestion events that started a recovery period.
pub const LOSS_EPISODES: &str = "cc.num-loss-episodes";
/// Of those, the CE-only ones.
pub const ECN_LOSS_EPISODES: &str = "cc.num-ecn-loss-episodes";
/// Reductions undone as spurious.
pub const SPURIOUS_UNDOS: &str = "cc.num-spurious-undos";
/// Bottleneck rate, bit/s.
pub const PATH_RATE_BPS: &str = "path.rate-bps";
/// Base RTT, ms.
pub const PATH_RTT_MS: &str = "path.rtt-ms";
/// Queue, ms at the link rate.
pub const PATH_QUEUE_MS: &str = "path.queue-ms";
/// Mean random loss.
pub const PATH_LOSS: &str = "path.loss";
/// The client's ACK policy.
pub const PATH_ACK_POLICY: &str = "path.ack-policy";
/// MAX_STREAM_DATA/MAX_DATA updates the server received from the client
/// (h2o's key; written only when the client has flow-control windows).
pub const MAX_STREAM_DATA_RECEIVED: &str = "num-frames-received.max_stream_data";
/// Times the server became blocked by the client's flow-control limit,
/// each a STREAM_DATA_BLOCKED frame (h2o's key; written only with
/// windows).
pub const STREAM_DATA_BLOCKED_SENT: &str = "num-frames-sent.stream_data_blocked";
/// How a resumed connection started: `0rtt` (request in 0-RTT, no
/// address-validation token) or `0rtt-token`; absent for a full handshake.
pub const RESUMPTION: &str = "resumption";
/// Page load time of the connection's measured page, µs: from the page's
/// start (the connection's, for the page that opened it; its main
/// request's, on a warm connection) to the last byte of its last object
/// at the client; 0 if it did not finish. Written only for connections
/// that fetched several objects (page loads), as are the `page.*` keys.
pub const PAGE_LOAD_US: &str = "page-load-us";
/// Objects on the measured page (main object and embedded objects).
pub const PAGE_OBJECTS: &str = "page.objects";
/// Response bytes of the measured page.
pub const PAGE_BYTES: &str = "page.bytes";
/// The measured page came on a warm (pooled) connection.
pub const PAGE_WARM: &str = "page.warm";
/// Per object of the measured page, in request order: request sent →
/// last byte at the client, µs (0: not finished).
pub const PAGE_OBJECT_US: &str = "page.object-us";
/// Per object of the measured page, in request order: response bytes.
pub const PAGE_OBJECT_BYTES: &str = "page.object-bytes";
/// A fleet connection's index.
pub const CONN: &str = "conn";
/// A fleet connection's region.
pub const POP: &str = "pop";
/// A fleet connection's access class.
pub const ACCESS: &str = "access";
/// A fleet connection's path is policed.
pub const POLICED: &str = "policed";
/// A fleet connection's web users sharing its bottleneck (cross traffic).
pub const WEB_USERS: &str = "web-users";
/// A fleet connection's object-size bin.
pub const SIZE_BIN: &str = "size-bin";
