//! `qwen3_coder`: `<tool_call><function=NAME><parameter=K>V</parameter>…</function></tool_call>`, and `seed_oss`.
//!
//! Twin of the reference's `dialects/qwen3_coder.py`. Qwen3-Coder, Qwen3.5/3.6, Nemotron 3 Nano and Step 3.5 write it;
//! Seed-OSS wraps the same body in `<seed:tool_call>` and reasons in `<seed:think>`; `minimax_m2` spells
//! its tags otherwise ([`Tags`]). Values are raw text typed by the tool's schema (`raw_values`): one newline right
//! after `>` is a delimiter, and then so is one right before `</parameter>`; all other whitespace is the value's.
//! `</parameter>` ends a value only when `<parameter=` or `</function>` follows it (after whitespace), so a value may
//! hold the tag; a value that runs into `<parameter=` at the start of a line ends there (`MISSING_END_MARKER`). A call
//! is whole at `</function>`. `<function=` without the start marker opens a call (`MISSING_START_MARKER`). For
//! Qwen3.5, whose prompt opens reasoning, a call ends reasoning without `</think>`.

use std::fmt;
use std::marker::PhantomData;

use memchr::memmem;
use rustc_hash::FxHashSet;

use super::raw_values::typed_arguments;
use super::shared::{Called, Core, FindingCode, Findings, Grammar, Sink, is_space, quoted};

const FUNCTION: &str = "<function=";
/// The chars a message quotes of what stands where a tag belongs.
const SHOWN: usize = 20;

/// A dialect of `qwen3_coder`'s body: its markers and tags, and how it reads them.
pub(crate) trait Tags: Default + fmt::Debug {
    /// What opens a call in text: the start marker, and the function tag written without it.
    const STARTS: &'static [&'static str];
    const THINK: Option<(&'static str, &'static str)>;
    const CALL_ENDS_REASONING: bool;
    /// The block's markers.
    const START: &'static str;
    const END: &'static str;
    /// The body's tags.
    const FUNCTION: &'static str;
    const PARAMETER: &'static str;
    const VALUE_END: &'static str;
    const FUNCTION_END: &'static str;
    /// A parameter tag at a line's start (a newline, then `PARAMETER`): it ends a value whose end tag is missing.
    const RUN_ON: &'static str;
    /// Whether one newline at each end of a value is a delimiter (the templates write values on their own line).
    const NEWLINE_DELIMITED: bool;
    /// Whether a block holds several calls, so that the next function tag may follow a call's end tag.
    const SEVERAL_PER_BLOCK: bool;

    /// The name a tag's text (up to its `>`) gives, None when it gives none.
    fn tag_value(text: &str) -> Option<&str> {
        (!text.is_empty()).then_some(text)
    }
}

/// The tags of `qwen3_coder`.
#[derive(Debug, Default)]
pub(crate) struct Qwen3CoderTags;

impl Tags for Qwen3CoderTags {
    const STARTS: &'static [&'static str] = &["<tool_call>", FUNCTION];
    const THINK: Option<(&'static str, &'static str)> = Some(("<think>", "</think>"));
    const CALL_ENDS_REASONING: bool = true;
    const START: &'static str = "<tool_call>";
    const END: &'static str = "</tool_call>";
    const FUNCTION: &'static str = FUNCTION;
    const PARAMETER: &'static str = "<parameter=";
    const VALUE_END: &'static str = "</parameter>";
    const FUNCTION_END: &'static str = "</function>";
    const RUN_ON: &'static str = "\n<parameter=";
    const NEWLINE_DELIMITED: bool = true;
    const SEVERAL_PER_BLOCK: bool = false;
}

/// The tags of `seed_oss`: `qwen3_coder`'s body in `<seed:tool_call>`, reasoning in `<seed:think>`.
#[derive(Debug, Default)]
pub(crate) struct SeedOssTags;

impl Tags for SeedOssTags {
    const STARTS: &'static [&'static str] = &["<seed:tool_call>", FUNCTION];
    const THINK: Option<(&'static str, &'static str)> = Some(("<seed:think>", "</seed:think>"));
    const CALL_ENDS_REASONING: bool = false;
    const START: &'static str = "<seed:tool_call>";
    const END: &'static str = "</seed:tool_call>";
    const FUNCTION: &'static str = Qwen3CoderTags::FUNCTION;
    const PARAMETER: &'static str = Qwen3CoderTags::PARAMETER;
    const VALUE_END: &'static str = Qwen3CoderTags::VALUE_END;
    const FUNCTION_END: &'static str = Qwen3CoderTags::FUNCTION_END;
    const RUN_ON: &'static str = Qwen3CoderTags::RUN_ON;
    const NEWLINE_DELIMITED: bool = Qwen3CoderTags::NEWLINE_DELIMITED;
    const SEVERAL_PER_BLOCK: bool = Qwen3CoderTags::SEVERAL_PER_BLOCK;
}

/// The `qwen3_coder` dialect.
pub(crate) type Qwen3Coder = TagCalls<Qwen3CoderTags>;
/// The `seed_oss` dialect.
pub(crate) type SeedOss = TagCalls<SeedOssTags>;

/// How far the search of a value has come, kept between steps so that each byte of a value is searched about once.
#[derive(Debug, Default, Clone, Copy)]
struct Search {
    /// Bytes of the value searched for its end; the next search starts a marker's length before.
    searched: usize,
    /// Bytes of the value measured against the limit, and how many of them are not yet in the call's size.
    measured: usize,
    pending: usize,
    /// An end tag whose follower is undecided, and where the whitespace after it, skipped so far, ends.
    spaced: Option<(usize, usize)>,
}

/// Where a call is.
#[derive(Debug, Default)]
enum State {
    /// Not in a call.
    #[default]
    Idle,
    /// After the start marker: the function tag or prose. Holds the marker and the whitespace after it.
    Open { held: String },
    /// In the function tag's name; `scanned` bytes of it hold no `>`.
    Name { scanned: usize },
    /// Between tags: a parameter or the function's end.
    Body,
    /// In a parameter tag's name.
    Key { scanned: usize },
    /// In a value, the cursor at its start until it is taken.
    Value(Search),
    /// The call broke (or passed the limit): everything up to the function's end is its text.
    Skip,
    /// The call is whole: the end marker (or, in a block of several, the next function tag) is expected after
    /// whitespace, of which `spaced` bytes were skipped so far.
    End { spaced: usize },
}

/// What a call gathered so far.
#[derive(Debug, Default)]
struct Gathered {
    /// Opened by the start marker (not by the function tag alone).
    marked: bool,
    name: Option<String>,
    /// The parameter being read.
    key: String,
    parameters: Vec<(String, String)>,
    /// The keys of `parameters`, so that a repeat is found in constant time.
    keys: FxHashSet<String>,
    findings: Findings,
    /// The call's text as it arrived: its arguments when it is not read.
    raw: String,
    /// Bytes of the values taken.
    size: usize,
    /// The values passed the limit: nothing of the call is kept.
    overflow: bool,
}

/// What reading a tag's name gave.
enum Tag {
    /// No `>` yet, in the bytes scanned.
    Unread {
        scanned: usize,
    },
    Named(String),
    /// The tag broke: the call is malformed.
    Broken,
}

/// A dialect of `qwen3_coder`'s body, spelled by `T`.
#[derive(Debug)]
pub(crate) struct TagCalls<T: Tags> {
    state: State,
    call: Gathered,
    tags: PhantomData<T>,
}

impl<T: Tags> Default for TagCalls<T> {
    fn default() -> Self {
        Self {
            state: State::Idle,
            call: Gathered::default(),
            tags: PhantomData,
        }
    }
}

impl<T: Tags> Grammar for TagCalls<T> {
    const STARTS: &'static [&'static str] = T::STARTS;
    const THINK: Option<(&'static str, &'static str)> = T::THINK;
    const CALL_ENDS_REASONING: bool = T::CALL_ENDS_REASONING;

    fn open(&mut self, _: &mut Core, marker: &'static str) {
        let bare = marker == T::FUNCTION;
        let mut findings = Findings::new();
        if bare {
            let message = format!("{} came without {}", T::FUNCTION, T::START);
            findings.push((FindingCode::MissingStartMarker, message));
        }
        self.call = Gathered {
            marked: !bare,
            findings,
            raw: marker.to_owned(),
            ..Gathered::default()
        };
        self.state = if bare {
            State::Name { scanned: 0 }
        } else {
            State::Open {
                held: marker.to_owned(),
            }
        };
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        match &mut self.state {
            State::Idle => false,
            State::Open { held } => {
                held.push_str(core.skip_whitespace());
                if core.peek().is_none() || (core.is_final() && T::FUNCTION.starts_with(core.rest())) {
                    return false; // the end of the stream cuts the call here
                }
                match core.starts_with(T::FUNCTION, core.cursor()) {
                    None => false,
                    Some(true) => {
                        core.advance(T::FUNCTION.len());
                        self.call.raw = std::mem::take(held) + T::FUNCTION;
                        self.state = State::Name { scanned: 0 };
                        true
                    }
                    Some(false) => {
                        core.text(held);
                        let message = format!("{} was not followed by {}", T::START, T::FUNCTION);
                        core.finding(FindingCode::MarkerInText, message, None);
                        self.leave(core);
                        true
                    }
                }
            }
            State::Name { scanned } => match self.call.tag::<T>(core, *scanned) {
                Tag::Unread { scanned: now } => {
                    *scanned = now;
                    false
                }
                Tag::Named(name) => {
                    self.call.name = Some(name);
                    self.state = State::Body;
                    true
                }
                Tag::Broken => {
                    self.state = State::Skip;
                    true
                }
            },
            State::Body => self.advance_body(core),
            State::Key { scanned } => match self.call.tag::<T>(core, *scanned) {
                Tag::Unread { scanned: now } => {
                    *scanned = now;
                    false
                }
                Tag::Named(key) => {
                    self.call.key = key;
                    self.state = State::Value(Search::default());
                    true
                }
                Tag::Broken => {
                    self.state = State::Skip;
                    true
                }
            },
            State::Value(search) => {
                let search = *search;
                self.advance_value(core, search)
            }
            State::Skip => {
                let mut released = String::new();
                let found = core.release_until(&[T::FUNCTION_END], Sink::Into(&mut released));
                released.push_str(found.unwrap_or_default());
                self.call.keep(&released, core.limits.max_argument_bytes);
                if found.is_none() {
                    return false;
                }
                self.whole(core, true);
                true
            }
            State::End { spaced } => {
                let spaced = *spaced;
                self.advance_end(core, spaced)
            }
        }
    }

    fn cut(&mut self, core: &mut Core) {
        if matches!(std::mem::take(&mut self.state), State::Value(_)) && !self.call.overflow {
            self.call.raw.push_str(core.rest());
        }
        let mut call = std::mem::take(&mut self.call);
        let cut = format!("the stream ended before {}", T::FUNCTION_END);
        call.findings.push((FindingCode::Cut, cut));
        let called = Called {
            name: call.name,
            arguments: call.raw,
            id: None,
            findings: call.findings,
        };
        core.call(called, false);
    }
}

impl<T: Tags> TagCalls<T> {
    /// How far back a search starts again: a marker may straddle what was searched and what arrived.
    const LOOKBACK: usize = if T::VALUE_END.len() > T::RUN_ON.len() {
        T::VALUE_END.len()
    } else {
        T::RUN_ON.len()
    };

    fn advance_body(&mut self, core: &mut Core) -> bool {
        self.call.raw.push_str(core.skip_whitespace());
        for (literal, whole) in [(T::PARAMETER, false), (T::FUNCTION_END, true)] {
            match core.starts_with(literal, core.cursor()) {
                None => return false,
                Some(false) => {}
                Some(true) => {
                    core.advance(literal.len());
                    self.call.raw.push_str(literal);
                    if whole {
                        self.whole(core, false);
                    } else {
                        self.state = State::Key { scanned: 0 };
                    }
                    return true;
                }
            }
        }
        let arrived = core.rest().chars().take(SHOWN).count();
        if arrived == 0 || (arrived < SHOWN && !core.is_final()) {
            return false; // the message quotes what stands here: as much of it whatever the split
        }
        let seen: String = core.rest().chars().take(SHOWN).collect();
        let why = format!("{} where a parameter or {} belongs", quoted(&seen), T::FUNCTION_END);
        self.call.findings.push((FindingCode::MalformedCall, why));
        self.state = State::Skip;
        true
    }

    /// The value's end: `</parameter>` before a parameter or the function's end, or a parameter tag at a line's
    /// start. Positions are the value's, from the cursor (its start).
    fn advance_value(&mut self, core: &mut Core, mut search: Search) -> bool {
        let rest = core.rest().as_bytes();
        let length = rest.len();
        let mut at = search.searched.saturating_sub(Self::LOOKBACK);
        loop {
            let close = find(rest, at, T::VALUE_END);
            // Only a run-on tag before the end tag counts, and one cannot overlap it: each byte is searched once.
            let before = rest.get(..close.unwrap_or(length)).unwrap_or_default();
            if let Some(run_on) = find(before, at, T::RUN_ON) {
                let why = format!("the parameter {} had no {}", quoted(&self.call.key), T::VALUE_END);
                self.take_value(core, run_on + 1, run_on + 1);
                self.call.findings.push((FindingCode::MissingEndMarker, why));
                return true;
            }
            let Some(close) = close else { break };
            let mut after = match search.spaced {
                Some((spaced, after)) if spaced == close => after,
                _ => close + T::VALUE_END.len(),
            };
            after += rest
                .get(after..)
                .map_or(0, |tail| tail.iter().take_while(|&&byte| is_space(byte)).count());
            let there = core.cursor() + after;
            let ends = [
                core.starts_with(T::PARAMETER, there),
                core.starts_with(T::FUNCTION_END, there),
            ];
            if ends.contains(&Some(true)) || (after == length && core.is_final()) {
                self.take_value(core, close, close + T::VALUE_END.len());
                return true;
            }
            if ends.contains(&None) || after == length {
                search.searched = close;
                search.spaced = Some((close, after));
                self.state = State::Value(search);
                return false;
            }
            at = close + 1;
        }
        search.searched = length;
        if !self.call.overflow {
            // The value's bytes so far, less an end that may start its end tag (which the value does not hold).
            let measured = length.saturating_sub(Self::LOOKBACK - 1).max(search.measured);
            search.pending += measured - search.measured;
            search.measured = measured;
            if self.call.size + search.pending > core.limits.max_argument_bytes {
                self.call.too_large();
            }
        }
        if self.call.overflow {
            // The value passed the limit: it is still read to its end (where the call goes on whatever the split),
            // and what was searched goes, less what may start a marker.
            let mut dropped = length.saturating_sub(Self::LOOKBACK);
            while !core.rest().is_char_boundary(dropped) {
                dropped -= 1;
            }
            core.advance(dropped);
            search.searched -= dropped;
            search.spaced = None;
        }
        self.state = State::Value(search);
        false
    }

    /// Takes the value (its first `end` bytes) and the cursor to `resume`, unless the values pass the limit.
    fn take_value(&mut self, core: &mut Core, end: usize, resume: usize) {
        let call = &mut self.call;
        let rest = core.rest();
        let raw = rest.get(..end).unwrap_or_default();
        if !call.overflow {
            call.size += raw.len();
            if call.size > core.limits.max_argument_bytes {
                call.too_large();
            }
        }
        if call.overflow {
            core.advance(resume);
            self.state = State::Skip;
            return;
        }
        call.raw.push_str(rest.get(..resume).unwrap_or_default());
        let value = match raw.strip_prefix('\n') {
            Some(inner) if T::NEWLINE_DELIMITED => inner.strip_suffix('\n').unwrap_or(inner),
            _ => raw,
        };
        if call.keys.contains(&call.key) {
            let why = format!("the parameter {} is given twice; the first is kept", quoted(&call.key));
            call.findings.push((FindingCode::MalformedCall, why));
        } else {
            call.keys.insert(call.key.clone());
            call.parameters.push((call.key.clone(), value.to_owned()));
        }
        core.advance(resume);
        self.state = State::Body;
    }

    /// `</function>`: the call is whole; its values are typed (unless it broke) and it is handed over.
    fn whole(&mut self, core: &mut Core, broken: bool) {
        let call = std::mem::take(&mut self.call);
        let mut findings = call.findings;
        let arguments = if broken {
            call.raw
        } else {
            let pairs = call
                .parameters
                .iter()
                .map(|(key, value)| (key.as_str(), value.as_str()));
            let parameters = core.schema(call.name.as_deref());
            typed_arguments(pairs, parameters, core.limits.max_depth, |kind, message| {
                findings.push((kind.code(), message));
            })
        };
        let called = Called {
            name: call.name,
            arguments,
            id: None,
            findings,
        };
        core.call(called, true);
        self.call.marked = call.marked;
        self.state = State::End { spaced: 0 };
    }

    fn advance_end(&mut self, core: &mut Core, spaced: usize) -> bool {
        let rest = core.rest().as_bytes();
        let spaced = spaced
            + rest
                .get(spaced..)
                .map_or(0, |after| after.iter().take_while(|&&byte| is_space(byte)).count());
        let at = core.cursor() + spaced;
        if core.ends_at(at) && !core.is_final() {
            self.state = State::End { spaced };
            return false;
        }
        if T::SEVERAL_PER_BLOCK && self.call.marked && !core.ends_at(at) {
            match core.starts_with(T::FUNCTION, at) {
                None => return false,
                Some(true) => {
                    // The block's next call: read as the first was, from its function tag on.
                    self.open(core, T::START);
                    self.state = State::Open { held: String::new() };
                    return true;
                }
                Some(false) => {}
            }
        }
        let closed = if core.ends_at(at) {
            Some(false)
        } else {
            core.starts_with(T::END, at)
        };
        let Some(closed) = closed else { return false };
        if closed {
            core.take_to(at + T::END.len());
        } else if self.call.marked {
            let call = core.calls().checked_sub(1);
            core.finding(
                FindingCode::MissingEndMarker,
                format!("no {} after the call", T::END),
                call,
            );
        }
        self.leave(core);
        true
    }

    fn leave(&mut self, core: &mut Core) {
        self.state = State::Idle;
        self.call = Gathered::default();
        core.leave_call();
    }
}

impl Gathered {
    /// The name of a function or parameter tag up to its `>` (taken); a tag broken by a newline or `<` before its
    /// `>` is malformed. Of the tag's text, the first `scanned` bytes were searched before.
    fn tag<T: Tags>(&mut self, core: &mut Core, scanned: usize) -> Tag {
        let rest = core.rest();
        let found = rest
            .as_bytes()
            .get(scanned..)
            .unwrap_or_default()
            .iter()
            .position(|&byte| matches!(byte, b'>' | b'\n' | b'<'));
        let Some(at) = found.map(|found| found + scanned) else {
            return Tag::Unread { scanned: rest.len() };
        };
        let text = rest.get(..at).unwrap_or_default();
        if rest.as_bytes().get(at) != Some(&b'>') {
            self.raw.push_str(text);
            let why = format!("a tag without '>': {}", quoted(text));
            core.advance(at);
            return self.broken(why);
        }
        self.raw.push_str(rest.get(..=at).unwrap_or_default());
        let named = T::tag_value(text).map(str::to_owned).ok_or_else(|| {
            if text.is_empty() {
                "a tag with no name".to_owned()
            } else {
                format!("a tag whose name is not in double quotes: {}", quoted(text))
            }
        });
        core.advance(at + 1);
        match named {
            Ok(name) => Tag::Named(name),
            Err(why) => self.broken(why),
        }
    }

    fn too_large(&mut self) {
        let why = "the call's values passed the limit on a call's bytes".to_owned();
        self.findings.push((FindingCode::TooLarge, why));
        // Nothing of the call is kept: where the limit was found depends on how the text was split.
        self.raw = String::new();
        self.overflow = true;
    }

    /// Adds `text` to the call's text, which stands for its arguments; past the limit, nothing is kept.
    fn keep(&mut self, text: &str, limit: usize) {
        if self.overflow {
            return;
        }
        if self.raw.len() + text.len() > limit {
            let why = "the call's text passed the limit on a call's bytes".to_owned();
            self.findings.push((FindingCode::TooLarge, why));
            self.raw = String::new();
            self.overflow = true;
            return;
        }
        self.raw.push_str(text);
    }

    fn broken(&mut self, why: String) -> Tag {
        self.findings.push((FindingCode::MalformedCall, why));
        Tag::Broken
    }
}

/// Where `marker` first occurs in `bytes` from `from` on.
fn find(bytes: &[u8], from: usize, marker: &str) -> Option<usize> {
    let found = memmem::find(bytes.get(from..)?, marker.as_bytes())?;
    Some(from + found)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::shared::{DialectEvent, Tools};
    use super::super::test_support::{
        CUT, INVALID, OK, both_ways, call, fed_both_ways, fed_by_char, finding, merged, parse, text,
    };
    use super::*;
    use crate::accumulator::Limits;

    pub(crate) fn weather() -> Tools {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}},
        });
        [("get_weather".to_owned(), schema)].into_iter().collect()
    }

    #[test]
    fn a_call_s_values_are_typed_by_the_schema_and_one_newline_each_side_is_a_delimiter() {
        let whole = "Hi <tool_call>\n<function=get_weather>\n<parameter=city>\n Paris \n\n</parameter>\n\
                     <parameter=days>\n3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n</function>\n\
                     </tool_call> bye";
        let events = fed_both_ways::<Qwen3Coder>(whole, Some(&weather()), false, Limits::default());
        let arguments = r#"{"city":" Paris \n","days":3,"metric":true}"#;
        assert_eq!(
            events,
            vec![
                text("Hi "),
                call(0, Some("get_weather"), arguments, None, OK),
                text(" bye")
            ]
        );
    }

    #[test]
    fn values_no_type_reads_or_no_schema_describes_are_kept_as_strings() {
        let whole = "<tool_call><function=get_weather><parameter=days>three</parameter><parameter=x>1</parameter>\
                     </function></tool_call>";
        let events = fed_both_ways::<Qwen3Coder>(whole, Some(&weather()), false, Limits::default());
        assert_eq!(
            events,
            vec![
                finding(
                    FindingCode::UntypedValue,
                    r#"the parameter "days": "three" is not integer; kept as a string"#,
                    Some(0)
                ),
                finding(
                    FindingCode::NoSchema,
                    r#"the parameter of "x" has no schema; its value is kept as a string"#,
                    Some(0)
                ),
                call(0, Some("get_weather"), r#"{"days":"three","x":"1"}"#, None, INVALID),
            ]
        );
    }

    #[test]
    fn a_value_may_hold_its_end_tag_and_a_run_on_value_ends_at_a_parameter_tag_on_a_new_line() {
        let whole = "<tool_call><function=f><parameter=a>x</parameter> y</parameter><parameter=b>1\n\
                     <parameter=c>2</parameter></function></tool_call>";
        let events = both_ways::<Qwen3Coder>(whole);
        let no_schema = |key: &str| {
            let message = format!(r#"the tool of "{key}" has no schema; its value is kept as a string"#);
            finding(FindingCode::NoSchema, &message, Some(0))
        };
        let missing = r#"the parameter "b" had no </parameter>"#;
        assert_eq!(
            events,
            vec![
                finding(FindingCode::MissingEndMarker, missing, Some(0)),
                no_schema("a"),
                no_schema("b"),
                no_schema("c"),
                call(0, Some("f"), r#"{"a":"x</parameter> y","b":"1\n","c":"2"}"#, None, OK),
            ]
        );
    }

    #[test]
    fn a_function_tag_alone_opens_a_call_and_a_start_marker_before_prose_is_text() {
        let events = both_ways::<Qwen3Coder>("<function=f></function> and <tool_call> x");
        assert_eq!(
            events,
            vec![
                finding(
                    FindingCode::MissingStartMarker,
                    "<function= came without <tool_call>",
                    Some(0)
                ),
                call(0, Some("f"), "{}", None, OK),
                text(" and <tool_call> "),
                finding(
                    FindingCode::MarkerInText,
                    "<tool_call> was not followed by <function=",
                    None
                ),
                text("x"),
            ]
        );
    }

    #[test]
    fn a_broken_call_is_its_text_up_to_the_function_s_end_and_a_repeat_keeps_the_first() {
        let whole = "<tool_call><function=f\n<parameter=a>1</parameter></function></tool_call>";
        let events = both_ways::<Qwen3Coder>(whole);
        let raw = "<tool_call><function=f\n<parameter=a>1</parameter></function>";
        assert_eq!(
            events,
            vec![
                finding(FindingCode::MalformedCall, r#"a tag without '>': "f""#, Some(0)),
                call(0, None, raw, None, INVALID),
            ]
        );
        let whole = "<tool_call><function=f><parameter=a>1</parameter><parameter=a>2</parameter></function>";
        let events = both_ways::<Qwen3Coder>(whole);
        let twice = r#"the parameter "a" is given twice; the first is kept"#;
        assert_eq!(
            events.first(),
            Some(&finding(FindingCode::MalformedCall, twice, Some(0)))
        );
        assert_eq!(events.get(2), Some(&call(0, Some("f"), r#"{"a":"1"}"#, None, INVALID)));
    }

    #[test]
    fn a_broken_call_past_the_limit_keeps_nothing_and_its_message_is_the_same_whatever_the_split() {
        let limits = Limits {
            max_argument_bytes: 48,
            ..Limits::default()
        };
        let whole = format!("<tool_call><function=f>{}</function></tool_call>", "x".repeat(40));
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        let events = merged(parse::<Qwen3Coder>(&chars, None, false, limits));
        let shown = format!("\"{}\" where a parameter or </function> belongs", "x".repeat(20));
        let too_large = "the call's text passed the limit on a call's bytes";
        assert_eq!(
            events,
            vec![
                finding(FindingCode::MalformedCall, &shown, Some(0)),
                finding(FindingCode::TooLarge, too_large, Some(0)),
                call(0, Some("f"), "", None, INVALID),
            ]
        );
        assert_eq!(merged(parse::<Qwen3Coder>(&[&whole], None, false, limits)), events);
    }

    #[test]
    fn a_cut_call_keeps_its_text_and_the_value_so_far() {
        let events = both_ways::<Qwen3Coder>("<tool_call>\n<function=f>\n<parameter=a>\nhalf");
        let cut = finding(FindingCode::Cut, "the stream ended before </function>", Some(0));
        let raw = "<tool_call>\n<function=f>\n<parameter=a>\nhalf";
        assert_eq!(events, vec![cut, call(0, Some("f"), raw, None, CUT)]);
    }

    #[test]
    fn a_call_ends_qwen_s_reasoning_but_not_seed_s() {
        let whole = "<think>plan <tool_call><function=f></function></tool_call>";
        let events = both_ways::<Qwen3Coder>(whole);
        assert_eq!(
            events,
            vec![
                DialectEvent::Reasoning("plan ".to_owned()),
                call(0, Some("f"), "{}", None, OK)
            ]
        );
        let whole = "<seed:think>plan <seed:tool_call><function=f></function></seed:tool_call></seed:think>";
        let events = both_ways::<SeedOss>(whole);
        let reasoning = "plan <seed:tool_call><function=f></function></seed:tool_call>";
        assert_eq!(events, vec![DialectEvent::Reasoning(reasoning.to_owned())]);
    }

    #[test]
    fn values_past_the_limit_make_the_call_too_large_whatever_the_split() {
        let limits = Limits {
            max_argument_bytes: 16,
            ..Limits::default()
        };
        let whole = format!("<function=f><parameter=a>{}</parameter></function>", "y".repeat(40));
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        let at_once = parse::<Qwen3Coder>(&[&whole], None, false, limits);
        assert_eq!(
            merged(parse::<Qwen3Coder>(&chars, None, false, limits)),
            merged(at_once.clone())
        );
        let too_large = "the call's values passed the limit on a call's bytes";
        assert_eq!(
            at_once.get(1),
            Some(&finding(FindingCode::TooLarge, too_large, Some(0)))
        );
    }

    #[test]
    fn a_value_past_the_limit_is_read_to_its_end_whatever_the_split() {
        let limits = Limits {
            max_argument_bytes: 24,
            ..Limits::default()
        };
        let whole = format!(
            "<tool_call><function=f><parameter=a>{}</function>y</parameter></function></tool_call> ok",
            "é".repeat(30)
        );
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        let events = merged(parse::<Qwen3Coder>(&chars, None, false, limits));
        let too_large = "the call's values passed the limit on a call's bytes";
        assert_eq!(
            events,
            vec![
                finding(FindingCode::TooLarge, too_large, Some(0)),
                call(0, Some("f"), "", None, INVALID),
                text(" ok")
            ]
        );
        assert_eq!(merged(parse::<Qwen3Coder>(&[&whole], None, false, limits)), events);
        // A value within the limit is not too large while its end tag arrives, though the two pass it.
        let whole = "<tool_call><function=f><parameter=a>é </parameter> x</parameter></function></tool_call>";
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        let events = merged(parse::<Qwen3Coder>(&chars, None, false, limits));
        assert_eq!(
            events.last(),
            Some(&call(0, Some("f"), r#"{"a":"é </parameter> x"}"#, None, OK))
        );
    }

    #[test]
    fn a_megabyte_fed_a_char_at_a_time_is_read_in_linear_time() {
        let mega = 1 << 20;
        let limits = Limits {
            max_argument_bytes: 4 * mega,
            ..Limits::default()
        };
        // A long value, whitespace after an end tag whose follower is not known yet, a long tag, a long gap.
        let spaces = " ".repeat(mega);
        let whole = format!(
            "<tool_call><function=f><parameter=a>{}</parameter>{spaces}<parameter={}>1</parameter></function>\
             {spaces}</tool_call>",
            "x</parameter>y".repeat(mega / 16),
            "k".repeat(mega),
        );
        let out = fed_by_char::<Qwen3Coder>(&whole, limits);
        let calls = out
            .iter()
            .filter(|event| matches!(event, DialectEvent::Call(call) if call.valid))
            .count();
        assert_eq!((calls, out.len()), (1, 3));
    }

    #[test]
    fn the_run_on_tag_is_a_newline_and_the_parameter_tag() {
        for (parameter, run_on) in [
            (Qwen3CoderTags::PARAMETER, Qwen3CoderTags::RUN_ON),
            (SeedOssTags::PARAMETER, SeedOssTags::RUN_ON),
        ] {
            assert_eq!(format!("\n{parameter}"), run_on);
        }
    }
}
