//! Replay of a JSONL call log: lines read and validated against the compiled tools, with no Python.
//!
//! A line of the usual shape is a call record as `toolwire.CallLog` writes it: one JSON object with `name` (a
//! non-empty string), `arguments` (JSON text as a string, or an object, dumped as the Python reader's orjson dumps
//! it), and optionally `id`, `schema_fingerprint` (alias `tool_fingerprint`) and `ts` (alias `time`), each a string
//! or `null`, the time ISO 8601 text of the plain forms (`2025-05-01T12:00:00.123456+00:00`), without `role` or
//! `messages`. Every other line that is not blank is handed back as it is ([`Segment::Other`]) for the Python reader,
//! which is the reference: a line is read here only when that reader would take its inlined path with the same name,
//! arguments, id and fingerprint, so that a log gives the same report either way. What is handed back: lines that
//! are not UTF-8, hold a control byte other than the line end (a tab included), are not one JSON object, repeat a
//! key read here, leave `arguments` out or give it as neither text nor an object (or as an object holding a
//! fraction, an exponent, `-0`, an integer beyond 64 bits or a repeated key), give a number as `id` or `ts`, or a
//! time of another form.

use std::borrow::Cow;
use std::fmt::Write as _;

use indexmap::{Equivalent, IndexMap};
use jiter::{Jiter, Peek};
use rustc_hash::FxBuildHasher;

use crate::validator::ToolValidators;
use crate::violation::Violation;

/// A call record of the usual shape, its strings unescaped (borrowed from the line when they hold no escape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedCall<'a> {
    /// The tool called.
    pub name: Cow<'a, str>,
    /// The arguments, JSON text as recorded.
    pub arguments: Cow<'a, str>,
    /// The call id.
    pub id: Option<Cow<'a, str>>,
    /// The tool fingerprint the call was made under.
    pub fingerprint: Option<Cow<'a, str>>,
}

/// What a line of a call log is to the fast reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogLine<'a> {
    /// Whitespace only (Python's `bytes.strip` whitespace): not a record.
    Blank,
    /// A call record of the usual shape.
    Call(LoggedCall<'a>),
    /// Anything else: for the Python reader.
    Other,
}

/// A call the core found something wrong with (any violation, warnings and infos included).
#[derive(Debug, Clone, PartialEq)]
pub struct Flagged {
    /// Its line number (from 1).
    pub line: u64,
    /// The tool called.
    pub name: String,
    /// The arguments text.
    pub arguments: String,
    /// The call id.
    pub id: Option<String>,
    /// Every violation, in the order `validate_arguments` gives them.
    pub violations: Vec<Violation>,
}

/// A run of lines read here, or one line handed back.
#[derive(Debug, Clone, PartialEq)]
pub enum Segment {
    /// Consecutive lines read here (blank lines among them).
    Calls {
        /// Calls validated.
        calls: u64,
        /// Where the `(name, fingerprint)` pairs first seen in this run stand in the [`CallCounts`] (new keys are
        /// appended, so they are one range).
        new_keys: std::ops::Range<usize>,
        /// The calls with any violation, in line order.
        flagged: Vec<Flagged>,
    },
    /// A line for the Python reader: its number and its bytes (line end included) as a range of the chunk.
    Other {
        /// Its line number (from 1).
        line: u64,
        /// Where its bytes are in the chunk.
        span: std::ops::Range<usize>,
    },
}

/// The keys a call record is read by; a line repeating one of them is handed back (a dict keeps the last).
const NAME: u8 = 0;
const ARGUMENTS: u8 = 1;
const ID: u8 = 2;
const SCHEMA_FINGERPRINT: u8 = 3;
const TOOL_FINGERPRINT: u8 = 4;
const TS: u8 = 5;
const TIME: u8 = 6;
const CONVERSATION: u8 = 7;
const RESULT: u8 = 8;

fn key_slot(key: &str) -> Option<u8> {
    Some(match key {
        "name" => NAME,
        "arguments" => ARGUMENTS,
        "id" => ID,
        "schema_fingerprint" => SCHEMA_FINGERPRINT,
        "tool_fingerprint" => TOOL_FINGERPRINT,
        "ts" => TS,
        "time" => TIME,
        "role" | "messages" => CONVERSATION,
        "result" => RESULT,
        _ => return None,
    })
}

/// A member's value as the fast path takes it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Value {
    /// Not present.
    Missing,
    Null,
    /// A string: its span in the line, quotes excluded, and whether it holds an escape.
    Str {
        start: usize,
        end: usize,
        escaped: bool,
    },
    /// An object: its span in the line.
    Object {
        start: usize,
        end: usize,
    },
    /// Any other value.
    Other,
}

/// What the fast reader does with a line that records the call's result (a `result` member).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultLines {
    /// Read here, the result left unread: no tool declares an output schema to check it against.
    Read,
    /// Handed back, so that the Python reader checks the result against its tool's output schema.
    HandedBack,
}

/// Reads one line (its line end included or not).
pub fn read_line(line: &[u8], results: ResultLines) -> LogLine<'_> {
    if line
        .iter()
        .all(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
    {
        return LogLine::Blank;
    }
    // A control byte other than the line end is left to the reference (a JSON string may not hold one raw; between
    // tokens only a tab is JSON's, and that is rare enough to read slowly).
    if line.iter().any(|&byte| byte < 0x20 && byte != b'\n' && byte != b'\r') {
        return LogLine::Other;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return LogLine::Other;
    };
    match members(line, results) {
        Some(values) => call(text, &values).map_or(LogLine::Other, LogLine::Call),
        None => LogLine::Other,
    }
}

/// The values of the keys read here, or None when the line is not one JSON object, repeats such a key, is a
/// conversation, or records a result the reader hands back.
fn members(line: &[u8], results: ResultLines) -> Option<[Value; 7]> {
    let mut values = [Value::Missing; 7];
    let mut jiter = Jiter::new(line);
    if jiter.peek().ok()? != Peek::Object {
        return None;
    }
    // (The key's slot, not the key: a key with escapes is decoded into the parser's buffer, borrowed until the next
    // call.)
    let mut key = jiter.next_object().ok()?.map(key_slot);
    while let Some(slot) = key {
        let peek = jiter.peek().ok()?;
        match slot {
            Some(CONVERSATION) => return None,
            Some(RESULT) if results == ResultLines::HandedBack => return None,
            // A key not read here, or a result left unread.
            Some(RESULT) | None => jiter.known_skip(peek).ok()?,
            Some(slot) => {
                let at = values.get_mut(usize::from(slot))?;
                if *at != Value::Missing {
                    return None;
                }
                *at = match peek {
                    Peek::Null => {
                        jiter.known_null().ok()?;
                        Value::Null
                    }
                    Peek::String => {
                        let start = jiter.current_index().checked_add(1)?;
                        jiter.known_skip(peek).ok()?;
                        let end = jiter.current_index().checked_sub(1)?;
                        let inner = line.get(start..end)?;
                        Value::Str {
                            start,
                            end,
                            escaped: memchr::memchr(b'\\', inner).is_some(),
                        }
                    }
                    Peek::Object => {
                        let start = jiter.current_index();
                        jiter.known_skip(peek).ok()?;
                        Value::Object {
                            start,
                            end: jiter.current_index(),
                        }
                    }
                    _ => {
                        jiter.known_skip(peek).ok()?;
                        Value::Other
                    }
                };
            }
        }
        key = jiter.next_key().ok()?.map(key_slot);
    }
    jiter.finish().ok()?;
    Some(values)
}

fn string(text: &str, value: Value) -> Option<Cow<'_, str>> {
    let Value::Str { start, end, escaped } = value else {
        return None;
    };
    let raw = text.get(start..end)?;
    if !escaped {
        return Some(Cow::Borrowed(raw));
    }
    let quoted = text.get(start.checked_sub(1)?..end.checked_add(1)?)?;
    let mut jiter = Jiter::new(quoted.as_bytes());
    // A lone surrogate escape is an error here; the reference is left to read such a line.
    Some(Cow::Owned(jiter.next_str().ok()?.to_owned()))
}

/// A string or null (None), or not the usual shape (Err).
fn optional(text: &str, value: Value) -> Result<Option<Cow<'_, str>>, ()> {
    match value {
        Value::Missing | Value::Null => Ok(None),
        Value::Str { .. } => string(text, value).map(Some).ok_or(()),
        Value::Object { .. } | Value::Other => Err(()),
    }
}

fn call<'a>(text: &'a str, values: &[Value; 7]) -> Option<LoggedCall<'a>> {
    let value = |slot: u8| values.get(usize::from(slot)).copied().unwrap_or(Value::Missing);
    let name = string(text, value(NAME)).filter(|name| !name.is_empty())?;
    let arguments = match value(ARGUMENTS) {
        Value::Object { start, end } => Cow::Owned(compact(text.get(start..end)?.as_bytes())?),
        found => string(text, found)?,
    };
    let id = optional(text, value(ID)).ok()?;
    let fingerprint = match value(SCHEMA_FINGERPRINT) {
        Value::Missing => optional(text, value(TOOL_FINGERPRINT)).ok()?,
        found => optional(text, found).ok()?,
    };
    let ts = match value(TS) {
        Value::Missing => optional(text, value(TIME)).ok()?,
        found => optional(text, found).ok()?,
    };
    if let Some(ts) = ts
        && !plain_iso_time(ts.as_bytes())
    {
        return None;
    }
    Some(LoggedCall {
        name,
        arguments,
        id,
        fingerprint,
    })
}

/// An arguments object as the Python reader dumps it (`orjson.dumps`: no spaces, members in order, non-ASCII as
/// it is, `\b \t \n \f \r \" \\` and `\u00XX` escapes), or None for what is left to it: a repeated key, a
/// number that is not an integer orjson keeps as one (a fraction, an exponent, `-0`, beyond 64 bits), nesting
/// deeper than 100.
fn compact(raw: &[u8]) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut jiter = Jiter::new(raw);
    let peek = jiter.peek().ok()?;
    compact_value(&mut jiter, peek, &mut out, 0)?;
    jiter.finish().ok()?;
    Some(out)
}

fn compact_value(jiter: &mut Jiter<'_>, peek: Peek, out: &mut String, depth: u32) -> Option<()> {
    if depth > 100 {
        return None;
    }
    match peek {
        Peek::Null => {
            jiter.known_null().ok()?;
            out.push_str("null");
        }
        Peek::True | Peek::False => {
            out.push_str(if jiter.known_bool(peek).ok()? { "true" } else { "false" });
        }
        Peek::String => push_string(out, jiter.known_str().ok()?),
        Peek::Array => {
            out.push('[');
            let mut next = jiter.known_array().ok()?;
            let mut first = true;
            while let Some(item) = next {
                if !first {
                    out.push(',');
                }
                first = false;
                compact_value(jiter, item, out, depth + 1)?;
                next = jiter.array_step().ok()?;
            }
            out.push(']');
        }
        Peek::Object => {
            out.push('{');
            let mut seen: Vec<String> = Vec::new();
            let mut key = jiter.known_object().ok()?.map(str::to_owned);
            while let Some(name) = key {
                if seen.contains(&name) {
                    return None;
                }
                if !seen.is_empty() {
                    out.push(',');
                }
                push_string(out, &name);
                out.push(':');
                seen.push(name);
                let member = jiter.peek().ok()?;
                compact_value(jiter, member, out, depth + 1)?;
                key = jiter.next_key().ok()?.map(str::to_owned);
            }
            out.push('}');
        }
        _ => {
            let digits = jiter.known_number_bytes(peek).ok()?;
            let text = std::str::from_utf8(digits).ok()?;
            let magnitude = text.strip_prefix('-').unwrap_or(text);
            if text == "-0" || !magnitude.bytes().all(|byte| byte.is_ascii_digit()) {
                return None;
            }
            let fits = if text.starts_with('-') {
                text.parse::<i64>().is_ok()
            } else {
                text.parse::<u64>().is_ok()
            };
            if !fits {
                return None;
            }
            out.push_str(text);
        }
    }
    Some(())
}

fn push_string(out: &mut String, text: &str) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            control if u32::from(control) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(control));
            }
            other => out.push(other),
        }
    }
    out.push('"');
}

/// Whether `text` is a time of the forms read here, each one Python's `datetime.fromisoformat` takes (3.11 and
/// later; before, the `Z` the reader turns into `+00:00`): `YYYY-MM-DD`, optionally followed by `T` or a space and
/// `HH:MM`, `HH:MM:SS`, `HH:MM:SS.fff` or `HH:MM:SS.ffffff`, then optionally `Z` or `±HH:MM`; every field in range.
pub fn plain_iso_time(text: &[u8]) -> bool {
    fn number(digits: &[u8]) -> Option<u32> {
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(
            digits
                .iter()
                .fold(0, |total, &digit| total * 10 + u32::from(digit - b'0')),
        )
    }
    fn field(text: &[u8], at: usize, width: usize) -> Option<u32> {
        number(text.get(at..at.checked_add(width)?)?)
    }
    let date = || -> Option<usize> {
        let year = field(text, 0, 4)?;
        let month = field(text, 5, 2)?;
        let day = field(text, 8, 2)?;
        if text.get(4) != Some(&b'-') || text.get(7) != Some(&b'-') || year == 0 {
            return None;
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return None,
        };
        (1..=days).contains(&day).then_some(10)
    };
    let Some(mut at) = date() else {
        return false;
    };
    if at == text.len() {
        return true;
    }
    if !matches!(text.get(at), Some(b'T' | b' ')) {
        return false;
    }
    at += 1;
    let hour_minute = |at: usize| -> Option<()> {
        (field(text, at, 2)? < 24 && text.get(at + 2) == Some(&b':') && field(text, at + 3, 2)? < 60).then_some(())
    };
    if hour_minute(at).is_none() {
        return false;
    }
    at += 5;
    if text.get(at) == Some(&b':') {
        if field(text, at + 1, 2).is_none_or(|second| second >= 60) {
            return false;
        }
        at += 3;
        if text.get(at) == Some(&b'.') {
            let digits = text
                .get(at + 1..)
                .unwrap_or_default()
                .iter()
                .take_while(|byte| byte.is_ascii_digit())
                .count();
            if digits != 3 && digits != 6 {
                return false;
            }
            at += 1 + digits;
        }
    }
    match text.get(at..) {
        None | Some([] | [b'Z']) => true,
        Some([b'+' | b'-', ..]) => text.len() == at + 6 && hour_minute(at + 1).is_some(),
        Some(_) => false,
    }
}

/// Reads and validates the lines of `chunk` (whole lines; the last may lack its line end), numbered from
/// `first_line`: runs of lines of the usual shape validated as one batch ([`ToolValidators::validate_batch`]), the
/// other lines handed back in place (a line recording a result too, as `results` says).
pub fn replay_lines(
    validators: &ToolValidators,
    chunk: &[u8],
    first_line: u64,
    counts: &mut CallCounts,
    results: ResultLines,
) -> Vec<Segment> {
    let mut segments = Vec::new();
    let mut run: Vec<(u64, LoggedCall<'_>)> = Vec::new();
    let mut number = first_line;
    let mut start = 0;
    while start < chunk.len() {
        let end =
            memchr::memchr(b'\n', chunk.get(start..).unwrap_or_default()).map_or(chunk.len(), |at| start + at + 1);
        let line = chunk.get(start..end).unwrap_or_default();
        match read_line(line, results) {
            LogLine::Blank => {}
            LogLine::Call(found) => run.push((number, found)),
            LogLine::Other => {
                if !run.is_empty() {
                    segments.push(judge(validators, &run, counts));
                    run.clear();
                }
                segments.push(Segment::Other {
                    line: number,
                    span: start..end,
                });
            }
        }
        number += 1;
        start = end;
    }
    if !run.is_empty() {
        segments.push(judge(validators, &run, counts));
    }
    segments
}

fn judge(validators: &ToolValidators, run: &[(u64, LoggedCall<'_>)], counts: &mut CallCounts) -> Segment {
    let pairs: Vec<(&str, &[u8])> = run
        .iter()
        .map(|(_, found)| (found.name.as_ref(), found.arguments.as_bytes()))
        .collect();
    let results = validators.validate_batch(&pairs);
    let known = counts.len();
    for (_, found) in run {
        counts.add(&found.name, found.fingerprint.as_deref());
    }
    let flagged = run
        .iter()
        .zip(results)
        .filter(|(_, violations)| !violations.is_empty())
        .map(|((line, found), violations)| Flagged {
            line: *line,
            name: found.name.clone().into_owned(),
            arguments: found.arguments.clone().into_owned(),
            id: found.id.clone().map(Cow::into_owned),
            violations,
        })
        .collect();
    Segment::Calls {
        calls: run.len() as u64,
        new_keys: known..counts.len(),
        flagged,
    }
}

/// The calls of a log counted per `(name, fingerprint)`, in first-seen order. A log of many tools holds almost as
/// many keys as calls, so a key's strings are made once, when it is first seen, and looked up borrowed after that.
#[derive(Debug, Default, Clone)]
pub struct CallCounts {
    counts: IndexMap<(String, Option<String>), u64, FxBuildHasher>,
}

/// A key looked up without making its strings; it hashes as the owned tuple does (`&str` as `str`, and `Option`'s
/// discriminant then its value).
#[derive(Hash)]
struct BorrowedKey<'a>(&'a str, Option<&'a str>);

impl Equivalent<(String, Option<String>)> for BorrowedKey<'_> {
    fn equivalent(&self, key: &(String, Option<String>)) -> bool {
        self.0 == key.0 && self.1 == key.1.as_deref()
    }
}

impl CallCounts {
    /// Counts one call of `name` under `fingerprint`.
    pub fn add(&mut self, name: &str, fingerprint: Option<&str>) {
        if let Some(count) = self.counts.get_mut(&BorrowedKey(name, fingerprint)) {
            *count += 1;
        } else {
            self.counts.insert((name.to_owned(), fingerprint.map(str::to_owned)), 1);
        }
    }

    /// How many keys were seen.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether no call was counted.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The key seen `at`-th (from 0).
    pub fn key(&self, at: usize) -> Option<(&str, Option<&str>)> {
        self.counts
            .get_index(at)
            .map(|((name, fingerprint), _)| (name.as_str(), fingerprint.as_deref()))
    }

    /// Every key with its count, in first-seen order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&str>, u64)> {
        self.counts
            .iter()
            .map(|((name, fingerprint), count)| (name.as_str(), fingerprint.as_deref(), *count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn called(line: &str) -> Option<(String, String, Option<String>, Option<String>)> {
        match read_line(line.as_bytes(), ResultLines::Read) {
            LogLine::Call(found) => Some((
                found.name.into_owned(),
                found.arguments.into_owned(),
                found.id.map(Cow::into_owned),
                found.fingerprint.map(Cow::into_owned),
            )),
            _ => None,
        }
    }

    #[test]
    fn usual_record() {
        let line = r#"{"id": "c1", "name": "f", "arguments": "{\"a\": 1}", "tool_fingerprint": "sha256:x", "ts": "2025-05-01T00:00:00.001000+00:00", "outcome": "ok"}"#;
        assert_eq!(
            called(&format!("{line}\r\n")),
            Some((
                "f".into(),
                r#"{"a": 1}"#.into(),
                Some("c1".into()),
                Some("sha256:x".into())
            ))
        );
    }

    #[test]
    fn aliases_and_nulls() {
        let found =
            called(r#"{"name":"f","arguments":"","schema_fingerprint":null,"tool_fingerprint":"t","time":null}"#);
        assert_eq!(found, Some(("f".into(), String::new(), None, None)));
        let found = called(r#"{"name":"f","arguments":"","tool_fingerprint":"t","id":null}"#);
        assert_eq!(found, Some(("f".into(), String::new(), None, Some("t".into()))));
    }

    #[test]
    fn a_recorded_result_is_read_past_or_handed_back() {
        let line = br#"{"name":"f","arguments":"{}","result":{"content":[],"structuredContent":{"t":1}},"id":"c"}"#;
        let LogLine::Call(found) = read_line(line, ResultLines::Read) else {
            panic!("a line with a result is read when results are not checked");
        };
        assert_eq!((found.name.as_ref(), found.id.as_deref()), ("f", Some("c")));
        assert_eq!(read_line(line, ResultLines::HandedBack), LogLine::Other);
        let without = br#"{"name":"f","arguments":"{}"}"#;
        assert!(matches!(read_line(without, ResultLines::HandedBack), LogLine::Call(_)));
    }

    #[test]
    fn other_lines() {
        for line in [
            r#"{"name":"f"}"#,
            r#"{"name":"","arguments":""}"#,
            r#"{"name":"f","arguments":{"a":1.5}}"#,
            r#"{"name":"f","arguments":{"a":1,"a":2}}"#,
            r#"{"name":"f","arguments":{"a":-0}}"#,
            r#"{"name":"f","arguments":{"a":18446744073709551616}}"#,
            r#"{"name":"f","arguments":null}"#,
            r#"{"name":"f","arguments":"","id":3}"#,
            r#"{"name":"f","arguments":"","ts":1.5}"#,
            r#"{"name":"f","arguments":"","ts":"yesterday"}"#,
            r#"{"name":"f","arguments":"","name":"g"}"#,
            r#"{"name":"f","arguments":"","role":"assistant"}"#,
            r#"{"name":"f","arguments":"","messages":[]}"#,
            r#"{"name":"f","arguments":"\ud800"}"#,
            "{\"name\":\"f\",\t\"arguments\":\"\"}",
            r#"{"name":"f","arguments":""} x"#,
            r#"[{"name":"f","arguments":""}]"#,
            "\u{feff}{\"name\":\"f\",\"arguments\":\"\"}",
            r#"{"name":"f","arguments":"",}"#,
            r#"{"name":"f","arguments":"","x":NaN}"#,
        ] {
            assert_eq!(read_line(line.as_bytes(), ResultLines::Read), LogLine::Other, "{line}");
        }
        assert_eq!(
            read_line(b"{\"name\":\"f\",\"arguments\":\"\xff\"}", ResultLines::Read),
            LogLine::Other
        );
        assert_eq!(read_line(b" \r\n", ResultLines::Read), LogLine::Blank);
        assert_eq!(read_line(b"\x0c\n", ResultLines::Read), LogLine::Blank);
    }

    #[test]
    fn escapes_are_read() {
        let found = called(r#"{"na\u006de":"f\u00e9","arguments":"\"\ud83d\ude00\""}"#);
        assert_eq!(found, Some(("fé".into(), "\"\u{1f600}\"".into(), None, None)));
    }

    #[test]
    fn object_arguments_as_orjson_dumps_them() {
        let found = called(
            "{\"name\":\"f\", \"arguments\": {\"b\": [1, -5, 18446744073709551615, true, null, {}], \"a\": \"\\u0001\\b\\t\\n\\u000b\\f\\r\\\"\\\\\u{7f}\u{2028}\\u00e9/\"}}",
        );
        assert_eq!(
            found.map(|(_, arguments, _, _)| arguments),
            Some("{\"b\":[1,-5,18446744073709551615,true,null,{}],\"a\":\"\\u0001\\b\\t\\n\\u000b\\f\\r\\\"\\\\\u{7f}\u{2028}é/\"}".to_owned())
        );
    }

    #[test]
    fn times() {
        for good in [
            "2025-05-01",
            "2025-05-01T12:00",
            "2025-05-01 12:00:59",
            "2025-05-01T00:00:00.001+00:00",
            "2024-02-29T23:59:59.123456-05:30",
            "2025-05-01T12:00:00Z",
        ] {
            assert!(plain_iso_time(good.as_bytes()), "{good}");
        }
        for bad in [
            "",
            "2025-5-01",
            "2025-02-29",
            "2025-13-01",
            "0000-01-01",
            "2025-05-01T24:00",
            "2025-05-01T12:00:60",
            "2025-05-01T12:00:00.1",
            "2025-05-01T12:00:00+24:00",
            "2025-05-01T12:00:00+0000",
            "2025-05-01T",
            "2025-05-01T12:00 ",
        ] {
            assert!(!plain_iso_time(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn segments() {
        let validators = ToolValidators::compile([("f", br#"{"type":"object","required":["a"]}"#.as_slice())])
            .unwrap_or_else(|_| unreachable!());
        let chunk = b"{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}\n\n{\"name\":\"f\",\"arguments\":\"{}\",\"id\":\"x\"}\nnot json\n{\"name\":\"g\",\"arguments\":\"{}\"}";
        let mut counts = CallCounts::default();
        let segments = replay_lines(&validators, chunk, 1, &mut counts, ResultLines::Read);
        assert_eq!(segments.len(), 3);
        let Some(Segment::Calls {
            calls,
            new_keys,
            flagged,
        }) = segments.first()
        else {
            unreachable!()
        };
        assert_eq!((*calls, new_keys.clone()), (2, 0..1));
        assert_eq!(flagged.len(), 1);
        assert_eq!(
            flagged.first().map(|f| (f.line, f.id.clone())),
            Some((3, Some("x".into())))
        );
        assert_eq!(segments.get(1), Some(&Segment::Other { line: 4, span: 77..86 }));
        let Some(Segment::Calls { flagged, .. }) = segments.get(2) else {
            unreachable!()
        };
        assert_eq!(flagged.first().map(|f| f.line), Some(5));
        assert_eq!(counts.iter().collect::<Vec<_>>(), [("f", None, 2), ("g", None, 1)]);
        let again = replay_lines(&validators, chunk, 6, &mut counts, ResultLines::Read);
        let new_keys: Vec<_> = again
            .iter()
            .filter_map(|segment| match segment {
                Segment::Calls { new_keys, .. } => Some(new_keys.clone()),
                Segment::Other { .. } => None,
            })
            .collect();
        assert_eq!(new_keys, [2..2, 2..2]);
        assert_eq!(counts.iter().collect::<Vec<_>>(), [("f", None, 4), ("g", None, 2)]);
    }

    #[test]
    fn counts_tell_a_missing_fingerprint_from_an_empty_one() {
        let mut counts = CallCounts::default();
        for (name, fingerprint) in [
            ("f", None),
            ("f", Some("")),
            ("f", None),
            ("g", Some("x")),
            ("f", Some("")),
        ] {
            counts.add(name, fingerprint);
        }
        assert_eq!(
            counts.iter().collect::<Vec<_>>(),
            [("f", None, 2), ("f", Some(""), 2), ("g", Some("x"), 1)]
        );
        assert_eq!(counts.key(2), Some(("g", Some("x"))));
        assert_eq!(counts.key(3), None);
    }
}
