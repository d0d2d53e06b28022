//! Decoders: one per wire format, each mapping its provider's events onto the accumulator.
//!
//! The rules are those of `docs/semantics.md` ("Every wire format"), the same as the reference's decoders in
//! `python/toolwire/reference/decode/`, file for file. Every provider quirk is handled in its format's file
//! (`decode/<format>.rs`, the whole of its decoder and its detection hint) and nowhere else; what they share is in
//! `shared.rs`, `output.rs` and `crate::json_view`. An event is one JSON object (a server-sent event's data, an NDJSON
//! line, or the JSON a Python object serializes to); the format is named by the caller or detected from the first
//! event that identifies one.
//!
//! The formats are the one table below (`formats!`): the enum of formats, their names, the decoder state and every
//! dispatch to a format's decoder are generated from it, so that a format is registered by one line.

mod output;
mod partial_args;
mod shared;

use crate::accumulator::Accumulator;
use crate::json_view::{ChunkError, Object, Path, object};

pub use output::OutputItem;
pub use shared::{Canonical, EventExtras, is_error};
use shared::{Event, FormatDecoder, FromBytes, Read, Sink};

/// Generates, from one line per format (its variant, its name as `format=` takes it, its decoder's file and type, and
/// what it is), the [`Format`] enum and its names, the decoder state of a stream ([`State`]), its dispatch, and
/// [`detect`], which asks each format's hint in the table's order.
macro_rules! formats {
    ($($variant:ident $name:literal $module:ident::$decoder:ident $doc:literal,)+) => {
        $(pub mod $module;)+

        /// A wire format.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Format {
            $(#[doc = $doc] $variant,)+
        }

        impl Format {
            /// Every format, in the order of the table (which is that of their names in the documentation).
            pub const ALL: &[Self] = &[$(Self::$variant,)+];

            /// The format's name, as `format=` takes it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }
        }

        /// The decoder of a stream: none until the format is known, then that format's.
        #[derive(Debug, Default)]
        enum State {
            #[default]
            Undetected,
            $($variant($module::$decoder),)+
        }

        impl State {
            fn of(format: Format) -> Self {
                match format {
                    $(Format::$variant => Self::$variant($module::$decoder::default()),)+
                }
            }

            fn format(&self) -> Option<Format> {
                match self {
                    Self::Undetected => None,
                    $(Self::$variant(_) => Some(Format::$variant),)+
                }
            }

            #[inline]
            fn read_bytes<'a>(
                &mut self,
                sink: &mut Sink<'_, '_>,
                name: Option<&[u8]>,
                data: &'a [u8],
            ) -> FromBytes<'a> {
                match self {
                    Self::Undetected => FromBytes::View,
                    $(Self::$variant(decoder) => decoder.read_bytes(sink, name, data),)+
                }
            }

            #[inline]
            fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a> {
                match self {
                    Self::Undetected => Ok(EventExtras::default()),
                    $(Self::$variant(decoder) => decoder.read(sink, event),)+
                }
            }

            fn end(&mut self, sink: &mut Sink<'_, '_>) -> Result<(), ChunkError> {
                match self {
                    Self::Undetected => Ok(()),
                    $(Self::$variant(decoder) => decoder.end(sink),)+
                }
            }

            fn usage(&self) -> Option<Vec<u8>> {
                match self {
                    Self::Undetected => None,
                    $(Self::$variant(decoder) => decoder.usage(),)+
                }
            }

            fn output(&self) -> Vec<OutputItem> {
                match self {
                    Self::Undetected => Vec::new(),
                    $(Self::$variant(decoder) => decoder.output(),)+
                }
            }
        }

        /// The format an event identifies, if any (semantics.md's detection table): the first in the table whose hint
        /// answers yes.
        pub fn detect(event: &Object<'_>, name: Option<&[u8]>) -> Option<Format> {
            let kind = event.string("type", &Path::ROOT).ok().flatten();
            let kind = kind.as_deref().or(name);
            $(if <$module::$decoder as FormatDecoder>::identifies(event, kind) {
                return Some(Format::$variant);
            })+
            None
        }
    };
}

// The wire formats: one line each, in the order their hints are asked. Its twin is the table of
// `python/toolwire/reference/decode/__init__.py`; `tests/formats/test_registry.py` holds both to `toolwire.formats`.
formats! {
    OpenAiChat "openai-chat" openai_chat::OpenAiChat "`OpenAI` Chat Completions chunks (any server's).",
    OpenAiResponses "openai-responses" openai_responses::OpenAiResponses "The `OpenAI` Responses API's events.",
    AnthropicMessages "anthropic-messages" anthropic_messages::AnthropicMessages "Anthropic Messages API events.",
    Gemini "gemini" gemini::Gemini "Gemini `streamGenerateContent` chunks.",
    Ollama "ollama" ollama::Ollama "Ollama `/api/chat` lines.",
    BedrockConverse "bedrock-converse" bedrock_converse::BedrockConverse "Amazon Bedrock `ConverseStream` events.",
}

impl Format {
    /// The format a name stands for.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|format| format.name() == name)
    }
}

/// One stream's decoder: the format, once known, and that format's state.
#[derive(Debug, Default)]
pub struct Decoder {
    state: State,
    named: bool,
    /// Events read so far, and whether one of them was the format's own (see [`Decoder::end`]).
    events: u64,
    recognised: bool,
}

impl Decoder {
    /// A decoder for `format`, or one that detects it from the stream (None).
    pub fn new(format: Option<Format>) -> Self {
        Self {
            state: format.map_or(State::Undetected, State::of),
            named: format.is_some(),
            events: 0,
            recognised: false,
        }
    }

    /// The format, once named or detected.
    pub fn format(&self) -> Option<Format> {
        self.state.format()
    }

    /// Take the format as known (the caller recognised it, as the binding does for chat chunk objects).
    pub fn assume(&mut self, format: Format) {
        if matches!(self.state, State::Undetected) {
            self.state = State::of(format);
        }
    }

    /// Whether an event of the stream was the format's own (or an error) so far.
    pub fn recognised(&self) -> bool {
        self.recognised
    }

    /// Count a chunk the caller read itself (the binding reads Chat Completions objects), and whether it was one of
    /// the format's own (`choices` or a `chat.completion` object) or an error.
    pub fn counted(&mut self, recognised: bool) {
        self.events += 1;
        self.recognised |= recognised;
    }

    /// Read one event's JSON (`name` is the server-sent event's `event:` field, when it had one).
    #[inline] // a thin counting wrapper: left out of line it cost the SSE benchmark 0.4% more instructions
    pub fn read<'a>(
        &mut self,
        accumulator: &mut Accumulator,
        name: Option<&[u8]>,
        data: &'a [u8],
        canonical: Canonical<'_>,
    ) -> Result<EventExtras<'a>, ChunkError> {
        let outcome = self.read_event(accumulator, name, data, canonical);
        // Counted once read: a malformed event raises, it is never a stream's only news.
        self.events += u64::from(outcome.is_ok());
        outcome
    }

    fn read_event<'a>(
        &mut self,
        accumulator: &mut Accumulator,
        name: Option<&[u8]>,
        data: &'a [u8],
        canonical: Canonical<'_>,
    ) -> Read<'a> {
        let mut sink = Sink { accumulator, canonical };
        match self.state.read_bytes(&mut sink, name, data) {
            FromBytes::Read(outcome) => {
                let extras = outcome?;
                if !self.recognised {
                    // Read once per stream, until the first event of the format's own: the fast path reads no object.
                    let format = self.format();
                    self.recognised =
                        object(data, &Path::ROOT).is_ok_and(|event| is_error(&event) || detect(&event, name) == format);
                }
                return Ok(extras);
            }
            FromBytes::Known => {
                // Only event types of the format are read without their object.
                self.recognised = true;
                return Ok(EventExtras::default());
            }
            FromBytes::View => {}
        }
        if std::str::from_utf8(data).is_err() {
            return Err(Path::ROOT.fail("the event is not UTF-8"));
        }
        let event = Event {
            object: object(data, &Path::ROOT)?,
            name,
            data,
        };
        if let State::Undetected = self.state {
            let Some(format) = detect(&event.object, name) else {
                self.recognised |= is_error(&event.object);
                return Ok(undetected(&event));
            };
            self.state = State::of(format);
        }
        if !self.recognised {
            self.recognised = is_error(&event.object) || detect(&event.object, name) == self.format();
        }
        self.state.read(&mut sink, &event)
    }

    /// The stream ended: what a format holds back until a call's end (Anthropic start inputs) goes in now, and a
    /// stream in which no event was the format's own (none identified it, or none was of the format named) is
    /// `UNRECOGNIZED_STREAM`: never an ok result for a stream that was not understood.
    pub fn end(&mut self, accumulator: &mut Accumulator, canonical: Canonical<'_>) -> Result<(), ChunkError> {
        self.state.end(&mut Sink { accumulator, canonical })?;
        if !self.recognised {
            let format = self.format().filter(|_| self.named);
            accumulator.unrecognized(
                &unrecognized_message(self.events, format),
                self.events,
                format.map(Format::name),
            );
        }
        Ok(())
    }

    /// The usage the format assembles from several events (see [`EventExtras::usage_held`]), as it stands.
    pub fn usage(&self) -> Option<Vec<u8>> {
        self.state.usage()
    }

    /// The assistant turn's pieces other than client calls, in order, as they stand.
    pub fn output(&self) -> Vec<OutputItem> {
        self.state.output()
    }
}

/// Why a stream was not understood, for `UNRECOGNIZED_STREAM`'s message.
#[cold]
fn unrecognized_message(events: u64, named: Option<Format>) -> String {
    match (events, named) {
        (0, _) => "the stream held no event: an empty body or source is no response of any format".to_owned(),
        (events, Some(format)) => format!(
            "none of the stream's {events} event(s) is a {} event (is the stream of another format?)",
            format.name()
        ),
        (events, None) => format!(
            "none of the stream's {events} event(s) identifies a wire format (docs/semantics.md, \"Every wire \
             format\"); name it with format= if it is one"
        ),
    }
}

/// An event before the format is known that identifies none: an error is reported, anything else means nothing.
fn undetected<'a>(event: &Event<'a, '_>) -> EventExtras<'a> {
    if let Some(error) = event.object.raw("error") {
        EventExtras::error(error)
    } else if event.object.raw("type") == Some(b"\"error\"") {
        EventExtras::error(event.data)
    } else {
        EventExtras::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accumulator::{Arguments, Config, Emit, HandedOver, Limits};
    use crate::violation::{ViolationCode, ViolationData};

    fn accumulator(emit: Emit) -> Accumulator {
        Accumulator::new(Config {
            emit,
            ..Config::default()
        })
    }

    /// The compact text of a value (the binding's is Python's `json.dumps`; `serde_json` keeps key order here).
    fn compact(raw: &[u8]) -> Result<Vec<u8>, String> {
        let value: serde_json::Value = serde_json::from_slice(raw).map_err(|error| error.to_string())?;
        Ok(value.to_string().into_bytes())
    }

    /// Feed events; the calls each one made ready, event by event.
    fn run(decoder: &mut Decoder, stream: &mut Accumulator, events: &[&str]) -> Vec<Vec<HandedOver>> {
        events
            .iter()
            .map(|event| {
                decoder
                    .read(stream, None, event.as_bytes(), &mut compact)
                    .expect("a well-formed event");
                stream.take_ready()
            })
            .collect()
    }

    fn codes(call: &HandedOver) -> Vec<&'static str> {
        call.violations
            .iter()
            .map(|violation| violation.code.as_str())
            .collect()
    }

    #[test]
    fn the_first_event_that_names_a_format_decides_it() {
        let cases: [(&str, Option<Format>); 8] = [
            (r#"{"choices": []}"#, Some(Format::OpenAiChat)),
            (r#"{"type": "response.created"}"#, Some(Format::OpenAiResponses)),
            (r#"{"type": "ping"}"#, Some(Format::AnthropicMessages)),
            (r#"{"candidates": []}"#, Some(Format::Gemini)),
            (r#"{"message": {}, "done": false}"#, Some(Format::Ollama)),
            (
                r#"{"contentBlockStop": {"contentBlockIndex": 0}}"#,
                Some(Format::BedrockConverse),
            ),
            (r#"{"usage": {}}"#, None),
            (r#"{"error": {"message": "overloaded"}}"#, None),
        ];
        for (event, format) in cases {
            let mut decoder = Decoder::new(None);
            let extras = decoder
                .read(&mut accumulator(Emit::CallEnd), None, event.as_bytes(), &mut compact)
                .expect("an event");
            assert_eq!(decoder.format(), format, "{event}");
            assert_eq!(extras.error.is_some(), event.contains("error"), "{event}");
        }
    }

    #[test]
    fn an_anthropic_call_is_handed_over_at_its_block_stop() {
        let mut decoder = Decoder::new(None);
        let mut stream = accumulator(Emit::CallEnd);
        let ready = run(
            &mut decoder,
            &mut stream,
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
        let mut decoder = Decoder::new(None);
        let mut stream = accumulator(Emit::CallEnd);
        let ready = run(
            &mut decoder,
            &mut stream,
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
    fn a_responses_done_text_wins_over_its_deltas() {
        let mut decoder = Decoder::new(Some(Format::OpenAiResponses));
        let mut stream = accumulator(Emit::CallEnd);
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
    fn gemini_calls_are_whole_and_never_merged() {
        let mut decoder = Decoder::new(None);
        let mut stream = accumulator(Emit::CallEnd);
        let ready = run(
            &mut decoder,
            &mut stream,
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
        let mut decoder = Decoder::new(None);
        let mut stream = accumulator(Emit::CallEnd);
        let ready = run(
            &mut decoder,
            &mut stream,
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
        let mut decoder = Decoder::new(None);
        let mut stream = accumulator(Emit::CallEnd);
        let ready = run(
            &mut decoder,
            &mut stream,
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

    #[test]
    fn a_bedrock_server_tool_is_output_not_a_call() {
        let mut decoder = Decoder::new(None);
        let mut stream = accumulator(Emit::CallEnd);
        let ready = run(
            &mut decoder,
            &mut stream,
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

    fn limited(limits: Limits) -> Accumulator {
        Accumulator::new(Config {
            limits,
            ..Config::default()
        })
    }

    fn left_out(stream: &Accumulator) -> Option<u64> {
        stream
            .stream_violations()
            .iter()
            .find_map(|violation| match violation.data {
                Some(ViolationData::Counted { count, .. }) if violation.code == ViolationCode::OUTPUT_TOO_LARGE => {
                    Some(count)
                }
                _ => None,
            })
    }

    #[test]
    fn anthropic_output_past_its_limit_is_counted_and_its_index_holds_nothing() {
        // A thinking start of 48 compact bytes counts 256 + 48, its delta 2 more: 306. The server call's start (66
        // compact bytes, 322 with its bookkeeping) does not fit in 400: left out, with its input, which is no call, and
        // so is everything after it.
        let mut decoder = Decoder::new(None);
        let mut stream = limited(Limits {
            max_output_bytes: 400,
            ..Limits::default()
        });
        let ready = run(
            &mut decoder,
            &mut stream,
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
        let mut decoder = Decoder::new(None);
        let mut stream = limited(Limits {
            max_calls: 1,
            ..Limits::default()
        });
        let start = |index: usize| {
            format!(
                r#"{{"type": "content_block_start", "index": {index}, "content_block": {{"type": "tool_use", "id": "t{index}", "name": "f", "input": {{"k": {index}}}}}}}"#
            )
        };
        let events: Vec<String> = (0..4).map(start).collect();
        let events: Vec<&str> = events.iter().map(String::as_str).collect();
        run(&mut decoder, &mut stream, &events);
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
        let mut stream = accumulator(Emit::CallEnd);
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
            let mut stream = accumulator(Emit::CallEnd);
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
    fn lone_surrogate_escapes_are_kept_in_every_format() {
        let mut decoder = Decoder::new(None);
        let mut stream = accumulator(Emit::CallEnd);
        let ready = run(
            &mut decoder,
            &mut stream,
            &[
                r#"{"message": {"tool_calls": [{"id": "x\ud800", "function": {"name": "f", "arguments": {}}}]}, "done": true, "done_reason": "stop"}"#,
            ],
        );
        assert_eq!(ready[0][0].id, b"x\xed\xa0\x80");
    }

    #[test]
    fn a_wrong_type_names_its_field() {
        let mut decoder = Decoder::new(Some(Format::BedrockConverse));
        let error = decoder
            .read(
                &mut accumulator(Emit::CallEnd),
                None,
                br#"{"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": 7}}}}"#,
                &mut compact,
            )
            .expect_err("an id that is no string");
        assert_eq!(error.path, "contentBlockStart.start.toolUse.toolUseId");
        assert_eq!(error.problem, "expected a string or null, got int");
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
            let mut stream = accumulator(Emit::CallEnd);
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
