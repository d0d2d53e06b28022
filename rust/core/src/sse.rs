//! Server-sent events framing: the WHATWG "event stream" rules, over byte chunks split anywhere.
//!
//! Lines end with CR, LF or CRLF (a CRLF split across two reads is one line end); a line starting with `:` is a
//! comment; `field: value` loses one space after the colon; `data` values are joined with LF; a blank line
//! dispatches the event (none when no `data` came). `id` and `retry` are read and ignored: toolwire never
//! reconnects. A BOM opening the body is dropped by the [`Framer`](crate::framing::Framer) that chose this framing.
//!
//! Three tolerances for what real servers send (each seen in the recorded corpus), where the standard would lose
//! data: spaces before a field name (` data: {...}`) are skipped; an event still pending when the stream ends (no
//! final blank line) is dispatched; and a last line without its line end is read as a line.
//!
//! Memory is bounded: an event (its `data` and the line being read, whether the line came in one read or several)
//! longer than the limit is a [`FramingError::TooLarge`], not an unbounded buffer.

use crate::framing::{Event, FramingError, Stop};

const WHAT: &str = "a server-sent event";

/// The incremental framer of one event stream.
#[derive(Debug)]
pub(crate) struct SseFramer {
    limit: usize,
    line: Vec<u8>,
    data: Vec<u8>,
    kind: Vec<u8>,
    has_data: bool,
    // The last read ended on CR: an LF opening the next read belongs to it.
    after_cr: bool,
}

impl SseFramer {
    /// A framer refusing events (or lines) longer than `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            line: Vec::new(),
            data: Vec::new(),
            kind: Vec::new(),
            has_data: false,
            after_cr: false,
        }
    }

    /// Read `bytes`, calling `on_event` for each event they complete, in order.
    ///
    /// An event whose one `data` line and blank line are both in `bytes` (what a live stream's read, or a line of a
    /// large read, usually holds) is handed over from `bytes` itself: only what spans reads is copied.
    pub(crate) fn feed<E>(
        &mut self,
        mut bytes: &[u8],
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), Stop<E>> {
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        let mut pending = None;
        let outcome = self.lines(&mut bytes, &mut pending, on_event);
        self.keep(pending);
        outcome?;
        self.extend_line(bytes)?;
        Ok(())
    }

    /// The whole lines of `bytes`, leaving in it what follows the last line end. `pending` is the `data` of the
    /// event being read while it is one line of `bytes`, not yet copied.
    fn lines<'a, E>(
        &mut self,
        bytes: &mut &'a [u8],
        pending: &mut Option<&'a [u8]>,
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), Stop<E>> {
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
                self.line_done(line, pending, on_event)?;
            } else {
                self.extend_line(line)?;
                self.spanning_line_done(on_event)?;
            }
            *bytes = rest;
        }
        Ok(())
    }

    /// The line begun in an earlier read is whole: read it from the line buffer, which is kept for the next one.
    fn spanning_line_done<E>(&mut self, on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>) -> Result<(), Stop<E>> {
        let whole = std::mem::take(&mut self.line);
        let mut kept = None;
        let outcome = self.line_done(&whole, &mut kept, on_event);
        self.keep(kept);
        self.line = whole;
        self.line.clear();
        outcome
    }

    /// The event's `data` still borrowed from a read, copied before the read goes.
    fn keep(&mut self, pending: Option<&[u8]>) {
        if let Some(data) = pending {
            self.data.extend_from_slice(data);
        }
    }

    /// End the stream: a last line without its line end is read, and a pending event dispatched.
    pub(crate) fn finish<E>(&mut self, on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>) -> Result<(), Stop<E>> {
        if !self.line.is_empty() {
            self.spanning_line_done(on_event)?;
        }
        self.dispatch(&mut None, on_event)
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), FramingError> {
        if self.line.len() + bytes.len() + self.data.len() > self.limit {
            return Err(self.too_large());
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    #[cold]
    fn too_large(&self) -> FramingError {
        FramingError::TooLarge {
            what: WHAT,
            limit: self.limit,
        }
    }

    // The line and dispatch steps are inlined into the read loop, and the event callback is generic, not `dyn`: with
    // the framings behind one `Framer` the compiler left them out of line, which cost 1.7% more instructions per
    // server-sent event (callgrind, `benches` grid cell 16x4KiB-int); inlined, the count is that of the framer of SSE
    // alone it replaced (0.2% fewer).
    #[expect(clippy::inline_always, reason = "measured: see above")]
    #[inline(always)]
    fn line_done<'a, E>(
        &mut self,
        line: &'a [u8],
        pending: &mut Option<&'a [u8]>,
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), Stop<E>> {
        if line.is_empty() {
            return self.dispatch(pending, on_event);
        }
        // The bound `extend_line` holds a line to when it spans reads, for a line read whole too: the same body is
        // refused at the same line whatever its split.
        if line.len() + self.data.len() + pending.map_or(0, <[u8]>::len) > self.limit {
            return Err(self.too_large().into());
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
                if self.has_data {
                    let first = pending.take();
                    self.keep(first);
                    self.data.push(b'\n');
                    self.data.extend_from_slice(value);
                } else {
                    *pending = Some(value);
                }
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

    #[expect(clippy::inline_always, reason = "measured: see `line_done`")]
    #[inline(always)]
    fn dispatch<E>(
        &mut self,
        pending: &mut Option<&[u8]>,
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), Stop<E>> {
        let outcome = if self.has_data {
            let kind = if self.kind.is_empty() {
                &b"message"[..]
            } else {
                &self.kind
            };
            let data = pending.take().unwrap_or(&self.data);
            on_event(Event { kind, data })
        } else {
            Ok(())
        };
        self.data.clear();
        self.kind.clear();
        self.has_data = false;
        outcome.map_err(Stop::Event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::tests::frame;

    /// The events of `reads` through the body framer (which chooses this framing for all of them).
    fn events(reads: &[&[u8]]) -> Vec<(String, String)> {
        frame(reads, false, 1 << 20).unwrap()
    }

    fn message(data: &str) -> (String, String) {
        ("message".to_owned(), data.to_owned())
    }

    #[test]
    fn fields_line_ends_and_comments() {
        let stream = b": keep-alive\r\ndata: {\"a\": 1}\r\n\r\nevent: ping\ndata:x\ndata:  y\n\n\rdata: z\r\rid: 7\nretry: 10\n\nfoo: bar\n\n";
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
    }

    #[test]
    fn an_event_read_whole_is_handed_over_from_the_read() {
        let mut seen = Vec::new();
        let mut collect = |event: Event<'_>| -> Result<(), FramingError> {
            seen.push((event.kind.to_vec(), event.data.to_vec()));
            Ok(())
        };
        let mut framer = SseFramer::new(1 << 10);
        for read in [
            &b"data: {\"a\":1}\n\n"[..],
            b"event: e\ndata: 2\n\n: ping\n\ndata: 3\r\n\r\n",
        ] {
            assert!(framer.feed(read, &mut collect).is_ok());
        }
        assert_eq!(framer.data.capacity(), 0, "no event was copied");
        // Only an event that spans reads, or has several data lines, is gathered in the buffer.
        for read in [&b"data: 4\n"[..], b"\ndata: 5\ndata: 6\n\n"] {
            assert!(framer.feed(read, &mut collect).is_ok());
        }
        assert!(framer.data.capacity() > 0);
        let data: Vec<&[u8]> = seen.iter().map(|(_, data)| data.as_slice()).collect();
        assert_eq!(data, [&b"{\"a\":1}"[..], b"2", b"3", b"4", b"5\n6"]);
        assert_eq!(seen.get(1).map(|(kind, _)| kind.as_slice()), Some(&b"e"[..]));
    }

    #[test]
    fn memory_is_bounded() {
        let too_large = FramingError::TooLarge { what: WHAT, limit: 16 };
        let mut ignore = |_: Event<'_>| -> Result<(), FramingError> { Ok(()) };
        let mut framer = SseFramer::new(16);
        assert!(matches!(
            framer.feed(b"data: 0123456789abcdef", &mut ignore),
            Err(Stop::Framing(error)) if error == too_large
        ));
        let mut framer = SseFramer::new(16);
        let long = b"data: 0123456789\ndata: 0123456789\n";
        assert!(matches!(framer.feed(long, &mut ignore), Err(Stop::Framing(error)) if error == too_large));
        // A long line is refused whether it came whole or in pieces (found by `tests/framing_props.rs`).
        let line = b": a comment line longer than the limit\n\n";
        let whole = SseFramer::new(16).feed(line, &mut ignore);
        assert!(matches!(whole, Err(Stop::Framing(error)) if error == too_large));
        let mut framer = SseFramer::new(16);
        let (first, second) = line.split_at(10);
        assert!(framer.feed(first, &mut ignore).is_ok());
        assert!(matches!(framer.feed(second, &mut ignore), Err(Stop::Framing(error)) if error == too_large));
    }
}
