//! What every text dialect stands on: the events, the findings, the parser's buffer and its hold-back of markers, and
//! the reading of JSON calls.
//!
//! Twin of the reference's `dialects/_shared.py`. A parser is fed text deltas split anywhere and finished; it hands
//! over, in order, text outside calls and reasoning, reasoning text, whole calls, and findings. Only what could still
//! start a marker is held back; a call is handed over the moment it is structurally whole; a call the end of the
//! stream cuts is handed over unfinished, never as valid.
//!
//! The reference works on code points and this file on bytes of `&str`: every position here is a char boundary (a
//! marker is found whole, or held back as a proper prefix of one, which never starts inside a char), so the two
//! release the same text.

use std::fmt;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::accumulator::Limits;
use crate::json_view::{self, Path};
use crate::scanner::{ScanErrorKind, ScanState, Scanner, ValueKind};
use crate::violation::Severity;

/// Each tool's parameters schema, by the tool's name: what types raw values, and nothing else.
pub type Tools = FxHashMap<String, serde_json::Value>;

/// Generates, from one line per finding (its variant, its name, its severity and what it means), [`FindingCode`] and
/// its table. Its twin is the reference's `FINDINGS`, which the tests hold it to.
macro_rules! finding_codes {
    ($($variant:ident $name:literal $severity:ident $meaning:literal,)+) => {
        /// An anomaly a dialect parser reports.
        #[allow(clippy::doc_markdown, reason = "each variant's doc is its meaning, word for word the reference's")]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum FindingCode {
            $(#[doc = $meaning] $variant,)+
        }

        impl FindingCode {
            /// Every code, in the order of the table.
            pub const ALL: &[Self] = &[$(Self::$variant,)+];

            /// The code's name, as the reference spells it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            /// An error on a call makes it invalid; a warning or an info rides on it.
            pub fn severity(self) -> Severity {
                match self {
                    $(Self::$variant => Severity::$severity,)+
                }
            }

            /// What the finding means.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Self::$variant => $meaning,)+
                }
            }
        }
    };
}

finding_codes! {
    Cut "CUT" Error "the stream ended inside a call (or between the calls of an open section)",
    MalformedCall "MALFORMED_CALL" Error "the call's text does not have the dialect's shape",
    InvalidArguments "INVALID_ARGUMENTS" Error "the arguments are not a JSON object (or not JSON at all)",
    UntypedValue "UNTYPED_VALUE" Error "a raw value none of its schema's types can read; kept as a string",
    NoSchema "NO_SCHEMA" Warning "a raw value whose tool or parameter has no schema; kept as a string",
    TooLarge "TOO_LARGE" Error "the call's text passed Limits.max_argument_bytes; the rest was scanned, not kept",
    MissingEndMarker "MISSING_END_MARKER" Warning "a call (or parameter) whole by its structure whose end marker never came",
    MissingStartMarker "MISSING_START_MARKER" Warning "a call found by its inner marker without the dialect's start marker",
    ArgumentsAsString "ARGUMENTS_AS_STRING" Warning "the arguments were a JSON string holding the object, read once",
    MarkerInText "MARKER_IN_TEXT" Info "a start marker no call followed; kept as text",
    ReasoningCut "REASONING_CUT" Warning "the stream ended inside reasoning",
    BuiltinTool "BUILTIN_TOOL" Warning "a message to a tool the model's runtime runs (gpt-oss's browser, python), not a call",
    MalformedHeader "MALFORMED_HEADER" Warning "a message header no message followed, or not role, channel, recipient and type",
}

/// A call, handed over the moment it is whole (or, `whole` false, when the end of the stream cut it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCall {
    /// The call's position among the stream's calls, from 0; findings name it.
    pub index: usize,
    /// The function's name, None when it was never read whole.
    pub name: Option<String>,
    /// When `valid`, the arguments object's JSON text as written less the whitespace outside strings; otherwise the
    /// best text there is.
    pub arguments: String,
    /// The call's id when the dialect writes one.
    pub id: Option<String>,
    /// False when the stream ended inside the call.
    pub whole: bool,
    /// No error finding concerns the call (they all precede it).
    pub valid: bool,
}

/// An anomaly, with the call it concerns (None for the stream's own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What happened.
    pub code: FindingCode,
    /// Said for a person, the same words as the reference's.
    pub message: String,
    /// The index of the call it concerns.
    pub call: Option<usize>,
}

/// What a parser hands over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialectEvent {
    /// Text outside calls and reasoning.
    Text(String),
    /// Reasoning text (the model's thinking), outside calls.
    Reasoning(String),
    /// A call.
    Call(TextCall),
    /// An anomaly.
    Finding(Finding),
}

/// The parser was finished: it takes no more text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished;

impl fmt::Display for Finished {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("the parser was finished")
    }
}

impl std::error::Error for Finished {}

/// A call's findings, as a dialect gathers them before handing the call over.
pub(crate) type Findings = Vec<(FindingCode, String)>;

/// A dialect: its markers, its call's states and one step per state. The runner runs text and reasoning, holds back
/// what could still start a marker, and calls [`Grammar::open`] when a start marker was read; from then on it calls
/// [`Grammar::advance`] until the dialect gives the stream back with [`Core::leave_call`].
pub(crate) trait Grammar: Default + fmt::Debug {
    /// What opens a call in text.
    const STARTS: &'static [&'static str];
    /// The reasoning block's start and end markers, if the dialect has them.
    const THINK: Option<(&'static str, &'static str)> = None;
    /// Whether a call's start inside reasoning ends it, as a model family's template writes.
    const CALL_ENDS_REASONING: bool = false;
    /// Whether the text starts inside the call's first state (the grammar's `Default`), as gpt-oss's does: the
    /// prompt's `<|start|>assistant` opened a header the text goes on with.
    const OPENS_IN_CALL: bool = false;

    /// A start marker was read (and taken): enter the call's first state.
    fn open(&mut self, core: &mut Core, marker: &'static str);

    /// One step, the one the call's state names; false when nothing more can be decided yet.
    fn advance(&mut self, core: &mut Core) -> bool;

    /// The stream ended inside a call: hand it over unfinished ([`Core::call`] with `whole` false).
    fn cut(&mut self, core: &mut Core);
}

/// Where the stream is, as the runner sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Text,
    Reasoning,
    /// Inside a call: the grammar's state says where.
    Call,
}

/// Where released text goes.
pub(crate) enum Sink<'a> {
    Text,
    Reasoning,
    /// Kept by the dialect (a broken call's text, say).
    Into(&'a mut String),
}

/// What every dialect's parser holds: the text not yet released, the events made, the calls counted.
#[derive(Debug)]
pub(crate) struct Core {
    tools: Option<Arc<Tools>>,
    pub(crate) limits: Limits,
    /// What arrived and was not released yet, from `pos` (what precedes it was taken and is drained on the next feed).
    buf: String,
    pos: usize,
    /// The stream ended: nothing is held back any more.
    final_: bool,
    place: Place,
    calls: usize,
    events: Vec<DialectEvent>,
}

/// The bytes of JSON whitespace, the only whitespace the dialects skip.
pub(crate) const fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

impl Core {
    /// The text at the cursor, not yet taken.
    pub(crate) fn rest(&self) -> &str {
        self.buf.get(self.pos..).unwrap_or_default()
    }

    /// The cursor: a position [`Core::starts_with`] and [`Core::take_to`] take, valid until the next feed.
    pub(crate) fn cursor(&self) -> usize {
        self.pos
    }

    /// The byte at the cursor.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.buf.as_bytes().get(self.pos).copied()
    }

    /// Takes `bytes` bytes at the cursor (a char boundary: the caller measured them on [`Core::rest`]).
    pub(crate) fn advance(&mut self, bytes: usize) {
        self.pos = (self.pos + bytes).min(self.buf.len());
    }

    /// Gives back the last `bytes` bytes taken (a marker that ends a call and is read again as text reads it).
    pub(crate) fn unread(&mut self, bytes: usize) {
        self.pos = self.pos.saturating_sub(bytes);
    }

    /// Whether `at` (a position this core gave) is past everything that arrived.
    pub(crate) fn ends_at(&self, at: usize) -> bool {
        at >= self.buf.len()
    }

    /// Whether the stream ended.
    pub(crate) fn is_final(&self) -> bool {
        self.final_
    }

    /// The number of calls handed over so far (the next call's index).
    pub(crate) fn calls(&self) -> usize {
        self.calls
    }

    /// The dialect gives the stream back to text.
    pub(crate) fn leave_call(&mut self) {
        self.place = Place::Text;
    }

    /// The parameters schema of the tool `name`, None when no tool of that name is known.
    pub(crate) fn schema(&self, name: Option<&str>) -> Option<&serde_json::Value> {
        self.tools.as_deref()?.get(name?)
    }

    /// Releases text to `sink` up to the earliest of `markers` and takes the marker; None when none is whole yet.
    ///
    /// What could still be the start of a marker is held back, unless the stream has ended. Of markers found at the
    /// same place, the first in `markers` wins.
    pub(crate) fn release_until(&mut self, markers: &[&'static str], sink: Sink<'_>) -> Option<&'static str> {
        // The fields, not `rest()`: the text released is borrowed from `buf` while events are pushed.
        let rest = self.buf.get(self.pos..).unwrap_or_default();
        let found = earliest(rest, markers);
        let (end, taken) = match found {
            Some((at, marker)) => (at, at + marker.len()),
            None if self.final_ => (rest.len(), rest.len()),
            None => {
                let end = rest.len() - held(rest, markers);
                (end, end)
            }
        };
        let released = rest.get(..end).unwrap_or_default();
        match sink {
            Sink::Text => push_text(&mut self.events, released, DialectEvent::Text),
            Sink::Reasoning => push_text(&mut self.events, released, DialectEvent::Reasoning),
            Sink::Into(kept) => kept.push_str(released),
        }
        self.pos += taken;
        found.map(|(_, marker)| marker)
    }

    /// Takes the whitespace at the cursor and returns it.
    pub(crate) fn skip_whitespace(&mut self) -> &str {
        let start = self.pos;
        let spaces = self.rest().bytes().take_while(|&byte| is_space(byte)).count();
        self.pos += spaces;
        self.buf.get(start..self.pos).unwrap_or_default()
    }

    /// The position of the first byte past the whitespace at the cursor (not taken). A step that returns to wait on
    /// more whitespace must use [`Core::after_whitespace_from`]: this rescans what it waited on at every feed.
    #[cfg_attr(
        not(test),
        allow(
            dead_code,
            reason = "kept for the dialects ported in parallel; hermes and harmony wait on whitespace, so use the other"
        )
    )]
    pub(crate) fn after_whitespace(&self) -> usize {
        self.pos + self.rest().bytes().take_while(|&byte| is_space(byte)).count()
    }

    /// [`Core::after_whitespace`] for a caller that waits on whitespace: the first `known` bytes at the cursor were
    /// found to be whitespace before, and `known` becomes all the whitespace there is, so that each byte is looked at
    /// once however thinly the text arrives.
    pub(crate) fn after_whitespace_from(&self, known: &mut usize) -> usize {
        let from = self.pos + *known;
        *known += self
            .buf
            .get(from..)
            .unwrap_or_default()
            .bytes()
            .take_while(|&byte| is_space(byte))
            .count();
        self.pos + *known
    }

    /// Whether the text at `at` (a position [`Core::after_whitespace`] gave, or the cursor) is `literal`; None while
    /// it is a proper prefix and more may come.
    pub(crate) fn starts_with(&self, literal: &str, at: usize) -> Option<bool> {
        let there = self.buf.as_bytes().get(at..).unwrap_or_default();
        let window = there.get(..literal.len()).unwrap_or(there);
        if window == literal.as_bytes() {
            return Some(true);
        }
        if literal.as_bytes().starts_with(window) && !self.final_ {
            return None;
        }
        Some(false)
    }

    /// Moves the cursor to `at`, a position this core gave.
    pub(crate) fn take_to(&mut self, at: usize) {
        self.pos = at.min(self.buf.len());
    }

    /// Hands text over (nothing when empty).
    pub(crate) fn text(&mut self, text: &str) {
        push_text(&mut self.events, text, DialectEvent::Text);
    }

    /// Hands a finding over.
    pub(crate) fn finding(&mut self, code: FindingCode, message: impl Into<String>, call: Option<usize>) {
        self.events.push(DialectEvent::Finding(Finding {
            code,
            message: message.into(),
            call,
        }));
    }

    /// Hands a call over after its findings; returns its index. It is valid when whole and no finding is an error.
    pub(crate) fn call(&mut self, call: Called, whole: bool) -> usize {
        let index = self.calls;
        self.calls += 1;
        let valid = whole && call.findings.iter().all(|(code, _)| code.severity() != Severity::Error);
        for (code, message) in call.findings {
            self.finding(code, message, Some(index));
        }
        self.events.push(DialectEvent::Call(TextCall {
            index,
            name: call.name,
            arguments: call.arguments,
            id: call.id,
            whole,
            valid,
        }));
        index
    }
}

fn push_text(events: &mut Vec<DialectEvent>, text: &str, event: fn(String) -> DialectEvent) {
    if !text.is_empty() {
        events.push(event(text.to_owned()));
    }
}

/// Where the earliest of `markers` starts in `rest`, and which (of markers at one place, the first in `markers`).
///
/// One walk of `rest` up to it, whatever the markers: a search per marker would read all of `rest` for a marker it
/// lacks each time another is found, and text that is mostly markers (a run of `{`, Llama's) would be read once per
/// marker in it.
fn earliest(rest: &str, markers: &[&'static str]) -> Option<(usize, &'static str)> {
    let bytes = rest.as_bytes();
    let firsts = FirstBytes::of(markers);
    let mut from = 0;
    loop {
        let tail = bytes.get(from..)?;
        let at = from + firsts.find(tail)?;
        let there = bytes.get(at..).unwrap_or_default();
        if let Some(&marker) = markers.iter().find(|marker| there.starts_with(marker.as_bytes())) {
            return Some((at, marker));
        }
        from = at + 1;
    }
}

/// The distinct first bytes of a set of markers, gathered on the stack: [`earliest`] runs on every delta, and a heap
/// allocation there cost more than the search on a 4-byte delta.
struct FirstBytes<'a> {
    markers: &'a [&'static str],
    found: [u8; 3],
    count: usize,
}

impl<'a> FirstBytes<'a> {
    fn of(markers: &'a [&'static str]) -> Self {
        let mut firsts = Self {
            markers,
            found: [0; 3],
            count: 0,
        };
        for byte in markers.iter().filter_map(|marker| marker.as_bytes().first().copied()) {
            if firsts
                .found
                .get(..firsts.count)
                .is_some_and(|seen| seen.contains(&byte))
            {
                continue;
            }
            // Past three, `find` asks the markers themselves.
            if let Some(slot) = firsts.found.get_mut(firsts.count) {
                *slot = byte;
            }
            firsts.count += 1;
        }
        firsts
    }

    /// Where the first byte that starts a marker is in `tail`.
    fn find(&self, tail: &[u8]) -> Option<usize> {
        match (self.count, self.found) {
            (0, _) => None,
            (1, [one, ..]) => memchr::memchr(one, tail),
            (2, [one, two, _]) => memchr::memchr2(one, two, tail),
            (3, [one, two, three]) => memchr::memchr3(one, two, three, tail),
            _ => tail.iter().position(|&byte| starts_a_marker(self.markers, byte)),
        }
    }
}

fn starts_a_marker(markers: &[&str], byte: u8) -> bool {
    markers.iter().any(|marker| marker.as_bytes().first() == Some(&byte))
}

/// The length of the longest end of `rest` that is a proper prefix of a marker.
///
/// A marker's prefix never starts inside a char (its first byte starts one), so the end held is whole chars.
pub(crate) fn held(rest: &str, markers: &[&str]) -> usize {
    let longest = markers
        .iter()
        .map(|marker| marker.len().saturating_sub(1))
        .max()
        .unwrap_or(0);
    let bytes = rest.as_bytes();
    // The longest end is the one that starts first; only a byte that starts a marker can start it, so prose, which
    // has none near its end, costs a look at each of its last bytes and no comparison.
    let from = bytes.len() - longest.min(bytes.len());
    (from..bytes.len())
        .find(|&at| {
            let tail = bytes.get(at..).unwrap_or_default();
            markers.iter().any(|marker| {
                let marker = marker.as_bytes();
                marker.first() == tail.first() && marker.starts_with(tail)
            })
        })
        .map_or(0, |at| bytes.len() - at)
}

/// What a call is, as a dialect read it: handed to [`Core::call`].
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Called {
    pub(crate) name: Option<String>,
    pub(crate) arguments: String,
    pub(crate) id: Option<String>,
    pub(crate) findings: Findings,
}

/// A dialect's grammar beside the shared core: the stream's text and reasoning run here.
#[derive(Debug)]
pub(crate) struct Runner<G: Grammar> {
    core: Core,
    grammar: G,
    /// What ends text: the start markers, then reasoning's start.
    in_text: Vec<&'static str>,
    /// What ends reasoning: its end marker, then (when a call ends reasoning) the start markers.
    in_reasoning: Vec<&'static str>,
    finished: bool,
}

impl<G: Grammar> Runner<G> {
    pub(crate) fn new(tools: Option<Arc<Tools>>, reasoning: bool, limits: Limits) -> Self {
        let mut in_text = G::STARTS.to_vec();
        let mut in_reasoning = Vec::new();
        if let Some((open, close)) = G::THINK {
            in_text.push(open);
            in_reasoning.push(close);
            if G::CALL_ENDS_REASONING {
                in_reasoning.extend_from_slice(G::STARTS);
            }
        }
        Self {
            core: Core {
                tools,
                limits,
                buf: String::new(),
                pos: 0,
                final_: false,
                place: if G::OPENS_IN_CALL {
                    Place::Call
                } else if reasoning && G::THINK.is_some() {
                    Place::Reasoning
                } else {
                    Place::Text
                },
                calls: 0,
                events: Vec::new(),
            },
            grammar: G::default(),
            in_text,
            in_reasoning,
            finished: false,
        }
    }

    pub(crate) fn feed(&mut self, delta: &str, out: &mut Vec<DialectEvent>) -> Result<(), Finished> {
        if self.finished {
            return Err(Finished);
        }
        // What was taken goes; what is held stays, and the delta joins it: each byte is moved once per feed it is
        // held across, and only a marker's length is ever held outside a call.
        self.core.buf.replace_range(..self.core.pos, "");
        self.core.pos = 0;
        self.core.buf.push_str(delta);
        self.run();
        out.append(&mut self.core.events);
        Ok(())
    }

    pub(crate) fn finish(&mut self, out: &mut Vec<DialectEvent>) -> Result<(), Finished> {
        if self.finished {
            return Err(Finished);
        }
        self.core.final_ = true;
        self.run();
        self.finished = true;
        match self.core.place {
            Place::Text => {}
            Place::Reasoning => self
                .core
                .finding(FindingCode::ReasoningCut, "the stream ended inside reasoning", None),
            Place::Call => {
                self.grammar.cut(&mut self.core);
                self.core.place = Place::Text;
            }
        }
        self.core.buf = String::new();
        self.core.pos = 0;
        out.append(&mut self.core.events);
        Ok(())
    }

    fn run(&mut self) {
        while self.step() {}
    }

    fn step(&mut self) -> bool {
        match self.core.place {
            Place::Text => {
                let Some(marker) = self.core.release_until(&self.in_text, Sink::Text) else {
                    return false;
                };
                if G::THINK.is_some_and(|(open, _)| open == marker) {
                    self.core.place = Place::Reasoning;
                } else {
                    self.open(marker);
                }
                true
            }
            Place::Reasoning => {
                let Some(marker) = self.core.release_until(&self.in_reasoning, Sink::Reasoning) else {
                    return false;
                };
                if G::THINK.is_some_and(|(_, close)| close == marker) {
                    self.core.place = Place::Text;
                } else {
                    self.open(marker);
                }
                true
            }
            Place::Call => self.grammar.advance(&mut self.core),
        }
    }

    fn open(&mut self, marker: &'static str) {
        self.core.place = Place::Call;
        self.grammar.open(&mut self.core, marker);
    }
}

// JSON read as it arrives.

/// Where a [`JsonReader`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    /// The value closed.
    Complete,
    /// More may come.
    Incomplete,
    /// The value stopped being JSON.
    Invalid,
}

/// One JSON value read as its text arrives: where it closes, or where it stops being JSON.
///
/// Its text is kept up to `Limits::max_argument_bytes`; past that it is scanned, not stored (`overflow`).
#[derive(Debug)]
pub(crate) struct JsonReader {
    scanner: Scanner,
    limit: usize,
    pub(crate) max_depth: u32,
    text: String,
    /// Bytes taken, kept or not.
    taken: usize,
    pub(crate) overflow: bool,
}

impl JsonReader {
    /// A reader of a value not yet begun.
    pub(crate) fn new(limits: &Limits) -> Self {
        let mut scanner = Scanner::new(limits.max_depth);
        // Repeated keys are `read_json`'s to find, in the reference's order; the scanner only judges the grammar.
        scanner.stop_tracking_keys();
        Self {
            scanner,
            limit: limits.max_argument_bytes,
            max_depth: limits.max_depth,
            text: String::new(),
            taken: 0,
            overflow: false,
        }
    }

    /// The value's text so far (empty once it overflowed).
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Reads `text` until the value closes or breaks; returns where it is and how many bytes were taken: up to and
    /// including the char that closed the value (a top-level number closes at the whitespace after it, taken), all
    /// of them while incomplete, none of the char that broke it.
    pub(crate) fn take(&mut self, text: &str) -> (Read, usize) {
        let base = self.scanner.bytes_seen();
        let state = self.scanner.feed(text.as_bytes());
        let offset = |at: u64| {
            usize::try_from(at.saturating_sub(base))
                .unwrap_or(usize::MAX)
                .min(text.len())
        };
        let (read, taken) = match state {
            ScanState::Incomplete => (Read::Incomplete, text.len()),
            ScanState::Complete { end } => (Read::Complete, self.closed_at(offset(end)).min(text.len())),
            ScanState::Invalid(error) if error.kind == ScanErrorKind::TrailingData => {
                // The value ended in this text and something other than whitespace followed: it closed where the
                // whitespace before that began, unless it is a number, which only whitespace closes (`12]` breaks).
                let at = offset(error.offset);
                let before = text.as_bytes().get(..at).unwrap_or_default();
                let spaces = before.iter().rev().take_while(|&&byte| is_space(byte)).count();
                if spaces == 0 && self.scanner.root_kind() == Some(ValueKind::Number) {
                    (Read::Invalid, at)
                } else {
                    (Read::Complete, self.closed_at(before.len() - spaces))
                }
            }
            ScanState::Invalid(error) => (Read::Invalid, floor_char(text, offset(error.offset))),
        };
        self.keep(text.get(..taken).unwrap_or_default());
        (read, taken)
    }

    /// How much of the text is taken when the value ended at `end`: a top-level number also takes the whitespace
    /// that ended it, as the reference's reader, fed a char at a time, does.
    fn closed_at(&self, end: usize) -> usize {
        if self.scanner.root_kind() == Some(ValueKind::Number) {
            end + 1
        } else {
            end
        }
    }

    fn keep(&mut self, taken: &str) {
        self.taken = self.taken.saturating_add(taken.len());
        if self.overflow {
            return;
        }
        if self.taken > self.limit {
            self.overflow = true;
            self.text = String::new();
            return;
        }
        self.text.push_str(taken);
    }
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

// JSON text: its rules.

/// `text` as a JSON string, the way messages name keys and tools (the reference's `quoted`: `json.dumps` with
/// non-ASCII kept, which escapes the same chars the same way).
pub(crate) fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// Whether `text` is JSON with a JSON form, or why not, in the reference's words (`read_json`): not JSON (the
/// scanner's error kind and byte offset), nested deeper than `max_depth`, a non-finite number, a key repeated in one
/// object; the first of these in the text's order, as Python's reader meets them (a number when it ends, an object's
/// keys when it closes).
pub(crate) fn read_json(text: &str, max_depth: u32) -> Result<(), String> {
    let mut scanner = Scanner::new(max_depth);
    scanner.stop_tracking_keys();
    scanner.feed(text.as_bytes());
    match scanner.finish() {
        ScanState::Incomplete => return Err("the JSON text ends early".to_owned()),
        ScanState::Invalid(error) => return Err(format!("{} at byte {}", error.kind.as_str(), error.offset)),
        ScanState::Complete { .. } => {}
    }
    json_form(text)
}

/// Why JSON text the scanner accepted has no JSON form, if it has none.
fn json_form(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    // Per open container: for an object, its keys so far (as read) and whether a key comes next.
    let mut open: Vec<Option<(Vec<String>, bool)>> = Vec::new();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'{' => {
                open.push(Some((Vec::new(), true)));
                at += 1;
            }
            b'[' => {
                open.push(None);
                at += 1;
            }
            b'}' | b']' => {
                if let Some(Some((keys, _))) = open.pop()
                    && let Some(key) = repeated(&keys)
                {
                    return Err(format!("the key {} is repeated in one object", quoted(key)));
                }
                at += 1;
            }
            b',' => {
                if let Some(Some((_, next_is_key))) = open.last_mut() {
                    *next_is_key = true;
                }
                at += 1;
            }
            b'"' => {
                let end = string_end(bytes, at);
                if let Some(Some((keys, next_is_key))) = open.last_mut()
                    && *next_is_key
                {
                    let raw = bytes.get(at..end).unwrap_or_default();
                    keys.push(decoded(raw));
                    *next_is_key = false;
                }
                at = end;
            }
            b'-' | b'0'..=b'9' => {
                let length = bytes
                    .get(at..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|&&byte| matches!(byte, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .count();
                let number = text.get(at..at + length).unwrap_or_default();
                // Python reads a number with a fraction or an exponent as a float, which a huge one overflows; an
                // integer it reads exactly, whatever its size.
                if number.contains(['.', 'e', 'E']) && number.parse::<f64>().is_ok_and(|value| !value.is_finite()) {
                    return Err(format!("{number} has no finite JSON value"));
                }
                at += length;
            }
            _ => at += 1,
        }
    }
    Ok(())
}

/// The first key of `keys` given before (in linear time: an object may hold a call's worth of keys).
fn repeated(keys: &[String]) -> Option<&str> {
    let mut seen = FxHashSet::default();
    keys.iter().find(|key| !seen.insert(key.as_str())).map(String::as_str)
}

/// Just past the string that starts at `start` (its opening quote), in JSON the scanner accepted.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// A JSON string's value (`raw` with its quotes), in JSON the scanner accepted.
fn decoded(raw: &[u8]) -> String {
    json_view::string(raw, &Path::ROOT)
        .map_or_else(|_| String::new(), |value| String::from_utf8_lossy(&value).into_owned())
}

/// Valid JSON text as written, less the whitespace outside its strings: what a call's arguments are.
pub(crate) fn compact_text(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        while bytes.get(at).is_some_and(|&byte| !is_space(byte) && byte != b'"') {
            at += 1;
        }
        if bytes.get(at) == Some(&b'"') {
            at = string_end(bytes, at);
        }
        out.push_str(text.get(start..at).unwrap_or_default());
        while bytes.get(at).is_some_and(|&byte| is_space(byte)) {
            at += 1;
        }
    }
    out
}

/// Each member of a JSON object's compact text ([`compact_text`], which `read_json` accepts): its key (read) and its
/// value's text as written. A walk of the text's tokens, as the reference's `members` is: a reader of values would
/// refuse what JSON allows and it need not (an integer of any length).
pub(crate) fn members(text: &str) -> Vec<(String, &str)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut depth = 0_usize;
    let mut key: Option<String> = None;
    let mut start = 0;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        let mut next = at + 1;
        match byte {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 1
                    && let Some(key) = key.take()
                {
                    found.push((key, text.get(start..at).unwrap_or_default()));
                }
                depth = depth.saturating_sub(1);
            }
            b'"' => {
                next = string_end(bytes, at);
                if depth == 1 && key.is_none() {
                    key = Some(decoded(bytes.get(at..next).unwrap_or_default()));
                }
            }
            b':' if depth == 1 => start = next,
            b',' if depth == 1 => {
                if let Some(key) = key.take() {
                    found.push((key, text.get(start..at).unwrap_or_default()));
                }
            }
            _ => {}
        }
        at = next;
    }
    found
}

/// The compact text of the JSON object of `pairs`: keys, and the JSON text of each value.
pub(crate) fn object_text<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let members: Vec<String> = pairs
        .into_iter()
        .map(|(key, value)| format!("{}:{value}", quoted(key)))
        .collect();
    format!("{{{}}}", members.join(","))
}

/// Whether a JSON value's text is an object.
pub(crate) fn is_object(text: &str) -> bool {
    text.trim_start_matches([' ', '\t', '\r', '\n']).starts_with('{')
}

/// A JSON value's text as a string, when it is one.
fn string_value(raw: &str) -> Option<String> {
    raw.starts_with('"').then(|| decoded(raw.as_bytes()))
}

/// The name of a JSON call object cut short, when its first member is a whole `"name"` string JSON reads.
///
/// The reference matches `\s*\{\s*"name"\s*:\s*("(?:[^"\\]|\\.)*")`, where `\s` is Python's Unicode whitespace and
/// `.` any char but a newline.
pub(crate) fn leading_name(text: &str) -> Option<String> {
    let rest = text.trim_start_matches(is_python_space).strip_prefix('{')?;
    let rest = rest.trim_start_matches(is_python_space).strip_prefix("\"name\"")?;
    let rest = rest.trim_start_matches(is_python_space).strip_prefix(':')?;
    let rest = rest.trim_start_matches(is_python_space);
    let mut chars = rest.char_indices();
    if chars.next()?.1 != '"' {
        return None;
    }
    let end = loop {
        match chars.next()? {
            (at, '"') => break at + 1,
            (_, '\\') if chars.next()?.1 == '\n' => return None,
            _ => {}
        }
    };
    let string = rest.get(..end)?;
    read_json(string, 1).ok()?;
    string_value(string)
}

/// Python's `str.isalnum` for one char: a letter or a number by its general category (of the Unicode version the
/// crate knows, which may assign chars Python's does not).
pub(crate) fn is_python_alnum(char: char) -> bool {
    use unicode_general_category::{GeneralCategory as Category, get_general_category};
    matches!(
        get_general_category(char),
        Category::UppercaseLetter
            | Category::LowercaseLetter
            | Category::TitlecaseLetter
            | Category::ModifierLetter
            | Category::OtherLetter
            | Category::DecimalNumber
            | Category::LetterNumber
            | Category::OtherNumber
    )
}

/// Python's `str.isspace`: Unicode's whitespace and the four separators `\x1c`–`\x1f`.
pub(crate) fn is_python_space(char: char) -> bool {
    char.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&char)
}

/// The members of a call written as a JSON object: its name's, its arguments' (any one of them, in order of
/// preference) and its id's, if the dialect writes one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallKeys {
    pub(crate) name: &'static str,
    pub(crate) arguments: &'static [&'static str],
    pub(crate) id: Option<&'static str>,
}

impl CallKeys {
    /// `{"name": ..., "arguments": {...}}`, with no id.
    pub(crate) const NAME_ARGUMENTS: Self = Self {
        name: "name",
        arguments: &["arguments"],
        id: None,
    };
}

pub(crate) const TOO_LARGE: &str = "the call's text passed the limit on a call's bytes";

/// A call written as a JSON object (`{"name": ..., "arguments": {...}}`) that `read_json` accepts: its name,
/// arguments, id and findings (the reference's `object_call`).
///
/// `keys.name` is the member holding the name (Cohere writes `tool_name`); `keys.arguments` are the members that may hold the arguments, in order of preference; `"type": "function"` (Llama
/// 4) is allowed beside them. The arguments are their member's text as written (`compact_text`); written as a JSON
/// string holding the object, they are that string's text, read once.
pub(crate) fn object_call(text: &str, keys: &CallKeys, max_depth: u32) -> Called {
    let CallKeys {
        name: name_key,
        arguments: argument_keys,
        id: id_key,
    } = *keys;
    let text = compact_text(text);
    if !is_object(&text) {
        return Called {
            arguments: text,
            findings: vec![(FindingCode::MalformedCall, "the call is not a JSON object".to_owned())],
            ..Called::default()
        };
    }
    let written = members(&text);
    let member = |key: &str| written.iter().find(|(name, _)| name == key).map(|&(_, value)| value);
    let mut findings = Findings::new();
    let name = member(name_key).and_then(string_value).filter(|name| !name.is_empty());
    if name.is_none() {
        findings.push((FindingCode::MalformedCall, "the call has no name string".to_owned()));
    }
    let mut id = None;
    if let Some(key) = id_key
        && let Some(raw) = member(key).filter(|&raw| raw != "null")
    {
        id = string_value(raw);
        if id.is_none() {
            findings.push((
                FindingCode::MalformedCall,
                format!("the call's {} is not a string", quoted(key)),
            ));
        }
    }
    let mut extra: Vec<&str> = written
        .iter()
        .filter(|(key, value)| {
            key != name_key
                && !argument_keys.contains(&key.as_str())
                && id_key != Some(key.as_str())
                && !(key == "type" && string_value(value).as_deref() == Some("function"))
        })
        .map(|(key, _)| key.as_str())
        .collect();
    if !extra.is_empty() {
        extra.sort_unstable();
        let listed = extra.iter().map(|key| quoted(key)).collect::<Vec<_>>().join(", ");
        findings.push((
            FindingCode::MalformedCall,
            format!("the call has members no call has: {listed}"),
        ));
    }
    let present: Vec<&str> = argument_keys.iter().filter_map(|&key| member(key)).collect();
    let [arguments] = present.as_slice() else {
        let what = if present.is_empty() { "no" } else { "more than one" };
        findings.push((
            FindingCode::MalformedCall,
            format!("the call has {what} arguments member ({})", argument_keys.join(" or ")),
        ));
        return Called {
            name,
            arguments: present.first().copied().unwrap_or_default().to_owned(),
            id,
            findings,
        };
    };
    let mut arguments = (*arguments).to_owned();
    if let Some(string) = string_value(&arguments) {
        if let Err(problem) = read_json(&string, max_depth) {
            findings.push((
                FindingCode::InvalidArguments,
                format!("the arguments are a string that is not JSON ({problem})"),
            ));
            return Called {
                name,
                arguments: string,
                id,
                findings,
            };
        }
        findings.push((
            FindingCode::ArgumentsAsString,
            "the arguments were a JSON string holding the object".to_owned(),
        ));
        arguments = compact_text(&string);
    }
    if !is_object(&arguments) {
        findings.push((
            FindingCode::InvalidArguments,
            "the arguments are not a JSON object".to_owned(),
        ));
    }
    Called {
        name,
        arguments,
        id,
        findings,
    }
}

/// The call a whole JSON object read by `reader` writes ([`object_call`]), or why it cannot be read.
pub(crate) fn json_call(reader: &JsonReader, keys: &CallKeys) -> Called {
    if reader.overflow {
        return Called {
            findings: vec![(FindingCode::TooLarge, TOO_LARGE.to_owned())],
            ..Called::default()
        };
    }
    if let Err(problem) = read_json(reader.text(), reader.max_depth) {
        return Called {
            name: leading_name(reader.text()),
            arguments: reader.text().to_owned(),
            id: None,
            findings: vec![(FindingCode::InvalidArguments, problem)],
        };
    }
    object_call(reader.text(), keys, reader.max_depth)
}

/// The arguments object a whole JSON value read by `reader` is ([`compact_text`]), or the best text and why not.
pub(crate) fn arguments_of(reader: &JsonReader) -> (String, Findings) {
    if reader.overflow {
        return (String::new(), vec![(FindingCode::TooLarge, TOO_LARGE.to_owned())]);
    }
    if let Err(problem) = read_json(reader.text(), reader.max_depth) {
        return (reader.text().to_owned(), vec![(FindingCode::InvalidArguments, problem)]);
    }
    if !is_object(reader.text()) {
        let why = "the arguments are not a JSON object".to_owned();
        return (reader.text().to_owned(), vec![(FindingCode::InvalidArguments, why)]);
    }
    (compact_text(reader.text()), Vec::new())
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{CUT, OK, call, parse};
    use super::*;

    fn limits(max_argument_bytes: usize) -> Limits {
        Limits {
            max_argument_bytes,
            ..Limits::default()
        }
    }

    #[test]
    fn the_findings_table_says_severities_as_the_reference_does() {
        assert_eq!(FindingCode::ALL.len(), 13);
        assert_eq!(FindingCode::Cut.as_str(), "CUT");
        assert_eq!(FindingCode::NoSchema.severity(), Severity::Warning);
        assert_eq!(FindingCode::MarkerInText.severity(), Severity::Info);
        assert_eq!(FindingCode::ReasoningCut.meaning(), "the stream ended inside reasoning");
    }

    #[test]
    fn held_is_the_longest_end_that_could_start_a_marker() {
        assert_eq!(held("text <tool", &["<tool_call>", "<think>"]), 5);
        assert_eq!(held("text <t", &["<tool_call>", "<think>"]), 2);
        assert_eq!(held("text <tool_call", &["<tool_call>"]), 10);
        assert_eq!(held("text é", &["<tool_call>"]), 0);
        assert_eq!(held("", &["<a>"]), 0);
    }

    #[test]
    fn the_reader_stops_where_the_value_closes_or_breaks_whatever_follows() {
        let mut reader = JsonReader::new(&Limits::default());
        assert_eq!(reader.take(r#"{"a": "é""#), (Read::Incomplete, 10));
        assert_eq!(reader.take("}  </tool_call>"), (Read::Complete, 1));
        assert_eq!(reader.text(), r#"{"a": "é"}"#);
        let mut reader = JsonReader::new(&Limits::default());
        assert_eq!(reader.take(r#"{"a"}"#), (Read::Invalid, 4));
        assert_eq!(reader.text(), r#"{"a""#);
        let mut reader = JsonReader::new(&Limits::default());
        assert_eq!(reader.take("{} "), (Read::Complete, 2));
        // A number closes at the whitespace after it, which it takes, as the reference's reader does.
        let mut reader = JsonReader::new(&Limits::default());
        assert_eq!(reader.take("12 x"), (Read::Complete, 3));
        let mut reader = JsonReader::new(&Limits::default());
        assert_eq!(reader.take("12 "), (Read::Complete, 3));
        let mut reader = JsonReader::new(&Limits::default());
        assert_eq!(reader.take("{é"), (Read::Invalid, 1));
        // The reference's answers, fed a char at a time: a literal or a string closes on its last char, a number
        // breaks on a char that is neither part of it nor whitespace.
        for (text, expected, kept) in [
            ("true]", (Read::Complete, 4), "true"),
            ("\"s\" x", (Read::Complete, 3), "\"s\""),
            ("12]", (Read::Invalid, 2), "12"),
            ("12 x", (Read::Complete, 3), "12 "),
        ] {
            let mut reader = JsonReader::new(&Limits::default());
            assert_eq!(reader.take(text), expected, "{text}");
            assert_eq!(reader.text(), kept, "{text}");
        }
    }

    #[test]
    fn the_reader_keeps_up_to_the_limit_and_then_only_scans() {
        let mut reader = JsonReader::new(&limits(8));
        assert_eq!(reader.take(r#"{"a": "#), (Read::Incomplete, 6));
        assert!(!reader.overflow);
        assert_eq!(reader.take(r#""xyz"}"#), (Read::Complete, 6));
        assert!(reader.overflow);
        assert_eq!(reader.text(), "");
        let mut deep = JsonReader::new(&Limits {
            max_depth: 2,
            ..Limits::default()
        });
        assert_eq!(deep.take("[[["), (Read::Invalid, 2));
    }

    #[test]
    fn read_json_says_the_first_problem_in_the_order_python_meets_it() {
        assert_eq!(read_json(r#"{"a": [1.5e3, -0]}"#, 128), Ok(()));
        assert_eq!(read_json("{", 128), Err("the JSON text ends early".to_owned()));
        assert_eq!(read_json("12", 128), Ok(()));
        assert_eq!(
            read_json(r#"{"x": tru}"#, 128),
            Err("invalid_literal at byte 9".to_owned())
        );
        assert_eq!(read_json("[[1]]", 1), Err("too_deep at byte 1".to_owned()));
        assert_eq!(
            read_json(r#"{"x": 1e999}"#, 128),
            Err("1e999 has no finite JSON value".to_owned())
        );
        // An integer is read exactly, however large.
        assert_eq!(read_json(&"9".repeat(400), 128), Ok(()));
        // The inner object closes before the outer one: its repeat is met first.
        let message = read_json(r#"{"a": 1, "a": {"b": 1, "b": 2}}"#, 128);
        assert_eq!(message, Err(r#"the key "b" is repeated in one object"#.to_owned()));
        // A number is met when it ends, before the object around it closes.
        let message = read_json(r#"{"a": 1, "a": 2, "c": -1E400}"#, 128);
        assert_eq!(message, Err("-1E400 has no finite JSON value".to_owned()));
        let message = read_json(r#"{"k\u00e9\n": 1, "ké\n": 2}"#, 128);
        assert_eq!(message, Err(r#"the key "ké\n" is repeated in one object"#.to_owned()));
        // Keys of sibling objects are their own.
        assert_eq!(read_json(r#"[{"a": 1}, {"a": 2}]"#, 128), Ok(()));
    }

    #[test]
    fn compact_text_drops_the_whitespace_outside_strings_only() {
        let text = "{ \"a b\" : [ 1.50 , 1e16 ],\n\t\"c\\\" \" : \"\\u00e9 \" }";
        assert_eq!(compact_text(text), "{\"a b\":[1.50,1e16],\"c\\\" \":\"\\u00e9 \"}");
        assert_eq!(compact_text(" 3 "), "3");
    }

    #[test]
    fn quoted_escapes_as_json_dumps_does_keeping_non_ascii() {
        assert_eq!(quoted("é\"\\\n\u{1}\u{7f}"), "\"é\\\"\\\\\\n\\u0001\u{7f}\"");
    }

    #[test]
    fn members_are_read_keys_and_written_values() {
        let long = "9".repeat(5000);
        let text = format!(r#"{{"n":{long},"s":"a,}}:\"","e":{{}}}}"#);
        let expected = vec![
            ("n".to_owned(), long.as_str()),
            ("s".to_owned(), r#""a,}:\"""#),
            ("e".to_owned(), "{}"),
        ];
        assert_eq!(members(&text), expected);
        assert_eq!(members("{}"), Vec::new());
        let found = members(r#"{"\u0061":{"x":[1,2]},"b":"s","c":1.50}"#);
        assert_eq!(
            found,
            vec![
                ("a".to_owned(), r#"{"x":[1,2]}"#),
                ("b".to_owned(), r#""s""#),
                ("c".to_owned(), "1.50")
            ]
        );
    }

    #[test]
    fn a_leading_name_is_a_whole_string_json_reads() {
        assert_eq!(
            leading_name("\u{a0}{ \"name\" :\u{2028}\"f\\u00e9\", \"argu"),
            Some("fé".to_owned())
        );
        assert_eq!(leading_name(r#"{"name": "f"#), None);
        assert_eq!(leading_name(r#"{"name": "f\q""#), None);
        assert_eq!(leading_name("{\"name\": \"f\\\n\""), None);
        assert_eq!(leading_name("{\"name\": \"f\tg\""), None);
        assert_eq!(leading_name(r#"{"id": 1, "name": "f"}"#), None);
    }

    fn object(text: &str) -> Called {
        let keys = CallKeys {
            name: "name",
            arguments: &["arguments", "parameters"],
            id: Some("id"),
        };
        object_call(text, &keys, 128)
    }

    fn malformed(message: &str) -> (FindingCode, String) {
        (FindingCode::MalformedCall, message.to_owned())
    }

    #[test]
    fn an_object_call_keeps_its_arguments_as_written() {
        let called = object(r#"{"type": "function", "name": "f", "id": "c1", "arguments": {"n": 1.50}}"#);
        let expected = Called {
            name: Some("f".to_owned()),
            arguments: r#"{"n":1.50}"#.to_owned(),
            id: Some("c1".to_owned()),
            findings: Vec::new(),
        };
        assert_eq!(called, expected);
        let called = object(r#"{"name": "f", "arguments": "{ \"n\": 2.50 }"}"#);
        assert_eq!(called.arguments, r#"{"n":2.50}"#);
        assert_eq!(
            called.findings.first().map(|(code, _)| *code),
            Some(FindingCode::ArgumentsAsString)
        );
    }

    #[test]
    fn an_object_call_says_each_way_it_is_not_a_call() {
        let called = object("[1]");
        assert_eq!(
            (called.arguments.as_str(), called.findings),
            ("[1]", vec![malformed("the call is not a JSON object")])
        );
        let called = object(r#"{"name": "", "id": 3, "type": "tool", "z": 1, "arguments": {}, "parameters": []}"#);
        assert_eq!(called.name, None);
        assert_eq!(called.arguments, "{}");
        assert_eq!(
            called.findings,
            vec![
                malformed("the call has no name string"),
                malformed(r#"the call's "id" is not a string"#),
                malformed(r#"the call has members no call has: "type", "z""#),
                malformed("the call has more than one arguments member (arguments or parameters)"),
            ]
        );
        let called = object(r#"{"name": "f", "arguments": "{\"x\": tru}"}"#);
        assert_eq!(called.arguments, r#"{"x": tru}"#);
        let why = "the arguments are a string that is not JSON (invalid_literal at byte 9)".to_owned();
        assert_eq!(called.findings, vec![(FindingCode::InvalidArguments, why)]);
        let called = object(r#"{"name": "f", "id": null, "parameters": null}"#);
        assert_eq!((called.id, called.arguments.as_str()), (None, "null"));
        let why = "the arguments are not a JSON object".to_owned();
        assert_eq!(called.findings, vec![(FindingCode::InvalidArguments, why)]);
    }

    #[test]
    fn arguments_of_a_reader_are_an_object_or_the_text_and_why_not() {
        let mut reader = JsonReader::new(&Limits::default());
        reader.take("[1, 2]");
        let why = "the arguments are not a JSON object".to_owned();
        assert_eq!(
            arguments_of(&reader),
            ("[1, 2]".to_owned(), vec![(FindingCode::InvalidArguments, why)])
        );
        let mut reader = JsonReader::new(&Limits::default());
        reader.take("{ \"a\" : 1.0 }");
        assert_eq!(arguments_of(&reader), ("{\"a\":1.0}".to_owned(), Vec::new()));
        let mut reader = JsonReader::new(&limits(2));
        reader.take("{ \"a\" : 1.0 }");
        assert_eq!(
            arguments_of(&reader),
            (String::new(), vec![(FindingCode::TooLarge, TOO_LARGE.to_owned())])
        );
    }

    #[test]
    fn the_earliest_marker_is_found_in_one_walk_and_the_first_listed_wins_a_tie() {
        let markers = ["<think>", "<tool_call>", "{", "[x", "é"];
        assert_eq!(earliest("a <tool <tool_call>", &markers), Some((8, "<tool_call>")));
        assert_eq!(earliest("ab[é", &markers), Some((3, "é")));
        assert_eq!(earliest("<t", &markers), None);
        assert_eq!(earliest("ab", &[]), None);
        assert_eq!(earliest("x<a>", &["<a", "<a>"]), Some((1, "<a")));
        assert_eq!(earliest("x<a>", &["<a>", "<a"]), Some((1, "<a>")));
        // Four first bytes: the walk without `memchr`'s.
        assert_eq!(earliest("abcd{", &["<t>", "{", "[x", "é"]), Some((4, "{")));
    }

    #[test]
    fn the_core_releases_up_to_the_earliest_marker_and_holds_what_could_start_one() {
        let mut core = Runner::<Plain>::new(None, false, Limits::default()).core;
        core.buf.push_str("ab<x>cd<y>ef<");
        assert_eq!(core.release_until(&["<y>", "<x>"], Sink::Text), Some("<x>"));
        let mut kept = String::new();
        assert_eq!(core.release_until(&["<y>"], Sink::Into(&mut kept)), Some("<y>"));
        assert_eq!(kept, "cd");
        assert_eq!(core.release_until(&["<y>"], Sink::Reasoning), None);
        assert_eq!(core.rest(), "<");
        assert_eq!(core.starts_with("<y>", core.after_whitespace()), None);
        core.final_ = true;
        assert_eq!(core.starts_with("<y>", core.after_whitespace()), Some(false));
        assert_eq!(core.release_until(&["<y>"], Sink::Text), None);
        let expected = ["ab", "ef", "<"];
        let texts: Vec<&str> = core
            .events
            .iter()
            .filter_map(|event| match event {
                DialectEvent::Text(text) | DialectEvent::Reasoning(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(texts, expected);
        assert!(matches!(core.events.get(1), Some(DialectEvent::Reasoning(_))));
    }

    #[test]
    fn a_tool_s_schema_is_found_by_its_name() {
        let tools: Tools = [("f".to_owned(), serde_json::json!({"type": "object"}))]
            .into_iter()
            .collect();
        let core = Runner::<Plain>::new(Some(Arc::new(tools)), false, Limits::default()).core;
        assert_eq!(core.schema(Some("f")), Some(&serde_json::json!({"type": "object"})));
        assert_eq!(core.schema(Some("g")), None);
        assert_eq!(core.schema(None), None);
    }

    /// A dialect whose call is `<c>NAME;`: enough to run the runner's text, reasoning and cut.
    #[derive(Debug, Default)]
    struct Plain {
        name: String,
    }

    impl Grammar for Plain {
        const STARTS: &'static [&'static str] = &["<c>"];
        const THINK: Option<(&'static str, &'static str)> = Some(("<t>", "</t>"));
        const CALL_ENDS_REASONING: bool = true;

        fn open(&mut self, _: &mut Core, _: &'static str) {
            self.name.clear();
        }

        fn advance(&mut self, core: &mut Core) -> bool {
            let rest = core.rest();
            let Some(end) = rest.find(';') else {
                self.name.push_str(rest);
                core.advance(rest.len());
                return false;
            };
            self.name.push_str(rest.get(..end).unwrap_or_default());
            core.advance(end + 1);
            let called = Called {
                name: Some(std::mem::take(&mut self.name)),
                arguments: "{}".to_owned(),
                ..Called::default()
            };
            core.call(called, true);
            core.leave_call();
            true
        }

        fn cut(&mut self, core: &mut Core) {
            let called = Called {
                name: None,
                arguments: std::mem::take(&mut self.name),
                id: None,
                findings: vec![(FindingCode::Cut, "cut".to_owned())],
            };
            core.call(called, false);
        }
    }

    #[test]
    fn the_runner_runs_text_reasoning_and_calls_and_cuts_what_the_end_leaves_open() {
        let events = parse::<Plain>(
            &["think <", "c>f; said <t>more</t", ">end <c>g"],
            None,
            true,
            Limits::default(),
        );
        let cut = DialectEvent::Finding(Finding {
            code: FindingCode::Cut,
            message: "cut".to_owned(),
            call: Some(1),
        });
        let expected = vec![
            DialectEvent::Reasoning("think ".to_owned()),
            call(0, Some("f"), "{}", None, OK),
            DialectEvent::Text(" said ".to_owned()),
            DialectEvent::Reasoning("more".to_owned()),
            DialectEvent::Text("end ".to_owned()),
            cut,
            call(1, None, "g", None, CUT),
        ];
        assert_eq!(events, expected);
        let events = parse::<Plain>(&["<t>open"], None, false, Limits::default());
        let expected = vec![
            DialectEvent::Reasoning("open".to_owned()),
            DialectEvent::Finding(Finding {
                code: FindingCode::ReasoningCut,
                message: "the stream ended inside reasoning".to_owned(),
                call: None,
            }),
        ];
        assert_eq!(events, expected);
    }
}
