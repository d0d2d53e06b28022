//! Anthropic Messages events (`message_start`, `content_block_*`, `message_delta`, ...).
//!
//! A call's key is its content-block index, and `content_block_stop` is its explicit end. Server tool blocks and
//! every other non-`tool_use` block are kept, completed from their deltas, for the next request, within
//! `Limits.max_output_bytes`. An index holds something only for a call kept or a block kept: a stream that opens blocks
//! without end at new indexes holds no more than those.

use rustc_hash::FxHashMap;

use super::output::{OutputItem, object_from, object_with, quoted, string_of, upsert};
use super::shared::{Event, EventExtras, FormatDecoder, FromBytes, Read, Sink, event_type};
use crate::accumulator::{Accumulator, FinishKind, Fragment, REFUSED};
use crate::json_view::{ChunkError, Object, Path, object, string_inner};
use crate::template::{Hole, Template, Templates};

const CHOICE: i64 = 0;

/// The event types of the Messages API: one identifies a stream as this format's.
const TYPES: [&[u8]; 7] = [
    b"message_start",
    b"message_delta",
    b"message_stop",
    b"content_block_start",
    b"content_block_delta",
    b"content_block_stop",
    b"ping",
];

#[derive(Debug, Default)]
pub(super) struct AnthropicMessages {
    // Each call's last `input_json_delta`, keyed by block index: the next ones are matched, not parsed.
    templates: Templates<i64>,
    message_id: Option<Vec<u8>>,
    slots: FxHashMap<i64, Slot>,
    blocks: Vec<Block>,
    // The usage: the message's start's (raw), with the latest `message_delta`'s members in place (raw), merged only
    // when asked for, so that a stream of deltas costs each one its own bytes.
    usage: Option<(Vec<u8>, Option<Vec<u8>>)>,
}

#[derive(Debug)]
enum Slot {
    /// A `tool_use` block: its start `input` (raw), used when no delta brings a byte.
    Call { input: Option<Vec<u8>>, fed: bool },
    /// Any other block, at this position of `blocks`.
    Block(usize),
}

/// A non-`tool_use` block: its start object (written compactly), and what its deltas added (None: no delta of that
/// kind came).
#[derive(Debug)]
struct Block {
    after_calls: usize,
    start: Vec<u8>,
    text: Option<Vec<u8>>,
    thinking: Option<Vec<u8>>,
    signature: Option<Vec<u8>>,
    citations: Option<Vec<Vec<u8>>>,
    // Server tool blocks (`server_tool_use`, `mcp_tool_use`) take `input_json_delta`s; no other block does.
    takes_input: bool,
    input: Option<Vec<u8>>,
}

impl FormatDecoder for AnthropicMessages {
    /// An event whose `type` (or server-sent event name) is one of the Messages API's.
    fn identifies(_event: &Object<'_>, kind: Option<&[u8]>) -> bool {
        kind.is_some_and(|kind| TYPES.contains(&kind))
    }

    /// An `input_json_delta` of a call that differs from the call's previous one only in its text: applied as the
    /// full reading would apply it; any other event is viewed.
    #[inline]
    fn read_bytes<'a>(&mut self, sink: &mut Sink<'_, '_>, name: Option<&[u8]>, data: &'a [u8]) -> FromBytes<'a> {
        let Some((index, text)) = self.templates.find(name, data) else {
            return FromBytes::View;
        };
        if !self.input_delta(sink.accumulator, index, &text) {
            self.templates.forget(index); // its call is no longer the one at the index
        }
        FromBytes::Known
    }

    fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a> {
        let root = Path::ROOT;
        let kind = event_type(event)?;
        let kind = kind.as_deref().unwrap_or_default();
        match kind {
            b"message_start" => return self.message_start(sink.accumulator, &event.object),
            b"content_block_start" => self.block_start(sink, &event.object)?,
            b"content_block_delta" => self.block_delta(sink, event)?,
            b"content_block_stop" => {
                let index = block_index(&event.object)?;
                self.feed_start_input(sink, index)?;
                if let Some(Slot::Call { .. }) = self.slots.get(&index) {
                    sink.accumulator.end_call(CHOICE, index);
                }
            }
            b"message_delta" => {
                let delta = event.object.object("delta", &root)?;
                if let Some(delta) = delta
                    && let Some(reason) = delta.string("stop_reason", &root.key("delta"))?
                {
                    // The message is over: a call whose block never stopped has its start input now, not `{}`.
                    self.end(sink)?;
                    sink.accumulator.finish(CHOICE, &reason, finish_kind(&reason));
                }
                if let Some(usage) = event.object.raw("usage") {
                    event.object.object("usage", &root)?;
                    let (_, latest) = self.usage.get_or_insert_with(|| (b"{}".to_vec(), None));
                    *latest = Some(usage.to_vec());
                    return Ok(EventExtras::usage_held());
                }
            }
            b"error" => {
                self.end(sink)?;
                return Ok(EventExtras::error(event.object.raw("error").unwrap_or(event.data)));
            }
            // `ping`, `message_stop`, and event types added after this decoder was written.
            _ => {}
        }
        Ok(EventExtras::default())
    }

    /// Start inputs of calls that never got a delta byte nor a stop, when the message ends (its finish, an error, the
    /// end of the stream).
    fn end(&mut self, sink: &mut Sink<'_, '_>) -> Result<(), ChunkError> {
        let mut open: Vec<i64> = self
            .slots
            .iter()
            .filter(|(_, slot)| {
                matches!(
                    slot,
                    Slot::Call {
                        input: Some(_),
                        fed: false
                    }
                )
            })
            .map(|(index, _)| *index)
            .collect();
        open.sort_unstable();
        for index in open {
            self.feed_start_input(sink, index)?;
        }
        Ok(())
    }

    /// The usage as it stands: the start's members, each replaced by the latest delta's of the same name, then the
    /// delta's others (a repeated key: the last one wins, in the first one's place, as in a decoded dict).
    fn usage(&self) -> Option<Vec<u8>> {
        let (start, latest) = self.usage.as_ref()?;
        let mut members: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for raw in std::iter::once(start).chain(latest) {
            if let Ok(usage) = object(raw, &Path::ROOT) {
                for (key, value) in usage.members() {
                    upsert(&mut members, key, value);
                }
            }
        }
        Some(object_from(&members))
    }

    fn output(&self) -> Vec<OutputItem> {
        self.blocks.iter().map(Block::output).collect()
    }
}

impl AnthropicMessages {
    fn message_start<'a>(
        &mut self,
        accumulator: &mut Accumulator,
        event: &Object<'a>,
    ) -> Result<EventExtras<'a>, ChunkError> {
        let root = Path::ROOT;
        let at = root.key("message");
        accumulator.touch(CHOICE);
        let Some(message) = event.object("message", &root)? else {
            return Ok(EventExtras::default());
        };
        if let Some(id) = message.string("id", &at)? {
            match &self.message_id {
                None => self.message_id = Some(id.into_owned()),
                Some(first) if *first != *id => accumulator.spliced(first, &id),
                Some(_) => {}
            }
        }
        let Some(usage) = message.raw("usage") else {
            return Ok(EventExtras::default());
        };
        message.object("usage", &at)?;
        // A message's usage starts with its `message_start`.
        self.usage = Some((usage.to_vec(), None));
        Ok(EventExtras::usage_held())
    }

    fn block_start(
        &mut self,
        sink: &mut Sink<'_, '_>,
        event: &Object<'_>,
    ) -> Result<(), ChunkError> {
        let root = Path::ROOT;
        let at = root.key("content_block");
        let index = block_index(event)?;
        self.templates.forget(index);
        let Some(raw) = event.raw("content_block") else {
            return Ok(());
        };
        let block = object(raw, &at)?;
        let kind = block.string("type", &at)?;
        if kind.as_deref() == Some(b"tool_use") {
            let id = block.string("id", &at)?;
            let name = block.string("name", &at)?;
            let caller = block.raw("caller");
            let extra: &[(&'static str, &[u8])] = match &caller {
                Some(caller) => &[("caller", caller)],
                None => &[],
            };
            let fragment = Fragment {
                index: Some(index),
                id: id.as_deref(),
                name: name.as_deref(),
                kind: Some(b"tool_use"),
                extra,
                ..Fragment::default()
            };
            if sink.accumulator.fragment(CHOICE, &fragment) == REFUSED {
                // A call past `Limits.max_calls` keeps nothing, its start input neither.
                self.slots.remove(&index);
            } else {
                let input = block.raw("input").map(<[u8]>::to_vec);
                self.slots.insert(index, Slot::Call { input, fed: false });
            }
            return Ok(());
        }
        if kind.as_deref() == Some(b"text")
            && let Some(text) = block.string("text", &at)?
        {
            sink.accumulator.text(CHOICE, &text);
        }
        let Some(start) = sink.admit_whole(raw, &at)? else {
            self.slots.remove(&index); // the block left out: its index holds nothing now
            return Ok(());
        };
        self.slots.insert(index, Slot::Block(self.blocks.len()));
        let takes_input = matches!(kind.as_deref(), Some(b"server_tool_use" | b"mcp_tool_use"));
        self.blocks.push(Block {
            after_calls: sink.accumulator.calls_opened(),
            start,
            text: None,
            thinking: None,
            signature: None,
            citations: None,
            takes_input,
            input: None,
        });
        Ok(())
    }

    fn block_delta(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'_, '_>) -> Result<(), ChunkError> {
        let root = Path::ROOT;
        let at = root.key("delta");
        let index = block_index(&event.object)?;
        let Some(delta) = event.object.object("delta", &root)? else {
            return Ok(());
        };
        let kind = delta.string("type", &at)?;
        let slot = self.slots.get(&index);
        let block = match slot {
            Some(Slot::Block(position)) => self.blocks.get_mut(*position),
            _ => None,
        };
        match kind.as_deref().unwrap_or_default() {
            b"input_json_delta" => {
                let Some(text) = delta.string("partial_json", &at)? else {
                    return Ok(());
                };
                if let Some(block) = block {
                    if block.takes_input && sink.accumulator.admit_output(text.len()) {
                        block.input.get_or_insert_with(Vec::new).extend_from_slice(&text);
                    }
                    return Ok(());
                }
                if slot.is_none() && sink.accumulator.output_is_over() {
                    // The input of a server call left out, as far as anyone can tell: counted with it, never a call.
                    sink.accumulator.admit_output(text.len());
                    return Ok(());
                }
                if self.input_delta(sink.accumulator, index, &text)
                    && let Some(raw) = delta.raw("partial_json")
                    && let Some(template) = Template::new(event.data, &[(raw, Hole::Text)])
                {
                    self.templates.keep(index, event.name, template);
                }
            }
            b"text_delta" => {
                let Some(text) = delta.string("text", &at)? else {
                    return Ok(());
                };
                sink.accumulator.text(CHOICE, &text);
                if let Some(block) = block
                    && sink.accumulator.admit_output(text.len())
                {
                    extend_kept(&mut block.text, &block.start, &delta, "text");
                }
            }
            b"thinking_delta" => {
                if let Some(thinking) = delta.string("thinking", &at)?
                    && let Some(block) = block
                    && sink.accumulator.admit_output(thinking.len())
                {
                    extend_kept(&mut block.thinking, &block.start, &delta, "thinking");
                }
            }
            b"signature_delta" => {
                if let Some(signature) = delta.string("signature", &at)?
                    && let Some(block) = block
                    && sink.accumulator.admit_output(signature.len())
                {
                    extend_kept(&mut block.signature, &block.start, &delta, "signature");
                }
            }
            b"citations_delta" => {
                if let Some(block) = block
                    && let Some(citation) = delta.raw("citation")
                    && let Some(citation) = sink.admit_whole(citation, &at.key("citation"))?
                {
                    let kept = block
                        .citations
                        .get_or_insert_with(|| start_items(&block.start, "citations"));
                    kept.push(citation);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Argument text for the call at block `index`; whether a call kept took it (not one past `Limits.max_calls`).
    fn input_delta(&mut self, accumulator: &mut Accumulator, index: i64, text: &[u8]) -> bool {
        let fragment = Fragment {
            index: Some(index),
            kind: Some(b"tool_use"),
            arguments: Some(text),
            ..Fragment::default()
        };
        if accumulator.fragment(CHOICE, &fragment) == REFUSED {
            return false;
        }
        let brought = !text.is_empty();
        if let Some(Slot::Call { fed, .. }) = self.slots.get_mut(&index) {
            *fed |= brought;
        } else {
            self.slots.insert(
                index,
                Slot::Call {
                    input: None,
                    fed: brought,
                },
            );
        }
        true
    }

    fn feed_start_input(
        &mut self,
        sink: &mut Sink<'_, '_>,
        index: i64,
    ) -> Result<(), ChunkError> {
        let Some(Slot::Call { input, fed }) = self.slots.get_mut(&index) else {
            return Ok(());
        };
        let Some(raw) = input.take().filter(|_| !*fed) else {
            return Ok(());
        };
        *fed = true;
        let text = (sink.canonical)(&raw).map_err(|problem| {
            Path::ROOT
                .key("content_block")
                .key("input")
                .fail(format!("the input is not JSON: {problem}"))
        })?;
        let fragment = Fragment {
            index: Some(index),
            arguments: Some(&text),
            ..Fragment::default()
        };
        sink.accumulator.fragment(CHOICE, &fragment);
        Ok(())
    }

    /// How many block indexes hold something (a call or a block kept).
    #[cfg(test)]
    pub(super) fn slots(&self) -> usize {
        self.slots.len()
    }
}

impl Block {
    fn output(&self) -> OutputItem {
        let mut replaced: Vec<(&str, Vec<u8>)> = Vec::new();
        if let Some(text) = &self.text {
            replaced.push(("text", quoted(text)));
        }
        if let Some(thinking) = &self.thinking {
            replaced.push(("thinking", quoted(thinking)));
        }
        if let Some(signature) = &self.signature {
            replaced.push(("signature", quoted(signature)));
        }
        if let Some(citations) = &self.citations {
            let mut list = vec![b'['];
            list.extend(citations.join(&b","[..]));
            list.push(b']');
            replaced.push(("citations", list));
        }
        if let Some(input) = self.input.as_ref().filter(|input| !input.trim_ascii().is_empty()) {
            // Lone surrogate escapes are kept, as a decoded value keeps them: jiter checks the rest.
            let parses = jiter::JsonValue::parse(&crate::json_view::structural(input), false).is_ok();
            replaced.push(("input", if parses { input.clone() } else { string_of(input) }));
        }
        let json = match object(&self.start, &Path::ROOT) {
            Ok(start) => object_with(start.members(), &replaced),
            Err(_) => self.start.clone(),
        };
        OutputItem {
            after_calls: self.after_calls,
            json,
        }
    }
}

/// The escaped content of a string member already checked to be a string (or absent).
fn escaped<'a>(object: &Object<'a>, key: &str) -> &'a [u8] {
    object.raw(key).and_then(string_inner).unwrap_or_default()
}

/// Appends `delta`'s string member `key` (escaped, as sent) to the block's `kept` text of that name, which its first
/// delta begins from the start block's.
fn extend_kept(kept: &mut Option<Vec<u8>>, start: &[u8], delta: &Object<'_>, key: &str) {
    kept.get_or_insert_with(|| start_string(start, key))
        .extend_from_slice(escaped(delta, key));
}

/// The escaped content of a string member of the raw start block, or nothing.
fn start_string(start: &[u8], key: &str) -> Vec<u8> {
    object(start, &Path::ROOT)
        .ok()
        .map(|block| escaped(&block, key).to_vec())
        .unwrap_or_default()
}

/// The raw items of a list member of the raw start block, or none.
fn start_items(start: &[u8], key: &str) -> Vec<Vec<u8>> {
    let Ok(block) = object(start, &Path::ROOT) else {
        return Vec::new();
    };
    block
        .raw(key)
        .and_then(|raw| crate::json_view::list(raw, &Path::ROOT).ok())
        .map(|items| items.into_iter().map(<[u8]>::to_vec).collect())
        .unwrap_or_default()
}

fn block_index(event: &Object<'_>) -> Result<i64, ChunkError> {
    event
        .integer("index", &Path::ROOT)?
        .ok_or_else(|| Path::ROOT.key("index").fail("expected an integer, got nothing"))
}

fn finish_kind(reason: &[u8]) -> FinishKind {
    match reason {
        b"tool_use" => FinishKind::Calls,
        b"end_turn" => FinishKind::Stop,
        b"max_tokens" | b"refusal" | b"model_context_window_exceeded" => FinishKind::Cut,
        _ => FinishKind::Neutral,
    }
}

#[cfg(test)]
mod tests {
    use crate::decode::test_support::{accumulator, codes, compact, feed, left_out, limited};
    use crate::accumulator::Limits;
    use crate::decode::{Decoder, State};

    #[test]
    fn an_anthropic_call_is_handed_over_at_its_block_stop() {
        let (_, _, ready) = feed(
            accumulator(),
            &[
                r#"{"type": "message_start", "message": {"id": "msg_1"}}"#,
                r#"{"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}}"#,
                r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"a\": 1}"}}"#,
                r#"{"type": "content_block_stop", "index": 0}"#,
                r#"{"type": "message_delta", "delta": {"stop_reason": "tool_use"}}"#,
            ],
        );
        assert!(ready[2].is_empty(), "a closed value is not the end of the call");
        assert_eq!(ready[3].len(), 1);
        assert_eq!(ready[3][0].arguments_json, b"{\"a\": 1}");
        assert!(codes(&ready[3][0]).is_empty());
    }

    #[test]
    fn an_anthropic_start_input_counts_only_without_delta_bytes() {
        let (_, stream, ready) = feed(
            accumulator(),
            &[
                r#"{"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "a", "name": "f", "input": {"x": 1}}}"#,
                r#"{"type": "content_block_stop", "index": 0}"#,
                r#"{"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "b", "name": "f", "input": {}}}"#,
                r#"{"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}"#,
                r#"{"type": "content_block_stop", "index": 1}"#,
                r#"{"type": "message_start", "message": {"id": "msg_2"}}"#,
            ],
        );
        assert_eq!(ready[1][0].arguments_json, b"{\"x\":1}");
        assert_eq!(ready[4][0].arguments_json, b"{}");
        assert!(
            codes(&ready[4][0]).is_empty(),
            "an empty start input with an empty delta is {{}}, no finding"
        );
        assert!(stream.stream_violations().is_empty(), "one message_start is no splice");
    }

    #[test]
    fn anthropic_output_past_its_limit_is_counted_and_its_index_holds_nothing() {
        // A thinking start of 48 compact bytes counts 256 + 48, its delta 2 more: 306. The server call's start (66
        // compact bytes, 322 with its bookkeeping) does not fit in 400: left out, with its input, which is no call, and
        // so is everything after it.
        let (decoder, mut stream, ready) = feed(
            limited(Limits {
                max_output_bytes: 400,
                ..Limits::default()
            }),
            &[
                r#"{"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}"#,
                r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hm"}}"#,
                r#"{"type": "content_block_start", "index": 1, "content_block": {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}}"#,
                r#"{"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"q\": 1}"}}"#,
                r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "more"}}"#,
                r#"{"type": "content_block_stop", "index": 1}"#,
            ],
        );
        assert!(ready.iter().all(Vec::is_empty), "the server call's input opens no call");
        stream.end();
        assert!(stream.take_ready().is_empty());
        let output: Vec<Vec<u8>> = decoder.output().into_iter().map(|item| item.json).collect();
        assert_eq!(
            output,
            [br#"{"type":"thinking","thinking":"hm","signature":""}"#.to_vec()]
        );
        assert_eq!(left_out(&stream), Some(256 + 66 + 8 + 4));
    }

    #[test]
    fn anthropic_calls_past_max_calls_hold_no_start_input() {
        let start = |index: usize| {
            format!(
                r#"{{"type": "content_block_start", "index": {index}, "content_block": {{"type": "tool_use", "id": "t{index}", "name": "f", "input": {{"k": {index}}}}}}}"#
            )
        };
        let events: Vec<String> = (0..4).map(start).collect();
        let events: Vec<&str> = events.iter().map(String::as_str).collect();
        let limits = Limits {
            max_calls: 1,
            ..Limits::default()
        };
        let (mut decoder, mut stream, _) = feed(limited(limits), &events);
        let State::AnthropicMessages(state) = &decoder.state else {
            panic!("an Anthropic stream");
        };
        assert_eq!(
            state.slots(),
            1,
            "only the call kept holds its index and its start input"
        );
        decoder.end(&mut stream, &mut compact).expect("the end");
        stream.end();
        let ready = stream.take_ready();
        assert_eq!(ready.len(), 1);
        assert_eq!(ready[0].arguments_json, br#"{"k":0}"#);
    }

    #[test]
    fn anthropic_usage_is_the_start_s_with_the_latest_delta_s_members() {
        let mut decoder = Decoder::new(None);
        let mut stream = accumulator();
        let events = [
            r#"{"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 9, "output_tokens": 1}}}"#,
            r#"{"type": "message_delta", "delta": {}, "usage": {"output_tokens": 5, "server_tool_use": {"web_search_requests": 1}}}"#,
            r#"{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 7, "cache_read_input_tokens": 2}}"#,
        ];
        for event in events {
            let extras = decoder
                .read(&mut stream, None, event.as_bytes(), &mut compact)
                .expect("an event");
            assert!(extras.usage_held && extras.usage.is_none(), "{event}");
        }
        assert_eq!(
            decoder.usage().as_deref(),
            Some(&br#"{"input_tokens":9,"output_tokens":7,"cache_read_input_tokens":2}"#[..])
        );
    }
}
