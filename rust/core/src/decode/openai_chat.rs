//! The `OpenAI` Chat Completions decoder: chunks read from their JSON bytes (a server-sent event's data) straight into
//! the accumulator, without building a value for the chunk.
//!
//! The rules are those of `docs/semantics.md` ("Reading a chunk"), the same as the reference's
//! (`python/toolwire/reference/decode/openai_chat.py`) and the binding's reading of Python objects
//! (`rust/py/input.rs`, which takes this file's [`At`] and [`finish_kind`]), with the same error paths and the Python
//! type names in messages, so that bytes and
//! the dicts decoded from them behave alike. Each container is scanned once with jiter's pull parser, recording where
//! the fields it needs start and end (the last of a repeated key wins, `null` is absent, as in a decoded dict);
//! everything else is skipped. Strings without escapes are borrowed from the bytes.

use std::borrow::Cow;
use std::fmt::{self, Write as _};

use jiter::{Jiter, JiterError, Peek};

use super::shared::{Canonical, Event, EventExtras, FormatDecoder, FromBytes, Read, Sink};
use crate::accumulator::{Accumulator, FinishKind, Fragment};
use crate::json_view::{ChunkError, MAPPING, Object, Path, type_name, unescape};
use crate::template::{Hole, Template, Templates};

/// What a Chat Completions `finish_reason` means for the calls of its choice.
pub fn finish_kind(reason: &[u8]) -> FinishKind {
    match reason {
        b"tool_calls" => FinishKind::Calls,
        b"stop" => FinishKind::Stop,
        b"length" | b"content_filter" => FinishKind::Cut,
        _ => FinishKind::Neutral,
    }
}

/// What a chunk hands over besides accumulator calls: raw JSON values the caller keeps as it wishes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChatExtras<'a> {
    /// A provider error payload, when the chunk was an error event.
    pub error: Option<&'a [u8]>,
    /// The chunk's non-null usage.
    pub usage: Option<&'a [u8]>,
}

/// Read one chunk's JSON bytes into `accumulator`.
pub fn read_chat_chunk<'a>(
    accumulator: &mut Accumulator,
    data: &'a [u8],
    canonical: Canonical<'_>,
) -> Result<ChatExtras<'a>, ChunkError> {
    read_indexed(accumulator, data, canonical).map(|(extras, _)| extras)
}

/// Reads one stream's chunks, remembering the last plain argument chunk of each call (one choice, one call with an
/// index, its argument text and nothing else that changes anything) as a template: the chunks after it, which differ
/// from it only in their argument text and in `OpenAI`'s per-chunk `obfuscation` padding, are matched against it
/// byte for byte and read without being indexed again (interleaved calls each have theirs). A chunk that does not
/// match, or whose text needs a closer look (a control character, invalid UTF-8 or a bad escape), is read the full
/// way, which reports what is wrong.
#[derive(Debug, Default)]
pub struct OpenAiChat {
    // Keyed by (choice, index).
    templates: Templates<(i64, i64)>,
}

/// A plain argument chunk, and the call its text goes to.
#[derive(Debug)]
struct ChatTemplate {
    shape: Template,
    choice: i64,
    index: i64,
}

impl FormatDecoder for OpenAiChat {
    /// A chunk with `choices`, or a `chat.completion...` object.
    fn identifies(event: &Object<'_>, _kind: Option<&[u8]>) -> bool {
        event.has("choices")
            || event
                .string("object", &Path::ROOT)
                .ok()
                .flatten()
                .is_some_and(|object| object.starts_with(b"chat.completion"))
    }

    #[inline]
    fn read_bytes<'a>(&mut self, sink: &mut Sink<'_, '_>, _name: Option<&[u8]>, data: &'a [u8]) -> FromBytes<'a> {
        FromBytes::Read(self.read_chunk(sink.accumulator, data, sink.canonical).map(ChatExtras::into_extras))
    }

    /// A chunk whose format was detected from its view: read from its bytes all the same.
    fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a> {
        self.read_chunk(sink.accumulator, event.data, sink.canonical).map(ChatExtras::into_extras)
    }
}

impl<'a> ChatExtras<'a> {
    fn into_extras(self) -> EventExtras<'a> {
        EventExtras {
            error: self.error.map(Cow::Borrowed),
            usage: self.usage.map(Cow::Borrowed),
            ..EventExtras::default()
        }
    }
}

impl OpenAiChat {
    /// Read one chunk's JSON bytes into `accumulator`.
    pub fn read_chunk<'a>(
        &mut self,
        accumulator: &mut Accumulator,
        data: &'a [u8],
        canonical: Canonical<'_>,
    ) -> Result<ChatExtras<'a>, ChunkError> {
        if let Some(((choice, index), text)) = self.templates.find(None, data) {
            let fragment = Fragment {
                index: Some(index),
                arguments: Some(&text),
                ..Fragment::default()
            };
            accumulator.touch(choice);
            accumulator.fragment(choice, &fragment);
            return Ok(ChatExtras::default());
        }
        let (extras, template) = read_indexed(accumulator, data, canonical)?;
        if let Some(template) = template {
            self.templates
                .keep((template.choice, template.index), None, template.shape);
        }
        Ok(extras)
    }
}

impl ChatTemplate {
    /// The template a read chunk makes, when it is a plain argument chunk.
    fn of(data: &[u8], chunk: &ChunkIndex<'_>) -> Option<Self> {
        if chunk.error.is_some() || chunk.usage.is_some() {
            return None;
        }
        let Some(Field::Value(choices)) = &chunk.choices else {
            return None;
        };
        let [Field::Value(choice)] = choices.as_slice() else {
            return None;
        };
        if choice.finish_reason.is_some() {
            return None;
        }
        let Some(Field::Value(delta)) = &choice.delta else {
            return None;
        };
        if delta.content.is_some() || delta.refusal.is_some() {
            return None;
        }
        let Some(Field::Value(calls)) = &delta.tool_calls else {
            return None;
        };
        let [Field::Value(call)] = calls.as_slice() else {
            return None;
        };
        let index = integer(call.index?, At::CHUNK).ok()?;
        let Some(Field::Value(function)) = &call.function else {
            return None;
        };
        let arguments = function.arguments.filter(|raw| raw.first() == Some(&b'"'))?;
        let choice_number = match choice.index {
            Some(raw) => integer(raw, At::CHUNK).ok()?,
            None => 0,
        };
        let mut holes = vec![(arguments, Hole::Text)];
        if let Some(padding) = chunk.obfuscation.filter(|raw| raw.first() == Some(&b'"')) {
            holes.push((padding, Hole::Padding));
        }
        Some(Self {
            shape: Template::new(data, &holes)?,
            choice: choice_number,
            index,
        })
    }
}

/// Read one chunk the full way; with the template it makes, when it is a plain argument chunk.
fn read_indexed<'a>(
    accumulator: &mut Accumulator,
    data: &'a [u8],
    canonical: Canonical<'_>,
) -> Result<(ChatExtras<'a>, Option<ChatTemplate>), ChunkError> {
    if let Err(error) = std::str::from_utf8(data) {
        return Err(fail(At::CHUNK, format!("the chunk is not UTF-8: {error}")));
    }
    let chunk = index_chunk(data).map_err(|error| not_json(At::CHUNK, &error))?;
    let chunk = match chunk {
        Field::Value(chunk) => chunk,
        Field::Wrong(raw) => return Err(wrong_type(raw, At::CHUNK, MAPPING)),
    };
    if chunk.error.is_some() {
        let extras = ChatExtras {
            error: chunk.error,
            usage: None,
        };
        return Ok((extras, None));
    }
    match &chunk.choices {
        None => {}
        Some(Field::Wrong(raw)) => return Err(wrong_type(raw, At::CHOICES, "a list")),
        Some(Field::Value(choices)) => {
            for (position, choice) in choices.iter().enumerate() {
                read_choice(accumulator, choice, position, canonical)?;
            }
        }
    }
    let template = ChatTemplate::of(data, &chunk);
    let extras = ChatExtras {
        error: None,
        usage: chunk.usage,
    };
    Ok((extras, template))
}

fn read_choice(
    accumulator: &mut Accumulator,
    choice: &Field<'_, ChoiceIndex<'_>>,
    position: usize,
    canonical: Canonical<'_>,
) -> Result<(), ChunkError> {
    let at = |field| At::choice(position, field);
    let choice = match choice {
        Field::Value(choice) => choice,
        Field::Wrong(raw) => return Err(wrong_type(raw, at(""), MAPPING)),
    };
    let number = match choice.index {
        Some(index) => integer(index, at(".index"))?,
        None => i64::try_from(position).unwrap_or(i64::MAX),
    };
    if !accumulator.choice_entry(number) {
        return Ok(()); // a choice past `Limits.max_choices`: counted, not read
    }
    match &choice.delta {
        None => {}
        Some(Field::Wrong(raw)) => return Err(wrong_type(raw, at(".delta"), MAPPING)),
        Some(Field::Value(delta)) => {
            match &delta.tool_calls {
                None => {}
                Some(Field::Wrong(raw)) => return Err(wrong_type(raw, at(".delta.tool_calls"), "a list")),
                Some(Field::Value(calls)) => {
                    for (call, tool_call) in calls.iter().enumerate() {
                        read_tool_call(accumulator, number, tool_call, At::call(position, call, ""), canonical)?;
                    }
                }
            }
            if let Some(content) = delta.content {
                accumulator.text(number, &string(content, at(".delta.content"))?);
            }
            if let Some(refusal) = delta.refusal {
                accumulator.refusal(number, &string(refusal, at(".delta.refusal"))?);
            }
        }
    }
    if let Some(reason) = choice.finish_reason {
        let reason = string(reason, at(".finish_reason"))?;
        accumulator.finish(number, &reason, finish_kind(&reason));
    }
    Ok(())
}

fn read_tool_call(
    accumulator: &mut Accumulator,
    choice: i64,
    tool_call: &Field<'_, CallIndex<'_>>,
    at: At,
    canonical: Canonical<'_>,
) -> Result<(), ChunkError> {
    let field = |name| at.field(name);
    let call = match tool_call {
        Field::Value(call) => call,
        Field::Wrong(raw) => return Err(wrong_type(raw, at, MAPPING)),
    };
    let index = call.index.map(|index| integer(index, field(".index"))).transpose()?;
    let id = call.id.map(|id| string(id, field(".id"))).transpose()?;
    let kind = call.kind.map(|kind| string(kind, field(".type"))).transpose()?;
    let mut name = None;
    let mut arguments = None;
    let mut arguments_was_value = false;
    match &call.function {
        None => {}
        Some(Field::Wrong(raw)) => return Err(wrong_type(raw, field(".function"), MAPPING)),
        Some(Field::Value(function)) => {
            if let Some(found) = function.name {
                name = Some(string(found, field(".function.name"))?);
            }
            if let Some(raw) = function.arguments {
                arguments = Some(if raw.first() == Some(&b'"') {
                    string(raw, field(".function.arguments"))?
                } else {
                    arguments_was_value = true;
                    Cow::Owned(canonical(raw).map_err(|problem| {
                        fail(
                            field(".function.arguments"),
                            format!("arguments sent as a value that is not JSON: {problem}"),
                        )
                    })?)
                });
            }
        }
    }
    let fragment = Fragment {
        index,
        id: id.as_deref(),
        name: name.as_deref(),
        kind: kind.as_deref(),
        arguments: arguments.as_deref(),
        arguments_was_value,
        ..Fragment::default()
    };
    accumulator.fragment(choice, &fragment);
    Ok(())
}

// ------------------------------------------------------------------------------------------------ the index
//
// One pass over a chunk records, for the containers the reading needs, where each wanted member's value lies; the
// reading then works on those spans, so no level is scanned twice. As in a decoded dict, the last of a repeated key
// wins and `null` is absent; a value of the wrong kind is kept raw, for the error the reading raises in its order.

/// A member's value: of the kind the reading wants, or raw (for the type error).
enum Field<'a, T> {
    Value(T),
    Wrong(&'a [u8]),
}

#[derive(Default)]
struct ChunkIndex<'a> {
    error: Option<&'a [u8]>,
    choices: Option<Field<'a, Vec<Field<'a, ChoiceIndex<'a>>>>>,
    usage: Option<&'a [u8]>,
    // OpenAI's per-chunk padding: ignored, but it makes every chunk's bytes differ (see `OpenAiChat`).
    obfuscation: Option<&'a [u8]>,
}

#[derive(Default)]
struct ChoiceIndex<'a> {
    index: Option<&'a [u8]>,
    delta: Option<Field<'a, DeltaIndex<'a>>>,
    finish_reason: Option<&'a [u8]>,
}

#[derive(Default)]
struct DeltaIndex<'a> {
    tool_calls: Option<Field<'a, Vec<Field<'a, CallIndex<'a>>>>>,
    content: Option<&'a [u8]>,
    refusal: Option<&'a [u8]>,
}

#[derive(Default)]
struct CallIndex<'a> {
    index: Option<&'a [u8]>,
    id: Option<&'a [u8]>,
    kind: Option<&'a [u8]>,
    function: Option<Field<'a, FunctionIndex<'a>>>,
}

#[derive(Default)]
struct FunctionIndex<'a> {
    name: Option<&'a [u8]>,
    arguments: Option<&'a [u8]>,
}

type Indexed<T> = Result<T, JiterError>;

fn index_chunk(data: &[u8]) -> Indexed<Field<'_, ChunkIndex<'_>>> {
    // Walked on a copy where lone surrogate escapes are made acceptable to jiter; spans are cut from `data`.
    let walked = crate::json_view::structural(data);
    let mut jiter = Jiter::new(&walked);
    let peek = jiter.peek()?;
    let chunk = object(
        &mut jiter,
        data,
        peek,
        &["error", "choices", "usage", "obfuscation"],
        |jiter, chunk: &mut ChunkIndex<'_>, slot, peek| {
            match slot {
                Some(0) => chunk.error = leaf(jiter, data, peek)?,
                Some(1) => {
                    chunk.choices = container(jiter, data, peek, Peek::Array, |jiter| {
                        items(jiter, |jiter, peek| index_choice(jiter, data, peek))
                    })?;
                }
                Some(2) => chunk.usage = leaf(jiter, data, peek)?,
                Some(3) => chunk.obfuscation = leaf(jiter, data, peek)?,
                _ => jiter.known_skip(peek)?,
            }
            Ok(())
        },
    )?;
    jiter.finish()?;
    Ok(chunk)
}

fn index_choice<'a>(jiter: &mut Jiter<'_>, data: &'a [u8], peek: Peek) -> Indexed<Field<'a, ChoiceIndex<'a>>> {
    object(
        jiter,
        data,
        peek,
        &["index", "delta", "finish_reason"],
        |jiter, choice: &mut ChoiceIndex<'a>, slot, peek| {
            match slot {
                Some(0) => choice.index = leaf(jiter, data, peek)?,
                Some(1) => choice.delta = nullable(jiter, data, peek, index_delta)?,
                Some(2) => choice.finish_reason = leaf(jiter, data, peek)?,
                _ => jiter.known_skip(peek)?,
            }
            Ok(())
        },
    )
}

fn index_delta<'a>(jiter: &mut Jiter<'_>, data: &'a [u8], peek: Peek) -> Indexed<Field<'a, DeltaIndex<'a>>> {
    object(
        jiter,
        data,
        peek,
        &["tool_calls", "content", "refusal"],
        |jiter, delta: &mut DeltaIndex<'a>, slot, peek| {
            match slot {
                Some(0) => {
                    delta.tool_calls = container(jiter, data, peek, Peek::Array, |jiter| {
                        items(jiter, |jiter, peek| index_call(jiter, data, peek))
                    })?;
                }
                Some(1) => delta.content = leaf(jiter, data, peek)?,
                Some(2) => delta.refusal = leaf(jiter, data, peek)?,
                _ => jiter.known_skip(peek)?,
            }
            Ok(())
        },
    )
}

fn index_call<'a>(jiter: &mut Jiter<'_>, data: &'a [u8], peek: Peek) -> Indexed<Field<'a, CallIndex<'a>>> {
    object(
        jiter,
        data,
        peek,
        &["index", "id", "type", "function"],
        |jiter, call: &mut CallIndex<'a>, slot, peek| {
            match slot {
                Some(0) => call.index = leaf(jiter, data, peek)?,
                Some(1) => call.id = leaf(jiter, data, peek)?,
                Some(2) => call.kind = leaf(jiter, data, peek)?,
                Some(3) => call.function = nullable(jiter, data, peek, index_function)?,
                _ => jiter.known_skip(peek)?,
            }
            Ok(())
        },
    )
}

fn index_function<'a>(jiter: &mut Jiter<'_>, data: &'a [u8], peek: Peek) -> Indexed<Field<'a, FunctionIndex<'a>>> {
    object(
        jiter,
        data,
        peek,
        &["name", "arguments"],
        |jiter, function: &mut FunctionIndex<'a>, slot, peek| {
            match slot {
                Some(0) => function.name = leaf(jiter, data, peek)?,
                Some(1) => function.arguments = leaf(jiter, data, peek)?,
                _ => jiter.known_skip(peek)?,
            }
            Ok(())
        },
    )
}

/// The raw bytes of the value at `peek` (consumed); None for `null`.
fn leaf<'a>(jiter: &mut Jiter<'_>, data: &'a [u8], peek: Peek) -> Indexed<Option<&'a [u8]>> {
    let start = jiter.current_index();
    jiter.known_skip(peek)?;
    Ok((peek != Peek::Null).then(|| data.get(start..jiter.current_index()).unwrap_or_default()))
}

/// `index` applied to a value that may be `null` (absent).
fn nullable<'a, T>(
    jiter: &mut Jiter<'_>,
    data: &'a [u8],
    peek: Peek,
    index: fn(&mut Jiter<'_>, &'a [u8], Peek) -> Indexed<Field<'a, T>>,
) -> Indexed<Option<Field<'a, T>>> {
    if peek == Peek::Null {
        jiter.known_skip(peek)?;
        return Ok(None);
    }
    index(jiter, data, peek).map(Some)
}

/// The value at `peek` read by `read` when it is of the `wanted` kind, raw otherwise; None for `null`.
fn container<'a, T>(
    jiter: &mut Jiter<'_>,
    data: &'a [u8],
    peek: Peek,
    wanted: Peek,
    read: impl FnOnce(&mut Jiter<'_>) -> Indexed<T>,
) -> Indexed<Option<Field<'a, T>>> {
    if peek == Peek::Null {
        jiter.known_skip(peek)?;
        return Ok(None);
    }
    if peek != wanted {
        return leaf(jiter, data, peek).map(|raw| raw.map(Field::Wrong));
    }
    read(jiter).map(|value| Some(Field::Value(value)))
}

/// The object at `peek`, each member handed to `member` with the slot of its key among `keys` (None: skip it).
fn object<'a, T: Default>(
    jiter: &mut Jiter<'_>,
    data: &'a [u8],
    peek: Peek,
    keys: &[&str],
    mut member: impl FnMut(&mut Jiter<'_>, &mut T, Option<usize>, Peek) -> Indexed<()>,
) -> Indexed<Field<'a, T>> {
    if peek != Peek::Object {
        let start = jiter.current_index();
        jiter.known_skip(peek)?;
        return Ok(Field::Wrong(data.get(start..jiter.current_index()).unwrap_or_default()));
    }
    let mut value = T::default();
    let mut key = jiter.next_object_bytes()?.map(|key| slot_of(keys, key));
    while let Some(slot) = key {
        let peek = jiter.peek()?;
        member(jiter, &mut value, slot, peek)?;
        key = jiter.next_key_bytes()?.map(|key| slot_of(keys, key));
    }
    Ok(Field::Value(value))
}

/// The items of the array the jiter is at, each read by `item`.
fn items<T>(jiter: &mut Jiter<'_>, mut item: impl FnMut(&mut Jiter<'_>, Peek) -> Indexed<T>) -> Indexed<Vec<T>> {
    let mut found = Vec::new();
    let mut next = jiter.known_array()?;
    while let Some(peek) = next {
        found.push(item(jiter, peek)?);
        next = jiter.array_step()?;
    }
    Ok(found)
}

/// Where a field is in its chunk (`choices[0].delta.tool_calls[1].index`), formatted only for an error message.
/// Shared with the binding's reading of Python chunks, so both paths name a field alike.
#[derive(Clone, Copy, Debug)]
pub struct At {
    choice: Option<usize>,
    call: Option<usize>,
    field: &'static str,
}

impl At {
    /// The chunk itself.
    pub const CHUNK: Self = Self {
        choice: None,
        call: None,
        field: "",
    };
    /// The chunk's `choices`.
    pub const CHOICES: Self = Self {
        choice: None,
        call: None,
        field: "choices",
    };

    /// `field` (such as `".delta"`, or `""` for the choice itself) of the choice at `position` in `choices`.
    pub fn choice(position: usize, field: &'static str) -> Self {
        Self {
            choice: Some(position),
            call: None,
            field,
        }
    }

    /// `field` of the tool call at `call` in the `tool_calls` of the choice at `position`.
    pub fn call(position: usize, call: usize, field: &'static str) -> Self {
        Self {
            choice: Some(position),
            call: Some(call),
            field,
        }
    }

    /// The same container, another field of it.
    #[must_use]
    pub fn field(self, field: &'static str) -> Self {
        Self { field, ..self }
    }
}

impl fmt::Display for At {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(choice) = self.choice {
            write!(out, "choices[{choice}]")?;
            if let Some(call) = self.call {
                write!(out, ".delta.tool_calls[{call}]")?;
            }
        }
        out.write_str(self.field)
    }
}

#[cold]
fn fail(at: At, problem: String) -> ChunkError {
    ChunkError {
        path: at.to_string(),
        problem,
    }
}

#[cold]
fn not_json(at: At, error: &JiterError) -> ChunkError {
    fail(at, format!("not JSON: {error}"))
}

#[cold]
fn wrong_type(raw: &[u8], at: At, expected: &str) -> ChunkError {
    fail(at, format!("expected {expected}, got {}", type_name(raw)))
}

/// Which of `keys` a raw key (as written, escapes included) names: a decoded chunk would decode its escapes.
fn slot_of(keys: &[&str], raw: &[u8]) -> Option<usize> {
    if raw.contains(&b'\\') {
        let decoded = unescape(raw).ok()?;
        return keys.iter().position(|wanted| wanted.as_bytes() == decoded);
    }
    keys.iter().position(|wanted| wanted.as_bytes() == raw)
}

/// A string value's UTF-8, borrowed when it holds no escape.
fn string(raw: &[u8], at: At) -> Result<Cow<'_, [u8]>, ChunkError> {
    if raw.first() != Some(&b'"') {
        return Err(wrong_type(raw, at, "a string or null"));
    }
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
    if !inner.contains(&b'\\') {
        return Ok(Cow::Borrowed(inner));
    }
    unescape(inner).map(Cow::Owned).map_err(|problem| fail(at, problem))
}

fn integer(raw: &[u8], at: At) -> Result<i64, ChunkError> {
    let is_number = raw.first().is_some_and(|byte| *byte == b'-' || byte.is_ascii_digit());
    if !is_number || type_name(raw) != "int" {
        return Err(wrong_type(raw, at, "an integer or null"));
    }
    let digits = std::str::from_utf8(raw).unwrap_or_default();
    digits.parse::<i64>().map_err(|_| {
        let mut problem = String::new();
        let _ = write!(problem, "integer {digits} is out of the 64-bit range");
        fail(at, problem)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accumulator::HandedOver;
    use crate::decode::test_support::accumulator;

    fn no_values(_: &[u8]) -> Result<Vec<u8>, String> {
        Err("unexpected".to_owned())
    }

    fn read(stream: &mut Accumulator, chunk: &str) -> Result<(), ChunkError> {
        read_chat_chunk(stream, chunk.as_bytes(), &mut no_values).map(|_| ())
    }

    fn calls(stream: &mut Accumulator) -> Vec<HandedOver> {
        stream.end();
        stream.take_ready()
    }

    #[test]
    fn a_call_is_read_from_its_bytes() {
        let mut stream = accumulator();
        let head = r#"{"id": "x", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}]}}]}"#;
        read(&mut stream, head).unwrap();
        read(
            &mut stream,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\": \"\\u00e9\"}"}}]}}]}"#,
        )
        .unwrap();
        read(
            &mut stream,
            r#"{"choices":[{"index":0,"delta":{"content":null},"finish_reason":"tool_calls"}],"usage":null}"#,
        )
        .unwrap();
        let ready = calls(&mut stream);
        assert_eq!(ready.len(), 1);
        assert_eq!(ready[0].id, b"call_1");
        assert_eq!(ready[0].arguments_json, "{\"a\": \"\\u00e9\"}".as_bytes());
        assert!(ready[0].is_valid());
    }

    #[test]
    fn a_refusal_is_read_apart_from_the_content_per_choice() {
        let mut stream = accumulator();
        let chunk = |index: u8, delta: &str| format!(r#"{{"choices":[{{"index":{index},"delta":{delta}}}]}}"#);
        read(&mut stream, &chunk(0, r#"{"role":"assistant","content":"","refusal":null}"#)).unwrap();
        read(&mut stream, &chunk(1, r#"{"role":"assistant","content":null,"refusal":""}"#)).unwrap();
        read(&mut stream, &chunk(0, r#"{"content":"{}"}"#)).unwrap();
        read(&mut stream, &chunk(1, r#"{"refusal":"I can\u2019t"}"#)).unwrap();
        read(&mut stream, &chunk(1, r#"{"refusal":"."}"#)).unwrap();
        let choices = stream.choices();
        let refusals: Vec<&[u8]> = choices.iter().map(|choice| &choice.refusal[..]).collect();
        assert_eq!(refusals, [&b""[..], "I can\u{2019}t.".as_bytes()]);
        assert_eq!((&choices[0].text[..], &choices[1].text[..]), (&b"{}"[..], &b""[..]));
        let wrong = read(&mut stream, &chunk(0, r#"{"refusal":["no"]}"#)).unwrap_err();
        assert_eq!(
            (wrong.path.as_str(), wrong.problem.as_str()),
            ("choices[0].delta.refusal", "expected a string or null, got list")
        );
    }

    #[test]
    fn errors_and_usage_come_back_raw() {
        let mut stream = accumulator();
        let extras = read_chat_chunk(
            &mut stream,
            br#"{"error": {"message": "m"}, "choices": 3}"#,
            &mut no_values,
        )
        .unwrap();
        assert_eq!(extras.error, Some(&br#"{"message": "m"}"#[..]));
        let extras = read_chat_chunk(&mut stream, br#"{"choices": [], "usage": {"t": 1}}"#, &mut no_values).unwrap();
        assert_eq!(extras.usage, Some(&br#"{"t": 1}"#[..]));
    }

    #[test]
    fn wrong_shapes_name_the_field_and_the_python_type() {
        let mut stream = accumulator();
        let cases = [
            ("[]", "", "expected a mapping or an object with attributes, got list"),
            (r#"{"choices": {}}"#, "choices", "expected a list, got dict"),
            (
                r#"{"choices": [1]}"#,
                "choices[0]",
                "expected a mapping or an object with attributes, got int",
            ),
            (
                r#"{"choices": [{"index": 1.5}]}"#,
                "choices[0].index",
                "expected an integer or null, got float",
            ),
            (
                r#"{"choices": [{"index": true}]}"#,
                "choices[0].index",
                "expected an integer or null, got bool",
            ),
            (
                r#"{"choices": [{"index": 99999999999999999999}]}"#,
                "choices[0].index",
                "integer 99999999999999999999 is out of the 64-bit range",
            ),
            (
                r#"{"choices": [{"delta": {"tool_calls": [{"id": 7}]}}]}"#,
                "choices[0].delta.tool_calls[0].id",
                "expected a string or null, got int",
            ),
            (
                r#"{"choices": [{"delta": {"content": ["a"]}}]}"#,
                "choices[0].delta.content",
                "expected a string or null, got list",
            ),
        ];
        for (chunk, path, problem) in cases {
            let error = read(&mut stream, chunk).unwrap_err();
            assert_eq!(
                (error.path.as_str(), error.problem.as_str()),
                (path, problem),
                "{chunk}"
            );
        }
        let error = read(&mut stream, r#"{"choices": []} x"#).unwrap_err();
        assert!(error.problem.starts_with("not JSON"), "{error:?}");
    }

    #[test]
    fn escapes_are_decoded_and_lone_surrogates_kept_as_surrogatepass_bytes() {
        let at = At::CHUNK;
        let decoded = |raw: &str| string(raw.as_bytes(), at).unwrap().into_owned();
        assert_eq!(decoded(r#""a\"\\\/\b\f\n\r\t""#), b"a\"\\/\x08\x0c\n\r\t");
        assert_eq!(decoded(r#""\u00e9\u20ac\ud83d\ude00""#), "é€😀".as_bytes());
        assert_eq!(decoded(r#""x\ud800y""#), b"x\xed\xa0\x80y");
        assert_eq!(decoded(r#""\udc00\ud800""#), b"\xed\xb0\x80\xed\xa0\x80");
        assert!(string(br#""\q""#, at).is_err());
    }

    #[test]
    fn keys_are_matched_as_decoded() {
        let mut stream = accumulator();
        read(
            &mut stream,
            r#"{"ch\u006fices": [{"delta": {"tool_calls": [{"index": 0, "i\u0064": "a", "function": {"name": "f", "arguments": "{}"}}]}}]}"#,
        )
        .unwrap();
        assert_eq!(calls(&mut stream)[0].id, b"a");
    }

    #[test]
    fn the_last_of_a_repeated_key_wins_and_null_is_absent() {
        let mut stream = accumulator();
        read(
            &mut stream,
            r#"{"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "a", "id": "b",
                "function": {"name": "f", "arguments": "{}", "name": null}}]}}]}"#,
        )
        .unwrap();
        let ready = calls(&mut stream);
        assert_eq!(ready[0].id, b"b");
        assert_eq!(ready[0].name, None);
    }

    #[test]
    fn arguments_sent_as_a_value_go_through_the_callers_canonical_text() {
        let mut stream = accumulator();
        let mut canonical = |raw: &[u8]| -> Result<Vec<u8>, String> { Ok([b"<", raw, b">"].concat()) };
        let chunk = br#"{"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": {"x": 1}}}]}}]}"#;
        read_chat_chunk(&mut stream, chunk, &mut canonical).unwrap();
        let ready = calls(&mut stream);
        assert_eq!(ready[0].arguments_json, b"<{\"x\": 1}>");
    }

    /// A stream of chunks read by an `OpenAiChat` and, chunk by chunk, by the stateless full reading: the same calls
    /// and findings, whatever the template path did.
    fn both_ways(chunks: &[String]) -> (Vec<HandedOver>, Vec<HandedOver>) {
        let mut templated = accumulator();
        let mut reader = OpenAiChat::default();
        let mut plain = accumulator();
        for chunk in chunks {
            let via_template = reader
                .read_chunk(&mut templated, chunk.as_bytes(), &mut no_values)
                .map(|_| ());
            let full = read(&mut plain, chunk);
            assert_eq!(via_template, full, "{chunk}");
        }
        (calls(&mut templated), calls(&mut plain))
    }

    fn argument_chunk(index: usize, text: &str, padding: &str) -> String {
        format!(
            r#"{{"id":"c","choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{index},"function":{{"arguments":{text}}}}}]}},"finish_reason":null}}],"obfuscation":"{padding}"}}"#
        )
    }

    #[test]
    fn chunks_that_differ_only_in_their_arguments_read_alike_through_the_template() {
        let open = |index: usize, id: &str| {
            format!(
                r#"{{"id":"c","choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{index},"id":"{id}","type":"function","function":{{"name":"f","arguments":""}}}}]}},"finish_reason":null}}]}}"#
            )
        };
        let mut chunks = vec![open(0, "a"), open(1, "b")];
        let pieces = [r#""{\"x\": \"""#, r#""\u00e9 ""#, r#""1\", \"y\":""#, r#"" [\"a\"]}""#];
        for (number, piece) in pieces.iter().enumerate() {
            chunks.push(argument_chunk(0, piece, &"p".repeat(number)));
            chunks.push(argument_chunk(1, piece, "q"));
        }
        chunks.push(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#.to_owned());
        let (templated, plain) = both_ways(&chunks);
        assert_eq!(templated, plain);
        assert_eq!(templated.len(), 2);
        for call in &templated {
            assert_eq!(call.arguments_json, "{\"x\": \"é 1\", \"y\": [\"a\"]}".as_bytes());
        }
    }

    #[test]
    fn a_chunk_the_template_cannot_vouch_for_is_read_the_full_way() {
        let good = argument_chunk(0, r#""{\"a\": ""#, "p");
        let open = r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]}}]}"#;
        let chunks = [
            open.to_owned(),
            good.clone(),
            // A raw control character, a bad escape, an unescaped quote, a finish in the tail: none matches.
            argument_chunk(0, "\"a\u{1}b\"", "p"),
            argument_chunk(0, r#""\q""#, "p"),
            argument_chunk(0, r#""a","arguments":"b""#, "p"),
            good.replace(r#""finish_reason":null"#, r#""finish_reason":"length""#),
            // The padding is vouched for too: its escapes must be JSON's, as the full reading demands (the chunk above
            // made itself the template: `good` makes it again).
            good.clone(),
            argument_chunk(0, r#""b""#, r"\u12zz"),
            argument_chunk(0, r#""b""#, r"\q"),
            argument_chunk(0, r#""b""#, r"\u00"),
            argument_chunk(0, r#""b""#, r"\ud800\u00e9\n"),
        ];
        let mut templated = accumulator();
        let mut reader = OpenAiChat::default();
        let mut plain = accumulator();
        for chunk in &chunks {
            let via_template = reader
                .read_chunk(&mut templated, chunk.as_bytes(), &mut no_values)
                .map(|_| ());
            let full = read(&mut plain, chunk);
            assert_eq!(via_template, full, "{chunk}");
        }
        assert_eq!(calls(&mut templated), calls(&mut plain));
    }
}
