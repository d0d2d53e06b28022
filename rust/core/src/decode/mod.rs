//! Decoders: one per wire format, each mapping its provider's events onto the accumulator.
//!
//! The rules are those of `docs/semantics.md` ("Every wire format"), the same as the reference's decoders in
//! `python/toolwire/reference/decode/`, file for file. Every provider quirk is handled in its format's file
//! (`decode/<format>.rs`, the whole of its decoder and its detection hint) and nowhere else; what they share is in
//! `shared.rs`, `output.rs` and `crate::json_view`. An event is one JSON object (a server-sent event's data, an NDJSON
//! line, or the JSON a Python object serializes to); the format is named by the caller or detected from the first
//! event that identifies one (a chunk of empty `choices` identifies none yet: [`openai_completions::undecided`]).
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
use shared::{Event, FormatDecoder, FromBytes, Read, Sink, error_object};

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
// Completions come before chat: a completions chunk has `choices` too, and chat's hint takes any `choices`.
formats! {
    OpenAiCompletions "openai-completions" openai_completions::OpenAiCompletions "Legacy `/v1/completions` chunks: text only.",
    OpenAiChat "openai-chat" openai_chat::OpenAiChat "`OpenAI` Chat Completions chunks (any server's).",
    OpenAiResponses "openai-responses" openai_responses::OpenAiResponses "The `OpenAI` Responses API's events.",
    AnthropicMessages "anthropic-messages" anthropic_messages::AnthropicMessages "Anthropic Messages API events.",
    Gemini "gemini" gemini::Gemini "Gemini `streamGenerateContent` chunks.",
    Ollama "ollama" ollama::Ollama "Ollama `/api/chat` and `/api/generate` lines.",
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
    /// A chunk that decides nothing between completions and chat came before the format was known (see
    /// [`openai_completions::undecided`]): a stream of nothing else is a chat stream, as it was before completions.
    undecided: bool,
}

impl Decoder {
    /// A decoder for `format`, or one that detects it from the stream (None).
    pub fn new(format: Option<Format>) -> Self {
        Self {
            state: format.map_or(State::Undetected, State::of),
            named: format.is_some(),
            events: 0,
            recognised: false,
            undecided: false,
        }
    }

    /// The format, once named or detected.
    pub fn format(&self) -> Option<Format> {
        self.state.format()
    }

    /// Whether the caller named the format (`format=`) rather than leaving it to be detected.
    pub fn is_named(&self) -> bool {
        self.named
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
            if openai_completions::undecided(&event.object) {
                self.undecided = true;
                self.recognised |= is_error(&event.object);
                return Ok(undecided(&event));
            }
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
        if self.undecided && matches!(self.state, State::Undetected) {
            // Only chunks of empty `choices` came: an OpenAI stream, chat's by the table's rows (as it always was).
            self.state = State::of(Format::OpenAiChat);
            self.recognised = true;
        }
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
    } else if event.object.raw("type") == Some(b"\"error\"") || error_object(&event.object) {
        EventExtras::error(event.data)
    } else {
        EventExtras::default()
    }
}

/// A chunk that decides nothing between completions and chat, read before the format is known as both read it: its
/// error, else its usage (it has no choice to read).
fn undecided<'a>(event: &Event<'a, '_>) -> EventExtras<'a> {
    match event.object.raw("error") {
        Some(error) => EventExtras::error(error),
        None => EventExtras {
            usage: event.object.raw("usage").map(std::borrow::Cow::Borrowed),
            ..EventExtras::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{accumulator, compact};
    use super::*;

    #[test]
    fn the_first_event_that_names_a_format_decides_it() {
        let cases: [(&str, Option<Format>); 11] = [
            (
                r#"{"object": "text_completion", "choices": []}"#,
                Some(Format::OpenAiCompletions),
            ),
            (r#"{"choices": [{}]}"#, Some(Format::OpenAiChat)),
            (r#"{"choices": []}"#, None),
            (r#"{"type": "response.created"}"#, Some(Format::OpenAiResponses)),
            (r#"{"type": "ping"}"#, Some(Format::AnthropicMessages)),
            (r#"{"candidates": []}"#, Some(Format::Gemini)),
            (r#"{"message": {}, "done": false}"#, Some(Format::Ollama)),
            (r#"{"response": "", "done": false}"#, Some(Format::Ollama)),
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
                .read(&mut accumulator(), None, event.as_bytes(), &mut compact)
                .expect("an event");
            assert_eq!(decoder.format(), format, "{event}");
            assert_eq!(extras.error.is_some(), event.contains("error"), "{event}");
        }
    }
}

/// What the decoders' unit tests share: an accumulator, the caller's canonical text, and events fed through the
/// public [`Decoder`] (detection included), so that each format's tests, at the bottom of its file, read its events as
/// a stream of that format is read.
#[cfg(test)]
mod test_support {
    use super::Decoder;
    use crate::accumulator::{Accumulator, Config, HandedOver, Limits};
    use crate::violation::{ViolationCode, ViolationData};

    /// An accumulator with the default configuration (calls handed over at their end).
    pub(super) fn accumulator() -> Accumulator {
        Accumulator::new(Config::default())
    }

    /// An accumulator bounded by `limits`.
    pub(super) fn limited(limits: Limits) -> Accumulator {
        Accumulator::new(Config {
            limits,
            ..Config::default()
        })
    }

    /// The compact text of a value, as the binding's `json.dumps` writes these tests' ASCII values: key order and
    /// number text kept (a `serde_json::Value` would need `preserve_order`, a dev-only feature that makes `cargo test`
    /// build `serde_json` and every crate above it a second time).
    pub(super) fn compact(raw: &[u8]) -> Result<Vec<u8>, String> {
        let text = std::str::from_utf8(raw).map_err(|error| error.to_string())?;
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|error| error.to_string())?;
        Ok(crate::dialects::compact_text(text).into_bytes())
    }

    /// Feed events; the calls each one made ready, event by event.
    pub(super) fn run(decoder: &mut Decoder, stream: &mut Accumulator, events: &[&str]) -> Vec<Vec<HandedOver>> {
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

    /// Feed events to a decoder that detects their format: the decoder, the stream, and the calls each event made ready.
    pub(super) fn feed(mut stream: Accumulator, events: &[&str]) -> (Decoder, Accumulator, Vec<Vec<HandedOver>>) {
        let mut decoder = Decoder::new(None);
        let ready = run(&mut decoder, &mut stream, events);
        (decoder, stream, ready)
    }

    /// The codes of a call's violations, in order.
    pub(super) fn codes(call: &HandedOver) -> Vec<&'static str> {
        call.violations
            .iter()
            .map(|violation| violation.code.as_str())
            .collect()
    }

    /// How many bytes of output `OUTPUT_TOO_LARGE` says were left out, if it was reported.
    pub(super) fn left_out(stream: &Accumulator) -> Option<u64> {
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
}
