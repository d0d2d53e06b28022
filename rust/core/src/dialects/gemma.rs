//! What `gemma4` and `functiongemma` share: `call:NAME{key:VALUE,...}` between a start and an end marker.
//!
//! Twin of the reference's `dialects/_gemma.py`. One grammar in two spellings ([`Spelling`]): the markers around a
//! call and the token that quotes a string (Gemma 4's `<|"|>`, FunctionGemma's `<escape>`). A call is `call:` then its
//! name (a bare word) and an object whose keys are bare words (no whitespace and none of `:,{}[]<`) and whose values
//! are strings between two quote tokens (nothing is escaped: the next quote token ends the string), JSON numbers,
//! `true`, `false`, `null`, objects and arrays, whitespace allowed between the parts. The arguments are that object as
//! JSON, keys in the order written, each value typed by how it is written and never by the schema: the templates quote
//! strings and only strings, so a quoted `10` is the string `"10"`.
//!
//! A call is whole when its object closes; the end marker is then expected after whitespace (`MISSING_END_MARKER`
//! without it). Between an object's members the `,` may be missing after a value that ends on a token of its own (a
//! string, an object, an array), as FunctionGemma streams them. A bare value that is no JSON literal, a number no
//! double holds or a key repeated in one object makes the call invalid (`INVALID_ARGUMENTS`, its text kept) and
//! reading goes on to its close; text that breaks the grammar makes it `MALFORMED_CALL`, its text running to the end
//! marker (or the next call's start). A start marker not followed by `call:` is text (`MARKER_IN_TEXT`).

use std::fmt;
use std::marker::PhantomData;

use rustc_hash::FxHashSet;

use super::shared::{Called, Core, FindingCode, Grammar, Sink, TOO_LARGE, is_space, quoted};

const CALL: &str = "call:";

/// A Gemma dialect's spelling of the grammar.
pub(crate) trait Spelling: fmt::Debug + Default {
    /// What opens a call.
    const START: &'static str;
    /// What follows a call's object.
    const END: &'static str;
    /// What opens and closes a string.
    const QUOTE: &'static str;
    /// The reasoning block's markers, if the model has them.
    const THINK: Option<(&'static str, &'static str)> = None;
}

/// Whether a byte ends a bare word (a name, a key, a literal): JSON's whitespace, the grammar's punctuation and the
/// start of a quote token or marker. All are ASCII, so a word ends on a char boundary.
const fn is_stop(byte: u8) -> bool {
    is_space(byte) || matches!(byte, b':' | b',' | b'{' | b'}' | b'[' | b']' | b'<')
}

/// Why a bare value has no JSON form, or None when it is a JSON number, `true`, `false` or `null`.
fn literal_problem(token: &str) -> Option<String> {
    if matches!(token, "true" | "false" | "null") {
        return None;
    }
    if !is_json_number(token.as_bytes()) {
        return Some(format!(
            "the value {} is not a string, a number, true, false or null",
            quoted(token)
        ));
    }
    // JSON reads a number with a fraction or an exponent as a double, which a huge one overflows.
    if token.contains(['.', 'e', 'E']) && token.parse::<f64>().is_ok_and(f64::is_infinite) {
        return Some(format!("{token} has no finite JSON value"));
    }
    None
}

/// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_json_number(bytes: &[u8]) -> bool {
    let digits = |from: usize| {
        bytes
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count()
    };
    let mut at = usize::from(bytes.first() == Some(&b'-'));
    match bytes.get(at) {
        Some(b'0') => at += 1,
        Some(b'1'..=b'9') => at += digits(at),
        _ => return false,
    }
    if bytes.get(at) == Some(&b'.') {
        let fraction = digits(at + 1);
        if fraction == 0 {
            return false;
        }
        at += 1 + fraction;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1 + usize::from(matches!(bytes.get(at + 1), Some(b'+' | b'-')));
        let exponent = digits(at);
        if exponent == 0 {
            return false;
        }
        at += exponent;
    }
    at == bytes.len()
}

/// What the place in an object or array expects next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Expect {
    /// After `{`: a key or `}`.
    #[default]
    KeyFirst,
    /// After `,` in an object.
    KeyNext,
    /// Inside a key.
    Key,
    /// After a key.
    Colon,
    /// After `[`: a value or `]`.
    ValueFirst,
    /// After `:`, or `,` in an array.
    Value,
    /// Inside a bare value.
    Bare,
    /// Inside a string, after its opening quote token.
    String,
    /// After a value: `,` or the container's close.
    AfterValue,
}

impl Expect {
    /// What a break at this place says belongs there.
    fn expected(self) -> &'static str {
        match self {
            Self::KeyFirst => "a key or '}'",
            Self::KeyNext | Self::Key => "a key",
            Self::Colon => "':'",
            Self::ValueFirst => "a value or ']'",
            _ => "a value",
        }
    }
}

/// Where a call is.
#[derive(Debug, Default)]
enum State {
    /// Not in a call.
    #[default]
    Idle,
    /// After the start marker: `call:` or prose.
    Open,
    /// The name, up to its `{`.
    Name,
    /// The object.
    Body,
    /// The text broke the grammar: it runs to the end marker (or the next call's start).
    Broken,
    /// The object closed: the end marker is expected after whitespace, `spaces` bytes of which were seen.
    After { spaces: usize },
}

/// One call as it is read.
#[derive(Debug, Default)]
struct Reading {
    /// The start marker that opened it (the next call's start ends a broken one).
    marker: &'static str,
    /// The call's text from `call:` on, up to the limit (then nothing is kept: `overflow`).
    raw: String,
    bytes: usize,
    overflow: bool,
    name: String,
    /// The name was read whole (within the limit).
    named: bool,
    /// The arguments as JSON text, built as they are read.
    out: String,
    /// Per open object, the keys it has (per open array, None).
    stack: Vec<Option<FxHashSet<String>>>,
    expect: Expect,
    /// The key, bare value or string being read.
    token: String,
    /// The last value ended on a token of its own (a quote token, `}`, `]`): a key may follow without a `,`.
    closed: bool,
    problem: Option<String>,
    why: String,
}

impl Reading {
    fn keep(&mut self, text: &str, limit: usize) {
        if self.overflow || text.is_empty() {
            return;
        }
        self.bytes = self.bytes.saturating_add(text.len());
        if self.bytes > limit {
            self.overflow = true;
            self.raw = String::new();
            self.out = String::new();
            self.token = String::new();
            return;
        }
        self.raw.push_str(text);
    }

    fn emit(&mut self, text: &str) {
        if !self.overflow {
            self.out.push_str(text);
        }
    }

    fn name(&self) -> Option<String> {
        self.named.then(|| self.name.clone())
    }

    fn broken_finding(&mut self) -> (FindingCode, String) {
        if self.overflow {
            (FindingCode::TooLarge, TOO_LARGE.to_owned())
        } else {
            (FindingCode::MalformedCall, std::mem::take(&mut self.why))
        }
    }
}

/// The Gemma grammar, spelled by `S`.
#[derive(Debug, Default)]
pub(crate) struct Gemma<S: Spelling> {
    state: State,
    call: Reading,
    spelling: PhantomData<S>,
}

impl<S: Spelling> Grammar for Gemma<S> {
    const STARTS: &'static [&'static str] = &[S::START];
    const THINK: Option<(&'static str, &'static str)> = S::THINK;

    fn open(&mut self, _: &mut Core, marker: &'static str) {
        self.call = Reading {
            marker,
            ..Reading::default()
        };
        self.state = State::Open;
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        match self.state {
            State::Idle => false,
            State::Open => self.advance_open(core),
            State::Name => self.advance_name(core),
            State::Body => self.advance_body(core),
            State::Broken => self.advance_broken(core),
            State::After { spaces } => self.advance_after(core, spaces),
        }
    }

    fn cut(&mut self, core: &mut Core) {
        let call = &mut self.call;
        let mut findings = Vec::new();
        if matches!(self.state, State::Broken) {
            findings.push(call.broken_finding());
            findings.push((FindingCode::Cut, format!("the stream ended before {}", S::END)));
        } else {
            if call.overflow {
                findings.push((FindingCode::TooLarge, TOO_LARGE.to_owned()));
            }
            findings.push((FindingCode::Cut, "the stream ended inside the call".to_owned()));
        }
        let called = Called {
            name: call.name(),
            arguments: std::mem::take(&mut call.raw),
            id: None,
            findings,
        };
        core.call(called, false);
        self.state = State::Idle;
        self.call = Reading::default();
    }
}

impl<S: Spelling> Gemma<S> {
    fn leave(&mut self, core: &mut Core) {
        self.state = State::Idle;
        self.call = Reading::default();
        core.leave_call();
    }

    /// Takes `bytes` bytes at the cursor into the call's text.
    fn consume(&mut self, core: &mut Core, bytes: usize) {
        let taken = core.rest().get(..bytes).unwrap_or_default();
        self.call.keep(taken, core.limits.max_argument_bytes);
        core.advance(bytes);
    }

    fn advance_open(&mut self, core: &mut Core) -> bool {
        let Some(called) = core.starts_with(CALL, core.cursor()) else {
            return false;
        };
        if !called {
            let marker = self.call.marker;
            core.text(marker);
            core.finding(
                FindingCode::MarkerInText,
                format!("{marker} was not followed by {CALL}"),
                None,
            );
            self.leave(core);
            return true;
        }
        self.consume(core, CALL.len());
        self.state = State::Name;
        true
    }

    /// Takes the bare word's bytes at the cursor into the call's text and the name (or the token being read);
    /// returns the char that ended it, None when the text ran out first.
    fn word(&mut self, core: &mut Core, into_name: bool) -> Option<char> {
        let rest = core.rest();
        let size = rest.bytes().position(is_stop).unwrap_or(rest.len());
        let piece = rest.get(..size).unwrap_or_default();
        let call = &mut self.call;
        call.keep(piece, core.limits.max_argument_bytes);
        if !call.overflow {
            if into_name {
                call.name.push_str(piece);
            } else {
                call.token.push_str(piece);
            }
        }
        let end = rest.get(size..).and_then(|tail| tail.chars().next());
        core.advance(size);
        end
    }

    fn advance_name(&mut self, core: &mut Core) -> bool {
        let Some(char) = self.word(core, true) else {
            return false;
        };
        if char != '{' {
            let why = format!("{} where the call's name or its '{{' belongs", quoted_char(char));
            return self.broke(why);
        }
        if self.call.name.is_empty() && !self.call.overflow {
            return self.broke("the call has no name before its '{'".to_owned());
        }
        self.call.named = !self.call.overflow;
        self.state = State::Body;
        self.push(core, char)
    }

    fn advance_body(&mut self, core: &mut Core) -> bool {
        while matches!(self.state, State::Body) {
            match self.call.expect {
                Expect::String => {
                    if !self.read_string(core) {
                        return false;
                    }
                }
                Expect::Key | Expect::Bare => {
                    if self.word(core, false).is_none() {
                        return false;
                    }
                    self.end_word();
                }
                _ => {
                    let spaces = core.rest().bytes().take_while(|&byte| is_space(byte)).count();
                    self.consume(core, spaces);
                    let Some(char) = core.rest().chars().next() else {
                        return false;
                    };
                    if !self.step(core, char) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// One structural char at the cursor; false while a quote token there may still be arriving.
    fn step(&mut self, core: &mut Core, char: char) -> bool {
        let expect = self.call.expect;
        let stop = char.is_ascii() && is_stop(char as u8);
        match expect {
            Expect::KeyFirst if char == '}' => self.close(core, char),
            Expect::KeyFirst | Expect::KeyNext if stop => self.broke(where_(char, expect)),
            Expect::KeyFirst | Expect::KeyNext => self.start_word(Expect::Key),
            Expect::Colon if char != ':' => self.broke(where_(char, expect)),
            Expect::Colon => {
                self.consume(core, 1);
                self.call.emit(":");
                self.call.expect = Expect::Value;
                true
            }
            Expect::ValueFirst | Expect::Value => self.value(core, char, stop),
            _ => self.after_value(core, char, stop),
        }
    }

    fn value(&mut self, core: &mut Core, char: char, stop: bool) -> bool {
        let expect = self.call.expect;
        if char == ']' && expect == Expect::ValueFirst {
            return self.close(core, char);
        }
        if char == '{' || char == '[' {
            return self.push(core, char);
        }
        if char == '<' {
            match core.starts_with(S::QUOTE, core.cursor()) {
                None => return false,
                Some(true) => {
                    self.consume(core, S::QUOTE.len());
                    self.call.token.clear();
                    self.call.expect = Expect::String;
                    return true;
                }
                Some(false) => {}
            }
        }
        if stop {
            return self.broke(where_(char, expect));
        }
        self.start_word(Expect::Bare)
    }

    fn after_value(&mut self, core: &mut Core, char: char, stop: bool) -> bool {
        let in_object = self.call.stack.last().is_some_and(Option::is_some);
        if char == ',' {
            self.consume(core, 1);
            self.call.emit(",");
            self.call.expect = if in_object { Expect::KeyNext } else { Expect::Value };
            return true;
        }
        if char == if in_object { '}' } else { ']' } {
            return self.close(core, char);
        }
        if in_object && self.call.closed && !stop {
            // The ',' FunctionGemma leaves out between members (vLLM's functiongemma streaming tests).
            self.call.emit(",");
            return self.start_word(Expect::Key);
        }
        let expected = if in_object { "',' or '}'" } else { "',' or ']'" };
        self.broke(format!("{} where {expected} belongs", quoted_char(char)))
    }

    fn start_word(&mut self, expect: Expect) -> bool {
        self.call.token.clear();
        self.call.expect = expect;
        true
    }

    /// A key or a bare value ended at the cursor (not taken).
    fn end_word(&mut self) {
        let call = &mut self.call;
        let token = std::mem::take(&mut call.token);
        if call.expect == Expect::Key {
            let text = quoted(&token);
            if !call.overflow
                && let Some(Some(keys)) = call.stack.last_mut()
                && !keys.insert(token)
                && call.problem.is_none()
            {
                call.problem = Some(format!("the key {text} is repeated in one object"));
            }
            call.emit(&text);
            call.expect = Expect::Colon;
            return;
        }
        if !call.overflow && call.problem.is_none() {
            call.problem = literal_problem(&token);
        }
        call.emit(&token);
        call.expect = Expect::AfterValue;
        call.closed = false;
    }

    fn read_string(&mut self, core: &mut Core) -> bool {
        let mut piece = String::new();
        let closed = core.release_until(&[S::QUOTE], Sink::Into(&mut piece));
        let limit = core.limits.max_argument_bytes;
        let call = &mut self.call;
        call.keep(&piece, limit);
        if !call.overflow {
            call.token.push_str(&piece);
        }
        if closed.is_none() {
            return false;
        }
        call.keep(S::QUOTE, limit);
        let text = quoted(&std::mem::take(&mut call.token));
        call.emit(&text);
        call.expect = Expect::AfterValue;
        call.closed = true;
        true
    }

    fn push(&mut self, core: &mut Core, char: char) -> bool {
        let depth = usize::try_from(core.limits.max_depth).unwrap_or(usize::MAX);
        if self.call.stack.len() >= depth {
            return self.broke("the arguments nest deeper than Limits.max_depth".to_owned());
        }
        self.consume(core, 1);
        let call = &mut self.call;
        call.emit(if char == '{' { "{" } else { "[" });
        let object = char == '{';
        call.stack.push(object.then(FxHashSet::default));
        call.expect = if object { Expect::KeyFirst } else { Expect::ValueFirst };
        true
    }

    fn close(&mut self, core: &mut Core, char: char) -> bool {
        self.consume(core, 1);
        let call = &mut self.call;
        call.emit(if char == '}' { "}" } else { "]" });
        call.stack.pop();
        call.expect = Expect::AfterValue;
        call.closed = true;
        if call.stack.is_empty() {
            let (arguments, findings) = if call.overflow {
                (String::new(), vec![(FindingCode::TooLarge, TOO_LARGE.to_owned())])
            } else if let Some(problem) = call.problem.take() {
                (
                    std::mem::take(&mut call.raw),
                    vec![(FindingCode::InvalidArguments, problem)],
                )
            } else {
                (std::mem::take(&mut call.out), Vec::new())
            };
            let called = Called {
                name: call.name(),
                arguments,
                id: None,
                findings,
            };
            core.call(called, true);
            self.state = State::After { spaces: 0 };
        }
        true
    }

    /// The call's text stops having the grammar's shape at the cursor: it runs on to the end marker.
    fn broke(&mut self, why: String) -> bool {
        self.call.why = why;
        self.state = State::Broken;
        true
    }

    fn advance_broken(&mut self, core: &mut Core) -> bool {
        let mut piece = String::new();
        let marker = core.release_until(&[S::END, self.call.marker], Sink::Into(&mut piece));
        self.call.keep(&piece, core.limits.max_argument_bytes);
        let Some(marker) = marker else {
            return false;
        };
        let finding = self.call.broken_finding();
        let called = Called {
            name: self.call.name(),
            arguments: std::mem::take(&mut self.call.raw),
            id: None,
            findings: vec![finding],
        };
        core.call(called, true);
        if marker == S::END {
            self.leave(core);
        } else {
            self.open(core, marker);
        }
        true
    }

    fn advance_after(&mut self, core: &mut Core, mut spaces: usize) -> bool {
        let at = core.after_whitespace_from(&mut spaces);
        let closed = if core.ends_at(at) {
            core.is_final().then_some(false)
        } else {
            core.starts_with(S::END, at)
        };
        let Some(closed) = closed else {
            self.state = State::After { spaces };
            return false;
        };
        if closed {
            core.take_to(at + S::END.len());
        } else {
            let call = core.calls().checked_sub(1);
            core.finding(
                FindingCode::MissingEndMarker,
                format!("no {} after the call", S::END),
                call,
            );
        }
        self.leave(core);
        true
    }
}

fn quoted_char(char: char) -> String {
    quoted(char.encode_utf8(&mut [0; 4]))
}

fn where_(char: char, expect: Expect) -> String {
    format!("{} where {} belongs", quoted_char(char), expect.expected())
}

#[cfg(test)]
mod tests {
    use super::super::functiongemma::FunctionGemma;
    use super::super::gemma4::Gemma4;
    use super::super::shared::DialectEvent;
    use super::super::test_support::{
        CUT, INVALID, OK, both_ways, call, fed_both_ways, fed_by_char, finding, merged, parse, text,
    };
    use super::*;
    use crate::accumulator::Limits;

    fn gemma4(text: &str) -> Vec<DialectEvent> {
        both_ways::<Gemma4>(text)
    }

    #[test]
    fn values_are_typed_by_how_they_are_written() {
        let events = gemma4(
            "Hi<|tool_call>call:f{s:<|\"|>a \"b\" {c}<|\"|>, n : -1.50e3,t:true,z:null,o:{k:[1,<|\"|><|\"|>]},e:[]}<tool_call|>",
        );
        let arguments = r#"{"s":"a \"b\" {c}","n":-1.50e3,"t":true,"z":null,"o":{"k":[1,""]},"e":[]}"#;
        assert_eq!(events, vec![text("Hi"), call(0, Some("f"), arguments, None, OK)]);
        // A quoted number is a string: the templates quote strings only.
        let events = both_ways::<FunctionGemma>("<start_function_call>call:f{n:<escape>10<escape>}<end_function_call>");
        assert_eq!(events, vec![call(0, Some("f"), r#"{"n":"10"}"#, None, OK)]);
    }

    #[test]
    fn a_missing_comma_is_read_after_a_value_that_closes_itself() {
        let events = both_ways::<FunctionGemma>(
            "<start_function_call>call:f{a:<escape>x<escape>b:{c:1}d:[2] e:3}<end_function_call>",
        );
        let expected = vec![call(0, Some("f"), r#"{"a":"x","b":{"c":1},"d":[2],"e":3}"#, None, OK)];
        assert_eq!(events, expected);
        let events = gemma4("<|tool_call>call:f{a:1 b:2}<tool_call|> after");
        let expected = vec![
            finding(FindingCode::MalformedCall, "\"b\" where ',' or '}' belongs", Some(0)),
            call(0, Some("f"), "call:f{a:1 b:2}", None, INVALID),
            text(" after"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_value_with_no_json_form_keeps_the_call_s_text() {
        for (body, why) in [
            (
                "a:hello",
                "the value \"hello\" is not a string, a number, true, false or null",
            ),
            ("a:1e999", "1e999 has no finite JSON value"),
            (
                "a:01",
                "the value \"01\" is not a string, a number, true, false or null",
            ),
            ("a:1,b:{c:2},a:3", "the key \"a\" is repeated in one object"),
        ] {
            let events = gemma4(&format!("<|tool_call>call:f{{{body}}}<tool_call|>"));
            let expected = vec![
                finding(FindingCode::InvalidArguments, why, Some(0)),
                call(0, Some("f"), &format!("call:f{{{body}}}"), None, INVALID),
            ];
            assert_eq!(events, expected, "{body}");
        }
        // Keys of sibling objects are their own.
        let events = gemma4("<|tool_call>call:f{a:{k:1},b:{k:2}}<tool_call|>");
        assert_eq!(
            events,
            vec![call(0, Some("f"), r#"{"a":{"k":1},"b":{"k":2}}"#, None, OK)]
        );
    }

    #[test]
    fn a_broken_call_runs_to_its_end_marker_or_the_next_call() {
        let events = gemma4("<|tool_call>call:get weather{}<tool_call|>ok");
        let why = "\" \" where the call's name or its '{' belongs";
        let expected = vec![
            finding(FindingCode::MalformedCall, why, Some(0)),
            call(0, None, "call:get weather{}", None, INVALID),
            text("ok"),
        ];
        assert_eq!(events, expected);
        let events = gemma4("<|tool_call>call:f{a:<b>}<|tool_call>call:g{}<tool_call|>");
        let expected = vec![
            finding(FindingCode::MalformedCall, "\"<\" where a value belongs", Some(0)),
            call(0, Some("f"), "call:f{a:<b>}", None, INVALID),
            call(1, Some("g"), "{}", None, OK),
        ];
        assert_eq!(events, expected);
        let events = gemma4("<|tool_call>call:{}<tool_call|>");
        let expected = vec![
            finding(
                FindingCode::MalformedCall,
                "the call has no name before its '{'",
                Some(0),
            ),
            call(0, None, "call:{}", None, INVALID),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_marker_in_prose_is_text_and_a_missing_end_marker_is_said() {
        let events = gemma4("Use <|tool_call> to call.");
        let expected = vec![
            text("Use <|tool_call>"),
            finding(
                FindingCode::MarkerInText,
                "<|tool_call> was not followed by call:",
                None,
            ),
            text(" to call."),
        ];
        assert_eq!(events, expected);
        let events = gemma4("<|tool_call>call:f{} <|tool_call>call:g{}");
        let missing = "no <tool_call|> after the call";
        let expected = vec![
            call(0, Some("f"), "{}", None, OK),
            finding(FindingCode::MissingEndMarker, missing, Some(0)),
            text(" "),
            call(1, Some("g"), "{}", None, OK),
            finding(FindingCode::MissingEndMarker, missing, Some(1)),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn the_end_of_the_stream_cuts_a_call() {
        let events = gemma4("<|tool_call>call:f{a:<|\"|>Par");
        let expected = vec![
            finding(FindingCode::Cut, "the stream ended inside the call", Some(0)),
            call(0, Some("f"), "call:f{a:<|\"|>Par", None, CUT),
        ];
        assert_eq!(events, expected);
        let events = gemma4("<|tool_call>call:get_wea");
        let expected = vec![
            finding(FindingCode::Cut, "the stream ended inside the call", Some(0)),
            call(0, None, "call:get_wea", None, CUT),
        ];
        assert_eq!(events, expected);
        let events = gemma4("<|tool_call>call:f{a b");
        let expected = vec![
            finding(FindingCode::MalformedCall, "\"b\" where ':' belongs", Some(0)),
            finding(FindingCode::Cut, "the stream ended before <tool_call|>", Some(0)),
            call(0, Some("f"), "call:f{a b", None, CUT),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn limits_bound_a_call_s_bytes_and_depth() {
        let small = Limits {
            max_argument_bytes: 16,
            ..Limits::default()
        };
        let long = "x".repeat(40);
        let events = fed_both_ways::<Gemma4>(
            &format!("<|tool_call>call:f{{a:<|\"|>{long}<|\"|>}}<tool_call|> t"),
            None,
            false,
            small,
        );
        let expected = vec![
            finding(FindingCode::TooLarge, TOO_LARGE, Some(0)),
            call(0, Some("f"), "", None, INVALID),
            text(" t"),
        ];
        assert_eq!(events, expected);
        let shallow = Limits {
            max_depth: 2,
            ..Limits::default()
        };
        let events = fed_both_ways::<Gemma4>("<|tool_call>call:f{a:[[1]]}<tool_call|>", None, false, shallow);
        let why = "the arguments nest deeper than Limits.max_depth";
        let expected = vec![
            finding(FindingCode::MalformedCall, why, Some(0)),
            call(0, Some("f"), "call:f{a:[[1]]}", None, INVALID),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn the_thought_channel_is_reasoning_and_a_call_in_it_is_reasoning_text() {
        let events = merged(parse::<Gemma4>(
            &[
                "<|channel>thought\nplan <|tool_call>call:f{}<tool_call|><channel|>",
                "<|tool_call>call:g{}<tool_call|>",
            ],
            None,
            false,
            Limits::default(),
        ));
        let expected = vec![
            DialectEvent::Reasoning("plan <|tool_call>call:f{}<tool_call|>".to_owned()),
            call(0, Some("g"), "{}", None, OK),
        ];
        assert_eq!(events, expected);
        let events = merged(parse::<Gemma4>(&["still"], None, true, Limits::default()));
        let cut = finding(FindingCode::ReasoningCut, "the stream ended inside reasoning", None);
        assert_eq!(events, vec![DialectEvent::Reasoning("still".to_owned()), cut]);
    }

    #[test]
    fn a_megabyte_fed_a_char_at_a_time_is_read_in_linear_time() {
        let size = 1 << 20;
        // A string, a bare value, a key, whitespace inside the object and before the end marker, a broken call's text.
        let text = format!(
            "<|tool_call>call:f{{a:<|\"|>{x}<|\"|>,b:{digits},{key}:1{spaces}}}{lines}<tool_call|><|tool_call>call:g{{+{x}<tool_call|>",
            x = "x".repeat(size),
            digits = "9".repeat(size),
            key = "k".repeat(size),
            spaces = " ".repeat(size),
            lines = "\n".repeat(size),
        );
        let out = fed_by_char::<Gemma4>(&text, Limits::default());
        let valid = out
            .iter()
            .filter(|event| matches!(event, DialectEvent::Call(call) if call.valid))
            .count();
        assert_eq!((valid, out.len()), (1, 3));
    }

    #[test]
    fn json_numbers_are_told_from_other_words() {
        for number in ["0", "-0", "12", "1.50", "1e5", "1E+5", "-1.5e-10"] {
            assert!(is_json_number(number.as_bytes()), "{number}");
        }
        for word in ["", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1_0", "0x1", "١"] {
            assert!(!is_json_number(word.as_bytes()), "{word}");
        }
        assert_eq!(
            literal_problem("-1E400"),
            Some("-1E400 has no finite JSON value".to_owned())
        );
        assert_eq!(literal_problem(&"9".repeat(400)), None);
    }
}
