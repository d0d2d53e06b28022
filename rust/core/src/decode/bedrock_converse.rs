//! Amazon Bedrock `ConverseStream` events, as the AWS SDK yields them (one key per event).
//!
//! A call's key is its `contentBlockIndex`; `contentBlockStop` is its explicit end. A `toolUse` block of type
//! `server_tool_use` (Nova's built-in tools, run by Bedrock) and the `toolResult` block that answers it are kept in
//! `output`, never handed over. What `output` keeps is bounded by `Limits.max_output_bytes`, and an index holds
//! something only for a call kept or a block kept.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::output::{BOOKKEEPING, OutputItem, Whole, object_with, quoted, string_of};
use super::shared::{Event, EventExtras, FormatDecoder, Read, Sink, is_error};
use crate::accumulator::{Accumulator, FinishKind, Fragment, REFUSED};
use crate::json_view::{ChunkError, Object, Path, object, string_inner};

const CHOICE: i64 = 0;

/// The events of `ConverseStream`, each an object of one member named after it.
const KEYS: [&str; 6] = [
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
];

#[derive(Debug, Default)]
pub(super) struct BedrockConverse {
    slots: FxHashMap<i64, Slot>,
    blocks: Vec<Kept>,
}

#[derive(Debug, Clone, Copy)]
enum Slot {
    Call,
    Block(usize),
    Server(usize),
}

/// A piece of the turn kept for `output`, in the order of its first event.
#[derive(Debug)]
enum Kept {
    Block(Block),
    Server(ServerBlock),
}

/// A server tool's `toolUse` block, or the `toolResult` block that answers it: the start object (written compactly),
/// with the `input` its deltas brought or the `content` items of its result deltas (each written compactly).
#[derive(Debug)]
struct ServerBlock {
    after_calls: usize,
    member: &'static str,
    start: Vec<u8>,
    input: Option<Vec<u8>>,
    content: Option<Vec<Vec<u8>>>,
}

/// A text or reasoning block, completed from its deltas (text escaped as sent).
#[derive(Debug)]
struct Block {
    after_calls: usize,
    text: Vec<u8>,
    reasoning: Option<Reasoning>,
}

#[derive(Debug, Default)]
struct Reasoning {
    signature: Option<Vec<u8>>,
    redacted: Option<Vec<u8>>,
}

impl FormatDecoder for BedrockConverse {
    /// An event of one member that is one of `ConverseStream`'s, or any `...Exception` (the exception events it
    /// sends in place of the rest: `throttlingException`, `modelStreamErrorException`...).
    fn identifies(event: &Object<'_>, _kind: Option<&[u8]>) -> bool {
        let [(key, _)] = event.members() else {
            return false;
        };
        KEYS.iter().any(|wanted| wanted.as_bytes() == *key) || key.ends_with(b"Exception")
    }

    fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a> {
        let root = Path::ROOT;
        if is_error(&event.object) {
            return Ok(EventExtras::error(event.data));
        }
        if event.object.has("messageStart") {
            sink.accumulator.touch(CHOICE);
        }
        if let Some(start) = event.object.object("contentBlockStart", &root)? {
            let at = root.key("contentBlockStart");
            let index = block_index(&start, &at)?;
            let start_at = at.key("start");
            let begin = start.object("start", &at)?;
            let tool_use = match &begin {
                Some(begin) => begin.object("toolUse", &start_at)?,
                None => None,
            };
            let server = match &tool_use {
                Some(tool_use) => {
                    tool_use.string("type", &start_at.key("toolUse"))?.as_deref() == Some(b"server_tool_use")
                }
                None => false,
            };
            if let Some(raw) = begin.as_ref().and_then(|begin| begin.raw("toolResult")) {
                let at = start_at.key("toolResult");
                object(raw, &at)?;
                let start = Whole::of(raw, &at, sink.canonical)?;
                self.server_block(sink.accumulator, index, "toolResult", start);
            } else if server {
                let raw = begin.as_ref().and_then(|begin| begin.raw("toolUse")).unwrap_or(b"{}");
                let start = Whole::of(raw, &start_at.key("toolUse"), sink.canonical)?;
                self.server_block(sink.accumulator, index, "toolUse", start);
            } else if let Some(tool_use) = tool_use {
                let tool_at = start_at.key("toolUse");
                let id = tool_use.string("toolUseId", &tool_at)?;
                let name = tool_use.string("name", &tool_at)?;
                let fragment = Fragment {
                    index: Some(index),
                    id: id.as_deref(),
                    name: name.as_deref(),
                    kind: Some(b"tool_use"),
                    ..Fragment::default()
                };
                self.call_at(sink.accumulator, index, &fragment);
            }
        }
        if let Some(delta_event) = event.object.object("contentBlockDelta", &root)? {
            let at = root.key("contentBlockDelta");
            let index = block_index(&delta_event, &at)?;
            if let Some(delta) = delta_event.object("delta", &at)? {
                self.delta(sink, index, &delta, &at.key("delta"))?;
            }
        }
        if let Some(stop) = event.object.object("contentBlockStop", &root)? {
            let index = block_index(&stop, &root.key("contentBlockStop"))?;
            if let Some(Slot::Call) = self.slots.get(&index) {
                sink.accumulator.end_call(CHOICE, index);
            }
        }
        if let Some(stop) = event.object.object("messageStop", &root)?
            && let Some(reason) = stop.string("stopReason", &root.key("messageStop"))?
        {
            sink.accumulator.finish(CHOICE, &reason, finish_kind(&reason));
        }
        if let Some(metadata) = event.object.object("metadata", &root)? {
            return Ok(EventExtras {
                error: None,
                usage: metadata.raw("usage").map(Cow::Borrowed),
                ..EventExtras::default()
            });
        }
        Ok(EventExtras::default())
    }

    fn output(&self) -> Vec<OutputItem> {
        self.blocks
            .iter()
            .map(|kept| match kept {
                Kept::Block(block) => block.item(),
                Kept::Server(block) => block.item(),
            })
            .collect()
    }
}

impl BedrockConverse {
    fn delta(
        &mut self,
        sink: &mut Sink<'_, '_>,
        index: i64,
        delta: &Object<'_>,
        at: &Path<'_>,
    ) -> Result<(), ChunkError> {
        if let Some(Slot::Server(position)) = self.slots.get(&index).copied() {
            return self.server_delta(sink, position, delta, at);
        }
        if let Some(tool_use) = delta.object("toolUse", at)? {
            if let Some(input) = tool_use.string("input", &at.key("toolUse"))? {
                if sink.accumulator.output_is_over() && !self.slots.contains_key(&index) {
                    // The input of a server call left out, as far as anyone can tell: counted with it, never a call.
                    sink.accumulator.admit_output(input.len());
                    return Ok(());
                }
                let fragment = Fragment {
                    index: Some(index),
                    kind: Some(b"tool_use"),
                    arguments: Some(&input),
                    ..Fragment::default()
                };
                // Input for the index makes it a call's (its `contentBlockStop` ends the call), whatever came before.
                self.call_at(sink.accumulator, index, &fragment);
            }
            return Ok(());
        }
        if let Some(text) = delta.string("text", at)? {
            sink.accumulator.text(CHOICE, &text);
            let inner = delta.raw("text").and_then(string_inner).unwrap_or_default();
            if let Some(block) = self.block(sink.accumulator, index, text.len()) {
                block.text.extend_from_slice(inner);
            }
        }
        if let Some(reasoning) = delta.object("reasoningContent", at)? {
            let at = at.key("reasoningContent");
            let text = reasoning.string("text", &at)?;
            let signature = reasoning.string("signature", &at)?;
            let redacted = reasoning
                .raw("redactedContent")
                .map(|raw| Whole::of(raw, &at.key("redactedContent"), sink.canonical))
                .transpose()?;
            let size = text.as_ref().map_or(0, |text| text.len())
                + signature.as_ref().map_or(0, |signature| signature.len())
                + redacted.as_ref().map_or(0, |redacted| redacted.size);
            let Some(block) = self.block(sink.accumulator, index, size) else {
                return Ok(());
            };
            let kept = block.reasoning.get_or_insert_with(Reasoning::default);
            if text.is_some() {
                block
                    .text
                    .extend_from_slice(reasoning.raw("text").and_then(string_inner).unwrap_or_default());
            }
            if signature.is_some() {
                kept.signature
                    .get_or_insert_with(Vec::new)
                    .extend_from_slice(reasoning.raw("signature").and_then(string_inner).unwrap_or_default());
            }
            if let Some(redacted) = redacted {
                kept.redacted = Some(redacted.json);
            }
        }
        Ok(())
    }

    /// A call's fragment at `index`: the index is the call's while a call kept is there (not one past
    /// `Limits.max_calls`, which leaves it holding nothing).
    fn call_at(&mut self, accumulator: &mut Accumulator, index: i64, fragment: &Fragment<'_>) {
        if accumulator.fragment(CHOICE, fragment) == REFUSED {
            self.slots.remove(&index);
        } else {
            self.slots.insert(index, Slot::Call);
        }
    }

    /// The text or reasoning block at `index`, made on its first delta, when the output has room for the `size` more
    /// bytes the delta brings (and a new block's bookkeeping); None at a call's or a server block's index (its text is
    /// text).
    fn block(&mut self, accumulator: &mut Accumulator, index: i64, size: usize) -> Option<&mut Block> {
        let position = match self.slots.get(&index) {
            Some(Slot::Block(position)) => {
                let position = *position;
                accumulator.admit_output(size).then_some(position)?
            }
            Some(Slot::Call | Slot::Server(_)) => return None,
            None => {
                if !accumulator.admit_output(BOOKKEEPING + size) {
                    return None;
                }
                self.slots.insert(index, Slot::Block(self.blocks.len()));
                self.blocks.push(Kept::Block(Block {
                    after_calls: accumulator.calls_opened(),
                    text: Vec::new(),
                    reasoning: None,
                }));
                self.blocks.len() - 1
            }
        };
        match self.blocks.get_mut(position) {
            Some(Kept::Block(block)) => Some(block),
            _ => None,
        }
    }

    /// A server tool's block opens at `index` (`member` is `toolUse` or `toolResult`), when the output has room for
    /// its start; left out, the index holds nothing.
    fn server_block(&mut self, accumulator: &mut Accumulator, index: i64, member: &'static str, start: Whole) {
        let Some(start) = start.admitted(accumulator) else {
            self.slots.remove(&index);
            return;
        };
        self.slots.insert(index, Slot::Server(self.blocks.len()));
        self.blocks.push(Kept::Server(ServerBlock {
            after_calls: accumulator.calls_opened(),
            member,
            start,
            input: None,
            content: None,
        }));
    }

    /// A delta of a server block: a `toolUse` input piece, or `toolResult` content items (each kept whole); nothing
    /// else of it is read.
    fn server_delta(
        &mut self,
        sink: &mut Sink<'_, '_>,
        position: usize,
        delta: &Object<'_>,
        at: &Path<'_>,
    ) -> Result<(), ChunkError> {
        let Some(Kept::Server(block)) = self.blocks.get_mut(position) else {
            return Ok(());
        };
        if let Some(tool_use) = delta.object("toolUse", at)?
            && let Some(input) = tool_use.raw("input")
            && let Some(text) = tool_use.string("input", &at.key("toolUse"))?
            && sink.accumulator.admit_output(text.len())
        {
            block
                .input
                .get_or_insert_with(Vec::new)
                .extend_from_slice(string_inner(input).unwrap_or_default());
        }
        if let Some(items) = delta.list("toolResult", at)? {
            let at = at.key("toolResult");
            for (position, raw) in items.into_iter().enumerate() {
                if let Some(item) = sink.admit_whole(raw, &at.item(position))? {
                    block.content.get_or_insert_with(Vec::new).push(item);
                }
            }
        }
        Ok(())
    }

}

impl ServerBlock {
    fn item(&self) -> OutputItem {
        let mut replaced = Vec::new();
        if let Some(input) = self.input.as_ref() {
            // The input as its text's JSON value (pieces of a JSON string, joined as escaped), or the text itself.
            let quoted = quoted(input);
            let text = crate::json_view::string(&quoted, &Path::ROOT).unwrap_or_default();
            let parses = !text.trim_ascii().is_empty()
                && jiter::JsonValue::parse(&crate::json_view::structural(&text), false).is_ok();
            replaced.push(("input", if parses { text.into_owned() } else { string_of(&text) }));
        }
        if let Some(content) = &self.content {
            let mut items = vec![b'['];
            items.extend(content.join(&b","[..]));
            items.push(b']');
            replaced.push(("content", items));
        }
        let inner = match object(&self.start, &Path::ROOT) {
            Ok(start) => object_with(start.members(), &replaced),
            Err(_) => self.start.clone(),
        };
        let mut json = format!("{{\"{}\":", self.member).into_bytes();
        json.extend(inner);
        json.push(b'}');
        OutputItem {
            after_calls: self.after_calls,
            json,
        }
    }
}

impl Block {
    fn item(&self) -> OutputItem {
        {
            let block = self;
            {
                let json = match &block.reasoning {
                    None => [&b"{\"text\":"[..], &quoted(&block.text), b"}"].concat(),
                    Some(Reasoning {
                        redacted: Some(redacted),
                        ..
                    }) => [&b"{\"reasoningContent\":{\"redactedContent\":"[..], redacted, b"}}"].concat(),
                    Some(Reasoning { signature, .. }) => {
                        let mut json = b"{\"reasoningContent\":{\"reasoningText\":{\"text\":".to_vec();
                        json.extend(quoted(&block.text));
                        if let Some(signature) = signature {
                            json.extend_from_slice(b",\"signature\":");
                            json.extend(quoted(signature));
                        }
                        json.extend_from_slice(b"}}}");
                        json
                    }
                };
                OutputItem {
                    after_calls: block.after_calls,
                    json,
                }
            }
        }
    }
}

fn block_index(event: &Object<'_>, at: &Path<'_>) -> Result<i64, ChunkError> {
    event
        .integer("contentBlockIndex", at)?
        .ok_or_else(|| at.key("contentBlockIndex").fail("expected an integer, got nothing"))
}

fn finish_kind(reason: &[u8]) -> FinishKind {
    match reason {
        b"tool_use" => FinishKind::Calls,
        b"end_turn" => FinishKind::Stop,
        b"max_tokens" | b"guardrail_intervened" | b"content_filtered" | b"model_context_window_exceeded" => {
            FinishKind::Cut
        }
        _ => FinishKind::Neutral,
    }
}

#[cfg(test)]
mod tests {
    use crate::decode::test_support::{accumulator, compact, feed};
    use crate::decode::{Decoder, Format};

    #[test]
    fn a_bedrock_server_tool_is_output_not_a_call() {
        let (decoder, _, ready) = feed(
            accumulator(),
            &[
                r#"{"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"name": "nova_code_interpreter", "toolUseId": "s", "type": "server_tool_use"}}}}"#,
                r#"{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{\"snippet\":"}}}}"#,
                r#"{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "\"1 + 1\"}"}}}}"#,
                r#"{"contentBlockStop": {"contentBlockIndex": 0}}"#,
                r#"{"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolResult": {"toolUseId": "s", "status": "success"}}}}"#,
                r#"{"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolResult": [{"json": {"stdOut": "2"}}]}}}"#,
                r#"{"contentBlockStop": {"contentBlockIndex": 1}}"#,
            ],
        );
        assert!(ready.iter().all(Vec::is_empty));
        let output: Vec<Vec<u8>> = decoder.output().into_iter().map(|item| item.json).collect();
        assert_eq!(
            output,
            [
                br#"{"toolUse":{"name":"nova_code_interpreter","toolUseId":"s","type":"server_tool_use","input":{"snippet":"1 + 1"}}}"#.to_vec(),
                br#"{"toolResult":{"toolUseId":"s","status":"success","content":[{"json":{"stdOut":"2"}}]}}"#.to_vec(),
            ]
        );
    }

    #[test]
    fn a_wrong_type_names_its_field() {
        let mut decoder = Decoder::new(Some(Format::BedrockConverse));
        let error = decoder
            .read(
                &mut accumulator(),
                None,
                br#"{"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": 7}}}}"#,
                &mut compact,
            )
            .expect_err("an id that is no string");
        assert_eq!(error.path, "contentBlockStart.start.toolUse.toolUseId");
        assert_eq!(error.problem, "expected a string or null, got int");
    }
}
