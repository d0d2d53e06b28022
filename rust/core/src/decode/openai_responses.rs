//! `OpenAI` Responses API events.
//!
//! A call's key is its `output_index` (never its item id, which some servers rotate: Q27). The `.done` text is
//! authoritative, and the end of the call. A `custom_tool_call` item is a call whose input is free text (a custom
//! tool's), unless the response the stream echoes lists its tools without a custom tool of that name: then the
//! provider ran it (xAI's `x_search`) and it is kept in `output`. An output index holds something only for a call kept
//! or (within `Limits.max_output_bytes`) an item the provider ran.

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};

use super::output::{BOOKKEEPING, OutputItem};
use super::shared::{Canonical, Event, EventExtras, FormatDecoder, FromBytes, Read, Sink, event_type};
use crate::accumulator::{Accumulator, FinishKind, Fragment, REFUSED};
use crate::json_view::{ChunkError, Object, Path};
use crate::template::{Hole, Template, Templates};

const CHOICE: i64 = 0;

#[derive(Debug, Default)]
pub(super) struct OpenAiResponses {
    // Each call's last `.delta` event, keyed by output index: the next ones are matched, not parsed (their
    // `sequence_number` and `obfuscation` may differ).
    templates: Templates<i64>,
    /// The output indexes of calls kept, and whether the call has its id.
    calls: FxHashMap<i64, bool>,
    items: Vec<OutputItem>,
    // The names of the custom tools the echoed response lists (None until a response with `tools` came).
    custom_tools: Option<FxHashSet<Vec<u8>>>,
    // The output indexes of custom tool calls the provider ran: their input events are not a call's. Each counts towards
    // `Limits.max_output_bytes` (its bookkeeping), as the item it will be.
    server_items: FxHashSet<i64>,
}

impl FormatDecoder for OpenAiResponses {
    /// An event whose `type` (or server-sent event name) begins with `response.`.
    fn identifies(_event: &Object<'_>, kind: Option<&[u8]>) -> bool {
        kind.is_some_and(|kind| kind.starts_with(b"response."))
    }

    /// A `.delta` of a call that differs from the call's previous one only in its text, counter and padding: applied
    /// as the full reading would apply it; any other event is viewed.
    #[inline]
    fn read_bytes<'a>(&mut self, sink: &mut Sink<'_, '_>, name: Option<&[u8]>, data: &'a [u8]) -> FromBytes<'a> {
        let Some((index, text)) = self.templates.find(name, data) else {
            return FromBytes::View;
        };
        if !self.arguments_delta(sink.accumulator, index, &text, false) {
            self.templates.forget(index); // its call is no longer the one at the index
        }
        FromBytes::Known
    }

    fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a> {
        sink.accumulator.expect_final_texts();
        let root = Path::ROOT;
        let kind = event_type(event)?;
        let kind = kind.as_deref().unwrap_or_default();
        match kind {
            b"response.created" | b"response.in_progress" => {
                sink.accumulator.touch(CHOICE);
                self.read_tools(&event.object)?;
            }
            b"response.output_item.added" => self.item(sink, &event.object, false)?,
            b"response.output_item.done" => self.item(sink, &event.object, true)?,
            b"response.function_call_arguments.delta" => {
                let index = output_index(&event.object)?;
                if let Some(delta) = event.object.string("delta", &root)?
                    && self.arguments_delta(sink.accumulator, index, &delta, false)
                    && let Some(template) = delta_template(&event.object, event.data)
                {
                    self.templates.keep(index, event.name, template);
                }
            }
            b"response.function_call_arguments.done" => {
                let index = output_index(&event.object)?;
                if let Some(arguments) = Arguments::read(&event.object, &root, sink.canonical)? {
                    self.done(sink.accumulator, index, &arguments, false);
                }
            }
            b"response.custom_tool_call_input.delta" => {
                let index = output_index(&event.object)?;
                if let Some(delta) = event.object.string("delta", &root)?
                    && self.custom_input(sink.accumulator, index, &delta)
                {
                    self.arguments_delta(sink.accumulator, index, &delta, true);
                }
            }
            b"response.custom_tool_call_input.done" => {
                let index = output_index(&event.object)?;
                if let Some(input) = event.object.string("input", &root)?
                    && self.custom_input(sink.accumulator, index, &input)
                {
                    self.done(sink.accumulator, index, &Arguments::Text(input), true);
                }
            }
            b"response.output_text.delta" => {
                if let Some(delta) = event.object.string("delta", &root)? {
                    sink.accumulator.text(CHOICE, &delta);
                }
            }
            b"response.refusal.delta" => {
                if let Some(delta) = event.object.string("delta", &root)? {
                    sink.accumulator.refusal(CHOICE, &delta);
                }
            }
            b"response.completed" | b"response.incomplete" | b"response.failed" | b"response.cancelled" => {
                return finished(sink.accumulator, &event.object, kind);
            }
            b"error" => {
                return Ok(EventExtras::error(event.data));
            }
            _ => {}
        }
        Ok(EventExtras::default())
    }

    fn output(&self) -> Vec<OutputItem> {
        self.items.clone()
    }
}

impl OpenAiResponses {
    /// A `.delta` of a function call's arguments, or (`custom`) of a custom tool call's input; whether a call kept
    /// took it (not one past `Limits.max_calls`).
    fn arguments_delta(&mut self, accumulator: &mut Accumulator, index: i64, text: &[u8], custom: bool) -> bool {
        let fragment = Fragment {
            index: Some(index),
            kind: Some(call_kind(custom)),
            arguments: Some(text),
            free_text: custom,
            ..Fragment::default()
        };
        if accumulator.fragment(CHOICE, &fragment) == REFUSED {
            return false;
        }
        self.calls.entry(index).or_insert(false);
        true
    }

    /// Whether an input event of a custom tool call at `index` is read: not when the provider ran that call, nor, once
    /// the output went past its limit, when nothing is kept at the index (it may be such a call, left out: its input
    /// is counted with it).
    fn custom_input(&self, accumulator: &mut Accumulator, index: i64, input: &[u8]) -> bool {
        if self.server_items.contains(&index) {
            return false;
        }
        if accumulator.output_is_over() && !self.calls.contains_key(&index) {
            accumulator.admit_output(input.len());
            return false;
        }
        true
    }

    /// A `.done` event's final text: it opens the call when no item or delta came (`custom`: a custom tool's input).
    fn done(&mut self, accumulator: &mut Accumulator, index: i64, arguments: &Arguments<'_>, custom: bool) {
        if let std::collections::hash_map::Entry::Vacant(entry) = self.calls.entry(index) {
            let fragment = Fragment {
                index: Some(index),
                kind: Some(call_kind(custom)),
                free_text: custom,
                ..Fragment::default()
            };
            if accumulator.fragment(CHOICE, &fragment) != REFUSED {
                entry.insert(false);
            }
        }
        arguments.done(accumulator, index);
        accumulator.end_call(CHOICE, index);
    }

    /// The custom tools an echoed response object lists (`response.created`, `response.in_progress`).
    fn read_tools(&mut self, event: &Object<'_>) -> Result<(), ChunkError> {
        let root = Path::ROOT;
        let at = root.key("response");
        let Some(response) = event.object("response", &root)? else {
            return Ok(());
        };
        let Some(tools) = response.list("tools", &at)? else {
            return Ok(());
        };
        let at = at.key("tools");
        let mut names = FxHashSet::default();
        for (position, raw) in tools.into_iter().enumerate() {
            let at = at.item(position);
            let tool = crate::json_view::object(raw, &at)?;
            if tool.string("type", &at)?.as_deref() == Some(b"custom")
                && let Some(name) = tool.string("name", &at)?
            {
                names.insert(name.into_owned());
            }
        }
        self.custom_tools = Some(names);
        Ok(())
    }

    /// `response.output_item.added` (`done` false) or `.done`: a function or custom tool call's identity (and at
    /// `.done` its final text and end); any other item, once done, is kept for the next request.
    fn item(&mut self, sink: &mut Sink<'_, '_>, event: &Object<'_>, done: bool) -> Result<(), ChunkError> {
        let root = Path::ROOT;
        let at = root.key("item");
        let index = output_index(event)?;
        let Some(item) = event.object("item", &root)? else {
            return Ok(());
        };
        let custom = match item.string("type", &at)?.as_deref() {
            Some(b"function_call") => false,
            Some(b"custom_tool_call") if !self.ran_by_provider(&item, &at)? => true,
            kind => {
                if kind == Some(b"custom_tool_call")
                    && !self.server_items.contains(&index)
                    && sink.accumulator.admit_output(BOOKKEEPING)
                {
                    self.server_items.insert(index);
                }
                if done
                    && let Some(raw) = event.raw("item")
                    && let Some(json) = sink.admit_whole(raw, &at)?
                {
                    self.items.push(OutputItem {
                        after_calls: sink.accumulator.calls_opened(),
                        json,
                    });
                }
                return Ok(());
            }
        };
        let call_id = item.string("call_id", &at)?;
        let name = item.string("name", &at)?;
        let arguments = if custom {
            item.string("input", &at)?.map(Arguments::Text)
        } else {
            Arguments::read(&item, &at, sink.canonical)?
        };
        let item_id = item.raw("id");
        let extra: &[(&'static str, &[u8])] = match &item_id {
            Some(item_id) => &[("item_id", item_id)],
            None => &[],
        };
        let has_id = self.calls.get(&index).copied();
        let fragment = Fragment {
            index: Some(index),
            // An id for a call that has one already could only conflict with it (a rotating id is not a new call).
            id: if has_id == Some(true) { None } else { call_id.as_deref() },
            name: name.as_deref(),
            kind: Some(call_kind(custom)),
            free_text: custom,
            // At `added`, a non-empty text is the start of the arguments; at `done` it is their final text.
            arguments: match &arguments {
                Some(Arguments::Text(text)) if !done && !text.is_empty() => Some(text),
                _ => None,
            },
            extra,
            ..Fragment::default()
        };
        if sink.accumulator.fragment(CHOICE, &fragment) == REFUSED {
            self.calls.remove(&index); // a call past `Limits.max_calls`: its index holds nothing now
        } else {
            let has_id = has_id == Some(true) || call_id.as_deref().is_some_and(|id| !id.is_empty() && id != b"null");
            self.calls.insert(index, has_id);
        }
        if done {
            if let Some(arguments) = arguments {
                arguments.done(sink.accumulator, index);
            }
            sink.accumulator.end_call(CHOICE, index);
        }
        Ok(())
    }

    /// Whether a custom tool call item is the provider's own: the echoed response lists its tools, and no custom tool
    /// of the item's name.
    fn ran_by_provider(&self, item: &Object<'_>, at: &Path<'_>) -> Result<bool, ChunkError> {
        let Some(declared) = &self.custom_tools else {
            return Ok(false);
        };
        let name = item.string("name", at)?;
        Ok(!name.is_some_and(|name| declared.contains(&*name)))
    }

}

fn call_kind(custom: bool) -> &'static [u8] {
    if custom { b"custom_tool_call" } else { b"function_call" }
}

/// A terminal event: the finish is the response's status; a failed response's error is reported.
fn finished<'a>(accumulator: &mut Accumulator, event: &Object<'a>, kind: &[u8]) -> Result<EventExtras<'a>, ChunkError> {
    let root = Path::ROOT;
    let at = root.key("response");
    let response = event.object("response", &root)?;
    let status = match &response {
        Some(response) => response.string("status", &at)?,
        None => None,
    };
    let status = status.unwrap_or(Cow::Borrowed(kind.strip_prefix(b"response.").unwrap_or(kind)));
    let finish_kind = match &*status {
        b"incomplete" | b"failed" | b"cancelled" => FinishKind::Cut,
        _ => FinishKind::Neutral,
    };
    let error = response.as_ref().and_then(|response| response.raw("error"));
    let usage = response
        .as_ref()
        .and_then(|response| response.raw("usage"))
        .map(Cow::Borrowed);
    if let Some(error) = error {
        return Ok(EventExtras {
            error: Some(Cow::Borrowed(error)),
            usage,
            finish: Some((Cow::Owned(status.into_owned()), finish_kind)),
            ..EventExtras::default()
        });
    }
    accumulator.finish(CHOICE, &status, finish_kind);
    Ok(EventExtras {
        error: None,
        usage,
        ..EventExtras::default()
    })
}

/// A call's `arguments`: a string as the format promises, or a value sent in its place (its canonical text).
enum Arguments<'a> {
    Text(Cow<'a, [u8]>),
    Value(Vec<u8>),
}

impl<'a> Arguments<'a> {
    fn read(object: &Object<'a>, path: &Path<'_>, canonical: Canonical<'_>) -> Result<Option<Self>, ChunkError> {
        let Some(raw) = object.raw("arguments") else {
            return Ok(None);
        };
        if raw.first() == Some(&b'"') {
            return object.string("arguments", path).map(|text| text.map(Self::Text));
        }
        let text = canonical(raw).map_err(|problem| {
            path.key("arguments")
                .fail(format!("arguments sent as a value that is not JSON: {problem}"))
        })?;
        Ok(Some(Self::Value(text)))
    }

    /// The call's final arguments: a text wins over the deltas; a value, which only a server that sends no deltas
    /// sends, is appended as such (`ARGUMENTS_NOT_STRING`).
    fn done(&self, accumulator: &mut Accumulator, index: i64) {
        match self {
            Self::Text(text) => accumulator.done_arguments(CHOICE, index, text),
            Self::Value(text) => {
                let fragment = Fragment {
                    index: Some(index),
                    kind: Some(b"function_call"),
                    arguments: Some(text),
                    arguments_was_value: true,
                    ..Fragment::default()
                };
                accumulator.fragment(CHOICE, &fragment);
            }
        }
    }
}

/// The template of a `.delta` event: its text, and the values that vary from one to the next.
fn delta_template(event: &Object<'_>, data: &[u8]) -> Option<Template> {
    let mut holes = vec![(event.raw("delta")?, Hole::Text)];
    // The item id stays literal: it tells interleaved calls apart at a glance (a server that rotates it, Q27, only
    // sends its events the full way).
    if let Some(raw) = event.raw("obfuscation").filter(|raw| raw.first() == Some(&b'"')) {
        holes.push((raw, Hole::Padding));
    }
    if let Some(raw) = event
        .raw("sequence_number")
        .filter(|raw| raw.iter().all(u8::is_ascii_digit))
    {
        holes.push((raw, Hole::Counter));
    }
    Template::new(data, &holes)
}

fn output_index(event: &Object<'_>) -> Result<i64, ChunkError> {
    event
        .integer("output_index", &Path::ROOT)?
        .ok_or_else(|| Path::ROOT.key("output_index").fail("expected an integer, got nothing"))
}

#[cfg(test)]
mod tests {
    use crate::decode::test_support::{accumulator, codes, compact, run};
    use crate::accumulator::Arguments;
    use crate::decode::{Decoder, Format};

    #[test]
    fn a_responses_done_text_wins_over_its_deltas() {
        let mut decoder = Decoder::new(Some(Format::OpenAiResponses));
        let mut stream = accumulator();
        let ready = run(
            &mut decoder,
            &mut stream,
            &[
                r#"{"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": ""}}"#,
                r#"{"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_2", "delta": "{\"a\": 1"}"#,
                r#"{"type": "response.function_call_arguments.done", "output_index": 0, "arguments": "{\"a\": 2}"}"#,
                r#"{"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": "{\"a\": 2}"}}"#,
                r#"{"type": "response.completed", "response": {"status": "completed"}}"#,
            ],
        );
        let call = &ready[2][0];
        assert_eq!(call.arguments_json, b"{\"a\": 2}");
        assert_eq!(codes(call), ["ARGUMENTS_MISMATCH"]);
        assert_eq!(call.extra, [("item_id", b"\"fc_1\"".to_vec())]);
        assert!(
            stream.stream_violations().is_empty(),
            "the item's same text is no second mismatch"
        );
    }

    #[test]
    fn a_responses_refusal_is_read_apart_from_the_text() {
        let mut decoder = Decoder::new(Some(Format::OpenAiResponses));
        let mut stream = accumulator();
        run(
            &mut decoder,
            &mut stream,
            &[
                r#"{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "{"}"#,
                r#"{"type": "response.refusal.delta", "output_index": 0, "content_index": 1, "delta": "I can't"}"#,
                r#"{"type": "response.refusal.delta", "output_index": 0, "content_index": 1, "delta": " help."}"#,
                r#"{"type": "response.refusal.done", "output_index": 0, "content_index": 1, "refusal": "I can't help."}"#,
                r#"{"type": "response.completed", "response": {"status": "completed"}}"#,
            ],
        );
        let choice = &stream.choices()[0];
        assert_eq!((&choice.text[..], &choice.refusal[..]), (&b"{"[..], &b"I can't help."[..]));
    }

    #[test]
    fn a_responses_custom_tool_call_keeps_its_free_text() {
        let created = |tools: &str| {
            format!(r#"{{"type": "response.created", "response": {{"status": "in_progress", "tools": {tools}}}}}"#)
        };
        let call = [
            r#"{"type": "response.output_item.added", "output_index": 0, "item": {"type": "custom_tool_call", "id": "ctc", "call_id": "c", "name": "code", "input": ""}}"#,
            r#"{"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "{not json"}"#,
            r#"{"type": "response.custom_tool_call_input.done", "output_index": 0, "input": "{not json"}"#,
        ];
        for (tools, client) in [
            (r#"[{"type": "custom", "name": "code"}]"#, true),
            (r#"[{"type": "x_search"}]"#, false),
        ] {
            let mut decoder = Decoder::new(None);
            let mut stream = accumulator();
            let first = created(tools);
            let events: Vec<&str> = std::iter::once(first.as_str()).chain(call).collect();
            let ready = run(&mut decoder, &mut stream, &events);
            if client {
                let call = &ready[3][0];
                assert_eq!(call.arguments, Arguments::Text);
                assert_eq!(call.arguments_json, b"{not json");
                assert!(codes(call).is_empty(), "free text is never scanned");
            } else {
                assert!(ready.iter().all(Vec::is_empty), "the provider ran it");
            }
        }
    }

    #[test]
    fn repeated_argument_events_read_alike_whether_matched_or_parsed() {
        let delta = |sequence: u32, item: &str, text: &str| {
            format!(
                r#"{{"type":"response.function_call_arguments.delta","sequence_number":{sequence},"item_id":"{item}","output_index":0,"delta":{text},"obfuscation":"x{sequence}"}}"#
            )
        };
        let mut events = vec![
            r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"c","name":"f","arguments":""}}"#.to_owned(),
        ];
        for (sequence, text) in [r#""{\"a\": ""#, r#""\"\u00e9\", ""#, r#""\"b\": [1, 2""#, r#""]}""#]
            .iter()
            .enumerate()
        {
            events.push(delta(
                u32::try_from(sequence).unwrap_or_default() + 3,
                if sequence % 2 == 0 { "fc_1" } else { "fc_2" },
                text,
            ));
        }
        let run = |events: &[String], fresh: bool| {
            let mut stream = accumulator();
            let mut decoder = Decoder::new(None);
            let mut outcomes = Vec::new();
            for event in events {
                if fresh {
                    // A decoder per event never has a template: every event is parsed.
                    let mut format = Decoder::new(Some(Format::OpenAiResponses));
                    outcomes.push(format.read(&mut stream, None, event.as_bytes(), &mut compact).is_ok());
                } else {
                    outcomes.push(decoder.read(&mut stream, None, event.as_bytes(), &mut compact).is_ok());
                }
            }
            stream.end();
            (outcomes, stream.take_ready())
        };
        let (matched, matched_calls) = run(&events, false);
        let (parsed, parsed_calls) = run(&events, true);
        assert_eq!(matched, parsed);
        assert_eq!(matched_calls, parsed_calls);
        assert_eq!(
            matched_calls[0].arguments_json,
            "{\"a\": \"é\", \"b\": [1, 2]}".as_bytes()
        );

        // A raw control character in the text: not matched, so the full reading refuses it as it always does.
        let mut broken = events.clone();
        broken.push(delta(9, "fc_1", "\"\u{1}\""));
        let (matched, _) = run(&broken, false);
        assert_eq!(matched.last(), Some(&false));
    }
}
