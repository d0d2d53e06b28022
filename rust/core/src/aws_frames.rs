//! AWS event-stream bodies (`application/vnd.amazon.eventstream`): Bedrock `ConverseStream` read over HTTP, without
//! the AWS SDK.
//!
//! A message is a prelude (total length and headers length, big-endian `u32`s, then the CRC32 of those 8 bytes),
//! headers (`name length: u8`, name, `type: u8`, value), the payload, and the CRC32 of everything before it. Both
//! CRCs are checked, the lengths must hold together, and every header must be one of the ten types the protocol
//! defines; a message that breaks any of this, or a body that ends inside one, is a [`FramingError`].
//!
//! Each message becomes the event the AWS SDK (boto3) yields for it, so that raw bytes and the SDK's events read
//! alike: an `event` message is `{"<:event-type>": payload}` and an `exception` message `{"<:exception-type>":
//! payload}`, the payload (a JSON object) without its `p` member (padding the SDK drops); an `error` message (its
//! `:error-code` and `:error-message` headers, no payload) is `{"error": {"code", "message"}}`.
//!
//! A message longer than the limit is refused at its prelude, before anything of it is held.

use std::fmt::Write as _;

use crate::framing::{Event, FramingError, PRELUDE, Stop};
use crate::json_view::{Path, names, object};

/// The AWS protocol's own bound on a message's headers (botocore's `_MAX_HEADERS_LENGTH`).
const MAX_HEADERS: usize = 128 * 1024;

/// Whether twelve bytes are a plausible prelude: its CRC32 matches and the lengths hold together.
pub(crate) fn prelude_fits(prelude: &[u8]) -> bool {
    Prelude::read(prelude).is_ok()
}

struct Prelude {
    total: usize,
    headers: usize,
}

impl Prelude {
    /// The prelude at the start of `bytes` (at least `PRELUDE` long), checked.
    fn read(bytes: &[u8]) -> Result<Self, String> {
        let word = |at: usize| {
            bytes
                .get(at..at + 4)
                .and_then(|word| <[u8; 4]>::try_from(word).ok())
                .map_or(0, u32::from_be_bytes)
        };
        let (total, headers, crc) = (word(0), word(4), word(8));
        let computed = crc32fast::hash(bytes.get(..8).unwrap_or_default());
        if computed != crc {
            return Err(format!(
                "the prelude's CRC32 is 0x{crc:08x}, its bytes give 0x{computed:08x}"
            ));
        }
        let total = usize::try_from(total).unwrap_or(usize::MAX);
        let headers = usize::try_from(headers).unwrap_or(usize::MAX);
        if total < PRELUDE + 4 || headers > total - PRELUDE - 4 || headers > MAX_HEADERS {
            return Err(format!(
                "a total length of {total} bytes cannot hold a prelude, {headers} bytes of headers and a CRC"
            ));
        }
        Ok(Self { total, headers })
    }
}

/// The framer of an AWS event-stream body.
#[derive(Debug)]
pub(crate) struct AwsFrames {
    limit: usize,
    /// The message so far, when it spans reads.
    held: Vec<u8>,
    /// Its total length, once its prelude is read.
    total: Option<usize>,
    messages: u64,
    /// The event built from a message.
    event: Vec<u8>,
}

impl AwsFrames {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            held: Vec::new(),
            total: None,
            messages: 0,
            event: Vec::new(),
        }
    }

    pub(crate) fn feed<E>(
        &mut self,
        mut bytes: &[u8],
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), Stop<E>> {
        while !bytes.is_empty() {
            if self.held.is_empty() && bytes.len() >= PRELUDE {
                let total = self.prelude(bytes)?;
                if let Some(message) = bytes.get(..total) {
                    // The whole message is in this read: read it in place.
                    self.message(message, on_event)?;
                    bytes = bytes.get(total..).unwrap_or_default();
                    continue;
                }
            }
            let want = self.total.unwrap_or(PRELUDE);
            let take = (want - self.held.len()).min(bytes.len());
            self.held.extend_from_slice(bytes.get(..take).unwrap_or_default());
            bytes = bytes.get(take..).unwrap_or_default();
            if self.total.is_none() && self.held.len() == PRELUDE {
                let total = self.prelude(&self.held)?;
                self.total = Some(total);
            }
            if self.total == Some(self.held.len()) {
                let held = std::mem::take(&mut self.held);
                let outcome = self.message(&held, on_event);
                self.held = held;
                self.held.clear();
                self.total = None;
                outcome?;
            }
        }
        Ok(())
    }

    pub(crate) fn finish<E>(&mut self) -> Result<(), Stop<E>> {
        if self.held.is_empty() {
            return Ok(());
        }
        let want = self.total.unwrap_or(PRELUDE);
        Err(self
            .fail(format!(
                "the body ended inside it, after {} of its {want} bytes: it was cut",
                self.held.len()
            ))
            .into())
    }

    /// The total length of the message whose prelude opens `bytes`; one longer than the limit is refused here.
    fn prelude(&self, bytes: &[u8]) -> Result<usize, FramingError> {
        let prelude = Prelude::read(bytes).map_err(|problem| self.fail(problem))?;
        if prelude.total > self.limit {
            return Err(FramingError::TooLarge {
                what: "an AWS event-stream message",
                limit: self.limit,
            });
        }
        Ok(prelude.total)
    }

    fn message<E>(
        &mut self,
        message: &[u8],
        on_event: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), Stop<E>> {
        let prelude = Prelude::read(message).map_err(|problem| self.fail(problem))?;
        let body = message.get(..prelude.total - 4).unwrap_or_default();
        let crc = message
            .get(prelude.total - 4..)
            .and_then(|word| <[u8; 4]>::try_from(word).ok())
            .map_or(0, u32::from_be_bytes);
        let computed = crc32fast::hash(body);
        if computed != crc {
            return Err(self
                .fail(format!(
                    "the message's CRC32 is 0x{crc:08x}, its bytes give 0x{computed:08x}"
                ))
                .into());
        }
        let headers = Headers::read(body.get(PRELUDE..PRELUDE + prelude.headers).unwrap_or_default())
            .map_err(|problem| self.fail(problem))?;
        let payload = body.get(PRELUDE + prelude.headers..).unwrap_or_default();
        self.event.clear();
        self.build(&headers, payload).map_err(|problem| self.fail(problem))?;
        self.messages += 1;
        on_event(Event {
            kind: b"message",
            data: &self.event,
        })
        .map_err(Stop::Event)
    }

    /// The event the AWS SDK yields for a message, into `self.event`.
    fn build(&mut self, headers: &Headers<'_>, payload: &[u8]) -> Result<(), String> {
        let message_type = headers.message_type.ok_or("it has no `:message-type` header")?;
        let key = match message_type {
            "event" => headers
                .event_type
                .ok_or("an `event` message without an `:event-type` header")?,
            "exception" => headers
                .exception_type
                .ok_or("an `exception` message without an `:exception-type` header")?,
            "error" => {
                self.event.extend_from_slice(b"{\"error\":{\"code\":");
                json_string_or_null(&mut self.event, headers.error_code);
                self.event.extend_from_slice(b",\"message\":");
                json_string_or_null(&mut self.event, headers.error_message);
                self.event.extend_from_slice(b"}}");
                return Ok(());
            }
            other => {
                return Err(format!(
                    "its `:message-type` is {other:?}, not event, exception or error"
                ));
            }
        };
        let members = std::str::from_utf8(payload)
            .ok()
            .and_then(|_| object(payload, &Path::ROOT).ok())
            .ok_or("its payload is not a JSON object")?;
        self.event.push(b'{');
        json_string(&mut self.event, key);
        self.event.extend_from_slice(b":{");
        let mut first = true;
        for (name, value) in members.members() {
            if names(name, "p") {
                continue;
            }
            if !first {
                self.event.push(b',');
            }
            first = false;
            self.event.push(b'"');
            self.event.extend_from_slice(name);
            self.event.extend_from_slice(b"\":");
            self.event.extend_from_slice(value);
        }
        self.event.extend_from_slice(b"}}");
        Ok(())
    }

    #[cold]
    fn fail(&self, problem: String) -> FramingError {
        FramingError::Aws {
            message: self.messages,
            problem,
        }
    }
}

/// The headers toolwire reads, from a message's header bytes (each of the others is skipped by its type).
#[derive(Default)]
struct Headers<'a> {
    message_type: Option<&'a str>,
    event_type: Option<&'a str>,
    exception_type: Option<&'a str>,
    error_code: Option<&'a str>,
    error_message: Option<&'a str>,
}

impl<'a> Headers<'a> {
    fn read(mut bytes: &'a [u8]) -> Result<Self, String> {
        let mut headers = Self::default();
        while let Some((&length, rest)) = bytes.split_first() {
            let length = usize::from(length);
            let (Some(name), Some(&kind)) = (rest.get(..length), rest.get(length)) else {
                return Err("a header runs past the headers' length".to_owned());
            };
            if name.is_empty() {
                return Err("a header has an empty name".to_owned());
            }
            let rest = rest.get(length + 1..).unwrap_or_default();
            let size = match kind {
                0 | 1 => 0,
                2 => 1,
                3 => 2,
                4 => 4,
                5 | 8 => 8,
                9 => 16,
                6 | 7 => {
                    let size = rest
                        .get(..2)
                        .and_then(|word| <[u8; 2]>::try_from(word).ok())
                        .map(u16::from_be_bytes)
                        .ok_or("a header runs past the headers' length")?;
                    2 + usize::from(size)
                }
                other => {
                    return Err(format!(
                        "header {} has type {other}, which the protocol does not define",
                        shown_name(name)
                    ));
                }
            };
            let value = rest.get(..size).ok_or("a header runs past the headers' length")?;
            bytes = rest.get(size..).unwrap_or_default();
            let slot = match name {
                b":message-type" => &mut headers.message_type,
                b":event-type" => &mut headers.event_type,
                b":exception-type" => &mut headers.exception_type,
                b":error-code" => &mut headers.error_code,
                b":error-message" => &mut headers.error_message,
                _ => continue,
            };
            if slot.is_some() {
                return Err(format!("header {} is repeated", shown_name(name)));
            }
            let text = (kind == 7)
                .then(|| value.get(2..))
                .flatten()
                .and_then(|text| std::str::from_utf8(text).ok())
                .ok_or_else(|| format!("header {} is not a UTF-8 string", shown_name(name)))?;
            *slot = Some(text);
        }
        Ok(headers)
    }
}

fn shown_name(name: &[u8]) -> String {
    format!("`{}`", String::from_utf8_lossy(name))
}

/// `text` as a JSON string, escaped as Python's `json.dumps(..., ensure_ascii=False)` escapes it.
fn json_string(out: &mut Vec<u8>, text: &str) {
    let mut escaped = String::with_capacity(text.len() + 2);
    escaped.push('"');
    for character in text.chars() {
        match character {
            '"' => escaped.push_str("\\\""),
            '\\' => escaped.push_str("\\\\"),
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            '\u{8}' => escaped.push_str("\\b"),
            '\u{c}' => escaped.push_str("\\f"),
            control if u32::from(control) < 0x20 => {
                let _ = write!(escaped, "\\u{:04x}", u32::from(control));
            }
            other => escaped.push(other),
        }
    }
    escaped.push('"');
    out.extend_from_slice(escaped.as_bytes());
}

fn json_string_or_null(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(text) => json_string(out, text),
        None => out.extend_from_slice(b"null"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::tests::data_of;

    /// A message as AWS frames it, from its headers (`(name, string value)`) and payload.
    pub(crate) fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
        let mut head = Vec::new();
        for (name, value) in headers {
            head.push(u8::try_from(name.len()).unwrap());
            head.extend_from_slice(name.as_bytes());
            head.push(7);
            head.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
            head.extend_from_slice(value.as_bytes());
        }
        let total = u32::try_from(PRELUDE + head.len() + payload.len() + 4).unwrap();
        let mut message = Vec::new();
        message.extend_from_slice(&total.to_be_bytes());
        message.extend_from_slice(&u32::try_from(head.len()).unwrap().to_be_bytes());
        message.extend_from_slice(&crc32fast::hash(&message).to_be_bytes());
        message.extend_from_slice(&head);
        message.extend_from_slice(payload);
        message.extend_from_slice(&crc32fast::hash(&message).to_be_bytes());
        message
    }

    fn event(kind: &str, payload: &[u8]) -> Vec<u8> {
        frame(
            &[
                (":event-type", kind),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            payload,
        )
    }

    fn body() -> Vec<u8> {
        let mut body = event("messageStart", br#"{"p":"abcdefgh","role":"assistant"}"#);
        body.extend(event(
            "contentBlockDelta",
            br#"{"contentBlockIndex":0,"delta":{"text":"Hi"},"p":"abcdefghijklmnopqrstuvwxyz"}"#,
        ));
        body.extend(frame(
            &[
                (":exception-type", "throttlingException"),
                (":content-type", "application/json"),
                (":message-type", "exception"),
            ],
            br#"{"message":"Too many tokens"}"#,
        ));
        body
    }

    const EVENTS: [&str; 3] = [
        r#"{"messageStart":{"role":"assistant"}}"#,
        r#"{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Hi"}}}"#,
        r#"{"throttlingException":{"message":"Too many tokens"}}"#,
    ];

    #[test]
    fn a_published_message_reads_as_its_crcs_say() {
        // The AWS Transcribe documentation's example message: no headers, the payload `{"foo": "bar"}`.
        let message: [u8; 30] = [
            0, 0, 0, 30, 0, 0, 0, 0, 186, 242, 246, 138, 123, 34, 102, 111, 111, 34, 58, 32, 34, 98, 97, 114, 34, 125,
            174, 114, 88, 228,
        ];
        assert!(prelude_fits(&message[..PRELUDE]));
        assert_eq!(
            data_of(&[&message], 1 << 20),
            Err(FramingError::Aws {
                message: 0,
                problem: "it has no `:message-type` header".to_owned()
            }),
            "both CRCs hold; only the headers are missing"
        );
        assert_eq!(
            frame(&[], br#"{"foo": "bar"}"#),
            message,
            "the helper frames as AWS does"
        );
    }

    #[test]
    fn messages_split_anywhere_are_the_events_the_sdk_yields() {
        let body = body();
        assert_eq!(data_of(&[&body], 1 << 20), Ok(EVENTS.map(str::to_owned).to_vec()));
        for cut in 0..=body.len() {
            let (a, b) = body.split_at(cut);
            assert_eq!(
                data_of(&[a, b], 1 << 20),
                Ok(EVENTS.map(str::to_owned).to_vec()),
                "cut at {cut}"
            );
        }
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(data_of(&bytes, 1 << 20), Ok(EVENTS.map(str::to_owned).to_vec()));
    }

    #[test]
    fn an_error_message_is_an_error_event() {
        let error = frame(
            &[
                (":message-type", "error"),
                (":error-code", "InternalFailure"),
                (":error-message", "a \"quoted\"\nline"),
            ],
            b"",
        );
        assert_eq!(
            data_of(&[&error], 1 << 20),
            Ok(vec![
                r#"{"error":{"code":"InternalFailure","message":"a \"quoted\"\nline"}}"#.to_owned()
            ])
        );
    }

    #[test]
    fn a_bad_crc_or_a_cut_message_is_refused() {
        let body = body();
        let length = |at: usize| u32::from_be_bytes(body[at..at + 4].try_into().unwrap()) as usize;
        let second = length(0);
        let third = body.len() - second - length(second);
        let mut broken = body.clone();
        let last = broken.len() - 1;
        broken[last] ^= 1;
        let error = data_of(&[&broken], 1 << 20).expect_err("a bad message CRC");
        assert!(
            matches!(&error, FramingError::Aws { message: 2, problem } if problem.starts_with("the message's CRC32"))
        );
        let mut broken = body.clone();
        broken[second + 9] ^= 1; // the second message's prelude CRC
        let error = data_of(&[&broken], 1 << 20).expect_err("a bad prelude CRC");
        assert!(
            matches!(&error, FramingError::Aws { message: 1, problem } if problem.starts_with("the prelude's CRC32"))
        );
        let error = data_of(&[&body[..body.len() - 3]], 1 << 20).expect_err("a cut message");
        assert_eq!(
            error.to_string(),
            format!(
                "AWS event-stream message 2: the body ended inside it, after {} of its {third} bytes: it was cut",
                third - 3
            )
        );
        let payload = data_of(&[&event("messageStart", b"[1]")], 1 << 20).expect_err("not an object");
        assert_eq!(
            payload.to_string(),
            "AWS event-stream message 0: its payload is not a JSON object"
        );
    }

    #[test]
    fn a_message_past_the_limit_is_refused_at_its_prelude() {
        let message = event("contentBlockDelta", &[b' '; 4000]);
        let too_large = Err(FramingError::TooLarge {
            what: "an AWS event-stream message",
            limit: 1000,
        });
        assert_eq!(data_of(&[&message], 1000), too_large);
        assert_eq!(
            data_of(&[&message[..PRELUDE]], 1000),
            too_large,
            "nothing past the prelude is needed"
        );
    }

    #[test]
    fn headers_of_every_type_are_skipped_and_unknown_types_refused() {
        let mut head = Vec::new();
        for (kind, value) in [
            (0_u8, &[][..]),
            (1, &[]),
            (2, &[7]),
            (3, &[0, 7]),
            (4, &[0, 0, 0, 7]),
            (5, &[0; 8]),
            (6, &[0, 2, 1, 2]),
            (8, &[0; 8]),
            (9, &[0; 16]),
        ] {
            head.extend_from_slice(&[1, b'x', kind]);
            head.extend_from_slice(value);
        }
        let mut message = event("messageStart", br#"{"role":"assistant"}"#);
        let headers_length = u32::from_be_bytes(message[4..8].try_into().unwrap()) as usize;
        let mut rebuilt = message[PRELUDE..PRELUDE + headers_length].to_vec();
        rebuilt.extend_from_slice(&head);
        let payload = message[PRELUDE + headers_length..message.len() - 4].to_vec();
        let total = u32::try_from(PRELUDE + rebuilt.len() + payload.len() + 4).unwrap();
        message.clear();
        message.extend_from_slice(&total.to_be_bytes());
        message.extend_from_slice(&u32::try_from(rebuilt.len()).unwrap().to_be_bytes());
        message.extend_from_slice(&crc32fast::hash(&message).to_be_bytes());
        message.extend_from_slice(&rebuilt);
        message.extend_from_slice(&payload);
        message.extend_from_slice(&crc32fast::hash(&message).to_be_bytes());
        assert_eq!(
            data_of(&[&message], 1 << 20),
            Ok(vec![r#"{"messageStart":{"role":"assistant"}}"#.to_owned()])
        );
        assert_eq!(
            Headers::read(&[1, b'x', 10]).err(),
            Some("header `x` has type 10, which the protocol does not define".to_owned())
        );
        assert_eq!(
            Headers::read(&[1, b'x', 7, 0, 9, b'a']).err(),
            Some("a header runs past the headers' length".to_owned())
        );
    }
}
