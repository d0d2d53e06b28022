//! Server-sent events framing: the WHATWG "event stream" rules, over byte chunks split anywhere.
//!
//! Lines end with CR, LF or CRLF (a CRLF split across two reads is one line end); a line starting with `:` is a
//! comment; `field: value` loses one space after the colon; `data` values are joined with LF; a blank line
//! dispatches the event (none when no `data` came); a UTF-8 BOM opening the stream is dropped. `id` and `retry`
//! are read and ignored: toolstream never reconnects.
//!
//! Three tolerances for what real servers send (each seen in the recorded corpus), where the standard would lose
//! data: spaces before a field name (` data: {...}`) are skipped; an event still pending when the stream ends (no
//! final blank line) is dispatched; and a last line without its line end is read as a line.
//!
//! NDJSON (Ollama's streaming) shares the line splitting: a stream whose first non-blank line opens with `{` is
//! read as one event per non-blank line.
//!
//! Memory is bounded: an event (its `data` and the line being read) longer than the limit is an
//! [`SseError::EventTooLarge`], not an unbounded buffer.

use std::fmt;

/// A framing failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// An event, or a line of one, grew past the limit.
    EventTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EventTooLarge { limit } => write!(
                f,
                "a server-sent event is larger than {limit} bytes (Limits.max_event_bytes); is this an event stream?"
            ),
        }
    }
}

impl std::error::Error for SseError {}

/// One dispatched event, borrowed from the framer until the next call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<'a> {
    /// The `event` field, or `b"message"` when the event named none.
    pub kind: &'a [u8],
    /// The `data` values joined with LF.
    pub data: &'a [u8],
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The incremental framer of one stream.
#[derive(Debug)]
pub struct SseFramer {
    limit: usize,
    line: Vec<u8>,
    data: Vec<u8>,
    kind: Vec<u8>,
    has_data: bool,
    // The last read ended on CR: an LF opening the next read belongs to it.
    after_cr: bool,
    // Bytes seen so far, up to the length of a BOM: whether the stream opens with one is not known before.
    seen: usize,
    mode: Mode,
}

/// How lines make events: decided by the first non-blank line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Undecided,
    EventStream,
    JsonLines,
}

impl SseFramer {
    /// A framer refusing events (or lines) longer than `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            line: Vec::new(),
            data: Vec::new(),
            kind: Vec::new(),
            has_data: false,
            after_cr: false,
            seen: 0,
            mode: Mode::Undecided,
        }
    }

    /// Read `bytes`, calling `on_event` for each event they complete, in order. A callback error stops the read
    /// and is returned; so is a framing error.
    pub fn feed<E: From<SseError>>(
        &mut self,
        mut bytes: &[u8],
        on_event: &mut dyn FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.seen < BOM.len() {
            bytes = self.skip_bom(bytes);
        }
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', bytes) {
            let (line, rest) = bytes.split_at(end);
            let terminator = rest.first().copied();
            let mut rest = rest.get(1..).unwrap_or_default();
            if terminator == Some(b'\r') {
                match rest.first() {
                    Some(b'\n') => rest = rest.get(1..).unwrap_or_default(),
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            if self.line.is_empty() {
                self.line_done(line, on_event)?;
            } else {
                self.extend_line(line)?;
                let whole = std::mem::take(&mut self.line);
                let outcome = self.line_done(&whole, on_event);
                self.line = whole;
                self.line.clear();
                outcome?;
            }
            bytes = rest;
        }
        self.extend_line(bytes)?;
        Ok(())
    }

    /// End the stream: a last line without its line end is read, and a pending event dispatched.
    pub fn finish<E: From<SseError>>(&mut self, on_event: &mut dyn FnMut(Event<'_>) -> Result<(), E>) -> Result<(), E> {
        if !self.line.is_empty() {
            let whole = std::mem::take(&mut self.line);
            self.line_done(&whole, on_event)?;
        }
        self.dispatch(on_event)
    }

    fn skip_bom<'b>(&mut self, bytes: &'b [u8]) -> &'b [u8] {
        // Bytes of a possible BOM are held in `line` until the BOM is complete or ruled out.
        for (offset, &byte) in bytes.iter().enumerate() {
            if self.seen >= BOM.len() {
                return bytes.get(offset..).unwrap_or_default();
            }
            if BOM.get(self.seen) == Some(&byte) && self.line.len() == self.seen {
                self.line.push(byte);
                self.seen += 1;
                if self.seen == BOM.len() {
                    self.line.clear();
                }
            } else {
                self.seen = BOM.len();
                return bytes.get(offset..).unwrap_or_default();
            }
        }
        &[]
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        if self.line.len() + bytes.len() + self.data.len() > self.limit {
            return Err(SseError::EventTooLarge { limit: self.limit });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn line_done<E: From<SseError>>(
        &mut self,
        line: &[u8],
        on_event: &mut dyn FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.mode != Mode::EventStream {
            let content = line.trim_ascii();
            if self.mode == Mode::Undecided && !content.is_empty() {
                self.mode = if content.starts_with(b"{") {
                    Mode::JsonLines
                } else {
                    Mode::EventStream
                };
            }
            if self.mode == Mode::JsonLines {
                return if content.is_empty() {
                    Ok(())
                } else {
                    on_event(Event {
                        kind: b"message",
                        data: line,
                    })
                };
            }
        }
        if line.is_empty() {
            return self.dispatch(on_event);
        }
        let field_start = line.iter().position(|&byte| byte != b' ').unwrap_or(line.len());
        let line = line.get(field_start..).unwrap_or_default();
        if line.is_empty() || line.first() == Some(&b':') {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&byte| byte == b':') {
            Some(colon) => {
                let value = line.get(colon + 1..).unwrap_or_default();
                (
                    line.get(..colon).unwrap_or_default(),
                    value.strip_prefix(b" ").unwrap_or(value),
                )
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                if self.data.len() + value.len() + 1 > self.limit {
                    return Err(SseError::EventTooLarge { limit: self.limit }.into());
                }
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"event" => {
                self.kind.clear();
                self.kind.extend_from_slice(value);
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch<E: From<SseError>>(&mut self, on_event: &mut dyn FnMut(Event<'_>) -> Result<(), E>) -> Result<(), E> {
        let outcome = if self.has_data {
            let kind = if self.kind.is_empty() {
                &b"message"[..]
            } else {
                &self.kind
            };
            on_event(Event { kind, data: &self.data })
        } else {
            Ok(())
        };
        self.data.clear();
        self.kind.clear();
        self.has_data = false;
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(reads: &[&[u8]]) -> Vec<(String, String)> {
        let mut framer = SseFramer::new(1 << 20);
        let mut found = Vec::new();
        let mut collect = |event: Event<'_>| -> Result<(), SseError> {
            found.push((
                String::from_utf8_lossy(event.kind).into_owned(),
                String::from_utf8_lossy(event.data).into_owned(),
            ));
            Ok(())
        };
        for read in reads {
            framer.feed(read, &mut collect).unwrap();
        }
        framer.finish(&mut collect).unwrap();
        found
    }

    fn message(data: &str) -> (String, String) {
        ("message".to_owned(), data.to_owned())
    }

    #[test]
    fn fields_line_ends_and_comments() {
        let stream = b": keep-alive\r\ndata: {\"a\": 1}\r\n\r\nevent: ping\ndata:x\ndata:  y\n\n\rdata: z\r\rid: 7\nretry: 10\n\n";
        assert_eq!(
            events(&[stream]),
            [
                message("{\"a\": 1}"),
                ("ping".to_owned(), "x\n y".to_owned()),
                message("z")
            ]
        );
    }

    #[test]
    fn an_event_split_at_every_byte_is_the_same_event() {
        let stream: &[u8] = b"\xEF\xBB\xBFevent: e\r\ndata: caf\xC3\xA9\r\n\r\ndata: [DONE]\r\n\r\n";
        let whole = events(&[stream]);
        assert_eq!(whole, [("e".to_owned(), "café".to_owned()), message("[DONE]")]);
        for cut in 0..=stream.len() {
            let (a, b) = stream.split_at(cut);
            assert_eq!(events(&[a, b]), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(events(&bytes), whole);
    }

    #[test]
    fn what_real_servers_send() {
        // Spaces before the field name, data before event, no final blank line, no line end at all.
        assert_eq!(
            events(&[b" data: {}\n\ndata: 1\nevent: late\n\ndata: 2"]),
            [message("{}"), ("late".to_owned(), "1".to_owned()), message("2")]
        );
        assert_eq!(events(&[b"data: 3\n"]), [message("3")]);
        assert!(events(&[b"event: only\n\n: comment\n\n"]).is_empty());
    }

    #[test]
    fn a_bom_is_dropped_only_at_the_start() {
        assert_eq!(events(&[b"\xEF\xBB", b"\xBFdata: a\n\n"]), [message("a")]);
        assert_eq!(events(&[b"data: \xEF\xBB\xBFa\n\n"]), [message("\u{feff}a")]);
        assert_eq!(events(&[b"\xEFdata: a\n\n"]).len(), 0, "a broken BOM is a field name");
    }

    #[test]
    fn memory_is_bounded() {
        let mut framer = SseFramer::new(16);
        let mut ignore = |_: Event<'_>| -> Result<(), SseError> { Ok(()) };
        assert_eq!(
            framer.feed(b"data: 0123456789abcdef", &mut ignore),
            Err(SseError::EventTooLarge { limit: 16 })
        );
        let mut framer = SseFramer::new(16);
        let long = b"data: 0123456789\ndata: 0123456789\n";
        assert!(framer.feed(long, &mut ignore).is_err());
    }
}
