//! Gemini streamed function-call arguments (`partialArgs`) written as the JSON text of the call's arguments.
//!
//! The rules are those of `docs/semantics.md` ("gemini", *Streamed arguments*), the same as
//! `python/toolwire/reference/decode/_partial_args.py`. Each entry places one value at a singular JSON path (RFC 9535:
//! `$.a.b[0]`, `$['a b']`); the writer turns the entries, in the order they arrive, into JSON text appended to the
//! call, so that the call's `arguments_json`, its fragments and its snapshots are those of any other streamed call.
//! Values arrive in document order: a path that goes back into a member already written, skips an array position,
//! names a container of the other kind, or is not a singular path is `INVALID_ARGUMENT_PATH`, and nothing more is
//! written for the call but its closers.

use rustc_hash::FxHashSet;

use super::shared::Canonical;
use crate::json_view::{ChunkError, Object, Path, string, type_name};

/// One step of a path: an object member's key (decoded bytes) or an array position.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(Vec<u8>),
    Index(usize),
}

/// An open object or array of the text: how it is reached, and what it holds so far.
#[derive(Debug)]
struct Frame {
    segment: Option<Segment>,
    is_array: bool,
    count: usize,
    keys: FxHashSet<Vec<u8>>,
}

impl Frame {
    fn new(segment: Option<Segment>, is_array: bool) -> Self {
        Self {
            segment,
            is_array,
            count: 0,
            keys: FxHashSet::default(),
        }
    }
}

/// One `partialArgs` entry, read: its path as sent, its value's JSON text, whether a string continues, and why it
/// cannot be placed (no value, several) when it cannot.
#[derive(Debug)]
pub(super) struct Entry {
    json_path: Option<Vec<u8>>,
    /// A number's, boolean's or null's JSON text, or (`piece`) the escaped content of a piece of a string.
    value: Vec<u8>,
    piece: bool,
    will_continue: bool,
    problem: Option<String>,
}

/// An entry that cannot be placed: why, and its path as a JSON pointer when it has one.
#[derive(Debug)]
pub(super) struct PathError {
    /// Why.
    pub(super) message: String,
    /// The JSON pointer of the member concerned.
    pub(super) pointer: Option<String>,
}

fn error(message: String, pointer: Option<String>) -> PathError {
    PathError { message, pointer }
}

/// The JSON text of one streamed call's arguments, written as its entries arrive.
#[derive(Debug)]
pub(super) struct ArgumentsWriter {
    stack: Vec<Frame>,
    // The path of a string awaiting its next piece.
    string: Option<Vec<Segment>>,
    failed: bool,
    written: usize,
    // Past this many bytes of text (`Limits.max_argument_bytes`, which the accumulator reports) no more state is kept.
    max_bytes: usize,
}

/// The text a streamed call starts with.
pub(super) const OPENING: &[u8] = b"{";

impl ArgumentsWriter {
    pub(super) fn new(max_bytes: usize) -> Self {
        Self {
            stack: vec![Frame::new(None, false)],
            string: None,
            failed: false,
            written: OPENING.len(),
            max_bytes,
        }
    }

    /// Appends the text one entry adds to `out`; an error when it cannot be placed (nothing more is written after).
    pub(super) fn write(&mut self, entry: &Entry, out: &mut Vec<u8>) -> Result<(), PathError> {
        if self.failed || self.written > self.max_bytes {
            return Ok(());
        }
        let start = out.len();
        if let Err(problem) = self.place(entry, out) {
            out.truncate(start);
            self.failed = true;
            return Err(problem);
        }
        self.written += out.len() - start;
        Ok(())
    }

    /// The call is over: appends the text that closes every open string, array and object, and returns the error
    /// when a string was still awaiting its next piece (a continuation that never came).
    pub(super) fn close(&mut self, out: &mut Vec<u8>) -> Option<PathError> {
        let mut problem = None;
        if let Some(path) = &self.string {
            if !self.failed {
                problem = Some(error(
                    format!(
                        "the string at {} was to continue (willContinue) but the call ended",
                        shown(path)
                    ),
                    Some(pointer(path)),
                ));
            }
            out.push(b'"');
        }
        self.string = None;
        for frame in self.stack.drain(..).rev() {
            out.push(if frame.is_array { b']' } else { b'}' });
        }
        problem
    }

    fn place(&mut self, entry: &Entry, out: &mut Vec<u8>) -> Result<(), PathError> {
        let Some(json_path) = &entry.json_path else {
            return Err(error("a partialArgs entry has no jsonPath".to_owned(), None));
        };
        let quoted = String::from_utf8_lossy(json_path);
        let segments = parse_path(json_path)?;
        if let Some(problem) = &entry.problem {
            return Err(error(
                format!("the entry at {quoted:?} {problem}"),
                Some(pointer(&segments)),
            ));
        }
        if let Some(awaited) = &self.string {
            if *awaited == segments && entry.piece {
                self.piece(entry, out);
                return Ok(());
            }
            return Err(error(
                format!(
                    "the string at {} was to continue (willContinue) but {quoted:?} came",
                    shown(awaited)
                ),
                Some(pointer(awaited)),
            ));
        }
        let Some((_, containers)) = segments.split_last() else {
            return Err(error(
                format!("{quoted:?} names the arguments object itself, not a member"),
                Some(String::new()),
            ));
        };
        // How many of the open containers below the root the path goes through.
        let mut depth = 0;
        while let (Some(wanted), Some(frame)) = (containers.get(depth), self.stack.get(depth + 1))
            && frame.segment.as_ref() == Some(wanted)
        {
            depth += 1;
        }
        // The whole path is checked before anything is written: its first new segment must be a new member of the
        // innermost container it keeps, and every container it opens starts with its first member.
        let new = segments.get(depth..).unwrap_or_default();
        if let (Some(kept), Some(first)) = (self.stack.get(depth), new.first()) {
            check_member(kept, first, segments.get(..=depth).unwrap_or_default())?;
        }
        for (position, segment) in new.iter().enumerate().skip(1) {
            if matches!(segment, Segment::Index(index) if *index != 0) {
                return Err(error(
                    format!("{quoted:?} skips array positions: an array's first element is [0]"),
                    Some(pointer(segments.get(..=depth + position).unwrap_or_default())),
                ));
            }
        }
        for frame in self.stack.drain(depth + 1..).rev() {
            out.push(if frame.is_array { b']' } else { b'}' });
        }
        for (position, segment) in new.iter().enumerate() {
            self.member(segment, out);
            if let Some(next) = new.get(position + 1) {
                let is_array = matches!(next, Segment::Index(_));
                self.stack.push(Frame::new(Some(segment.clone()), is_array));
                out.push(if is_array { b'[' } else { b'{' });
            }
        }
        if !entry.piece {
            out.extend_from_slice(&entry.value);
            return Ok(());
        }
        out.push(b'"');
        self.string = Some(segments);
        self.piece(entry, out);
        Ok(())
    }

    /// The separator and key that start a new member of the innermost open container.
    fn member(&mut self, segment: &Segment, out: &mut Vec<u8>) {
        let Some(frame) = self.stack.last_mut() else { return };
        if frame.count > 0 {
            out.push(b',');
        }
        frame.count += 1;
        if let Segment::Key(key) = segment {
            frame.keys.insert(key.clone());
            out.push(b'"');
            escape_into(key, out);
            out.extend_from_slice(b"\":");
        }
    }

    fn piece(&mut self, entry: &Entry, out: &mut Vec<u8>) {
        out.extend_from_slice(&entry.value);
        if !entry.will_continue {
            self.string = None;
            out.push(b'"');
        }
    }
}

/// `segment` must name a new member of `frame`: a key it lacks, or its next position.
fn check_member(frame: &Frame, segment: &Segment, at: &[Segment]) -> Result<(), PathError> {
    let where_ = shown(at);
    let is_index = matches!(segment, Segment::Index(_));
    if is_index != frame.is_array {
        let holds = if frame.is_array { "an array" } else { "an object" };
        let treated = if is_index { "an array" } else { "an object" };
        return Err(error(format!("{where_} treats {holds} as {treated}"), None));
    }
    let written = match segment {
        Segment::Key(key) => frame.keys.contains(key),
        Segment::Index(index) => *index < frame.count,
    };
    if written {
        return Err(error(
            format!("{where_} was already written: a member's value arrives once, in order"),
            Some(pointer(at)),
        ));
    }
    if let Segment::Index(index) = segment
        && *index > frame.count
    {
        return Err(error(
            format!("{where_} skips array positions: the next element is [{}]", frame.count),
            Some(pointer(at)),
        ));
    }
    Ok(())
}

/// The segments of a singular JSON path: `$`, then `.name`, `['name']`/`["name"]` or `[index]` each. A dot name is
/// any run of bytes but `.`, `[`, `]`, quotes and backslashes; an index has no sign and no leading zero.
fn parse_path(text: &[u8]) -> Result<Vec<Segment>, PathError> {
    let shown_text = String::from_utf8_lossy(text);
    if text.first() != Some(&b'$') {
        return Err(error(
            format!("the jsonPath {shown_text:?} does not start with '$'"),
            None,
        ));
    }
    let mut segments = Vec::new();
    let mut position = 1;
    while let Some(&byte) = text.get(position) {
        match byte {
            b'.' => {
                let rest = text.get(position + 1..).unwrap_or_default();
                let length = rest.iter().take_while(|byte| !NAME_STOPS.contains(byte)).count();
                if length == 0 {
                    return Err(error(
                        format!("the jsonPath {shown_text:?} has an empty name at {position}"),
                        None,
                    ));
                }
                segments.push(Segment::Key(rest.get(..length).unwrap_or_default().to_vec()));
                position += 1 + length;
            }
            b'[' => {
                let (segment, next) = bracketed(text, position + 1).ok_or_else(|| {
                    error(
                        format!("the jsonPath {shown_text:?} has a selector at {position} that is no name or index"),
                        None,
                    )
                })?;
                segments.push(segment);
                position = next;
            }
            other => {
                return Err(error(
                    format!(
                        "the jsonPath {shown_text:?} has {:?} at {position}, not '.' or '['",
                        char::from(other)
                    ),
                    None,
                ));
            }
        }
    }
    Ok(segments)
}

const NAME_STOPS: &[u8] = b".[]'\"\\";

/// The selector after a `[` at `start`, and the position after its `]`; None when it is no name or index.
fn bracketed(text: &[u8], start: usize) -> Option<(Segment, usize)> {
    let quote = *text.get(start)?;
    if quote.is_ascii_digit() {
        let digits = text
            .get(start..)?
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        let end = start + digits;
        if text.get(end) != Some(&b']') || (digits > 1 && quote == b'0') {
            return None;
        }
        // An index of 64 bits or more is no position an array of arguments can have.
        let index = std::str::from_utf8(text.get(start..end)?).ok()?.parse::<u64>().ok()?;
        let index = usize::try_from(index).ok()?;
        return Some((Segment::Index(index), end + 1));
    }
    if quote != b'\'' && quote != b'"' {
        return None;
    }
    let mut name = Vec::new();
    let mut position = start + 1;
    loop {
        let byte = *text.get(position)?;
        if byte == quote {
            break;
        }
        if byte == b'\\' {
            let escape = *text.get(position + 1)?;
            let decoded: u8 = match escape {
                b'b' => 0x08,
                b'f' => 0x0C,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'/' | b'\\' | b'\'' | b'"' => escape,
                b'u' => {
                    let digits = std::str::from_utf8(text.get(position + 2..position + 6)?).ok()?;
                    if !digits.bytes().all(|byte| byte.is_ascii_hexdigit()) {
                        return None;
                    }
                    let unit = u32::from_str_radix(digits, 16).ok()?;
                    push_unit(unit, &mut name);
                    position += 6;
                    continue;
                }
                _ => return None,
            };
            name.push(decoded);
            position += 2;
            continue;
        }
        if byte < 0x20 {
            return None;
        }
        name.push(byte);
        position += 1;
    }
    if text.get(position + 1) != Some(&b']') {
        return None;
    }
    Some((Segment::Key(name), position + 2))
}

/// A `\u` code unit as the bytes Python holds for it: UTF-8, or a lone surrogate as `surrogatepass` writes it.
fn push_unit(unit: u32, out: &mut Vec<u8>) {
    if let Some(character) = char::from_u32(unit) {
        let mut buffer = [0; 4];
        out.extend_from_slice(character.encode_utf8(&mut buffer).as_bytes());
    } else {
        // A surrogate: 0xD800..=0xDFFF, three bytes ED A0..BF 80..BF.
        out.extend_from_slice(&[
            0xE0 | u8::try_from(unit >> 12).unwrap_or(0x0D),
            0x80 | u8::try_from((unit >> 6) & 0x3F).unwrap_or(0),
            0x80 | u8::try_from(unit & 0x3F).unwrap_or(0),
        ]);
    }
}

/// Escapes a string's bytes as Python's `json.dumps(..., ensure_ascii=False)` does (the canonical text).
pub(super) fn escape_into(text: &[u8], out: &mut Vec<u8>) {
    for &byte in text {
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            control if control < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX.get(usize::from(control >> 4)).copied().unwrap_or(b'0'));
                out.push(HEX.get(usize::from(control & 0x0F)).copied().unwrap_or(b'0'));
            }
            other => out.push(other),
        }
    }
}

/// A path's segments as a JSON pointer (`/recipe/steps/4`).
fn pointer(segments: &[Segment]) -> String {
    let mut out = String::new();
    for segment in segments {
        out.push('/');
        match segment {
            Segment::Key(key) => out.push_str(&String::from_utf8_lossy(key).replace('~', "~0").replace('/', "~1")),
            Segment::Index(index) => out.push_str(&index.to_string()),
        }
    }
    out
}

fn shown(segments: &[Segment]) -> String {
    let mut out = String::from("$");
    for segment in segments {
        match segment {
            Segment::Key(key) => {
                out.push('.');
                out.push_str(&String::from_utf8_lossy(key));
            }
            Segment::Index(index) => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// One `partialArgs` entry; a field of the wrong type is a malformed event.
pub(super) fn read_entry(entry: &Object<'_>, at: &Path<'_>, canonical: Canonical<'_>) -> Result<Entry, ChunkError> {
    let json_path = entry.string("jsonPath", at)?.map(std::borrow::Cow::into_owned);
    let will_continue = entry.boolean("willContinue", at)? == Some(true);
    let mut found: Vec<(Vec<u8>, bool)> = Vec::new();
    if let Some(raw) = entry.raw("stringValue") {
        let text = string(raw, &at.key("stringValue"))?;
        let mut escaped = Vec::with_capacity(text.len());
        escape_into(&text, &mut escaped);
        found.push((escaped, true));
    }
    if let Some(raw) = entry.raw("numberValue") {
        let at = at.key("numberValue");
        if !matches!(type_name(raw), "int" | "float") {
            return Err(at.fail(format!("expected a number or null, got {}", type_name(raw))));
        }
        let text = canonical(raw).map_err(|problem| at.fail(format!("not a JSON number: {problem}")))?;
        found.push((text, false));
    }
    if let Some(value) = entry.boolean("boolValue", at)? {
        found.push((if value { b"true".to_vec() } else { b"false".to_vec() }, false));
    }
    // `nullValue` is a protobuf NullValue, JSON `null` or `"NULL_VALUE"`: its presence is the value.
    if let Some(raw) = entry.raw_or_null("nullValue") {
        if raw != b"null" && raw != b"\"NULL_VALUE\"" {
            return Err(at
                .key("nullValue")
                .fail(format!("expected null or 'NULL_VALUE', got {}", type_name(raw))));
        }
        found.push((b"null".to_vec(), false));
    }
    let problem = match found.len() {
        0 => Some("has no value (stringValue, numberValue, boolValue or nullValue)".to_owned()),
        1 => None,
        several => Some(format!("has {several} values where one is expected")),
    };
    let (value, piece) = if found.len() == 1 {
        found.pop().unwrap_or_default()
    } else {
        (Vec::new(), false)
    };
    Ok(Entry {
        json_path,
        value,
        piece,
        will_continue,
        problem,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_support::compact;
    use crate::json_view::object;

    fn entry(json: &str) -> Entry {
        let parsed = object(json.as_bytes(), &Path::ROOT).expect("an object");
        read_entry(&parsed, &Path::ROOT, &mut compact).expect("an entry")
    }

    /// Writes the entries and closes; the text, and the pointer of each path error.
    fn written(entries: &[&str]) -> (String, Vec<Option<String>>) {
        let mut writer = ArgumentsWriter::new(1 << 20);
        let mut out = OPENING.to_vec();
        let mut errors = Vec::new();
        for json in entries {
            if let Err(problem) = writer.write(&entry(json), &mut out) {
                errors.push(problem.pointer);
            }
        }
        if let Some(problem) = writer.close(&mut out) {
            errors.push(problem.pointer);
        }
        (String::from_utf8(out).expect("UTF-8"), errors)
    }

    #[test]
    fn nested_paths_write_their_containers_in_document_order() {
        let (text, errors) = written(&[
            r#"{"jsonPath": "$.recipe.items[0].name", "stringValue": "Egg", "willContinue": true}"#,
            r#"{"jsonPath": "$.recipe.items[0].name", "stringValue": "s \"x\"\n"}"#,
            r#"{"jsonPath": "$.recipe.items[0].qty", "numberValue": 2}"#,
            r#"{"jsonPath": "$.recipe.items[1]['a.b']", "boolValue": false}"#,
            r#"{"jsonPath": "$.recipe.note", "nullValue": null}"#,
            r#"{"jsonPath": "$.tags[0]", "stringValue": "t"}"#,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            text,
            r#"{"recipe":{"items":[{"name":"Eggs \"x\"\n","qty":2},{"a.b":false}],"note":null},"tags":["t"]}"#
        );
    }

    #[test]
    fn a_path_that_goes_back_skips_or_changes_kind_is_refused() {
        let cases: [(&[&str], Option<&str>); 6] = [
            (
                &[
                    r#"{"jsonPath": "$.a", "numberValue": 1}"#,
                    r#"{"jsonPath": "$.a", "numberValue": 2}"#,
                ],
                Some("/a"),
            ),
            (
                &[
                    r#"{"jsonPath": "$.a[0]", "numberValue": 1}"#,
                    r#"{"jsonPath": "$.a[2]", "numberValue": 2}"#,
                ],
                Some("/a/2"),
            ),
            (&[r#"{"jsonPath": "$.a[1]", "numberValue": 1}"#], Some("/a/1")),
            (
                &[
                    r#"{"jsonPath": "$.a.b", "numberValue": 1}"#,
                    r#"{"jsonPath": "$.a[0]", "numberValue": 2}"#,
                ],
                None,
            ),
            (&[r#"{"jsonPath": "$..a", "numberValue": 1}"#], None),
            (
                &[
                    r#"{"jsonPath": "$.s", "stringValue": "x", "willContinue": true}"#,
                    r#"{"jsonPath": "$.t", "stringValue": "y"}"#,
                ],
                Some("/s"),
            ),
        ];
        for (entries, pointer) in cases {
            let (_, errors) = written(entries);
            assert_eq!(errors, [pointer.map(str::to_owned)], "{entries:?}");
        }
    }

    #[test]
    fn an_entry_needs_exactly_one_value() {
        let (_, none) = written(&[r#"{"jsonPath": "$.a"}"#]);
        let (_, two) = written(&[r#"{"jsonPath": "$.a", "stringValue": "x", "numberValue": 1}"#]);
        assert_eq!(none, [Some("/a".to_owned())]);
        assert_eq!(two, [Some("/a".to_owned())]);
    }

    #[test]
    fn escapes_are_those_of_the_canonical_text() {
        let mut out = Vec::new();
        escape_into(b"\x08\x0c\x01\x7f\"\\/", &mut out);
        assert_eq!(out, b"\\b\\f\\u0001\x7f\\\"\\\\/");
    }
}
