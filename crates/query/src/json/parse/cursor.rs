//! The cursor over one JSON text and the structural grammar: values,
//! objects, arrays and literals. Building ([`Cursor::value`]) and skipping
//! ([`Cursor::skip`]) share the separator loop ([`Cursor::members`]) and the
//! key rule ([`Cursor::key`]), so both accept exactly the same texts.

use super::{JsonError, MAX_DEPTH, R};
use crate::value::{MemberStack, Value};

/// The error for a bad separator inside an object.
pub(super) const OBJECT_SEPARATOR: &str = "expected ',' or '}' in an object";

/// The error for a bad separator inside an array.
const ARRAY_SEPARATOR: &str = "expected ',' or ']' in an array";

/// A position in a JSON text.
pub(super) struct Cursor<'a> {
    /// The text.
    pub(super) b: &'a [u8],
    /// The next byte to read.
    pub(super) i: usize,
    /// Whether a newline counts as whitespace (multi-line documents only).
    pub(super) nl: bool,
    /// Members of the objects being built.
    pub(super) stack: MemberStack,
}

impl<'a> Cursor<'a> {
    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    pub(super) fn err(&self, msg: &'static str) -> JsonError {
        JsonError {
            offset: self.i,
            msg,
        }
    }

    #[inline(always)]
    pub(super) fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            // Every structural byte is above the space: one compare in the
            // common (compact JSON) case, and no jump table.
            if c > b' ' {
                return;
            }
            if c == b' ' || c == b'\t' || c == b'\r' || (c == b'\n' && self.nl) {
                self.i += 1;
            } else {
                return;
            }
        }
    }

    /// Steps over an object's members or an array's elements, the cursor on
    /// the opening bracket: `member` reads one (for an object, from its key
    /// through its value; whitespace around it is already skipped) and this
    /// handles the separators up to `close`. `msg` names the bad separator.
    #[inline(always)]
    pub(super) fn members(
        &mut self,
        close: u8,
        msg: &'static str,
        mut member: impl FnMut(&mut Self) -> R<()>,
    ) -> R<()> {
        self.i += 1;
        self.ws();
        if self.peek() == Some(close) {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            member(self)?;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(c) if c == close => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.err(msg)),
            }
        }
    }

    /// An object member's key and the colon after it, the cursor where the
    /// key should start; `read` reads the key from its opening quote. Leaves
    /// the cursor on the member's value.
    #[inline(always)]
    pub(super) fn key<K>(&mut self, read: impl FnOnce(&mut Self) -> R<K>) -> R<K> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string key"));
        }
        let k = read(self)?;
        self.ws();
        if self.peek() != Some(b':') {
            return Err(self.err("expected ':' after an object key"));
        }
        self.i += 1;
        self.ws();
        Ok(k)
    }

    /// A container met inside `depth` others would be nesting level
    /// `depth + 1`: at most [`MAX_DEPTH`] levels are accepted.
    fn check_depth(&self, depth: usize) -> R<()> {
        if depth >= MAX_DEPTH && matches!(self.peek(), Some(b'{' | b'[')) {
            return Err(self.err("nesting too deep"));
        }
        Ok(())
    }

    /// Parses one value, `depth` containers deep.
    pub(super) fn value(&mut self, depth: usize) -> R<Value> {
        self.check_depth(depth)?;
        match self.peek() {
            Some(b'{') => {
                let mut frame = self.stack.open();
                self.members(b'}', OBJECT_SEPARATOR, |c| {
                    let k = c.key(Self::string)?;
                    let v = c.value(depth + 1)?;
                    c.stack.push(&mut frame, k, v);
                    Ok(())
                })?;
                Ok(Value::Object(self.stack.close(frame)))
            }
            Some(b'[') => {
                let mut a = Vec::new();
                self.members(b']', ARRAY_SEPARATOR, |c| {
                    a.push(c.value(depth + 1)?);
                    Ok(())
                })?;
                Ok(Value::Array(a))
            }
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.lit(b"true", Value::Bool(true)),
            Some(b'f') => self.lit(b"false", Value::Bool(false)),
            Some(b'n') => self.lit(b"null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("expected a JSON value")),
            None => Err(self.err("unexpected end of line")),
        }
    }

    /// [`Cursor::skip`] for a top-level member's value, testing the common
    /// kinds (numbers, then strings) with plain branches before the general
    /// dispatch.
    #[inline(always)]
    pub(super) fn skip_fast(&mut self) -> R<()> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() || c == b'-' => self.skip_number(),
            Some(b'"') => self.skip_string(),
            _ => self.skip(1),
        }
    }

    /// Validates and steps over one value without building it.
    pub(super) fn skip(&mut self, depth: usize) -> R<()> {
        self.check_depth(depth)?;
        match self.peek() {
            Some(b'{') => self.members(b'}', OBJECT_SEPARATOR, |c| {
                c.key(Self::skip_string)?;
                c.skip(depth + 1)
            }),
            Some(b'[') => self.members(b']', ARRAY_SEPARATOR, |c| c.skip(depth + 1)),
            Some(b'"') => self.skip_string(),
            Some(b't') => self.lit(b"true", ()),
            Some(b'f') => self.lit(b"false", ()),
            Some(b'n') => self.lit(b"null", ()),
            Some(b'-' | b'0'..=b'9') => self.number_span().map(|_| ()),
            Some(_) => Err(self.err("expected a JSON value")),
            None => Err(self.err("unexpected end of line")),
        }
    }

    fn lit<T>(&mut self, word: &[u8], v: T) -> R<T> {
        if self.b.get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("invalid literal"))
        }
    }
}
