//! Several requests on one connection: the request schedule of a page load
//! (or of several, on a pooled connection) and the per-object bookkeeping
//! both endpoints share.
//!
//! A connection that carries one object needs none of this (its
//! [`Requests`] is `None` and the endpoints run their one-object paths).
//! With a schedule, object `i`'s response is HTTP/3 request stream `i`;
//! the workload decides when each request leaves the client: the first
//! with the handshake (with Finished, or in 0-RTT), each later one a
//! delay after every earlier object has arrived at the client (a parsing
//! time after the main object, a reading time after the previous page).
//!
//! **Server scheduling: RFC 9218 defaults.** Every request carries the
//! default priority (urgency 3, non-incremental, RFC 9218 §4.1, §4.2),
//! and §10 has a server send same-urgency non-incremental responses "one
//! by one, in the order of their stream IDs". So the server sends the
//! responses in request order, one after the other, retransmissions
//! first (as every stack does); all streams share the connection's
//! congestion window, pacer and loss recovery.
//!
//! The responses lie back to back in one chunk space: object `i`'s
//! bytes are chunks `first[i] .. first[i + 1]`, each chunk one full
//! packet's stream data except an object's last.

use core::time::Duration;

use ramp_cc::Time;

use crate::record::micros as us;

/// When a request leaves the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// With the handshake: with the client's Finished, or in 0-RTT with
    /// its Initial. Only the first object.
    Handshake,
    /// `delay` after objects `0 .. upto` have all arrived at the client
    /// (`upto` ≤ the object's own index).
    After {
        /// Objects that must have arrived first (a prefix of the list).
        upto: u32,
        /// Then this long (parsing time, reading time).
        delay: Duration,
    },
}

/// One requested object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Object {
    /// Response body bytes.
    pub size_bytes: u64,
    /// When its request leaves the client.
    pub trigger: Trigger,
}

/// The request schedule of the connection under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requests {
    /// Objects in request (stream ID) order.
    pub objects: Vec<Object>,
    /// The first object of the page whose load time is recorded (0: the
    /// page that opened the connection; later: a page on a warm
    /// connection). The page runs from there to the last object.
    pub measured_from: u32,
}

/// Why [`Requests::validate`] refused a schedule; objects by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleError {
    /// No object at all.
    NoObjects,
    /// The measured page starts after the last object.
    MeasuredAfterLast,
    /// An object of 0 bytes.
    Empty(usize),
    /// Object 0 is not requested with the handshake.
    FirstNotWithHandshake,
    /// An object other than 0 is requested with the handshake.
    LaterWithHandshake(usize),
    /// An object waits for an empty or not-yet-earlier set of objects.
    WaitsForLater(usize),
}

impl core::fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ScheduleError::NoObjects => f.write_str("a request schedule needs at least one object"),
            ScheduleError::MeasuredAfterLast => {
                f.write_str("the measured page starts after the last object")
            }
            ScheduleError::Empty(i) => write!(f, "object {i}: size must be at least 1 byte"),
            ScheduleError::FirstNotWithHandshake => {
                f.write_str("object 0 must be requested with the handshake")
            }
            ScheduleError::LaterWithHandshake(i) => {
                write!(f, "object {i}: only object 0 goes with the handshake")
            }
            ScheduleError::WaitsForLater(i) => write!(
                f,
                "object {i}: must wait for a non-empty prefix of earlier objects"
            ),
        }
    }
}

impl std::error::Error for ScheduleError {}

impl Requests {
    /// Checks the schedule can run: at least one object, of at least one
    /// byte; the first sent with the handshake and no other; triggers wait
    /// only for earlier objects.
    pub fn validate(&self) -> Result<(), ScheduleError> {
        if self.objects.is_empty() {
            return Err(ScheduleError::NoObjects);
        }
        if self.measured_from as usize >= self.objects.len() {
            return Err(ScheduleError::MeasuredAfterLast);
        }
        for (i, o) in self.objects.iter().enumerate() {
            if o.size_bytes == 0 {
                return Err(ScheduleError::Empty(i));
            }
            match (i, o.trigger) {
                (0, Trigger::Handshake) => {}
                (0, _) => return Err(ScheduleError::FirstNotWithHandshake),
                (_, Trigger::Handshake) => return Err(ScheduleError::LaterWithHandshake(i)),
                (_, Trigger::After { upto, .. }) if upto as usize > i || upto == 0 => {
                    return Err(ScheduleError::WaitsForLater(i))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Total response bytes.
    pub fn total_bytes(&self) -> u64 {
        self.objects.iter().map(|o| o.size_bytes).sum()
    }

    /// Bytes of the measured page.
    pub fn page_bytes(&self) -> u64 {
        self.objects[self.measured_from as usize..]
            .iter()
            .map(|o| o.size_bytes)
            .sum()
    }
}

/// Where each object's chunks lie in the connection's chunk space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// `first[i]`: object `i`'s first chunk; one more entry, the total.
    first: Vec<u32>,
    /// Object sizes.
    sizes: Vec<u64>,
    chunk_bytes: u64,
}

impl Layout {
    /// The layout of `sizes` in chunks of `chunk_bytes`.
    pub(crate) fn new(sizes: &[u64], chunk_bytes: u64) -> Layout {
        let mut first = Vec::with_capacity(sizes.len() + 1);
        let mut at = 0u32;
        for &s in sizes {
            first.push(at);
            let n = u32::try_from(s.div_ceil(chunk_bytes)).unwrap_or(u32::MAX);
            at = at.saturating_add(n);
        }
        first.push(at);
        Layout {
            first,
            sizes: sizes.to_vec(),
            chunk_bytes,
        }
    }

    /// Number of objects.
    pub(crate) fn objects(&self) -> usize {
        self.sizes.len()
    }

    /// Total chunks.
    pub(crate) fn chunks(&self) -> u32 {
        self.first[self.sizes.len()]
    }

    /// One past object `i`'s last chunk.
    pub(crate) fn end(&self, i: usize) -> u32 {
        self.first[i + 1]
    }

    /// The object chunk `c` belongs to.
    pub(crate) fn object_of(&self, c: u32) -> usize {
        // `first` is ascending; the object is the last start ≤ c.
        self.first.partition_point(|&f| f <= c).saturating_sub(1)
    }

    /// Response bytes before chunk `c` (its offset in the connection's
    /// stream data, which flow control's MAX_DATA counts).
    pub(crate) fn offset(&self, c: u32) -> u64 {
        let i = self.object_of(c).min(self.sizes.len().saturating_sub(1));
        let before: u64 = self.sizes[..i].iter().sum();
        before + (u64::from(c - self.first[i]) * self.chunk_bytes).min(self.sizes[i])
    }

    /// Stream bytes of chunk `c`.
    pub(crate) fn chunk_len(&self, c: u32) -> u64 {
        let i = self.object_of(c);
        let off = u64::from(c - self.first[i]) * self.chunk_bytes;
        self.chunk_bytes.min(self.sizes[i] - off)
    }

    /// Object `i`'s size.
    pub(crate) fn size(&self, i: usize) -> u64 {
        self.sizes[i]
    }
}

/// One object's times at the client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectTimes {
    /// Its request left the client.
    pub requested: Option<Time>,
    /// Its last byte arrived at the client.
    pub done: Option<Time>,
}

/// The page-load figures of a finished connection (the record's `page.*`
/// keys).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageRecord {
    /// Page load time of the measured page, µs (0: it did not finish).
    pub load_us: u64,
    /// Objects on the measured page.
    pub objects: u32,
    /// Bytes of the measured page.
    pub bytes: u64,
    /// The measured page came on a warm connection (not its first page).
    pub warm: bool,
    /// Per object of the measured page: request sent → last byte at the
    /// client, µs (0: not finished).
    pub object_us: Vec<u64>,
    /// Per object of the measured page: bytes.
    pub object_bytes: Vec<u64>,
}

impl PageRecord {
    /// The figures of `req`'s measured page from the client's `times`;
    /// `t_start` is when the client started the connection.
    ///
    /// Page load time runs from the page's start to the last byte of its
    /// last object at the client. A page that opens the connection starts
    /// when the client does (navigation start: the handshake is part of
    /// the load, as in Chromium's page-load metrics); a page on a warm
    /// connection starts when its main request leaves.
    pub fn new(req: &Requests, times: &[ObjectTimes], t_start: Time) -> PageRecord {
        let from = req.measured_from as usize;
        let page = &times[from.min(times.len())..];
        let start = if from == 0 {
            Some(t_start)
        } else {
            page.first().and_then(|t| t.requested)
        };
        let end = page
            .iter()
            .map(|t| t.done)
            .try_fold(Time::ZERO, |m, d| d.map(|d| m.max(d)));
        PageRecord {
            load_us: match (start, end) {
                (Some(a), Some(b)) => us(b - a),
                _ => 0,
            },
            objects: u32::try_from(page.len()).unwrap_or(u32::MAX),
            bytes: req.page_bytes(),
            warm: from > 0,
            object_us: page
                .iter()
                .map(|t| match (t.requested, t.done) {
                    (Some(a), Some(b)) => us(b - a),
                    _ => 0,
                })
                .collect(),
            object_bytes: req.objects[from..].iter().map(|o| o.size_bytes).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_puts_objects_back_to_back() {
        let l = Layout::new(&[2500, 1200, 1], 1200);
        assert_eq!(l.chunks(), 3 + 1 + 1);
        assert_eq!(l.end(0), 3);
        assert_eq!(l.object_of(0), 0);
        assert_eq!(l.object_of(2), 0);
        assert_eq!(l.object_of(3), 1);
        assert_eq!(l.object_of(4), 2);
        assert_eq!(l.chunk_len(2), 100);
        assert_eq!(l.chunk_len(3), 1200);
        assert_eq!(l.chunk_len(4), 1);
        let total: u64 = (0..l.chunks()).map(|c| l.chunk_len(c)).sum();
        assert_eq!(total, 3701);
        assert_eq!(l.offset(3), 2500);
        assert_eq!(l.offset(4), 3700);
        assert_eq!(l.offset(5), 3701, "one past the end");
    }

    #[test]
    fn validate_names_the_bad_object() {
        let ok = Requests {
            objects: vec![
                Object {
                    size_bytes: 10,
                    trigger: Trigger::Handshake,
                },
                Object {
                    size_bytes: 10,
                    trigger: Trigger::After {
                        upto: 1,
                        delay: Duration::ZERO,
                    },
                },
            ],
            measured_from: 0,
        };
        ok.validate().unwrap();
        let mut bad = ok.clone();
        bad.objects[1].trigger = Trigger::Handshake;
        assert!(bad.validate().unwrap_err().to_string().contains("object 1"));
        let mut bad = ok.clone();
        bad.objects[1].size_bytes = 0;
        assert!(bad.validate().unwrap_err().to_string().contains("object 1"));
        let mut bad = ok;
        bad.measured_from = 2;
        assert!(bad.validate().is_err());
    }
}
