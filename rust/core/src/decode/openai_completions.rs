//! The legacy completions stream (`/v1/completions`, `stream: true`), as `OpenAI` and the servers of open-weight models
//! (vLLM, `SGLang`, llama.cpp, TGI) send it: each choice carries generated `text`, nothing else.
//!
//! The endpoint has no tool calls: a model served over it writes its calls into its text, which this decoder keeps
//! whole, per choice (`n` > 1 choices keyed by their `index`). Its finish reasons say why generation stopped, never
//! whether calls were made, so only the cuts (`length`, `content_filter`) mean anything for calls.

use std::borrow::Cow;

use super::shared::{Event, EventExtras, FormatDecoder, Read, Sink};
use crate::accumulator::FinishKind;
use crate::json_view::{Object, Path, object};

/// The `object` every server gives a completions chunk (the binding's reading of Python chunks asks it too).
pub const OBJECT: &[u8] = b"text_completion";

/// What a completions `finish_reason` means for calls: `length` and `content_filter` cut, any other is neutral
/// (`stop` included: a model that wrote its calls in its text stops as one that wrote prose does).
fn finish_kind(reason: &[u8]) -> FinishKind {
    match reason {
        b"length" | b"content_filter" => FinishKind::Cut,
        _ => FinishKind::Neutral,
    }
}

/// A completions stream keeps no state between chunks: each choice's text is the accumulator's.
#[derive(Debug, Default)]
pub(super) struct OpenAiCompletions;

impl FormatDecoder for OpenAiCompletions {
    /// A `text_completion` object, or `choices` whose first entry has `text` and no `delta` (a chat chunk's choices
    /// have a `delta`; this hint is asked before chat's, which takes any `choices`).
    fn identifies(event: &Object<'_>, _kind: Option<&[u8]>) -> bool {
        let root = Path::ROOT;
        if event
            .string("object", &root)
            .ok()
            .flatten()
            .is_some_and(|kind| *kind == *OBJECT)
        {
            return true;
        }
        let first = event.list("choices", &root).ok().flatten().and_then(|choices| {
            let raw = *choices.first()?;
            object(raw, &root).ok()
        });
        first.is_some_and(|choice| choice.has("text") && !choice.has("delta"))
    }

    /// Read one chunk: an error, or each choice's text and finish, then the usage.
    fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a> {
        let root = Path::ROOT;
        if let Some(error) = event.object.raw("error") {
            return Ok(EventExtras::error(error));
        }
        let choices = event.object.list("choices", &root)?.unwrap_or_default();
        let at = root.key("choices");
        for (position, raw) in choices.into_iter().enumerate() {
            let at = at.item(position);
            let choice = object(raw, &at)?;
            let number = choice
                .integer("index", &at)?
                .unwrap_or_else(|| i64::try_from(position).unwrap_or(i64::MAX));
            if !sink.accumulator.choice_entry(number) {
                continue; // a choice past `Limits.max_choices`: counted, not read
            }
            if let Some(text) = choice.string("text", &at)? {
                sink.accumulator.text(number, &text);
            }
            if let Some(reason) = choice.string("finish_reason", &at)? {
                sink.accumulator.finish(number, &reason, finish_kind(&reason));
            }
        }
        Ok(EventExtras {
            usage: event.object.raw("usage").map(Cow::Borrowed),
            ..EventExtras::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::accumulator::Limits;
    use crate::decode::Format;
    use crate::decode::test_support::{accumulator, feed, limited};

    const VLLM: &str = r#"{"id": "cmpl-1", "object": "text_completion", "created": 1, "model": "m", "choices": "#;

    fn chunk(choices: &str) -> String {
        format!("{VLLM}{choices}, \"usage\": null}}")
    }

    #[test]
    fn a_completions_chunk_is_told_from_a_chat_chunk() {
        let cases: [(&str, Option<Format>); 5] = [
            (r#"{"object": "text_completion", "choices": []}"#, Some(Format::OpenAiCompletions)),
            (r#"{"choices": [{"index": 0, "text": "a"}]}"#, Some(Format::OpenAiCompletions)),
            (r#"{"choices": [{"index": 0, "text": "a", "delta": {}}]}"#, Some(Format::OpenAiChat)),
            (r#"{"choices": [{"index": 0, "delta": {"content": "a"}}]}"#, Some(Format::OpenAiChat)),
            (r#"{"choices": []}"#, Some(Format::OpenAiChat)),
        ];
        for (event, format) in cases {
            let (decoder, _, _) = feed(accumulator(), &[event]);
            assert_eq!(decoder.format(), format, "{event}");
        }
    }

    #[test]
    fn each_choice_keeps_its_text_and_finish_by_index() {
        let events = [
            chunk(r#"[{"index": 1, "text": "x", "finish_reason": null}]"#),
            chunk(r#"[{"index": 0, "text": "a", "logprobs": null, "finish_reason": null}]"#),
            chunk(r#"[{"index": 0, "text": "b", "finish_reason": "stop", "stop_reason": null}]"#),
            chunk(r#"[{"index": 1, "text": "y", "finish_reason": "length"}]"#),
        ];
        let events: Vec<&str> = events.iter().map(String::as_str).collect();
        let (_, mut stream, _) = feed(accumulator(), &events);
        stream.end();
        let choices: Vec<_> = stream
            .choices()
            .iter()
            .map(|choice| (choice.choice, choice.text.clone(), choice.finish_reason.clone()))
            .collect();
        assert_eq!(
            choices,
            [
                (0, b"ab".to_vec(), Some(b"stop".to_vec())),
                (1, b"xy".to_vec(), Some(b"length".to_vec())),
            ]
        );
    }

    #[test]
    fn a_choice_past_the_limit_is_counted_not_read() {
        let limits = Limits {
            max_choices: 1,
            ..Limits::default()
        };
        let events = [chunk(r#"[{"index": 0, "text": "a"}, {"index": 5, "text": "b"}]"#)];
        let (_, mut stream, _) = feed(limited(limits), &[events[0].as_str()]);
        stream.end();
        assert_eq!(stream.choices().len(), 1);
    }
}
