//! What `glm45` and `glm47` share: `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>`.
//!
//! Twin of the reference's `dialects/_glm.py`. One grammar, whitespace optional between its parts. The name runs from
//! the start marker (after whitespace) to whitespace or `<`; it is known only at its end, so `get` is never taken for
//! `get_weather`. What follows it decides what the marker was: `<arg_key>` or `</tool_call>` opens a call, another of
//! the dialect's tags makes a malformed call, anything else is prose that mentions the marker (`MARKER_IN_TEXT`).
//! Values are raw text typed by the tool's schema (`raw_values`), kept exactly. `</arg_value>` ends a value only when
//! `<arg_key>` or `</tool_call>` follows it (after whitespace), so a value may hold the tag. A call is whole at
//! `</tool_call>`, its only end. Past the limit on a call's bytes, the call is skipped from the character that passed
//! it to the next `</tool_call>`, whatever the split.

use rustc_hash::FxHashSet;

use super::raw_values::typed_arguments;
use super::shared::{Called, Core, FindingCode, Findings, Grammar, TOO_LARGE, quoted};

const START: &str = "<tool_call>";
const END: &str = "</tool_call>";
const KEY: &str = "<arg_key>";
const KEY_END: &str = "</arg_key>";
const VALUE: &str = "<arg_value>";
const VALUE_END: &str = "</arg_value>";
/// The dialect's own tags: one of them right after a name means a call was meant, however damaged.
const TAGS: &[&str] = &[KEY, END, VALUE, KEY_END, VALUE_END];
/// What may follow a name or a value: a key, or the call's end.
const NEXT: &[&str] = &[KEY, END];

/// The GLM grammar; `glm45` and `glm47` differ only in whether a call ends reasoning.
#[derive(Debug, Default)]
pub(crate) struct Glm<const ENDS_REASONING: bool> {
    state: State,
    /// The call being read; made at each start marker.
    call: Open,
}

/// Where a call is; each state owns what only it reads.
#[derive(Debug, Default)]
enum State {
    /// Not in a call.
    #[default]
    Idle,
    /// After the start marker: whitespace, a name, whitespace, then a tag, or prose.
    Head(Head),
    /// Inside `<arg_key>`: the key so far.
    Key { key: String },
    /// After `</arg_key>`: `<arg_value>` expected, after whitespace.
    BeforeValue { key: String },
    /// Inside `<arg_value>`: the value so far.
    Value { key: String, value: String },
    /// `</arg_value>` and the whitespace after it (`ended`): the value's end if `<arg_key>` or `</tool_call>`
    /// follows, else its text.
    AfterValue { key: String, value: String, ended: String },
    /// Malformed or too large: the call runs to `</tool_call>`.
    Skip,
}

/// A step's outcome: whether it decided anything, and the state it leaves.
type Step = (bool, State);

/// The head (whitespace, name, whitespace), scanned before anything is taken, as the marker may be prose. Offsets are
/// from the cursor, which stays on the head's first byte until the head ends.
#[derive(Debug, Default)]
struct Head {
    /// What was scanned, never scanned again when more text arrives (also the head's bytes, against the limit).
    scanned: usize,
    name_start: Option<usize>,
    name_end: Option<usize>,
}

impl Head {
    /// Where the head ends so far in `rest` (the text at the cursor); None once it passed `limit` bytes.
    fn scan(&mut self, rest: &str, limit: usize) -> Option<usize> {
        let mut at = self.scanned;
        for char in rest.get(at..).unwrap_or_default().chars() {
            let named = self.name_start.is_some();
            let space = is_space(char);
            if matches!(char, '<' | '>') || (!space && self.name_end.is_some()) {
                if named && self.name_end.is_none() {
                    self.name_end = Some(at);
                }
                break;
            }
            if space {
                if named && self.name_end.is_none() {
                    self.name_end = Some(at);
                }
            } else if !named {
                self.name_start = Some(at);
            }
            at += char.len_utf8();
            if at > limit {
                return None;
            }
        }
        self.scanned = at;
        Some(at)
    }

    /// The name the head holds, "" when none was read whole.
    fn name<'a>(&self, rest: &'a str) -> &'a str {
        match (self.name_start, self.name_end) {
            (Some(start), Some(end)) => rest.get(start..end).unwrap_or_default(),
            _ => "",
        }
    }
}

/// What a call gathers from its start marker to its end.
#[derive(Debug, Default)]
struct Open {
    /// The call's text as taken, from its marker: what a malformed or cut call hands over (empty past the limit).
    raw: String,
    /// The bytes of the call's text taken so far, against the limit.
    size: usize,
    /// The call passed the limit: its text is scanned, not kept.
    overflow: bool,
    name: Option<String>,
    pairs: Vec<(String, String)>,
    /// The keys of `pairs`, so that a key given twice is found in constant time however many there are.
    keys: FxHashSet<String>,
    findings: Findings,
}

impl Open {
    /// Takes the call's text up to `end` bytes past the cursor (into `into` too); false when it passed the limit on
    /// a call's bytes. The limit is placed on the char that passes it, so the call is skipped from the same place
    /// however the text was split.
    fn consume(&mut self, core: &mut Core, end: usize, into: Option<&mut String>) -> bool {
        if self.overflow {
            core.advance(end);
            return true;
        }
        let chunk = core.rest().get(..end).unwrap_or_default();
        let limit = core.limits.max_argument_bytes;
        if self.size + chunk.len() > limit {
            let mut passed = 0;
            for (at, char) in chunk.char_indices() {
                self.size += char.len_utf8();
                if self.size > limit {
                    passed = at;
                    break;
                }
            }
            core.advance(passed);
            self.findings.push((FindingCode::TooLarge, TOO_LARGE.to_owned()));
            // Nothing of the call is kept, as for the other raw-value dialects.
            self.raw = String::new();
            self.overflow = true;
            return false;
        }
        self.size += chunk.len();
        self.raw.push_str(chunk);
        if let Some(into) = into {
            into.push_str(chunk);
        }
        core.advance(end);
        true
    }
}

impl<const ENDS_REASONING: bool> Grammar for Glm<ENDS_REASONING> {
    const STARTS: &'static [&'static str] = &[START];
    const THINK: Option<(&'static str, &'static str)> = Some(("<think>", "</think>"));
    const CALL_ENDS_REASONING: bool = ENDS_REASONING;

    fn open(&mut self, _: &mut Core, marker: &'static str) {
        self.call = Open {
            raw: marker.to_owned(),
            size: marker.len(),
            ..Open::default()
        };
        self.state = State::Head(Head::default());
    }

    fn advance(&mut self, core: &mut Core) -> bool {
        let (progress, state) = match std::mem::take(&mut self.state) {
            State::Idle => (false, State::Idle),
            State::Head(head) => self.head(core, head),
            State::Key { key } => self.key(core, key),
            State::BeforeValue { key } => self.before_value(core, key),
            State::Value { key, value } => self.value(core, key, value),
            State::AfterValue { key, value, ended } => self.after_value(core, key, value, ended),
            State::Skip => self.skip(core),
        };
        self.state = state;
        progress
    }

    fn cut(&mut self, core: &mut Core) {
        let mut call = std::mem::take(&mut self.call);
        if let State::Head(head) = std::mem::take(&mut self.state) {
            // A name whose end was read (whitespace after it) is known though no tag followed.
            let name = head.name(core.rest());
            call.name = (!name.is_empty()).then(|| name.to_owned());
        }
        let arguments = if call.overflow {
            String::new()
        } else {
            call.raw + core.rest()
        };
        call.findings
            .push((FindingCode::Cut, format!("the stream ended before {END}")));
        let called = Called {
            name: call.name,
            arguments,
            id: None,
            findings: call.findings,
        };
        core.call(called, false);
    }
}

impl<const ENDS_REASONING: bool> Glm<ENDS_REASONING> {
    fn head(&mut self, core: &mut Core, mut head: Head) -> Step {
        let rest = core.rest();
        let Some(at) = head.scan(rest, core.limits.max_argument_bytes) else {
            // A name no call could carry: the marker was prose (decided on one char, whatever the split).
            return (true, self.in_text(core));
        };
        let tag = match tag_at(rest.get(at..).unwrap_or_default(), TAGS) {
            Tag::Maybe => return (false, State::Head(head)),
            Tag::Not => return (true, self.in_text(core)),
            Tag::Is(tag) => tag,
        };
        let name = head.name(rest).to_owned();
        if !self.call.consume(core, at, None) {
            return (true, State::Skip);
        }
        if (tag == KEY || tag == END) && !name.is_empty() {
            self.call.name = Some(name);
            return (true, self.take_next(core, tag));
        }
        let why = if name.is_empty() {
            "no name".to_owned()
        } else {
            format!("{tag} after {}, where a name and {KEY} or {END} belong", quoted(&name))
        };
        (true, self.malformed(why))
    }

    /// The start marker was prose: it is text, and so is the head after it.
    fn in_text(&mut self, core: &mut Core) -> State {
        core.text(&std::mem::take(&mut self.call).raw);
        core.finding(
            FindingCode::MarkerInText,
            format!("{START} was not followed by a name and {KEY} or {END}"),
            None,
        );
        core.leave_call();
        State::Idle
    }

    fn malformed(&mut self, why: String) -> State {
        self.call.findings.push((FindingCode::MalformedCall, why));
        State::Skip
    }

    /// Takes `<arg_key>` or `</tool_call>`, read at the cursor after a name or a value.
    fn take_next(&mut self, core: &mut Core, tag: &'static str) -> State {
        if !self.call.consume(core, tag.len(), None) {
            State::Skip
        } else if tag == END {
            self.whole(core, false)
        } else {
            State::Key { key: String::new() }
        }
    }

    fn key(&mut self, core: &mut Core, mut key: String) -> Step {
        let rest = core.rest();
        let at = rest.find(['<', '\n']).unwrap_or(rest.len());
        let stop = rest.as_bytes().get(at).copied();
        if !self.call.consume(core, at, Some(&mut key)) {
            return (true, State::Skip);
        }
        let tag = match stop {
            None => return (at > 0, State::Key { key }),
            Some(b'<') => tag_at(core.rest(), &[KEY_END]),
            Some(_) => Tag::Not,
        };
        match tag {
            Tag::Maybe => (at > 0, State::Key { key }),
            Tag::Not => {
                let why = format!("a key {} not closed by {KEY_END}", quoted(&key));
                (true, self.malformed(why))
            }
            Tag::Is(_) if key.is_empty() => (true, self.malformed("a key with no text".to_owned())),
            Tag::Is(tag) => {
                let taken = self.call.consume(core, tag.len(), None);
                (true, if taken { State::BeforeValue { key } } else { State::Skip })
            }
        }
    }

    fn before_value(&mut self, core: &mut Core, key: String) -> Step {
        let spaces = spaces(core.rest());
        if !self.call.consume(core, spaces, None) {
            return (true, State::Skip);
        }
        match tag_at(core.rest(), &[VALUE]) {
            Tag::Maybe => (false, State::BeforeValue { key }),
            Tag::Not => {
                let why = format!("the key {} has no {VALUE}", quoted(&key));
                (true, self.malformed(why))
            }
            Tag::Is(tag) => {
                let taken = self.call.consume(core, tag.len(), None);
                let value = String::new();
                (
                    true,
                    if taken {
                        State::Value { key, value }
                    } else {
                        State::Skip
                    },
                )
            }
        }
    }

    fn value(&mut self, core: &mut Core, key: String, mut value: String) -> Step {
        let rest = core.rest();
        let Some(close) = rest.find(VALUE_END) else {
            let end = takeable(rest, VALUE_END);
            let kept = self.call.consume(core, end, Some(&mut value));
            return (end > 0, if kept { State::Value { key, value } } else { State::Skip });
        };
        let mut ended = String::new();
        if self.call.consume(core, close, Some(&mut value))
            && self.call.consume(core, VALUE_END.len(), Some(&mut ended))
        {
            (true, State::AfterValue { key, value, ended })
        } else {
            (true, State::Skip)
        }
    }

    /// After `</arg_value>`: its whitespace is taken as it arrives (it counts toward the limit whatever it turns out
    /// to be), so that none is scanned twice.
    fn after_value(&mut self, core: &mut Core, key: String, mut value: String, mut ended: String) -> Step {
        let spaces = spaces(core.rest());
        if !self.call.consume(core, spaces, Some(&mut ended)) {
            return (true, State::Skip);
        }
        match tag_at(core.rest(), NEXT) {
            Tag::Maybe => (false, State::AfterValue { key, value, ended }),
            Tag::Not => {
                // The end tag is the value's text: what follows it is no part of the call's structure.
                value.push_str(&ended);
                (true, State::Value { key, value })
            }
            Tag::Is(tag) => {
                self.pair(key, value);
                (true, self.take_next(core, tag))
            }
        }
    }

    fn pair(&mut self, key: String, value: String) {
        if self.call.keys.contains(&key) {
            let why = format!("the parameter {} is given twice; the first is kept", quoted(&key));
            self.call.findings.push((FindingCode::MalformedCall, why));
        } else {
            self.call.keys.insert(key.clone());
            self.call.pairs.push((key, value));
        }
    }

    fn skip(&mut self, core: &mut Core) -> Step {
        let rest = core.rest();
        let Some(close) = rest.find(END) else {
            let end = takeable(rest, END);
            // Past the limit or not, the call runs on: what `consume` says changes nothing here.
            self.call.consume(core, end, None);
            return (end > 0, State::Skip);
        };
        // Past the limit, the call is skipped from the char that passed it: to this end tag unless that char was one
        // of the tag's own.
        if self.call.consume(core, close + END.len(), None) {
            (true, self.whole(core, true))
        } else {
            (true, State::Skip)
        }
    }

    /// `</tool_call>` was taken: the call is whole; its values are typed (unless it was skipped) and it is handed over.
    fn whole(&mut self, core: &mut Core, skipped: bool) -> State {
        let Open {
            raw,
            name,
            pairs,
            mut findings,
            ..
        } = std::mem::take(&mut self.call);
        let arguments = if skipped {
            raw
        } else {
            let pairs = pairs.iter().map(|(key, value)| (key.as_str(), value.as_str()));
            typed_arguments(
                pairs,
                core.schema(name.as_deref()),
                core.limits.max_depth,
                |finding, why| {
                    findings.push((finding.code(), why));
                },
            )
        };
        let called = Called {
            name,
            arguments,
            id: None,
            findings,
        };
        core.call(called, true);
        core.leave_call();
        State::Idle
    }
}

/// What the text at a place is, against a set of tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    /// This tag.
    Is(&'static str),
    /// A proper prefix of one of them: more text decides.
    Maybe,
    /// None of them.
    Not,
}

/// The tag of `tags` that `there` (the text from a place to the end of what arrived) starts with. The tags are ASCII,
/// so a window of bytes that cuts a char matches none, as the reference's window of chars would not.
fn tag_at(there: &str, tags: &[&'static str]) -> Tag {
    let longest = tags.iter().map(|tag| tag.len()).max().unwrap_or(0);
    let bytes = there.as_bytes();
    let window = bytes.get(..longest).unwrap_or(bytes);
    if let Some(tag) = tags.iter().find(|tag| window.starts_with(tag.as_bytes())) {
        Tag::Is(tag)
    } else if tags.iter().any(|tag| tag.as_bytes().starts_with(window)) {
        Tag::Maybe
    } else {
        Tag::Not
    }
}

/// How much of `rest` may be taken while looking for `tag`: all of it but a last `<` that may still become the tag.
fn takeable(rest: &str, tag: &str) -> usize {
    rest.rfind('<')
        .filter(|&held| tag.starts_with(rest.get(held..).unwrap_or_default()))
        .unwrap_or(rest.len())
}

/// The grammar's whitespace (JSON's; the templates write no other between the parts).
fn is_space(char: char) -> bool {
    matches!(char, ' ' | '\t' | '\r' | '\n')
}

/// The bytes of whitespace at the start of `text`.
fn spaces(text: &str) -> usize {
    text.len() - text.trim_start_matches(is_space).len()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::glm45::Glm45;
    use super::super::shared::{DialectEvent, Runner, TextCall, Tools};
    use super::super::test_support::{CUT, INVALID, OK, call, fed_both_ways, fed_by_char, finding, text};
    use super::*;
    use crate::accumulator::Limits;

    fn tools() -> Tools {
        let mut tools = Tools::default();
        let properties = json!({"n": {"type": "integer"}, "s": {"type": "string"}});
        tools.insert("f".to_owned(), json!({"type": "object", "properties": properties}));
        tools
    }

    /// glm45's events for `whole` with [`tools`] given: its values are raw text, typed only by a schema.
    fn typed(whole: &str) -> Vec<DialectEvent> {
        fed_both_ways::<Glm45>(whole, Some(&tools()), false, Limits::default())
    }

    const IN_TEXT: &str = "<tool_call> was not followed by a name and <arg_key> or </tool_call>";

    #[test]
    fn values_are_typed_by_the_schema_in_either_layout_and_the_text_around_is_kept() {
        let called = call(0, Some("f"), r#"{"n":1.0,"s":" 1 "}"#, None, OK);
        let glm45 = "<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>1.0</arg_value>\n\
                     <arg_key>s</arg_key>\n<arg_value> 1 </arg_value>\n</tool_call>";
        assert_eq!(
            typed(&format!("Hi {glm45} bye")),
            vec![text("Hi "), called.clone(), text(" bye")]
        );
        let glm47 = "<tool_call>f<arg_key>n</arg_key><arg_value>1.0</arg_value><arg_key>s</arg_key>\
                     <arg_value> 1 </arg_value></tool_call>";
        assert_eq!(typed(glm47), vec![called]);
    }

    #[test]
    fn a_value_may_hold_its_end_tag_when_no_key_or_end_follows_it() {
        let events = typed("<tool_call>f<arg_key>s</arg_key><arg_value>a</arg_value> b</arg_value></tool_call>");
        assert_eq!(events, vec![call(0, Some("f"), r#"{"s":"a</arg_value> b"}"#, None, OK)]);
    }

    #[test]
    fn a_marker_no_name_and_tag_follow_is_prose_and_a_prefix_is_never_taken_for_a_name() {
        let events = typed("<tool_call>get weather");
        assert_eq!(
            events,
            vec![
                text("<tool_call>"),
                finding(FindingCode::MarkerInText, IN_TEXT, None),
                text("get weather")
            ]
        );
        let mut runner = Runner::<Glm45>::new(None, false, Limits::default());
        let mut out = Vec::new();
        assert_eq!(runner.feed("<tool_call>get", &mut out), Ok(()));
        assert_eq!(
            runner.feed("_weather<arg_key>c</arg_key><arg_value>x", &mut out),
            Ok(())
        );
        assert_eq!(out, vec![]);
        assert_eq!(runner.finish(&mut out), Ok(()));
        let cut = "the stream ended before </tool_call>";
        let raw = "<tool_call>get_weather<arg_key>c</arg_key><arg_value>x";
        assert_eq!(
            out,
            vec![
                finding(FindingCode::Cut, cut, Some(0)),
                call(0, Some("get_weather"), raw, None, CUT)
            ]
        );
    }

    #[test]
    fn a_damaged_call_is_malformed_with_its_text_and_a_key_given_twice_keeps_the_first() {
        let damaged = "<tool_call>fn</arg_key><arg_value>1</arg_value></tool_call>";
        let why = "</arg_key> after \"fn\", where a name and <arg_key> or </tool_call> belong";
        assert_eq!(
            typed(&format!("{damaged} ok")),
            vec![
                finding(FindingCode::MalformedCall, why, Some(0)),
                call(0, None, damaged, None, INVALID),
                text(" ok")
            ]
        );
        let no_value = typed("<tool_call>f<arg_key>n</arg_key>1</tool_call>");
        let why = "the key \"n\" has no <arg_value>";
        assert_eq!(
            no_value.first(),
            Some(&finding(FindingCode::MalformedCall, why, Some(0)))
        );
        let pair = "<arg_key>n</arg_key><arg_value>N</arg_value>";
        let twice = typed(&format!(
            "<tool_call>f{}{}</tool_call>",
            pair.replace('N', "1"),
            pair.replace('N', "2")
        ));
        let why = "the parameter \"n\" is given twice; the first is kept";
        assert_eq!(
            twice,
            vec![
                finding(FindingCode::MalformedCall, why, Some(0)),
                call(0, Some("f"), r#"{"n":1}"#, None, INVALID)
            ]
        );
    }

    #[test]
    fn a_value_no_type_reads_and_a_tool_with_no_schema_keep_strings() {
        let events = typed("<tool_call>f<arg_key>n</arg_key><arg_value>one</arg_value></tool_call>");
        let why = "the parameter \"n\": \"one\" is not integer; kept as a string";
        assert_eq!(
            events,
            vec![
                finding(FindingCode::UntypedValue, why, Some(0)),
                call(0, Some("f"), r#"{"n":"one"}"#, None, INVALID)
            ]
        );
        let events = typed("<tool_call>g<arg_key>n</arg_key><arg_value>1</arg_value></tool_call>");
        let why = "the tool of \"n\" has no schema; its value is kept as a string";
        assert_eq!(
            events,
            vec![
                finding(FindingCode::NoSchema, why, Some(0)),
                call(0, Some("g"), r#"{"n":"1"}"#, None, OK)
            ]
        );
    }

    #[test]
    fn past_the_limit_a_call_is_skipped_from_the_char_that_passed_it_to_its_end_tag() {
        let limits = Limits {
            max_argument_bytes: 64,
            ..Limits::default()
        };
        let malformed = format!("<tool_call>f<arg_value>{}</tool_call> after", "x".repeat(100));
        let why = "<arg_value> after \"f\", where a name and <arg_key> or </tool_call> belong";
        assert_eq!(
            fed_both_ways::<Glm45>(&malformed, Some(&tools()), false, limits),
            vec![
                finding(FindingCode::MalformedCall, why, Some(0)),
                finding(FindingCode::TooLarge, TOO_LARGE, Some(0)),
                call(0, None, "", None, INVALID),
                text(" after"),
            ]
        );
        // The limit passed inside the end tag: the call runs on to the next one.
        let inside = format!("<tool_call>f<arg_value>{}</tool_call>x</tool_call>", "x".repeat(35));
        assert_eq!(
            fed_both_ways::<Glm45>(&inside, Some(&tools()), false, limits).get(2),
            Some(&call(0, None, "", None, INVALID))
        );
        assert_eq!(fed_both_ways::<Glm45>(&inside, Some(&tools()), false, limits).len(), 3);
    }

    /// Per-char feeding of a megabyte stays linear in each place a call may hold text.
    #[test]
    fn a_megabyte_fed_a_char_at_a_time_is_read_in_linear_time() {
        let megabyte = 1 << 20;
        let shapes = [
            format!("<tool_call>{}", "n".repeat(megabyte)),
            format!("<tool_call>f<arg_key>{}", "k".repeat(megabyte)),
            format!(
                "<tool_call>f<arg_key>s</arg_key><arg_value>{}",
                "v<".repeat(megabyte / 2)
            ),
            format!(
                "<tool_call>f<arg_key>s</arg_key><arg_value>v</arg_value>{}",
                " ".repeat(megabyte)
            ),
            format!("<tool_call>f<arg_value>{}", "</tool_cal".repeat(megabyte / 10)),
            format!(
                "<tool_call>f{}",
                "<arg_key>k</arg_key><arg_value>v</arg_value>".repeat(megabyte / 44)
            ),
        ];
        for shape in shapes {
            let out = fed_by_char::<Glm45>(&shape, Limits::default());
            assert!(matches!(
                out.last(),
                Some(DialectEvent::Call(TextCall { whole: false, .. }))
            ));
        }
    }
}
