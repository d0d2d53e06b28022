//! `harmony`: gpt-oss, messages `<|start|>assistant<|channel|>CHANNEL<|message|>BODY<|end|>` in one text.
//!
//! Twin of the reference's `dialects/harmony.py`. A message's header (between `<|start|>` and `<|message|>`) holds
//! the role, `<|channel|>` and the channel's name, a recipient `to=R` (after the role or after the channel) and a
//! content type (`json`, `<|constrain|>json`, `code`), spaces around each token optional (llm-jp writes one after
//! every special token). The generation prompt ends with `<|start|>assistant`, so the text starts inside a header
//! (` to=…<|channel|>` or `<|channel|>`); text that cannot be such a header start is a header-less message's body,
//! which is text.
//!
//! A message to `functions.NAME` is a call, whatever its channel (calls land on `analysis` too, vllm#24768): its body
//! is a JSON object, whole when it closes; `<|call|>` (or `<|end|>`, llm-jp) is then expected, and its absence is
//! `MISSING_END_MARKER` (the stop token is often not in the text). Any other recipient (`browser.search`, `python`,
//! `container.exec`) is a tool the model's runtime runs, not a client function: `BUILTIN_TOOL`, with the message.
//! Without a recipient, `analysis` is reasoning and any other channel (`final`, `commentary`) text. A message ends at
//! `<|end|>`, `<|call|>`, `<|return|>` or the next `<|start|>`; a header no message follows, or one that is not role,
//! channel, recipient and content type, is `MALFORMED_HEADER`.

use super::shared::{
    Called, Core, FindingCode, Findings, Grammar, JsonReader, Read, Sink, arguments_of, held, is_python_space, quoted,
};

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const CONSTRAIN: &str = "<|constrain|>";
const MESSAGE: &str = "<|message|>";
const END: &str = "<|end|>";
const CALL: &str = "<|call|>";
const RETURN: &str = "<|return|>";

const FUNCTIONS: &str = "functions.";
const ROLE: &str = "assistant";
const REASONING_CHANNEL: &str = "analysis";
const HEADER_MARKERS: &[&str] = &[MESSAGE, CHANNEL, CONSTRAIN, START, END, CALL, RETURN];
/// What ends a message's body: its end marker, or the next message's start.
const BODY_ENDS: &[&str] = &[END, CALL, RETURN, START];

/// How far the text before the prompt's first marker is `\s*(?:t|to|to=\S*\s*)?` (the reference's `_HEADER_START`,
/// `\s` Python's whitespace), read a char at a time: what the text can be while it may still be the rest of the
/// prompt's `<|start|>assistant` header. Every prefix of such text is such text, so one pass decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeadStart {
    /// Whitespace so far.
    Space,
    T,
    To,
    /// `to=` and what is not whitespace after it.
    Recipient,
    /// The whitespace after a recipient.
    Trailing,
    /// Not a header's start.
    Not,
}

impl HeadStart {
    fn then(self, char: char) -> Self {
        let space = is_python_space(char);
        match (self, char) {
            (Self::Space, _) if space => Self::Space,
            (Self::Space, 't') => Self::T,
            (Self::T, 'o') => Self::To,
            (Self::Recipient | Self::Trailing, _) if space => Self::Trailing,
            (Self::To, '=') | (Self::Recipient, _) => Self::Recipient,
            _ => Self::Not,
        }
    }
}

/// Text kept up to a number of bytes: what fits of the text that passes it, and nothing after, however split.
#[derive(Debug)]
struct Kept {
    text: String,
    limit: usize,
    full: bool,
}

impl Kept {
    fn new(limit: usize, text: &str) -> Self {
        let mut kept = Self {
            text: String::new(),
            limit,
            full: false,
        };
        kept.add(text);
        kept
    }

    fn add(&mut self, text: &str) {
        if self.full {
            return;
        }
        if self.text.len() + text.len() <= self.limit {
            self.text.push_str(text);
            return;
        }
        for char in text.chars() {
            if self.text.len() + char.len_utf8() > self.limit {
                break;
            }
            self.text.push(char);
        }
        self.full = true;
    }
}

/// A message's header as it is read: its role part (before `<|channel|>`) and its channel part, kept up to the limit
/// on a call's bytes (the same bytes however split).
#[derive(Debug, Default)]
struct Header {
    role: String,
    channel: String,
    in_channel: bool,
    /// Bytes of the header's parts, kept or not.
    bytes: usize,
    full: bool,
}

impl Header {
    fn new(in_channel: bool, role: String) -> Self {
        Self {
            bytes: role.len(),
            role,
            in_channel,
            ..Self::default()
        }
    }

    fn keep(&mut self, text: &str, limit: usize) {
        if self.full {
            return;
        }
        for char in text.chars() {
            self.bytes += char.len_utf8();
            if self.bytes > limit {
                self.full = true;
                return;
            }
            if self.in_channel {
                self.channel.push(char);
            } else {
                self.role.push(char);
            }
        }
    }

    /// Says that no message followed the header, and `why`.
    fn stray(&self, core: &mut Core, why: &str) {
        let channel = if self.in_channel { CHANNEL } else { "" };
        let header = format!("{}{channel}{}", self.role, self.channel);
        core.finding(
            FindingCode::MalformedHeader,
            format!("the header {} has no message: {why}", quoted(&header)),
            None,
        );
    }
}

/// What a message's header says: its channel, recipient and content type, or why it says nothing sound.
#[derive(Debug, PartialEq, Eq)]
struct Said {
    channel: Option<String>,
    recipient: Option<String>,
    content_type: Option<String>,
    problem: Option<String>,
}

/// The header whose role part is `role` and channel part is `channel` (`<|constrain|>` read as the space it stands
/// for).
fn header_of(role: &str, channel: &str) -> Said {
    let (role, channel) = (words(role), words(channel));
    let recipients: Vec<&str> = role
        .iter()
        .chain(&channel)
        .filter_map(|word| word.strip_prefix("to="))
        .collect();
    let roles: Vec<&str> = role.into_iter().filter(|word| !word.starts_with("to=")).collect();
    let rest: Vec<&str> = channel.into_iter().filter(|word| !word.starts_with("to=")).collect();
    let mut problems = Vec::new();
    if !(roles.is_empty() || roles == [ROLE]) {
        problems.push(format!(
            "the role is {}, not {}",
            quoted(&roles.join(" ")),
            quoted(ROLE)
        ));
    }
    if recipients.len() > 1 {
        problems.push("the header has more than one recipient".to_owned());
    }
    if rest.is_empty() {
        problems.push("the header has no channel".to_owned());
    }
    if let Some(words) = rest.get(2..).filter(|words| !words.is_empty()) {
        problems.push(format!(
            "the header has words no header has: {}",
            quoted(&words.join(" "))
        ));
    }
    if let Some(&"") = recipients.first() {
        problems.push(format!("{} is not a recipient", quoted("")));
    }
    let recipient = match recipients.as_slice() {
        [one] if !one.is_empty() => Some((*one).to_owned()),
        _ => None,
    };
    Said {
        channel: rest.first().map(|&name| name.to_owned()),
        recipient,
        content_type: rest.get(1).map(|&kind| kind.to_owned()),
        problem: (!problems.is_empty()).then(|| problems.join("; ")),
    }
}

/// The words of `text`, split at Python's whitespace as `str.split()` splits.
fn words(text: &str) -> Vec<&str> {
    text.split(is_python_space).filter(|word| !word.is_empty()).collect()
}

/// A call whose header was read: its name and the findings its header gave.
#[derive(Debug, Default)]
struct Opened {
    name: Option<String>,
    findings: Findings,
}

/// What a message's body is.
#[derive(Debug)]
enum Body {
    Text,
    Reasoning,
    /// A message to a tool of the model's runtime: said as a finding when it ends.
    Builtin {
        recipient: String,
        kept: Kept,
    },
}

/// Where the text is.
#[derive(Debug)]
enum State {
    /// At the start, inside the header the prompt's `<|start|>assistant` opened, while the text may still be its
    /// rest: `judged` bytes of it were read (no marker starts in them) and are `head`.
    Prompt {
        judged: usize,
        head: HeadStart,
    },
    /// Outside messages: the runner has the text.
    Text,
    Header(Header),
    /// A call's arguments, from the first char past the whitespace after `<|message|>` (the reader boxed: it is
    /// most of a state's size).
    Arguments {
        call: Opened,
        reader: Box<JsonReader>,
        begun: bool,
    },
    /// The arguments broke: their text runs to the message's end.
    Broken {
        call: Opened,
        text: Kept,
    },
    Body(Body),
    /// The call closed: `<|call|>` (or `<|end|>`) is expected after whitespace, `spaces` bytes of which were seen.
    After {
        spaces: usize,
    },
}

/// What a step did.
enum Step {
    /// Nothing more can be decided yet.
    Wait,
    /// The state changed in place.
    Again,
    /// The text goes on in another state.
    To(State),
}

/// The `harmony` dialect.
#[derive(Debug)]
pub(crate) struct Harmony {
    state: State,
}

impl Default for Harmony {
    fn default() -> Self {
        Self {
            state: State::Prompt {
                judged: 0,
                head: HeadStart::Space,
            },
        }
    }
}

impl Grammar for Harmony {
    const STARTS: &'static [&'static str] = &[START, CHANNEL, END, CALL, RETURN];
    const OPENS_IN_CALL: bool = true;

    fn open(&mut self, core: &mut Core, marker: &'static str) {
        self.go(core, opened_by(marker));
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        let step = match &mut self.state {
            State::Text => Step::Wait,
            State::Prompt { judged, head } => prompt(core, judged, head),
            State::Header(header) => in_header(core, header),
            State::Body(body) => in_body(core, body),
            State::Arguments { call, reader, begun } => in_arguments(core, call, reader, begun),
            State::Broken { call, text } => in_broken(core, call, text),
            State::After { spaces } => after_call(core, spaces),
        };
        match step {
            Step::Wait => false,
            Step::Again => true,
            Step::To(state) => {
                self.go(core, state);
                true
            }
        }
    }

    fn cut(&mut self, core: &mut Core) {
        match std::mem::replace(&mut self.state, State::Text) {
            State::Header(header) => header.stray(core, "the stream ended"),
            State::Body(body) => {
                let reasoning = matches!(body, Body::Reasoning);
                end_message(core, &body);
                if reasoning {
                    core.finding(FindingCode::ReasoningCut, "the stream ended inside reasoning", None);
                }
            }
            State::Arguments { call, reader, .. } => cut_call(core, call, reader.text().to_owned()),
            State::Broken { call, text } => cut_call(core, call, text.text),
            State::Prompt { .. } | State::Text | State::After { .. } => {}
        }
    }
}

impl Harmony {
    fn go(&mut self, core: &mut Core, state: State) {
        if matches!(state, State::Text) {
            core.leave_call();
        }
        self.state = state;
    }
}

/// Where a marker read outside a message's body leads: a header, or (an end marker) text, ending a header-less
/// message.
fn opened_by(marker: &str) -> State {
    match marker {
        START => State::Header(Header::new(false, String::new())),
        CHANNEL => State::Header(Header::new(true, String::new())),
        _ => State::Text,
    }
}

/// Where the end of a message's body leads: the next message's header, or text.
fn after_message(marker: &str) -> State {
    if marker == START {
        State::Header(Header::new(false, String::new()))
    } else {
        State::Text
    }
}

/// The prompt's header goes on while the text before the first marker can be its rest; with `<|channel|>` it is a
/// header, and anything else is text.
fn prompt(core: &mut Core, judged: &mut usize, head: &mut HeadStart) -> Step {
    let rest = core.rest();
    // No marker starts in what was judged (what could start one was held back from it), so only the rest is
    // searched: each byte is searched once however thinly the text arrives.
    let unjudged = rest.get(*judged..).unwrap_or_default();
    let found = Harmony::STARTS
        .iter()
        .filter_map(|&marker| unjudged.find(marker).map(|at| (*judged + at, marker)))
        .min_by_key(|&(at, _)| at);
    if found.is_none() && core.is_final() {
        return Step::To(State::Text);
    }
    // Of text no marker ends yet, what could still start one is not judged: `to=f <|chan` may be `to=f <|channel|>`.
    let end = found.map_or_else(|| rest.len() - held(rest, Harmony::STARTS), |(at, _)| at);
    for char in rest.get(*judged..end).unwrap_or_default().chars() {
        *head = head.then(char);
    }
    *judged = end;
    let could_be_header = *head != HeadStart::Not && end <= core.limits.max_argument_bytes;
    match found {
        Some((at, CHANNEL)) if could_be_header => {
            let role = rest.get(..at).unwrap_or_default().to_owned();
            core.advance(at + CHANNEL.len());
            Step::To(State::Header(Header::new(true, role)))
        }
        None if could_be_header => Step::Wait,
        _ => Step::To(State::Text),
    }
}

/// A header's text, up to its `<|message|>` (or a marker no header holds).
fn in_header(core: &mut Core, header: &mut Header) -> Step {
    let limit = core.limits.max_argument_bytes;
    let mut part = String::new();
    let marker = core.release_until(HEADER_MARKERS, Sink::Into(&mut part));
    header.keep(&part, limit);
    match marker {
        None => Step::Wait,
        Some(CONSTRAIN) => {
            header.keep(" ", limit);
            Step::Again
        }
        Some(CHANNEL) if !header.in_channel => {
            header.in_channel = true;
            Step::Again
        }
        Some(MESSAGE) => Step::To(message(core, header)),
        Some(marker) => {
            header.stray(core, &format!("{marker} came before {MESSAGE}"));
            Step::To(opened_by(marker))
        }
    }
}

/// A message's body that is not a call: text, reasoning or a runtime tool's message, up to its end.
fn in_body(core: &mut Core, body: &mut Body) -> Step {
    let mut part = String::new();
    let sink = match body {
        Body::Text => Sink::Text,
        Body::Reasoning => Sink::Reasoning,
        Body::Builtin { .. } => Sink::Into(&mut part),
    };
    let marker = core.release_until(BODY_ENDS, sink);
    if let Body::Builtin { kept, .. } = body {
        kept.add(&part);
    }
    let Some(marker) = marker else {
        return Step::Wait;
    };
    end_message(core, body);
    Step::To(after_message(marker))
}

/// A call's arguments: a JSON object, from the first char past the whitespace after `<|message|>`.
fn in_arguments(core: &mut Core, call: &mut Opened, reader: &mut JsonReader, begun: &mut bool) -> Step {
    if !*begun {
        core.skip_whitespace();
        if core.peek().is_none() {
            return Step::Wait;
        }
        *begun = true;
    }
    let (read, taken) = reader.take(core.rest());
    core.advance(taken);
    match read {
        Read::Complete => {
            let (arguments, mut found) = arguments_of(reader);
            let mut call = std::mem::take(call);
            call.findings.append(&mut found);
            let called = Called {
                name: call.name,
                arguments,
                id: None,
                findings: call.findings,
            };
            core.call(called, true);
            Step::To(State::After { spaces: 0 })
        }
        Read::Invalid => Step::To(State::Broken {
            call: std::mem::take(call),
            text: Kept::new(core.limits.max_argument_bytes, reader.text()),
        }),
        Read::Incomplete => Step::Wait,
    }
}

/// Arguments that broke: their text up to the message's end is the invalid call's.
fn in_broken(core: &mut Core, call: &mut Opened, text: &mut Kept) -> Step {
    let mut part = String::new();
    let marker = core.release_until(BODY_ENDS, Sink::Into(&mut part));
    text.add(&part);
    let Some(marker) = marker else {
        return Step::Wait;
    };
    let mut call = std::mem::take(call);
    call.findings
        .push((FindingCode::InvalidArguments, "the arguments are not JSON".to_owned()));
    let called = Called {
        name: call.name,
        arguments: std::mem::take(&mut text.text),
        id: None,
        findings: call.findings,
    };
    core.call(called, true);
    Step::To(after_message(marker))
}

/// What a header read whole says the message is: a call's arguments, a runtime tool's message, reasoning or text.
fn message(core: &mut Core, header: &Header) -> State {
    let said = header_of(&header.role, &header.channel);
    let mut findings = Findings::new();
    if header.full {
        let why = "the message's header passed the limit on a call's bytes".to_owned();
        findings.push((FindingCode::TooLarge, why));
    }
    if let Some(recipient) = &said.recipient
        && let Some(name) = recipient.strip_prefix(FUNCTIONS)
    {
        let name = (!name.is_empty()).then(|| name.to_owned());
        if name.is_none() {
            let why = format!("the recipient {} names no function", quoted(recipient));
            findings.push((FindingCode::MalformedCall, why));
        }
        if let Some(problem) = said.problem {
            findings.push((FindingCode::MalformedCall, problem));
        }
        if let Some(kind) = said.content_type.filter(|kind| kind != "json") {
            let why = format!("the content type is {}, not \"json\"", quoted(&kind));
            findings.push((FindingCode::MalformedCall, why));
        }
        return State::Arguments {
            call: Opened { name, findings },
            reader: Box::new(JsonReader::new(&core.limits)),
            begun: false,
        };
    }
    for (code, message) in findings {
        core.finding(code, message, None);
    }
    if let Some(problem) = said.problem {
        let why = format!("the header is not sound ({problem}); its message is read");
        core.finding(FindingCode::MalformedHeader, why, None);
    }
    State::Body(match said.recipient {
        Some(recipient) => Body::Builtin {
            recipient,
            kept: Kept::new(core.limits.max_argument_bytes, ""),
        },
        None if said.channel.as_deref() == Some(REASONING_CHANNEL) => Body::Reasoning,
        None => Body::Text,
    })
}

/// A runtime tool's message ended: said whole, or as far as the limit kept it.
fn end_message(core: &mut Core, body: &Body) {
    let Body::Builtin { recipient, kept } = body else {
        return;
    };
    let cut = if kept.full {
        " (cut at the limit on a call's bytes)"
    } else {
        ""
    };
    let message = format!(
        "a message to {}, a tool of the model's runtime, not a function{cut}: {}",
        quoted(recipient),
        quoted(&kept.text)
    );
    core.finding(FindingCode::BuiltinTool, message, None);
}

/// After a whole call: `<|call|>` or `<|end|>` after whitespace, or the call's missing end marker and text.
fn after_call(core: &mut Core, spaces: &mut usize) -> Step {
    let at = core.after_whitespace_from(spaces);
    if core.ends_at(at) && !core.is_final() {
        return Step::Wait;
    }
    for end in [CALL, END] {
        match core.starts_with(end, at) {
            None => return Step::Wait,
            Some(true) => {
                core.take_to(at + end.len());
                return Step::To(State::Text);
            }
            Some(false) => {}
        }
    }
    let call = core.calls().checked_sub(1);
    core.finding(FindingCode::MissingEndMarker, format!("no {CALL} after the call"), call);
    Step::To(State::Text)
}

/// The stream ended inside a call's arguments: handed over unfinished, with what was kept of them.
fn cut_call(core: &mut Core, mut call: Opened, arguments: String) {
    call.findings
        .push((FindingCode::Cut, format!("the stream ended before {CALL}")));
    let called = Called {
        name: call.name,
        arguments,
        id: None,
        findings: call.findings,
    };
    core.call(called, false);
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{
        CUT, INVALID, OK, both_ways, call, fed_both_ways, fed_by_char, finding, merged, parse, reasoning, text,
    };
    use super::*;
    use crate::accumulator::Limits;

    fn to_function(name: &str, arguments: &str, end: &str) -> String {
        format!("{START}assistant{CHANNEL}commentary to=functions.{name} {CONSTRAIN}json{MESSAGE}{arguments}{end}")
    }

    #[test]
    fn a_turn_is_reasoning_calls_and_the_final_answer() {
        let turn = format!(
            "{CHANNEL}analysis{MESSAGE}Need both.{END}{}{}{START}assistant{CHANNEL}final{MESSAGE}Done.",
            to_function("f", r#"{"a": "x}<|call|>y"}"#, END),
            to_function("g", "{}", CALL),
        );
        let expected = vec![
            reasoning("Need both."),
            call(0, Some("f"), r#"{"a":"x}<|call|>y"}"#, None, OK),
            call(1, Some("g"), "{}", None, OK),
            text("Done."),
        ];
        assert_eq!(both_ways::<Harmony>(&turn), expected);
        for cut in (1..turn.len()).filter(|&cut| turn.is_char_boundary(cut)) {
            let (first, second) = turn.split_at(cut);
            assert_eq!(
                merged(parse::<Harmony>(&[first, second], None, false, Limits::default())),
                expected,
                "{cut}"
            );
        }
    }

    #[test]
    fn the_header_gives_channel_recipient_and_content_type_wherever_they_are_written() {
        let said = header_of(" assistant to=functions.f", " commentary  json");
        let expected = Said {
            channel: Some("commentary".to_owned()),
            recipient: Some("functions.f".to_owned()),
            content_type: Some("json".to_owned()),
            problem: None,
        };
        assert_eq!(said, expected);
        let said = header_of("\u{a0}", "commentary\u{2003}to=python code");
        assert_eq!(
            (said.recipient.as_deref(), said.content_type.as_deref()),
            (Some("python"), Some("code"))
        );
        let said = header_of("user to=", "final to=a json x y");
        let problems = [
            r#"the role is "user", not "assistant""#,
            "the header has more than one recipient",
            r#"the header has words no header has: "x y""#,
            r#""" is not a recipient"#,
        ];
        assert_eq!(said.problem, Some(problems.join("; ")));
        assert_eq!(said.recipient, None);
        assert_eq!(header_of("", "").problem.as_deref(), Some("the header has no channel"));
    }

    #[test]
    fn prose_is_text_even_when_it_starts_like_the_prompt_s_header() {
        assert_eq!(both_ways::<Harmony>("to=be or not"), vec![text("to=be or not")]);
        assert_eq!(
            both_ways::<Harmony>("Hello, to=x <|chan"),
            vec![text("Hello, to=x <|chan")]
        );
        assert_eq!(
            both_ways::<Harmony>(&format!("plain{END} and {MESSAGE}")),
            vec![text(&format!("plain and {MESSAGE}"))]
        );
        // The end of the text that could start a marker is not judged as the header's: split inside the marker, the
        // recipient before it is still read.
        let spaced = format!("to=functions.f {CHANNEL}commentary json{MESSAGE}{{}}{CALL}");
        assert_eq!(both_ways::<Harmony>(&spaced), vec![call(0, Some("f"), "{}", None, OK)]);
    }

    #[test]
    fn a_missing_call_marker_is_said_and_what_follows_is_text() {
        let events = both_ways::<Harmony>(&format!(
            "{CHANNEL}commentary to=functions.f{MESSAGE}{{\"a\": 1}}  \n then"
        ));
        let expected = vec![
            call(0, Some("f"), r#"{"a":1}"#, None, OK),
            finding(FindingCode::MissingEndMarker, "no <|call|> after the call", Some(0)),
            text("  \n then"),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Harmony>(&format!("{CHANNEL}commentary to=functions.f{MESSAGE} 7 {END}x"));
        let why = "the arguments are not a JSON object";
        let expected = vec![
            finding(FindingCode::InvalidArguments, why, Some(0)),
            call(0, Some("f"), "7 ", None, INVALID),
            text("x"),
        ];
        assert_eq!(events, expected);
    }

    #[test]
    fn a_cut_call_is_unfinished_and_a_cut_header_is_said() {
        let events = both_ways::<Harmony>(&format!("{CHANNEL}commentary to=functions.f{MESSAGE}{{\"a\": \"b"));
        let expected = vec![
            finding(FindingCode::Cut, "the stream ended before <|call|>", Some(0)),
            call(0, Some("f"), r#"{"a": "b"#, None, CUT),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Harmony>(&format!("{CHANNEL}commentary to=functions.f"));
        let why = r#"the header "<|channel|>commentary to=functions.f" has no message: the stream ended"#;
        assert_eq!(events, vec![finding(FindingCode::MalformedHeader, why, None)]);
        let events = both_ways::<Harmony>(&format!("{START}assistant{END}ok"));
        let why = r#"the header "assistant" has no message: <|end|> came before <|message|>"#;
        assert_eq!(
            events,
            vec![finding(FindingCode::MalformedHeader, why, None), text("ok")]
        );
    }

    #[test]
    fn builtin_tools_are_findings_with_their_message_never_text_or_calls() {
        let events = both_ways::<Harmony>(&format!(
            "{CHANNEL}analysis to=browser.search{MESSAGE}{{\"query\": \"x\"}}{CALL}Next"
        ));
        let why =
            r#"a message to "browser.search", a tool of the model's runtime, not a function: "{\"query\": \"x\"}""#;
        assert_eq!(events, vec![finding(FindingCode::BuiltinTool, why, None), text("Next")]);
        let limits = Limits {
            max_argument_bytes: 24,
            ..Limits::default()
        };
        let events = fed_both_ways::<Harmony>(
            &format!("{CHANNEL}commentary to=python{MESSAGE}{}", "é".repeat(50)),
            None,
            false,
            limits,
        );
        let why = format!(
            "a message to \"python\", a tool of the model's runtime, not a function (cut at the limit on a call's \
             bytes): \"{}\"",
            "é".repeat(12)
        );
        assert_eq!(events, vec![finding(FindingCode::BuiltinTool, &why, None)]);
    }

    #[test]
    fn unsound_headers_are_said_and_calls_they_address_are_invalid() {
        let events = both_ways::<Harmony>(&format!("{START}user{CHANNEL}analysis{MESSAGE}hi"));
        let why = r#"the header is not sound (the role is "user", not "assistant"); its message is read"#;
        let cut = "the stream ended inside reasoning";
        let expected = vec![
            finding(FindingCode::MalformedHeader, why, None),
            reasoning("hi"),
            finding(FindingCode::ReasoningCut, cut, None),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Harmony>(&format!("{CHANNEL}commentary to=functions.f code{MESSAGE}{{}}{CALL}"));
        let expected = vec![
            finding(
                FindingCode::MalformedCall,
                r#"the content type is "code", not "json""#,
                Some(0),
            ),
            call(0, Some("f"), "{}", None, INVALID),
        ];
        assert_eq!(events, expected);
        let events = both_ways::<Harmony>(&format!("{CHANNEL}commentary to=functions.{MESSAGE}{{}}{CALL}"));
        let why = r#"the recipient "functions." names no function"#;
        assert_eq!(
            events,
            vec![
                finding(FindingCode::MalformedCall, why, Some(0)),
                call(0, None, "{}", None, INVALID)
            ]
        );
    }

    #[test]
    fn hostile_arguments_are_invalid_calls_and_the_next_call_stands() {
        let events = both_ways::<Harmony>(&(to_function("f", r#"{"a": 1]"#, CALL) + &to_function("g", "{}", CALL)));
        let expected = vec![
            finding(FindingCode::InvalidArguments, "the arguments are not JSON", Some(0)),
            call(0, Some("f"), r#"{"a": 1]"#, None, INVALID),
            call(1, Some("g"), "{}", None, OK),
        ];
        assert_eq!(events, expected);
        let limits = Limits {
            max_argument_bytes: 64,
            ..Limits::default()
        };
        let long = format!("{CHANNEL}commentary {} to=functions.f{MESSAGE}{{}}", "x".repeat(100));
        let why = "the message's header passed the limit on a call's bytes";
        assert_eq!(
            fed_both_ways::<Harmony>(&long, None, false, limits),
            vec![finding(FindingCode::TooLarge, why, None), text("{}")]
        );
    }

    #[test]
    fn a_megabyte_fed_a_char_at_a_time_is_read_in_linear_time() {
        let long = "x".repeat(1 << 20);
        let spaces = " ".repeat(1 << 20);
        // The prompt's header waits on a recipient, the end of a call on whitespace, a header on its end.
        let prompt = format!("to={long}");
        assert_eq!(
            merged(fed_by_char::<Harmony>(&prompt, Limits::default())),
            vec![text(&prompt)]
        );
        let waiting = format!("{CHANNEL}commentary to=functions.f{MESSAGE}{{}}{spaces}{CALL}ok");
        assert_eq!(
            merged(fed_by_char::<Harmony>(&waiting, Limits::default())),
            vec![call(0, Some("f"), "{}", None, OK), text("ok")]
        );
        let header = format!("{CHANNEL}final {long}");
        let why = format!(r#"the header "<|channel|>final {long}" has no message: the stream ended"#);
        assert_eq!(
            merged(fed_by_char::<Harmony>(&header, Limits::default())),
            vec![finding(FindingCode::MalformedHeader, &why, None)]
        );
    }
}
