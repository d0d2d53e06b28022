//! Reading JSON events as a decoded dict reads them, without building one: a borrowed view of an object's members,
//! strings unescaped, and the error that names a malformed field. Every decoder reads its events through it (the
//! Chat Completions decoder with a pull index of its own, on the same strings, type names and errors), and so does the
//! AWS framing's reading of an exception's payload.
//!
//! Each object is scanned once with jiter's pull parser: members are recorded as (raw key, raw value) spans and
//! values are skipped, so a decoder only descends into what it reads. The rules are those of a decoded dict: the
//! last of a repeated key wins, `null` is absent, a key written with escapes is the key it decodes to, strings keep
//! lone surrogate escapes (as `surrogatepass` bytes). Paths for error messages are formatted only on error.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::LazyLock;

use jiter::{Jiter, JiterError, Peek};
use memchr::memmem;

/// A chunk without the shape of its wire format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkError {
    /// Where in the chunk, e.g. `choices[0].delta.tool_calls[1].index` (empty for the chunk itself).
    pub path: String,
    /// What is wrong.
    pub problem: String,
}

/// What a value that is no object was expected to be, in Python's words (a decoded chunk may be an SDK object).
pub(crate) const MAPPING: &str = "a mapping or an object with attributes";

/// The Python type a decoded chunk would hold for the value starting with `raw`.
pub(crate) fn type_name(raw: &[u8]) -> &'static str {
    match raw.first() {
        Some(b'{') => "dict",
        Some(b'[') => "list",
        Some(b'"') => "str",
        Some(b't' | b'f') => "bool",
        Some(b'n') => "NoneType",
        _ if raw.iter().any(|byte| matches!(byte, b'.' | b'e' | b'E')) => "float",
        _ => "int",
    }
}

/// Where a value sits in its event (`content_block.id`, `candidates[0].content.parts[1]`): a chain of segments on
/// the stack, rendered only for an error.
#[derive(Clone, Copy)]
pub struct Path<'p> {
    parent: Option<&'p Path<'p>>,
    segment: Segment,
}

#[derive(Clone, Copy)]
enum Segment {
    Root,
    Key(&'static str),
    Item(usize),
}

impl<'p> Path<'p> {
    /// The event itself.
    pub const ROOT: Path<'static> = Path {
        parent: None,
        segment: Segment::Root,
    };

    /// The member `key` of the value here.
    #[must_use]
    pub fn key(&'p self, key: &'static str) -> Path<'p> {
        Path {
            parent: Some(self),
            segment: Segment::Key(key),
        }
    }

    /// The item at `position` of the list here.
    #[must_use]
    pub fn item(&'p self, position: usize) -> Path<'p> {
        Path {
            parent: Some(self),
            segment: Segment::Item(position),
        }
    }

    #[cold]
    fn render(&self) -> String {
        let mut segments = Vec::new();
        let mut at = Some(self);
        while let Some(path) = at {
            segments.push(path.segment);
            at = path.parent;
        }
        let mut out = String::new();
        for segment in segments.iter().rev() {
            match segment {
                Segment::Root => {}
                Segment::Key(key) if out.is_empty() => out.push_str(key),
                Segment::Key(key) => {
                    out.push('.');
                    out.push_str(key);
                }
                Segment::Item(position) => {
                    let _ = write!(out, "[{position}]");
                }
            }
        }
        out
    }

    /// A malformed-event error at this path.
    #[cold]
    pub fn fail(&self, problem: impl Into<String>) -> ChunkError {
        ChunkError {
            path: self.render(),
            problem: problem.into(),
        }
    }

    #[cold]
    fn wrong_type(&self, raw: &[u8], expected: &str) -> ChunkError {
        self.fail(format!("expected {expected}, got {}", type_name(raw)))
    }
}

/// The members of one JSON object, as raw spans of its bytes.
pub struct Object<'a> {
    members: Members<'a>,
}

/// Parse the object at the start of `raw` (an event's whole data, or a member's raw value).
pub fn object<'a>(raw: &'a [u8], path: &Path<'_>) -> Result<Object<'a>, ChunkError> {
    let members = index_object(raw).map_err(|error| path.fail(format!("not JSON: {error}")))?;
    members
        .map(|members| Object { members })
        .ok_or_else(|| path.wrong_type(raw, MAPPING))
}

/// An object's members as (raw key, raw value) spans.
type Members<'a> = Vec<(&'a [u8], &'a [u8])>;

fn index_object(raw: &[u8]) -> Result<Option<Members<'_>>, JiterError> {
    let walked = structural(raw);
    let mut jiter = Jiter::new(&walked);
    if jiter.peek()? != Peek::Object {
        let peek = jiter.peek()?;
        jiter.known_skip(peek)?;
        jiter.finish()?;
        return Ok(None);
    }
    let mut members = Vec::new();
    let mut key = jiter.next_object_bytes()?;
    while let Some(name) = key {
        let name: &[u8] = name;
        let name = span_of(&walked, raw, name);
        let peek = jiter.peek()?;
        let start = jiter.current_index();
        jiter.known_skip(peek)?;
        let value = raw.get(start..jiter.current_index()).unwrap_or_default();
        members.push((name, value));
        key = jiter.next_key_bytes()?;
    }
    jiter.finish()?;
    Ok(Some(members))
}

/// The bytes of `raw` at the place `part` (a key jiter returned, as written) has in `walked`, the copy jiter read.
fn span_of<'a>(walked: &[u8], raw: &'a [u8], part: &[u8]) -> &'a [u8] {
    let base = walked.as_ptr() as usize;
    let start = (part.as_ptr() as usize).wrapping_sub(base);
    raw.get(start..start + part.len()).unwrap_or(NO_KEY)
}

/// Stands for a key whose place could not be found (never, as jiter returns keys as written): it names nothing.
const NO_KEY: &[u8] = b"\\";

impl<'a> Object<'a> {
    /// The raw value of `key` (the last one when repeated); None when absent or `null`.
    pub fn raw(&self, key: &str) -> Option<&'a [u8]> {
        let value = self
            .members
            .iter()
            .rev()
            .find(|(name, _)| names(name, key))
            .map(|(_, value)| *value)?;
        (value != b"null").then_some(value)
    }

    /// The raw value of `key` (the last one when repeated), `null` included: for a field whose presence is its value
    /// (a protobuf `NullValue`).
    pub fn raw_or_null(&self, key: &str) -> Option<&'a [u8]> {
        self.members
            .iter()
            .rev()
            .find(|(name, _)| names(name, key))
            .map(|(_, value)| *value)
    }

    /// Whether `key` is present with a non-null value.
    pub fn has(&self, key: &str) -> bool {
        self.raw(key).is_some()
    }

    /// The members' raw keys and values, in order (repeats included).
    pub fn members(&self) -> &[(&'a [u8], &'a [u8])] {
        &self.members
    }

    /// A string member's bytes, borrowed when it has no escapes.
    pub fn string(&self, key: &'static str, path: &Path<'_>) -> Result<Option<Cow<'a, [u8]>>, ChunkError> {
        self.raw(key).map(|raw| string(raw, &path.key(key))).transpose()
    }

    /// An integer member that fits 64 bits.
    pub fn integer(&self, key: &'static str, path: &Path<'_>) -> Result<Option<i64>, ChunkError> {
        let Some(raw) = self.raw(key) else { return Ok(None) };
        let at = path.key(key);
        if type_name(raw) != "int" {
            return Err(at.wrong_type(raw, "an integer or null"));
        }
        let digits = std::str::from_utf8(raw).unwrap_or_default();
        digits
            .parse::<i64>()
            .map(Some)
            .map_err(|_| at.fail(format!("integer {digits} is out of the 64-bit range")))
    }

    /// A boolean member.
    pub fn boolean(&self, key: &'static str, path: &Path<'_>) -> Result<Option<bool>, ChunkError> {
        match self.raw(key) {
            None => Ok(None),
            Some(b"true") => Ok(Some(true)),
            Some(b"false") => Ok(Some(false)),
            Some(raw) => Err(path.key(key).wrong_type(raw, "a boolean or null")),
        }
    }

    /// An object member.
    pub fn object(&self, key: &'static str, path: &Path<'_>) -> Result<Option<Object<'a>>, ChunkError> {
        self.raw(key).map(|raw| object(raw, &path.key(key))).transpose()
    }

    /// A list member's items, raw.
    pub fn list(&self, key: &'static str, path: &Path<'_>) -> Result<Option<Vec<&'a [u8]>>, ChunkError> {
        self.raw(key).map(|raw| list(raw, &path.key(key))).transpose()
    }
}

/// Whether a raw key (as written, escapes included) names `wanted`.
pub(crate) fn names(raw: &[u8], wanted: &str) -> bool {
    if raw == NO_KEY {
        return false;
    }
    if raw.contains(&b'\\') {
        return unescape(raw).is_ok_and(|decoded| decoded == wanted.as_bytes());
    }
    raw == wanted.as_bytes()
}

/// The items of the list `raw`, raw.
pub fn list<'a>(raw: &'a [u8], path: &Path<'_>) -> Result<Vec<&'a [u8]>, ChunkError> {
    let items = index_list(raw).map_err(|error| path.fail(format!("not JSON: {error}")))?;
    items.ok_or_else(|| path.wrong_type(raw, "a list"))
}

fn index_list(raw: &[u8]) -> Result<Option<Vec<&[u8]>>, JiterError> {
    let walked = structural(raw);
    let mut jiter = Jiter::new(&walked);
    if jiter.peek()? != Peek::Array {
        return Ok(None);
    }
    let mut items = Vec::new();
    let mut next = jiter.known_array()?;
    while let Some(peek) = next {
        let start = jiter.current_index();
        jiter.known_skip(peek)?;
        items.push(raw.get(start..jiter.current_index()).unwrap_or_default());
        next = jiter.array_step()?;
    }
    Ok(Some(items))
}

/// A string value's bytes, borrowed when it holds no escape.
pub fn string<'a>(raw: &'a [u8], path: &Path<'_>) -> Result<Cow<'a, [u8]>, ChunkError> {
    let inner = string_inner(raw).ok_or_else(|| path.wrong_type(raw, "a string or null"))?;
    if !inner.contains(&b'\\') {
        return Ok(Cow::Borrowed(inner));
    }
    unescape(inner).map(Cow::Owned).map_err(|problem| path.fail(problem))
}

/// The escaped content of a JSON string value (between its quotes); None when `raw` is no string.
pub fn string_inner(raw: &[u8]) -> Option<&[u8]> {
    if raw.first() != Some(&b'"') || raw.len() < 2 {
        return None;
    }
    raw.get(1..raw.len() - 1)
}

/// The text jiter walks to find where values lie: `raw` itself, or, when it holds `\u` escapes of lone surrogates
/// (which jiter rejects but a decoded dict keeps, and so do we), a copy with each replaced by `\ufffd`, the same
/// length, so that every offset found in the copy is the same in `raw`. Values are always cut from `raw`.
pub(crate) fn structural(raw: &[u8]) -> Cow<'_, [u8]> {
    // Built once: `memmem::find` builds its searcher on every call, a cost each small event of a stream would pay.
    static UNICODE_ESCAPE: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"\\u"));
    if UNICODE_ESCAPE.find(raw).is_none() {
        return Cow::Borrowed(raw);
    }
    let mut copy: Option<Vec<u8>> = None;
    let mut position = 0;
    while let Some(offset) = memchr::memchr(b'\\', raw.get(position..).unwrap_or_default()) {
        let at = position + offset;
        if raw.get(at + 1) != Some(&b'u') {
            position = at + 2;
            continue;
        }
        let unit = hex4(raw.get(at + 2..at + 6));
        position = at + 6;
        let Some(unit) = unit else { continue };
        if (0xD800..0xDC00).contains(&unit)
            && raw.get(position..position + 2) == Some(&b"\\u"[..])
            && hex4(raw.get(position + 2..position + 6)).is_some_and(|low| (0xDC00..0xE000).contains(&low))
        {
            position += 6;
            continue;
        }
        if (0xD800..0xE000).contains(&unit) {
            let copy = copy.get_or_insert_with(|| raw.to_vec());
            if let Some(escape) = copy.get_mut(at..at + 6) {
                escape.copy_from_slice(b"\\ufffd");
            }
        }
    }
    copy.map_or(Cow::Borrowed(raw), Cow::Owned)
}

fn hex4(digits: Option<&[u8]>) -> Option<u32> {
    let digits = digits?;
    if digits.len() != 4 || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// The bytes of a JSON string's escaped content. A `\u` escape of a lone surrogate, which a decoded chunk holds as
/// it is, becomes the three bytes `surrogatepass` gives it: identity fields come back as sent, and in arguments the
/// scanner rejects them as it rejects them from a decoded chunk.
pub(crate) fn unescape(inner: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(inner.len());
    let mut bytes = inner.iter().copied();
    while let Some(byte) = bytes.next() {
        if byte != b'\\' {
            out.push(byte);
            continue;
        }
        let escaped = match bytes.next() {
            Some(b'"') => b'"',
            Some(b'\\') => b'\\',
            Some(b'/') => b'/',
            Some(b'b') => 0x08,
            Some(b'f') => 0x0C,
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(b'u') => {
                let mut unit = escaped_unit(&mut bytes)?;
                if (0xD800..0xDC00).contains(&unit) {
                    let mut lookahead = bytes.clone();
                    if lookahead.next() == Some(b'\\') && lookahead.next() == Some(b'u') {
                        let low = escaped_unit(&mut lookahead)?;
                        if (0xDC00..0xE000).contains(&low) {
                            bytes = lookahead;
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        }
                    }
                }
                push_code_point(&mut out, unit);
                continue;
            }
            _ => return Err("an invalid escape in a string".to_owned()),
        };
        out.push(escaped);
    }
    Ok(out)
}

fn escaped_unit(bytes: &mut impl Iterator<Item = u8>) -> Result<u32, String> {
    let mut unit = 0;
    for _ in 0..4 {
        let digit = bytes
            .next()
            .and_then(|byte| char::from(byte).to_digit(16))
            .ok_or_else(|| "an invalid \\u escape in a string".to_owned())?;
        unit = unit * 16 + digit;
    }
    Ok(unit)
}

/// UTF-8 of a code point, and of a lone surrogate the bytes Python's `surrogatepass` writes.
fn push_code_point(out: &mut Vec<u8>, point: u32) {
    let [_, b1, b2, b3] = point.to_be_bytes();
    match point {
        0..0x80 => out.push(b3),
        0x80..0x800 => out.extend([0xC0 | (b2 << 2) | (b3 >> 6), 0x80 | (b3 & 0x3F)]),
        0x800..0x10000 => out.extend([
            0xE0 | (b2 >> 4),
            0x80 | ((b2 & 0x0F) << 2) | (b3 >> 6),
            0x80 | (b3 & 0x3F),
        ]),
        _ => out.extend([
            0xF0 | (b1 >> 2),
            0x80 | ((b1 & 0x03) << 4) | (b2 >> 4),
            0x80 | ((b2 & 0x0F) << 2) | (b3 >> 6),
            0x80 | (b3 & 0x3F),
        ]),
    }
}
