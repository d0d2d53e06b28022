//! `pythonic`: a Python list of calls `[f(a=1), g(b='x')]` (Llama 3.2, Llama 4, LFM2, Olmo 3).
//!
//! Twin of the reference's `dialects/pythonic.py`. A bare `[` anywhere in the text may open the list, so it is held
//! back only while it can still be one: its head is `[NAME(` (no whitespace, as models write it and vLLM's rule reads
//! it), and its first call is held to its `)`; a first call that is not `NAME(KEY=VALUE, ...)` makes the whole of it
//! text (`MARKER_IN_TEXT` once the head was whole), reading resuming after it. Llama 4 may wrap the list in
//! `<|python_start|>` … `<|python_end|>` and LFM2 in `<|tool_call_start|>` … `<|tool_call_end|>`: what follows a
//! wrapper is calls, valid or not, and its end marker is expected after the list (`MISSING_END_MARKER` without it).
//! Each call is handed over at its `)`, its values Python literals converted exactly (`python_literals.rs`); a value
//! with no JSON form makes that call invalid (`INVALID_ARGUMENTS`) and its siblings stand. Calls are separated by `,`
//! (one may follow the last); the list ends at `]`. Reasoning is `<think>…</think>` (LFM2.5), inside which a call is
//! reasoning text.

use super::python_literals::{Extent, Refusal, is_name_char, read_call};
use super::shared::{Called, Core, FindingCode, Grammar, Read, is_python_space, quoted};

const PYTHON_START: &str = "<|python_start|>";
const PYTHON_END: &str = "<|python_end|>";
const TOOL_CALL_START: &str = "<|tool_call_start|>";
const TOOL_CALL_END: &str = "<|tool_call_end|>";
const TOO_LARGE: &str = "the call's text passed the limit on a call's bytes";

/// The whitespace skipped between a list's parts.
const fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// Where a call list is.
#[derive(Debug, Default)]
enum State {
    /// Not in a list.
    #[default]
    Idle,
    /// After a wrapper: its list's `[`, or prose.
    Open,
    /// After a wrapped list's `[`: the first call's name, or `]` (an empty list, prose).
    First,
    /// A call's name, up to its `(`.
    Name { name: String },
    /// A call's arguments, up to the `)` that closes them.
    Arguments { name: String, extent: Extent },
    /// A call was handed over: `,`, `]` or the list breaks. `seen` bytes of whitespace past the cursor were read
    /// already (they stay untaken: they are text if the list breaks), so that a run of them is read once.
    After { seen: usize },
    /// After a `,`: the next call's name, or `]`.
    Next,
    /// A wrapped list closed: its wrapper's `end` marker is expected after whitespace, `seen` bytes of which were
    /// read already.
    End { end: &'static str, seen: usize },
}

/// The `pythonic` dialect.
#[derive(Debug, Default)]
pub(crate) struct Pythonic {
    state: State,
    /// The wrapper's end marker; None for a bare list.
    end: Option<&'static str>,
    /// The start marker and what followed it up to the first call's name: text if no call follows.
    held: String,
    /// Whether the list is known to hold calls: a wrapper says so, a bare list's first call does.
    confirmed: bool,
}

impl Grammar for Pythonic {
    const STARTS: &'static [&'static str] = &["[", PYTHON_START, TOOL_CALL_START];
    const THINK: Option<(&'static str, &'static str)> = Some(("<think>", "</think>"));

    fn open(&mut self, _: &mut Core, marker: &'static str) {
        self.end = match marker {
            PYTHON_START => Some(PYTHON_END),
            TOOL_CALL_START => Some(TOOL_CALL_END),
            _ => None,
        };
        marker.clone_into(&mut self.held);
        self.confirmed = self.end.is_some();
        self.state = if self.confirmed {
            State::Open
        } else {
            State::Name { name: String::new() }
        };
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        match std::mem::take(&mut self.state) {
            State::Idle => false,
            State::Open => self.advance_open(core),
            State::First => self.advance_first(core),
            State::Name { name } => self.advance_name(core, name),
            State::Arguments { name, extent } => self.advance_arguments(core, name, extent),
            State::After { seen } => self.advance_after(core, seen),
            State::Next => self.advance_next(core),
            State::End { end, seen } => self.advance_end(core, end, seen),
        }
    }

    fn cut(&mut self, core: &mut Core) {
        match std::mem::take(&mut self.state) {
            State::After { .. } | State::Next => {
                core.finding(FindingCode::Cut, "the stream ended inside the call list", None);
            }
            State::Name { name } if !self.confirmed => core.text(&(std::mem::take(&mut self.held) + &name)),
            State::Arguments { name, extent } => {
                let mut findings = Vec::new();
                let arguments = if extent.overflow {
                    findings.push((FindingCode::TooLarge, TOO_LARGE.to_owned()));
                    String::new()
                } else {
                    format!("{name}({}", extent.text())
                };
                findings.push((FindingCode::Cut, "the stream ended inside the call".to_owned()));
                let called = Called {
                    name: Some(name),
                    arguments,
                    id: None,
                    findings,
                };
                core.call(called, false);
            }
            // A wrapper, or a confirmed list's next call, cut before its name was whole.
            State::Name { name } => Self::cut_before_name(core, name),
            State::Idle | State::Open | State::First | State::End { .. } => Self::cut_before_name(core, String::new()),
        }
    }
}

impl Pythonic {
    fn advance_open(&mut self, core: &mut Core) -> bool {
        self.held.push_str(core.skip_whitespace());
        match core.peek() {
            None => {
                self.state = State::Open;
                false
            }
            Some(b'[') => {
                core.advance(1);
                self.held.push('[');
                self.state = State::First;
                true
            }
            Some(_) => {
                let why = format!("{} was not followed by a list", self.held.trim_matches(is_python_space));
                self.marker_is_text(core, &why)
            }
        }
    }

    fn advance_first(&mut self, core: &mut Core) -> bool {
        self.held.push_str(core.skip_whitespace());
        match core.peek() {
            None => {
                self.state = State::First;
                false
            }
            Some(b']') => {
                core.advance(1);
                self.held.push(']');
                self.marker_is_text(core, "an empty call list")
            }
            Some(_) => {
                self.state = State::Name { name: String::new() };
                true
            }
        }
    }

    fn advance_name(&mut self, core: &mut Core, mut name: String) -> bool {
        /// Why the name's reading stopped before the text did.
        enum Stop {
            Open,
            Broken(char),
            TooLarge,
        }
        let mut taken = 0;
        let mut stop = None;
        for char in core.rest().chars() {
            if char == '(' && !name.is_empty() {
                stop = Some(Stop::Open);
                break;
            }
            if !is_name_char(char, name.is_empty()) {
                stop = Some(Stop::Broken(char));
                break;
            }
            name.push(char);
            taken += 1; // a name's chars are ASCII
            if name.len() > core.limits.max_argument_bytes {
                stop = Some(Stop::TooLarge);
                break;
            }
        }
        core.advance(taken);
        match stop {
            None => {
                self.state = State::Name { name };
                false
            }
            Some(Stop::Open) => {
                core.advance(1);
                let extent = Extent::new(&core.limits, name.len() + 1);
                self.state = State::Arguments { name, extent };
                true
            }
            Some(Stop::Broken(char)) => {
                let why = format!(
                    "{} where a call's name or its '(' belongs",
                    quoted(char.encode_utf8(&mut [0; 4]))
                );
                self.name_broken(core, name, (FindingCode::MalformedCall, why))
            }
            Some(Stop::TooLarge) => {
                let why = "a name past the limit on a call's bytes".to_owned();
                self.name_broken(core, name, (FindingCode::TooLarge, why))
            }
        }
    }

    /// The list breaks in a call's name, at the cursor: an unconfirmed one is text, in a confirmed one it is an
    /// invalid call. The list ends there and the rest is text.
    fn name_broken(&mut self, core: &mut Core, name: String, finding: (FindingCode, String)) -> bool {
        if self.confirmed {
            let called = Called {
                name: None,
                arguments: name,
                id: None,
                findings: vec![finding],
            };
            core.call(called, true);
        } else {
            core.text(&(std::mem::take(&mut self.held) + &name));
        }
        self.leave(core);
        true
    }

    fn advance_arguments(&mut self, core: &mut Core, name: String, mut extent: Extent) -> bool {
        let (read, taken) = extent.take(core.rest());
        core.advance(taken);
        if extent.overflow {
            // Past the limit after a list's head, a bare list is held as calls: it can no longer be released whole,
            // whether it then closes, breaks or waits for more.
            self.confirmed = true;
        }
        if read == Read::Incomplete {
            self.state = State::Arguments { name, extent };
            return false;
        }
        if read == Read::Complete && extent.overflow {
            self.hand_over(
                core,
                Some(name),
                String::new(),
                (FindingCode::TooLarge, TOO_LARGE.to_owned()),
            );
            return true;
        }
        let text = format!("{name}({}", extent.text());
        if read == Read::Invalid {
            if !self.confirmed {
                return self.not_a_call(core, &text); // it broke before its first call was whole
            }
            let called = Called {
                name: Some(name),
                arguments: text,
                id: None,
                findings: vec![(
                    FindingCode::MalformedCall,
                    "the call's brackets or quotes break here".to_owned(),
                )],
            };
            core.call(called, true);
            self.leave(core);
            return true;
        }
        match read_call(&text, core.limits.max_depth) {
            Ok((name, arguments)) => {
                let called = Called {
                    name: Some(name),
                    arguments,
                    ..Called::default()
                };
                core.call(called, true);
                self.handed_over();
            }
            Err(Refusal::Malformed(_)) if !self.confirmed => return self.not_a_call(core, &text),
            Err(Refusal::Malformed(why)) => self.hand_over(core, Some(name), text, (FindingCode::MalformedCall, why)),
            Err(Refusal::NoJsonForm(why)) => {
                self.hand_over(core, Some(name), text, (FindingCode::InvalidArguments, why));
            }
        }
        true
    }

    /// Hands an invalid call over; the list goes on.
    fn hand_over(&mut self, core: &mut Core, name: Option<String>, arguments: String, finding: (FindingCode, String)) {
        let called = Called {
            name,
            arguments,
            id: None,
            findings: vec![finding],
        };
        core.call(called, true);
        self.handed_over();
    }

    fn handed_over(&mut self) {
        self.confirmed = true;
        self.held = String::new();
        self.state = State::After { seen: 0 };
    }

    /// A bare list whose first call is not one: all of it is text; reading resumes at the cursor.
    fn not_a_call(&mut self, core: &mut Core, text: &str) -> bool {
        self.held.push_str(text);
        self.marker_is_text(core, "a list that began as calls is not one")
    }

    fn marker_is_text(&mut self, core: &mut Core, why: &str) -> bool {
        core.text(&std::mem::take(&mut self.held));
        core.finding(FindingCode::MarkerInText, format!("{why}; kept as text"), None);
        self.leave(core);
        true
    }

    fn advance_after(&mut self, core: &mut Core, seen: usize) -> bool {
        let rest = core.rest();
        let spaces = seen
            + rest
                .get(seen..)
                .unwrap_or_default()
                .bytes()
                .take_while(|&byte| is_space(byte))
                .count();
        let Some(char) = rest.get(spaces..).and_then(|after| after.chars().next()) else {
            // More may come; at the end of the stream the list is cut.
            self.state = State::After { seen: spaces };
            return false;
        };
        match char {
            ',' => {
                core.advance(spaces + 1);
                self.state = State::Next;
            }
            ']' => {
                core.advance(spaces + 1);
                self.close_list(core);
            }
            _ => {
                let why = format!(
                    "the call list was not closed by ']' before {}",
                    quoted(char.encode_utf8(&mut [0; 4]))
                );
                let call = core.calls().checked_sub(1);
                core.finding(FindingCode::MissingEndMarker, why, call);
                self.leave(core);
            }
        }
        true
    }

    fn advance_next(&mut self, core: &mut Core) -> bool {
        core.skip_whitespace();
        match core.peek() {
            None => {
                self.state = State::Next;
                false
            }
            Some(b']') => {
                core.advance(1);
                self.close_list(core);
                true
            }
            Some(_) => {
                self.state = State::Name { name: String::new() };
                true
            }
        }
    }

    /// The list's `]` was taken: a wrapper's end marker is expected next.
    fn close_list(&mut self, core: &mut Core) {
        match self.end {
            Some(end) => self.state = State::End { end, seen: 0 },
            None => self.leave(core),
        }
    }

    fn advance_end(&mut self, core: &mut Core, end: &'static str, seen: usize) -> bool {
        let rest = core.rest();
        let spaces = seen
            + rest
                .get(seen..)
                .unwrap_or_default()
                .bytes()
                .take_while(|&byte| is_space(byte))
                .count();
        let at = core.cursor() + spaces;
        let closed = if core.ends_at(at) {
            core.is_final().then_some(false)
        } else {
            core.starts_with(end, at)
        };
        let Some(closed) = closed else {
            self.state = State::End { end, seen: spaces };
            return false;
        };
        if closed {
            core.take_to(at + end.len());
        } else {
            let call = core.calls().checked_sub(1);
            core.finding(
                FindingCode::MissingEndMarker,
                format!("no {end} after the call list"),
                call,
            );
        }
        self.leave(core);
        true
    }

    fn cut_before_name(core: &mut Core, name: String) {
        let called = Called {
            name: None,
            arguments: name,
            id: None,
            findings: vec![(FindingCode::Cut, "the stream ended before the call's name".to_owned())],
        };
        core.call(called, false);
    }

    fn leave(&mut self, core: &mut Core) {
        self.state = State::Idle;
        self.held = String::new();
        core.leave_call();
    }
}

#[cfg(test)]
mod tests {
    use super::super::shared::{DialectEvent, Runner};
    use super::super::test_support::{CUT, INVALID, OK, both_ways, call, fed_both_ways, fed_by_char, finding, text};
    use super::*;
    use crate::accumulator::Limits;

    #[test]
    fn calls_are_read_as_json_and_the_text_around_them_kept() {
        let events = both_ways::<Pythonic>("Hi [f(a=1, b='x'), g(c=[1.50, None],)] bye");
        let expected = vec![
            text("Hi "),
            call(0, Some("f"), r#"{"a":1,"b":"x"}"#, None, OK),
            call(1, Some("g"), r#"{"c":[1.50,null]}"#, None, OK),
            text(" bye"),
        ];
        assert_eq!(events, expected);
        let events =
            both_ways::<Pythonic>("<|python_start|>[f()]<|python_end|><|tool_call_start|> [ g() ] <|tool_call_end|>");
        assert_eq!(
            events,
            vec![call(0, Some("f"), "{}", None, OK), call(1, Some("g"), "{}", None, OK)]
        );
    }

    #[test]
    fn a_call_is_handed_over_at_its_parenthesis() {
        let mut runner = Runner::<Pythonic>::new(None, false, Limits::default());
        let mut out = Vec::new();
        assert_eq!(runner.feed("[f(a=')'), g(", &mut out), Ok(()));
        assert_eq!(out, vec![call(0, Some("f"), r#"{"a":")"}"#, None, OK)]);
    }

    #[test]
    fn prose_that_is_no_list_of_calls_is_text() {
        assert_eq!(
            both_ways::<Pythonic>("See [1] and [note] [x"),
            vec![text("See [1] and [note] [x")]
        );
        let events = both_ways::<Pythonic>("Read [see(the note)] now");
        let why = "a list that began as calls is not one; kept as text";
        assert_eq!(
            events,
            vec![
                text("Read [see(the note)"),
                finding(FindingCode::MarkerInText, why, None),
                text("] now")
            ]
        );
        let events = both_ways::<Pythonic>("<|python_start|> print(1)");
        let why = "<|python_start|> was not followed by a list; kept as text";
        assert_eq!(
            events,
            vec![
                text("<|python_start|> "),
                finding(FindingCode::MarkerInText, why, None),
                text("print(1)")
            ]
        );
        let events = both_ways::<Pythonic>("<|tool_call_start|>[ ]<|tool_call_end|>");
        let why = "an empty call list; kept as text";
        let expected = vec![
            text("<|tool_call_start|>[ ]"),
            finding(FindingCode::MarkerInText, why, None),
            text("<|tool_call_end|>"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn an_invalid_call_keeps_its_text_and_its_siblings_stand() {
        let events = both_ways::<Pythonic>("[f(a=b'x'), g(1), h()]");
        let expected = vec![
            finding(
                FindingCode::InvalidArguments,
                "a bytes literal has no JSON form",
                Some(0),
            ),
            call(0, Some("f"), "f(a=b'x')", None, INVALID),
            finding(
                FindingCode::MalformedCall,
                "an argument without a keyword; a call's arguments are KEY=VALUE",
                Some(1),
            ),
            call(1, Some("g"), "g(1)", None, INVALID),
            call(2, Some("h"), "{}", None, OK),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_list_that_breaks_or_is_not_ended_keeps_its_calls() {
        let events = both_ways::<Pythonic>("[f(), 3] x");
        let why = "\"3\" where a call's name or its '(' belongs";
        let expected = vec![
            call(0, Some("f"), "{}", None, OK),
            finding(FindingCode::MalformedCall, why, Some(1)),
            call(1, None, "", None, INVALID),
            text("3] x"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Pythonic>("[f()]  \n é");
        assert_eq!(events, vec![call(0, Some("f"), "{}", None, OK), text("  \n é")]);
        let events = both_ways::<Pythonic>("[f() \n é");
        let why = "the call list was not closed by ']' before \"é\"";
        let expected = vec![
            call(0, Some("f"), "{}", None, OK),
            finding(FindingCode::MissingEndMarker, why, Some(0)),
            text(" \n é"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Pythonic>("<|python_start|>[f()] \n<|python_e");
        let expected = vec![
            call(0, Some("f"), "{}", None, OK),
            finding(
                FindingCode::MissingEndMarker,
                "no <|python_end|> after the call list",
                Some(0),
            ),
            text(" \n<|python_e"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Pythonic>("<|python_start|>[f(a='x\ny')]");
        let why = "the call's brackets or quotes break here";
        let expected = vec![
            finding(FindingCode::MalformedCall, why, Some(0)),
            call(0, Some("f"), "f(a='x", None, INVALID),
            text("\ny')]"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn the_end_of_the_stream_cuts_a_call_a_list_or_a_head() {
        assert_eq!(both_ways::<Pythonic>("Use [get_wea"), vec![text("Use [get_wea")]);
        let cut = "the stream ended inside the call";
        let events = both_ways::<Pythonic>("[f(a='x");
        assert_eq!(
            events,
            vec![
                finding(FindingCode::Cut, cut, Some(0)),
                call(0, Some("f"), "f(a='x", None, CUT)
            ]
        );
        let events = both_ways::<Pythonic>("[f(), ");
        let expected = vec![
            call(0, Some("f"), "{}", None, OK),
            finding(FindingCode::Cut, "the stream ended inside the call list", None),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Pythonic>("<|python_start|>[f(), ge");
        let before = "the stream ended before the call's name";
        let expected = vec![
            call(0, Some("f"), "{}", None, OK),
            finding(FindingCode::Cut, before, Some(1)),
            call(1, None, "ge", None, CUT),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Pythonic>("<|tool_call_start|> ");
        assert_eq!(
            events,
            vec![finding(FindingCode::Cut, before, Some(0)), call(0, None, "", None, CUT)]
        );
    }

    #[test]
    fn a_call_inside_reasoning_is_reasoning() {
        let events = both_ways::<Pythonic>("<think>maybe [f(a=1)]</think>[g()]");
        let expected = vec![
            DialectEvent::Reasoning("maybe [f(a=1)]".to_owned()),
            call(0, Some("g"), "{}", None, OK),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_list_past_the_byte_limit_is_calls_however_it_was_fed() {
        let limits = Limits {
            max_argument_bytes: 16,
            ..Limits::default()
        };
        let long = "x".repeat(40);
        let events = fed_both_ways::<Pythonic>(&format!("[f(a='{long}']] tail"), None, false, limits);
        let why = "the call's brackets or quotes break here";
        let expected = vec![
            finding(FindingCode::MalformedCall, why, Some(0)),
            call(0, Some("f"), "f(", None, INVALID),
            text("]] tail"),
        ];
        assert_eq!(events, expected);
        let events = fed_both_ways::<Pythonic>(&format!("[f(a='{long}')] tail"), None, false, limits);
        let expected = vec![
            finding(FindingCode::TooLarge, TOO_LARGE, Some(0)),
            call(0, Some("f"), "", None, INVALID),
            text(" tail"),
        ];
        assert_eq!(events, expected);
        // A head whose name passes the limit is text, held no longer.
        assert_eq!(
            fed_both_ways::<Pythonic>(&format!("[{long}"), None, false, limits),
            vec![text(&format!("[{long}"))]
        );
    }

    #[test]
    fn a_megabyte_fed_a_char_at_a_time_is_read_in_linear_time() {
        let size = 1 << 20;
        // A call's string, the whitespace after a call, a wrapper's whitespace before its end marker.
        let text = format!(
            "[f(a='{}'){}]<|python_start|>[g()]{}<|python_end|>",
            "x".repeat(size),
            " ".repeat(size),
            "\n".repeat(size)
        );
        let out = fed_by_char::<Pythonic>(&text, Limits::default());
        let calls = out
            .iter()
            .filter(|event| matches!(event, DialectEvent::Call(call) if call.valid))
            .count();
        assert_eq!((calls, out.len()), (2, 2));
    }
}
