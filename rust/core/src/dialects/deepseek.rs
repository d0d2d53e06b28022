//! What the DeepSeek dialects share: a section of calls between marker tokens, reasoning in `<think>`.
//!
//! Twin of the reference's `dialects/_deepseek.py`. DeepSeek's markers are special tokens spelled with full-width bars
//! (U+FF5C) and, for spaces, U+2581 (`<｜tool▁calls▁begin｜>`). A section opens with its start marker and holds calls,
//! whitespace between them, until its end marker. Right after the start, text that opens no call is a malformed call
//! up to the next call or the section's end; a section that ends with no call in it is text (`MARKER_IN_TEXT`); after
//! a call, text that neither opens a call nor ends the section ends it (`MISSING_END_MARKER`) and is text. The stream
//! ending in a section with no call is `CUT`, after a call `MISSING_END_MARKER`: the calls stand.
//!
//! [`Sectioned`] runs the section for a dialect's calls ([`SectionCalls`]); [`JsonCalls`] are the calls V3/R1, V3.1
//! and Kimi K2 write, a header, JSON arguments and a trailer, each dialect's markers and header its [`JsonHeader`].

use std::fmt;
use std::marker::PhantomData;

use super::shared::{
    Called, Core, FindingCode, Findings, Grammar, JsonReader, Read, Sink, arguments_of, is_python_space, quoted,
};

pub(crate) const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
pub(crate) const CALLS_END: &str = "<｜tool▁calls▁end｜>";
pub(crate) const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
pub(crate) const CALL_END: &str = "<｜tool▁call▁end｜>";
pub(crate) const SEP: &str = "<｜tool▁sep｜>";

/// The whitespace between the parts of a call: JSON's.
const fn is_space(char: char) -> bool {
    matches!(char, ' ' | '\t' | '\r' | '\n')
}

/// A section's side of a parser: its end marker, what it holds, and the call's text as it arrived.
#[derive(Debug, Default)]
pub(crate) struct Section {
    end: &'static str,
    /// The start marker and the whitespace after it: text, if the section holds no call.
    held: String,
    /// The calls handed over in the section.
    calls: usize,
    /// The call's text as it arrived, up to `limit` bytes (`full` once it passed them).
    raw: String,
    full: bool,
    limit: usize,
}

impl Section {
    fn open(&mut self, end: &'static str, marker: &str, limit: usize) {
        *self = Self {
            end,
            held: marker.to_owned(),
            limit,
            ..Self::default()
        };
    }

    /// The section's end marker.
    pub(crate) fn end(&self) -> &'static str {
        self.end
    }

    /// The bytes of the call's text kept so far.
    pub(crate) fn raw_bytes(&self) -> usize {
        self.raw.len()
    }

    fn begin_raw(&mut self, text: &str) {
        self.raw.clear();
        self.full = false;
        self.keep(text);
    }

    /// Adds `text` to the call's text as it arrived, up to the limit on a call's bytes.
    ///
    /// What fits of the text that passes the limit is kept and nothing after it, so that the text kept is the same
    /// however the stream was split.
    pub(crate) fn keep(&mut self, text: &str) {
        if self.full {
            return;
        }
        if self.raw.len() + text.len() <= self.limit {
            self.raw.push_str(text);
            return;
        }
        for char in text.chars() {
            if self.raw.len() + char.len_utf8() > self.limit {
                break;
            }
            self.raw.push(char);
        }
        self.full = true;
    }

    /// Takes the call's text up to the earliest of `markers` (kept up to the byte limit).
    pub(crate) fn collect(&mut self, core: &mut Core, markers: &[&'static str]) -> Option<&'static str> {
        let mut released = String::new();
        let marker = core.release_until(markers, Sink::Into(&mut released));
        self.keep(&released);
        marker
    }

    /// Hands a call of the section over.
    pub(crate) fn called(&mut self, core: &mut Core, called: Called, whole: bool) {
        core.call(called, whole);
        self.calls += 1;
    }

    /// The call's text, handed over as its arguments.
    pub(crate) fn take_raw(&mut self) -> String {
        std::mem::take(&mut self.raw)
    }
}

/// What a dialect's call step decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Nothing more can be decided yet.
    Wait,
    /// A step was taken; the call goes on.
    Stay,
    /// The call was handed over (and what follows it read): the section goes on.
    Section,
    /// The call was handed over and `marker`, taken, ended it: read as what it is between calls.
    Marker(&'static str),
    /// A call outside a section was handed over: text follows, from `unread` bytes back (the marker that ended it).
    Text { unread: usize },
}

/// A dialect's calls inside a section: its markers, and its call's steps.
pub(crate) trait SectionCalls: Default + fmt::Debug {
    /// Each section's start marker and the end marker that closes it.
    const SECTIONS: &'static [(&'static str, &'static str)];
    /// What opens a call in text: the sections' start markers, and whatever opens a call outside a section.
    const STARTS: &'static [&'static str];
    /// What opens a call in a section.
    const CALL_START: &'static str;
    /// Whether a call's start inside reasoning ends it.
    const CALL_ENDS_REASONING: bool = false;

    /// `start`, not a section's, was read in text: open a call outside a section (false when it opens none).
    fn open_bare(&mut self, _section: &mut Section, _core: &mut Core, _start: &'static str) -> bool {
        false
    }

    /// [`SectionCalls::CALL_START`] was read (and kept as the call's text): enter the call's first state.
    fn begin(&mut self, core: &Core);

    /// One step inside the call.
    fn advance(&mut self, section: &mut Section, core: &mut Core) -> Step;

    /// The name a malformed block of the section writes, if any.
    fn block_name(block: &str) -> Option<String>;

    /// The stream ended inside the call: hand it over unfinished.
    fn cut(&mut self, section: &mut Section, core: &mut Core);
}

/// Where a section is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Between calls (or before the first).
    #[default]
    Between,
    /// In text right after the start that opens no call: a malformed call up to the next call or the section's end.
    Block,
    /// Inside a call: the dialect's state says where.
    Call,
}

/// A section of a dialect's calls: the grammar of the DeepSeek family.
#[derive(Debug, Default)]
pub(crate) struct Sectioned<C> {
    section: Section,
    place: Place,
    calls: C,
}

impl<C: SectionCalls> Grammar for Sectioned<C> {
    const STARTS: &'static [&'static str] = C::STARTS;
    const THINK: Option<(&'static str, &'static str)> = Some(("<think>", "</think>"));
    const CALL_ENDS_REASONING: bool = C::CALL_ENDS_REASONING;

    fn open(&mut self, core: &mut Core, marker: &'static str) {
        self.calls = C::default();
        if let Some(&(_, end)) = C::SECTIONS.iter().find(|&&(start, _)| start == marker) {
            self.section.open(end, marker, core.limits.max_argument_bytes);
            self.place = Place::Between;
        } else if self.calls.open_bare(&mut self.section, core, marker) {
            self.place = Place::Call;
        } else {
            // A start that opens neither a section nor a call is what the dialect's table left out: kept as text.
            core.text(marker);
            self.leave(core);
        }
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        match self.place {
            Place::Between => self.between(core),
            Place::Block => self.block(core),
            Place::Call => match self.calls.advance(&mut self.section, core) {
                Step::Wait => false,
                Step::Stay => true,
                Step::Section => {
                    self.place = Place::Between;
                    true
                }
                Step::Marker(marker) => {
                    self.marker(core, marker);
                    true
                }
                Step::Text { unread } => {
                    core.unread(unread);
                    self.leave(core);
                    true
                }
            },
        }
    }

    fn cut(&mut self, core: &mut Core) {
        match self.place {
            Place::Between if self.section.calls > 0 => {
                let message = format!("the stream ended before {}", self.section.end);
                core.finding(FindingCode::MissingEndMarker, message, core.calls().checked_sub(1));
            }
            Place::Between => {
                let message = "the stream ended inside a section of calls, before its first call";
                core.finding(FindingCode::Cut, message, None);
            }
            Place::Block => {
                let called = self.block_call(vec![
                    (
                        FindingCode::MalformedCall,
                        format!("no {} opens the call", C::CALL_START),
                    ),
                    (
                        FindingCode::Cut,
                        format!("the stream ended before {}", self.section.end),
                    ),
                ]);
                core.call(called, false);
            }
            Place::Call => self.calls.cut(&mut self.section, core),
        }
        self.place = Place::Between;
    }
}

impl<C: SectionCalls> Sectioned<C> {
    /// Between calls: whitespace, then a call, the section's end, or text that is neither.
    fn between(&mut self, core: &mut Core) -> bool {
        let space = core.skip_whitespace();
        if self.section.calls == 0 {
            self.section.held.push_str(space);
        }
        if core.rest().is_empty() {
            return false;
        }
        for literal in [C::CALL_START, self.section.end] {
            match core.starts_with(literal, core.cursor()) {
                None => return false,
                Some(true) => {
                    core.advance(literal.len());
                    self.marker(core, literal);
                    return true;
                }
                Some(false) => {}
            }
        }
        if self.section.calls > 0 {
            let message = format!("the section of calls was not closed by {}", self.section.end);
            core.finding(FindingCode::MissingEndMarker, message, core.calls().checked_sub(1));
            self.leave(core);
        } else {
            self.section.begin_raw("");
            self.place = Place::Block;
        }
        true
    }

    /// The call's start or the section's end was read (and taken) between calls.
    fn marker(&mut self, core: &mut Core, marker: &'static str) {
        if marker == C::CALL_START {
            self.section.begin_raw(marker);
            self.calls.begin(core);
            self.place = Place::Call;
        } else if self.section.calls > 0 {
            self.leave(core);
        } else {
            let held = std::mem::take(&mut self.section.held);
            core.text(&(held + marker));
            core.finding(FindingCode::MarkerInText, "a section of calls held no call", None);
            self.leave(core);
        }
    }

    /// Text right after the start that opens no call: a malformed call up to the next call or the section's end.
    fn block(&mut self, core: &mut Core) -> bool {
        let Some(marker) = self.section.collect(core, &[C::CALL_START, self.section.end]) else {
            return false;
        };
        let called = self.block_call(vec![(
            FindingCode::MalformedCall,
            format!("no {} opens the call", C::CALL_START),
        )]);
        self.section.called(core, called, true);
        self.place = Place::Between;
        self.marker(core, marker);
        true
    }

    fn block_call(&mut self, findings: Findings) -> Called {
        let block = self.section.take_raw();
        Called {
            name: C::block_name(&block),
            arguments: block,
            id: None,
            findings,
        }
    }

    fn leave(&mut self, core: &mut Core) {
        self.place = Place::Between;
        core.leave_call();
    }
}

/// What a call's header writes: the function's name and the call's id, or why it writes none.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) name: Option<String>,
    pub(crate) id: Option<String>,
    pub(crate) problem: Option<String>,
}

/// A dialect whose calls are a header, a JSON object and a trailer in a section (V3/R1, V3.1, Kimi K2).
pub(crate) trait JsonHeader: Default + fmt::Debug {
    const SECTIONS: &'static [(&'static str, &'static str)] = &[(CALLS_BEGIN, CALLS_END)];
    const STARTS: &'static [&'static str] = &[CALLS_BEGIN];
    const CALL_START: &'static str = CALL_BEGIN;
    const CALL_END: &'static str = CALL_END;
    const CALL_ENDS_REASONING: bool = false;
    /// The markers that end each part of the header.
    const HEAD: &'static [&'static str];
    /// What messages call the header.
    const HEADER: &'static str = "header";
    /// The literals expected (after whitespace) between the arguments and the call's end marker.
    const TRAIL: &'static [&'static str] = &[];

    /// The function's name and the call's id the header's `parts` write, or why they write none.
    fn header_of(parts: &[String]) -> Header;

    /// What `start`, not a section's start, opens in text: a call outside a section, the end marker of the section
    /// it is read as if in, and what is said of it; None when it opens none.
    fn bare(_start: &str) -> Option<(&'static str, String)> {
        None
    }
}

/// Where a JSON call is.
#[derive(Debug, Default)]
enum CallState {
    #[default]
    Idle,
    /// In the header: the parts read, and the one being read.
    Head { parts: Vec<String>, part: String },
    /// In the arguments (`begun` once the whitespace before them was taken).
    Arguments { begun: bool },
    /// The call broke: read on to its end.
    Skip,
    /// The call was handed over: the trailer's literals are expected, `trailed` of them read, each after
    /// whitespace (`spaces` bytes of it at the cursor seen, not taken: text if no literal follows).
    Trail { trailed: usize, spaces: usize },
}

/// The calls of a [`JsonHeader`] dialect.
#[derive(Debug)]
pub(crate) struct JsonCalls<H> {
    state: CallState,
    name: Option<String>,
    id: Option<String>,
    findings: Findings,
    reader: Option<JsonReader>,
    /// The call stands outside a section: text follows it.
    bare: bool,
    dialect: PhantomData<H>,
}

impl<H> Default for JsonCalls<H> {
    fn default() -> Self {
        Self {
            state: CallState::Idle,
            name: None,
            id: None,
            findings: Findings::new(),
            reader: None,
            bare: false,
            dialect: PhantomData,
        }
    }
}

impl<H: JsonHeader> SectionCalls for JsonCalls<H> {
    const SECTIONS: &'static [(&'static str, &'static str)] = H::SECTIONS;
    const STARTS: &'static [&'static str] = H::STARTS;
    const CALL_START: &'static str = H::CALL_START;
    const CALL_ENDS_REASONING: bool = H::CALL_ENDS_REASONING;

    fn open_bare(&mut self, section: &mut Section, core: &mut Core, start: &'static str) -> bool {
        let Some((end, message)) = H::bare(start) else {
            return false;
        };
        self.bare = true;
        section.end = end;
        section.calls = 0;
        section.limit = core.limits.max_argument_bytes;
        section.begin_raw(H::CALL_START);
        self.begin(core);
        self.findings.push((FindingCode::MissingStartMarker, message));
        true
    }

    fn begin(&mut self, core: &Core) {
        self.state = CallState::Head {
            parts: Vec::new(),
            part: String::new(),
        };
        self.name = None;
        self.id = None;
        self.findings.clear();
        self.reader = Some(JsonReader::new(&core.limits));
    }

    fn advance(&mut self, section: &mut Section, core: &mut Core) -> Step {
        match &mut self.state {
            CallState::Idle => Step::Wait,
            CallState::Head { .. } => self.head(section, core),
            CallState::Arguments { .. } => self.arguments(section, core),
            CallState::Skip => match section.collect(core, &Self::ends(section)) {
                Some(marker) => self.skipped(section, core, marker),
                None => Step::Wait,
            },
            CallState::Trail { trailed, spaces } => {
                let (trailed, spaces) = (*trailed, *spaces);
                self.trail(core, trailed, spaces)
            }
        }
    }

    fn block_name(mut block: &str) -> Option<String> {
        let mut parts = Vec::with_capacity(H::HEAD.len());
        for marker in H::HEAD {
            let (part, rest) = block.split_once(marker)?;
            parts.push(part.to_owned());
            block = rest;
        }
        let header = H::header_of(&parts);
        header.problem.is_none().then_some(header.name).flatten()
    }

    fn cut(&mut self, section: &mut Section, core: &mut Core) {
        if matches!(self.state, CallState::Arguments { .. })
            && let Some(reader) = &self.reader
        {
            section.keep(reader.text());
        }
        let mut findings = std::mem::take(&mut self.findings);
        findings.push((FindingCode::Cut, format!("the stream ended before {}", H::CALL_END)));
        let called = Called {
            name: self.name.take(),
            arguments: section.take_raw(),
            id: self.id.take(),
            findings,
        };
        core.call(called, false);
        self.state = CallState::Idle;
    }
}

impl<H: JsonHeader> JsonCalls<H> {
    /// What ends a call whatever state it is in: its end marker, the next call, the section's end.
    fn ends(section: &Section) -> [&'static str; 3] {
        [H::CALL_END, H::CALL_START, section.end]
    }

    fn head(&mut self, section: &mut Section, core: &mut Core) -> Step {
        let [end, start, section_end] = Self::ends(section);
        let CallState::Head { parts, part } = &mut self.state else {
            return Step::Wait;
        };
        let Some(&expected) = H::HEAD.get(parts.len()) else {
            return Step::Wait;
        };
        let mut released = String::new();
        let marker = core.release_until(&[expected, end, start, section_end], Sink::Into(&mut released));
        part.push_str(&released);
        section.keep(&released);
        if section.full {
            // Past the limit the call is read on to its end, not kept; where that is does not depend on the split.
            let message = format!("the call's {} passed the limit on a call's bytes", H::HEADER);
            self.findings.push((FindingCode::TooLarge, message));
            return match marker {
                Some(marker) if marker != expected => self.skipped(section, core, marker),
                _ => {
                    self.state = CallState::Skip;
                    Step::Stay
                }
            };
        }
        let Some(marker) = marker else {
            return Step::Wait;
        };
        if marker != expected {
            let message = format!("the call's {} ended before {expected}", H::HEADER);
            self.findings.push((FindingCode::MalformedCall, message));
            return self.skipped(section, core, marker);
        }
        section.keep(marker);
        parts.push(std::mem::take(part));
        if parts.len() < H::HEAD.len() {
            return Step::Stay;
        }
        let header = H::header_of(parts);
        self.name = header.name;
        self.id = header.id;
        if let Some(problem) = header.problem {
            self.findings.push((FindingCode::MalformedCall, problem));
        }
        self.state = CallState::Arguments { begun: false };
        Step::Stay
    }

    fn arguments(&mut self, section: &mut Section, core: &mut Core) -> Step {
        let (CallState::Arguments { begun }, Some(reader)) = (&mut self.state, self.reader.as_mut()) else {
            return Step::Wait;
        };
        if !*begun {
            section.keep(core.skip_whitespace());
            if core.rest().is_empty() {
                return Step::Wait;
            }
            *begun = true;
        }
        let (read, taken) = reader.take(core.rest());
        core.advance(taken);
        match read {
            Read::Complete => {
                let (arguments, found) = arguments_of(reader);
                let mut findings = std::mem::take(&mut self.findings);
                findings.extend(found);
                let called = Called {
                    name: self.name.take(),
                    arguments,
                    id: self.id.take(),
                    findings,
                };
                section.called(core, called, true);
                self.state = CallState::Trail { trailed: 0, spaces: 0 };
                Step::Stay
            }
            Read::Invalid => {
                section.keep(reader.text());
                let why = "the arguments are not JSON".to_owned();
                self.findings.push((FindingCode::InvalidArguments, why));
                self.state = CallState::Skip;
                Step::Stay
            }
            Read::Incomplete => Step::Wait,
        }
    }

    /// The malformed call ended at `marker`: handed over, and `marker` read as what it is.
    fn skipped(&mut self, section: &mut Section, core: &mut Core, marker: &'static str) -> Step {
        if marker == H::CALL_END {
            section.keep(marker);
        }
        let called = Called {
            name: self.name.take(),
            arguments: section.take_raw(),
            id: self.id.take(),
            findings: std::mem::take(&mut self.findings),
        };
        section.called(core, called, true);
        self.state = CallState::Idle;
        if marker == H::CALL_END {
            self.after()
        } else if self.bare {
            // A call outside a section: what ends it is read as text reads it.
            Step::Text { unread: marker.len() }
        } else {
            Step::Marker(marker)
        }
    }

    /// After the arguments: the trailer's literals, then the call's end marker, each after whitespace.
    fn trail(&mut self, core: &mut Core, trailed: usize, spaces: usize) -> Step {
        let literal = H::TRAIL.get(trailed).copied().unwrap_or(H::CALL_END);
        // The whitespace seen on an earlier feed is not scanned again: a stream of it stays linear.
        let unseen = core.rest().as_bytes().get(spaces..).unwrap_or_default();
        let more = unseen.iter().take_while(|&&byte| is_space(char::from(byte))).count();
        let at = core.cursor() + spaces + more;
        let found = if core.ends_at(at) {
            core.is_final().then_some(false)
        } else {
            core.starts_with(literal, at)
        };
        let Some(found) = found else {
            self.state = CallState::Trail {
                trailed,
                spaces: spaces + more,
            };
            return Step::Wait;
        };
        if found {
            core.take_to(at + literal.len());
            if trailed < H::TRAIL.len() {
                self.state = CallState::Trail {
                    trailed: trailed + 1,
                    spaces: 0,
                };
                return Step::Stay;
            }
        } else {
            let call = core.calls().checked_sub(1);
            core.finding(
                FindingCode::MissingEndMarker,
                format!("no {literal} after the call"),
                call,
            );
        }
        self.state = CallState::Idle;
        self.after()
    }

    /// Where the stream goes once the call was handed over and read to its end.
    fn after(&self) -> Step {
        if self.bare {
            Step::Text { unread: 0 }
        } else {
            Step::Section
        }
    }
}

/// `text` as a function's name (whitespace around it aside), or why it is none: empty, or with whitespace.
pub(crate) fn name_token(text: &str) -> Result<String, String> {
    let name = text.trim_matches(is_python_space);
    if name.is_empty() || name.chars().any(is_space) {
        return Err(format!("{} is not a function name", quoted(text)));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::super::deepseek_v31::DeepSeekV31;
    use super::super::shared::DialectEvent;
    use super::super::test_support::{CUT, INVALID, OK, both_ways, call, fed_both_ways, finding, parse, text};
    use super::*;
    use crate::accumulator::Limits;

    /// A V3.1 call: the section's rules are every dialect's of the family.
    fn v31(name: &str, arguments: &str) -> String {
        format!("{CALL_BEGIN}{name}{SEP}{arguments}{CALL_END}")
    }

    fn events(whole: &str) -> Vec<DialectEvent> {
        both_ways::<DeepSeekV31>(whole)
    }

    #[test]
    fn calls_in_a_section_with_whitespace_between_them_and_text_around_it() {
        let whole = format!(
            "Hi {CALLS_BEGIN}{}\n {}{CALLS_END} bye",
            v31("f", r#"{"a": 1}"#),
            v31("g", "{}")
        );
        assert_eq!(
            events(&whole),
            vec![
                text("Hi "),
                call(0, Some("f"), r#"{"a":1}"#, None, OK),
                call(1, Some("g"), "{}", None, OK),
                text(" bye"),
            ]
        );
    }

    #[test]
    fn a_section_with_no_call_is_text_said() {
        assert_eq!(
            events(&format!("a{CALLS_BEGIN} \n{CALLS_END}b")),
            vec![
                text(&format!("a{CALLS_BEGIN} \n{CALLS_END}")),
                finding(FindingCode::MarkerInText, "a section of calls held no call", None),
                text("b"),
            ]
        );
    }

    #[test]
    fn text_that_opens_no_call_is_a_malformed_call_up_to_the_next() {
        let whole = format!("{CALLS_BEGIN}junk{}{CALLS_END}", v31("f", "{}"));
        let message = format!("no {CALL_BEGIN} opens the call");
        assert_eq!(
            events(&whole),
            vec![
                finding(FindingCode::MalformedCall, &message, Some(0)),
                call(0, None, "junk", None, INVALID),
                call(1, Some("f"), "{}", None, OK),
            ]
        );
        let cut = format!("the stream ended before {CALLS_END}");
        assert_eq!(
            events(&format!("{CALLS_BEGIN}g{SEP}{{")),
            vec![
                finding(FindingCode::MalformedCall, &message, Some(0)),
                finding(FindingCode::Cut, &cut, Some(0)),
                call(0, Some("g"), &format!("g{SEP}{{"), None, CUT),
            ]
        );
    }

    #[test]
    fn text_after_a_call_ends_the_section_and_the_stream_may_end_it() {
        let whole = format!("{CALLS_BEGIN}{} and more", v31("f", "{}"));
        let message = format!("the section of calls was not closed by {CALLS_END}");
        assert_eq!(
            events(&whole),
            vec![
                call(0, Some("f"), "{}", None, OK),
                finding(FindingCode::MissingEndMarker, &message, Some(0)),
                text("and more"),
            ]
        );
        let message = format!("the stream ended before {CALLS_END}");
        assert_eq!(
            events(&format!("{CALLS_BEGIN}{}", v31("f", "{}"))),
            vec![
                call(0, Some("f"), "{}", None, OK),
                finding(FindingCode::MissingEndMarker, &message, Some(0)),
            ]
        );
        let message = "the stream ended inside a section of calls, before its first call";
        assert_eq!(
            events(&format!("{CALLS_BEGIN}  ")),
            vec![finding(FindingCode::Cut, message, None)]
        );
    }

    #[test]
    fn a_call_without_its_end_marker_stands() {
        let whole = format!("{CALLS_BEGIN}{CALL_BEGIN}f{SEP}{{}} x");
        assert_eq!(
            events(&whole),
            vec![
                call(0, Some("f"), "{}", None, OK),
                finding(
                    FindingCode::MissingEndMarker,
                    &format!("no {CALL_END} after the call"),
                    Some(0)
                ),
                finding(
                    FindingCode::MissingEndMarker,
                    &format!("the section of calls was not closed by {CALLS_END}"),
                    Some(0)
                ),
                text("x"),
            ]
        );
    }

    #[test]
    fn arguments_that_break_are_the_call_s_text_up_to_its_end() {
        let whole = format!("{CALLS_BEGIN}{}{CALLS_END}", v31("f", "{x}"));
        assert_eq!(
            events(&whole),
            vec![
                finding(FindingCode::InvalidArguments, "the arguments are not JSON", Some(0)),
                call(0, Some("f"), &v31("f", "{x}"), None, INVALID),
            ]
        );
        let whole = format!("{CALLS_BEGIN}{CALL_BEGIN}f{SEP}{{\"a\": ");
        assert_eq!(
            events(&whole),
            vec![
                finding(
                    FindingCode::Cut,
                    &format!("the stream ended before {CALL_END}"),
                    Some(0)
                ),
                call(0, Some("f"), &format!("{CALL_BEGIN}f{SEP}{{\"a\": "), None, CUT),
            ]
        );
    }

    #[test]
    fn a_header_past_the_byte_limit_keeps_what_fits_and_reads_the_call_to_its_end() {
        let limits = Limits {
            max_argument_bytes: 16,
            ..Limits::default()
        };
        let whole = format!("{CALLS_BEGIN}{}{CALLS_END}ok", v31("f", "{}"));
        let too_large = "the call's header passed the limit on a call's bytes";
        assert_eq!(
            fed_both_ways::<DeepSeekV31>(&whole, None, false, limits),
            vec![
                finding(FindingCode::TooLarge, too_large, Some(0)),
                call(0, None, "<｜tool▁call", None, INVALID),
                text("ok"),
            ]
        );
    }

    #[test]
    fn a_megabyte_fed_a_char_at_a_time_is_read_in_linear_time() {
        let size = 1 << 20;
        let long = "x".repeat(size);
        let spaces = " ".repeat(size);
        // Each state that waits on what arrives: whitespace between calls and after a call's object, a header, a
        // call read on to its end, a value.
        let whole = format!(
            "{CALLS_BEGIN}{spaces}{CALL_BEGIN}f{long}{SEP}{{}}{CALL_END}{}{}{spaces}{CALL_END}{spaces}{CALLS_END}",
            v31("g", &format!("{{x{long}")),
            v31("h", &format!("{{\"a\": \"{long}\"}}")).replace(CALL_END, ""),
        );
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        let limits = Limits {
            max_argument_bytes: 64,
            ..Limits::default()
        };
        let events = parse::<DeepSeekV31>(&chars, None, false, limits);
        let too_large = "the call's header passed the limit on a call's bytes";
        let codes: Vec<_> = events
            .iter()
            .map(|event| match event {
                DialectEvent::Finding(finding) => Some(finding.code),
                _ => None,
            })
            .collect();
        assert_eq!(
            codes,
            vec![
                Some(FindingCode::TooLarge),
                None,
                Some(FindingCode::InvalidArguments),
                None,
                Some(FindingCode::TooLarge),
                None
            ]
        );
        assert_eq!(
            events.first(),
            Some(&finding(FindingCode::TooLarge, too_large, Some(0)))
        );
    }

    #[test]
    fn a_name_is_one_token() {
        assert_eq!(name_token(" f\u{a0}"), Ok("f".to_owned()));
        assert_eq!(name_token("a b"), Err(r#""a b" is not a function name"#.to_owned()));
        assert_eq!(
            name_token("\u{1c}"),
            Err("\"\\u001c\" is not a function name".to_owned())
        );
    }
}
