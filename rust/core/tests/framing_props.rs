//! Property tests of the body framer: whatever the framing, a body split anywhere frames to the same events or the
//! same error as the body whole; JSON bodies hand over exactly the values they were rendered from; AWS messages with
//! any byte flipped are refused or read, never misread; and nothing past the limit is ever held.

#![expect(clippy::expect_used, reason = "a property test fails loudly")]

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;
use toolwire_core::framing::{Event, Framer, FramingError};

/// Each event's kind and data.
type Events = Vec<(Vec<u8>, Vec<u8>)>;

/// The events of `body` fed in the reads its cuts make (as items when `items`), or the error.
fn frame(body: &[u8], cuts: &[Index], items: bool, limit: usize) -> Result<Events, FramingError> {
    let mut offsets: Vec<usize> = cuts.iter().map(|cut| cut.index(body.len() + 1)).collect();
    offsets.sort_unstable();
    let mut framer = Framer::new(limit);
    let mut events = Vec::new();
    let mut collect = |event: Event<'_>| -> Result<(), FramingError> {
        events.push((event.kind.to_vec(), event.data.to_vec()));
        Ok(())
    };
    let mut start = 0;
    for offset in offsets.into_iter().chain([body.len()]) {
        let piece = body.get(start..offset).unwrap_or_default();
        if items {
            framer.feed_item(piece, &mut collect)?;
        } else {
            framer.feed(piece, &mut collect)?;
        }
        start = offset;
    }
    framer.finish(&mut collect)?;
    Ok(events)
}

/// Bytes that make every framing's openings, separators and escapes likely.
fn body() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(&b"data"[..]),
        Just(&b"event"[..]),
        Just(&b": "[..]),
        Just(&b":"[..]),
        Just(&b" "[..]),
        Just(&b"\n"[..]),
        Just(&b"\r\n"[..]),
        Just(&b"\r"[..]),
        Just(&b"{"[..]),
        Just(&b"}"[..]),
        Just(&b"["[..]),
        Just(&b"]"[..]),
        Just(&b"\""[..]),
        Just(&b"\\"[..]),
        Just(&b","[..]),
        Just(&b"x"[..]),
        Just(&b"1"[..]),
        Just(&b"\xEF\xBB\xBF"[..]),
        Just(&b"\x00"[..]),
    ];
    prop::collection::vec(piece, 0..48).prop_map(|pieces| pieces.concat())
}

fn json_object() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[ -~\n\"\\\\\\[\\]{}]{0,12}".prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\\]}\"]{0,4}", inner, 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    });
    prop::collection::btree_map("[a-z]{1,4}", value, 0..4)
        .prop_map(|members| Value::Object(members.into_iter().collect()))
}

/// An AWS event-stream message with string headers, framed as AWS frames it.
fn aws_message(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(u8::try_from(name.len()).expect("a short name"));
        head.extend_from_slice(name.as_bytes());
        head.push(7);
        head.extend_from_slice(&u16::try_from(value.len()).expect("a short value").to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = u32::try_from(12 + head.len() + payload.len() + 4).expect("a small message");
    let mut message = total.to_be_bytes().to_vec();
    message.extend_from_slice(&u32::try_from(head.len()).expect("small headers").to_be_bytes());
    message.extend_from_slice(&crc32fast::hash(&message).to_be_bytes());
    message.extend_from_slice(&head);
    message.extend_from_slice(payload);
    message.extend_from_slice(&crc32fast::hash(&message).to_be_bytes());
    message
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_body_split_anywhere_frames_alike(body in body(), cuts in prop::collection::vec(any::<Index>(), 0..8)) {
        let whole = frame(&body, &[], false, 1 << 20);
        prop_assert_eq!(&frame(&body, &cuts, false, 1 << 20), &whole);
        // Bytes that are a read, read as the only item of a source, are the same body (one without a line end is a
        // line then, and gets its LF).
        if body.contains(&b'\n') || body.contains(&b'\r') {
            prop_assert_eq!(frame(&body, &[], true, 1 << 20), whole);
        }
    }

    #[test]
    fn a_small_limit_is_never_passed(body in body(), cuts in prop::collection::vec(any::<Index>(), 0..8), limit in 1usize..32) {
        match frame(&body, &cuts, false, limit) {
            Ok(events) => prop_assert!(events.iter().all(|(_, data)| data.len() <= limit)),
            Err(error) => prop_assert_eq!(frame(&body, &[], false, limit).err(), Some(error)),
        }
    }

    #[test]
    fn json_bodies_hand_over_the_values_they_hold(
        values in prop::collection::vec(json_object(), 0..6),
        pretty in any::<bool>(),
        array in any::<bool>(),
        cuts in prop::collection::vec(any::<Index>(), 0..10),
    ) {
        let rendered: Vec<String> = values
            .iter()
            .map(|value| if pretty { serde_json::to_string_pretty(value) } else { serde_json::to_string(value) })
            .collect::<Result<_, _>>()
            .expect("JSON");
        let body = if array {
            format!("[{}\n]", rendered.join("\n,\r\n"))
        } else {
            rendered.iter().map(|value| value.replace('\n', "") + "\n").collect()
        };
        let events = frame(body.as_bytes(), &cuts, false, 1 << 20).expect("a well-formed body");
        let read: Vec<Value> = events
            .iter()
            .map(|(_, data)| serde_json::from_slice(data).expect("each element is its value"))
            .collect();
        prop_assert_eq!(read, values);
    }

    #[test]
    fn an_aws_message_with_a_byte_flipped_is_refused_or_read_never_misread(
        text in "[ -~]{0,40}",
        at in any::<Index>(),
        bit in 0u8..8,
        cuts in prop::collection::vec(any::<Index>(), 0..6),
    ) {
        let payload = serde_json::to_vec(&serde_json::json!({"delta": {"text": text}, "p": "abcdef"})).expect("JSON");
        let headers = [(":event-type", "contentBlockDelta"), (":content-type", "application/json"), (":message-type", "event")];
        let mut body = aws_message(&headers, &payload);
        let expected = format!(
            "{{\"contentBlockDelta\":{}}}",
            serde_json::to_string(&serde_json::json!({"delta": {"text": text}})).expect("JSON")
        );
        prop_assert_eq!(
            frame(&body, &cuts, false, 1 << 20),
            Ok(vec![(b"message".to_vec(), expected.into_bytes())])
        );
        let flipped = at.index(body.len());
        if let Some(byte) = body.get_mut(flipped) {
            *byte ^= 1 << bit;
        }
        // CRC32 catches every single-bit error: the body is never read as another one.
        prop_assert!(frame(&body, &cuts, false, 1 << 20).is_err());
    }
}
