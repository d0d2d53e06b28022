//! A marker, a JSON array of call objects, an optional end marker: what `granite`, `phi4_mini`, `xlam`, `apriel` and
//! `cohere_command` share, each one a [`Layout`] of [`JsonArray`].
//!
//! Twin of the reference's `dialects/_json_array.py`. A layout names its openers: each start marker with the end
//! marker its array is closed by (or none), the markers that only frame text and are dropped from it (Cohere's
//! `<|START_RESPONSE|>`), and whether a bare array opens calls (xLAM); and the keys of a call object. After a start
//! marker (and whitespace) comes `[`, or the marker is text (`MARKER_IN_TEXT`); each element is a call, its members in
//! any order (Granite writes `arguments` first), handed over the moment it closes; an element that breaks ends the
//! array, and what follows it is text. After `]` (and whitespace) the end marker, when the opener has one, is taken;
//! when something else comes, the calls stand and a `MISSING_END_MARKER` says so. A bare array is `[{` followed by a
//! call's head (its name key or an arguments key, then `:`, whitespace between the tokens): held back only while it
//! can still be one, and text the moment it cannot.

use std::fmt;
use std::marker::PhantomData;

use super::shared::{
    CallKeys, Called, Core, FindingCode, Grammar, JsonReader, Read, is_space, json_call, leading_name, quoted,
};

/// The opener of a bare array: `[` with its first element's `{` right after it.
pub(crate) const BARE: &str = "[{";
const NOT_CLOSED: &str = "the array of calls was not closed by ']'";
const NOT_JSON: &str = "the call is not JSON";

/// What a start marker opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opener {
    /// A JSON array of calls, closed by the end marker given (or by its `]` alone).
    Array(Option<&'static str>),
    /// Nothing: the marker frames text and is dropped from it.
    Silent,
    /// A bare array ([`BARE`]), a call array only when a call's head follows.
    Bare,
}

/// A "marker + JSON array" dialect's configuration.
pub(crate) trait Layout: fmt::Debug + Default {
    /// Each start marker and what it opens, in the order the reference's `starts` has them.
    const OPENERS: &'static [(&'static str, Opener)];
    /// The markers of [`Layout::OPENERS`], in its order (a const slice the runner takes; a unit test holds the two
    /// to one another).
    const STARTS: &'static [&'static str];
    /// The reasoning block's markers, if the family has them.
    const THINK: Option<(&'static str, &'static str)> = None;
    /// The members of a call object.
    const KEYS: CallKeys = CallKeys::NAME_ARGUMENTS;
}

/// Where a call is.
#[derive(Debug, Default)]
enum State {
    /// Not in a call.
    #[default]
    Idle,
    /// After the start marker and its whitespace (`held`, text if no array follows): `[` decides.
    Open { marker: &'static str, held: String },
    /// A bare array's head: `held` from `[{`, the key matched so far, and whether it is whole (then `:` is due).
    Head { held: String, key: String, keyed: bool },
    /// After `[` or `,`: the next element, or (after `[` only, whose text `held` is) the end of an empty array.
    Next { marker: &'static str, held: Option<String> },
    /// An element of the array, a call.
    Element {
        marker: &'static str,
        reader: Box<JsonReader>,
    },
    /// After an element: `,` and the next, or `]`.
    Array { marker: &'static str },
    /// After `]`: whitespace (`gap`, text if the end marker does not come), then the end marker.
    End { end: &'static str, gap: String },
}

/// A "marker + JSON array" dialect: the grammar every [`Layout`] shares.
pub(crate) struct JsonArray<L: Layout> {
    state: State,
    layout: PhantomData<L>,
}

impl<L: Layout> Default for JsonArray<L> {
    fn default() -> Self {
        Self {
            state: State::Idle,
            layout: PhantomData,
        }
    }
}

impl<L: Layout> fmt::Debug for JsonArray<L> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("JsonArray")
            .field("layout", &L::default())
            .field("state", &self.state)
            .finish()
    }
}

impl<L: Layout> Grammar for JsonArray<L> {
    const STARTS: &'static [&'static str] = L::STARTS;
    const THINK: Option<(&'static str, &'static str)> = L::THINK;

    fn open(&mut self, core: &mut Core, marker: &'static str) {
        self.state = match opener::<L>(marker) {
            Opener::Silent => {
                core.leave_call();
                State::Idle
            }
            Opener::Bare => State::Head {
                held: marker.to_owned(),
                key: String::new(),
                keyed: false,
            },
            Opener::Array(_) => State::Open {
                marker,
                held: marker.to_owned(),
            },
        };
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        match &mut self.state {
            State::Idle => false,
            State::Open { marker, held } => {
                held.push_str(core.skip_whitespace());
                let marker = *marker;
                match core.peek() {
                    // Whitespace is held only up to a call's bytes: past them, no array is coming.
                    None if held.len() <= core.limits.max_argument_bytes => false,
                    Some(b'[') => {
                        core.advance(1);
                        held.push('[');
                        self.state = State::Next {
                            marker,
                            held: Some(std::mem::take(held)),
                        };
                        true
                    }
                    None | Some(_) => {
                        let held = std::mem::take(held);
                        let why = format!("{marker} was not followed by a JSON array");
                        self.not_a_call(core, &held, Some(why));
                        true
                    }
                }
            }
            State::Head { .. } => self.advance_head(core),
            State::Next { marker, held } => {
                let marker = *marker;
                let spaces = core.skip_whitespace();
                if let Some(held) = held {
                    held.push_str(spaces);
                }
                match core.peek() {
                    None => false,
                    Some(b']') if held.is_some() => {
                        core.advance(1);
                        let mut held = held.take().unwrap_or_default();
                        held.push(']');
                        let why = format!("{marker} was followed by an empty array");
                        self.not_a_call(core, &held, Some(why));
                        true
                    }
                    Some(_) => {
                        self.state = State::Element {
                            marker,
                            reader: Box::new(JsonReader::new(&core.limits)),
                        };
                        true
                    }
                }
            }
            State::Element { .. } => self.advance_element(core),
            State::Array { marker } => {
                let marker = *marker;
                core.skip_whitespace();
                match core.peek() {
                    None => false,
                    Some(b',') => {
                        core.advance(1);
                        self.state = State::Next { marker, held: None };
                        true
                    }
                    Some(b']') => {
                        core.advance(1);
                        match opener::<L>(marker) {
                            Opener::Array(Some(end)) => {
                                self.state = State::End {
                                    end,
                                    gap: String::new(),
                                };
                            }
                            _ => self.leave(core),
                        }
                        true
                    }
                    Some(_) => {
                        let call = core.calls().checked_sub(1);
                        core.finding(FindingCode::MissingEndMarker, NOT_CLOSED, call);
                        self.leave(core);
                        true
                    }
                }
            }
            State::End { .. } => self.advance_end(core),
        }
    }

    fn cut(&mut self, core: &mut Core) {
        let called = match std::mem::take(&mut self.state) {
            State::Idle => return,
            State::Head { held, .. } => {
                core.text(&held);
                return;
            }
            State::Open { marker, .. } | State::Next { marker, held: Some(_) } => Called {
                findings: vec![(
                    FindingCode::Cut,
                    format!("the stream ended inside the call after {marker}"),
                )],
                ..Called::default()
            },
            State::Element { reader, .. } => {
                element::<L>(reader.text(), (FindingCode::Cut, "the stream ended inside the call"))
            }
            State::Next { held: None, .. } => {
                let why = "the stream ended inside the array of calls, before its next call";
                core.finding(FindingCode::Cut, why, None);
                return;
            }
            State::Array { .. } => {
                let call = core.calls().checked_sub(1);
                core.finding(FindingCode::MissingEndMarker, NOT_CLOSED, call);
                return;
            }
            State::End { end, gap } => {
                missing_end(core, end, &gap);
                return;
            }
        };
        core.call(called, false);
    }
}

impl<L: Layout> JsonArray<L> {
    fn advance_head(&mut self, core: &mut Core) -> bool {
        let State::Head { held, key, keyed } = &mut self.state else {
            return false;
        };
        let keys = L::KEYS;
        let candidates: Vec<String> = std::iter::once(keys.name)
            .chain(keys.arguments.iter().copied())
            .map(quoted)
            .collect();
        let mut taken = 0;
        let mut decided = None;
        for char in core.rest().chars() {
            if *keyed {
                if char == ':' {
                    held.push(char);
                    taken += char.len_utf8();
                    decided = Some(true);
                    break;
                }
                if !is_json_space(char) {
                    decided = Some(false);
                    break;
                }
            } else if !is_json_space(char) || !key.is_empty() {
                key.push(char);
                if !candidates.iter().any(|candidate| candidate.starts_with(key.as_str())) {
                    decided = Some(false);
                    break;
                }
                *keyed = candidates.iter().any(|candidate| candidate == key);
            }
            held.push(char);
            taken += char.len_utf8();
            if held.len() > core.limits.max_argument_bytes {
                decided = Some(false);
                break;
            }
        }
        core.advance(taken);
        match decided {
            None => false,
            Some(false) => {
                let held = std::mem::take(held);
                self.not_a_call(core, &held, None);
                true
            }
            Some(true) => {
                let mut reader = Box::new(JsonReader::new(&core.limits));
                reader.take(held.get(1..).unwrap_or_default());
                self.state = State::Element { marker: BARE, reader };
                true
            }
        }
    }

    fn advance_end(&mut self, core: &mut Core) -> bool {
        let State::End { end, gap } = &mut self.state else {
            return false;
        };
        let end = *end;
        gap.push_str(core.skip_whitespace());
        match core.starts_with(end, core.cursor()) {
            // Whitespace is held only up to a call's bytes: past them, the end marker is not coming.
            None if gap.len() <= core.limits.max_argument_bytes => false,
            None | Some(false) => {
                let gap = std::mem::take(gap);
                missing_end(core, end, &gap);
                self.leave(core);
                true
            }
            Some(true) => {
                core.advance(end.len());
                self.leave(core);
                true
            }
        }
    }

    fn advance_element(&mut self, core: &mut Core) -> bool {
        let State::Element { marker, reader } = &mut self.state else {
            return false;
        };
        let marker = *marker;
        let (read, taken) = reader.take(core.rest());
        core.advance(taken);
        match read {
            Read::Incomplete => false,
            Read::Complete => {
                core.call(json_call(reader, &L::KEYS), true);
                self.state = State::Array { marker };
                true
            }
            Read::Invalid => {
                // The array cannot be followed past a broken element: it ends there, and what follows is text.
                core.call(
                    element::<L>(reader.text(), (FindingCode::MalformedCall, NOT_JSON)),
                    true,
                );
                self.leave(core);
                true
            }
        }
    }

    /// What followed the opener is no array of calls: `held` is text (`why` said, when given).
    fn not_a_call(&mut self, core: &mut Core, held: &str, why: Option<String>) {
        core.text(held);
        if let Some(why) = why {
            core.finding(FindingCode::MarkerInText, why, None);
        }
        self.leave(core);
    }

    fn leave(&mut self, core: &mut Core) {
        self.state = State::Idle;
        core.leave_call();
    }
}

/// Whether `char` is JSON whitespace.
fn is_json_space(char: char) -> bool {
    u8::try_from(char).is_ok_and(is_space)
}

/// What `marker`, one of the layout's starts, opens.
fn opener<L: Layout>(marker: &str) -> Opener {
    L::OPENERS
        .iter()
        .find(|(start, _)| *start == marker)
        .map_or(Opener::Silent, |&(_, opener)| opener)
}

/// The end marker did not follow the array: the calls stand, and the whitespace before what came is text.
fn missing_end(core: &mut Core, end: &str, gap: &str) {
    let call = core.calls().checked_sub(1);
    let why = format!("the array of calls was not followed by {end}");
    core.finding(FindingCode::MissingEndMarker, why, call);
    core.text(gap);
}

/// An element of the array that is no call, its text read so far, and why.
fn element<L: Layout>(body: &str, why: (FindingCode, &str)) -> Called {
    Called {
        name: if L::KEYS.name == "name" {
            leading_name(body)
        } else {
            None
        },
        arguments: body.to_owned(),
        id: None,
        findings: vec![(why.0, why.1.to_owned())],
    }
}

#[cfg(test)]
mod tests {
    use super::super::apriel::AprielLayout;
    use super::super::cohere_command::CohereCommandLayout;
    use super::super::granite::GraniteLayout;
    use super::super::phi4_mini::Phi4MiniLayout;
    use super::super::shared::{DialectEvent, TextCall};
    use super::super::test_support::{INVALID, OK, both_ways, call, fed_by_char, finding, merged, parse, text};
    use super::super::xlam::XlamLayout;
    use super::*;
    use crate::accumulator::Limits;

    fn starts_are_the_openers<L: Layout>() {
        let openers: Vec<&str> = L::OPENERS.iter().map(|&(marker, _)| marker).collect();
        assert_eq!(openers, L::STARTS);
    }

    #[test]
    fn every_layout_starts_with_its_openers() {
        starts_are_the_openers::<GraniteLayout>();
        starts_are_the_openers::<Phi4MiniLayout>();
        starts_are_the_openers::<XlamLayout>();
        starts_are_the_openers::<AprielLayout>();
        starts_are_the_openers::<CohereCommandLayout>();
    }

    #[test]
    fn an_array_of_calls_arguments_first_or_not_with_text_around_it() {
        let events = both_ways::<JsonArray<GraniteLayout>>(
            "Hi <|tool_call|> [{\"arguments\": {\"n\": 1.50}, \"name\": \"f\"},\n {\"name\": \"g\", \"arguments\": {}}]\nbye",
        );
        let expected = vec![
            text("Hi "),
            call(0, Some("f"), r#"{"n":1.50}"#, None, OK),
            call(1, Some("g"), "{}", None, OK),
            text("\nbye"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn cohere_keys_ids_reasoning_and_the_markers_that_frame_text() {
        let events = both_ways::<JsonArray<CohereCommandLayout>>(
            "<|START_THINKING|>plan<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"f\", \
             \"parameters\": {\"a\": 1}}]<|END_ACTION|><|START_TEXT|>ok<|END_TEXT|>",
        );
        let expected = vec![
            DialectEvent::Reasoning("plan".to_owned()),
            call(0, Some("f"), r#"{"a":1}"#, Some("0"), OK),
            text("ok"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_missing_end_marker_is_said_and_what_came_instead_is_text() {
        let events = both_ways::<JsonArray<AprielLayout>>("<tool_calls>[{\"name\": \"f\", \"arguments\": {}}] \nthen");
        let why = "the array of calls was not followed by </tool_calls>";
        let expected = vec![
            call(0, Some("f"), "{}", None, OK),
            finding(FindingCode::MissingEndMarker, why, Some(0)),
            text(" \nthen"),
        ];
        assert_eq!(events, expected);
        let events =
            both_ways::<JsonArray<AprielLayout>>("<tool_calls>[{\"name\": \"f\", \"arguments\": {}}]  </tool_");
        assert_eq!(
            events.get(1),
            Some(&finding(FindingCode::MissingEndMarker, why, Some(0)))
        );
        assert_eq!(events.get(2), Some(&text("  </tool_")));
    }

    #[test]
    fn a_bare_array_is_read_only_when_a_call_starts_it() {
        let events = both_ways::<JsonArray<XlamLayout>>("x [{ \"arguments\" :{\"a\": 1}, \"name\": \"f\"}] y");
        let expected = vec![text("x "), call(0, Some("f"), r#"{"a":1}"#, None, OK), text(" y")];
        assert_eq!(events, expected);
        for prose in ["[{1, 2}] and [{}]", "[{\"x\": 1}]", "[{\"nam", "[{\"name\" x"] {
            assert_eq!(both_ways::<JsonArray<XlamLayout>>(prose), vec![text(prose)]);
        }
        let events =
            both_ways::<JsonArray<XlamLayout>>("<think>hm</think>```json\n[{\"name\": \"f\", \"arguments\": {}}]\n```");
        let expected = vec![
            DialectEvent::Reasoning("hm".to_owned()),
            call(0, Some("f"), "{}", None, OK),
        ];
        assert_eq!(events, expected);
        let limits = Limits {
            max_argument_bytes: 16,
            ..Limits::default()
        };
        let head = format!("[{{{}\"name\": \"f\", \"arguments\": {{}}}}]", " ".repeat(20));
        assert_eq!(
            merged(parse::<JsonArray<XlamLayout>>(&[&head], None, false, limits)),
            vec![text(&head)]
        );
    }

    #[test]
    fn a_marker_no_array_follows_is_text_and_what_the_stream_cuts_is_cut() {
        let events = both_ways::<JsonArray<Phi4MiniLayout>>("Python's functools module");
        let expected = vec![
            text("Python's functools "),
            finding(
                FindingCode::MarkerInText,
                "functools was not followed by a JSON array",
                None,
            ),
            text("module"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<JsonArray<Phi4MiniLayout>>("functools[{\"name\": \"f\", \"argu");
        let expected = vec![
            finding(FindingCode::Cut, "the stream ended inside the call", Some(0)),
            DialectEvent::Call(TextCall {
                index: 0,
                name: Some("f".to_owned()),
                arguments: "{\"name\": \"f\", \"argu".to_owned(),
                id: None,
                whole: false,
                valid: false,
            }),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<JsonArray<GraniteLayout>>("<tool_call>[{\"name\": \"f\", x}]");
        let expected = vec![
            finding(FindingCode::MalformedCall, NOT_JSON, Some(0)),
            call(0, Some("f"), "{\"name\": \"f\", ", None, INVALID),
            text("x}]"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_megabyte_of_calls_fed_a_char_at_a_time_is_read_in_linear_time() {
        let calls = "<|START_ACTION|>[".to_owned()
            + &r#"{"tool_call_id": "1", "tool_name": "g", "parameters": {"a": [1, 2]}}, "#.repeat(15_000)
            + "{}]"
            + &" ".repeat(100_000)
            + "<|END_ACTION|>";
        let calls = fed_by_char::<JsonArray<CohereCommandLayout>>(&calls, Limits::default())
            .iter()
            .filter(|event| matches!(event, DialectEvent::Call(_)))
            .count();
        assert_eq!(calls, 15_001);
    }
}
