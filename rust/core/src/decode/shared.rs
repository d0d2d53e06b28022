//! What every decoder shares: the interface a format's decoder implements ([`FormatDecoder`]), the event it reads
//! ([`Event`]) and the sink it writes to ([`Sink`]), what an event hands over besides calls, the caller's canonical text
//! of a value, and the two readings every format agrees on (an event's type, an error event).
//!
//! The reference's twin is `python/toolwire/reference/decode/_shared.py`.

use std::borrow::Cow;

use super::output::OutputItem;
use crate::accumulator::{Accumulator, FinishKind};
use crate::json_view::{ChunkError, Object, Path};

/// The canonical text of arguments sent as a JSON value instead of a string (the caller's rule, so that it matches
/// the text a decoded chunk would give); an error is a problem for the message.
pub type Canonical<'c> = &'c mut dyn FnMut(&[u8]) -> Result<Vec<u8>, String>;

/// One event as a decoder reads it: its object view, the server-sent event's name (its `event:` field, when it had
/// one), and its bytes (the view's source, which extras and templates borrow).
pub(crate) struct Event<'a, 'n> {
    pub(crate) object: Object<'a>,
    pub(crate) name: Option<&'n [u8]>,
    pub(crate) data: &'a [u8],
}

/// Where a decoder puts what it reads: the stream's accumulator, and the caller's canonical text of a value for
/// arguments and output sent as JSON values. The two travel together through every decoder and its helpers.
pub(crate) struct Sink<'s, 'c> {
    pub(crate) accumulator: &'s mut Accumulator,
    pub(crate) canonical: Canonical<'c>,
}

/// What reading an event gives: its extras, or the event's error (a malformed event raises).
pub(crate) type Read<'a> = Result<EventExtras<'a>, ChunkError>;

/// One wire format's decoder: the state of one stream of that format, fed its events in order.
///
/// `decode/mod.rs` dispatches to it through the table's `match`es (static dispatch: each method is inlined where the
/// table calls it, as a hand-written `match` would be).
pub(crate) trait FormatDecoder: Default {
    /// Whether `event` identifies this format (its detection hint; `kind` is the event's `type`, or else the
    /// server-sent event's name). The table asks each format in its order; the first that answers yes is the stream's.
    fn identifies(event: &Object<'_>, kind: Option<&[u8]>) -> bool;

    /// Read an event from its bytes (`name` is the server-sent event's name), before (or instead of) viewing it as an
    /// object: a format that reads its events from bytes (Chat Completions) reads it here, one that recognises an
    /// event it has seen the shape of applies it here ([`FromBytes::Known`]); any other event is viewed and handed to
    /// [`FormatDecoder::read`].
    fn read_bytes<'a>(&mut self, _sink: &mut Sink<'_, '_>, _name: Option<&[u8]>, _data: &'a [u8]) -> FromBytes<'a> {
        FromBytes::View
    }

    /// Read one event.
    fn read<'a>(&mut self, sink: &mut Sink<'_, '_>, event: &Event<'a, '_>) -> Read<'a>;

    /// The stream ended: what the format holds back until a call's end goes in now.
    fn end(&mut self, _sink: &mut Sink<'_, '_>) -> Result<(), ChunkError> {
        Ok(())
    }

    /// The usage the format assembles from several events (see [`EventExtras::usage_held`]), as it stands.
    fn usage(&self) -> Option<Vec<u8>> {
        None
    }

    /// The assistant turn's pieces other than client calls, in order, as they stand.
    fn output(&self) -> Vec<OutputItem> {
        Vec::new()
    }
}

/// What [`FormatDecoder::read_bytes`] made of an event.
pub(crate) enum FromBytes<'a> {
    /// The format reads its events from their bytes: this is the event's outcome.
    Read(Read<'a>),
    /// An event of the format's own, matched and applied without its object.
    Known,
    /// The event is to be viewed and read.
    View,
}

/// What an event hands over besides accumulator calls.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct EventExtras<'a> {
    /// A provider error payload (raw JSON), when the event was or carried one.
    pub error: Option<Cow<'a, [u8]>>,
    /// The stream's usage (raw JSON) when this event changed it.
    pub usage: Option<Cow<'a, [u8]>>,
    /// A finish of choice 0 the caller applies after reporting `error` (a failed response: the error is the cause, so the cut
    /// is reported as the error's, not as a finish's).
    pub finish: Option<(Cow<'a, [u8]>, FinishKind)>,
    /// The stream's usage is the one the format assembles from several events, as [`super::Decoder::usage`] gives it
    /// (Anthropic: the start's, updated by the latest delta's), and this event changed it.
    pub usage_held: bool,
}

impl<'a> EventExtras<'a> {
    /// An event that is (or carries) a provider error, with its payload.
    pub(crate) fn error(payload: &'a [u8]) -> Self {
        Self {
            error: Some(Cow::Borrowed(payload)),
            ..Self::default()
        }
    }

    /// An event that changed the usage the format assembles ([`super::Decoder::usage`]).
    pub(crate) fn usage_held() -> Self {
        Self {
            usage_held: true,
            ..Self::default()
        }
    }
}

/// An event's `type`, or the server-sent event's name when its data has none (Anthropic and Responses send both).
pub(crate) fn event_type<'e>(event: &Event<'e, 'e>) -> Result<Option<Cow<'e, [u8]>>, ChunkError> {
    Ok(event
        .object
        .string("type", &Path::ROOT)?
        .or_else(|| event.name.map(Cow::Borrowed)))
}

/// Whether an event is an error, in any format: `error` non-null, `type` `"error"`, `object` `"error"` ([`error_object`])
/// or a Bedrock exception (a member named `...Exception`, non-null).
pub fn is_error(event: &Object<'_>) -> bool {
    event.has("error")
        || event.raw("type") == Some(b"\"error\"")
        || error_object(event)
        || event
            .members()
            .iter()
            .any(|(key, value)| key.ends_with(b"Exception") && *value != b"null")
}

/// Whether an event is vLLM's error object, `{"object": "error", "message", "type", "param", "code"}` (its
/// `ErrorResponse`), sent whole as a chunk by servers built on vLLM's protocol where vLLM itself wraps it in `error`:
/// the whole event is the error's payload.
pub(crate) fn error_object(event: &Object<'_>) -> bool {
    event
        .string("object", &Path::ROOT)
        .ok()
        .flatten()
        .is_some_and(|kind| *kind == *b"error")
}
