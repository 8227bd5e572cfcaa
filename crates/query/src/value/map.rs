//! [`Map`], the JSON object: a flat vector of (key, value) in insertion
//! order, with a hash index built only when a large object is searched.
//!
//! A parsed NDJSON record is mostly built, read once or not at all, and
//! dropped. A vector costs one allocation per object; an index that is
//! never used would cost a hash and a table insert per key, and rehashing
//! as it grows. So the index is built on the first lookup of an object
//! with more than [`LINEAR_MAX`] entries and kept up to date from then on.
//!
//! Semantics are those of an insertion-ordered map: keys are unique; a
//! repeated [`Map::insert`] keeps the key where it first appeared and
//! replaces its value (so a duplicate key in JSON input: the last value
//! wins, at the first key's position).

use std::fmt;
use std::hash::Hasher;
use std::sync::OnceLock;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use super::Value;

/// Objects with at most this many entries are searched linearly.
const LINEAR_MAX: usize = 16;

/// An insertion-ordered JSON object with unique keys.
#[derive(Default)]
pub struct Map {
    entries: Vec<(String, Value)>,
    /// Positions in `entries`, by key hash; `None` until a lookup needs it.
    index: OnceLock<Box<HashTable<u32>>>,
}

#[inline]
fn hash(k: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(k.as_bytes());
    h.finish()
}

impl Map {
    /// An empty map with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        Map {
            entries: Vec::with_capacity(n),
            index: OnceLock::new(),
        }
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn index(&self) -> &HashTable<u32> {
        self.index.get_or_init(|| {
            let mut t = HashTable::with_capacity(self.entries.len());
            for (i, (k, _)) in self.entries.iter().enumerate() {
                // Keys are unique, so every position goes in.
                t.insert_unique(hash(k), i as u32, |&j| hash(&self.entries[j as usize].0));
            }
            Box::new(t)
        })
    }

    /// Position of `k`.
    #[inline]
    fn find(&self, k: &str) -> Option<usize> {
        if self.entries.len() <= LINEAR_MAX {
            return self.entries.iter().position(|(e, _)| e == k);
        }
        self.index()
            .find(hash(k), |&i| self.entries[i as usize].0 == k)
            .map(|&i| i as usize)
    }

    /// The value of `k`.
    #[inline]
    pub fn get(&self, k: &str) -> Option<&Value> {
        self.find(k).map(|i| &self.entries[i].1)
    }

    /// The value of `k`, mutable.
    pub fn get_mut(&mut self, k: &str) -> Option<&mut Value> {
        self.find(k).map(|i| &mut self.entries[i].1)
    }

    /// The value of `k`, taken out of the map, which is used up.
    pub fn into_value(mut self, k: &str) -> Option<Value> {
        let i = self.find(k)?;
        Some(self.entries.swap_remove(i).1)
    }

    /// Whether `k` is a key.
    pub fn contains_key(&self, k: &str) -> bool {
        self.find(k).is_some()
    }

    /// Sets `k` to `v`. An existing key keeps its position and its old
    /// value is returned; a new key goes last.
    pub fn insert(&mut self, k: String, v: Value) -> Option<Value> {
        if let Some(i) = self.find(&k) {
            return Some(std::mem::replace(&mut self.entries[i].1, v));
        }
        self.push_new(k, v);
        None
    }

    /// Appends `k`, which the caller knows is not a key yet.
    fn push_new(&mut self, k: String, v: Value) {
        let i = self.entries.len();
        if let Some(t) = self.index.get_mut() {
            let entries = &self.entries;
            t.insert_unique(hash(&k), i as u32, |&j| hash(&entries[j as usize].0));
        }
        self.entries.push((k, v));
    }

    /// Keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// Values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Entries in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &Value)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Keys in order, by value.
    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = String> + ExactSizeIterator {
        self.entries.into_iter().map(|(k, _)| k)
    }

    /// Values in order, by value.
    pub fn into_values(self) -> impl DoubleEndedIterator<Item = Value> + ExactSizeIterator {
        self.entries.into_iter().map(|(_, v)| v)
    }
}

/// The members of objects being parsed, on one stack shared by all
/// nesting levels, so that each finished object is allocated once at its
/// exact size (no regrowth while it is read). Duplicate keys are found with
/// a cheap filter: a bit per key hash in a 4096-bit set per object. A key
/// whose bit is clear is certainly new and is pushed without a search; only
/// a key whose bit is set (a duplicate, or a collision) is searched for
/// among the object's members so far.
#[derive(Default)]
pub(crate) struct MemberStack {
    members: Vec<(String, Value)>,
}

/// One object in a [`MemberStack`]: where its members start and its filter.
pub(crate) struct ObjectFrame {
    start: usize,
    seen: [u64; 64],
}

thread_local! {
    /// Each thread's stack, kept between lines so its buffer is reused.
    static STACK: std::cell::Cell<MemberStack> = std::cell::Cell::new(MemberStack::default());
}

impl MemberStack {
    /// This thread's stack (empty, with the capacity earlier lines left).
    pub(crate) fn take() -> Self {
        STACK.with(std::cell::Cell::take)
    }

    /// Returns the stack for the next line on this thread.
    pub(crate) fn give_back(mut self) {
        // An error can leave members of unfinished objects behind.
        self.members.clear();
        STACK.with(|s| s.set(self));
    }

    /// Starts an object (nested objects start and finish inside it).
    #[inline]
    pub(crate) fn open(&self) -> ObjectFrame {
        ObjectFrame {
            start: self.members.len(),
            seen: [0; 64],
        }
    }

    /// Adds a member to the innermost open object; a repeated key replaces
    /// the earlier value in place (the same rule as [`Map::insert`]).
    #[inline]
    pub(crate) fn push(&mut self, f: &mut ObjectFrame, k: String, v: Value) {
        let h = hash(&k);
        // The top 12 bits of the hash choose the bit.
        let bit = (h >> 52) as usize;
        let (w, m) = (bit / 64, 1u64 << (bit % 64));
        if f.seen[w] & m != 0 {
            if let Some(e) = self.members[f.start..].iter_mut().find(|(e, _)| *e == k) {
                e.1 = v;
                return;
            }
        }
        f.seen[w] |= m;
        self.members.push((k, v));
    }

    /// Finishes the innermost open object.
    #[inline]
    pub(crate) fn close(&mut self, f: ObjectFrame) -> Map {
        Map {
            entries: self.members.drain(f.start..).collect(),
            index: OnceLock::new(),
        }
    }
}

impl Clone for Map {
    fn clone(&self) -> Self {
        Map {
            entries: self.entries.clone(),
            index: OnceLock::new(),
        }
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(it: I) -> Self {
        let mut m = Map::default();
        m.extend(it);
        m
    }
}

impl Extend<(String, Value)> for Map {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, it: I) {
        for (k, v) in it {
            self.insert(k, v);
        }
    }
}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a String, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Value)>,
        fn(&'a (String, Value)) -> (&'a String, &'a Value),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(m: &Map) -> Vec<&str> {
        m.keys().map(String::as_str).collect()
    }

    #[test]
    fn insert_keeps_first_position_and_last_value() {
        for n in [3, LINEAR_MAX + 5, 1000] {
            let mut m = Map::default();
            for i in 0..n {
                m.insert(format!("k{i}"), Value::Int(i as i128));
            }
            assert_eq!(m.insert("k1".into(), Value::Int(-1)), Some(Value::Int(1)));
            assert_eq!(m.len(), n);
            assert_eq!(keys(&m)[1], "k1");
            assert_eq!(m.get("k1"), Some(&Value::Int(-1)));
            assert_eq!(
                m.get(&format!("k{}", n - 1)),
                Some(&Value::Int(n as i128 - 1))
            );
            assert!(m.get("absent").is_none());
            // The index, once built, follows later inserts.
            m.insert("new".into(), Value::Null);
            assert!(m.contains_key("new"));
            assert_eq!(keys(&m).last(), Some(&"new"));
        }
    }

    #[test]
    fn into_value_takes_the_last_value_of_a_key() {
        for n in [3, 40] {
            let m: Map = (0..n)
                .map(|i| (format!("k{i}"), Value::Int(i)))
                .chain([("k1".to_string(), Value::Int(-1))])
                .collect();
            assert_eq!(m.clone().into_value("k1"), Some(Value::Int(-1)));
            assert_eq!(
                m.clone().into_value(&format!("k{}", n - 1)),
                Some(Value::Int(n - 1))
            );
            assert_eq!(m.into_value("absent"), None);
        }
    }

    #[test]
    fn member_stack_equals_repeated_insert_with_duplicates() {
        // Enough keys that the filter has collisions, and real duplicates,
        // with a nested object opened and closed in between.
        let ks: Vec<String> = (0..3000).map(|i| format!("key{}", i % 2100)).collect();
        let mut st = MemberStack::default();
        let mut outer = st.open();
        let mut m = Map::default();
        for (i, k) in ks.iter().enumerate() {
            if i == 1500 {
                let mut inner = st.open();
                st.push(&mut inner, "key7".into(), Value::Null);
                st.push(&mut inner, "key7".into(), Value::Bool(true));
                let inner = st.close(inner);
                assert_eq!(inner.len(), 1);
                assert_eq!(inner.get("key7"), Some(&Value::Bool(true)));
            }
            st.push(&mut outer, k.clone(), Value::Int(i as i128));
            m.insert(k.clone(), Value::Int(i as i128));
        }
        let b = st.close(outer);
        assert_eq!(b.len(), 2100);
        assert!(b.iter().eq(m.iter()));
        assert_eq!(b.get("key5"), Some(&Value::Int(2105)));
    }
}
