//! `mistral`: `[TOOL_CALLS]` then a JSON array of calls (pre-v11) or `NAME[CALL_ID]ID[ARGS]{...}` (v11+).
//!
//! Twin of the reference's `dialects/mistral.py`. Mistral 7B v0.3 and Nemo write `[TOOL_CALLS] [{"name": ...,
//! "arguments": {...}, "id": ...}, ...]`: each element is a call, handed over the moment it closes. Mistral Small 3.x,
//! Magistral, Devstral and Ministral 3 repeat the marker per call: `[TOOL_CALLS]NAME[ARGS]{...}`, with `[CALL_ID]ID`
//! before `[ARGS]` (Small 3.2), or `NAME{...}` when the control tokens were decoded away; a call is whole when its
//! object closes. A name is letters, digits, `_`, `-` and `.`; anything else after the marker makes it text
//! (`MARKER_IN_TEXT`). Reasoning is `[THINK]…[/THINK]`; a call written inside it is reasoning text. There is no end
//! marker: what follows a call is text.

use super::shared::{
    CallKeys, Called, Core, FindingCode, Grammar, JsonReader, Read, Sink, arguments_of, is_python_alnum, json_call,
    leading_name,
};

const START: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";
const KEYS: CallKeys = CallKeys {
    name: "name",
    arguments: &["arguments"],
    id: Some("id"),
};
const NOT_JSON: &str = "the call is not JSON";
const NOT_CLOSED: &str = "the array of calls was not closed by ']'";

/// Where a call is.
#[derive(Debug, Default)]
enum State {
    /// Not in a call.
    #[default]
    Idle,
    /// After the marker and its whitespace (`held`, text if no call follows): `[` or a name decides the form.
    Open { held: String },
    /// v11+: the name's chars so far.
    Name { held: String, name: String },
    /// After `[CALL_ID]`: the id, up to `[ARGS]`.
    Id { held: String, name: String, id: String },
    /// The arguments object, read from its first char.
    Arguments {
        name: String,
        id: Option<String>,
        reader: Box<JsonReader>,
    },
    /// Pre-v11, after `[` or `,`: the next element, or (after `[` only, whose text `held` is) the end of an empty
    /// array.
    Next { held: Option<String> },
    /// An element of the array, a call.
    Element { reader: Box<JsonReader> },
    /// After an element: `,` and the next, or `]`.
    Array,
}

/// The `mistral` dialect.
#[derive(Debug, Default)]
pub(crate) struct Mistral {
    state: State,
}

impl Grammar for Mistral {
    const STARTS: &'static [&'static str] = &[START];
    const THINK: Option<(&'static str, &'static str)> = Some(("[THINK]", "[/THINK]"));

    fn open(&mut self, _: &mut Core, marker: &'static str) {
        self.state = State::Open {
            held: marker.to_owned(),
        };
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        match &mut self.state {
            State::Idle => false,
            State::Open { held } => {
                held.push_str(core.skip_whitespace());
                let Some(char) = core.rest().chars().next() else {
                    return false;
                };
                if char == '[' {
                    core.advance(1);
                    held.push('[');
                    self.state = State::Next {
                        held: Some(std::mem::take(held)),
                    };
                } else if is_name(char) {
                    self.state = State::Name {
                        held: std::mem::take(held),
                        name: String::new(),
                    };
                } else {
                    let held = std::mem::take(held);
                    let why = format!("{START} was followed by neither a JSON array nor a function name");
                    self.not_a_call(core, &held, why);
                }
                true
            }
            State::Name { .. } => self.advance_name(core),
            State::Id { .. } => self.advance_id(core),
            State::Arguments { .. } => self.advance_arguments(core),
            State::Next { held } => {
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
                        self.not_a_call(core, &held, format!("{START} was followed by an empty array"));
                        true
                    }
                    Some(_) => {
                        self.state = State::Element {
                            reader: Box::new(JsonReader::new(&core.limits)),
                        };
                        true
                    }
                }
            }
            State::Element { .. } => self.advance_element(core),
            State::Array => {
                core.skip_whitespace();
                match core.peek() {
                    None => false,
                    Some(b',') => {
                        core.advance(1);
                        self.state = State::Next { held: None };
                        true
                    }
                    Some(b']') => {
                        core.advance(1);
                        self.leave(core);
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
        }
    }

    fn cut(&mut self, core: &mut Core) {
        let after_start = || {
            vec![(
                FindingCode::Cut,
                format!("the stream ended inside the call after {START}"),
            )]
        };
        let called = match std::mem::take(&mut self.state) {
            State::Idle => return,
            State::Open { .. } | State::Name { .. } => Called {
                findings: after_start(),
                ..Called::default()
            },
            State::Id { name, id, .. } => Called {
                name: Some(name),
                arguments: String::new(),
                id: Some(id),
                findings: after_start(),
            },
            State::Arguments { name, id, reader } => Called {
                name: Some(name),
                arguments: reader.text().to_owned(),
                id,
                findings: after_start(),
            },
            State::Element { reader } => element(reader.text(), (FindingCode::Cut, "the stream ended inside the call")),
            State::Next { .. } => {
                let why = "the stream ended inside the array of calls, before its next call";
                core.finding(FindingCode::Cut, why, None);
                return;
            }
            State::Array => {
                let call = core.calls().checked_sub(1);
                core.finding(FindingCode::MissingEndMarker, NOT_CLOSED, call);
                return;
            }
        };
        core.call(called, false);
    }
}

const TOO_LARGE: &str = "the call's text passed the limit on a call's bytes";

impl Mistral {
    fn advance_name(&mut self, core: &mut Core) -> bool {
        let State::Name { held, name } = &mut self.state else {
            return false;
        };
        let rest = core.rest();
        let end = rest.find(|char: char| !is_name(char)).unwrap_or(rest.len());
        let chars = rest.get(..end).unwrap_or_default();
        name.push_str(chars);
        held.push_str(chars);
        core.advance(end);
        if name.len() > core.limits.max_argument_bytes {
            let held = std::mem::take(held);
            let why = format!("the name after {START} passed the limit on a call's bytes");
            self.not_a_call(core, &held, why);
            return true;
        }
        match core.peek() {
            None => false,
            Some(b'{') => {
                self.state = State::Arguments {
                    name: std::mem::take(name),
                    id: None,
                    reader: Box::new(JsonReader::new(&core.limits)),
                };
                true
            }
            Some(_) => {
                for marker in [ARGS, CALL_ID] {
                    match starts_with(core, marker) {
                        None => return false,
                        Some(false) => {}
                        Some(true) => {
                            core.advance(marker.len());
                            held.push_str(marker);
                            let name = std::mem::take(name);
                            self.state = if marker == ARGS {
                                State::Arguments {
                                    name,
                                    id: None,
                                    reader: Box::new(JsonReader::new(&core.limits)),
                                }
                            } else {
                                State::Id {
                                    held: std::mem::take(held),
                                    name,
                                    id: String::new(),
                                }
                            };
                            return true;
                        }
                    }
                }
                let held = std::mem::take(held);
                let why = format!("the name after {START} was followed by neither {ARGS} nor a JSON object");
                self.not_a_call(core, &held, why);
                true
            }
        }
    }

    fn advance_id(&mut self, core: &mut Core) -> bool {
        let State::Id { held, name, id } = &mut self.state else {
            return false;
        };
        let before = id.len();
        let marker = core.release_until(&[ARGS], Sink::Into(id));
        held.push_str(id.get(before..).unwrap_or_default());
        if let Some(marker) = marker {
            held.push_str(marker);
            self.state = State::Arguments {
                name: std::mem::take(name),
                id: Some(std::mem::take(id)),
                reader: Box::new(JsonReader::new(&core.limits)),
            };
            return true;
        }
        if id.len() > core.limits.max_argument_bytes {
            let held = std::mem::take(held);
            let why = format!("the call id after {CALL_ID} passed the limit on a call's bytes");
            self.not_a_call(core, &held, why);
            return true;
        }
        false
    }

    fn advance_arguments(&mut self, core: &mut Core) -> bool {
        let State::Arguments { name, id, reader } = &mut self.state else {
            return false;
        };
        let (read, taken) = reader.take(core.rest());
        core.advance(taken);
        if read == Read::Incomplete {
            return false;
        }
        // Whole or broken, the call ends here; what a broken object leaves is text.
        let (arguments, findings) = if read == Read::Invalid {
            let mut findings = Vec::new();
            if reader.overflow {
                findings.push((FindingCode::TooLarge, TOO_LARGE.to_owned()));
            }
            findings.push((FindingCode::InvalidArguments, "the arguments are not JSON".to_owned()));
            (reader.text().to_owned(), findings)
        } else {
            arguments_of(reader)
        };
        let called = Called {
            name: Some(std::mem::take(name)),
            arguments,
            id: id.take(),
            findings,
        };
        core.call(called, true);
        self.leave(core);
        true
    }

    fn advance_element(&mut self, core: &mut Core) -> bool {
        let State::Element { reader } = &mut self.state else {
            return false;
        };
        let (read, taken) = reader.take(core.rest());
        core.advance(taken);
        match read {
            Read::Incomplete => false,
            Read::Complete => {
                core.call(json_call(reader, &KEYS), true);
                self.state = State::Array;
                true
            }
            Read::Invalid => {
                // The array cannot be followed past a broken element: it ends there, and what follows is
                // text.
                core.call(element(reader.text(), (FindingCode::MalformedCall, NOT_JSON)), true);
                self.leave(core);
                true
            }
        }
    }

    /// What followed the marker is not a call: `held` is text.
    fn not_a_call(&mut self, core: &mut Core, held: &str, why: String) {
        core.text(held);
        core.finding(FindingCode::MarkerInText, why, None);
        self.leave(core);
    }

    fn leave(&mut self, core: &mut Core) {
        self.state = State::Idle;
        core.leave_call();
    }
}

/// A name's char: a letter, a digit, `_`, `-` or `.`.
fn is_name(char: char) -> bool {
    is_python_alnum(char) || matches!(char, '_' | '-' | '.')
}

/// Whether the text at the cursor is `literal`; None while it is a proper prefix and more may come.
fn starts_with(core: &Core, literal: &str) -> Option<bool> {
    let rest = core.rest().as_bytes();
    let window = rest.get(..literal.len()).unwrap_or(rest);
    if window == literal.as_bytes() {
        Some(true)
    } else if literal.as_bytes().starts_with(window) && !core.is_final() {
        None
    } else {
        Some(false)
    }
}

/// An element of the array that is no call, its text read so far, and why.
fn element(body: &str, why: (FindingCode, &str)) -> Called {
    Called {
        name: leading_name(body),
        arguments: body.to_owned(),
        id: None,
        findings: vec![(why.0, why.1.to_owned())],
    }
}

#[cfg(test)]
mod tests {
    use super::super::shared::DialectEvent;
    use super::super::test_support::{CUT, INVALID, OK, both_ways, call, fed_by_char, finding, merged, parse, text};
    use super::*;
    use crate::accumulator::Limits;

    #[test]
    fn an_array_of_calls_each_handed_over_as_it_closes() {
        let events = both_ways::<Mistral>(
            "Hi [TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {\"n\": 1.50}, \"id\": \"a1\"},\n {\"arguments\": {}, \
             \"name\": \"g\"}] bye",
        );
        let expected = vec![
            text("Hi "),
            call(0, Some("f"), r#"{"n":1.50}"#, Some("a1"), OK),
            call(1, Some("g"), "{}", None, OK),
            text(" bye"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn an_array_broken_unclosed_or_empty() {
        let events = both_ways::<Mistral>(r#"[TOOL_CALLS][{"name": "f", "arguments": {}} x"#);
        let expected = vec![
            call(0, Some("f"), "{}", None, OK),
            finding(FindingCode::MissingEndMarker, NOT_CLOSED, Some(0)),
            text("x"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Mistral>(r#"[TOOL_CALLS][{"name": "f", x}]"#);
        let expected = vec![
            finding(FindingCode::MalformedCall, NOT_JSON, Some(0)),
            call(0, Some("f"), r#"{"name": "f", "#, None, INVALID),
            text("x}]"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Mistral>("[TOOL_CALLS] [ ] ok");
        let expected = vec![
            text("[TOOL_CALLS] [ ]"),
            finding(
                FindingCode::MarkerInText,
                "[TOOL_CALLS] was followed by an empty array",
                None,
            ),
            text(" ok"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Mistral>(r#"[TOOL_CALLS][{"name": "f", "arguments": {}}, "#);
        let why = "the stream ended inside the array of calls, before its next call";
        assert_eq!(events.get(1), Some(&finding(FindingCode::Cut, why, None)));
        let events = both_ways::<Mistral>(r#"[TOOL_CALLS][{"name": "f", "argu"#);
        let expected = vec![
            finding(FindingCode::Cut, "the stream ended inside the call", Some(0)),
            call(0, Some("f"), r#"{"name": "f", "argu"#, None, CUT),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn v11_calls_with_and_without_their_control_tokens() {
        let events = both_ways::<Mistral>(
            "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]f.x-1[CALL_ID]c9[ARGS] {}[TOOL_CALLS]g{} \
             end",
        );
        let expected = vec![
            call(0, Some("get_weather"), r#"{"city":"Paris"}"#, None, OK),
            call(1, Some("f.x-1"), "{}", Some("c9"), OK),
            call(2, Some("g"), "{}", None, OK),
            text(" end"),
        ];
        assert_eq!(events, expected);
        // A name is Python's letters and digits (its `str.isalnum`), not Unicode's alphabet: a vowel sign ends it.
        let events = both_ways::<Mistral>("[TOOL_CALLS]नमस्ते");
        let why = "the name after [TOOL_CALLS] was followed by neither [ARGS] nor a JSON object";
        let expected = vec![
            text("[TOOL_CALLS]नमस"),
            finding(FindingCode::MarkerInText, why, None),
            text("्ते"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Mistral>("[TOOL_CALLS]f[ARGS][1] x");
        let not_object = "the arguments are not a JSON object";
        let expected = vec![
            finding(FindingCode::InvalidArguments, not_object, Some(0)),
            call(0, Some("f"), "[1]", None, INVALID),
            text(" x"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Mistral>("[TOOL_CALLS]f[ARGS]{\"a\" x");
        let expected = vec![
            finding(FindingCode::InvalidArguments, "the arguments are not JSON", Some(0)),
            call(0, Some("f"), "{\"a\" ", None, INVALID),
            text("x"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn what_the_marker_leaves_open_is_cut_and_prose_after_it_is_text() {
        let events = both_ways::<Mistral>("[TOOL_CALLS] (no)");
        let why = "[TOOL_CALLS] was followed by neither a JSON array nor a function name";
        let expected = vec![
            text("[TOOL_CALLS] "),
            finding(FindingCode::MarkerInText, why, None),
            text("(no)"),
        ];
        assert_eq!(events, expected);
        let after = "the stream ended inside the call after [TOOL_CALLS]";
        let events = both_ways::<Mistral>("[TOOL_CALLS]f[CALL_ID]ab[AR");
        let expected = vec![
            finding(FindingCode::Cut, after, Some(0)),
            call(0, Some("f"), "", Some("ab[AR"), CUT),
        ];
        assert_eq!(events, expected);
        // A name is whole only when what follows it is read.
        let events = both_ways::<Mistral>("[TOOL_CALLS]fn");
        let expected = vec![finding(FindingCode::Cut, after, Some(0)), call(0, None, "", None, CUT)];
        assert_eq!(events, expected);
        // At the end, a marker cut short is no marker.
        let events = both_ways::<Mistral>("[TOOL_CALLS]f[AR");
        let why = "the name after [TOOL_CALLS] was followed by neither [ARGS] nor a JSON object";
        let expected = vec![
            text("[TOOL_CALLS]f"),
            finding(FindingCode::MarkerInText, why, None),
            text("[AR"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Mistral>("[TOOL_CALLS]f{\"a\": ");
        let expected = vec![
            finding(FindingCode::Cut, after, Some(0)),
            call(0, Some("f"), "{\"a\": ", None, CUT),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_call_inside_reasoning_is_reasoning() {
        let events = both_ways::<Mistral>("[THINK]a [TOOL_CALLS]f{}[/THINK]b");
        let expected = vec![DialectEvent::Reasoning("a [TOOL_CALLS]f{}".to_owned()), text("b")];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_name_or_an_id_past_the_byte_limit_is_text() {
        let limits = Limits {
            max_argument_bytes: 8,
            ..Limits::default()
        };
        let events = merged(parse::<Mistral>(&["[TOOL_CALLS]abcdefghij{}"], None, false, limits));
        let why = "the name after [TOOL_CALLS] passed the limit on a call's bytes";
        let expected = vec![
            text("[TOOL_CALLS]abcdefghij"),
            finding(FindingCode::MarkerInText, why, None),
            text("{}"),
        ];
        assert_eq!(events, expected);
        let events = merged(parse::<Mistral>(
            &["[TOOL_CALLS]f[CALL_ID]", "0123456789", "[ARGS]{}"],
            None,
            false,
            limits,
        ));
        let why = "the call id after [CALL_ID] passed the limit on a call's bytes";
        let expected = vec![
            text("[TOOL_CALLS]f[CALL_ID]0123456789"),
            finding(FindingCode::MarkerInText, why, None),
            text("[ARGS]{}"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_megabyte_of_calls_fed_a_char_at_a_time_is_read_in_linear_time() {
        let calls = r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": [1, 2]}, "id": "x"}, "#.to_owned()
            + &r#"{"name": "g", "arguments": {}}, "#.repeat(30_000)
            + "{}] [TOOL_CALLS]h[CALL_ID]"
            + &"i".repeat(100_000)
            + "[ARGS]{}";
        let calls = fed_by_char::<Mistral>(&calls, Limits::default())
            .iter()
            .filter(|event| matches!(event, DialectEvent::Call(_)))
            .count();
        assert_eq!(calls, 30_003);
    }
}
