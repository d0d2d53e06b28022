//! Gemini `streamGenerateContent` chunks (`alt=sse`).
//!
//! Calls arrive whole, one `functionCall` part each, with no index: each is a new call (Q28: parallel calls come in
//! separate chunks, and the finish may come in a later chunk than the call). With streamed arguments (Vertex
//! `streamFunctionCallArguments`), a part with `willContinue` opens a call that later parts' `partialArgs` fill
//! (`partial_args`) until a part without `willContinue` closes it. Other parts are kept within
//! `Limits.max_output_bytes`.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::output::{BOOKKEEPING, OutputItem, quoted};
use super::partial_args::{ArgumentsWriter, OPENING, PathError, read_entry};
use super::shared::{Event, EventExtras, FormatDecoder, Read, Sink};
use crate::accumulator::{Accumulator, FinishKind, Fragment};
use crate::json_view::{ChunkError, Object, Path, object, string_inner};
use crate::violation::ViolationCode;

#[derive(Debug, Default)]
pub(super) struct Gemini {
    parts: Vec<Part>,
    // Per choice: the call whose arguments are still streaming.
    streamed: FxHashMap<i64, Streamed>,
}

/// A call whose arguments are streaming: its seq and the writer of its text.
#[derive(Debug)]
struct Streamed {
    seq: usize,
    writer: ArgumentsWriter,
}

/// A non-call part kept for the next request; plain text parts in a row are one part.
#[derive(Debug)]
enum Part {
    /// `{"text"}` (thought None) or `{"text", "thought"}`: their text, escaped, merged with the next such part.
    Text {
        choice: i64,
        after_calls: usize,
        thought: Option<bool>,
        text: Vec<u8>,
    },
    Other(OutputItem),
}

impl FormatDecoder for Gemini {
    /// A chunk with `candidates` or `promptFeedback`.
    fn identifies(event: &Object<'_>, _kind: Option<&[u8]>) -> bool {
        event.has("candidates") || event.has("promptFeedback")
    }

    fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a> {
        let root = Path::ROOT;
        if let Some(error) = event.object.raw("error") {
            return Ok(EventExtras::error(error));
        }
        let candidates = event.object.list("candidates", &root)?.unwrap_or_default();
        let at = root.key("candidates");
        for (position, raw) in candidates.into_iter().enumerate() {
            let at = at.item(position);
            let candidate = object(raw, &at)?;
            let choice = candidate
                .integer("index", &at)?
                .unwrap_or_else(|| i64::try_from(position).unwrap_or(i64::MAX));
            if !sink.accumulator.choice_entry(choice) {
                continue; // a candidate past `Limits.max_choices`: counted, not read
            }
            if let Some(content) = candidate.object("content", &at)? {
                let at = at.key("content");
                let parts = content.list("parts", &at)?.unwrap_or_default();
                let at = at.key("parts");
                for (number, raw) in parts.into_iter().enumerate() {
                    self.part(sink, choice, raw, &at.item(number))?;
                }
            }
            if let Some(reason) = candidate.string("finishReason", &at)? {
                self.cut_short(sink.accumulator, choice);
                sink.accumulator.finish(choice, &reason, finish_kind(&reason));
            }
        }
        Ok(EventExtras {
            error: None,
            usage: event.object.raw("usageMetadata").map(Cow::Borrowed),
            ..EventExtras::default()
        })
    }

    fn output(&self) -> Vec<OutputItem> {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Other(item) => item.clone(),
                Part::Text {
                    after_calls,
                    thought,
                    text,
                    ..
                } => {
                    let mut json = b"{\"text\":".to_vec();
                    json.extend(quoted(text));
                    if let Some(thought) = thought {
                        json.extend_from_slice(if *thought {
                            b",\"thought\":true"
                        } else {
                            b",\"thought\":false"
                        });
                    }
                    json.push(b'}');
                    OutputItem {
                        after_calls: *after_calls,
                        json,
                    }
                }
            })
            .collect()
    }
}

impl Gemini {
    fn part(
        &mut self,
        sink: &mut Sink<'_, '_>,
        choice: i64,
        raw: &[u8],
        at: &Path<'_>,
    ) -> Result<(), ChunkError> {
        let part = object(raw, at)?;
        if let Some(call) = part.object("functionCall", at)? {
            return self.call(sink, choice, &part, &call, &at.key("functionCall"));
        }
        let thought = part.boolean("thought", at)?;
        let text = part.string("text", at)?;
        if let Some(text) = &text
            && thought != Some(true)
        {
            sink.accumulator.text(choice, text);
        }
        let after_calls = sink.accumulator.calls_opened();
        // `{"text"}` and `{"text", "thought": true}` parts in a row are one text; any other part stays as sent.
        let plain = text
            .as_ref()
            .filter(|_| thought != Some(false) && part.members().len() == 1 + usize::from(thought.is_some()));
        if let Some(plain) = plain {
            let inner = part.raw("text").and_then(string_inner).unwrap_or_default();
            let joined = match self.parts.last_mut() {
                Some(Part::Text {
                    choice: previous_choice,
                    after_calls: previous,
                    thought: previous_thought,
                    text,
                }) if *previous_choice == choice && *previous == after_calls && *previous_thought == thought => {
                    Some(text)
                }
                _ => None,
            };
            if let Some(text) = joined {
                if sink.accumulator.admit_output(plain.len()) {
                    text.extend_from_slice(inner);
                }
            } else if sink.accumulator.admit_output(BOOKKEEPING + plain.len()) {
                self.parts.push(Part::Text {
                    choice,
                    after_calls,
                    thought,
                    text: inner.to_vec(),
                });
            }
            return Ok(());
        }
        if let Some(json) = sink.admit_whole(raw, at)? {
            self.parts.push(Part::Other(OutputItem { after_calls, json }));
        }
        Ok(())
    }

    /// A `functionCall` part: a whole call, the opening or a continuation of a streamed one, or its end.
    fn call(
        &mut self,
        sink: &mut Sink<'_, '_>,
        choice: i64,
        part: &Object<'_>,
        call: &Object<'_>,
        at: &Path<'_>,
    ) -> Result<(), ChunkError> {
        let id = call.string("id", at)?;
        let name = call.string("name", at)?;
        let arguments = call
            .raw("args")
            .map(|args| {
                (sink.canonical)(args)
                    .map_err(|problem| at.key("args").fail(format!("the args are not JSON: {problem}")))
            })
            .transpose()?;
        let will_continue = call.boolean("willContinue", at)? == Some(true);
        let entries = call.list("partialArgs", at)?;
        let signature = part.raw("thoughtSignature");
        let extra: &[(&'static str, &[u8])] = match &signature {
            Some(signature) => &[("thought_signature", signature)],
            None => &[],
        };
        if name.is_some() {
            // A new call: one still streaming never got its end.
            self.cut_short(sink.accumulator, choice);
        }
        let streamed = match self.streamed.entry(choice) {
            std::collections::hash_map::Entry::Occupied(open) => {
                let fragment = Fragment {
                    id: id.as_deref(),
                    kind: Some(b"function_call"),
                    extra,
                    ..Fragment::default()
                };
                sink.accumulator.fragment_to(open.get().seq, &fragment);
                open.into_mut()
            }
            std::collections::hash_map::Entry::Vacant(vacant) => {
                if !will_continue && entries.is_none() {
                    if name.is_none() && id.is_none() && arguments.is_none() {
                        return Ok(()); // an end with no call open ends nothing
                    }
                    let fragment = Fragment {
                        id: id.as_deref(),
                        name: name.as_deref(),
                        kind: Some(b"function_call"),
                        arguments: arguments.as_deref(),
                        extra,
                        ..Fragment::default()
                    };
                    sink.accumulator.whole_call(choice, &fragment);
                    return Ok(());
                }
                let fragment = Fragment {
                    id: id.as_deref(),
                    name: name.as_deref(),
                    kind: Some(b"function_call"),
                    arguments: Some(OPENING),
                    extra,
                    ..Fragment::default()
                };
                let seq = sink.accumulator.open_call(choice, &fragment);
                vacant.insert(Streamed {
                    seq,
                    writer: ArgumentsWriter::new(sink.accumulator.limits().max_argument_bytes),
                })
            }
        };
        let seq = streamed.seq;
        if arguments.as_deref().is_some_and(|text| text != b"{}") {
            let problem = PathError {
                message: "a part of a call whose arguments stream carries whole args".to_owned(),
                pointer: None,
            };
            path_violation(sink.accumulator, seq, problem);
        }
        let mut text = Vec::new();
        let entries_at = at.key("partialArgs");
        for (position, raw) in entries.unwrap_or_default().into_iter().enumerate() {
            let entry_at = entries_at.item(position);
            let entry = read_entry(&object(raw, &entry_at)?, &entry_at, sink.canonical)?;
            if let Err(problem) = streamed.writer.write(&entry, &mut text) {
                path_violation(sink.accumulator, seq, problem);
            }
        }
        if !will_continue && let Some(problem) = streamed.writer.close(&mut text) {
            path_violation(sink.accumulator, seq, problem);
        }
        if !text.is_empty() {
            let fragment = Fragment {
                kind: Some(b"function_call"),
                arguments: Some(&text),
                ..Fragment::default()
            };
            sink.accumulator.fragment_to(seq, &fragment);
        }
        if !will_continue {
            self.streamed.remove(&choice);
            sink.accumulator.end_seq(seq);
        }
        Ok(())
    }

    /// The call still streaming in `choice` is over without its end (a new call, the finish): it is ended as it
    /// stands, its text still open (`TRUNCATED`).
    fn cut_short(&mut self, accumulator: &mut Accumulator, choice: i64) {
        if let Some(streamed) = self.streamed.remove(&choice) {
            accumulator.end_seq(streamed.seq);
        }
    }

}

fn path_violation(accumulator: &mut Accumulator, seq: usize, problem: PathError) {
    accumulator.call_violation(
        seq,
        ViolationCode::INVALID_ARGUMENT_PATH,
        problem.message,
        problem.pointer,
    );
}

fn finish_kind(reason: &[u8]) -> FinishKind {
    match reason {
        b"MAX_TOKENS"
        | b"SAFETY"
        | b"RECITATION"
        | b"BLOCKLIST"
        | b"PROHIBITED_CONTENT"
        | b"SPII"
        | b"MALFORMED_FUNCTION_CALL"
        | b"UNEXPECTED_TOOL_CALL"
        | b"LANGUAGE"
        | b"IMAGE_SAFETY" => FinishKind::Cut,
        _ => FinishKind::Neutral,
    }
}

#[cfg(test)]
mod tests {
    use crate::decode::test_support::{accumulator, codes, feed};

    #[test]
    fn gemini_calls_are_whole_and_never_merged() {
        let (_, mut stream, ready) = feed(
            accumulator(),
            &[
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "c2ln"}]}}]}"#,
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "now"}}]}}]}"#,
                r#"{"candidates": [{"finishReason": "STOP"}]}"#,
            ],
        );
        assert_eq!(ready[0][0].id, b"ts_0_0");
        assert_eq!(ready[0][0].extra, [("thought_signature", b"\"c2ln\"".to_vec())]);
        assert_eq!(codes(&ready[1][0]), ["MISSING_ID", "EMPTY_ARGUMENTS"]);
        stream.end();
        assert!(
            stream.stream_violations().is_empty(),
            "STOP with calls is Gemini's normal finish"
        );
    }

    #[test]
    fn gemini_streamed_arguments_are_one_call_handed_over_at_its_end() {
        let (_, _, ready) = feed(
            accumulator(),
            &[
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "willContinue": true}}]}}]}"#,
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": "$.a[0].b", "stringValue": "x", "willContinue": true}], "willContinue": true}}]}}]}"#,
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": "$.a[0].b", "stringValue": "y"}, {"jsonPath": "$.c", "numberValue": 1.5}], "willContinue": true}}]}}]}"#,
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {}}]}}]}"#,
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "g", "willContinue": true}}]}}]}"#,
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": "$.z", "boolValue": true}], "willContinue": true}}]}}]}"#,
                r#"{"candidates": [{"finishReason": "STOP"}]}"#,
            ],
        );
        assert!(ready[..3].iter().all(Vec::is_empty), "nothing before the end");
        assert_eq!(ready[3].len(), 1);
        assert_eq!(ready[3][0].arguments_json, br#"{"a":[{"b":"xy"}],"c":1.5}"#);
        assert_eq!(codes(&ready[3][0]), ["MISSING_ID"]);
        assert_eq!(ready[6].len(), 1, "the finish ends the call still open");
        assert_eq!(ready[6][0].arguments_json, br#"{"z":true"#);
        assert_eq!(codes(&ready[6][0]), ["MISSING_ID", "TRUNCATED"]);
    }

    #[test]
    fn a_gemini_path_that_cannot_be_placed_is_one_finding_on_its_call() {
        let (_, _, ready) = feed(
            accumulator(),
            &[
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "willContinue": true}}]}}]}"#,
                r#"{"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": "$.a[1]", "numberValue": 1}, {"jsonPath": "$.b", "numberValue": 2}]}}]}}]}"#,
            ],
        );
        let call = &ready[1][0];
        assert_eq!(call.arguments_json, b"{}");
        assert_eq!(codes(call), ["INVALID_ARGUMENT_PATH", "MISSING_ID"]);
        assert_eq!(call.violations[0].path.as_deref(), Some("/a/1"));
    }
}
