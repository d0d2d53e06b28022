//! JSON bodies: JSON lines (values one after the other, as Ollama's NDJSON) and one JSON array whose elements arrive
//! one by one (Gemini's `streamGenerateContent` without `alt=sse`: `[{...}\n,\r\n{...}\n]`), split anywhere.
//!
//! Each value of the sequence, each element of the array, is one event, handed over the moment it closes. This
//! framer finds where an element ends — strings and their escapes, the nesting of `{}` and `[]` — and leaves judging
//! it to the decoder, which reads every event's JSON by one rule whatever its framing (`docs/semantics.md`, "Reading a
//! chunk"): an element that is not JSON, or not an object, fails there exactly as a server-sent event's data would.
//! Brackets are counted, not matched (a mismatch is the decoder's to report), so the work is one pass over the
//! bytes and the memory the element being held, at most the limit.
//!
//! A value of JSON lines also ends at a line end, as NDJSON has one per line: a broken line fails alone, at once.
//! Lines that lost their line ends (a line iterator's items) still read the same: each value ends where its JSON
//! closes. Between elements only whitespace is read; in an array, the `,` between elements and the closing `]`, after
//! which only whitespace may follow. Anything else there, or a body that ends before the `]`, is a [`FramingError`].

use crate::framing::{Event, FramingError, Stop, is_space, shown};

const WHAT: &str = "a JSON element";

/// The framer of a JSON-lines or JSON-array body.
#[derive(Debug)]
pub(crate) struct JsonSeq {
    limit: usize,
    array: bool,
    stage: Stage,
    /// The element so far, when it spans reads.
    held: Vec<u8>,
    /// Open `{`/`[` of the element being read.
    depth: u64,
    in_string: bool,
    /// A `\` ended the last read inside a string: the next byte is escaped.
    escaped: bool,
    elements: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// An array before its `[`.
    Open,
    /// Where an element may start: between values of JSON lines, or right after an array's `[` (where `]` may too).
    Between,
    /// An array after an element: `,` or `]`.
    After,
    /// An array after `,`: an element.
    Next,
    Element(Kind),
    /// An array after its `]`.
    Closed,
}

/// What ends the element being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An object or array: the bracket that closes the first.
    Container,
    /// A string: its closing quote.
    String,
    /// Anything else (a number, a literal, or garbage the decoder will refuse): the next whitespace or punctuation.
    Bare,
}

impl JsonSeq {
    pub(crate) fn new(limit: usize, array: bool) -> Self {
        Self {
            limit,
            array,
            stage: if array { Stage::Open } else { Stage::Between },
            held: Vec::new(),
            depth: 0,
            in_string: false,
            escaped: false,
            elements: 0,
        }
    }

    pub(crate) fn is_array(&self) -> bool {
        self.array
    }

    pub(crate) fn feed<E>(
        &mut self,
        bytes: &[u8],
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), Stop<E>> {
        let mut at = 0;
        // Where the element being read begins in `bytes` (0 when it began in an earlier read and is held).
        let mut start = 0;
        while let Some(&byte) = bytes.get(at) {
            if let Stage::Element(kind) = self.stage {
                let Some(end) = self.element_end(kind, bytes, at) else {
                    return self.hold(bytes.get(start..).unwrap_or_default()).map_err(Stop::Framing);
                };
                self.emit(bytes.get(start..end).unwrap_or_default(), on_event)?;
                at = end;
                continue;
            }
            if is_space(byte) {
                at += 1;
                continue;
            }
            match (self.stage, byte) {
                (Stage::Open, b'[') => self.stage = Stage::Between,
                (Stage::Between, b']') if self.array && self.elements == 0 => self.stage = Stage::Closed,
                (Stage::After, b']') => self.stage = Stage::Closed,
                (Stage::After, b',') => self.stage = Stage::Next,
                (Stage::Between | Stage::Next, b',' | b']' | b'}' | b':') | (Stage::Open, _) => {
                    return Err(broken(&format!("expected {}, got", self.expected()), byte).into());
                }
                (Stage::Between | Stage::Next, _) => {
                    start = at;
                    self.begin(byte);
                }
                (Stage::After, _) => {
                    let problem = format!(
                        "expected `,` or `]` after element {} of the JSON array, got",
                        self.elements - 1
                    );
                    return Err(broken(&problem, byte).into());
                }
                (Stage::Closed, _) => return Err(broken("data after the end of the JSON array:", byte).into()),
                (Stage::Element(_), _) => {}
            }
            at += 1;
        }
        if let Stage::Element(_) = self.stage {
            return self.hold(bytes.get(start..).unwrap_or_default()).map_err(Stop::Framing);
        }
        Ok(())
    }

    pub(crate) fn finish<E>(&mut self, on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>) -> Result<(), Stop<E>> {
        if self.array {
            if self.stage == Stage::Closed {
                return Ok(());
            }
            return Err(FramingError::ArrayNotClosed {
                elements: self.elements,
            }
            .into());
        }
        if let Stage::Element(_) = self.stage {
            // A last value cut short (or a bare one, ended by the body): the decoder judges it, as a last line.
            self.emit(&[], on_event)?;
        }
        Ok(())
    }

    fn expected(&self) -> &'static str {
        match self.stage {
            Stage::Open => "the JSON array's `[`",
            Stage::Next => "an element after `,` in the JSON array",
            _ if self.array => "an element or `]` in the JSON array",
            _ => "a JSON value",
        }
    }

    fn begin(&mut self, byte: u8) {
        let kind = match byte {
            b'{' | b'[' => Kind::Container,
            b'"' => Kind::String,
            _ => Kind::Bare,
        };
        self.depth = u64::from(kind == Kind::Container);
        self.in_string = kind == Kind::String;
        self.escaped = false;
        self.stage = Stage::Element(kind);
    }

    /// Where the element being read ends in `bytes` (just past its last byte), scanning from `at` (past its opening
    /// byte, or the start of a later read); None when it goes on past them. A value of JSON lines also ends at a line
    /// end (before it), wherever it is: NDJSON has one value per line, so a broken line fails alone and at once.
    fn element_end(&mut self, kind: Kind, bytes: &[u8], mut at: usize) -> Option<usize> {
        let lines = !self.array;
        if kind == Kind::Bare {
            let rest = bytes.get(at..).unwrap_or_default();
            return rest
                .iter()
                .position(|&byte| is_space(byte) || matches!(byte, b',' | b'[' | b']' | b'{' | b'}' | b'"' | b':'))
                .map(|offset| at + offset);
        }
        loop {
            let rest = bytes.get(at..).unwrap_or_default();
            if self.in_string {
                if self.escaped {
                    match rest.first() {
                        None => return None,
                        Some(b'\n' | b'\r') if lines => return Some(at),
                        Some(_) => {}
                    }
                    self.escaped = false;
                    at += 1;
                    continue;
                }
                let offset = if lines {
                    rest.iter()
                        .position(|&byte| matches!(byte, b'"' | b'\\' | b'\n' | b'\r'))?
                } else {
                    memchr::memchr2(b'"', b'\\', rest)?
                };
                at += offset;
                match rest.get(offset) {
                    Some(b'\\') => self.escaped = true,
                    Some(b'"') => {
                        self.in_string = false;
                        if kind == Kind::String {
                            return Some(at + 1);
                        }
                    }
                    _ => return Some(at), // a line end of JSON lines
                }
                at += 1;
                continue;
            }
            let offset = rest.iter().position(|&byte| {
                matches!(byte, b'"' | b'{' | b'}' | b'[' | b']') || (lines && matches!(byte, b'\n' | b'\r'))
            })?;
            at += offset;
            match rest.get(offset) {
                Some(b'"') => self.in_string = true,
                Some(b'{' | b'[') => self.depth += 1,
                Some(b'}' | b']') => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(at + 1);
                    }
                }
                _ => return Some(at), // a line end of JSON lines
            }
            at += 1;
        }
    }

    fn hold(&mut self, bytes: &[u8]) -> Result<(), FramingError> {
        if self.held.len() + bytes.len() > self.limit {
            return Err(self.too_large());
        }
        self.held.extend_from_slice(bytes);
        Ok(())
    }

    fn emit<E>(&mut self, tail: &[u8], on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>) -> Result<(), Stop<E>> {
        if self.held.len() + tail.len() > self.limit {
            return Err(self.too_large().into());
        }
        self.elements += 1;
        self.stage = if self.array { Stage::After } else { Stage::Between };
        let outcome = if self.held.is_empty() {
            on_event(Event {
                kind: b"message",
                data: tail,
            })
        } else {
            self.held.extend_from_slice(tail);
            let held = std::mem::take(&mut self.held);
            let outcome = on_event(Event {
                kind: b"message",
                data: &held,
            });
            self.held = held;
            self.held.clear();
            outcome
        };
        outcome.map_err(Stop::Event)
    }

    #[cold]
    fn too_large(&self) -> FramingError {
        FramingError::TooLarge {
            what: WHAT,
            limit: self.limit,
        }
    }
}

#[cold]
fn broken(problem: &str, byte: u8) -> FramingError {
    FramingError::Json(format!("{problem} {}", shown(&[byte])))
}

#[cfg(test)]
mod tests {
    use crate::framing::FramingError;
    use crate::framing::tests::data_of;

    /// The body whole, cut in two at every byte, and a byte at a time: one outcome.
    fn outcome(body: &[u8]) -> Result<Vec<String>, FramingError> {
        let whole = data_of(&[body], 1 << 20);
        for cut in 0..=body.len() {
            let (a, b) = body.split_at(cut);
            assert_eq!(data_of(&[a, b], 1 << 20), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(data_of(&bytes, 1 << 20), whole, "a byte at a time");
        whole
    }

    const ARRAY: &[u8] = b"[{\n  \"a\": \"x]}\\\"{[\",\n  \"b\": [1, {\"c\": null}]\n}\n,\r\n{\"d\": \"\\\\\"}\n]\n";

    #[test]
    fn elements_close_where_their_json_does() {
        assert_eq!(
            outcome(ARRAY),
            Ok(vec![
                "{\n  \"a\": \"x]}\\\"{[\",\n  \"b\": [1, {\"c\": null}]\n}".to_owned(),
                "{\"d\": \"\\\\\"}".to_owned()
            ])
        );
        assert_eq!(outcome(b"[]"), Ok(vec![]));
        assert_eq!(
            outcome(b"{\"a\": \"}{\"}{\"b\": 1}\n\n{\"c\": [\"]\"]}"),
            Ok(vec![
                "{\"a\": \"}{\"}".to_owned(),
                "{\"b\": 1}".to_owned(),
                "{\"c\": [\"]\"]}".to_owned()
            ])
        );
    }

    #[test]
    fn elements_the_decoder_must_judge_are_handed_over_as_they_are() {
        // Not objects, not JSON, brackets that do not match: the decoder refuses each as it would an event's data.
        assert_eq!(
            outcome(b"[1, \"s\", tru, {]]"),
            Ok(vec![
                "1".to_owned(),
                "\"s\"".to_owned(),
                "tru".to_owned(),
                "{]".to_owned()
            ])
        );
        assert_eq!(
            outcome(b"{\"a\": 1}\nnull 7"),
            Ok(vec!["{\"a\": 1}".to_owned(), "null".to_owned(), "7".to_owned()])
        );
        assert_eq!(
            outcome(b"{\"a\": [1,"),
            Ok(vec!["{\"a\": [1,".to_owned()]),
            "a cut last value"
        );
    }

    #[test]
    fn a_value_of_json_lines_ends_at_its_line_end() {
        assert_eq!(
            outcome(b"{\"a\": 1}\n{oops\r\n{\"b\": \"x\\\n{\"c\": 3}\n{\"d\": \"e\n"),
            Ok(vec![
                "{\"a\": 1}".to_owned(),
                "{oops".to_owned(),
                "{\"b\": \"x\\".to_owned(),
                "{\"c\": 3}".to_owned(),
                "{\"d\": \"e".to_owned()
            ])
        );
        let array = b"[{\n\"a\": \"x\"\n}]";
        assert_eq!(
            outcome(array),
            Ok(vec!["{\n\"a\": \"x\"\n}".to_owned()]),
            "not in an array"
        );
    }

    #[test]
    fn the_array_syntax_between_elements_is_checked() {
        for (body, problem) in [
            (
                &b"[{} {}]"[..],
                "expected `,` or `]` after element 0 of the JSON array, got b\"{\"",
            ),
            (b"[{},]", "expected an element after `,` in the JSON array, got b\"]\""),
            (b"[,{}]", "expected an element or `]` in the JSON array, got b\",\""),
            (b"[{}]\n,", "data after the end of the JSON array: b\",\""),
            (b"{}\n}", "expected a JSON value, got b\"}\""),
            (
                b"[{}, {}",
                "the body ended inside its JSON array, after 2 element(s) and before the closing `]`: it was cut",
            ),
        ] {
            let outcome = outcome(body).map_err(|error| error.to_string());
            assert_eq!(outcome, Err(problem.to_owned()), "{body:?}");
        }
        for cut in [&b"[{}, {\"a\""[..], b"[{}, {}", b"[{}\n,", b"["] {
            assert!(
                matches!(outcome(cut), Err(FramingError::ArrayNotClosed { .. })),
                "{cut:?}"
            );
        }
    }

    #[test]
    fn an_element_past_the_limit_is_refused_as_it_arrives() {
        let too_large = Err(FramingError::TooLarge {
            what: "a JSON element",
            limit: 64,
        });
        let long = format!("[{{\"a\": \"{}\"}}]", "x".repeat(100));
        assert_eq!(data_of(&[long.as_bytes()], 64), too_large);
        let pieces: Vec<&[u8]> = long.as_bytes().chunks(7).take(12).collect();
        assert_eq!(data_of(&pieces, 64), too_large, "refused before the element closes");
        assert_eq!(
            data_of(&[b"{\"a\": 1}\n{\"b\": 2}"], 10),
            Ok(vec!["{\"a\": 1}".to_owned(), "{\"b\": 2}".to_owned()])
        );
    }
}
