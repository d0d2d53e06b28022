//! The accumulator: tool calls in progress, their identity, their arguments and when they are handed over.
//!
//! The rules are those of `docs/semantics.md`, the same as `python/toolwire/reference/_accumulator.py`;
//! the differential tests hold the two together. Nothing here knows a wire format: decoders call
//! [`Accumulator::fragment`], [`Accumulator::text`], [`Accumulator::finish`], [`Accumulator::provider_error`]
//! and [`Accumulator::end`].
//!
//! Each argument byte is appended once and scanned once: total work is linear in the bytes received.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt::Write as _;

use crate::kept::{self, Scope};
use crate::scanner::{ScanErrorKind, ScanState, Scanner, ValueKind};
use crate::validator::ToolValidators;
use crate::violation::{Severity, Violation, ViolationCode, ViolationData};

mod choices;
mod text_calls;

use choices::Choices;
use text_calls::TextCalls;
pub use text_calls::TextDialect;

/// What an output item, and each value a delta adds whole to one, counts towards `Limits.max_output_bytes` besides its
/// text: the bookkeeping it takes, so that a stream of tiny pieces is bounded as a stream of large ones is.
pub const BOOKKEEPING: usize = 256;

/// The seq of a call refused past `Limits.max_calls`: it names no call, and fragments addressed to it are counted by
/// the stream's one `TOO_MANY_CALLS`.
pub const REFUSED: usize = usize::MAX;

/// When a call is handed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Emit {
    /// The moment its JSON value closes.
    Complete,
    /// Once its value closed and the call is over (the default).
    #[default]
    CallEnd,
    /// Only at the end of the stream.
    StreamEnd,
}

/// How a finish reason bears on the calls of its choice: each decoder classifies its provider's reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishKind {
    /// The model stopped to have its calls run (`tool_calls`, `tool_use`): a choice without calls is
    /// `FINISH_WITHOUT_CALLS`.
    Calls,
    /// The model said it was done (`stop`, `end_turn`): calls are `FINISH_REASON_MISMATCH`.
    Stop,
    /// The model was stopped (`length`, `max_tokens`, a content filter): the stream is cut.
    Cut,
    /// Says nothing about calls (`completed`, Gemini's `STOP`, `stop_sequence`).
    Neutral,
}

/// Bounds that keep memory finite on hostile streams; passing one is a violation, never a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Argument bytes kept per call.
    pub max_argument_bytes: usize,
    /// Nesting of arrays and objects, the top-level object counting as 1.
    pub max_depth: u32,
    /// Calls per stream.
    pub max_calls: usize,
    /// Violations kept per call, and for the stream itself; past it they are counted (`VIOLATIONS_OMITTED`).
    pub max_violations: usize,
    /// Content text bytes kept per choice; past it they are counted (`TEXT_TOO_LARGE`).
    pub max_text_bytes: usize,
    /// Choices per stream; the entries of the ones past it are counted (`TOO_MANY_CHOICES`).
    pub max_choices: usize,
    /// What the output keeps, as [`Accumulator::admit_output`] counts it; past it, counted (`OUTPUT_TOO_LARGE`).
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_argument_bytes: 8 * 1024 * 1024,
            max_depth: 128,
            max_calls: 256,
            max_violations: 1000,
            max_text_bytes: 32 * 1024 * 1024,
            max_choices: 128,
            max_output_bytes: 64 * 1024 * 1024,
        }
    }
}

/// What the request's `tool_choice` demands of the stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolChoice {
    /// Some call was required.
    pub required: bool,
    /// This tool was required.
    pub name: Option<String>,
}

/// Settings of one stream; the default is `reassemble`'s (calls handed over at their end, default limits, no tool
/// choice, no tools, no logs).
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Emission policy.
    pub emit: Emit,
    /// Limits.
    pub limits: Limits,
    /// The request's tool choice.
    pub tool_choice: ToolChoice,
    /// Keep a log of every violation as it is found (for an `on_violation` callback).
    pub log_violations: bool,
    /// The declared tools: each call's name is checked against them and its arguments validated as it is handed
    /// over. `None` checks nothing (no tools were given).
    pub validators: Option<Arc<ToolValidators>>,
    /// The dialect the calls written into the text are read in (`dialect=`); `None` reads none.
    pub text_calls: Option<TextDialect>,
    /// Keep a log of the stream's progress ([`Step`]s), for interfaces that show calls as they form.
    pub log_steps: bool,
}

/// What happened in the stream, in order (with `Config.log_steps`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Content text for a choice.
    Text {
        /// The choice.
        choice: i64,
        /// The text as it arrived.
        text: Vec<u8>,
    },
    /// A call was opened.
    Opened {
        /// The call.
        seq: usize,
    },
    /// Argument bytes were appended to a call.
    Arguments {
        /// The call.
        seq: usize,
        /// The bytes, as they arrived.
        bytes: Vec<u8>,
    },
    /// A call was handed over (it is among the ready calls).
    HandedOver {
        /// The call.
        seq: usize,
    },
}

/// A call's identity as it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity<'a> {
    /// Its choice.
    pub choice: i64,
    /// The provider's index as first sent.
    pub index: Option<i64>,
    /// Its id, once one arrived.
    pub id: Option<&'a [u8]>,
    /// Its name, once one arrived.
    pub name: Option<&'a [u8]>,
}

/// One tool-call delta, read out of its wire format.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fragment<'a> {
    /// The provider's index, when it sent one.
    pub index: Option<i64>,
    /// The call id as sent (placeholders included). Identity fields are bytes: a Python string may hold lone
    /// surrogates (from a `\ud800` escape), which the binding passes as `surrogatepass` bytes and gets back intact.
    pub id: Option<&'a [u8]>,
    /// The tool name as sent.
    pub name: Option<&'a [u8]>,
    /// The call type as sent.
    pub kind: Option<&'a [u8]>,
    /// Argument text to append.
    pub arguments: Option<&'a [u8]>,
    /// The arguments came as a JSON value where the format promises a string; `arguments` holds its canonical text.
    pub arguments_was_value: bool,
    /// Provider fields the next request needs back (key, raw JSON value), each taken on first arrival.
    pub extra: &'a [(&'static str, &'a [u8])],
    /// The call this fragment opens takes free text, not JSON (a Responses custom tool): its text is kept, never
    /// scanned, and it is whole only once its end came.
    pub free_text: bool,
    /// The call was written into text and a dialect parser found its text is not its arguments object (cut,
    /// malformed, not JSON, too large): kept as it came, never scanned nor validated; the parser's findings say why.
    pub judged: bool,
}

/// How the `arguments` value of a handed-over call is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arguments {
    /// No arguments arrived: an empty object.
    Empty,
    /// The text is one complete JSON value: parse `arguments_json`.
    Value,
    /// No value can be given.
    Absent,
    /// A free-text call (a custom tool): `arguments_json` holds its input text, which is no JSON.
    Text,
}

/// A call handed over to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandedOver {
    /// Opening order in the stream.
    pub seq: usize,
    /// Its choice.
    pub choice: i64,
    /// The provider's index as first sent.
    pub index: Option<i64>,
    /// The provider's id, or a generated one.
    pub id: Vec<u8>,
    /// The tool name, if one arrived.
    pub name: Option<Vec<u8>>,
    /// How to build its arguments.
    pub arguments: Arguments,
    /// The argument bytes kept (valid UTF-8 when `arguments` is `Value`).
    pub arguments_json: Vec<u8>,
    /// Every violation on the call, in the order found.
    pub violations: Vec<Violation>,
    /// Provider fields kept for the next request (key, raw JSON value).
    pub extra: Vec<(&'static str, Vec<u8>)>,
    /// How many violations the stream had logged (`Config.log_violations`) once this call was handed over: a finding a
    /// caller makes on it afterwards (building its arguments) comes right after them, as if the core had made it.
    pub log_position: usize,
}

impl HandedOver {
    /// A call is valid when none of its violations is an error.
    pub fn is_valid(&self) -> bool {
        self.violations
            .iter()
            .all(|violation| violation.severity != Severity::Error)
    }
}

/// A choice's text and finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceSummary {
    /// The choice number.
    pub choice: i64,
    /// Its content text.
    pub text: Vec<u8>,
    /// What it said when it refused (chat `delta.refusal`, Responses `response.refusal.delta`); empty when it did not.
    pub refusal: Vec<u8>,
    /// Its first non-null finish reason.
    pub finish_reason: Option<Vec<u8>>,
}

fn value_or_none(value: Option<&[u8]>) -> Option<&[u8]> {
    value.filter(|text| !text.is_empty() && *text != b"null")
}

/// Identity bytes as text, for messages.
fn shown(value: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(value)
}

/// How a call's text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// JSON arguments, scanned as they come.
    Json,
    /// Free text (a custom tool's input): kept, never scanned; whole only once its end came.
    FreeText,
    /// Text a dialect parser judged not to be an arguments object: kept as it came, neither scanned nor validated.
    Judged,
}

/// Where a call is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Bytes may still come.
    Open,
    /// The provider said the call is over (an explicit end event): later bytes for it are trailing data.
    Ended,
    /// Handed over to the user.
    HandedOver,
}

#[derive(Debug)]
struct Call {
    seq: usize,
    choice: i64,
    index: Option<i64>,
    scanner: Scanner,
    id: Option<Vec<u8>>,
    name: Option<Vec<u8>>,
    buffer: Vec<u8>,
    received: u64,
    over_limit: bool,
    missing_index_reported: bool,
    // The conflicting ids and names reported, at most `Limits.max_violations` of them (as many as findings it keeps).
    // Boxed: few calls have any, and every call would carry two empty sets inline.
    changed: Option<Box<Changed>>,
    violations: Vec<Violation>,
    stage: Stage,
    extra: Vec<(&'static str, Vec<u8>)>,
    reading: Reading,
    // With final texts expected, a handed-over call keeps a digest of its text: a final text (`done_arguments`) that
    // comes after must be compared with it, and the text itself has gone to the user.
    handed_text: Option<u64>,
    // The one `TRAILING_DATA` the arguments arriving after the call's end make, where they land.
    trailing: Merged,
}

impl Call {
    fn closed(&self) -> bool {
        match self.scanner.state() {
            ScanState::Complete { .. } => true,
            ScanState::Invalid(error) => error.kind == ScanErrorKind::TrailingData,
            ScanState::Incomplete => false,
        }
    }

    /// The value closed or was rejected: nothing that arrives later can make it a different call. A call with
    /// no arguments yet is not settled: with interleaved calls its arguments may still come.
    fn settled(&self) -> bool {
        self.scanner.state() != ScanState::Incomplete
    }

    fn empty(&self) -> bool {
        !self.scanner.is_started()
    }

    fn scope(&self) -> Scope {
        Scope {
            choice: Some(self.choice),
            seq: Some(self.seq),
            index: self.index,
        }
    }

    /// Each distinct conflicting id (`is_id`) or name is reported once per call, however often it repeats. Only the
    /// first `limit` distinct ones are remembered: past them, a conflicting value is reported each time it comes.
    fn first_time(&mut self, is_id: bool, value: &[u8], limit: usize) -> bool {
        let changed = self.changed.get_or_insert_with(Box::default);
        let remembered = changed.ids.len() + changed.names.len();
        let seen = if is_id { &mut changed.ids } else { &mut changed.names };
        if seen.contains(value) {
            return false;
        }
        if remembered < limit {
            seen.insert(value.to_vec());
        }
        true
    }
}

/// The distinct ids and names a call was sent after its first (each reported once).
#[derive(Debug, Default)]
struct Changed {
    ids: FxHashSet<Vec<u8>>,
    names: FxHashSet<Vec<u8>>,
}

/// Where the one violation lives that a repeated finding grows instead of adding more (`TRAILING_DATA` for the
/// arguments arriving after a call's end, and the finding of each limit that counts what came past it:
/// `TOO_MANY_CALLS`, `TOO_MANY_CHOICES`, `TEXT_TOO_LARGE`, `OUTPUT_TOO_LARGE`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Merged {
    /// Not found yet.
    #[default]
    None,
    /// Kept at this index of the call's violations, or (`on_stream`) of the stream's.
    At { on_stream: bool, index: usize },
    /// Found past `Limits.max_violations`: counted once, nothing to grow.
    Omitted { on_stream: bool },
}

/// Findings about a call's text, which a replacing final text (`done_arguments`) makes moot.
const REPLACED_WITH_THE_TEXT: [ViolationCode; 5] = [
    ViolationCode::INVALID_JSON,
    ViolationCode::TOO_DEEP,
    ViolationCode::TRAILING_DATA,
    ViolationCode::DUPLICATE_KEY,
    ViolationCode::ARGUMENTS_TOO_LARGE,
];

#[derive(Debug, Default)]
struct Choice {
    text: Vec<u8>,
    refusal: Vec<u8>,
    // The choice's `TEXT_TOO_LARGE`: once its text and refusal passed `Limits.max_text_bytes`, no more of either is
    // kept.
    text_over: Merged,
    finish_reason: Option<Vec<u8>>,
    finish_kind: Option<FinishKind>,
    cut: bool,
    calls: Vec<usize>,
    pending: Vec<usize>,
    // Looked up on every fragment: Fx instead of SipHash (2.4% of a stream's time in the profile). Its lack of
    // flood resistance is harmless here: the maps hold at most Limits.max_calls entries (a refused call adds none).
    by_index: FxHashMap<i64, usize>,
    by_id: FxHashMap<Vec<u8>, usize>,
    // The latest call opened in this choice was refused (past `Limits.max_calls`): a fragment with neither index nor
    // id goes to it.
    refused: bool,
}

/// Where a call-level finding goes once the call may already have been handed over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    /// On the call while held, on the stream once handed over.
    Live,
    /// On the call: it is being handed over now.
    Settling,
}

/// Location details of a finding.
#[derive(Default)]
struct Detail {
    path: Option<String>,
    offset: Option<u64>,
    data: Option<ViolationData>,
}

/// Slots keyed by stream position, each with an incremental scanner.
#[derive(Debug)]
pub struct Accumulator {
    config: Config,
    // With the room for one call `open` gives a stream's first (a vector grows to room for four) and one choice in
    // one allocation (`Choices`), a stream held 8 KiB before its first argument byte, 5.5 KiB since: what a server
    // holding thousands of streams at once pays for each.
    choices: Choices<Choice>,
    calls: Vec<Call>,
    ready: Vec<HandedOver>,
    stream_violations: Vec<Violation>,
    // The stream's one `TOO_MANY_CALLS`, `TOO_MANY_CHOICES` and `OUTPUT_TOO_LARGE`.
    refusals: Merged,
    choices_refused: Merged,
    output_over: Merged,
    // What the output kept, as `admit_output` counts it.
    output_bytes: usize,
    log: Vec<Violation>,
    // Violations logged since the stream began, taken or not: the position of each in the order found.
    logged: usize,
    steps: Vec<Step>,
    errored: bool,
    // The format sends each call's final text (Responses `.done`): handed-over calls keep a digest to compare it with.
    final_texts: bool,
    ended: bool,
    // The dialect parsers of the stream's text (`Config.text_calls`), and what they made. Boxed: most streams have
    // none, and each would carry its room inline (192 bytes).
    text_calls: Option<Box<TextCalls>>,
}

impl Accumulator {
    /// An empty stream.
    pub fn new(config: Config) -> Self {
        Self {
            text_calls: config.text_calls.clone().map(TextCalls::new).map(Box::new),
            config,
            choices: Choices::default(),
            calls: Vec::new(),
            ready: Vec::new(),
            stream_violations: Vec::new(),
            refusals: Merged::None,
            choices_refused: Merged::None,
            output_over: Merged::None,
            output_bytes: 0,
            log: Vec::new(),
            logged: 0,
            steps: Vec::new(),
            errored: false,
            final_texts: false,
            ended: false,
        }
    }

    // ------------------------------------------------------------------------------------------------ input

    /// Apply one tool-call delta of one choice; returns the seq of the call it went to (`REFUSED` for a call past
    /// `Limits.max_calls`, or a choice past `Limits.max_choices`).
    pub fn fragment(&mut self, choice: i64, fragment: &Fragment<'_>) -> usize {
        let call = self.receive(choice, fragment, Self::match_call);
        self.hand_over_if_complete(call);
        call
    }

    /// A call that arrives whole (Gemini, Ollama): always a new call, over at once; returns its seq.
    pub fn whole_call(&mut self, choice: i64, fragment: &Fragment<'_>) -> usize {
        let call = self.receive(choice, fragment, Self::open);
        self.end_seq(call);
        call
    }

    /// A call whose later fragments are addressed to it by seq (Gemini streamed arguments): always a new call, never
    /// matched to an earlier one (no `MISSING_INDEX`), open until [`Accumulator::end_seq`]; returns its seq.
    pub fn open_call(&mut self, choice: i64, fragment: &Fragment<'_>) -> usize {
        let call = self.receive(choice, fragment, Self::open);
        self.hand_over_if_complete(call);
        call
    }

    /// Applies a fragment of `choice` to the call `pick` finds or opens for it, once the choice's other calls that are
    /// settled are handed over; returns the call's seq, or `REFUSED` past a limit (which `hand_over_if_complete` and
    /// `end_seq` ignore).
    ///
    /// Generic over `pick` (each method its own type), so that the call is static, as it was written out in each.
    #[inline]
    fn receive(
        &mut self,
        choice: i64,
        fragment: &Fragment<'_>,
        pick: impl FnOnce(&mut Self, i64, &Fragment<'_>) -> usize,
    ) -> usize {
        if !self.admitted(choice) {
            return REFUSED;
        }
        let call = pick(self, choice, fragment);
        self.hand_over_others(choice, call);
        self.apply(call, fragment);
        call
    }

    /// Applies a fragment to the call `seq` (opened by [`Accumulator::open_call`]); its `index` is not read.
    pub fn fragment_to(&mut self, seq: usize, fragment: &Fragment<'_>) {
        let Some(choice) = self.calls.get(seq).map(|call| call.choice) else {
            self.refused_fragment();
            return;
        };
        self.hand_over_others(choice, seq);
        self.apply(seq, fragment);
        self.hand_over_if_complete(seq);
    }

    /// A decoder's finding on the call `seq` (a streamed argument it could not place).
    pub fn call_violation(&mut self, seq: usize, code: ViolationCode, message: String, path: Option<String>) {
        let detail = Detail {
            path,
            ..Detail::default()
        };
        self.report(seq, code, message, detail, Target::Live);
    }

    /// The stream's limits.
    pub fn limits(&self) -> Limits {
        self.config.limits
    }

    /// The provider's explicit end of the latest call of `choice` opened with `index` (Anthropic
    /// `content_block_stop`, Responses `.done`, Bedrock `contentBlockStop`).
    pub fn end_call(&mut self, choice: i64, index: i64) {
        if let Some(call) = self.by_index(choice, index) {
            self.end_seq(call);
        }
    }

    /// The final arguments text of the call with `index`, which wins over its deltas (Responses `.done`).
    pub fn done_arguments(&mut self, choice: i64, index: i64, text: &[u8]) {
        self.final_texts = true;
        let Some(call) = self.by_index(choice, index) else {
            let fragment = Fragment {
                index: Some(index),
                arguments: Some(text),
                ..Fragment::default()
            };
            self.fragment(choice, &fragment);
            return;
        };
        let Some(state) = self.calls.get_mut(call) else { return };
        if state.received == 0 {
            self.append(call, text);
            self.hand_over_if_complete(call);
            return;
        }
        let same = match state.handed_text {
            Some(digest) => digest == text_digest(text),
            None => state.buffer == text,
        };
        if state.over_limit || same {
            return;
        }
        let message = format!(
            "the final arguments ({} bytes) differ from the {} bytes the deltas brought; the final text is used",
            text.len(),
            state.received
        );
        let replace = state.stage != Stage::HandedOver;
        self.report(
            call,
            ViolationCode::ARGUMENTS_MISMATCH,
            message,
            Detail::default(),
            Target::Live,
        );
        if !replace {
            return;
        }
        let max_depth = self.config.limits.max_depth;
        let Some(state) = self.calls.get_mut(call) else { return };
        state
            .violations
            .retain(|violation| !REPLACED_WITH_THE_TEXT.contains(&violation.code));
        if matches!(
            state.trailing,
            Merged::At { on_stream: false, .. } | Merged::Omitted { on_stream: false }
        ) {
            state.trailing = Merged::None; // it went with the replaced text
        }
        state.scanner = Scanner::new(max_depth);
        state.buffer.clear();
        state.received = 0;
        state.over_limit = false;
        state.stage = Stage::Open;
        self.append(call, text);
        self.hand_over_if_complete(call);
    }

    /// A second generation spliced into the stream (Anthropic: another `message_start` with another id).
    pub fn spliced(&mut self, first: &[u8], second: &[u8]) {
        let message = format!(
            "a second message {:?} started inside message {:?}: two generations in one stream",
            shown(second),
            shown(first)
        );
        self.report_stream(ViolationCode::STREAM_SPLICED, message, None, None, None, None);
    }

    /// No event of the stream was understood (`events` read; the format named, if one was): `UNRECOGNIZED_STREAM`.
    pub fn unrecognized(&mut self, message: &str, events: u64, format: Option<&str>) {
        let data = serde_json::json!({"events": events, "format": format});
        self.report_stream(
            ViolationCode::UNRECOGNIZED_STREAM,
            message.to_owned(),
            None,
            None,
            None,
            Some(ViolationData::Json(data)),
        );
    }

    /// The format sends each call's final text (`done_arguments`), possibly after the call was handed over.
    pub fn expect_final_texts(&mut self) {
        self.final_texts = true;
    }

    /// How many calls were opened so far.
    pub fn calls_opened(&self) -> usize {
        self.calls.len()
    }

    /// Append content text to a choice: kept while the choice's text stays within `Limits.max_text_bytes`; the text
    /// that would take it past, and all of the choice's text after, is counted by its `TEXT_TOO_LARGE`.
    fn keep_text(&mut self, choice: i64, text: &[u8]) {
        if !self.within_text_budget(choice, text) {
            return;
        }
        let Some(state) = self.choices.get_mut(choice) else {
            return;
        };
        state.text.extend_from_slice(text);
        if self.config.log_steps {
            self.steps.push(Step::Text {
                choice,
                text: text.to_vec(),
            });
        }
    }

    /// What a choice says when it refuses (chat `delta.refusal`, Responses `response.refusal.delta`): kept apart
    /// from its content text, within the same `Limits.max_text_bytes` as that text, and never read for calls.
    pub fn refusal(&mut self, choice: i64, text: &[u8]) {
        if !self.within_text_budget(choice, text) {
            return;
        }
        if let Some(state) = self.choices.get_mut(choice) {
            state.refusal.extend_from_slice(text);
        }
    }

    /// Whether `text` (not empty) may be kept for `choice`: the choice is admitted and its text and refusal stay
    /// within `Limits.max_text_bytes` with it. What would take them past, and all of either after, is counted by the
    /// choice's `TEXT_TOO_LARGE`.
    fn within_text_budget(&mut self, choice: i64, text: &[u8]) -> bool {
        let limits = self.config.limits;
        let Some(state) = self.choices.admitted(choice, limits.max_choices) else {
            return false;
        };
        if text.is_empty() {
            return false;
        }
        if state.text_over != Merged::None
            || state.text.len() + state.refusal.len() + text.len() > limits.max_text_bytes
        {
            self.text_too_large(choice, text.len());
            return false;
        }
        true
    }

    /// Note that a choice appeared, even with nothing in it (a format of one choice).
    pub fn touch(&mut self, choice: i64) {
        self.admitted(choice);
    }

    /// An entry of `choice` begins (a chunk's `choices` item, a Gemini candidate): whether it is read. It is not when
    /// the choice is new and the stream has `Limits.max_choices` already: nothing of it is kept, and the stream's one
    /// `TOO_MANY_CHOICES` counts its entries.
    pub fn choice_entry(&mut self, choice: i64) -> bool {
        if self.admitted(choice) {
            return true;
        }
        let past = Past {
            code: ViolationCode::TOO_MANY_CHOICES,
            choice: None,
            limit: self.config.limits.max_choices,
            unit: "entries",
        };
        self.choices_refused = self.count(self.choices_refused, &past, 1, || {
            format!(
                "more than {} choices in one stream (Limits.max_choices): the entries of the choices past it are not \
                 read; `data` counts them",
                past.limit
            )
        });
        false
    }

    /// Whether `bytes` more of output are kept (an item, a value or text a decoder would keep, counted as
    /// `Limits.max_output_bytes` says): they are while the output stays within its limit. Once some did not fit,
    /// nothing more is kept, and the stream's one `OUTPUT_TOO_LARGE` counts the bytes left out.
    pub fn admit_output(&mut self, bytes: usize) -> bool {
        let limit = self.config.limits.max_output_bytes;
        if self.output_over == Merged::None && self.output_bytes.saturating_add(bytes) <= limit {
            self.output_bytes += bytes;
            return true;
        }
        let past = Past {
            code: ViolationCode::OUTPUT_TOO_LARGE,
            choice: None,
            limit,
            unit: "bytes",
        };
        self.output_over = self.count(self.output_over, &past, bytes as u64, || {
            format!(
                "the output passed {limit} bytes (Limits.max_output_bytes): what came after was counted, not kept; \
                 `data` counts its bytes"
            )
        });
        false
    }

    /// Whether some output was left out (`OUTPUT_TOO_LARGE`).
    pub fn output_is_over(&self) -> bool {
        self.output_over != Merged::None
    }

    /// A non-null finish reason for a choice, of the class its decoder gives it.
    pub fn finish(&mut self, choice: i64, reason: &[u8], kind: FinishKind) {
        let Some(state) = self.choices.admitted(choice, self.config.limits.max_choices) else {
            return;
        };
        if let Some(first) = &state.finish_reason {
            let message = format!(
                "choice {choice} finished again with {:?} after {:?}; the first one stands",
                shown(reason),
                shown(first)
            );
            self.report_stream(
                ViolationCode::MULTIPLE_FINISH_REASONS,
                message,
                Some(choice),
                None,
                None,
                None,
            );
        } else {
            state.finish_reason = Some(reason.to_vec());
            state.finish_kind = Some(kind);
        }
        if kind == FinishKind::Cut {
            self.cut(choice, &format!("finish_reason {:?}", shown(reason)), true);
        } else if self.config.emit != Emit::StreamEnd {
            for call in self.pending(choice) {
                if self.calls.get(call).is_some_and(|call| call.settled() || call.empty()) {
                    self.hand_over(call);
                }
            }
        }
    }

    /// An error event: reported with its payload (held by the caller as `payload`), and every choice is cut.
    ///
    /// Returns whether its `PROVIDER_ERROR` was kept: past `Limits.max_violations` it is only counted, and the caller
    /// need not hold the payload.
    pub fn provider_error(&mut self, payload: usize, brief: &str) -> bool {
        let message = format!("the provider sent an error event: {brief}");
        let kept = self.report_stream(
            ViolationCode::PROVIDER_ERROR,
            message,
            None,
            None,
            None,
            Some(ViolationData::External(payload)),
        );
        if !self.errored {
            self.errored = true;
            let choices: Vec<i64> = self.choices.numbers().collect();
            for choice in choices {
                self.cut(choice, "an error event", false);
            }
        }
        kept
    }

    /// The stream ended: every call not yet handed over is, then the stream-level findings are settled.
    pub fn end(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.finish_text_calls();
        let remaining: Vec<usize> = self
            .choices
            .values()
            .flat_map(|choice| choice.pending.iter().copied())
            .collect();
        for call in remaining {
            if let Some(state) = self.calls.get_mut(call) {
                state.scanner.finish();
            }
            self.hand_over(call);
        }
        self.settle_stream();
    }

    // ----------------------------------------------------------------------------------------------- output

    /// The calls handed over since the last take, in hand-over order.
    pub fn take_ready(&mut self) -> Vec<HandedOver> {
        std::mem::take(&mut self.ready)
    }

    /// Whether any call is waiting to be taken.
    pub fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// The progress since the last take (only with `log_steps`).
    pub fn take_steps(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.steps)
    }

    /// A call's identity as it stands (None for a seq not opened).
    pub fn identity(&self, seq: usize) -> Option<Identity<'_>> {
        self.calls.get(seq).map(|call| Identity {
            choice: call.choice,
            index: call.index,
            id: call.id.as_deref(),
            name: call.name.as_deref(),
        })
    }

    /// Every violation found since the last take (only with `log_violations`).
    pub fn take_log(&mut self) -> Vec<Violation> {
        std::mem::take(&mut self.log)
    }

    /// Stream-level violations so far.
    pub fn stream_violations(&self) -> &[Violation] {
        &self.stream_violations
    }

    /// Every choice seen, in order.
    pub fn choices(&self) -> Vec<ChoiceSummary> {
        self.choices
            .iter()
            .map(|(number, choice)| ChoiceSummary {
                choice: number,
                text: choice.text.clone(),
                refusal: choice.refusal.clone(),
                finish_reason: choice.finish_reason.clone(),
            })
            .collect()
    }

    /// Whether the stream has ended.
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// Whether `choice` is one of the stream's (opened now if it is new and there is room for it).
    fn admitted(&mut self, choice: i64) -> bool {
        self.choices.admitted(choice, self.config.limits.max_choices).is_some()
    }

    // --------------------------------------------------------------------------------------- call identity

    fn match_call(&mut self, choice: i64, fragment: &Fragment<'_>) -> usize {
        let call_id = value_or_none(fragment.id);
        if let Some(index) = fragment.index {
            let current = self
                .choices
                .get(choice)
                .and_then(|state| state.by_index.get(&index))
                .copied();
            let Some(current) = current else {
                return self.open(choice, fragment);
            };
            let Some(state) = self.calls.get_mut(current) else {
                return self.open(choice, fragment);
            };
            if let (Some(new_id), Some(old_id)) = (call_id, state.id.as_deref())
                && new_id != old_id
            {
                let old_id = old_id.to_vec();
                if state.closed() || value_or_none(fragment.name).is_some() {
                    let call = self.open(choice, fragment);
                    let message = format!(
                        "index {index} was reused by a new call {:?} (after {:?})",
                        shown(new_id),
                        shown(&old_id)
                    );
                    self.report(
                        call,
                        ViolationCode::INDEX_REUSED,
                        message,
                        Detail::default(),
                        Target::Live,
                    );
                    return call;
                }
                if state.first_time(true, new_id, self.config.limits.max_violations) {
                    let message = format!(
                        "id changed from {:?} to {:?} in the middle of the arguments; the first id is kept",
                        shown(&old_id),
                        shown(new_id)
                    );
                    self.report(
                        current,
                        ViolationCode::ID_CHANGED,
                        message,
                        Detail::default(),
                        Target::Live,
                    );
                }
            }
            return current;
        }
        let known = call_id.and_then(|id| self.choices.get(choice).and_then(|state| state.by_id.get(id)).copied());
        let latest = self.choices.get(choice).and_then(|state| {
            if state.refused {
                Some(REFUSED)
            } else {
                state.calls.last().copied()
            }
        });
        let call = match (call_id, known, latest) {
            (Some(_), Some(known), _) => known,
            (None, _, Some(latest)) => latest,
            _ => self.open(choice, fragment),
        };
        if let Some(state) = self.calls.get_mut(call)
            && !state.missing_index_reported
        {
            state.missing_index_reported = true;
            let message = "a fragment of this call came without an index".to_owned();
            self.report(
                call,
                ViolationCode::MISSING_INDEX,
                message,
                Detail::default(),
                Target::Live,
            );
        }
        call
    }

    fn open(&mut self, choice: i64, fragment: &Fragment<'_>) -> usize {
        let seq = self.calls.len();
        if seq >= self.config.limits.max_calls {
            return self.refuse(choice, fragment.index);
        }
        if self.calls.is_empty() {
            self.calls.reserve_exact(1); // most streams make one call (see `calls`)
        }
        self.calls.push(Call {
            seq,
            choice,
            index: fragment.index,
            scanner: Scanner::new(self.config.limits.max_depth),
            id: None,
            name: None,
            buffer: Vec::new(),
            received: 0,
            over_limit: false,
            missing_index_reported: false,
            changed: None,
            violations: Vec::new(),
            stage: Stage::Open,
            extra: Vec::new(),
            handed_text: None,
            reading: if fragment.judged {
                Reading::Judged
            } else if fragment.free_text {
                Reading::FreeText
            } else {
                Reading::Json
            },
            trailing: Merged::None,
        });
        if let Some(state) = self.choices.opened(choice) {
            state.calls.push(seq);
            state.pending.push(seq);
            if let Some(index) = fragment.index {
                state.by_index.insert(index, seq);
            }
        }
        if self.config.log_steps {
            self.steps.push(Step::Opened { seq });
        }
        if value_or_none(fragment.kind).is_none() {
            let message = "the call's first fragment has no type".to_owned();
            self.report(
                seq,
                ViolationCode::TYPE_MISSING,
                message,
                Detail::default(),
                Target::Live,
            );
        }
        seq
    }

    /// A call past `Limits.max_calls`: nothing of it is kept, and it adds no entry to any map. It is the choice's
    /// latest call, and the latest with its index: a call kept before it with that index no longer gets fragments by
    /// it (they are the refused call's, and so refused too).
    #[cold]
    fn refuse(&mut self, choice: i64, index: Option<i64>) -> usize {
        if let Some(state) = self.choices.opened(choice) {
            state.refused = true;
            if let Some(index) = index {
                state.by_index.remove(&index);
            }
        }
        REFUSED
    }

    /// A fragment of a refused call: counted by the stream's one `TOO_MANY_CALLS`.
    #[cold]
    fn refused_fragment(&mut self) {
        let past = Past {
            code: ViolationCode::TOO_MANY_CALLS,
            choice: None,
            limit: self.config.limits.max_calls,
            unit: "fragments",
        };
        self.refusals = self.count(self.refusals, &past, 1, || {
            format!(
                "more than {} calls in one stream (Limits.max_calls): the calls past it are refused and nothing of \
                 them is kept; `data` counts their fragments",
                past.limit
            )
        });
    }

    /// The choice's text passed `Limits.max_text_bytes`: `bytes` more counted by its `TEXT_TOO_LARGE`.
    #[cold]
    fn text_too_large(&mut self, choice: i64, bytes: usize) {
        let Some(merged) = self.choices.get(choice).map(|state| state.text_over) else {
            return;
        };
        let past = Past {
            code: ViolationCode::TEXT_TOO_LARGE,
            choice: Some(choice),
            limit: self.config.limits.max_text_bytes,
            unit: "bytes",
        };
        let merged = self.count(merged, &past, bytes as u64, || {
            format!(
                "the text of choice {choice} passed {} bytes (Limits.max_text_bytes): the rest was counted, not kept; \
                 `data` counts its bytes",
                past.limit
            )
        });
        if let Some(state) = self.choices.get_mut(choice) {
            state.text_over = merged;
        }
    }

    fn apply(&mut self, call: usize, fragment: &Fragment<'_>) {
        let Some(state) = self.calls.get_mut(call) else {
            self.refused_fragment();
            return;
        };
        for (key, value) in fragment.extra {
            if !state.extra.iter().any(|(kept, _)| kept == key) {
                state.extra.push((key, value.to_vec()));
            }
        }
        if let Some(new_id) = value_or_none(fragment.id)
            && state.id.is_none()
        {
            state.id = Some(new_id.to_vec());
            let choice = state.choice;
            if let Some(state) = self.choices.opened(choice) {
                state.by_id.insert(new_id.to_vec(), call);
            }
        }
        if let Some(name) = value_or_none(fragment.name)
            && let Some(state) = self.calls.get_mut(call)
        {
            match &state.name {
                None => state.name = Some(name.to_vec()),
                Some(first) if first != name => {
                    let first = first.clone();
                    if state.first_time(false, name, self.config.limits.max_violations) {
                        let message = format!(
                            "name changed from {:?} to {:?}; the first name is kept",
                            shown(&first),
                            shown(name)
                        );
                        self.report(
                            call,
                            ViolationCode::NAME_CHANGED,
                            message,
                            Detail::default(),
                            Target::Live,
                        );
                    }
                }
                Some(_) => {}
            }
        }
        if fragment.arguments_was_value {
            let message = "arguments came as a JSON value where the wire format promises a string; its canonical \
                           text is used"
                .to_owned();
            self.report(
                call,
                ViolationCode::ARGUMENTS_NOT_STRING,
                message,
                Detail::default(),
                Target::Live,
            );
        }
        if let Some(data) = fragment.arguments {
            self.append(call, data);
        }
    }

    // ------------------------------------------------------------------------------------------- arguments

    fn append(&mut self, call: usize, data: &[u8]) {
        let limits = self.config.limits;
        let Some(state) = self.calls.get_mut(call) else { return };
        let start = state.received;
        state.received += data.len() as u64;
        if state.stage != Stage::Open {
            self.trailing(call, start, data);
            return;
        }
        let mut too_large_at = None;
        if !state.over_limit {
            if state.buffer.len() + data.len() > limits.max_argument_bytes {
                state.over_limit = true;
                state.scanner.stop_tracking_keys();
                too_large_at = Some(state.buffer.len() as u64);
            } else {
                state.buffer.extend_from_slice(data);
                if self.config.log_steps && !data.is_empty() {
                    self.steps.push(Step::Arguments {
                        seq: call,
                        bytes: data.to_vec(),
                    });
                }
            }
        }
        let unscanned = state.reading != Reading::Json;
        if let Some(offset) = too_large_at {
            self.too_large(call, offset);
        }
        if unscanned {
            return; // free text, and text a dialect parser judged, is kept as it came: nothing to scan
        }
        let Some(state) = self.calls.get_mut(call) else { return };
        let scanner = &mut state.scanner;
        let was_invalid = matches!(scanner.state(), ScanState::Invalid(_));
        // Pointers are built only for the duplicates the call has room to keep: the rest are counted.
        scanner.limit_duplicate_keys(kept::room(&state.violations, limits.max_violations));
        let after = scanner.feed(data);
        let (duplicates, past_limit) = if scanner.has_duplicate_keys() {
            (scanner.take_duplicate_keys(), scanner.take_duplicate_keys_past_limit())
        } else {
            (Vec::new(), 0)
        };
        for duplicate in duplicates {
            let message = format!(
                "the key at {} appears more than once in its object; the last value wins",
                duplicate.path
            );
            let detail = Detail {
                path: Some(duplicate.path),
                offset: Some(duplicate.offset),
                data: None,
            };
            self.report(call, ViolationCode::DUPLICATE_KEY, message, detail, Target::Live);
        }
        self.omit(call, past_limit);
        if let ScanState::Invalid(error) = after
            && !was_invalid
        {
            let (code, message) = scan_finding(error.kind, error.offset, limits.max_depth);
            let detail = Detail {
                offset: Some(error.offset),
                ..Detail::default()
            };
            self.report(call, code, message, detail, Target::Live);
        }
    }

    /// Arguments for a call that is over (ended, or handed over): one `TRAILING_DATA` where it lands (on the call
    /// while it is held, on the stream once it was handed over), grown by every later fragment: their text kept up to
    /// `Limits.max_argument_bytes`, their bytes and fragments counted. Whitespace alone before it is allowed.
    #[cold]
    fn trailing(&mut self, call: usize, start: u64, data: &[u8]) {
        let cap = self.config.limits.max_argument_bytes;
        let Some(state) = self.calls.get_mut(call) else { return };
        let handed_over = state.stage == Stage::HandedOver;
        // One on the call goes with it when it is handed over: what arrives from then on makes the stream's.
        match state.trailing {
            Merged::At { on_stream, index } if on_stream == handed_over => {
                let list = if on_stream {
                    &mut self.stream_violations
                } else {
                    &mut state.violations
                };
                if let Some(Violation {
                    data: Some(ViolationData::Trailing { text, bytes, fragments }),
                    ..
                }) = list.get_mut(index)
                {
                    let room = cap.saturating_sub(text.len()).min(data.len());
                    text.extend_from_slice(data.get(..room).unwrap_or_default());
                    *bytes += data.len() as u64;
                    *fragments += 1;
                }
                return;
            }
            Merged::Omitted { on_stream } if on_stream == handed_over => return,
            Merged::At { .. } | Merged::Omitted { .. } | Merged::None => {}
        }
        let leading = data
            .iter()
            .take_while(|byte| matches!(byte, b' ' | b'\t' | b'\r' | b'\n'))
            .count();
        if leading == data.len() {
            return;
        }
        let on_stream = handed_over;
        let message = format!(
            "arguments arrived after the call was {}; `data` holds their text (up to Limits.max_argument_bytes), \
             bytes and fragments",
            if on_stream { "handed over" } else { "over" }
        );
        let mut violation = Violation::new(ViolationCode::TRAILING_DATA, message);
        let scope = state.scope();
        (violation.choice, violation.seq, violation.index) = (scope.choice, scope.seq, scope.index);
        violation.offset = Some(start + leading as u64);
        violation.data = Some(ViolationData::Trailing {
            text: data.get(..cap.min(data.len())).unwrap_or_default().to_vec(),
            bytes: data.len() as u64,
            fragments: 1,
        });
        let kept = self.file(call, violation, on_stream);
        if let Some(state) = self.calls.get_mut(call) {
            state.trailing = match kept {
                Some(index) => Merged::At { on_stream, index },
                None => Merged::Omitted { on_stream },
            };
        }
    }

    #[cold]
    fn too_large(&mut self, call: usize, offset: u64) {
        let message = format!(
            "arguments exceed {} bytes (Limits.max_argument_bytes); the rest is checked but not kept",
            self.config.limits.max_argument_bytes
        );
        let detail = Detail {
            offset: Some(offset),
            ..Detail::default()
        };
        self.report(call, ViolationCode::ARGUMENTS_TOO_LARGE, message, detail, Target::Live);
    }

    // ------------------------------------------------------------------------------------------- hand-over

    fn by_index(&self, choice: i64, index: i64) -> Option<usize> {
        self.choices
            .get(choice)
            .and_then(|state| state.by_index.get(&index))
            .copied()
    }

    fn hand_over_if_complete(&mut self, call: usize) {
        if self.config.emit == Emit::Complete
            && let Some(current) = self.calls.get(call)
            && current.stage != Stage::HandedOver
            && current.closed()
        {
            self.hand_over(call);
        }
    }

    /// The call `call` (a seq) is over: its value can no longer grow, and unless every call waits for the end it is
    /// handed over (a decoder's explicit end by seq, as [`Accumulator::end_call`] is by index).
    pub fn end_seq(&mut self, call: usize) {
        let Some(state) = self.calls.get_mut(call) else { return };
        if state.stage != Stage::Open {
            return;
        }
        state.stage = Stage::Ended;
        state.scanner.finish();
        if self.config.emit != Emit::StreamEnd {
            self.hand_over(call);
        }
    }

    fn pending(&self, choice: i64) -> Vec<usize> {
        self.choices
            .get(choice)
            .map(|state| state.pending.clone())
            .unwrap_or_default()
    }

    fn hand_over_others(&mut self, choice: i64, current: usize) {
        if self.config.emit == Emit::StreamEnd {
            return;
        }
        let Some(state) = self.choices.get(choice) else { return };
        // The common case is one pending call, the current one: nothing to do and no allocation.
        if state.pending.iter().all(|call| *call == current) {
            return;
        }
        for call in self.pending(choice) {
            if call != current && self.calls.get(call).is_some_and(Call::settled) {
                self.hand_over(call);
            }
        }
    }

    fn cut(&mut self, choice: i64, because: &str, seqless: bool) {
        let Some(state) = self.choices.get_mut(choice) else {
            return;
        };
        if state.cut {
            return;
        }
        state.cut = true;
        let handed: Vec<(usize, Option<i64>)> = state
            .calls
            .iter()
            .filter_map(|call| self.calls.get(*call))
            .filter(|call| call.stage == Stage::HandedOver)
            .map(|call| (call.seq, call.index))
            .collect();
        for (seq, index) in &handed {
            let message = format!("the stream was cut ({because}) after call seq={seq} was handed over");
            self.report_stream(
                ViolationCode::STREAM_CUT,
                message,
                Some(choice),
                Some(*seq),
                *index,
                None,
            );
        }
        if seqless && handed.is_empty() {
            let message = format!("the stream was cut ({because})");
            self.report_stream(ViolationCode::STREAM_CUT, message, Some(choice), None, None, None);
        }
        if self.config.emit != Emit::StreamEnd {
            for call in self.pending(choice) {
                self.hand_over(call);
            }
        }
    }

    fn hand_over(&mut self, call: usize) {
        let cut = self.errored;
        let Some(state) = self.calls.get_mut(call) else { return };
        let ended = state.stage == Stage::Ended;
        state.stage = Stage::HandedOver;
        let choice = state.choice;
        let seq = state.seq;
        if self.config.log_steps {
            self.steps.push(Step::HandedOver { seq });
        }
        if let Some(choice_state) = self.choices.get_mut(choice) {
            choice_state.pending.retain(|pending| *pending != call);
        }
        let cut = cut || self.choices.get(choice).is_some_and(|state| state.cut);
        let Some(state) = self.calls.get_mut(call) else { return };
        let mut findings: Vec<(ViolationCode, String, Detail)> = Vec::new();
        if state.id.is_none() {
            let generated = format!("ts_{choice}_{seq}");
            findings.push((
                ViolationCode::MISSING_ID,
                format!("no id arrived; {generated:?} was generated"),
                Detail::default(),
            ));
            state.id = Some(generated.into_bytes());
        }
        if state.name.is_none() {
            findings.push((
                ViolationCode::MISSING_NAME,
                "no name arrived for this call".to_owned(),
                Detail::default(),
            ));
        }
        let mut arguments = Arguments::Absent;
        let mut is_object = false;
        if state.reading == Reading::Judged {
            // A dialect parser judged the text (its findings are on the call): it is no arguments value.
        } else if state.reading == Reading::FreeText {
            arguments = Arguments::Text;
            findings.extend(unended_text(state.received, ended));
        } else {
            let scanner = &state.scanner;
            if scanner.is_started() {
                match scanner.state() {
                    ScanState::Complete { .. } if !state.over_limit => {
                        arguments = Arguments::Value;
                        is_object = scanner.root_kind() == Some(ValueKind::Object);
                        if let Some(kind) = scanner.root_kind()
                            && kind != ValueKind::Object
                        {
                            let message = format!("the arguments are a JSON {}, not an object", kind.as_str());
                            findings.push((ViolationCode::ARGUMENTS_NOT_OBJECT, message, Detail::default()));
                        }
                    }
                    ScanState::Incomplete => {
                        let message = format!(
                            "the arguments stopped after {} bytes with the JSON value still open",
                            state.received
                        );
                        let detail = Detail {
                            offset: Some(state.received),
                            ..Detail::default()
                        };
                        findings.push((ViolationCode::TRUNCATED, message, detail));
                    }
                    ScanState::Complete { .. } | ScanState::Invalid(_) => {}
                }
            } else {
                arguments = Arguments::Empty;
                is_object = true;
                let message = "the call came without arguments".to_owned();
                findings.push((ViolationCode::EMPTY_ARGUMENTS, message, Detail::default()));
            }
        }
        if cut {
            let message = "the stream was cut before this call was over".to_owned();
            findings.push((ViolationCode::STREAM_CUT, message, Detail::default()));
        }
        for (code, message, detail) in findings {
            self.report(call, code, message, detail, Target::Settling);
        }
        if let Some(validators) = self.config.validators.clone() {
            self.validate(call, &validators, arguments, is_object);
        }
        let Some(state) = self.calls.get_mut(call) else { return };
        // A final text (Responses `.done`) may come after the call was handed over (its value closed under
        // `emit="complete"`, or another call's fragment came first): it is compared with this digest. Only formats
        // that send one pay for it, not the per-call hot path of the others.
        if self.final_texts {
            state.handed_text = Some(text_digest(&state.buffer));
        }
        self.ready.push(HandedOver {
            seq,
            choice,
            index: state.index,
            id: state.id.clone().unwrap_or_default(),
            name: state.name.clone(),
            arguments,
            arguments_json: std::mem::take(&mut state.buffer),
            violations: std::mem::take(&mut state.violations),
            extra: std::mem::take(&mut state.extra),
            log_position: self.logged,
        });
    }

    /// Checks a call being handed over against the declared tools: its name always, its arguments when they are a
    /// whole JSON object (an absent value is checked as `{}`, the value the call will carry).
    fn validate(&mut self, call: usize, validators: &ToolValidators, arguments: Arguments, is_object: bool) {
        let Some(state) = self.calls.get(call) else { return };
        let Some(name) = &state.name else { return };
        // A name that is not UTF-8 (lone surrogates passed through) cannot be a declared one.
        let name = String::from_utf8_lossy(name);
        let found = if let Some(unknown) = validators.unknown_tool(&name) {
            vec![unknown]
        } else if !is_object {
            return;
        } else if arguments == Arguments::Empty {
            validators.validate(&name, b"{}")
        } else {
            validators.validate(&name, &state.buffer)
        };
        for violation in found {
            self.adopt(call, violation);
        }
    }

    // ---------------------------------------------------------------------------------------- end of stream

    fn settle_stream(&mut self) {
        if self.choices.is_empty() && !self.is_text_source() {
            let message = "the stream carried no choice and no finish reason".to_owned();
            self.report_stream(ViolationCode::NO_FINISH_REASON, message, None, None, None, None);
        }
        let mut findings: Vec<(ViolationCode, String, i64, Option<Severity>)> = Vec::new();
        let wanted = &self.config.tool_choice;
        for (number, choice) in self.choices.iter() {
            let names: Vec<Option<&[u8]>> = choice
                .calls
                .iter()
                .filter_map(|call| self.calls.get(*call))
                .map(|call| call.name.as_deref())
                .collect();
            let has_calls = !names.is_empty();
            // Calls read out of the text are none the server knew of: its finish cannot have told them.
            let sent_calls = names.len() - self.text_calls.as_ref().map_or(0, |text| text.calls_of(number));
            let reason = choice.finish_reason.as_deref().map(shown);
            match (choice.finish_kind, reason) {
                (None, _) | (_, None) if self.is_text_source() => {}
                (None, _) | (_, None) => findings.push((
                    ViolationCode::NO_FINISH_REASON,
                    format!("choice {number} ended without a finish reason"),
                    number,
                    None,
                )),
                (Some(FinishKind::Stop), Some(reason)) if sent_calls > 0 => {
                    let function_named = wanted.name.is_some();
                    let mut message = format!(
                        "choice {number} finished with {reason:?} but carries {} call(s)",
                        names.len()
                    );
                    if function_named {
                        message.push_str(" (expected: OpenAI sends 'stop' when tool_choice names a function)");
                    }
                    let severity = if function_named {
                        Severity::Info
                    } else {
                        Severity::Warning
                    };
                    findings.push((ViolationCode::FINISH_REASON_MISMATCH, message, number, Some(severity)));
                }
                (Some(FinishKind::Calls), Some(reason)) if !has_calls => findings.push((
                    ViolationCode::FINISH_WITHOUT_CALLS,
                    format!("choice {number} finished with {reason:?} but carries no call"),
                    number,
                    None,
                )),
                (Some(_), Some(_)) => {}
            }
            let wrong_tool = wanted
                .name
                .as_deref()
                .is_some_and(|wanted| names.iter().any(|name| *name != Some(wanted.as_bytes())));
            if wanted.required && (!has_calls || wrong_tool) {
                let demanded = wanted
                    .name
                    .as_ref()
                    .map_or_else(|| "a tool call".to_owned(), |name| format!("a call to {name:?}"));
                let mut brought: Vec<String> = names.iter().map(|name| format!("{:?}", name.map(shown))).collect();
                brought.sort_unstable();
                brought.dedup();
                let brought = if has_calls {
                    brought.join(", ")
                } else {
                    "no call".to_owned()
                };
                let message = format!("tool_choice demanded {demanded}; choice {number} brought {brought}");
                findings.push((ViolationCode::TOOL_CHOICE_IGNORED, message, number, None));
            }
        }
        for (code, message, choice, severity) in findings {
            let mut violation = Violation::new(code, message);
            violation.choice = Some(choice);
            if let Some(severity) = severity {
                violation.severity = severity;
            }
            self.push_stream(violation);
        }
    }

    // ---------------------------------------------------------------------------------------------- reports

    /// Files a violation found outside the accumulator (by the validator) on a call being handed over.
    #[cold]
    fn adopt(&mut self, call: usize, mut violation: Violation) {
        let Some(state) = self.calls.get(call) else { return };
        violation.choice = Some(state.choice);
        violation.seq = Some(state.seq);
        violation.index = state.index;
        self.file(call, violation, false);
    }

    #[cold]
    fn report(&mut self, call: usize, code: ViolationCode, message: String, detail: Detail, target: Target) {
        let Some(state) = self.calls.get(call) else { return };
        let violation = Violation {
            code,
            message,
            severity: code.default_severity(),
            choice: Some(state.choice),
            seq: Some(state.seq),
            index: state.index,
            path: detail.path,
            offset: detail.offset,
            data: detail.data,
        };
        let on_stream = state.stage == Stage::HandedOver && target == Target::Live;
        self.file(call, violation, on_stream);
    }

    /// Files a violation of the call `call` on its list, or (`on_stream`) on the stream's, within
    /// `Limits.max_violations`, and logs what that adds; returns where the violation was kept.
    fn file(&mut self, call: usize, violation: Violation, on_stream: bool) -> Option<usize> {
        if on_stream {
            return self.push_stream(violation);
        }
        let max = self.config.limits.max_violations;
        let state = self.calls.get_mut(call)?;
        let scope = state.scope();
        let filed = kept::keep(&mut state.violations, violation, max, scope);
        let found = filed.added().and_then(|index| state.violations.get(index));
        log(&self.config, &mut self.log, &mut self.logged, found);
        filed.kept()
    }

    /// Counts `count` findings on the call `call` that its list had no room for.
    fn omit(&mut self, call: usize, count: u64) {
        if count == 0 {
            return; // every fragment's case: nothing more to do than this test
        }
        let max = self.config.limits.max_violations;
        let Some(state) = self.calls.get_mut(call) else { return };
        let scope = state.scope();
        let added = kept::omit(&mut state.violations, count, max, scope);
        let found = added.and_then(|index| state.violations.get(index));
        log(&self.config, &mut self.log, &mut self.logged, found);
    }

    /// Counts `count` more on the stream's one finding of a limit, where `merged` says it is, or files it (with
    /// `message`) when it is not there yet; returns where it is now.
    #[cold]
    fn count(&mut self, merged: Merged, past: &Past, count: u64, message: impl FnOnce() -> String) -> Merged {
        match merged {
            Merged::At { index, .. } => {
                if let Some(Violation {
                    data: Some(ViolationData::Counted { count: counted, .. }),
                    ..
                }) = self.stream_violations.get_mut(index)
                {
                    *counted += count;
                }
                merged
            }
            Merged::Omitted { .. } => merged,
            Merged::None => {
                let mut violation = Violation::new(past.code, message());
                violation.choice = past.choice;
                violation.data = Some(ViolationData::Counted {
                    limit: past.limit,
                    unit: past.unit,
                    count,
                });
                match self.push_stream(violation) {
                    Some(index) => Merged::At { on_stream: true, index },
                    None => Merged::Omitted { on_stream: true },
                }
            }
        }
    }

    #[cold]
    fn report_stream(
        &mut self,
        code: ViolationCode,
        message: String,
        choice: Option<i64>,
        seq: Option<usize>,
        index: Option<i64>,
        data: Option<ViolationData>,
    ) -> bool {
        let mut violation = Violation::new(code, message);
        violation.choice = choice;
        violation.seq = seq;
        violation.index = index;
        violation.data = data;
        self.push_stream(violation).is_some()
    }

    /// Files a violation on the stream's list within `Limits.max_violations`; returns where it was kept.
    fn push_stream(&mut self, violation: Violation) -> Option<usize> {
        let max = self.config.limits.max_violations;
        let filed = kept::keep(&mut self.stream_violations, violation, max, Scope::default());
        let found = filed.added().and_then(|index| self.stream_violations.get(index));
        log(&self.config, &mut self.log, &mut self.logged, found);
        filed.kept()
    }
}

/// A limit a stream went past, and what its one finding counts.
struct Past {
    code: ViolationCode,
    choice: Option<i64>,
    limit: usize,
    unit: &'static str,
}

/// Logs a violation just found (with `Config.log_violations`, for an `on_violation` callback).
fn log(config: &Config, log: &mut Vec<Violation>, logged: &mut usize, found: Option<&Violation>) {
    if config.log_violations
        && let Some(violation) = found
    {
        log.push(violation.clone());
        *logged += 1;
    }
}

/// A free-text call is whole only once its end came: handed over before it, it is `TRUNCATED`.
fn unended_text(received: u64, ended: bool) -> Option<(ViolationCode, String, Detail)> {
    if ended {
        return None;
    }
    let message = format!("the input stopped after {received} bytes before the call's end came");
    let detail = Detail {
        offset: Some(received),
        ..Detail::default()
    };
    Some((ViolationCode::TRUNCATED, message, detail))
}

fn text_digest(text: &[u8]) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = rustc_hash::FxHasher::default();
    text.hash(&mut hasher);
    hasher.finish()
}

#[cold]
fn scan_finding(kind: ScanErrorKind, offset: u64, max_depth: u32) -> (ViolationCode, String) {
    let mut message = String::new();
    let code = match kind {
        ScanErrorKind::TooDeep => {
            let _ = write!(
                message,
                "the arguments nest deeper than {max_depth} levels (Limits.max_depth) at byte {offset}"
            );
            ViolationCode::TOO_DEEP
        }
        ScanErrorKind::TrailingData => {
            let _ = write!(
                message,
                "more data follows the complete arguments value at byte {offset}"
            );
            ViolationCode::TRAILING_DATA
        }
        other => {
            let _ = write!(
                message,
                "the arguments are not valid JSON: {} at byte {offset}",
                other.describe()
            );
            ViolationCode::INVALID_JSON
        }
    };
    (code, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accumulator(emit: Emit) -> Accumulator {
        Accumulator::new(Config {
            emit,
            log_violations: true,
            ..Config::default()
        })
    }

    fn open<'a>(index: i64, id: &'a str, name: &'a str, arguments: &'a str) -> Fragment<'a> {
        Fragment {
            index: Some(index),
            id: Some(id.as_bytes()),
            name: Some(name.as_bytes()),
            kind: Some(b"function"),
            arguments: Some(arguments.as_bytes()),
            ..Fragment::default()
        }
    }

    fn more(index: i64, arguments: &str) -> Fragment<'_> {
        Fragment {
            index: Some(index),
            arguments: Some(arguments.as_bytes()),
            ..Fragment::default()
        }
    }

    fn codes(violations: &[Violation]) -> Vec<&'static str> {
        violations.iter().map(|violation| violation.code.as_str()).collect()
    }

    fn validating(schema: &str) -> Accumulator {
        let validators = ToolValidators::compile([("f", schema.as_bytes())])
            .unwrap()
            .with_server_tools(["web_search"]);
        Accumulator::new(Config {
            log_violations: true,
            validators: Some(Arc::new(validators)),
            ..Config::default()
        })
    }

    #[test]
    fn calls_are_checked_against_the_declared_tools_as_they_are_handed_over() {
        let mut stream =
            validating(r#"{"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}"#);
        stream.fragment(0, &open(0, "a", "f", "{\"x\": \"3\"}"));
        stream.fragment(0, &open(1, "b", "g", "{}"));
        stream.fragment(0, &open(2, "c", "f", ""));
        stream.fragment(0, &open(3, "d", "f", "[1]"));
        stream.fragment(0, &open(4, "e", "web_search", "{\"q\": 1}"));
        stream.fragment(0, &open(5, "h", "f", "{\"x\": 3}"));
        stream.finish(0, b"tool_calls", FinishKind::Calls);
        let mut ready = stream.take_ready();
        // The call with no arguments yet waits for the finish (semantics.md), so hand-over order is not seq order.
        ready.sort_by_key(|call| call.seq);
        let found: Vec<Vec<&str>> = ready.iter().map(|call| codes(&call.violations)).collect();
        assert_eq!(
            found,
            [
                vec!["TYPE_MISMATCH"],
                vec!["UNKNOWN_TOOL"],
                vec!["EMPTY_ARGUMENTS", "MISSING_REQUIRED_ARGUMENT"],
                vec!["ARGUMENTS_NOT_OBJECT"],
                vec![],
                vec![],
            ],
            "an absent value is checked as the {{}} it becomes; a non-object is not checked again"
        );
        let mismatch = &ready[0].violations[0];
        assert_eq!(
            (mismatch.choice, mismatch.seq, mismatch.index),
            (Some(0), Some(0), Some(0))
        );
        assert_eq!(mismatch.path.as_deref(), Some("/x"));
        assert!(!ready[0].is_valid());
        let logged = codes(&stream.take_log());
        assert!(logged.contains(&"TYPE_MISMATCH") && logged.contains(&"UNKNOWN_TOOL"));
    }

    #[test]
    fn interleaved_headers_wait_for_their_arguments() {
        let mut stream = accumulator(Emit::CallEnd);
        stream.fragment(0, &open(0, "a", "f", ""));
        stream.fragment(0, &open(1, "b", "g", ""));
        stream.fragment(0, &more(0, "{\"x\": 1}"));
        assert!(
            stream.take_ready().is_empty(),
            "call a has no arguments when b opens, and is still current"
        );
        stream.fragment(0, &more(1, "{\"y\": 2}"));
        let ready = stream.take_ready();
        assert_eq!(ready.iter().map(|call| call.id.as_slice()).collect::<Vec<_>>(), [b"a"]);
        assert!(ready.iter().all(HandedOver::is_valid));
        stream.finish(0, b"tool_calls", FinishKind::Calls);
        assert_eq!(stream.take_ready().iter().map(|call| call.seq).collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn an_index_reused_by_a_new_named_call_opens_it() {
        let mut stream = accumulator(Emit::CallEnd);
        stream.fragment(0, &open(0, "a", "f", "{}"));
        stream.fragment(0, &open(0, "b", "f", "{}"));
        stream.end();
        let ready = stream.take_ready();
        assert_eq!(ready.len(), 2);
        assert_eq!(codes(&ready[1].violations), ["INDEX_REUSED"]);
    }

    #[test]
    fn an_id_changing_mid_value_keeps_the_first() {
        let mut stream = accumulator(Emit::CallEnd);
        stream.fragment(0, &open(0, "a", "f", "{\"x\":"));
        stream.fragment(
            0,
            &Fragment {
                id: Some(b"b"),
                ..more(0, " 1}")
            },
        );
        stream.end();
        let ready = stream.take_ready();
        assert_eq!(ready[0].id, b"a");
        assert_eq!(codes(&ready[0].violations), ["ID_CHANGED"]);
        assert_eq!(ready[0].arguments, Arguments::Value);
    }

    #[test]
    fn data_after_hand_over_goes_to_the_stream_as_one_finding_with_its_text() {
        let limits = Limits {
            max_argument_bytes: 12,
            ..Limits::default()
        };
        let mut stream = with_limits(Emit::Complete, limits);
        stream.fragment(0, &open(0, "a", "f", "{\"x\": 1}"));
        assert_eq!(stream.take_ready().len(), 1);
        stream.fragment(0, &more(0, "   "));
        assert!(
            stream.stream_violations().is_empty(),
            "whitespace after the value is allowed"
        );
        stream.fragment(0, &more(0, "  {\"y\": 2}"));
        stream.fragment(0, &more(0, " "));
        stream.fragment(0, &more(0, "{\"z\": 3}"));
        let [trailing] = stream.stream_violations() else {
            panic!(
                "one finding for every fragment after the call: {:?}",
                stream.stream_violations()
            );
        };
        assert_eq!(
            (trailing.code, trailing.seq, trailing.offset),
            (ViolationCode::TRAILING_DATA, Some(0), Some(13))
        );
        let kept = b"  {\"y\": 2} {".to_vec();
        assert_eq!(
            trailing.data,
            Some(ViolationData::Trailing {
                text: kept,
                bytes: 19,
                fragments: 3
            }),
            "the text is kept up to Limits.max_argument_bytes, every byte and fragment counted"
        );
        assert_eq!(codes(&stream.take_log()), ["TRAILING_DATA"]);
    }

    #[test]
    fn data_after_a_call_ended_rides_on_it_as_one_finding_until_it_is_handed_over() {
        let mut stream = accumulator(Emit::StreamEnd);
        stream.fragment(0, &open(0, "a", "f", "{}"));
        stream.end_call(0, 0);
        stream.fragment(0, &more(0, "x"));
        stream.fragment(0, &more(0, "y"));
        stream.end();
        let [call] = stream.take_ready().try_into().unwrap();
        assert_eq!(codes(&call.violations), ["TRAILING_DATA"]);
        assert_eq!(
            call.violations[0].data,
            Some(ViolationData::Trailing {
                text: b"xy".to_vec(),
                bytes: 2,
                fragments: 2
            })
        );
    }

    #[test]
    fn a_cut_names_handed_over_calls_and_invalidates_the_rest() {
        let mut stream = accumulator(Emit::CallEnd);
        stream.fragment(0, &open(0, "a", "f", "{}"));
        stream.fragment(0, &open(1, "b", "f", "{\"x\": "));
        stream.finish(0, b"length", FinishKind::Cut);
        let ready = stream.take_ready();
        assert!(ready[0].is_valid());
        assert_eq!(codes(&ready[1].violations), ["TRUNCATED", "STREAM_CUT"]);
        let cut: Vec<_> = stream
            .stream_violations()
            .iter()
            .map(|v| (v.code.as_str(), v.seq))
            .collect();
        assert_eq!(cut, [("STREAM_CUT", Some(0))]);
    }

    #[test]
    fn limits_are_violations_and_nothing_past_them_is_kept() {
        let limits = Limits {
            max_argument_bytes: 16,
            max_depth: 2,
            max_calls: 2,
            max_violations: 8,
            ..Limits::default()
        };
        let config = Config {
            limits,
            ..Config::default()
        };
        let mut stream = Accumulator::new(config);
        stream.fragment(0, &open(0, "a", "f", "{\"x\": \"0123456789abcdef\"}"));
        stream.fragment(0, &open(1, "b", "f", "{\"x\": [[1]]}"));
        stream.fragment(0, &open(2, "c", "f", "{}"));
        stream.end();
        let ready = stream.take_ready();
        assert_eq!(codes(&ready[0].violations), ["ARGUMENTS_TOO_LARGE"]);
        assert!(ready[0].arguments_json.is_empty());
        assert_eq!(codes(&ready[1].violations), ["TOO_DEEP"]);
        assert_eq!(
            ready.len(),
            2,
            "a call past max_calls is refused: nothing of it is kept"
        );
        assert_eq!(
            codes(stream.stream_violations()),
            ["TOO_MANY_CALLS", "NO_FINISH_REASON"]
        );
    }

    fn with_limits(emit: Emit, limits: Limits) -> Accumulator {
        Accumulator::new(Config {
            emit,
            limits,
            log_violations: true,
            ..Config::default()
        })
    }

    #[test]
    fn calls_past_max_calls_are_counted_and_their_fragments_never_reach_a_kept_call() {
        let limits = Limits {
            max_calls: 2,
            ..Limits::default()
        };
        let mut stream = with_limits(Emit::CallEnd, limits);
        stream.fragment(0, &open(0, "a", "f", "{\"x\": 1}"));
        stream.fragment(0, &open(1, "b", "f", "{\"x\": "));
        // Past the limit: a new index, a new id without index, a reused index, and their continuations.
        assert_eq!(stream.fragment(0, &open(2, "c", "f", "{")), REFUSED);
        assert_eq!(stream.fragment(0, &more(2, "}")), REFUSED);
        let no_index = |id: &'static str, text: &'static str| Fragment {
            index: None,
            ..open(0, id, "f", text)
        };
        assert_eq!(stream.fragment(0, &no_index("d", "{}")), REFUSED);
        assert_eq!(
            stream.fragment(
                0,
                &Fragment {
                    index: None,
                    ..more(0, "1")
                }
            ),
            REFUSED,
            "the latest call of the choice is the refused one"
        );
        assert_eq!(
            stream.fragment(0, &open(0, "e", "g", "{}")),
            REFUSED,
            "index 0 reused by a new call"
        );
        assert_eq!(
            stream.fragment(0, &more(0, "[1]")),
            REFUSED,
            "index 0 is the refused call's now"
        );
        assert_eq!(stream.calls_opened(), 2);
        stream.fragment(0, &more(1, "2}"));
        stream.finish(0, b"tool_calls", FinishKind::Calls);
        let ready = stream.take_ready();
        let arguments: Vec<&[u8]> = ready.iter().map(|call| call.arguments_json.as_slice()).collect();
        assert_eq!(arguments, [&b"{\"x\": 1}"[..], b"{\"x\": 2}"]);
        assert!(ready.iter().all(HandedOver::is_valid));
        let [refused] = stream.stream_violations() else {
            panic!("{:?}", stream.stream_violations());
        };
        assert_eq!(refused.code, ViolationCode::TOO_MANY_CALLS);
        assert_eq!(
            refused.data,
            Some(ViolationData::Counted {
                limit: 2,
                unit: "fragments",
                count: 6
            })
        );
        assert_eq!(codes(&stream.take_log()), ["TOO_MANY_CALLS"], "found once");
    }

    #[test]
    fn violations_past_the_limit_are_counted_by_one_last_finding() {
        let limits = Limits {
            max_violations: 3,
            ..Limits::default()
        };
        let mut stream = with_limits(Emit::CallEnd, limits);
        let duplicates = format!("{{{}\"k\": 0}}", "\"k\": 0, ".repeat(10));
        stream.fragment(0, &open(0, "a", "f", &duplicates));
        for _ in 0..6 {
            stream.finish(0, b"tool_calls", FinishKind::Calls);
        }
        stream.end();
        let [call] = stream.take_ready().try_into().unwrap();
        assert_eq!(
            codes(&call.violations),
            ["DUPLICATE_KEY", "DUPLICATE_KEY", "DUPLICATE_KEY", "VIOLATIONS_OMITTED"]
        );
        let omitted = &call.violations[3];
        assert_eq!(
            (omitted.seq, omitted.data.clone()),
            (Some(0), Some(ViolationData::Omitted(7)))
        );
        assert!(
            !call.is_valid(),
            "a call whose findings were not all kept cannot be vouched for"
        );
        assert_eq!(
            codes(stream.stream_violations()),
            [
                "MULTIPLE_FINISH_REASONS",
                "MULTIPLE_FINISH_REASONS",
                "MULTIPLE_FINISH_REASONS",
                "VIOLATIONS_OMITTED"
            ]
        );
        assert_eq!(stream.stream_violations()[3].data, Some(ViolationData::Omitted(2)));
        assert_eq!(stream.stream_violations()[3].seq, None);
        // The log (on_violation) sees what was kept, and each VIOLATIONS_OMITTED once, when it was added.
        assert_eq!(codes(&stream.take_log()).len(), 8);
    }

    #[test]
    fn a_refusal_is_kept_apart_from_the_text_within_the_same_limit() {
        let limits = Limits {
            max_text_bytes: 8,
            ..Limits::default()
        };
        let mut stream = with_limits(Emit::CallEnd, limits);
        stream.text(0, b"ok ");
        stream.refusal(0, b"no, ");
        stream.refusal(1, b"fine");
        stream.refusal(0, b"sorry");
        stream.text(0, b"!");
        stream.finish(0, b"stop", FinishKind::Stop);
        stream.finish(1, b"stop", FinishKind::Stop);
        stream.end();
        let choices: Vec<(i64, Vec<u8>, Vec<u8>)> = stream
            .choices()
            .into_iter()
            .map(|c| (c.choice, c.text, c.refusal))
            .collect();
        assert_eq!(
            choices,
            [
                (0, b"ok ".to_vec(), b"no, ".to_vec()),
                (1, Vec::new(), b"fine".to_vec())
            ],
            "3 + 4 bytes fit in 8; the refusal's next 5 do not, nor the text's 1 after them"
        );
        let found: Vec<(&str, Option<i64>, Option<ViolationData>)> = stream
            .stream_violations()
            .iter()
            .map(|v| (v.code.as_str(), v.choice, v.data.clone()))
            .collect();
        assert_eq!(
            found,
            [(
                "TEXT_TOO_LARGE",
                Some(0),
                Some(ViolationData::Counted {
                    limit: 8,
                    unit: "bytes",
                    count: 6,
                })
            )]
        );
    }

    #[test]
    fn text_past_its_limit_is_counted_by_one_finding_per_choice() {
        let limits = Limits {
            max_text_bytes: 8,
            ..Limits::default()
        };
        let mut stream = with_limits(Emit::CallEnd, limits);
        stream.text(0, "héllo ".as_bytes());
        stream.text(1, b"12345678");
        stream.text(0, b"world");
        stream.text(0, b"!");
        stream.text(1, b"9");
        stream.finish(0, b"stop", FinishKind::Stop);
        stream.finish(1, b"stop", FinishKind::Stop);
        stream.end();
        let texts: Vec<(i64, Vec<u8>)> = stream.choices().into_iter().map(|c| (c.choice, c.text)).collect();
        assert_eq!(
            texts,
            [(0, "héllo ".as_bytes().to_vec()), (1, b"12345678".to_vec())],
            "the text that would pass the limit is not kept, nor any after it: the text kept is a prefix"
        );
        let found: Vec<(&str, Option<i64>, Option<ViolationData>)> = stream
            .stream_violations()
            .iter()
            .map(|v| (v.code.as_str(), v.choice, v.data.clone()))
            .collect();
        let counted = |count| {
            Some(ViolationData::Counted {
                limit: 8,
                unit: "bytes",
                count,
            })
        };
        assert_eq!(
            found,
            [
                ("TEXT_TOO_LARGE", Some(0), counted(6)),
                ("TEXT_TOO_LARGE", Some(1), counted(1))
            ]
        );
        assert_eq!(
            codes(&stream.take_log()),
            ["TEXT_TOO_LARGE", "TEXT_TOO_LARGE"],
            "found once each"
        );
    }

    #[test]
    fn choices_past_the_limit_are_not_read_and_their_entries_are_counted() {
        let limits = Limits {
            max_choices: 2,
            ..Limits::default()
        };
        let mut stream = with_limits(Emit::CallEnd, limits);
        assert!(stream.choice_entry(5));
        assert!(stream.choice_entry(0));
        assert!(!stream.choice_entry(1), "a third choice");
        assert!(stream.choice_entry(5), "a choice kept stays kept");
        assert!(!stream.choice_entry(1));
        // Whatever a reader would still send for a choice not kept leaves nothing behind.
        assert_eq!(stream.fragment(1, &open(0, "a", "f", "{}")), REFUSED);
        stream.text(1, b"x");
        stream.finish(1, b"stop", FinishKind::Stop);
        stream.finish(0, b"stop", FinishKind::Stop);
        stream.finish(5, b"stop", FinishKind::Stop);
        stream.end();
        assert_eq!(stream.choices().iter().map(|c| c.choice).collect::<Vec<_>>(), [0, 5]);
        assert_eq!(stream.calls_opened(), 0);
        let [refused] = stream.stream_violations() else {
            panic!("{:?}", stream.stream_violations());
        };
        assert_eq!(
            (refused.code, refused.data.clone()),
            (
                ViolationCode::TOO_MANY_CHOICES,
                Some(ViolationData::Counted {
                    limit: 2,
                    unit: "entries",
                    count: 2
                })
            )
        );
    }

    #[test]
    fn output_past_its_limit_is_counted_and_nothing_after_it_is_kept() {
        let limits = Limits {
            max_output_bytes: 10,
            ..Limits::default()
        };
        let mut stream = with_limits(Emit::CallEnd, limits);
        assert!(stream.admit_output(4));
        assert!(stream.admit_output(6), "up to the limit");
        assert!(!stream.output_is_over());
        assert!(!stream.admit_output(1));
        assert!(stream.output_is_over());
        assert!(!stream.admit_output(0), "once over, nothing more is kept");
        assert!(!stream.admit_output(7));
        let [over] = stream.stream_violations() else {
            panic!("{:?}", stream.stream_violations());
        };
        assert_eq!(
            (over.code, over.data.clone()),
            (
                ViolationCode::OUTPUT_TOO_LARGE,
                Some(ViolationData::Counted {
                    limit: 10,
                    unit: "bytes",
                    count: 8
                })
            )
        );
        assert_eq!(codes(&stream.take_log()), ["OUTPUT_TOO_LARGE"]);
    }

    #[test]
    fn the_log_sees_every_violation_once() {
        let mut stream = accumulator(Emit::CallEnd);
        stream.fragment(
            0,
            &Fragment {
                index: None,
                ..open(0, "a", "f", "{\"k\": 1, \"k\": 2}")
            },
        );
        stream.finish(0, b"stop", FinishKind::Stop);
        stream.end();
        assert_eq!(
            codes(&stream.take_log()),
            ["MISSING_INDEX", "DUPLICATE_KEY", "FINISH_REASON_MISMATCH"]
        );
        assert!(stream.take_log().is_empty());
    }
}
