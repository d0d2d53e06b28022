//! Ollama's streaming lines (NDJSON): `/api/chat`'s messages, whole calls with their arguments as objects, and
//! `/api/generate`'s `response` text. The two endpoints share one line grammar (`done`, `done_reason`, the statistics
//! of the last line, `error`) and differ only in where the text is, so they are one format.

use std::borrow::Cow;

use super::shared::{Event, EventExtras, FormatDecoder, Read, Sink};
use crate::accumulator::{FinishKind, Fragment};
use crate::json_view::{Object, Path, object};

const CHOICE: i64 = 0;

/// Ollama keeps no state between lines: its calls arrive whole.
#[derive(Debug, Default)]
pub(super) struct Ollama;

impl FormatDecoder for Ollama {
    /// A line with `done` and `message` (`/api/chat`) or `response` (`/api/generate`).
    fn identifies(event: &Object<'_>, _kind: Option<&[u8]>) -> bool {
        event.has("done") && (event.has("message") || event.has("response"))
    }

    /// Read one line: an error, or the message's calls and text and the generated `response` text, then the finish
    /// of a `done` line.
    fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a> {
        let root = Path::ROOT;
        if let Some(error) = event.object.raw("error") {
            return Ok(EventExtras::error(error));
        }
        sink.accumulator.touch(CHOICE);
        if let Some(message) = event.object.object("message", &root)? {
            let at = root.key("message");
            let calls = message.list("tool_calls", &at)?.unwrap_or_default();
            let list_at = at.key("tool_calls");
            for (position, raw) in calls.into_iter().enumerate() {
                let entry_at = list_at.item(position);
                let call = object(raw, &entry_at)?;
                let id = call.string("id", &entry_at)?;
                let function_at = entry_at.key("function");
                let function = call.object("function", &entry_at)?;
                let (name, arguments) = match &function {
                    Some(function) => (
                        function.string("name", &function_at)?,
                        function
                            .raw("arguments")
                            .map(|raw| {
                                (sink.canonical)(raw).map_err(|problem| {
                                    function_at
                                        .key("arguments")
                                        .fail(format!("the arguments are not JSON: {problem}"))
                                })
                            })
                            .transpose()?,
                    ),
                    None => (None, None),
                };
                let fragment = Fragment {
                    id: id.as_deref(),
                    name: name.as_deref(),
                    kind: Some(b"function"),
                    arguments: arguments.as_deref(),
                    ..Fragment::default()
                };
                sink.accumulator.whole_call(CHOICE, &fragment);
            }
            if let Some(content) = message.string("content", &at)? {
                sink.accumulator.text(CHOICE, &content);
            }
        }
        if let Some(response) = event.object.string("response", &root)? {
            sink.accumulator.generated_text(CHOICE, &response);
        }
        if event.object.boolean("done", &root)? != Some(true) {
            return Ok(EventExtras::default());
        }
        if let Some(reason) = event.object.string("done_reason", &root)? {
            let kind = if &*reason == b"length" {
                FinishKind::Cut
            } else {
                FinishKind::Neutral
            };
            sink.accumulator.finish(CHOICE, &reason, kind);
        }
        Ok(EventExtras {
            error: None,
            usage: Some(Cow::Borrowed(event.data)),
            ..EventExtras::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::decode::Format;
    use crate::decode::test_support::{accumulator, feed};

    #[test]
    fn generate_lines_are_read_as_text_and_finished_by_their_done_line() {
        let (decoder, mut stream, _) = feed(
            accumulator(),
            &[
                r#"{"model": "m", "response": "<tool_call>", "done": false}"#,
                r#"{"model": "m", "response": "{}", "thinking": "ignored", "done": false}"#,
                r#"{"model": "m", "response": "", "done": true, "done_reason": "length", "context": [1, 2]}"#,
            ],
        );
        stream.end();
        assert_eq!(decoder.format(), Some(Format::Ollama));
        let choices = stream.choices();
        assert_eq!(choices[0].text, b"<tool_call>{}");
        assert_eq!(choices[0].finish_reason.as_deref(), Some(&b"length"[..]));
    }

    #[test]
    fn lone_surrogate_escapes_are_kept_in_every_format() {
        let (_, _, ready) = feed(
            accumulator(),
            &[
                r#"{"message": {"tool_calls": [{"id": "x\ud800", "function": {"name": "f", "arguments": {}}}]}, "done": true, "done_reason": "stop"}"#,
            ],
        );
        assert_eq!(ready[0][0].id, b"x\xed\xa0\x80");
    }
}
