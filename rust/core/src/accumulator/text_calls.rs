//! Calls written into a stream's text: one dialect parser per choice, what each event of theirs is in the stream,
//! and what each finding is as a violation.
//!
//! The stage between a format's text and the accumulator (`docs/semantics.md`, "Calls in text"). With `dialect=`, the
//! text a decoder reads goes through its choice's parser ([`crate::dialects`]); the text outside calls and reasoning is
//! the choice's text, reasoning is output, each call a call of the stream over at once, each finding a violation
//! ([`violation_of`]). The reference's twin is `python/toolwire/reference/_text_calls.py` (and the accumulator's
//! text methods there).

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{Accumulator, BOOKKEEPING, Fragment, Target};
use crate::decode::OutputItem;
use crate::dialects::{Dialect, DialectEvent, DialectParser, Finding, FindingCode, TextCall, Tools};
use crate::violation::ViolationCode;

/// The dialect a stream's text is read in ([`super::Config::text_calls`]).
#[derive(Debug, Clone)]
pub struct TextDialect {
    /// The dialect.
    pub dialect: Dialect,
    /// The prompt opened reasoning, so each choice's text starts inside it.
    pub reasoning: bool,
    /// Each declared tool's parameters schema, by name: what types raw values.
    pub tools: Option<Arc<Tools>>,
}

/// The violation a dialect finding is in the stream.
fn violation_of(code: FindingCode) -> ViolationCode {
    match code {
        FindingCode::Cut => ViolationCode::TRUNCATED,
        FindingCode::MalformedCall => ViolationCode::MALFORMED_CALL,
        FindingCode::InvalidArguments => ViolationCode::INVALID_JSON,
        FindingCode::UntypedValue => ViolationCode::UNTYPED_VALUE,
        FindingCode::NoSchema => ViolationCode::NO_SCHEMA,
        FindingCode::TooLarge => ViolationCode::ARGUMENTS_TOO_LARGE,
        FindingCode::MissingEndMarker => ViolationCode::MISSING_END_MARKER,
        FindingCode::MissingStartMarker => ViolationCode::MISSING_START_MARKER,
        FindingCode::ArgumentsAsString => ViolationCode::ARGUMENTS_AS_STRING,
        FindingCode::MarkerInText => ViolationCode::MARKER_IN_TEXT,
        FindingCode::ReasoningCut => ViolationCode::REASONING_CUT,
        FindingCode::BuiltinTool => ViolationCode::BUILTIN_TOOL,
        FindingCode::MalformedHeader => ViolationCode::MALFORMED_HEADER,
    }
}

/// After these findings a call's text is not its arguments object (the dialect judged it): the call is handed over
/// with that text and the findings, and its text is neither judged nor validated as arguments. An untyped raw value
/// is not among them: its call's text is an object, validated as any other.
fn judges(code: FindingCode) -> bool {
    matches!(
        code,
        FindingCode::Cut | FindingCode::MalformedCall | FindingCode::InvalidArguments | FindingCode::TooLarge
    )
}

/// A run of reasoning text of one choice, after the same number of calls: one output item.
#[derive(Debug)]
struct Run {
    choice: i64,
    after_calls: usize,
    text: String,
}

/// The dialect parsers of one stream, one per choice, made as each choice's text first arrives, and what they made.
#[derive(Debug)]
pub(super) struct TextCalls {
    setting: TextDialect,
    parsers: BTreeMap<i64, DialectParser>,
    // Per choice: whether its text is content (its calls leaks) or generated text, and the seq of each call its
    // parser handed over, by the parser's index.
    leaked: FxHashMap<i64, bool>,
    seqs: FxHashMap<(i64, usize), usize>,
    // Per choice: the findings that came before a call, waiting for it.
    waiting: FxHashMap<i64, Vec<Finding>>,
    reasoning: Vec<Run>,
    // The source is the model's text deltas: one choice, and no finish reasons to expect.
    text_source: bool,
    // The events of the delta being read, kept empty between deltas: a vector made per delta was a measurable share
    // of reading prose.
    events: Vec<DialectEvent>,
}

impl TextCalls {
    pub(super) fn new(setting: TextDialect) -> Self {
        Self {
            setting,
            parsers: BTreeMap::new(),
            leaked: FxHashMap::default(),
            seqs: FxHashMap::default(),
            waiting: FxHashMap::default(),
            reasoning: Vec::new(),
            text_source: false,
            events: Vec::new(),
        }
    }

    /// How many of `choice`'s calls were read out of its text.
    pub(super) fn calls_of(&self, choice: i64) -> usize {
        self.seqs.keys().filter(|(of, _)| *of == choice).count()
    }
}

impl Accumulator {
    /// Content text of a choice: with a dialect, the calls written into it are leaks, recovered (`CALL_IN_TEXT`).
    /// See [`Accumulator::generated_text`].
    pub fn text(&mut self, choice: i64, text: &[u8]) {
        if self.text_calls.is_none() {
            self.keep_text(choice, text);
        } else {
            self.read_text(choice, text, true);
        }
    }

    /// Text a model generated that no server read calls out of (completions, Ollama's generate). Its calls are its
    /// own, read by the dialect's parser when there is one. The text kept (outside calls and reasoning) stays within
    /// `Limits.max_text_bytes`: the text that would take it past, and all of the choice's text after, is counted by
    /// its `TEXT_TOO_LARGE`.
    pub fn generated_text(&mut self, choice: i64, text: &[u8]) {
        if self.text_calls.is_none() {
            self.keep_text(choice, text);
        } else {
            self.read_text(choice, text, false);
        }
    }

    /// [`Accumulator::generated_text`] for text already known to be UTF-8 (a Python `str`'s): not checked again.
    pub fn generated_str(&mut self, choice: i64, text: &str) {
        if self.text_calls.is_none() {
            self.keep_text(choice, text.as_bytes());
        } else {
            self.read_str(choice, text, false);
        }
    }

    /// The source is the model's text deltas, not a wire format: one choice, whose end no finish reason says. Only a
    /// stream that reads a dialect has one.
    pub fn text_source(&mut self) {
        if let Some(text_calls) = self.text_calls.as_mut() {
            text_calls.text_source = true;
        }
        self.touch(0);
    }

    /// Whether the stream reads calls written into its text (`Config.text_calls`).
    pub fn reads_dialect(&self) -> bool {
        self.text_calls.is_some()
    }

    /// Whether the source is the model's text deltas ([`Accumulator::text_source`]).
    pub fn is_text_source(&self) -> bool {
        self.text_calls
            .as_ref()
            .is_some_and(|text_calls| text_calls.text_source)
    }

    /// The reasoning the dialect parsers read, each run (of one choice, after the same number of calls) an item
    /// `{"type": "reasoning", "text": ...}`.
    pub fn reasoning_output(&self) -> Vec<OutputItem> {
        let Some(text_calls) = &self.text_calls else {
            return Vec::new();
        };
        text_calls
            .reasoning
            .iter()
            .map(|run| {
                // Written by hand: `json!` would order the keys, and an item's keys keep the order it is shown in.
                let text = serde_json::to_string(&run.text).unwrap_or_default();
                let json = format!(r#"{{"type":"reasoning","text":{text}}}"#).into_bytes();
                OutputItem {
                    after_calls: run.after_calls,
                    json,
                }
            })
            .collect()
    }

    fn read_text(&mut self, choice: i64, text: &[u8], leaked: bool) {
        // The parser reads text; a lone surrogate (a JSON escape no character has, passed as `surrogatepass` bytes)
        // reads as U+FFFD per byte, as the reference's replacing decode of it does.
        self.read_str(choice, &String::from_utf8_lossy(text), leaked);
    }

    fn read_str(&mut self, choice: i64, text: &str, leaked: bool) {
        if text.is_empty() || !self.admitted(choice) {
            return;
        }
        let Some(text_calls) = self.text_calls.as_mut() else {
            return;
        };
        text_calls.leaked.entry(choice).or_insert(leaked);
        let setting = &text_calls.setting;
        let parser = text_calls.parsers.entry(choice).or_insert_with(|| {
            DialectParser::new(
                setting.dialect,
                setting.tools.clone(),
                setting.reasoning,
                self.config.limits,
            )
        });
        let mut events = std::mem::take(&mut text_calls.events);
        // A parser is only finished at the end, after which no text is read.
        if parser.feed(text, &mut events).is_ok() {
            self.apply_text_events(choice, &mut events, leaked);
        }
        if let Some(text_calls) = self.text_calls.as_mut() {
            text_calls.events = events;
        }
    }

    /// Each choice's parser finished (at the end of the stream), its last events applied, in the order of the choices.
    pub(super) fn finish_text_calls(&mut self) {
        let Some(text_calls) = self.text_calls.as_mut() else {
            return;
        };
        let mut finished = Vec::new();
        for (choice, parser) in &mut text_calls.parsers {
            let mut events = Vec::new();
            if parser.finish(&mut events).is_ok() {
                finished.push((*choice, text_calls.leaked.get(choice).copied().unwrap_or(true), events));
            }
        }
        for (choice, leaked, mut events) in finished {
            self.apply_text_events(choice, &mut events, leaked);
        }
    }

    /// Applies `events` in order, leaving the vector empty.
    fn apply_text_events(&mut self, choice: i64, events: &mut Vec<DialectEvent>, leaked: bool) {
        for event in events.drain(..) {
            match event {
                DialectEvent::Text(text) => self.keep_text(choice, text.as_bytes()),
                DialectEvent::Reasoning(text) => self.keep_reasoning(choice, text),
                DialectEvent::Call(call) => self.text_call(choice, &call, leaked),
                DialectEvent::Finding(finding) => self.text_finding(choice, finding),
            }
        }
    }

    fn text_finding(&mut self, choice: i64, finding: Finding) {
        let Some(call) = finding.call else {
            self.report_stream(
                violation_of(finding.code),
                finding.message,
                Some(choice),
                None,
                None,
                None,
            );
            return;
        };
        let Some(text_calls) = self.text_calls.as_mut() else {
            return;
        };
        match text_calls.seqs.get(&(choice, call)).copied() {
            Some(seq) => self.report(
                seq,
                violation_of(finding.code),
                finding.message,
                super::Detail::default(),
                Target::Live,
            ),
            None => text_calls.waiting.entry(choice).or_default().push(finding),
        }
    }

    /// A call a dialect parser read: a call of the stream, over at once, with the parser's findings.
    fn text_call(&mut self, choice: i64, call: &TextCall, leaked: bool) {
        let Some(text_calls) = self.text_calls.as_mut() else {
            return;
        };
        let findings = text_calls.waiting.remove(&choice).unwrap_or_default();
        let dialect = text_calls.setting.dialect.name();
        // A dialect that writes no ids has its calls' ids made here, as the reference makes them: no id is missing.
        let id = call
            .id
            .clone()
            .unwrap_or_else(|| format!("ts_{choice}_{}", self.calls.len()));
        let fragment = Fragment {
            index: i64::try_from(call.index).ok(),
            id: Some(id.as_bytes()),
            name: call.name.as_deref().map(str::as_bytes),
            kind: Some(b"function"),
            arguments: Some(call.arguments.as_bytes()),
            judged: findings.iter().any(|finding| judges(finding.code)),
            ..Fragment::default()
        };
        let seq = self.receive(choice, &fragment, Self::open);
        let Some(text_calls) = self.text_calls.as_mut() else {
            return;
        };
        if self.calls.get(seq).is_none() {
            return; // refused past Limits.max_calls, and counted
        }
        text_calls.seqs.insert((choice, call.index), seq);
        for finding in findings {
            self.report(
                seq,
                violation_of(finding.code),
                finding.message,
                super::Detail::default(),
                Target::Live,
            );
        }
        if leaked {
            let message = format!(
                "the call was written into the text, in the {dialect} dialect, instead of being sent as a tool call \
                 (is the server's tool-call parser off?): recovered from the text"
            );
            self.report(
                seq,
                ViolationCode::CALL_IN_TEXT,
                message,
                super::Detail::default(),
                Target::Live,
            );
        }
        self.end_seq(seq);
    }

    /// Reasoning text, one output item per run between calls, within `Limits.max_output_bytes`.
    fn keep_reasoning(&mut self, choice: i64, text: String) {
        let opened = self.calls.len();
        let continues = self.text_calls.as_ref().is_some_and(|text_calls| {
            text_calls
                .reasoning
                .last()
                .is_some_and(|run| run.choice == choice && run.after_calls == opened)
        });
        let size = text.len() + if continues { 0 } else { BOOKKEEPING };
        if !self.admit_output(size) {
            return;
        }
        let Some(text_calls) = self.text_calls.as_mut() else {
            return;
        };
        match text_calls.reasoning.last_mut() {
            Some(run) if continues => run.text.push_str(&text),
            _ => text_calls.reasoning.push(Run {
                choice,
                after_calls: opened,
                text,
            }),
        }
    }
}
