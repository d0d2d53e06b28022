//! Incremental JSON completeness scanner.
//!
//! A [`Scanner`] is fed a JSON value's bytes in fragments split anywhere (inside strings, escapes,
//! numbers, literals or multi-byte UTF-8 sequences) and answers at any moment whether the value is
//! still [`ScanState::Incomplete`], has [`ScanState::Complete`]d, or is [`ScanState::Invalid`] (with
//! the absolute offset of the offending byte and a [`ScanErrorKind`]).
//!
//! The grammar is strict RFC 8259 with UTF-8 validated inside strings and lone surrogates in `\u`
//! escapes rejected. Bytes are never re-read once passed (the byte that ends a number is dispatched
//! twice, at most), so the work is linear in the bytes fed. Memory is O(depth) plus the decoded keys
//! of the objects currently open, kept for duplicate-key detection until
//! [`Scanner::stop_tracking_keys`].
//!
//! `python/toolwire/reference/_scanner.py` is the same state machine in plain Python; the two must
//! agree on every verdict, error kind and offset.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

/// The verdict of a [`Scanner`] on the bytes fed so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanState {
    /// The value has not ended yet; more bytes (or [`Scanner::finish`]) may complete it.
    Incomplete,
    /// The top-level value ended; only whitespace may follow.
    Complete {
        /// Absolute byte offset just past the value's last byte.
        end: u64,
    },
    /// The bytes are not JSON; the state never changes again.
    Invalid(ScanError),
}

/// Where and why the input stopped being JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanError {
    /// Absolute byte offset of the offending byte.
    pub offset: u64,
    /// Why the byte was rejected.
    pub kind: ScanErrorKind,
}

/// Generates, from one entry per kind (what it means, its variant, the snake-case name the pure-Python reference uses,
/// and a short human-readable reason), [`ScanErrorKind`], [`ScanErrorKind::ALL`], its names and its reasons.
macro_rules! scan_error_kinds {
    ($($(#[doc = $doc:literal])+ $variant:ident $name:literal $reason:literal,)+) => {
        /// Why a byte was rejected. The snake-case names from [`ScanErrorKind::as_str`] are the ones the
        /// pure-Python reference uses.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ScanErrorKind {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl ScanErrorKind {
            /// Every kind, in the order of the table.
            pub const ALL: &[Self] = &[$(Self::$variant,)+];

            /// The snake-case name shared with the pure-Python reference, e.g. `"unexpected_byte"`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            /// A short human-readable reason, e.g. for a violation message.
            pub fn describe(self) -> &'static str {
                match self {
                    $(Self::$variant => $reason,)+
                }
            }
        }
    };
}

scan_error_kinds! {
    /// At a token boundary, a byte that can neither start nor continue what the grammar expects
    /// (including any byte >= 0x80 outside a string).
    UnexpectedByte "unexpected_byte" "unexpected byte",
    /// A byte that breaks a number in progress (`01`, `-a`, `1.]`, `1e+]`, `12x`).
    InvalidNumber "invalid_number" "invalid number",
    /// A byte that breaks `true`, `false` or `null` in progress.
    InvalidLiteral "invalid_literal" "invalid literal (expected true, false or null)",
    /// A character after `\` that is not an escape, or a non-hex digit in `\uXXXX`.
    InvalidEscape "invalid_escape" "invalid escape sequence in string",
    /// A `\u` escape of a UTF-16 surrogate without its other half.
    LoneSurrogate "lone_surrogate" "lone UTF-16 surrogate in \\u escape",
    /// An unescaped control character (U+0000 to U+001F) inside a string.
    ControlCharacter "control_character" "unescaped control character in string",
    /// A malformed UTF-8 sequence inside a string.
    InvalidUtf8 "invalid_utf8" "invalid UTF-8 in string",
    /// A non-whitespace byte after the top-level value ended.
    TrailingData "trailing_data" "data after the end of the JSON value",
    /// A container opened when the maximum depth was already reached.
    TooDeep "too_deep" "nesting deeper than the depth limit",
}

/// The type of the top-level value, known from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// `{`
    Object,
    /// `[`
    Array,
    /// `"`
    String,
    /// `-` or a digit.
    Number,
    /// `t`
    True,
    /// `f`
    False,
    /// `n`
    Null,
}

impl ValueKind {
    /// The lowercase JSON name (`object`, `array`, `string`, `number`, `true`, `false`, `null`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Object => "object",
            Self::Array => "array",
            Self::String => "string",
            Self::Number => "number",
            Self::True => "true",
            Self::False => "false",
            Self::Null => "null",
        }
    }
}

/// A key repeated within one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// RFC 6901 JSON pointer of the repeated member, e.g. `/a/0/b`.
    pub path: String,
    /// Absolute byte offset of the repeated key's opening quote.
    pub offset: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Array,
    Object,
}

/// Where a number is in its grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
}

impl Num {
    /// Whether the digits so far already form a whole number.
    const fn can_end(self) -> bool {
        matches!(self, Self::Zero | Self::Int | Self::Frac | Self::ExpDigits)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Literal {
    True,
    False,
    Null,
}

impl Literal {
    const fn word(self) -> &'static [u8] {
        match self {
            Self::True => b"true",
            Self::False => b"false",
            Self::Null => b"null",
        }
    }
}

/// What the next byte must be. `Copy` and small so the hot loop can match on it cheaply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Before the top-level value.
    Start,
    /// After `:` or after `,` in an array: a value must follow.
    Value,
    /// After `[`: a value or `]`.
    ArrayFirst,
    /// After `{`: a key or `}`.
    ObjectFirst,
    /// After `,` in an object: a key must follow.
    Key,
    /// After a key: `:` must follow.
    Colon,
    /// After a value inside a container: `,` or the container's closing bracket.
    AfterValue,
    /// The top-level value ended at `end`.
    Done {
        end: u64,
    },
    /// Inside a string, between characters.
    Str,
    /// After `\` in a string.
    Escape,
    /// Inside `\uXXXX` after `digits` hex digits; `high` is the high surrogate awaiting this low half.
    Hex {
        digits: u8,
        value: u16,
        high: Option<u16>,
    },
    /// After a high surrogate's 4th hex digit: `\` must follow.
    AfterHigh {
        high: u16,
    },
    /// After a high surrogate and `\`: `u` must follow.
    AfterHighBackslash {
        high: u16,
    },
    /// Inside a multi-byte UTF-8 sequence: `need` more continuation bytes, the next in `lo..=hi`.
    Utf8 {
        need: u8,
        lo: u8,
        hi: u8,
    },
    Number(Num),
    /// Inside a literal after its first `matched` bytes.
    Literal {
        literal: Literal,
        matched: u8,
    },
    Invalid(ScanError),
}

/// Per open container, what a JSON pointer and duplicate-key detection need.
#[derive(Debug)]
enum Track {
    Array {
        /// The index of the element being scanned.
        index: u64,
    },
    Object {
        /// Where this object's keys begin in `Scanner::keys` and `Scanner::spans`; both are stacks, so
        /// closing the object truncates them back to here.
        keys_start: usize,
        first_span: usize,
        /// The span of the key of the member being scanned (for pointers to nested duplicates).
        current: Option<usize>,
        /// Key hash to the latest span with that hash, chained through `KeySpan::next_same_hash`;
        /// built once an object passes `LINEAR_KEYS` keys, so small objects never hash.
        #[expect(
            clippy::box_collection,
            reason = "the box halves the frame every open container pays for; its one more allocation comes only \
                      with a large object's map"
        )]
        index: Option<Box<HashMap<u64, usize>>>,
    },
}

/// One distinct key of an open object: `keys[start..end]`.
#[derive(Debug, Clone, Copy)]
struct KeySpan {
    start: usize,
    end: usize,
    next_same_hash: Option<usize>,
}

/// Objects with at most this many distinct keys are searched linearly. Typical tool arguments have
/// a handful of keys, where comparing a few short byte strings beats hashing each key.
const LINEAR_KEYS: usize = 16;

/// String content that needs no attention: printable ASCII other than `"` and `\`.
const fn is_plain(b: u8) -> bool {
    b >= 0x20 && b < 0x80 && b != b'"' && b != b'\\'
}

/// The length of the run of plain string content that `bytes` starts with.
///
/// Eight bytes at a time: in each word, flag bytes below 0x20, equal to `"` or `\`, or with the high
/// bit set. The borrow tricks can flag false positives only above a true match, so the lowest flagged
/// byte is exact. A 1 MB string fed whole scans at about 8 GB/s this way, 2 GB/s byte by byte.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut run = 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let x = u64::from_le_bytes(<[u8; 8]>::try_from(word).unwrap_or([0; 8]));
        let quote = x ^ (ONES * u64::from(b'"'));
        let backslash = x ^ (ONES * u64::from(b'\\'));
        let special = ((x.wrapping_sub(ONES * 0x20) & !x)
            | (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | x)
            & HIGH;
        if special != 0 {
            return run + usize::try_from(special.trailing_zeros() / 8).unwrap_or(0);
        }
        run += 8;
    }
    run + words
        .remainder()
        .iter()
        .position(|&b| !is_plain(b))
        .unwrap_or(words.remainder().len())
}

const fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Bytes that end a number that can end; anything else that does not continue it breaks it.
const fn ends_number(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}')
}

const fn hex_value(b: u8) -> Option<u16> {
    match b {
        b'0'..=b'9' => Some((b - b'0') as u16),
        b'a'..=b'f' => Some((b - b'a' + 10) as u16),
        b'A'..=b'F' => Some((b - b'A' + 10) as u16),
        _ => None,
    }
}

#[cold]
fn error(kind: ScanErrorKind, offset: u64) -> ScanError {
    ScanError { offset, kind }
}

/// `usize` to `u64` without a lossy cast; every supported target has `usize` of at most 64 bits.
fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// An incremental, strict RFC 8259 JSON scanner fed fragments of one value's bytes.
///
/// ```
/// use toolwire_core::scanner::{ScanState, Scanner};
///
/// let mut scanner = Scanner::new(128);
/// assert_eq!(scanner.feed(br#"{"city": "Par"#), ScanState::Incomplete);
/// assert_eq!(scanner.feed(br#"is"}"#), ScanState::Complete { end: 17 });
/// ```
#[derive(Debug)]
pub struct Scanner {
    mode: Mode,
    /// One entry per open container; its length is the depth.
    stack: Vec<Container>,
    max_depth: usize,
    bytes_seen: u64,
    root: Option<ValueKind>,
    /// Whether the string being scanned is an object key.
    in_key: bool,
    /// Whether duplicate keys and paths are tracked; off for good after `stop_tracking_keys`.
    tracking: bool,
    /// Parallel to `stack` while `tracking`, empty otherwise.
    track: Vec<Track>,
    /// The decoded distinct keys of every open object, innermost last, followed by the key being
    /// decoded (only while `in_key && tracking`). One buffer for all, so keys cost no allocation each.
    keys: Vec<u8>,
    spans: Vec<KeySpan>,
    /// Where the key being decoded starts in `keys`, and the offset of its opening quote.
    key_start: usize,
    key_offset: u64,
    /// Keyed per scanner so that crafted keys cannot force hash collisions.
    hasher: RandomState,
    duplicates: Vec<DuplicateKey>,
    /// Duplicates kept pending at most; past it they are only counted (no pointer is built for them).
    duplicate_limit: usize,
    duplicates_past_limit: u64,
}

impl Scanner {
    /// A scanner that allows at most `max_depth` nested arrays and objects (0 allows only scalars).
    pub fn new(max_depth: u32) -> Self {
        Self {
            mode: Mode::Start,
            stack: Vec::new(),
            max_depth: usize::try_from(max_depth).unwrap_or(usize::MAX),
            bytes_seen: 0,
            root: None,
            in_key: false,
            tracking: true,
            track: Vec::new(),
            keys: Vec::new(),
            spans: Vec::new(),
            key_start: 0,
            key_offset: 0,
            hasher: RandomState::new(),
            duplicates: Vec::new(),
            duplicate_limit: usize::MAX,
            duplicates_past_limit: 0,
        }
    }

    /// Scans the next fragment and returns the verdict on everything fed so far.
    ///
    /// Once the state is [`ScanState::Invalid`], further fragments are only counted.
    pub fn feed(&mut self, bytes: &[u8]) -> ScanState {
        let base = self.bytes_seen;
        self.bytes_seen = base.saturating_add(to_u64(bytes.len()));
        if !matches!(self.mode, Mode::Invalid(_))
            && let Err(err) = self.run(bytes, base)
        {
            self.mode = Mode::Invalid(err);
            self.forget_keys();
        }
        self.state()
    }

    /// Declares the end of input: a top-level number that is whole so far completes here.
    ///
    /// Anything else that is not yet closed (an open container or string, `tru`, `-`, `1.`, empty or
    /// whitespace-only input) stays [`ScanState::Incomplete`].
    pub fn finish(&mut self) -> ScanState {
        if let Mode::Number(num) = self.mode
            && num.can_end()
            && self.stack.is_empty()
        {
            self.mode = Mode::Done { end: self.bytes_seen };
        }
        self.state()
    }

    /// The verdict on everything fed so far.
    pub fn state(&self) -> ScanState {
        match self.mode {
            Mode::Done { end } => ScanState::Complete { end },
            Mode::Invalid(err) => ScanState::Invalid(err),
            _ => ScanState::Incomplete,
        }
    }

    /// The top-level value's type, once its first byte has been seen (`None` if that byte can start
    /// no value).
    pub fn root_kind(&self) -> Option<ValueKind> {
        self.root
    }

    /// Whether a non-whitespace byte has been seen.
    pub fn is_started(&self) -> bool {
        self.root.is_some() || !matches!(self.mode, Mode::Start)
    }

    /// Total bytes fed, including any fed after the state became invalid.
    pub fn bytes_seen(&self) -> u64 {
        self.bytes_seen
    }

    /// Drains the duplicate keys found so far, in the order their closing quotes were seen.
    pub fn take_duplicate_keys(&mut self) -> Vec<DuplicateKey> {
        std::mem::take(&mut self.duplicates)
    }

    /// Whether duplicate keys were found and not yet taken (counted ones included).
    pub fn has_duplicate_keys(&self) -> bool {
        !self.duplicates.is_empty() || self.duplicates_past_limit > 0
    }

    /// Keeps at most `limit` duplicate keys pending; those found past it are only counted, so that a value of
    /// millions of repeated keys costs no memory for them (a caller that reports a bounded number sets its room).
    pub fn limit_duplicate_keys(&mut self, limit: usize) {
        self.duplicate_limit = limit;
    }

    /// Drains the count of duplicate keys found past the limit (see [`Scanner::limit_duplicate_keys`]).
    pub fn take_duplicate_keys_past_limit(&mut self) -> u64 {
        std::mem::take(&mut self.duplicates_past_limit)
    }

    /// Forgets every tracked key and stops duplicate-key detection and path tracking for the rest of
    /// the input, so memory stays O(depth). Verdicts are unchanged; duplicates already found remain
    /// pending until taken.
    pub fn stop_tracking_keys(&mut self) {
        self.tracking = false;
        self.forget_keys();
    }

    fn forget_keys(&mut self) {
        self.track = Vec::new();
        self.keys = Vec::new();
        self.spans = Vec::new();
    }

    fn collecting_key(&self) -> bool {
        self.in_key && self.tracking
    }

    fn run(&mut self, bytes: &[u8], base: u64) -> Result<(), ScanError> {
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            let at = base + to_u64(i);
            match self.mode {
                Mode::Str => {
                    // Most string content is plain ASCII; skip it in one pass instead of dispatching
                    // on the mode for every byte.
                    let rest = bytes.get(i..).unwrap_or_default();
                    let plain = plain_run(rest);
                    if plain > 0 {
                        if self.collecting_key() {
                            self.keys.extend_from_slice(rest.get(..plain).unwrap_or_default());
                        }
                        i += plain;
                        continue;
                    }
                    self.string_byte(b, at)?;
                }
                Mode::Number(num) => {
                    if !self.number_byte(num, b, at)? {
                        // The byte ended the number and belongs to what follows it.
                        continue;
                    }
                }
                Mode::Escape
                | Mode::Hex { .. }
                | Mode::AfterHigh { .. }
                | Mode::AfterHighBackslash { .. }
                | Mode::Utf8 { .. }
                | Mode::Literal { .. } => self.inner_byte(b, at)?,
                Mode::Invalid(err) => return Err(err),
                _ => self.structural_byte(b, at)?,
            }
            i += 1;
        }
        Ok(())
    }

    /// A byte between tokens: whitespace, punctuation or the first byte of a value.
    fn structural_byte(&mut self, b: u8, at: u64) -> Result<(), ScanError> {
        if is_whitespace(b) {
            return Ok(());
        }
        match (self.mode, b) {
            (Mode::Start, _) => {
                self.root = match b {
                    b'{' => Some(ValueKind::Object),
                    b'[' => Some(ValueKind::Array),
                    b'"' => Some(ValueKind::String),
                    b'-' | b'0'..=b'9' => Some(ValueKind::Number),
                    b't' => Some(ValueKind::True),
                    b'f' => Some(ValueKind::False),
                    b'n' => Some(ValueKind::Null),
                    _ => None,
                };
                self.begin_value(b, at)
            }
            (Mode::ArrayFirst | Mode::AfterValue, b']') => self.close(Container::Array, at),
            (Mode::ObjectFirst | Mode::AfterValue, b'}') => self.close(Container::Object, at),
            (Mode::Value | Mode::ArrayFirst, _) => self.begin_value(b, at),
            (Mode::ObjectFirst | Mode::Key, b'"') => {
                self.begin_key(at);
                Ok(())
            }
            (Mode::Colon, b':') => {
                self.mode = Mode::Value;
                Ok(())
            }
            (Mode::AfterValue, b',') => {
                self.comma();
                Ok(())
            }
            (Mode::Done { .. }, _) => Err(error(ScanErrorKind::TrailingData, at)),
            _ => Err(error(ScanErrorKind::UnexpectedByte, at)),
        }
    }

    /// A byte inside an escape, a multi-byte UTF-8 sequence or a literal.
    fn inner_byte(&mut self, b: u8, at: u64) -> Result<(), ScanError> {
        match self.mode {
            Mode::Escape => self.escape_byte(b, at)?,
            Mode::Hex { digits, value, high } => {
                let Some(digit) = hex_value(b) else {
                    return Err(error(ScanErrorKind::InvalidEscape, at));
                };
                let value = (value << 4) | digit;
                if digits < 3 {
                    self.mode = Mode::Hex {
                        digits: digits + 1,
                        value,
                        high,
                    };
                } else {
                    self.code_unit(value, high, at)?;
                }
            }
            Mode::AfterHigh { high } => {
                if b != b'\\' {
                    return Err(error(ScanErrorKind::LoneSurrogate, at));
                }
                self.mode = Mode::AfterHighBackslash { high };
            }
            Mode::AfterHighBackslash { high } => {
                if b != b'u' {
                    return Err(error(ScanErrorKind::LoneSurrogate, at));
                }
                self.mode = Mode::Hex {
                    digits: 0,
                    value: 0,
                    high: Some(high),
                };
            }
            Mode::Utf8 { need, lo, hi } => {
                if b < lo || b > hi {
                    return Err(error(ScanErrorKind::InvalidUtf8, at));
                }
                if self.collecting_key() {
                    self.keys.push(b);
                }
                self.mode = if need > 1 {
                    Mode::Utf8 {
                        need: need - 1,
                        lo: 0x80,
                        hi: 0xBF,
                    }
                } else {
                    Mode::Str
                };
            }
            Mode::Literal { literal, matched } => {
                let word = literal.word();
                if word.get(usize::from(matched)) != Some(&b) {
                    return Err(error(ScanErrorKind::InvalidLiteral, at));
                }
                let matched = matched + 1;
                if usize::from(matched) == word.len() {
                    self.value_done(at + 1);
                } else {
                    self.mode = Mode::Literal { literal, matched };
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The first byte of a value, where a value is expected.
    fn begin_value(&mut self, b: u8, at: u64) -> Result<(), ScanError> {
        self.mode = match b {
            b'{' => {
                self.open(Container::Object, at)?;
                Mode::ObjectFirst
            }
            b'[' => {
                self.open(Container::Array, at)?;
                Mode::ArrayFirst
            }
            b'"' => {
                self.in_key = false;
                Mode::Str
            }
            b'-' => Mode::Number(Num::Minus),
            b'0' => Mode::Number(Num::Zero),
            b'1'..=b'9' => Mode::Number(Num::Int),
            b't' => Mode::Literal {
                literal: Literal::True,
                matched: 1,
            },
            b'f' => Mode::Literal {
                literal: Literal::False,
                matched: 1,
            },
            b'n' => Mode::Literal {
                literal: Literal::Null,
                matched: 1,
            },
            _ => return Err(error(ScanErrorKind::UnexpectedByte, at)),
        };
        Ok(())
    }

    /// A value ended just before offset `end`.
    fn value_done(&mut self, end: u64) {
        self.mode = if self.stack.is_empty() {
            Mode::Done { end }
        } else {
            Mode::AfterValue
        };
    }

    fn open(&mut self, container: Container, at: u64) -> Result<(), ScanError> {
        if self.stack.len() >= self.max_depth {
            return Err(error(ScanErrorKind::TooDeep, at));
        }
        self.stack.push(container);
        if self.tracking {
            self.track.push(match container {
                Container::Array => Track::Array { index: 0 },
                Container::Object => Track::Object {
                    keys_start: self.keys.len(),
                    first_span: self.spans.len(),
                    current: None,
                    index: None,
                },
            });
        }
        Ok(())
    }

    fn close(&mut self, container: Container, at: u64) -> Result<(), ScanError> {
        if self.stack.last() != Some(&container) {
            return Err(error(ScanErrorKind::UnexpectedByte, at));
        }
        self.stack.pop();
        if let Some(Track::Object {
            keys_start, first_span, ..
        }) = self.track.pop()
        {
            self.keys.truncate(keys_start);
            self.spans.truncate(first_span);
        }
        self.value_done(at + 1);
        Ok(())
    }

    fn comma(&mut self) {
        match self.stack.last() {
            Some(Container::Array) => {
                if let Some(Track::Array { index }) = self.track.last_mut() {
                    *index += 1;
                }
                self.mode = Mode::Value;
            }
            _ => self.mode = Mode::Key,
        }
    }

    fn begin_key(&mut self, at: u64) {
        self.in_key = true;
        self.key_start = self.keys.len();
        self.key_offset = at;
        self.mode = Mode::Str;
    }

    /// The closing quote of a key: records it, or reports it when the object already has it.
    fn end_key(&mut self) {
        self.mode = Mode::Colon;
        if !self.tracking {
            return;
        }
        let Some((
            Track::Object {
                first_span,
                current,
                index,
                ..
            },
            outer,
        )) = self.track.split_last_mut()
        else {
            return;
        };
        let (keys, spans) = (&self.keys, &self.spans);
        let key = keys.get(self.key_start..).unwrap_or_default();
        let same = |span: &KeySpan| keys.get(span.start..span.end) == Some(key);
        let hash = index.as_ref().map(|_| self.hasher.hash_one(key));
        let found = match (index.as_ref(), hash) {
            (Some(index), Some(hash)) => {
                let mut next = index.get(&hash).copied();
                while let Some(at) = next
                    && !spans.get(at).is_some_and(same)
                {
                    next = spans.get(at).and_then(|span| span.next_same_hash);
                }
                next
            }
            _ => spans
                .get(*first_span..)
                .unwrap_or_default()
                .iter()
                .position(same)
                .map(|i| i + *first_span),
        };
        if let Some(found) = found {
            if self.duplicates.len() < self.duplicate_limit {
                let mut path = pointer(outer, keys, spans);
                push_token(&mut path, key);
                self.duplicates.push(DuplicateKey {
                    path,
                    offset: self.key_offset,
                });
            } else {
                self.duplicates_past_limit += 1;
            }
            self.keys.truncate(self.key_start);
            *current = Some(found);
            return;
        }
        let new = self.spans.len();
        let next_same_hash = match (index.as_mut(), hash) {
            (Some(index), Some(hash)) => index.insert(hash, new),
            _ => None,
        };
        self.spans.push(KeySpan {
            start: self.key_start,
            end: self.keys.len(),
            next_same_hash,
        });
        *current = Some(new);
        if index.is_none() && new - *first_span >= LINEAR_KEYS {
            let keys = index_keys(&mut self.spans, &self.keys, &self.hasher, *first_span);
            *index = Some(Box::new(keys));
        }
    }

    /// A byte in a string that is not plain ASCII content.
    fn string_byte(&mut self, b: u8, at: u64) -> Result<(), ScanError> {
        match b {
            b'"' => {
                if self.in_key {
                    self.end_key();
                } else {
                    self.value_done(at + 1);
                }
            }
            b'\\' => self.mode = Mode::Escape,
            0x00..=0x1F => return Err(error(ScanErrorKind::ControlCharacter, at)),
            _ => {
                // Lead bytes per Unicode table 3-7: the first continuation byte's range excludes
                // overlong forms (E0, F0), encoded surrogates (ED) and code points past U+10FFFF (F4).
                let (need, lo, hi) = match b {
                    0xC2..=0xDF => (1, 0x80, 0xBF),
                    0xE0 => (2, 0xA0, 0xBF),
                    0xE1..=0xEC | 0xEE..=0xEF => (2, 0x80, 0xBF),
                    0xED => (2, 0x80, 0x9F),
                    0xF0 => (3, 0x90, 0xBF),
                    0xF1..=0xF3 => (3, 0x80, 0xBF),
                    0xF4 => (3, 0x80, 0x8F),
                    _ => return Err(error(ScanErrorKind::InvalidUtf8, at)),
                };
                if self.collecting_key() {
                    self.keys.push(b);
                }
                self.mode = Mode::Utf8 { need, lo, hi };
            }
        }
        Ok(())
    }

    fn escape_byte(&mut self, b: u8, at: u64) -> Result<(), ScanError> {
        let decoded = match b {
            b'"' | b'\\' | b'/' => b,
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                self.mode = Mode::Hex {
                    digits: 0,
                    value: 0,
                    high: None,
                };
                return Ok(());
            }
            _ => return Err(error(ScanErrorKind::InvalidEscape, at)),
        };
        if self.collecting_key() {
            self.keys.push(decoded);
        }
        self.mode = Mode::Str;
        Ok(())
    }

    /// A whole `\uXXXX` escape; `at` is the offset of its 4th hex digit.
    fn code_unit(&mut self, unit: u16, high: Option<u16>, at: u64) -> Result<(), ScanError> {
        let code_point = match (high, unit) {
            (Some(high), 0xDC00..=0xDFFF) => 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00),
            (None, 0xD800..=0xDBFF) => {
                self.mode = Mode::AfterHigh { high: unit };
                return Ok(());
            }
            (Some(_), _) | (None, 0xDC00..=0xDFFF) => return Err(error(ScanErrorKind::LoneSurrogate, at)),
            (None, _) => u32::from(unit),
        };
        if self.collecting_key()
            && let Some(c) = char::from_u32(code_point)
        {
            let mut buf = [0; 4];
            self.keys.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        self.mode = Mode::Str;
        Ok(())
    }

    /// Returns `Ok(false)` when `b` ended the number without being part of it.
    fn number_byte(&mut self, num: Num, b: u8, at: u64) -> Result<bool, ScanError> {
        let next = match (num, b) {
            (Num::Minus, b'0') => Num::Zero,
            (Num::Minus, b'1'..=b'9') | (Num::Int, b'0'..=b'9') => Num::Int,
            (Num::Zero | Num::Int, b'.') => Num::Dot,
            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
            (Num::Exp, b'+' | b'-') => Num::ExpSign,
            (Num::Exp | Num::ExpSign | Num::ExpDigits, b'0'..=b'9') => Num::ExpDigits,
            _ if num.can_end() && ends_number(b) => {
                self.value_done(at);
                return Ok(false);
            }
            _ => return Err(error(ScanErrorKind::InvalidNumber, at)),
        };
        self.mode = Mode::Number(next);
        Ok(true)
    }
}

/// The hash index of the key spans from `first` on; rewrites their `next_same_hash` links.
fn index_keys(spans: &mut [KeySpan], keys: &[u8], hasher: &RandomState, first: usize) -> HashMap<u64, usize> {
    let mut index = HashMap::new();
    for (at, span) in spans.iter_mut().enumerate().skip(first) {
        let key = keys.get(span.start..span.end).unwrap_or_default();
        span.next_same_hash = index.insert(hasher.hash_one(key), at);
    }
    index
}

/// RFC 6901 pointer of the members currently being scanned in the `frames` given.
fn pointer(frames: &[Track], keys: &[u8], spans: &[KeySpan]) -> String {
    let mut path = String::new();
    for frame in frames {
        match frame {
            Track::Array { index } => {
                path.push('/');
                path.push_str(&index.to_string());
            }
            Track::Object { current, .. } => {
                let span = current.and_then(|at| spans.get(at));
                push_token(
                    &mut path,
                    span.and_then(|s| keys.get(s.start..s.end)).unwrap_or_default(),
                );
            }
        }
    }
    path
}

fn push_token(path: &mut String, key: &[u8]) {
    path.push('/');
    // Keys are valid UTF-8 by construction: raw bytes were validated and escapes decoded from
    // paired surrogates only.
    for c in String::from_utf8_lossy(key).chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            _ => path.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ScanErrorKind::{
        ControlCharacter, InvalidEscape, InvalidLiteral, InvalidNumber, InvalidUtf8, LoneSurrogate, TooDeep,
        TrailingData, UnexpectedByte,
    };
    use std::collections::HashSet;
    use std::fmt::Write as _;

    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Expect {
        Incomplete,
        Complete(u64),
        Invalid(u64, ScanErrorKind),
    }
    use Expect::{Complete, Incomplete, Invalid};

    fn expect(state: ScanState) -> Expect {
        match state {
            ScanState::Incomplete => Incomplete,
            ScanState::Complete { end } => Complete(end),
            ScanState::Invalid(err) => Invalid(err.offset, err.kind),
        }
    }

    fn scan(input: &[u8], max_depth: u32) -> Expect {
        let mut scanner = Scanner::new(max_depth);
        scanner.feed(input);
        expect(scanner.finish())
    }

    fn scan_pieces<'a>(pieces: impl IntoIterator<Item = &'a [u8]>, max_depth: u32) -> Expect {
        let mut scanner = Scanner::new(max_depth);
        for piece in pieces {
            scanner.feed(piece);
        }
        expect(scanner.finish())
    }

    fn duplicates(input: &[u8]) -> Vec<(String, u64)> {
        let mut scanner = Scanner::new(128);
        scanner.feed(input);
        scanner
            .take_duplicate_keys()
            .into_iter()
            .map(|d| (d.path, d.offset))
            .collect()
    }

    /// The same table is in `tests/reference/test_scanner.py`: the two implementations must agree
    /// on every verdict, kind and offset.
    const TABLE: &[(&[u8], u32, Expect)] = &[
        (b"{}", 128, Complete(2)),
        (b"[]", 128, Complete(2)),
        (b"\"\"", 128, Complete(2)),
        (b"0", 128, Complete(1)),
        (b"-0", 128, Complete(2)),
        (b"-0.0e-0", 128, Complete(7)),
        (b"12", 128, Complete(2)),
        (b"1.5E+3", 128, Complete(6)),
        (b"true", 128, Complete(4)),
        (b"false", 128, Complete(5)),
        (b"null", 128, Complete(4)),
        (b" \t\n\r{ } ", 128, Complete(7)),
        (b"", 128, Incomplete),
        (b"   ", 128, Incomplete),
        (b"{", 128, Incomplete),
        (b"[1,", 128, Incomplete),
        (b"\"abc", 128, Incomplete),
        (b"tru", 128, Incomplete),
        (b"-", 128, Incomplete),
        (b"1.", 128, Incomplete),
        (b"1e", 128, Incomplete),
        (b"1e+", 128, Incomplete),
        (b"{\"a\"", 128, Incomplete),
        (b"{\"a\":", 128, Incomplete),
        (b"[1", 128, Incomplete),
        (b"{\"a\":1", 128, Incomplete),
        (b"{\"a\":1}{\"b\":2}", 128, Invalid(7, TrailingData)),
        (b"{} x", 128, Invalid(3, TrailingData)),
        (b"1 2", 128, Invalid(2, TrailingData)),
        (b"\"a\"x", 128, Invalid(3, TrailingData)),
        (b"truex", 128, Invalid(4, TrailingData)),
        (b"1]", 128, Invalid(1, TrailingData)),
        (b"1,", 128, Invalid(1, TrailingData)),
        (b"[1 2]", 128, Invalid(3, UnexpectedByte)),
        (b"[12x]", 128, Invalid(3, InvalidNumber)),
        (b"[1true]", 128, Invalid(2, InvalidNumber)),
        (b"[truex]", 128, Invalid(5, UnexpectedByte)),
        (b"{\"a\":1,}", 128, Invalid(7, UnexpectedByte)),
        (b"[1,]", 128, Invalid(3, UnexpectedByte)),
        (b"[,1]", 128, Invalid(1, UnexpectedByte)),
        (b"{,}", 128, Invalid(1, UnexpectedByte)),
        (b"{\"a\" 1}", 128, Invalid(5, UnexpectedByte)),
        (b"{\"a\":1 \"b\":2}", 128, Invalid(7, UnexpectedByte)),
        (b"[1}", 128, Invalid(2, UnexpectedByte)),
        (b"{\"a\":1]", 128, Invalid(6, UnexpectedByte)),
        (b"}", 128, Invalid(0, UnexpectedByte)),
        (b"]", 128, Invalid(0, UnexpectedByte)),
        (b"\xef\xbb\xbf{}", 128, Invalid(0, UnexpectedByte)),
        (b"\xc3\xa9", 128, Invalid(0, UnexpectedByte)),
        (b"'a'", 128, Invalid(0, UnexpectedByte)),
        (b"NaN", 128, Invalid(0, UnexpectedByte)),
        (b"Infinity", 128, Invalid(0, UnexpectedByte)),
        (b"-Infinity", 128, Invalid(1, InvalidNumber)),
        (b"+1", 128, Invalid(0, UnexpectedByte)),
        (b".5", 128, Invalid(0, UnexpectedByte)),
        (b"/* */{}", 128, Invalid(0, UnexpectedByte)),
        (b"\x0c1", 128, Invalid(0, UnexpectedByte)),
        (b"\xa01", 128, Invalid(0, UnexpectedByte)),
        (b"{1:1}", 128, Invalid(1, UnexpectedByte)),
        (b"{\"a\":1,,\"b\":2}", 128, Invalid(7, UnexpectedByte)),
        (b"[1,,2]", 128, Invalid(3, UnexpectedByte)),
        (b"{\"a\"::1}", 128, Invalid(5, UnexpectedByte)),
        (b"01", 128, Invalid(1, InvalidNumber)),
        (b"-01", 128, Invalid(2, InvalidNumber)),
        (b"-a", 128, Invalid(1, InvalidNumber)),
        (b"1.]", 128, Invalid(2, InvalidNumber)),
        (b"[1e+]", 128, Invalid(4, InvalidNumber)),
        (b"1.e1", 128, Invalid(2, InvalidNumber)),
        (b"-.5", 128, Invalid(1, InvalidNumber)),
        (b"00", 128, Invalid(1, InvalidNumber)),
        (b"1e1.5", 128, Invalid(3, InvalidNumber)),
        (b"[-]", 128, Invalid(2, InvalidNumber)),
        (b"[1.]", 128, Invalid(3, InvalidNumber)),
        (b"[1e]", 128, Invalid(3, InvalidNumber)),
        (b"[0x1]", 128, Invalid(2, InvalidNumber)),
        (b"1E-", 128, Incomplete),
        (b"[1:2]", 128, Invalid(2, InvalidNumber)),
        (b"{\"a\":1:}", 128, Invalid(6, InvalidNumber)),
        (b"[1\"a\"]", 128, Invalid(2, InvalidNumber)),
        (b"[1\t,2\r\n]", 128, Complete(8)),
        (b"123456789012345678901234567890", 128, Complete(30)),
        (b"1e999", 128, Complete(5)),
        (b"-0.000000000000000000000000001e-999", 128, Complete(35)),
        (b"tru1", 128, Invalid(3, InvalidLiteral)),
        (b"[nul]", 128, Invalid(4, InvalidLiteral)),
        (b"nul]", 128, Invalid(3, InvalidLiteral)),
        (b"fals", 128, Incomplete),
        (b"[fALSE]", 128, Invalid(2, InvalidLiteral)),
        (b"nulll", 128, Invalid(4, TrailingData)),
        (b"[true,false,null]", 128, Complete(17)),
        (b"\"\\x\"", 128, Invalid(2, InvalidEscape)),
        (b"\"\\u12G4\"", 128, Invalid(5, InvalidEscape)),
        (b"\"\\U0041\"", 128, Invalid(2, InvalidEscape)),
        (b"\"\\ua\"", 128, Invalid(4, InvalidEscape)),
        (b"\"\\\n\"", 128, Invalid(2, InvalidEscape)),
        (b"\"\\u00e9\\u00E9\"", 128, Complete(14)),
        (b"\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"", 128, Complete(18)),
        (b"\"\\u0000\"", 128, Complete(8)),
        (b"\"\\udc00\"", 128, Invalid(6, LoneSurrogate)),
        (b"\"\\ud800\"", 128, Invalid(7, LoneSurrogate)),
        (b"\"\\ud800x\"", 128, Invalid(7, LoneSurrogate)),
        (b"\"\\ud800\\n\"", 128, Invalid(8, LoneSurrogate)),
        (b"\"\\ud800\\u0041\"", 128, Invalid(12, LoneSurrogate)),
        (b"\"\\ud800\\ud800\"", 128, Invalid(12, LoneSurrogate)),
        (b"\"\\ud800\\udbff\"", 128, Invalid(12, LoneSurrogate)),
        (b"\"\\udbff\\udfff\"", 128, Complete(14)),
        (b"\"\\ud834\\udd1e\"", 128, Complete(14)),
        (b"\"\\ud800\\u00\"", 128, Invalid(11, InvalidEscape)),
        (b"\"\\ud800\\uzz\"", 128, Invalid(9, InvalidEscape)),
        (b"{\"\\udfff\":1}", 128, Invalid(7, LoneSurrogate)),
        (b"\"\x00\"", 128, Invalid(1, ControlCharacter)),
        (b"\"\x1f\"", 128, Invalid(1, ControlCharacter)),
        (b"\"\x7f\"", 128, Complete(3)),
        (b"\"a\nb\"", 128, Invalid(2, ControlCharacter)),
        (b"\"\t\"", 128, Invalid(1, ControlCharacter)),
        (b"{\"\x01\":1}", 128, Invalid(2, ControlCharacter)),
        (b"\"\x80\"", 128, Invalid(1, InvalidUtf8)),
        (b"\"\xc0\x80\"", 128, Invalid(1, InvalidUtf8)),
        (b"\"\xc1\xbf\"", 128, Invalid(1, InvalidUtf8)),
        (b"\"\xc2\"", 128, Invalid(2, InvalidUtf8)),
        (b"\"\xc3\xa9\"", 128, Complete(4)),
        (b"\"\xe0\x80\x80\"", 128, Invalid(2, InvalidUtf8)),
        (b"\"\xe0\x9f\xbf\"", 128, Invalid(2, InvalidUtf8)),
        (b"\"\xe0\xa0\x80\"", 128, Complete(5)),
        (b"\"\xed\xa0\x80\"", 128, Invalid(2, InvalidUtf8)),
        (b"\"\xed\x9f\xbf\"", 128, Complete(5)),
        (b"\"\xef\xbf\xbf\"", 128, Complete(5)),
        (b"\"\xf0\x8f\xbf\xbf\"", 128, Invalid(2, InvalidUtf8)),
        (b"\"\xf0\x90\x80\x80\"", 128, Complete(6)),
        (b"\"\xf4\x8f\xbf\xbf\"", 128, Complete(6)),
        (b"\"\xf4\x90\x80\x80\"", 128, Invalid(2, InvalidUtf8)),
        (b"\"\xf5\x80\x80\x80\"", 128, Invalid(1, InvalidUtf8)),
        (b"\"\xff\"", 128, Invalid(1, InvalidUtf8)),
        (b"\"\xe2\x82\"", 128, Invalid(3, InvalidUtf8)),
        (b"\"\xe2\x82a\"", 128, Invalid(3, InvalidUtf8)),
        (b"\"\xf0\x9f\x98\"", 128, Invalid(4, InvalidUtf8)),
        (b"\"\xc3\xc3\"", 128, Invalid(2, InvalidUtf8)),
        (b"[\"\xe9\"]", 128, Invalid(3, InvalidUtf8)),
        (b"{\"\xf0\x9f\x98\x80\":\"\xe2\x82\xac\"}", 128, Complete(14)),
        (b"1", 0, Complete(1)),
        (b"[]", 0, Invalid(0, TooDeep)),
        (b"{}", 0, Invalid(0, TooDeep)),
        (b"\"x\"", 0, Complete(3)),
        (b"{\"a\":1}", 1, Complete(7)),
        (b"{\"a\":{}}", 1, Invalid(5, TooDeep)),
        (b"[[]]", 1, Invalid(1, TooDeep)),
        (b"[[]]", 2, Complete(4)),
        (b"[[[]]]", 2, Invalid(2, TooDeep)),
        (b"[{\"a\":[1]}]", 2, Invalid(6, TooDeep)),
        (b"[[],{}]", 2, Complete(7)),
        (b"[[],{\"a\":[{}]}]", 3, Invalid(10, TooDeep)),
    ];

    #[test]
    fn table_fed_whole() {
        for &(input, max_depth, want) in TABLE {
            assert_eq!(scan(input, max_depth), want, "{:?}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn table_fed_in_every_split_and_byte_by_byte() {
        for &(input, max_depth, want) in TABLE {
            for at in 0..=input.len() {
                let (head, tail) = input.split_at(at);
                assert_eq!(
                    scan_pieces([head, tail], max_depth),
                    want,
                    "{:?} at {at}",
                    String::from_utf8_lossy(input)
                );
            }
            assert_eq!(
                scan_pieces(input.chunks(1), max_depth),
                want,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn plain_run_stops_at_the_first_special_byte() {
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..40 {
            for special in (0..=255u8).filter(|&b| !is_plain(b)) {
                for at in 0..=len {
                    let mut bytes: Vec<u8> = (0..len)
                        .map(|_| {
                            rng ^= rng << 13;
                            rng ^= rng >> 7;
                            rng ^= rng << 17;
                            0x20 + u8::try_from(rng % 0x60).unwrap_or(0)
                        })
                        .map(|b| if is_plain(b) { b } else { b'a' })
                        .collect();
                    if let Some(slot) = bytes.get_mut(at) {
                        *slot = special;
                    }
                    let naive = bytes.iter().position(|&b| !is_plain(b)).unwrap_or(bytes.len());
                    assert_eq!(plain_run(&bytes), naive, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn kinds_have_distinct_snake_case_names() {
        let kinds = ScanErrorKind::ALL;
        let names: HashSet<&str> = kinds.iter().map(|k| k.as_str()).collect();
        assert_eq!(names.len(), kinds.len());
        assert!(names.iter().all(|n| {
            n.bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit())
        }));
        assert!(kinds.iter().all(|k| !k.describe().is_empty()));
        assert_eq!(InvalidUtf8.as_str(), "invalid_utf8");
    }

    #[test]
    fn top_level_number_completes_at_a_terminator_or_at_finish() {
        let mut scanner = Scanner::new(128);
        assert_eq!(scanner.feed(b"12"), ScanState::Incomplete);
        assert_eq!(scanner.feed(b" "), ScanState::Complete { end: 2 });
        assert_eq!(scanner.feed(b"\n\t"), ScanState::Complete { end: 2 });
        assert_eq!(scanner.finish(), ScanState::Complete { end: 2 });
        assert_eq!(
            scanner.feed(b"3"),
            ScanState::Invalid(ScanError {
                offset: 5,
                kind: TrailingData
            })
        );

        let mut scanner = Scanner::new(128);
        assert_eq!(scanner.feed(b"-1.5e"), ScanState::Incomplete);
        assert_eq!(scanner.feed(b"3"), ScanState::Incomplete);
        assert_eq!(scanner.finish(), ScanState::Complete { end: 6 });
        assert_eq!(scanner.finish(), ScanState::Complete { end: 6 });
        assert_eq!(scanner.feed(b" "), ScanState::Complete { end: 6 });
        assert_eq!(
            scanner.feed(b"1"),
            ScanState::Invalid(ScanError {
                offset: 7,
                kind: TrailingData
            })
        );
    }

    #[test]
    fn finish_leaves_unclosed_values_incomplete() {
        for input in [
            &b""[..],
            b"  ",
            b"[1",
            b"{\"a\":1",
            b"\"ab",
            b"tru",
            b"-",
            b"1.",
            b"1e",
            b"1e-",
            b"\"\\u12",
        ] {
            let mut scanner = Scanner::new(128);
            scanner.feed(input);
            assert_eq!(
                scanner.finish(),
                ScanState::Incomplete,
                "{:?}",
                String::from_utf8_lossy(input)
            );
            assert_eq!(scanner.state(), ScanState::Incomplete);
        }
    }

    #[test]
    fn scalars_other_than_numbers_complete_without_finish() {
        for (input, end) in [(&b"true"[..], 4), (b"null", 4), (b"\"x\"", 3), (b" []", 3), (b"{}", 2)] {
            assert_eq!(
                Scanner::new(128).feed(input),
                ScanState::Complete { end },
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn invalid_is_final_and_later_bytes_are_only_counted() {
        let mut scanner = Scanner::new(128);
        let bad = ScanState::Invalid(ScanError {
            offset: 3,
            kind: UnexpectedByte,
        });
        assert_eq!(scanner.feed(b"[1,]"), bad);
        assert_eq!(scanner.feed(b"]]]"), bad);
        assert_eq!(scanner.finish(), bad);
        assert_eq!(scanner.bytes_seen(), 7);
    }

    #[test]
    fn depth_limit_edges() {
        assert_eq!(scan(b"1", 0), Complete(1));
        assert_eq!(scan(b"[]", 0), Invalid(0, TooDeep));
        assert_eq!(scan(b"{\"a\":1}", 1), Complete(7));
        assert_eq!(scan(b"{\"a\":{}}", 1), Invalid(5, TooDeep));
        let nested = |n: usize| [vec![b'['; n], vec![b']'; n]].concat();
        assert_eq!(scan(&nested(128), 128), Complete(256));
        assert_eq!(scan(&nested(129), 128), Invalid(128, TooDeep));
        // Depth counts open containers, not containers seen: siblings reuse the level.
        assert_eq!(scan(b"[[],[],{\"a\":[]}]", 3), Complete(16));
        assert_eq!(scan(b"[[],[],{\"a\":[]}]", 2), Invalid(12, TooDeep));
        assert_eq!(scan(&nested(5), u32::MAX), Complete(10));
    }

    #[test]
    fn trailing_data() {
        assert_eq!(scan(b"{\"a\":1}{\"b\":2}", 128), Invalid(7, TrailingData));
        assert_eq!(scan(b"[] \n ]", 128), Invalid(5, TrailingData));
        assert_eq!(scan(b"\"a\" \"b\"", 128), Invalid(4, TrailingData));
        assert_eq!(scan(b"[] \r\n\t ", 128), Complete(2));
    }

    #[test]
    fn root_kind_and_is_started() {
        let cases: [(&[u8], Option<ValueKind>); 10] = [
            (b" {", Some(ValueKind::Object)),
            (b"[", Some(ValueKind::Array)),
            (b"\"", Some(ValueKind::String)),
            (b"-", Some(ValueKind::Number)),
            (b"7", Some(ValueKind::Number)),
            (b"t", Some(ValueKind::True)),
            (b"fx", Some(ValueKind::False)),
            (b"n", Some(ValueKind::Null)),
            (b"x", None),
            (b"\xef\xbb\xbf", None),
        ];
        for (input, kind) in cases {
            let mut scanner = Scanner::new(128);
            scanner.feed(input);
            assert_eq!(scanner.root_kind(), kind, "{:?}", String::from_utf8_lossy(input));
            assert!(scanner.is_started());
        }
        let mut scanner = Scanner::new(128);
        assert!(!scanner.is_started());
        scanner.feed(b" \n\t\r");
        assert!(!scanner.is_started());
        assert_eq!(scanner.root_kind(), None);
        assert_eq!(scanner.bytes_seen(), 4);
    }

    #[test]
    fn duplicate_keys_with_escapes_and_paths() {
        assert_eq!(duplicates(b"{\"a\":1,\"\\u0061\":2}"), [("/a".to_owned(), 7)]);
        assert_eq!(duplicates(b"{\"a\":1,\"b\":2}"), []);
        assert_eq!(
            duplicates(b"{\"a\":1,\"a\":2,\"a\":3}"),
            [("/a".to_owned(), 7), ("/a".to_owned(), 13)]
        );
        assert_eq!(duplicates(b"{\"~/\":1,\"~\\/\":2}"), [("/~0~1".to_owned(), 8)]);
        assert_eq!(
            duplicates(b"{\"a/b\":[0,{\"x\":{},\"x\":1}],\"c~\":{\"\\u00e9\":1,\"\xc3\xa9\":2}}"),
            [("/a~1b/1/x".to_owned(), 18), ("/c~0/\u{e9}".to_owned(), 43)]
        );
        // A surrogate pair decodes to the same key as the raw UTF-8 character.
        assert_eq!(
            duplicates(b"[{\"\\ud83d\\ude00\":1,\"\xf0\x9f\x98\x80\":2}]"),
            [("/0/\u{1f600}".to_owned(), 19)]
        );
        // Keys are per object: the same key in sibling or nested objects is not a duplicate.
        assert_eq!(duplicates(b"{\"a\":{\"a\":1},\"b\":[{\"a\":1},{\"a\":1}]}"), []);
        assert_eq!(duplicates(b"{\"\":1,\"\":2}"), [("/".to_owned(), 6)]);
        assert_eq!(
            duplicates(b"[[1,2,{\"k\\n\":0,\"k\\u000a\":0}]]"),
            [("/0/2/k\n".to_owned(), 15)]
        );
    }

    #[test]
    fn duplicate_keys_found_across_fragment_splits() {
        let input = b"{\"x\":[{\"\\u00e9t\xc3\xa9\":1,\"\xc3\xa9t\\u00E9\":2}]}";
        for at in 0..=input.len() {
            let (head, tail) = input.split_at(at);
            let mut scanner = Scanner::new(128);
            scanner.feed(head);
            scanner.feed(tail);
            assert_eq!(
                scanner.state(),
                ScanState::Complete {
                    end: to_u64(input.len())
                }
            );
            let found: Vec<_> = scanner
                .take_duplicate_keys()
                .into_iter()
                .map(|d| (d.path, d.offset))
                .collect();
            assert_eq!(found, [("/x/0/\u{e9}t\u{e9}".to_owned(), 21)], "split at {at}");
        }
    }

    #[test]
    fn duplicate_keys_in_objects_past_the_linear_search_size() {
        // 100 distinct keys switch the object to hashed lookup; nested objects opened and closed in
        // between must leave the outer object's keys intact.
        let mut text = String::from("{");
        for i in 0..100 {
            let _ = write!(text, "\"k{i}\":{{\"k{i}\":1,\"x\":[{{\"y\":0}}]}},");
        }
        let mut want = Vec::new();
        for i in [0, 15, 16, 17, 99, 0] {
            want.push((format!("/k{i}"), to_u64(text.len())));
            // The same key spelled with an escape: `"\u006bN"` decodes to `kN`.
            let _ = write!(text, "\"\\u006b{i}\":0,");
        }
        text.push_str("\"inner\":{");
        for i in 0..40 {
            let _ = write!(text, "\"{i}\":0,");
        }
        want.push(("/inner/7".to_owned(), to_u64(text.len())));
        text.push_str("\"7\":1}}");
        let text = text.into_bytes();
        for pieces in [text.chunks(text.len()), text.chunks(3)] {
            let mut scanner = Scanner::new(128);
            for piece in pieces {
                scanner.feed(piece);
            }
            assert_eq!(
                scanner.state(),
                ScanState::Complete {
                    end: to_u64(text.len())
                }
            );
            let found: Vec<_> = scanner
                .take_duplicate_keys()
                .into_iter()
                .map(|d| (d.path, d.offset))
                .collect();
            assert_eq!(found, want);
        }
    }

    #[test]
    fn duplicate_keys_past_the_limit_are_counted_not_kept() {
        let mut scanner = Scanner::new(8);
        scanner.limit_duplicate_keys(2);
        scanner.feed(b"{\"a\":1,\"a\":2,\"a\":3,\"a\":4,\"b\":{\"c\":1,\"c\":2}}");
        assert_eq!(scanner.state(), ScanState::Complete { end: 43 });
        let kept: Vec<String> = scanner.take_duplicate_keys().into_iter().map(|d| d.path).collect();
        assert_eq!(kept, ["/a", "/a"]);
        assert_eq!(scanner.take_duplicate_keys_past_limit(), 2);
        assert!(!scanner.has_duplicate_keys());
    }

    #[test]
    fn take_duplicate_keys_drains() {
        let mut scanner = Scanner::new(128);
        scanner.feed(b"{\"a\":1,\"a\":2");
        assert!(scanner.has_duplicate_keys());
        assert_eq!(scanner.take_duplicate_keys().len(), 1);
        assert!(!scanner.has_duplicate_keys());
        assert_eq!(scanner.take_duplicate_keys(), []);
        scanner.feed(b",\"a\":3}");
        assert_eq!(
            scanner.take_duplicate_keys(),
            [DuplicateKey {
                path: "/a".to_owned(),
                offset: 13
            }]
        );
    }

    #[test]
    fn stop_tracking_keys_keeps_verdicts_and_pending_duplicates() {
        let mut scanner = Scanner::new(128);
        scanner.feed(b"{\"a\":1,\"a\":2,\"b\":{\"c\":1,");
        scanner.stop_tracking_keys();
        assert!(scanner.track.is_empty() && scanner.keys.is_empty() && scanner.spans.is_empty());
        scanner.feed(b"\"c\":2},\"a\":[{\"d\":1,\"d\":2}]}");
        assert_eq!(scanner.state(), ScanState::Complete { end: 51 });
        assert_eq!(
            scanner.take_duplicate_keys(),
            [DuplicateKey {
                path: "/a".to_owned(),
                offset: 7
            }]
        );

        // Stopping in the middle of a key.
        let mut scanner = Scanner::new(128);
        scanner.feed(b"{\"ab");
        scanner.stop_tracking_keys();
        assert_eq!(scanner.feed(b"c\":1,\"abc\":2}"), ScanState::Complete { end: 17 });
        assert!(!scanner.has_duplicate_keys());

        // Verdicts are the same with or without tracking.
        for &(input, max_depth, want) in TABLE {
            let mut scanner = Scanner::new(max_depth);
            scanner.stop_tracking_keys();
            scanner.feed(input);
            assert_eq!(expect(scanner.finish()), want, "{:?}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn implementation_defined_decisions() {
        // Lone surrogates cannot be carried as UTF-8, so they are rejected (i_string_*surrogate*).
        assert_eq!(scan(b"[\"\\uDADA\"]", 128), Invalid(8, LoneSurrogate));
        assert_eq!(scan(b"[\"\\uDd1e\\uD834\"]", 128), Invalid(7, LoneSurrogate));
        // Numbers are checked for syntax only: magnitude and precision are the consumer's business.
        assert_eq!(scan(b"[123123e100000]", 128), Complete(15));
        assert_eq!(scan(b"[-123123123123123123123123123123]", 128), Complete(33));
        assert_eq!(
            scan(b"[0.4e-00669999999999999999999999999999999999999]", 128),
            Complete(48)
        );
        // A byte order mark is not JSON text (RFC 8259 section 8.1 lets parsers ignore it; we don't).
        assert_eq!(scan(b"\xef\xbb\xbf{}", 128), Invalid(0, UnexpectedByte));
        // Invalid UTF-8 inside strings is rejected; UTF-16 input is rejected outright.
        assert_eq!(scan(b"[\"\xe6\x97\xa5\xd1\x88\xfa\"]", 128), Invalid(7, InvalidUtf8));
        assert_eq!(scan(b"[\"\xed\xa0\x80\"]", 128), Invalid(3, InvalidUtf8));
        assert_eq!(scan(b"\xff\xfe[\x00\"\x00", 128), Invalid(0, UnexpectedByte));
        assert_eq!(scan(b"[\x00\"\x00", 128), Invalid(1, UnexpectedByte));
    }

    #[test]
    fn long_plain_runs_and_keys_split_inside_them() {
        let long = [
            b"{\"".as_slice(),
            &[b'k'; 1000],
            b"\":\"",
            &[b'v'; 5000],
            b"\",\"",
            &[b'k'; 1000],
            b"\":0}",
        ]
        .concat();
        let want = Complete(to_u64(long.len()));
        assert_eq!(scan(&long, 128), want);
        assert_eq!(scan_pieces(long.chunks(7), 128), want);
        let mut scanner = Scanner::new(128);
        for piece in long.chunks(333) {
            scanner.feed(piece);
        }
        assert_eq!(scanner.take_duplicate_keys().len(), 1);
    }
}
