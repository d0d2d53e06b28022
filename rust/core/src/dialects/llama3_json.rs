//! `llama3_json`: `{"name": ..., "parameters": {...}}`, bare or after `<|python_tag|>` (Llama 3.1/3.3, Llama 4).
//!
//! Twin of the reference's `dialects/llama3_json.py`. Llama writes a call as a bare JSON object, anywhere in its
//! answer, so any `{` may open one: it is held back only while it can still be a call, and released as text the moment
//! it cannot. It can while its text is a prefix of the call's head `{"name":` (or Llama 4's `{"type": "function",
//! "name":`, whitespace between the tokens); once the head is whole it is read to its close, and is a call when it
//! holds `name` and `parameters` or `arguments` (vLLM's rule). A bare object that breaks or closes without that shape
//! is text (`MARKER_IN_TEXT` once its head was whole), and reading resumes at the char that decided it, which may open
//! the next one. `<|python_tag|>` declares a call: the object after it is one, valid or not, and anything but `{`
//! after it is text. Calls are separated by `;` (whitespace around it), by whitespace, or by a repeated
//! `<|python_tag|>`; a `;` belongs to the calls only when a call follows it, and the one after it is read as the one
//! before it was.

use super::shared::{
    CallKeys, Called, Core, FindingCode, Grammar, JsonReader, Read, compact_text, is_object, is_space, json_call,
    leading_name, members, read_json,
};

const TAG: &str = "<|python_tag|>";
const ARGUMENT_KEYS: &[&str] = &["parameters", "arguments"];
const KEYS: CallKeys = CallKeys {
    name: "name",
    arguments: ARGUMENT_KEYS,
    id: None,
};
/// A call's heads, as tokens without the whitespace JSON allows between them: what a bare object must start with.
const HEADS: [&[&str]; 2] = [
    &["{", "\"name\"", ":"],
    &["{", "\"type\"", ":", "\"function\"", ",", "\"name\"", ":"],
];
/// Both heads, as the bits of [`State::Head`]'s `heads`.
const ALL_HEADS: u8 = 0b11;
const NOT_JSON: &str = "the call is not JSON";

/// Where a call is.
#[derive(Debug, Default)]
enum State {
    /// Not in a call.
    #[default]
    Idle,
    /// After `<|python_tag|>`: `{` or prose. Holds the tag and the whitespace after it, text if prose follows.
    Tag { held: String },
    /// A bare `{` (taken) whose head is matched before it is held as a call: `held` is its text, `matched` the head's
    /// chars it matched (whitespace aside), `heads` the bits of the heads it still can be.
    Head {
        separator: String,
        held: String,
        matched: usize,
        heads: u8,
    },
    /// Inside the object (`separator`: the `;` and whitespace before a bare one, text if it is not a call).
    Json { separator: String, reader: Box<JsonReader> },
    /// A call was handed over: whitespace (text), then `;` or the end of the calls.
    After,
    /// After a `;`: the next call's `{`, or the separator is text.
    Separator { separator: String },
}

/// The `llama3_json` dialect.
#[derive(Debug, Default)]
pub(crate) struct Llama3Json {
    state: State,
    /// The calls were declared by `<|python_tag|>`: an object after it (or after a `;` that follows its call) is one.
    tagged: bool,
}

impl Grammar for Llama3Json {
    const STARTS: &'static [&'static str] = &[TAG, "{"];

    fn open(&mut self, _: &mut Core, marker: &'static str) {
        self.tagged = marker == TAG;
        self.state = if self.tagged {
            State::Tag {
                held: marker.to_owned(),
            }
        } else {
            bare(String::new())
        };
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        match &mut self.state {
            State::Idle => false,
            State::Tag { held } => {
                held.push_str(core.skip_whitespace());
                match core.peek() {
                    None => false,
                    Some(b'{') => {
                        core.advance(1);
                        self.state = json(core, String::new(), "{");
                        true
                    }
                    Some(_) => {
                        core.text(held);
                        core.finding(
                            FindingCode::MarkerInText,
                            format!("{TAG} was not followed by a JSON object"),
                            None,
                        );
                        self.leave(core);
                        true
                    }
                }
            }
            State::Head { .. } => self.advance_head(core),
            State::Json { .. } => self.advance_json(core),
            State::After => {
                let spaces = core.skip_whitespace().to_owned();
                core.text(&spaces);
                match core.peek() {
                    None => false,
                    Some(b';') => {
                        core.advance(1);
                        self.state = State::Separator {
                            separator: ";".to_owned(),
                        };
                        true
                    }
                    Some(_) => {
                        self.leave(core);
                        true
                    }
                }
            }
            State::Separator { separator } => {
                separator.push_str(core.skip_whitespace());
                match core.peek() {
                    None if separator.len() <= core.limits.max_argument_bytes => false,
                    Some(b'{') => {
                        core.advance(1);
                        let separator = std::mem::take(separator);
                        self.state = if self.tagged {
                            json(core, String::new(), "{")
                        } else {
                            bare(separator)
                        };
                        true
                    }
                    // Not a call's `{`, or whitespace past the limit: the separator is text.
                    _ => {
                        core.text(separator);
                        self.leave(core);
                        true
                    }
                }
            }
        }
    }

    fn cut(&mut self, core: &mut Core) {
        match std::mem::take(&mut self.state) {
            State::Idle | State::After => {}
            State::Head {
                mut separator, held, ..
            } => {
                separator.push_str(&held);
                core.text(&separator);
            }
            State::Separator { separator } => core.text(&separator),
            // A tag, or a bare object past its head, announced a call: the end of the stream cut it.
            State::Tag { .. } => broken(
                core,
                None,
                (FindingCode::Cut, "the stream ended inside the call"),
                false,
            ),
            State::Json { reader, .. } => {
                broken(
                    core,
                    Some(&reader),
                    (FindingCode::Cut, "the stream ended inside the call"),
                    false,
                );
            }
        }
    }
}

impl Llama3Json {
    fn advance_head(&mut self, core: &mut Core) -> bool {
        let State::Head {
            separator,
            held,
            matched,
            heads,
        } = &mut self.state
        else {
            return false;
        };
        let limit = core.limits.max_argument_bytes;
        let mut taken = 0;
        // Whether the head was decided: a call's head (true), or not a call (false).
        let mut decided = None;
        for char in core.rest().chars() {
            if is_whitespace(char) {
                if !live(*heads).any(|head| is_break(head, *matched)) {
                    decided = Some(false);
                    break;
                }
            } else {
                *heads = live(*heads)
                    .filter(|&head| head_byte(head, *matched).is_some_and(|byte| char == char::from(byte)))
                    .fold(0, |bits, head| bits | 1 << head);
                if *heads == 0 {
                    decided = Some(false);
                    break;
                }
                *matched += 1;
            }
            held.push(char);
            taken += char.len_utf8();
            if held.len() > limit {
                decided = Some(false);
                break;
            }
            if live(*heads).any(|head| *matched == head_len(head)) {
                decided = Some(true);
                break;
            }
        }
        core.advance(taken);
        match decided {
            None => false,
            Some(true) => {
                let held = std::mem::take(held);
                self.state = json(core, std::mem::take(separator), &held);
                true
            }
            Some(false) => {
                let mut text = std::mem::take(separator);
                text.push_str(held);
                self.not_a_call(core, &text, false);
                true
            }
        }
    }

    fn advance_json(&mut self, core: &mut Core) -> bool {
        let State::Json { separator, reader } = &mut self.state else {
            return false;
        };
        let (read, taken) = reader.take(core.rest());
        core.advance(taken);
        let call = self.tagged || reader.overflow;
        match read {
            Read::Incomplete => return false,
            Read::Complete if call || is_call(reader) => {
                core.call(json_call(reader, &KEYS), true);
                self.state = State::After;
            }
            // What the tag announced (or what passed the limit after a call's head) is a call, though broken.
            Read::Invalid if call => {
                broken(core, Some(reader), (FindingCode::MalformedCall, NOT_JSON), true);
                self.leave(core);
            }
            Read::Complete | Read::Invalid => {
                let mut text = std::mem::take(separator);
                text.push_str(reader.text());
                self.not_a_call(core, &text, true);
            }
        }
        true
    }

    /// The bare object cannot be a call: it and the separator before it are `text`; reading resumes at the cursor.
    fn not_a_call(&mut self, core: &mut Core, text: &str, reported: bool) {
        core.text(text);
        if reported {
            let message = "a JSON object that began as a call is not one; kept as text";
            core.finding(FindingCode::MarkerInText, message, None);
        }
        self.leave(core);
    }

    fn leave(&mut self, core: &mut Core) {
        self.state = State::Idle;
        core.leave_call();
    }
}

/// A bare `{` (taken) after `separator`: its head is matched before it is held as a call.
fn bare(separator: String) -> State {
    State::Head {
        separator,
        held: "{".to_owned(),
        matched: 1,
        heads: ALL_HEADS,
    }
}

/// A call's object, from `text` (its `{`, or its whole head).
fn json(core: &Core, separator: String, text: &str) -> State {
    let mut reader = JsonReader::new(&core.limits);
    // A head is a proper prefix of an object, so the reader only begins it.
    reader.take(text);
    State::Json {
        separator,
        reader: Box::new(reader),
    }
}

/// Hands over the call read so far (by `reader`, if any) as invalid for `why` (and for its size, when it passed the
/// limit).
fn broken(core: &mut Core, reader: Option<&JsonReader>, why: (FindingCode, &str), whole: bool) {
    let body = reader.map(|reader| reader.text().to_owned()).unwrap_or_default();
    let mut findings = Vec::new();
    if reader.is_some_and(|reader| reader.overflow) {
        let size = "the call's text passed the limit on a call's bytes";
        findings.push((FindingCode::TooLarge, size.to_owned()));
    }
    findings.push((why.0, why.1.to_owned()));
    let called = Called {
        name: leading_name(&body),
        arguments: body,
        id: None,
        findings,
    };
    core.call(called, whole);
}

/// Whether a whole bare object has a call's shape: a name and arguments (a repeated key or a non-finite number, which
/// make it no JSON value, count: the call then says why).
fn is_call(reader: &JsonReader) -> bool {
    if read_json(reader.text(), reader.max_depth).is_err() {
        return true;
    }
    let text = compact_text(reader.text());
    let keys = members(&text);
    let has = |key: &str| keys.iter().any(|(name, _)| name == key);
    is_object(&text) && has("name") && ARGUMENT_KEYS.iter().any(|&key| has(key))
}

fn is_whitespace(char: char) -> bool {
    u8::try_from(char).is_ok_and(is_space)
}

/// The heads whose bits are set.
fn live(heads: u8) -> impl Iterator<Item = usize> {
    (0..HEADS.len()).filter(move |&head| heads & 1 << head != 0)
}

fn tokens(head: usize) -> &'static [&'static str] {
    HEADS.get(head).copied().unwrap_or_default()
}

fn head_len(head: usize) -> usize {
    tokens(head).iter().map(|token| token.len()).sum()
}

/// The byte of the head at `at`, its tokens joined.
fn head_byte(head: usize, mut at: usize) -> Option<u8> {
    for token in tokens(head) {
        if let Some(&byte) = token.as_bytes().get(at) {
            return Some(byte);
        }
        at -= token.len();
    }
    None
}

/// Whether whitespace may come after the head's first `at` bytes: between two of its tokens.
fn is_break(head: usize, at: usize) -> bool {
    let mut end = 0;
    tokens(head).split_last().is_some_and(|(_, firsts)| {
        firsts.iter().any(|token| {
            end += token.len();
            end == at
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::shared::DialectEvent;
    use super::super::test_support::{CUT, INVALID, OK, both_ways, call, finding, merged, parse, text};
    use super::*;
    use crate::accumulator::Limits;

    const KEPT: &str = "a JSON object that began as a call is not one; kept as text";

    #[test]
    fn bare_calls_separated_by_semicolons_and_the_text_around_them() {
        let events = both_ways::<Llama3Json>(
            "Sure: {\"name\": \"f\", \"parameters\": {\"n\": 1.50}} ; {\"type\": \"function\", \"name\": \"g\", \
             \"arguments\": {}}\n done",
        );
        let expected = vec![
            text("Sure: "),
            call(0, Some("f"), r#"{"n":1.50}"#, None, OK),
            text(" "),
            call(1, Some("g"), "{}", None, OK),
            text("\n done"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn an_object_that_cannot_be_a_call_is_text_and_reading_resumes_where_it_was_decided() {
        assert_eq!(
            both_ways::<Llama3Json>(r#"a {"x": 1} b"#),
            vec![text(r#"a {"x": 1} b"#)]
        );
        // The `{` that ended the first head opens the next one.
        let events = both_ways::<Llama3Json>(r#"{ "nam{"name": "f", "arguments": {}}"#);
        assert_eq!(events, vec![text(r#"{ "nam"#), call(0, Some("f"), "{}", None, OK)]);
        // Whitespace inside a token is not a head's.
        assert_eq!(
            both_ways::<Llama3Json>(r#"{" name": 1}"#),
            vec![text(r#"{" name": 1}"#)]
        );
        let events = both_ways::<Llama3Json>(r#"{"name": "f", "x": 2} {"name": 3"#);
        let expected = vec![
            text(r#"{"name": "f", "x": 2}"#),
            finding(FindingCode::MarkerInText, KEPT, None),
            text(" "),
            finding(FindingCode::Cut, "the stream ended inside the call", Some(0)),
            call(0, None, r#"{"name": 3"#, None, CUT),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Llama3Json>(r#"{"name": "f"] x"#);
        assert_eq!(
            events,
            vec![
                text(r#"{"name": "f""#),
                finding(FindingCode::MarkerInText, KEPT, None),
                text("] x")
            ]
        );
    }

    #[test]
    fn a_semicolon_belongs_to_the_calls_only_when_a_call_follows() {
        let events = both_ways::<Llama3Json>(r#"{"name": "f", "parameters": {}} ; then"#);
        assert_eq!(events, vec![call(0, Some("f"), "{}", None, OK), text(" ; then")]);
        let events = both_ways::<Llama3Json>(r#"{"name": "f", "parameters": {}}; {"x": 1}"#);
        let expected = vec![call(0, Some("f"), "{}", None, OK), text(r#"; {"x": 1}"#)];
        assert_eq!(events, expected);
        let events = both_ways::<Llama3Json>(r#"{"name": "f", "parameters": {}};  "#);
        assert_eq!(events, vec![call(0, Some("f"), "{}", None, OK), text(";  ")]);
    }

    #[test]
    fn the_tag_declares_a_call_valid_or_not() {
        let events = both_ways::<Llama3Json>(r#"<|python_tag|>{"name": "f", "x": 1}; {"name": "g", "arguments": {}}"#);
        let members = r#"the call has members no call has: "x""#;
        let no_arguments = "the call has no arguments member (parameters or arguments)";
        let expected = vec![
            finding(FindingCode::MalformedCall, members, Some(0)),
            finding(FindingCode::MalformedCall, no_arguments, Some(0)),
            call(0, Some("f"), "", None, INVALID),
            call(1, Some("g"), "{}", None, OK),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Llama3Json>(r#"<|python_tag|>{"name": "f", x} y"#);
        let expected = vec![
            finding(FindingCode::MalformedCall, NOT_JSON, Some(0)),
            call(0, Some("f"), r#"{"name": "f", "#, None, INVALID),
            text("x} y"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Llama3Json>("<|python_tag|> brave_search.call(query=\"x\")");
        let message = "<|python_tag|> was not followed by a JSON object";
        let expected = vec![
            text("<|python_tag|> "),
            finding(FindingCode::MarkerInText, message, None),
            text("brave_search.call(query=\"x\")"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Llama3Json>("<|python_tag|>  ");
        let expected = vec![
            finding(FindingCode::Cut, "the stream ended inside the call", Some(0)),
            call(0, None, "", None, CUT),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_head_past_the_byte_limit_is_text_and_an_object_past_it_a_call_too_large() {
        let limits = Limits {
            max_argument_bytes: 12,
            ..Limits::default()
        };
        let events = merged(parse::<Llama3Json>(&["{ \"name\"      : 1}"], None, false, limits));
        assert_eq!(events, vec![text("{ \"name\"      : 1}")]);
        let events = merged(parse::<Llama3Json>(
            &[r#"{"name": "f", "x": "long text"}"#],
            None,
            false,
            limits,
        ));
        let too_large = "the call's text passed the limit on a call's bytes";
        assert_eq!(
            events,
            vec![
                finding(FindingCode::TooLarge, too_large, Some(0)),
                call(0, None, "", None, INVALID)
            ]
        );
    }

    #[test]
    fn a_megabyte_of_would_be_calls_is_read_in_linear_time_fed_whole_or_a_char_at_a_time() {
        // Each `{` opens a head the next breaks, and each `;` after a call a separator: nothing is read twice, and
        // text is searched for the tag once, not once per `{` in it.
        let call = r#"{"name": "f", "parameters": {"a": [1, 2]}}; "#;
        let whole = format!("{}{}", "{\"na".repeat(200_000), call.repeat(20_000));
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        for deltas in [vec![whole.as_str()], chars.iter().map(String::as_str).collect()] {
            let events = parse::<Llama3Json>(&deltas, None, false, Limits::default());
            let calls = events
                .iter()
                .filter(|event| matches!(event, DialectEvent::Call(_)))
                .count();
            assert_eq!(calls, 20_000);
        }
    }
}
