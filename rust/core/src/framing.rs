//! Raw bodies: which framing a body uses, told from its first bytes, and the events it frames.
//!
//! A provider's streamed body is one of four framings (`docs/semantics.md`, "Raw bodies"): server-sent events
//! ([`crate::sse`]), JSON lines or one JSON array (Ollama's NDJSON, Gemini's `streamGenerateContent` without
//! `alt=sse`: `json_seq`), or AWS event-stream messages (Bedrock `ConverseStream` over HTTP: `aws_frames`). The
//! [`Framer`] tells which from the body's opening, after a UTF-8 BOM and ASCII whitespace: `{` is JSON lines, `[` a
//! JSON array, a comment or a field name (`data`, `event`, `id`, `retry`) followed by `:` or a line end server-sent
//! events, and twelve bytes forming an AWS prelude (its CRC32 and sane lengths) AWS messages. Anything else is
//! refused, naming its first bytes: read as an event stream it would have no events, and an empty result is a lie.
//!
//! A source's items are reads (any split, line ends kept) or lines (`iter_lines()`: line ends dropped). Which one
//! only matters to server-sent events, and is told from the stream itself: an item holding a line end says reads,
//! an empty item after a non-empty one says lines (the blank line that ends every event), and until then the items
//! are held. The items of a body of any other framing are reads: JSON's line ends are whitespace, an AWS body binary.
//!
//! Memory is bounded by the limit (`Limits.max_event_bytes`) in every framing, as the bytes arrive: an event, a JSON
//! element, an AWS message or items held past it are a [`FramingError::TooLarge`], never a growing buffer. Once a
//! body fails to frame it stays failed: every later read and the end give the same error.

use std::fmt::{self, Write as _};

use crate::aws_frames::{self, AwsFrames};
use crate::json_seq::JsonSeq;
use crate::sse::SseFramer;

/// One framed event, borrowed from the framer until the next call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<'a> {
    /// A server-sent event's `event` field; `b"message"` when it named none, and for every other framing.
    pub kind: &'a [u8],
    /// The event's JSON: a server-sent event's `data` lines joined with LF, a JSON element, or an AWS message as the
    /// AWS SDK yields it (`{"<:event-type>": payload}`).
    pub data: &'a [u8],
}

/// The framings of raw bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Server-sent events (`text/event-stream`).
    EventStream,
    /// JSON values one after the other, whitespace between (NDJSON, one per line).
    JsonLines,
    /// One JSON array whose elements are the events.
    JsonArray,
    /// AWS event-stream messages (`application/vnd.amazon.eventstream`).
    AwsEventStream,
}

impl Framing {
    /// The framing's name: `"sse"`, `"json-lines"`, `"json-array"` or `"aws-event-stream"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::EventStream => "sse",
            Self::JsonLines => "json-lines",
            Self::JsonArray => "json-array",
            Self::AwsEventStream => "aws-event-stream",
        }
    }
}

/// Why a raw body could not be framed. The messages are the reference's, word for word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FramingError {
    /// An event, or what is held towards one, grew past the limit.
    TooLarge {
        /// What grew: `"a server-sent event"`, `"a JSON element"`...
        what: &'static str,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The body opens with bytes of no framing toolwire reads.
    Unrecognized {
        /// Its first bytes (at most 32, after a BOM and whitespace).
        opening: Vec<u8>,
    },
    /// A JSON body has something other than whitespace between its values (or, in an array, than `,` and `]`).
    Json(String),
    /// The body ended inside its JSON array: no closing `]`.
    ArrayNotClosed {
        /// The elements read before the end.
        elements: u64,
    },
    /// An AWS event-stream message that cannot be read (CRC, lengths, headers, payload), or a body that ends inside one.
    Aws {
        /// The message's number in the body, from 0.
        message: u64,
        /// What is wrong with it.
        problem: String,
    },
}

impl fmt::Display for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge { what, limit } => write!(f, "{what} is larger than {limit} bytes (Limits.max_event_bytes)"),
            Self::Unrecognized { opening } => write!(
                f,
                "the body is none of the framings toolwire reads (server-sent events, JSON lines, a JSON array, AWS \
                 event-stream messages); it opens with {}",
                shown(opening)
            ),
            Self::Json(problem) => f.write_str(problem),
            Self::ArrayNotClosed { elements } => write!(
                f,
                "the body ended inside its JSON array, after {elements} element(s) and before the closing `]`: it was cut"
            ),
            Self::Aws { message, problem } => write!(f, "AWS event-stream message {message}: {problem}"),
        }
    }
}

impl std::error::Error for FramingError {}

/// Bytes as a Python `bytes` literal shows them (`b"<html>\n"`), for messages.
pub(crate) fn shown(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() + 3);
    text.push_str("b\"");
    for &byte in bytes {
        match byte {
            b'"' => text.push_str("\\\""),
            b'\\' => text.push_str("\\\\"),
            b'\n' => text.push_str("\\n"),
            b'\r' => text.push_str("\\r"),
            b'\t' => text.push_str("\\t"),
            0x20..=0x7E => text.push(char::from(byte)),
            _ => {
                let _ = write!(text, "\\x{byte:02x}");
            }
        }
    }
    text.push('"');
    text
}

/// Why a framer stopped: its own error, or the error of the callback it handed an event to.
#[derive(Debug)]
pub(crate) enum Stop<E> {
    Framing(FramingError),
    Event(E),
}

impl<E> From<FramingError> for Stop<E> {
    fn from(error: FramingError) -> Self {
        Self::Framing(error)
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";
/// The bytes of an AWS prelude: total length, headers length, their CRC32.
pub(crate) const PRELUDE: usize = 12;
/// The first bytes an unrecognised body is named by.
const SHOWN: usize = 32;
const FIELDS: [&[u8]; 4] = [b"data", b"event", b"id", b"retry"];

/// The framer of one raw body, fed reads (split anywhere) or a source's items (reads or lines).
#[derive(Debug)]
pub struct Framer {
    limit: usize,
    state: State,
    joining: Joining,
}

#[derive(Debug)]
enum State {
    Opening(Opening),
    Sse(SseFramer),
    Json(JsonSeq),
    Aws(AwsFrames),
    Failed(FramingError),
}

/// How a source's items join into the body.
#[derive(Debug)]
enum Joining {
    /// Not told yet: the items so far, none with a line end, none empty after a non-empty one, where each began, and
    /// the body's first byte that is not whitespace, once one came.
    Undecided {
        held: Vec<u8>,
        starts: Vec<usize>,
        opening: Option<u8>,
    },
    Reads,
    Lines,
}

impl Framer {
    /// A framer refusing events (and anything held towards one) longer than `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            state: State::Opening(Opening::default()),
            joining: Joining::Undecided {
                held: Vec::new(),
                starts: Vec::new(),
                opening: None,
            },
        }
    }

    /// The body's framing, once its opening told it.
    pub fn framing(&self) -> Option<Framing> {
        match &self.state {
            State::Opening(_) | State::Failed(_) => None,
            State::Sse(_) => Some(Framing::EventStream),
            State::Json(json) => Some(if json.is_array() {
                Framing::JsonArray
            } else {
                Framing::JsonLines
            }),
            State::Aws(_) => Some(Framing::AwsEventStream),
        }
    }

    /// Read the next bytes of the body, calling `on_event` for each event they complete, in order.
    pub fn feed<E: From<FramingError>>(
        &mut self,
        read: &[u8],
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let read = match &mut self.state {
            State::Failed(error) => return Err(error.clone().into()),
            State::Opening(opening) => match opening.read(read) {
                Told::Pending => return Ok(()),
                Told::Unrecognized => {
                    let opening = opening.take();
                    return Err(self.fail(FramingError::Unrecognized { opening }));
                }
                Told::Framing(framing, opened) => {
                    let held = opening.take();
                    self.state = match framing {
                        Framing::EventStream => State::Sse(SseFramer::new(self.limit)),
                        Framing::JsonLines => State::Json(JsonSeq::new(self.limit, false)),
                        Framing::JsonArray => State::Json(JsonSeq::new(self.limit, true)),
                        Framing::AwsEventStream => State::Aws(AwsFrames::new(self.limit)),
                    };
                    match opened {
                        Opened::InRead(body) => body,
                        Opened::Held(rest) => {
                            self.framed(&held, on_event)?;
                            rest
                        }
                    }
                }
            },
            State::Sse(_) | State::Json(_) | State::Aws(_) => read,
        };
        self.framed(read, on_event)
    }

    /// Read one item of a raw source: a read or a line, as the stream tells (see the module's documentation).
    pub fn feed_item<E: From<FramingError>>(
        &mut self,
        item: &[u8],
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if let State::Failed(error) = &self.state {
            return Err(error.clone().into());
        }
        let Joining::Undecided { held, starts, opening } = &mut self.joining else {
            self.feed(item, on_event)?;
            if matches!(self.joining, Joining::Lines) {
                self.feed(b"\n", on_event)?;
            }
            return Ok(());
        };
        if item.is_empty() {
            if held.is_empty() {
                return Ok(()); // an empty item before anything: no evidence either way, and nothing to frame
            }
            let (held, starts) = (std::mem::take(held), std::mem::take(starts));
            self.joining = Joining::Lines;
            self.replay_lines(&held, &starts, on_event)?;
            return self.feed(b"\n", on_event);
        }
        if opening.is_none() {
            let content = if held.is_empty() {
                item.strip_prefix(BOM).unwrap_or(item)
            } else {
                item
            };
            *opening = content.iter().copied().find(|byte| !is_space(*byte));
        }
        // Only an event stream needs telling: the items of any other framing (by its opening) join as reads.
        let may_be_lines = opening.is_none_or(|byte| matches!(byte, b'd' | b'e' | b'i' | b'r' | b':'));
        if !may_be_lines || memchr::memchr2(b'\n', b'\r', item).is_some() {
            let held = std::mem::take(held);
            self.joining = Joining::Reads;
            self.feed(&held, on_event)?;
            return self.feed(item, on_event);
        }
        // Each held item costs its bytes and the word that says where it began.
        let cost = held.len() + item.len() + (starts.len() + 1) * size_of::<usize>();
        if cost > self.limit {
            return Err(self.fail(FramingError::TooLarge {
                what: "the stream's opening run of items without a line end",
                limit: self.limit,
            }));
        }
        starts.push(held.len());
        held.extend_from_slice(item);
        Ok(())
    }

    /// End the body: items still held are lines (a stream of lines and no blank one), an event pending is
    /// dispatched, and a body cut inside a JSON array or an AWS message fails.
    pub fn finish<E: From<FramingError>>(
        &mut self,
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if let Joining::Undecided { held, starts, .. } = &mut self.joining {
            let (held, starts) = (std::mem::take(held), std::mem::take(starts));
            self.joining = Joining::Lines;
            self.replay_lines(&held, &starts, on_event)?;
        }
        let outcome = match &mut self.state {
            State::Failed(error) => return Err(error.clone().into()),
            State::Opening(opening) => {
                if opening.ends_unframed() {
                    let opening = opening.take();
                    return Err(self.fail(FramingError::Unrecognized { opening }));
                }
                return Ok(());
            }
            State::Sse(sse) => sse.finish(on_event),
            State::Json(json) => json.finish(on_event),
            State::Aws(aws) => aws.finish(),
        };
        self.stopped(outcome)
    }

    fn replay_lines<E: From<FramingError>>(
        &mut self,
        held: &[u8],
        starts: &[usize],
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let ends = starts.iter().skip(1).copied().chain(std::iter::once(held.len()));
        for (start, end) in starts.iter().copied().zip(ends) {
            self.feed(held.get(start..end).unwrap_or_default(), on_event)?;
            self.feed(b"\n", on_event)?;
        }
        Ok(())
    }

    fn framed<E: From<FramingError>>(
        &mut self,
        read: &[u8],
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let outcome = match &mut self.state {
            State::Sse(sse) => sse.feed(read, on_event),
            State::Json(json) => json.feed(read, on_event),
            State::Aws(aws) => aws.feed(read, on_event),
            State::Opening(_) | State::Failed(_) => Ok(()),
        };
        self.stopped(outcome)
    }

    fn stopped<E: From<FramingError>>(&mut self, outcome: Result<(), Stop<E>>) -> Result<(), E> {
        match outcome {
            Ok(()) => Ok(()),
            Err(Stop::Event(error)) => Err(error),
            Err(Stop::Framing(error)) => Err(self.fail(error)),
        }
    }

    #[cold]
    fn fail<E: From<FramingError>>(&mut self, error: FramingError) -> E {
        self.state = State::Failed(error.clone());
        error.into()
    }
}

/// A whole body as the [`Framer`] frames it: what recordings are written from, so that a recording is kept in the
/// framing the engine reads it in, and its events are rewritten where they lie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FramedBody {
    /// The framing the body's opening told; `None` when it told none (`error` then says so) or ended first (an empty
    /// body, whitespace, a field name alone).
    pub framing: Option<Framing>,
    /// Each event's data, in order, up to where the framing broke.
    pub events: Vec<Vec<u8>>,
    /// Why the body stopped framing; `None` when all of it framed.
    pub error: Option<FramingError>,
}

/// The framing a body's opening tells, by the [`Framer`]'s own rule: `None` when it tells none or the body ends first.
pub fn framing_of(body: &[u8]) -> Option<Framing> {
    match Opening::default().read(body) {
        Told::Framing(framing, _) => Some(framing),
        Told::Pending | Told::Unrecognized => None,
    }
}

/// Frame a whole body, refusing events longer than `limit` bytes.
pub fn frame_body(body: &[u8], limit: usize) -> FramedBody {
    // The framing is told apart, because a framer that fails forgets it.
    let framing = framing_of(body);
    let mut events = Vec::new();
    let mut framer = Framer::new(limit);
    let mut collect = |event: Event<'_>| -> Result<(), FramingError> {
        events.push(event.data.to_vec());
        Ok(())
    };
    let error = framer
        .feed(body, &mut collect)
        .and_then(|()| framer.finish(&mut collect))
        .err();
    FramedBody { framing, events, error }
}

/// JSON's whitespace, which every framing allows before the body.
pub(crate) const fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The body's opening: a BOM and whitespace skipped, then the first bytes, held until they tell the framing.
#[derive(Debug, Default)]
struct Opening {
    /// BOM bytes matched so far; `BOM.len()` once the BOM is settled (present or not).
    bom: usize,
    held: Vec<u8>,
    /// The opening already told no framing: bytes are collected (up to `SHOWN`) to name it.
    refused: bool,
}

enum Told<'b> {
    Pending,
    Framing(Framing, Opened<'b>),
    Unrecognized,
}

/// Where the body goes on from once its opening told the framing.
enum Opened<'b> {
    /// The opening is all in this read: the body from its first byte, held bytes included. Framing the read whole lets
    /// a first event that fits in it be handed over from the read itself: framed as held bytes and then the rest, it
    /// spanned two feeds, and the framer's line buffers kept its size for the rest of the stream.
    InRead(&'b [u8]),
    /// The opening began in an earlier read: the held bytes are framed first, then the rest of this read.
    Held(&'b [u8]),
}

impl Opening {
    fn read<'b>(&mut self, mut bytes: &'b [u8]) -> Told<'b> {
        while self.bom < BOM.len() {
            let Some((&byte, rest)) = bytes.split_first() else {
                return Told::Pending;
            };
            if BOM.get(self.bom) == Some(&byte) {
                self.bom += 1;
                bytes = rest;
            } else {
                // A broken BOM: its bytes are the body's first.
                self.held.extend_from_slice(BOM.get(..self.bom).unwrap_or_default());
                self.bom = BOM.len();
            }
        }
        if self.held.is_empty() {
            let start = bytes.iter().position(|byte| !is_space(*byte)).unwrap_or(bytes.len());
            bytes = bytes.get(start..).unwrap_or_default();
        }
        if self.refused {
            return self.collect(bytes);
        }
        let in_read = self.held.is_empty();
        for (at, &byte) in bytes.iter().enumerate() {
            self.held.push(byte);
            match tell(&self.held) {
                Verdict::Need => {}
                Verdict::Is(framing) if in_read => {
                    self.held.clear();
                    return Told::Framing(framing, Opened::InRead(bytes));
                }
                Verdict::Is(framing) => {
                    return Told::Framing(framing, Opened::Held(bytes.get(at + 1..).unwrap_or_default()));
                }
                Verdict::Not => {
                    self.refused = true;
                    return self.collect(bytes.get(at + 1..).unwrap_or_default());
                }
            }
        }
        Told::Pending
    }

    fn collect<'b>(&mut self, bytes: &'b [u8]) -> Told<'b> {
        let room = SHOWN.saturating_sub(self.held.len());
        self.held.extend_from_slice(bytes.get(..room).unwrap_or(bytes));
        if self.held.len() < SHOWN {
            Told::Pending
        } else {
            Told::Unrecognized
        }
    }

    /// Whether a body that ended in its opening is refused: it is not empty and not one field name alone (an event
    /// stream with an empty last line, so without events).
    fn ends_unframed(&self) -> bool {
        self.refused || !(self.held.is_empty() || FIELDS.contains(&self.held.as_slice()))
    }

    fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }
}

enum Verdict {
    Need,
    Is(Framing),
    Not,
}

/// What the first bytes of a body (after a BOM and whitespace) say its framing is.
fn tell(opening: &[u8]) -> Verdict {
    match opening.first() {
        None => Verdict::Need,
        Some(b'{') => Verdict::Is(Framing::JsonLines),
        Some(b'[') => Verdict::Is(Framing::JsonArray),
        Some(b':') => Verdict::Is(Framing::EventStream),
        Some(byte) if byte.is_ascii_alphabetic() => {
            for field in FIELDS {
                match opening.get(field.len()) {
                    None if field.starts_with(opening) => return Verdict::Need,
                    Some(b':' | b'\n' | b'\r') if opening.starts_with(field) => {
                        return Verdict::Is(Framing::EventStream);
                    }
                    _ => {}
                }
            }
            Verdict::Not
        }
        Some(_) => match opening.get(..PRELUDE) {
            None => Verdict::Need,
            Some(prelude) if aws_frames::prelude_fits(prelude) => Verdict::Is(Framing::AwsEventStream),
            Some(_) => Verdict::Not,
        },
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every event (kind, data) of `pieces`, fed as reads or as items, or the framing error.
    pub(crate) fn frame(pieces: &[&[u8]], items: bool, limit: usize) -> Result<Vec<(String, String)>, FramingError> {
        let mut framer = Framer::new(limit);
        let mut found = Vec::new();
        let mut collect = |event: Event<'_>| -> Result<(), FramingError> {
            found.push((
                String::from_utf8_lossy(event.kind).into_owned(),
                String::from_utf8_lossy(event.data).into_owned(),
            ));
            Ok(())
        };
        for piece in pieces {
            if items {
                framer.feed_item(piece, &mut collect)?;
            } else {
                framer.feed(piece, &mut collect)?;
            }
        }
        framer.finish(&mut collect)?;
        Ok(found)
    }

    /// The data of every event of `reads`, or the framing error (for the framings whose events have no kind).
    pub(crate) fn data_of(reads: &[&[u8]], limit: usize) -> Result<Vec<String>, FramingError> {
        Ok(frame(reads, false, limit)?.into_iter().map(|(_, data)| data).collect())
    }

    fn reads(body: &[u8]) -> Result<Vec<(String, String)>, FramingError> {
        frame(&[body], false, 1 << 20)
    }

    fn message(data: &str) -> (String, String) {
        ("message".to_owned(), data.to_owned())
    }

    #[test]
    fn the_opening_tells_the_framing() {
        assert_eq!(reads(b"\xEF\xBB\xBF \r\n data: {}\n\n"), Ok(vec![message("{}")]));
        assert_eq!(reads(b": ok\n\nretry: 5\n\n"), Ok(vec![]));
        assert_eq!(
            reads(b"\n{\"a\": 1}\n{\"b\": 2}"),
            Ok(vec![message("{\"a\": 1}"), message("{\"b\": 2}")])
        );
        assert_eq!(
            reads(b" [{\"a\": 1}\n,\n{\"b\": 2}]\n"),
            Ok(vec![message("{\"a\": 1}"), message("{\"b\": 2}")])
        );
        assert_eq!(reads(b""), Ok(vec![]), "an empty body frames no event");
        assert_eq!(reads(b"\xEF\xBB\xBF \n"), Ok(vec![]));
        assert_eq!(
            reads(b"data"),
            Ok(vec![]),
            "a field alone is an event stream without events"
        );
        let mut ignore = |_: Event<'_>| -> Result<(), FramingError> { Ok(()) };
        for (opening, framing) in [
            (&b" \n:"[..], Framing::EventStream),
            (b"data:", Framing::EventStream),
            (b"\xEF\xBB\xBF{", Framing::JsonLines),
            (b"\r\n[", Framing::JsonArray),
            (b"\0\0\0\x10\0\0\0\0\x05\xC2\x48\xEB", Framing::AwsEventStream),
        ] {
            let mut framer = Framer::new(1 << 20);
            for byte in opening.chunks(1) {
                assert_eq!(framer.framing(), None, "told by the last byte of {}", shown(opening));
                framer.feed(byte, &mut ignore).expect("an opening");
            }
            assert_eq!(framer.framing(), Some(framing), "{}", shown(opening));
        }
    }

    #[test]
    fn any_other_opening_is_refused_by_its_first_bytes() {
        let html = b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>";
        let refused = FramingError::Unrecognized {
            opening: html.get(..32).unwrap_or_default().to_vec(),
        };
        assert_eq!(reads(html), Err(refused.clone()));
        let bytes: Vec<&[u8]> = html.chunks(1).collect();
        assert_eq!(
            frame(&bytes, false, 1 << 20),
            Err(refused),
            "the same bytes named, whatever the split"
        );
        for body in [
            &b"date: x\n\n"[..],
            b"Data: x\n",
            b"data x\n",
            b"da",
            b"\xEF\xBBdata: x\n\n",
            b"\x00\x00\x00",
        ] {
            assert!(
                matches!(reads(body), Err(FramingError::Unrecognized { .. })),
                "{}",
                shown(body)
            );
        }
        let error = reads(b"Internal Server Error").expect_err("refused");
        assert_eq!(
            error.to_string(),
            "the body is none of the framings toolwire reads (server-sent events, JSON lines, a JSON array, AWS \
             event-stream messages); it opens with b\"Internal Server Error\""
        );
    }

    #[test]
    fn a_whole_body_keeps_its_framing_and_the_events_before_a_break() {
        let whole = frame_body(b" [{\"a\": 1}\n,\n{\"b\": 2}]\n", 1 << 20);
        assert_eq!(whole.framing, Some(Framing::JsonArray));
        assert_eq!(whole.events, vec![b"{\"a\": 1}".to_vec(), b"{\"b\": 2}".to_vec()]);
        assert_eq!(whole.error, None);
        let cut = frame_body(b"[{\"a\": 1},{\"b\"", 1 << 20);
        assert_eq!(
            (cut.framing, cut.events, cut.error),
            (
                Some(Framing::JsonArray),
                vec![b"{\"a\": 1}".to_vec()],
                Some(FramingError::ArrayNotClosed { elements: 1 })
            ),
            "the framing is kept when the body breaks"
        );
        let html = frame_body(b"<html>", 1 << 20);
        assert_eq!(html.framing, None);
        assert!(matches!(html.error, Some(FramingError::Unrecognized { .. })));
        for empty in [&b""[..], b" \r\n", b"data"] {
            assert_eq!(
                frame_body(empty, 1 << 20),
                FramedBody {
                    framing: None,
                    events: vec![],
                    error: None
                }
            );
        }
        assert_eq!(
            frame_body(b"data: {}\n\n", 1 << 20).framing.map(Framing::as_str),
            Some("sse")
        );
        assert_eq!(
            frame_body(b"{}", 1 << 20).framing.map(Framing::as_str),
            Some("json-lines")
        );
        assert_eq!(framing_of(b"\xEF\xBB\xBF\n[{"), Some(Framing::JsonArray));
        assert_eq!(
            framing_of(b"\0\0\0\x10\0\0\0\0\x05\xC2\x48\xEB"),
            Some(Framing::AwsEventStream)
        );
        assert_eq!(framing_of(b"<html>"), None);
        assert_eq!(framing_of(b"dat"), None, "not told yet");
    }

    #[test]
    fn a_first_event_within_the_read_that_told_the_framing_is_handed_over_from_that_read() {
        for body in [
            &b"\xEF\xBB\xBF  data: {\"a\":1}\n\n"[..],
            b"\n{\"a\":1}\n",
            b"[{\"a\":1}]",
        ] {
            let read = body.to_vec();
            let span = read.as_ptr_range();
            let mut borrowed = Vec::new();
            let mut framer = Framer::new(1 << 20);
            let mut collect = |event: Event<'_>| -> Result<(), FramingError> {
                let data = event.data.as_ptr_range();
                borrowed.push((
                    String::from_utf8_lossy(event.data).into_owned(),
                    span.contains(&data.start),
                ));
                Ok(())
            };
            framer.feed(&read, &mut collect).unwrap_or_default();
            framer.finish(&mut collect).unwrap_or_default();
            assert_eq!(borrowed, [("{\"a\":1}".to_owned(), true)], "{}", shown(body));
        }
        // An opening that spans reads is framed from the bytes it held, then the rest.
        for cut in 1..10 {
            let body = b"data: {\"a\":1}\n\ndata: 2\n\n";
            let (first, rest) = body.split_at(cut);
            assert_eq!(
                data_of(&[first, rest], 1 << 20),
                Ok(vec!["{\"a\":1}".to_owned(), "2".to_owned()])
            );
        }
    }

    #[test]
    fn a_failed_body_stays_failed() {
        let mut framer = Framer::new(1 << 20);
        let mut ignore = |_: Event<'_>| -> Result<(), FramingError> { Ok(()) };
        let error = framer
            .feed(b"<html>", &mut ignore)
            .and_then(|()| framer.finish(&mut ignore));
        assert!(matches!(error, Err(FramingError::Unrecognized { .. })));
        assert_eq!(framer.feed(b"data: {}\n\n", &mut ignore), error);
        assert_eq!(framer.finish(&mut ignore), error);
    }

    #[test]
    fn items_join_as_reads_or_lines_as_the_stream_tells() {
        let lines: [&[u8]; 6] = [b"event: a", b"data: {\"x\":", b"data: 1}", b"", b"data: {}", b""];
        let events = vec![("a".to_owned(), "{\"x\":\n1}".to_owned()), message("{}")];
        assert_eq!(
            frame(&lines, true, 1 << 20),
            Ok(events.clone()),
            "an empty item says lines"
        );
        assert_eq!(
            frame(
                &[b"", b"event: a\ndata: {\"x\":", b"\ndata: 1}\n\n", b"data: {}\n\n"],
                true,
                1 << 20
            ),
            Ok(events),
            "a line end says reads; an empty item before anything says nothing"
        );
        let lines: [&[u8]; 3] = [b"event: b", b"data: {\"y\": ", b"data: 2}"];
        let event = ("b".to_owned(), "{\"y\": \n2}".to_owned());
        assert_eq!(frame(&lines, true, 1 << 20), Ok(vec![event]), "held to the end: lines");
        // A body of another framing joins as reads at once: a `}{` split inside a string is no line boundary.
        let ndjson: [&[u8]; 2] = [b"{\"message\": {\"content\": \"a}", b"{b\"}, \"done\": false}"];
        assert_eq!(
            frame(&ndjson, true, 1 << 20),
            Ok(vec![message("{\"message\": {\"content\": \"a}{b\"}, \"done\": false}")])
        );
        let lines_of_array: [&[u8]; 4] = [b"[{", b"  \"a\": 1", b"}", b"]"];
        assert_eq!(frame(&lines_of_array, true, 1 << 20), Ok(vec![message("{  \"a\": 1}")]));
    }

    #[test]
    fn items_held_for_want_of_a_line_end_are_bounded() {
        let mut framer = Framer::new(1000);
        let mut ignore = |_: Event<'_>| -> Result<(), FramingError> { Ok(()) };
        let mut outcome = framer.feed_item(b"data: ", &mut ignore);
        let mut fed = 6;
        while outcome.is_ok() && fed < 10_000 {
            outcome = framer.feed_item(b"x", &mut ignore);
            fed += 1;
        }
        assert!(
            fed < 200,
            "each one-byte item costs a word of bookkeeping too: refused after {fed} bytes"
        );
        assert_eq!(
            outcome,
            Err(FramingError::TooLarge {
                what: "the stream's opening run of items without a line end",
                limit: 1000
            })
        );
        let mut framer = Framer::new(1000);
        let large = vec![b'x'; 600];
        assert!(framer.feed_item(b"data: ", &mut ignore).is_ok());
        assert!(framer.feed_item(&large, &mut ignore).is_ok());
        assert!(framer.feed_item(&large, &mut ignore).is_err());
    }
}
