//! `hermes`: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` (Hermes 2 Pro/3, Qwen2.5/Qwen3, Granite 4).
//!
//! Twin of the reference's `dialects/hermes.py`. A call is whole when its JSON object closes; `</tool_call>` is then
//! expected after whitespace (its absence is `MISSING_END_MARKER`, and what follows is text). Reasoning is
//! `<think>…</think>`; a call written inside it is reasoning text, as Reka's and Qwen3's templates make it. A start
//! marker not followed by `{` is prose.

use super::shared::{CallKeys, Called, Core, FindingCode, Grammar, JsonReader, Read, Sink, json_call, leading_name};

const START: &str = "<tool_call>";
const END: &str = "</tool_call>";
const NOT_JSON: &str = "the call is not JSON";

/// Where a call is.
#[derive(Debug, Default)]
enum State {
    /// Not in a call.
    #[default]
    Idle,
    /// After the start marker: `{` or prose. Holds the marker and the whitespace after it, text if prose follows.
    Open { held: String },
    /// Inside the object.
    Json,
    /// The object broke: its text runs to the end marker (or the next call's start).
    Broken { text: String },
    /// The object closed: the end marker is expected after whitespace, `spaces` bytes of which were seen.
    After { spaces: usize },
}

/// The `hermes` dialect.
#[derive(Debug, Default)]
pub(crate) struct Hermes {
    state: State,
    /// The call's JSON, from its `{`; made at each start marker.
    reader: Option<JsonReader>,
}

impl Grammar for Hermes {
    const STARTS: &'static [&'static str] = &[START];
    const THINK: Option<(&'static str, &'static str)> = Some(("<think>", "</think>"));

    fn open(&mut self, core: &mut Core, marker: &'static str) {
        self.state = State::Open {
            held: marker.to_owned(),
        };
        self.reader = Some(JsonReader::new(&core.limits));
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        match &mut self.state {
            State::Idle => false,
            State::Open { held } => {
                held.push_str(core.skip_whitespace());
                match core.peek() {
                    None => false,
                    Some(b'{') => {
                        self.state = State::Json;
                        true
                    }
                    Some(_) => {
                        core.text(held);
                        core.finding(
                            FindingCode::MarkerInText,
                            format!("{START} was not followed by a JSON object"),
                            None,
                        );
                        self.leave(core);
                        true
                    }
                }
            }
            State::Json => self.advance_json(core),
            State::Broken { text } => {
                let marker = core.release_until(&[END, START], Sink::Into(text));
                let Some(marker) = marker else { return false };
                let text = std::mem::take(text);
                let called = Called {
                    name: leading_name(&text),
                    arguments: text,
                    id: None,
                    findings: vec![(FindingCode::MalformedCall, NOT_JSON.to_owned())],
                };
                core.call(called, true);
                if marker == START {
                    self.open(core, marker);
                } else {
                    self.leave(core);
                }
                true
            }
            State::After { spaces } => {
                let at = core.after_whitespace_from(spaces);
                let closed = if core.ends_at(at) {
                    core.is_final().then_some(false)
                } else {
                    core.starts_with(END, at)
                };
                let Some(closed) = closed else { return false };
                if closed {
                    core.take_to(at + END.len());
                } else {
                    let call = core.calls().checked_sub(1);
                    core.finding(FindingCode::MissingEndMarker, format!("no {END} after the call"), call);
                }
                self.leave(core);
                true
            }
        }
    }

    fn cut(&mut self, core: &mut Core) {
        let (body, findings) = match std::mem::take(&mut self.state) {
            State::Broken { text } => (
                text,
                vec![
                    (FindingCode::MalformedCall, NOT_JSON.to_owned()),
                    (FindingCode::Cut, format!("the stream ended before {END}")),
                ],
            ),
            _ => (
                self.reader
                    .as_ref()
                    .map(|reader| reader.text().to_owned())
                    .unwrap_or_default(),
                vec![(FindingCode::Cut, "the stream ended inside the call".to_owned())],
            ),
        };
        let called = Called {
            name: leading_name(&body),
            arguments: body,
            id: None,
            findings,
        };
        core.call(called, false);
        self.reader = None;
    }
}

impl Hermes {
    fn advance_json(&mut self, core: &mut Core) -> bool {
        let Some(reader) = self.reader.as_mut() else {
            return false;
        };
        let (read, taken) = reader.take(core.rest());
        core.advance(taken);
        match read {
            Read::Complete => {
                let called = json_call(reader, &CallKeys::NAME_ARGUMENTS);
                core.call(called, true);
                self.state = State::After { spaces: 0 };
                true
            }
            Read::Invalid => {
                self.state = State::Broken {
                    text: reader.text().to_owned(),
                };
                true
            }
            Read::Incomplete => false,
        }
    }

    fn leave(&mut self, core: &mut Core) {
        self.state = State::Idle;
        self.reader = None;
        core.leave_call();
    }
}

#[cfg(test)]
mod tests {
    use super::super::shared::{DialectEvent, Runner};
    use super::super::test_support::{CUT, INVALID, OK, both_ways, call, finding, text};
    use super::*;
    use crate::accumulator::Limits;

    #[test]
    fn calls_and_the_text_around_them() {
        let events =
            both_ways::<Hermes>("Hi <tool_call>\n{\"name\": \"f\", \"arguments\": {\"n\": 1.50}}\n</tool_call> bye");
        assert_eq!(
            events,
            vec![text("Hi "), call(0, Some("f"), r#"{"n":1.50}"#, None, OK), text(" bye")]
        );
    }

    #[test]
    fn a_call_is_handed_over_when_its_object_closes() {
        let mut runner = Runner::<Hermes>::new(None, false, Limits::default());
        let mut out = Vec::new();
        assert_eq!(
            runner.feed(r#"<tool_call>{"name": "f", "arguments": {}}"#, &mut out),
            Ok(())
        );
        assert_eq!(out, vec![call(0, Some("f"), "{}", None, OK)]);
    }

    #[test]
    fn a_marker_not_followed_by_an_object_is_prose() {
        let events = both_ways::<Hermes>("<tool_call> x");
        let message = "<tool_call> was not followed by a JSON object";
        assert_eq!(
            events,
            vec![
                text("<tool_call> "),
                finding(FindingCode::MarkerInText, message, None),
                text("x")
            ]
        );
    }

    #[test]
    fn a_broken_block_is_a_malformed_call_up_to_its_end_or_the_next_call() {
        let events = both_ways::<Hermes>(r#"<tool_call>{"name": "f", x}</tool_call><tool_call>{"name": "g"#);
        assert_eq!(
            events,
            vec![
                finding(FindingCode::MalformedCall, NOT_JSON, Some(0)),
                call(0, Some("f"), r#"{"name": "f", x}"#, None, INVALID),
                finding(FindingCode::Cut, "the stream ended inside the call", Some(1)),
                call(1, None, r#"{"name": "g"#, None, CUT),
            ]
        );
        let events = both_ways::<Hermes>(r#"<tool_call>{"name": "f", x} <tool_call>{"#);
        assert_eq!(
            events.get(1),
            Some(&call(0, Some("f"), r#"{"name": "f", x} "#, None, INVALID))
        );
        let events = both_ways::<Hermes>(r#"<tool_call>{"name": "f", x"#);
        let cut = finding(FindingCode::Cut, "the stream ended before </tool_call>", Some(0));
        assert_eq!(
            events.get(1..),
            Some(&[cut, call(0, Some("f"), r#"{"name": "f", x"#, None, CUT)][..])
        );
    }

    #[test]
    fn a_missing_end_marker_is_said_after_the_call_and_what_follows_is_text() {
        let events = both_ways::<Hermes>(r#"<tool_call>{"name": "f", "arguments": {}} and <tool"#);
        assert_eq!(
            events,
            vec![
                call(0, Some("f"), "{}", None, OK),
                finding(FindingCode::MissingEndMarker, "no </tool_call> after the call", Some(0)),
                text(" and <tool"),
            ]
        );
        let events = both_ways::<Hermes>(r#"<tool_call>{"name": "f", "arguments": {}}  "#);
        assert_eq!(events.get(2), Some(&text("  ")));
    }

    #[test]
    fn a_call_inside_reasoning_is_reasoning_and_a_marker_at_the_end_is_a_cut_call() {
        let events = both_ways::<Hermes>("<think>a <tool_call>{}</tool_call></think><tool_call>");
        assert_eq!(
            events,
            vec![
                DialectEvent::Reasoning("a <tool_call>{}</tool_call>".to_owned()),
                finding(FindingCode::Cut, "the stream ended inside the call", Some(0)),
                call(0, None, "", None, CUT),
            ]
        );
    }

    #[test]
    fn whitespace_after_a_call_fed_a_char_at_a_time_is_read_in_linear_time() {
        // A megabyte: were the whitespace rescanned at each feed, this would not end.
        let mut runner = Runner::<Hermes>::new(None, false, Limits::default());
        let mut out = Vec::new();
        assert_eq!(
            runner.feed(r#"<tool_call>{"name": "f", "arguments": {}}"#, &mut out),
            Ok(())
        );
        for _ in 0..1 << 20 {
            assert_eq!(runner.feed(" ", &mut out), Ok(()));
        }
        assert_eq!(runner.feed("</tool_call>ok", &mut out), Ok(()));
        assert_eq!(runner.finish(&mut out), Ok(()));
        assert_eq!(out, vec![call(0, Some("f"), "{}", None, OK), text("ok")]);
    }

    #[test]
    fn a_call_past_the_byte_limit_keeps_nothing() {
        let limits = Limits {
            max_argument_bytes: 16,
            ..Limits::default()
        };
        let mut runner = Runner::<Hermes>::new(None, false, limits);
        let mut out = Vec::new();
        let whole = r#"<tool_call>{"name": "f", "arguments": {"t": "long text"}}</tool_call>"#;
        assert_eq!(runner.feed(whole, &mut out), Ok(()));
        let too_large = "the call's text passed the limit on a call's bytes";
        assert_eq!(
            out,
            vec![
                finding(FindingCode::TooLarge, too_large, Some(0)),
                call(0, None, "", None, INVALID)
            ]
        );
    }
}
