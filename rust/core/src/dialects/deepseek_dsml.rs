//! `deepseek_dsml`: DeepSeek V3.2 and V4, calls in DSML markup with typed parameters.
//!
//! Twin of the reference's `dialects/deepseek_dsml.py`. `<｜DSML｜function_calls>` (V4: `<｜DSML｜tool_calls>`) holds
//! `<｜DSML｜invoke name="NAME">` elements, each with `<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>`
//! per argument, or a JSON object as its body (SGLang's tests), closed by `</｜DSML｜invoke>`, where the call is whole;
//! the section's rules are `deepseek.rs`'s. The markup types each value: `string="true"` is the raw text, exactly, and
//! `string="false"` is JSON, so no schema is needed (a value that is not JSON is `INVALID_ARGUMENTS`). A value ends at
//! `</｜DSML｜parameter>`; one that runs into `</｜DSML｜invoke>` ends there (`MISSING_END_MARKER`). Reasoning is
//! `<think>…</think>`, which the thinking prompt opens; a section ends it without `</think>`, as V4's template writes.

use super::deepseek::{Section, SectionCalls, Sectioned, Step};
use super::shared::{
    Called, Core, FindingCode, Findings, JsonReader, Read, Sink, arguments_of, compact_text, is_python_space, members,
    object_text, quoted, read_json,
};

const FUNCTION_CALLS: &str = "<｜DSML｜function_calls>";
const FUNCTION_CALLS_END: &str = "</｜DSML｜function_calls>";
const TOOL_CALLS: &str = "<｜DSML｜tool_calls>";
const TOOL_CALLS_END: &str = "</｜DSML｜tool_calls>";
const INVOKE: &str = "<｜DSML｜invoke";
const INVOKE_END: &str = "</｜DSML｜invoke>";
const PARAMETER: &str = "<｜DSML｜parameter";
const PARAMETER_END: &str = "</｜DSML｜parameter>";

/// The `deepseek_dsml` dialect.
pub(crate) type DeepSeekDsml = Sectioned<Dsml>;

/// Where a DSML call is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The invoke tag's attributes, up to its `>`.
    #[default]
    Invoke,
    /// Between parameters: a parameter, the invoke's end, or (first) a JSON object.
    Body,
    /// A parameter tag's attributes, up to its `>`.
    Parameter,
    /// A parameter's value, up to its end marker.
    Value,
    /// The invoke's body as a JSON object.
    Json,
    /// The call broke: read on to its end.
    Skip,
}

/// The calls of a DSML section.
#[derive(Debug, Default)]
pub(crate) struct Dsml {
    state: State,
    name: Option<String>,
    /// The parameter being read: its key, whether its value is a string, its value so far.
    key: String,
    string: bool,
    value: String,
    /// Each argument's key and its value as JSON text, in order.
    arguments: Vec<(String, String)>,
    findings: Findings,
    /// The invoke's JSON body, once one began.
    reader: Option<JsonReader>,
    /// The values passed the limit on a call's bytes: read on, not kept.
    overflow: bool,
    /// How far (in bytes from the cursor) the tag at the cursor was searched for its end.
    tag_seen: usize,
}

impl SectionCalls for Dsml {
    const SECTIONS: &'static [(&'static str, &'static str)] =
        &[(FUNCTION_CALLS, FUNCTION_CALLS_END), (TOOL_CALLS, TOOL_CALLS_END)];
    const STARTS: &'static [&'static str] = &[FUNCTION_CALLS, TOOL_CALLS];
    const CALL_START: &'static str = INVOKE;
    const CALL_ENDS_REASONING: bool = true;

    fn begin(&mut self, _core: &Core) {
        *self = Self::default();
    }

    fn advance(&mut self, section: &mut Section, core: &mut Core) -> Step {
        match self.state {
            State::Invoke => self.invoke(section, core),
            State::Body => self.body(section, core),
            State::Parameter => self.parameter(section, core),
            State::Value => self.value(section, core),
            State::Json => self.json(section, core),
            State::Skip => self.skip(section, core),
        }
    }

    fn block_name(block: &str) -> Option<String> {
        // The first `name="…"` whose value holds no `"`, `<` or `>`, as a search of `name="([^"<>]+)"` finds it.
        block.match_indices("name=\"").find_map(|(at, found)| {
            let value = block.get(at + found.len()..)?;
            let end = value.find(['"', '<', '>'])?;
            if end == 0 || !value.get(end..)?.starts_with('"') {
                return None;
            }
            value.get(..end).map(str::to_owned)
        })
    }

    fn cut(&mut self, section: &mut Section, core: &mut Core) {
        match self.state {
            State::Value => section.keep(&self.value),
            State::Json => {
                if let Some(reader) = &self.reader {
                    section.keep(reader.text());
                }
            }
            _ => {}
        }
        let mut findings = std::mem::take(&mut self.findings);
        findings.push((FindingCode::Cut, format!("the stream ended before {INVOKE_END}")));
        let called = Called {
            name: self.name.take(),
            arguments: section.take_raw(),
            id: None,
            findings,
        };
        core.call(called, false);
    }
}

impl Dsml {
    /// The attributes of the tag at the cursor up to its `>` (taken); None while unread or when broken.
    ///
    /// A `<` before the `>` breaks the tag and sends the call to `Skip`.
    fn tag(&mut self, section: &mut Section, core: &mut Core) -> Option<String> {
        let rest = core.rest();
        // What was looked at before holds neither '>' nor '<': only what arrived since is searched, and the limit is
        // held against the tag's text before its '>' or '<', so that the split decides nothing.
        let unseen = rest.get(self.tag_seen..).unwrap_or_default();
        let at = self.tag_seen + unseen.find(['<', '>']).unwrap_or(unseen.len());
        self.tag_seen = at;
        if at > core.limits.max_argument_bytes {
            let message = "a tag passed the limit on a call's bytes".to_owned();
            self.findings.push((FindingCode::TooLarge, message));
            self.state = State::Skip;
            return None;
        }
        let attributes = rest.get(..at)?;
        match rest.as_bytes().get(at) {
            None => None,
            Some(b'<') => {
                let why = format!("a tag without '>': {}", quoted(attributes));
                self.malformed(why);
                None
            }
            Some(_) => {
                let attributes = attributes.to_owned();
                section.keep(rest.get(..=at).unwrap_or_default());
                core.advance(at + 1);
                self.tag_seen = 0;
                Some(attributes)
            }
        }
    }

    fn malformed(&mut self, why: String) {
        self.findings.push((FindingCode::MalformedCall, why));
        self.state = State::Skip;
    }

    /// What a tag step gives when the tag is not read: on when it broke the call, else a wait.
    fn unread(&self, state: State) -> Step {
        if self.state == state { Step::Wait } else { Step::Stay }
    }

    fn invoke(&mut self, section: &mut Section, core: &mut Core) -> Step {
        let Some(attributes) = self.tag(section, core) else {
            return self.unread(State::Invoke);
        };
        match invoke_attributes(&attributes) {
            Some(name) => {
                self.name = Some(name.to_owned());
                self.state = State::Body;
            }
            None => self.malformed(format!(
                "the invoke tag's attributes {} are not name=\"…\"",
                quoted(&attributes)
            )),
        }
        Step::Stay
    }

    fn body(&mut self, section: &mut Section, core: &mut Core) -> Step {
        section.keep(core.skip_whitespace());
        if core.rest().is_empty() {
            return Step::Wait;
        }
        for literal in [PARAMETER, INVOKE_END] {
            match core.starts_with(literal, core.cursor()) {
                None => return Step::Wait,
                Some(true) => {
                    core.advance(literal.len());
                    section.keep(literal);
                    if literal == INVOKE_END {
                        return self.whole(section, core);
                    }
                    self.state = State::Parameter;
                    return Step::Stay;
                }
                Some(false) => {}
            }
        }
        if core.peek() == Some(b'{') && self.reader.is_none() && self.arguments.is_empty() {
            self.reader = Some(JsonReader::new(&core.limits));
            self.state = State::Json;
            return Step::Stay;
        }
        let seen: String = core.rest().chars().take(20).collect();
        self.malformed(format!("{} where a parameter or {INVOKE_END} belongs", quoted(&seen)));
        Step::Stay
    }

    fn parameter(&mut self, section: &mut Section, core: &mut Core) -> Step {
        let Some(attributes) = self.tag(section, core) else {
            return self.unread(State::Parameter);
        };
        match parameter_attributes(&attributes) {
            Some((key, string)) => {
                key.clone_into(&mut self.key);
                self.string = string;
                self.value.clear();
                self.state = State::Value;
            }
            None => self.malformed(format!(
                "the parameter tag's attributes {} are not name=\"…\" string=\"true|false\"",
                quoted(&attributes)
            )),
        }
        Step::Stay
    }

    fn value(&mut self, section: &mut Section, core: &mut Core) -> Step {
        let mut released = String::new();
        let marker = core.release_until(&[PARAMETER_END, INVOKE_END], Sink::Into(&mut released));
        if !self.overflow {
            self.value.push_str(&released);
            if section.raw_bytes() + self.value.len() > core.limits.max_argument_bytes {
                // The value is read on to its end, not kept: where it ends does not depend on the split.
                let message = "the call's values passed the limit on a call's bytes".to_owned();
                self.findings.push((FindingCode::TooLarge, message));
                section.keep(&std::mem::take(&mut self.value));
                self.overflow = true;
            }
        }
        let Some(marker) = marker else {
            return Step::Wait;
        };
        if !self.overflow {
            let value = std::mem::take(&mut self.value);
            section.keep(&value);
            section.keep(marker);
            self.take_value(&value, core.limits.max_depth);
        }
        if marker == INVOKE_END {
            let message = format!("the parameter {} had no {PARAMETER_END}", quoted(&self.key));
            self.findings.push((FindingCode::MissingEndMarker, message));
            return self.whole(section, core);
        }
        self.state = State::Body;
        Step::Stay
    }

    fn take_value(&mut self, value: &str, max_depth: u32) {
        let key = self.key.clone();
        if self.arguments.iter().any(|(given, _)| *given == key) {
            let message = format!("the parameter {} is given twice; the first is kept", quoted(&key));
            self.findings.push((FindingCode::MalformedCall, message));
            return;
        }
        if self.string {
            self.arguments.push((key, quoted(value)));
            return;
        }
        match read_json(value, max_depth) {
            Ok(()) => self.arguments.push((key, compact_text(value))),
            Err(error) => {
                let message = format!("the parameter {} is not JSON ({error})", quoted(&key));
                self.findings.push((FindingCode::InvalidArguments, message));
                self.arguments.push((key, quoted(value)));
            }
        }
    }

    fn json(&mut self, section: &mut Section, core: &mut Core) -> Step {
        let Some(reader) = self.reader.as_mut() else {
            return Step::Wait;
        };
        let (read, taken) = reader.take(core.rest());
        core.advance(taken);
        match read {
            Read::Complete => {
                let (text, findings) = arguments_of(reader);
                section.keep(reader.text());
                if findings.is_empty() {
                    let read = members(&text);
                    self.arguments = read.into_iter().map(|(key, value)| (key, value.to_owned())).collect();
                }
                self.findings.extend(findings);
                self.state = State::Body;
                Step::Stay
            }
            Read::Invalid => {
                section.keep(reader.text());
                let why = "the invoke's body is not JSON".to_owned();
                self.findings.push((FindingCode::InvalidArguments, why));
                self.state = State::Skip;
                Step::Stay
            }
            Read::Incomplete => Step::Wait,
        }
    }

    fn skip(&mut self, section: &mut Section, core: &mut Core) -> Step {
        let Some(marker) = section.collect(core, &[INVOKE_END, INVOKE, section.end()]) else {
            return Step::Wait;
        };
        if marker == INVOKE_END {
            section.keep(marker);
            return self.whole(section, core);
        }
        let called = Called {
            name: self.name.take(),
            arguments: section.take_raw(),
            id: None,
            findings: std::mem::take(&mut self.findings),
        };
        section.called(core, called, true);
        Step::Marker(marker)
    }

    /// `</｜DSML｜invoke>`: the call is whole and handed over.
    fn whole(&mut self, section: &mut Section, core: &mut Core) -> Step {
        let broken = self.state == State::Skip
            || self
                .findings
                .iter()
                .any(|(code, _)| matches!(code, FindingCode::MalformedCall | FindingCode::TooLarge));
        let arguments = if broken {
            section.take_raw()
        } else {
            object_text(self.arguments.iter().map(|(key, value)| (key.as_str(), value.as_str())))
        };
        let called = Called {
            name: self.name.take(),
            arguments,
            id: None,
            findings: std::mem::take(&mut self.findings),
        };
        section.called(core, called, true);
        Step::Section
    }
}

/// The text after `prefix` at the start of `text`, past at least one whitespace char (the reference's `\s+prefix`).
fn after_space<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = text.trim_start_matches(is_python_space);
    if rest.len() == text.len() {
        return None;
    }
    rest.strip_prefix(prefix)
}

/// `name="VALUE"` then the rest: VALUE holds no `"`, `<` or `>` and is not empty.
fn quoted_value<'a>(text: &'a str, attribute: &str) -> Option<(&'a str, &'a str)> {
    let rest = after_space(text, attribute)?.strip_prefix("=\"")?;
    let end = rest.find(['"', '<', '>'])?;
    let value = rest.get(..end).filter(|value| !value.is_empty())?;
    Some((value, rest.get(end..)?.strip_prefix('"')?))
}

/// The name of an invoke tag's attributes, as `\s+name="([^"<>]+)"\s*` matches them whole.
fn invoke_attributes(attributes: &str) -> Option<&str> {
    let (name, rest) = quoted_value(attributes, "name")?;
    rest.chars().all(is_python_space).then_some(name)
}

/// The key of a parameter tag's attributes and whether its value is a string, as
/// `\s+name="([^"<>]+)"\s+string="(true|false)"\s*` matches them whole.
fn parameter_attributes(attributes: &str) -> Option<(&str, bool)> {
    let (key, rest) = quoted_value(attributes, "name")?;
    let (string, rest) = quoted_value(rest, "string")?;
    let string = match string {
        "true" => true,
        "false" => false,
        _ => return None,
    };
    rest.chars().all(is_python_space).then_some((key, string))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{INVALID, OK, both_ways, call, fed_both_ways, finding, reasoning};
    use super::*;
    use crate::accumulator::Limits;

    fn section(calls: &str) -> String {
        format!("{FUNCTION_CALLS}\n{calls}\n{FUNCTION_CALLS_END}")
    }

    fn parameter(key: &str, string: bool, value: &str) -> String {
        format!("{PARAMETER} name=\"{key}\" string=\"{string}\">{value}{PARAMETER_END}")
    }

    #[test]
    fn the_markup_types_each_value() {
        let invoke = format!(
            "{INVOKE} name=\"f\">\n{}\n{}\n{INVOKE_END}",
            parameter("a", true, "x \"y\""),
            parameter("n", false, "[1.50, true]")
        );
        assert_eq!(
            both_ways::<DeepSeekDsml>(&section(&invoke)),
            vec![call(0, Some("f"), r#"{"a":"x \"y\"","n":[1.50,true]}"#, None, OK)]
        );
    }

    #[test]
    fn an_invoke_s_body_may_be_a_json_object() {
        let invoke = format!("{INVOKE} name=\"f\">{{\"a\": 1}}{INVOKE_END}");
        assert_eq!(
            both_ways::<DeepSeekDsml>(&format!("{TOOL_CALLS}{invoke}{TOOL_CALLS_END}")),
            vec![call(0, Some("f"), r#"{"a":1}"#, None, OK)]
        );
    }

    #[test]
    fn a_parameter_given_twice_breaks_the_call_which_is_its_text() {
        let invoke = format!(
            "{INVOKE} name=\"f\">{}{}{INVOKE_END}",
            parameter("a", true, "1"),
            parameter("a", true, "2")
        );
        assert_eq!(
            both_ways::<DeepSeekDsml>(&section(&invoke)),
            vec![
                finding(
                    FindingCode::MalformedCall,
                    r#"the parameter "a" is given twice; the first is kept"#,
                    Some(0)
                ),
                call(0, Some("f"), &invoke, None, INVALID),
            ]
        );
    }

    #[test]
    fn a_value_that_runs_into_the_invoke_s_end_ends_there() {
        let invoke = format!("{INVOKE} name=\"f\">{PARAMETER} name=\"a\" string=\"true\">x{INVOKE_END}");
        let message = format!("the parameter \"a\" had no {PARAMETER_END}");
        assert_eq!(
            both_ways::<DeepSeekDsml>(&section(&invoke)),
            vec![
                finding(FindingCode::MissingEndMarker, &message, Some(0)),
                call(0, Some("f"), r#"{"a":"x"}"#, None, OK),
            ]
        );
    }

    #[test]
    fn a_tag_broken_by_a_marker_is_a_malformed_call_up_to_the_invoke_s_end() {
        let invoke = format!("{INVOKE} name=\"f\"{INVOKE_END}");
        assert_eq!(
            both_ways::<DeepSeekDsml>(&section(&invoke)),
            vec![
                finding(
                    FindingCode::MalformedCall,
                    r#"a tag without '>': " name=\"f\"""#,
                    Some(0)
                ),
                call(0, None, &invoke, None, INVALID),
            ]
        );
    }

    #[test]
    fn a_section_ends_reasoning_and_a_block_is_named_by_its_name_attribute() {
        let whole = format!("thinking{FUNCTION_CALLS}{INVOKE} name=\"f\">{INVOKE_END}{FUNCTION_CALLS_END}");
        assert_eq!(
            fed_both_ways::<DeepSeekDsml>(&whole, None, true, Limits::default()),
            vec![reasoning("thinking"), call(0, Some("f"), "{}", None, OK)]
        );
        let whole = format!("{FUNCTION_CALLS}name=\"<g>\" name=\"g\" junk{FUNCTION_CALLS_END}");
        assert_eq!(
            both_ways::<DeepSeekDsml>(&whole),
            vec![
                finding(
                    FindingCode::MalformedCall,
                    &format!("no {INVOKE} opens the call"),
                    Some(0)
                ),
                call(0, Some("g"), "name=\"<g>\" name=\"g\" junk", None, INVALID),
            ]
        );
    }

    #[test]
    fn attributes_are_matched_whole() {
        assert_eq!(invoke_attributes(" name=\"f\" \u{a0}"), Some("f"));
        assert_eq!(invoke_attributes("name=\"f\""), None);
        assert_eq!(invoke_attributes(" name=\"\""), None);
        assert_eq!(invoke_attributes(" name=\"f\" x"), None);
        assert_eq!(
            parameter_attributes("\n name=\"k\"\tstring=\"false\""),
            Some(("k", false))
        );
        assert_eq!(parameter_attributes(" name=\"k\"string=\"true\""), None);
        assert_eq!(parameter_attributes(" name=\"k\" string=\"yes\""), None);
    }

    #[test]
    fn a_megabyte_tag_or_value_fed_a_char_at_a_time_is_read_in_linear_time() {
        let long = "x".repeat(1 << 20);
        let whole = section(&format!(
            "{INVOKE} name=\"f\">{}{INVOKE_END}{INVOKE} name=\"{long}\">{INVOKE_END}",
            parameter("a", true, &long)
        ));
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        let limits = Limits {
            max_argument_bytes: 64,
            ..Limits::default()
        };
        let events = super::super::test_support::parse::<DeepSeekDsml>(&chars, None, false, limits);
        let findings: Vec<_> = events
            .iter()
            .filter_map(|event| match event {
                super::super::shared::DialectEvent::Finding(finding) => Some(finding.message.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            findings,
            vec![
                "the call's values passed the limit on a call's bytes",
                "a tag passed the limit on a call's bytes"
            ]
        );
    }
}
