//! Where a shell sits and which addresses it uses.
//!
//! Every shell has a path: the index of the top-level shell (0..1024) and
//! the index of each nested shell inside its parent (1..16), up to three
//! levels. The path gives the shell a block of addresses, carved out of
//! 100.64.0.0/10 (shared address space, RFC 6598, as Mahimahi uses) and
//! of the unique local prefix `fd72:616d:7000::/48` (RFC 4193):
//!
//! | depth | IPv4 block | IPv6 block |
//! |---|---|---|
//! | 1 | 100.64.0.0 + a·4096, /20 | `fd72:616d:7000:a::/64` |
//! | 2 | + k·256, /24 | `…:a:k::/80` |
//! | 3 | + m·16, /28 | `…:a:k:m::/96` |
//!
//! The first /30 (/126) of the block is the shell's own link: `.1` is the
//! outer end (the host, or the parent shell's namespace), `.2` the inner
//! end (the command's namespace). Nested shells take the later sub-blocks,
//! so the outer side reaches every nested namespace with one route for the
//! whole block.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// The base of the shell's IPv4 space: 100.64.0.0/10 (RFC 6598).
pub(crate) const V4_BASE: Ipv4Addr = Ipv4Addr::new(100, 64, 0, 0);
/// The IPv4 space's prefix length.
pub(crate) const V4_PREFIX: u8 = 10;
/// The shell's IPv6 space, a unique local /48 (RFC 4193; "ram" in ASCII).
pub(crate) const V6_BASE: Ipv6Addr = Ipv6Addr::new(0xfd72, 0x616d, 0x7000, 0, 0, 0, 0, 0);
/// The IPv6 space's prefix length.
pub(crate) const V6_PREFIX: u8 = 48;

/// Number of top-level shells: 2^(20 - 10) blocks of /20.
pub(crate) const TOP_LEVEL: u16 = 1024;
/// Nested shells per parent (index 0 is the parent's own link).
pub(crate) const PER_PARENT: u16 = 16;
/// Deepest nesting.
pub(crate) const MAX_DEPTH: usize = 3;

/// A shell's place in the nesting: `[a]`, `[a, k]` or `[a, k, m]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellPath(Vec<u16>);

/// A path that is not a valid shell path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathError(String);

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad shell path {:?}: want a-k-m with a < {TOP_LEVEL}, 1 <= k, m < {PER_PARENT}",
            self.0
        )
    }
}

impl std::error::Error for PathError {}

impl ShellPath {
    /// The top-level shell `a`.
    pub fn top(a: u16) -> Option<ShellPath> {
        (a < TOP_LEVEL).then(|| ShellPath(vec![a]))
    }

    /// Nested shell `k` inside this one; `None` past the deepest level or
    /// for an index out of 1..16.
    pub fn child(&self, k: u16) -> Option<ShellPath> {
        if self.0.len() >= MAX_DEPTH || !(1..PER_PARENT).contains(&k) {
            return None;
        }
        let mut v = self.0.clone();
        v.push(k);
        Some(ShellPath(v))
    }

    /// The indices, outermost first.
    pub fn indices(&self) -> &[u16] {
        &self.0
    }

    /// The shell itself and every shell it is nested in, innermost first.
    pub fn ancestry(&self) -> impl Iterator<Item = ShellPath> + '_ {
        (1..=self.0.len())
            .rev()
            .map(|n| ShellPath(self.0[..n].to_vec()))
    }

    /// The IPv4 block and its prefix length.
    pub fn v4_block(&self) -> (Ipv4Addr, u8) {
        let shifts = [12u32, 8, 4];
        let mut base = u32::from(V4_BASE);
        for (i, s) in self.0.iter().zip(shifts) {
            base += u32::from(*i) << s;
        }
        (Ipv4Addr::from(base), 32 - shifts[self.0.len() - 1] as u8)
    }

    /// The IPv6 block and its prefix length.
    pub fn v6_block(&self) -> (Ipv6Addr, u8) {
        let mut seg = V6_BASE.segments();
        for (d, i) in seg[3..].iter_mut().zip(&self.0) {
            *d = *i;
        }
        (Ipv6Addr::from(seg), 48 + 16 * self.0.len() as u8)
    }

    /// The outer end of the shell's link (`.1`, `::1`).
    pub fn outer(&self) -> (Ipv4Addr, Ipv6Addr) {
        self.link_addr(1)
    }

    /// The inner end, the command's address (`.2`, `::2`).
    pub fn inner(&self) -> (Ipv4Addr, Ipv6Addr) {
        self.link_addr(2)
    }

    fn link_addr(&self, host: u8) -> (Ipv4Addr, Ipv6Addr) {
        let v4 = Ipv4Addr::from(u32::from(self.v4_block().0) + u32::from(host));
        let v6 = Ipv6Addr::from(u128::from(self.v6_block().0) + u128::from(host));
        (v4, v6)
    }

    /// Whether `dst` is the outer end of this shell's link or of a shell
    /// it is nested in: the only destinations its command may reach.
    pub fn may_reach(&self, dst: IpAddr) -> bool {
        self.ancestry().any(|p| {
            let (v4, v6) = p.outer();
            dst == IpAddr::V4(v4) || dst == IpAddr::V6(v6)
        })
    }

    /// Whether `dst` lies in this shell's block (its namespace or one
    /// nested in it).
    pub fn contains(&self, dst: IpAddr) -> bool {
        match dst {
            IpAddr::V4(a) => {
                let (b, p) = self.v4_block();
                let mask = u32::MAX << (32 - p);
                u32::from(a) & mask == u32::from(b)
            }
            IpAddr::V6(a) => {
                let (b, p) = self.v6_block();
                let mask = u128::MAX << (128 - p);
                u128::from(a) & mask == u128::from(b)
            }
        }
    }

    /// The network namespace's name, `ramp-sh-a[-k[-m]]`.
    pub fn netns_name(&self) -> String {
        format!("{NETNS_PREFIX}{self}")
    }

    /// The outer TUN device's name, `ramp-a[-k[-m]]` (at most 15 bytes).
    pub fn outer_device(&self) -> String {
        format!("{DEVICE_PREFIX}{self}")
    }
}

/// Prefix of every namespace a shell creates (`ramp shell --cleanup` looks
/// for it).
pub const NETNS_PREFIX: &str = "ramp-sh-";
/// Prefix of every device a shell creates in the namespace it runs in.
pub const DEVICE_PREFIX: &str = "ramp-";
/// The TUN device's name inside the command's namespace.
pub(crate) const INNER_DEVICE: &str = "ramp-in";

impl fmt::Display for ShellPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, x) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("-")?;
            }
            write!(f, "{x}")?;
        }
        Ok(())
    }
}

impl FromStr for ShellPath {
    type Err = PathError;

    fn from_str(s: &str) -> Result<ShellPath, PathError> {
        let err = || PathError(s.to_string());
        let mut parts = s.split('-');
        let a = parts.next().and_then(|x| x.parse().ok()).ok_or_else(err)?;
        let mut p = ShellPath::top(a).ok_or_else(err)?;
        for x in parts {
            let k = x.parse().map_err(|_| err())?;
            p = p.child(k).ok_or_else(err)?;
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_link_addresses() {
        let p: ShellPath = "3".parse().unwrap();
        assert_eq!(p.v4_block(), (Ipv4Addr::new(100, 64, 48, 0), 20));
        assert_eq!(p.outer().0, Ipv4Addr::new(100, 64, 48, 1));
        assert_eq!(p.inner().0, Ipv4Addr::new(100, 64, 48, 2));
        assert_eq!(
            p.inner().1,
            "fd72:616d:7000:3::2".parse::<Ipv6Addr>().unwrap()
        );
        let q: ShellPath = "1023-15-15".parse().unwrap();
        assert_eq!(q.v4_block(), (Ipv4Addr::new(100, 127, 255, 240), 28));
        assert_eq!(q.v6_block().1, 96);
        assert_eq!(q.outer_device(), "ramp-1023-15-15");
        assert!(q.outer_device().len() < 16);
        assert_eq!(q.netns_name(), "ramp-sh-1023-15-15");
    }

    #[test]
    fn every_block_stays_inside_the_shared_address_space() {
        let top = |a| ShellPath::top(a).unwrap();
        for p in [
            top(0),
            top(1023),
            top(1023).child(15).unwrap().child(15).unwrap(),
        ] {
            let (b, len) = p.v4_block();
            let last = u32::from(b) + (1u32 << (32 - len)) - 1;
            assert_eq!(u32::from(b) >> 22, u32::from(V4_BASE) >> 22, "{p}");
            assert_eq!(last >> 22, u32::from(V4_BASE) >> 22, "{p}");
        }
    }

    #[test]
    fn nested_blocks_are_disjoint_from_the_parent_link() {
        let a = ShellPath::top(7).unwrap();
        let k = a.child(1).unwrap();
        assert!(a.contains(IpAddr::V4(k.inner().0)));
        assert!(a.contains(IpAddr::V6(k.inner().1)));
        assert!(!k.contains(IpAddr::V4(a.inner().0)));
        assert!(!k.contains(IpAddr::V6(a.outer().1)));
        assert!(!ShellPath::top(8).unwrap().contains(IpAddr::V4(k.inner().0)));
    }

    #[test]
    fn reach_is_the_outer_ends_of_the_ancestry() {
        let k = ShellPath::top(2).unwrap().child(4).unwrap();
        assert!(k.may_reach(IpAddr::V4(k.outer().0)));
        assert!(k.may_reach(IpAddr::V4(ShellPath::top(2).unwrap().outer().0)));
        assert!(k.may_reach(IpAddr::V6(ShellPath::top(2).unwrap().outer().1)));
        assert!(!k.may_reach(IpAddr::V4(ShellPath::top(3).unwrap().outer().0)));
        assert!(!k.may_reach("8.8.8.8".parse().unwrap()));
        assert!(!k.may_reach(IpAddr::V4(k.inner().0)));
    }

    #[test]
    fn bad_paths_are_refused() {
        for s in ["", "x", "1024", "1-0", "1-16", "1-1-1-1", "-1", "1--2"] {
            assert!(s.parse::<ShellPath>().is_err(), "{s}");
        }
        assert_eq!("5-2".parse::<ShellPath>().unwrap().to_string(), "5-2");
    }
}
