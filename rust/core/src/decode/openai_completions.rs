//! The legacy completions stream (`/v1/completions`, `stream: true`), as `OpenAI` and the servers of open-weight models
//! (vLLM, `SGLang`, llama.cpp, TGI) send it: each choice carries generated `text`, nothing else.
//!
//! The endpoint has no tool calls: a model served over it writes its calls into its text, which this decoder keeps
//! whole, per choice (`n` > 1 choices keyed by their `index`). Its finish reasons say why generation stopped, never
//! whether calls were made, so only the cuts (`length`, `content_filter`) mean anything for calls.

use std::borrow::Cow;

use super::shared::{Event, EventExtras, FormatDecoder, Read, Sink, error_object};
use crate::accumulator::FinishKind;
use crate::json_view::{Object, Path, object};

/// The `object` every server gives a completions chunk (the binding's reading of Python chunks asks it too).
pub const OBJECT: &[u8] = b"text_completion";

/// Whether a chunk decides nothing between this format and chat: `choices` an empty list and no `object` that names
/// either (a completions stream may open with a usage-only or empty chunk, as Azure's chat stream opens with its
/// `prompt_filter_results`). Chat's hint takes any `choices`, so such a chunk must not decide the stream's format: it
/// carries nothing either format reads differently (no choice; its `usage` is kept as sent by both).
pub(super) fn undecided(event: &Object<'_>) -> bool {
    let root = Path::ROOT;
    let named = event
        .string("object", &root)
        .ok()
        .flatten()
        .is_some_and(|kind| *kind == *OBJECT || kind.starts_with(b"chat.completion"));
    !named && event.list("choices", &root).ok().flatten().is_some_and(|choices| choices.is_empty())
}

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

    /// Read one chunk: an error (an `error` member, or the chunk is vLLM's error object: the whole chunk is its payload),
    /// or each choice's text and finish, then the usage.
    fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a> {
        let root = Path::ROOT;
        if let Some(error) = event.object.raw("error") {
            return Ok(EventExtras::error(error));
        }
        if error_object(&event.object) {
            return Ok(EventExtras::error(event.data));
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
                sink.accumulator.generated_text(number, &text);
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
    use crate::decode::test_support::{accumulator, compact, feed, limited, run};
    use crate::decode::{Decoder, Format};

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
            (r#"{"choices": []}"#, None),
        ];
        for (event, format) in cases {
            let (decoder, _, _) = feed(accumulator(), &[event]);
            assert_eq!(decoder.format(), format, "{event}");
        }
    }

    #[test]
    fn a_chunk_of_empty_choices_decides_nothing_and_keeps_its_usage() {
        let usage = r#"{"choices": [], "usage": {"total_tokens": 3}}"#;
        let mut decoder = Decoder::new(None);
        let mut stream = accumulator();
        let extras = decoder
            .read(&mut stream, None, usage.as_bytes(), &mut compact)
            .expect("an event");
        assert_eq!(decoder.format(), None);
        assert_eq!(extras.usage.as_deref(), Some(br#"{"total_tokens": 3}"#.as_slice()));
        run(&mut decoder, &mut stream, &[r#"{"choices": [{"index": 0, "text": "a"}]}"#]);
        assert_eq!(decoder.format(), Some(Format::OpenAiCompletions));
        stream.end();
        assert_eq!(stream.choices()[0].text, b"a");
    }

    #[test]
    fn a_chat_stream_is_chat_after_a_chunk_of_empty_choices_or_when_it_has_nothing_else() {
        let azure = r#"{"choices": [], "object": "", "prompt_filter_results": []}"#;
        let (decoder, _, _) = feed(accumulator(), &[azure, r#"{"choices": [{"index": 0, "delta": {"content": "a"}}]}"#]);
        assert_eq!(decoder.format(), Some(Format::OpenAiChat));
        let (mut decoder, mut stream, _) = feed(accumulator(), &[azure, azure]);
        decoder.end(&mut stream, &mut compact).expect("an end");
        assert_eq!(decoder.format(), Some(Format::OpenAiChat));
        assert!(decoder.recognised());
        let named = [r#"{"object": "chat.completion.chunk", "choices": []}"#, r#"{"object": "text_completion", "choices": []}"#];
        let formats = named.map(|event| feed(accumulator(), &[event]).0.format());
        assert_eq!(formats, [Some(Format::OpenAiChat), Some(Format::OpenAiCompletions)]);
    }

    #[test]
    fn vllms_error_object_is_a_provider_error_with_the_whole_chunk_as_payload() {
        let error = r#"{"object": "error", "message": "boom", "type": "InternalServerError", "param": null, "code": 500}"#;
        for before in [&[][..], &[r#"{"object": "text_completion", "choices": [{"index": 0, "text": "a"}]}"#][..]] {
            let (mut decoder, mut stream, _) = feed(accumulator(), before);
            let extras = decoder
                .read(&mut stream, None, error.as_bytes(), &mut compact)
                .expect("an event");
            assert_eq!(extras.error.as_deref(), Some(error.as_bytes()), "after {before:?}");
            assert!(decoder.recognised());
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
