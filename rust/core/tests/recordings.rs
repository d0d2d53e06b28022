//! Every recording in `recordings/`, of every wire format, reassembles through the core alone to its expected calls,
//! stream findings and output.
//!
//! Each data file is framed by the core's body framer (fed a byte at a time), whatever its framing (server-sent
//! events, JSON lines, a JSON array, AWS event-stream messages), and each event read from its bytes by a decoder that
//! detects the format, as the raw-bytes path does; expected values come from each recording's manifest. Calls are
//! checked against the request's tools when the manifest records them.

#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "a test fails loudly on a broken recording"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiter::{Jiter, JiterResult, Peek};
use serde_json::Value;
use toolwire_core::accumulator::TextDialect;
use toolwire_core::dialects::Dialect;
use toolwire_core::framing::{Event, Framer, FramingError};
use toolwire_core::{
    Accumulator, Arguments, Canonical, Config, Decoder, HandedOver, Severity, ToolChoice, ToolValidators,
};

/// The data files a manifest may sit beside, as `toolwire.recordings.DATA_SUFFIXES` lists them.
const DATA_EXTENSIONS: [&str; 4] = ["sse", "jsonl", "json-array", "eventstream"];

fn recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings")
}

/// An event's name (None for the default `message`) and its JSON.
type Payload = (Option<Vec<u8>>, Vec<u8>);

/// The JSON events of a recording's data file, as the core frames them.
fn chunks(path: &Path) -> Vec<Payload> {
    let bytes = fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut framer = Framer::new(1 << 24);
    let mut payloads = Vec::new();
    let mut collect = |event: Event<'_>| -> Result<(), FramingError> {
        let data = event.data.trim_ascii();
        if !data.is_empty() && data != b"[DONE]" {
            let name = (event.kind != b"message").then(|| event.kind.to_vec());
            payloads.push((name, data.to_vec()));
        }
        Ok(())
    };
    // Byte by byte: the framer must not care where reads end.
    for byte in bytes.chunks(1) {
        framer
            .feed(byte, &mut collect)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    }
    framer
        .finish(&mut collect)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    payloads
}

/// Arguments sent as a value get the compact text Python's `json.dumps` gives the recordings' values: members in
/// their order, numbers as written, strings escaped as `serde_json` escapes them. Written with jiter, because a
/// `serde_json::Value` keeps order only with `preserve_order`, a dev-only feature that would make `cargo test`
/// build `serde_json` and every crate above it a second time.
fn canonical(raw: &[u8]) -> Result<Vec<u8>, String> {
    let mut jiter = Jiter::new(raw);
    let mut text = Vec::with_capacity(raw.len());
    let peek = jiter.peek().map_err(|error| error.to_string())?;
    write_compact(&mut jiter, peek, &mut text).map_err(|error| error.to_string())?;
    jiter.finish().map_err(|error| error.to_string())?;
    Ok(text)
}

fn write_compact(jiter: &mut Jiter<'_>, peek: Peek, text: &mut Vec<u8>) -> JiterResult<()> {
    match peek {
        Peek::Null => {
            jiter.known_null()?;
            text.extend_from_slice(b"null");
        }
        Peek::True | Peek::False => {
            let literal: &[u8] = if jiter.known_bool(peek)? { b"true" } else { b"false" };
            text.extend_from_slice(literal);
        }
        Peek::String => write_string(text, jiter.known_str()?),
        Peek::Array => {
            text.push(b'[');
            let mut item = jiter.known_array()?;
            while let Some(peek) = item {
                write_compact(jiter, peek, text)?;
                item = jiter.array_step()?;
                if item.is_some() {
                    text.push(b',');
                }
            }
            text.push(b']');
        }
        Peek::Object => {
            text.push(b'{');
            let mut key = jiter.known_object()?.map(str::to_owned);
            while let Some(name) = key {
                write_string(text, &name);
                text.push(b':');
                let peek = jiter.peek()?;
                write_compact(jiter, peek, text)?;
                key = jiter.next_key()?.map(str::to_owned);
                if key.is_some() {
                    text.push(b',');
                }
            }
            text.push(b'}');
        }
        _ => text.extend_from_slice(jiter.known_number_bytes(peek)?),
    }
    Ok(())
}

fn write_string(text: &mut Vec<u8>, value: &str) {
    text.extend(serde_json::to_vec(value).expect("a string is written"));
}

/// One event through the decoder, as the binding drives it: its error reported, then any finish it carried.
fn feed(decoder: &mut Decoder, accumulator: &mut Accumulator, (name, data): &Payload, payloads: &mut Vec<Value>) {
    let mut canonical = canonical;
    let canonical: Canonical<'_> = &mut canonical;
    let extras = decoder
        .read(accumulator, name.as_deref(), data, canonical)
        .expect("a well-formed event");
    if let Some(error) = extras.error {
        payloads.push(serde_json::from_slice(&error).expect("JSON"));
        accumulator.provider_error(payloads.len() - 1, &String::from_utf8_lossy(&error));
    }
    if let Some((reason, kind)) = extras.finish {
        accumulator.finish(0, &reason, kind);
    }
}

/// Sorted codes, as a manifest lists them; an error with a JSON pointer as `"TYPE_MISMATCH /celsius"`.
fn codes(call: &HandedOver, errors: bool) -> Vec<String> {
    let mut codes: Vec<String> = call
        .violations
        .iter()
        .filter(|violation| (violation.severity == Severity::Error) == errors)
        .map(|violation| match &violation.path {
            Some(path) if errors => format!("{} {path}", violation.code.as_str()),
            _ => violation.code.as_str().to_owned(),
        })
        .collect();
    codes.sort();
    codes
}

/// The request's tools (`{name, description, parameters}`), compiled; None when the request is not recorded.
fn validators(manifest: &Value) -> Option<Arc<ToolValidators>> {
    let tools = manifest.pointer("/request/tools")?.as_array()?;
    // Built-in tools (declared by type, with no name) are the provider's own: nothing to compile.
    let schemas: Vec<(&str, String)> = tools
        .iter()
        .filter_map(|tool| Some((tool["name"].as_str()?, tool)))
        .map(|(name, tool)| {
            let parameters = tool.get("parameters").cloned().unwrap_or(Value::Null);
            let parameters = if parameters.is_null() {
                serde_json::json!({"type": "object"})
            } else {
                parameters
            };
            (name, parameters.to_string())
        })
        .collect();
    let compiled = ToolValidators::compile(schemas.iter().map(|(name, schema)| (*name, schema.as_bytes())))
        .expect("the recorded tools compile");
    Some(Arc::new(compiled))
}

fn tool_choice(manifest: &Value) -> ToolChoice {
    match manifest.pointer("/request/tool_choice") {
        Some(Value::String(choice)) if choice == "required" || choice == "any" => ToolChoice {
            required: true,
            name: None,
        },
        Some(Value::Object(choice)) => {
            let name = choice
                .get("function")
                .and_then(|function| function.get("name"))
                .or_else(|| choice.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            ToolChoice {
                required: name.is_some(),
                name,
            }
        }
        _ => ToolChoice::default(),
    }
}

/// One handed-over call against its manifest entry.
fn check_call(name: &str, call: &HandedOver, want: &Value) {
    assert_eq!(
        Some(call.seq),
        want["seq"].as_u64().and_then(|seq| usize::try_from(seq).ok()),
        "{name}"
    );
    assert_eq!(call.id, want["id"].as_str().expect("an id").as_bytes(), "{name}");
    assert_eq!(call.name.as_deref(), want["name"].as_str().map(str::as_bytes), "{name}");
    assert_eq!(call.index, want["index"].as_i64(), "{name}");
    assert_eq!(call.is_valid(), want["ok"].as_bool().expect("ok"), "{name}");
    let text = String::from_utf8_lossy(&call.arguments_json);
    if call.arguments == Arguments::Text {
        // A custom tool call: its text is its input, and it has no arguments text.
        assert!(
            want["arguments_json"].is_null(),
            "{name}: a custom call has no arguments_json"
        );
        assert_eq!(text, want["input"].as_str().expect("input"), "{name}");
    } else {
        assert_eq!(text, want["arguments_json"].as_str().expect("arguments_json"), "{name}");
    }
    let arguments = match call.arguments {
        Arguments::Empty => Some(Value::Object(serde_json::Map::new())),
        Arguments::Value => Some(serde_json::from_slice(&call.arguments_json).expect("a value")),
        Arguments::Text => call.is_valid().then(|| Value::Object(serde_json::Map::new())),
        Arguments::Absent => None,
    };
    assert_eq!(arguments.unwrap_or(Value::Null), want["arguments"], "{name}");
    let want_codes = |key: &str| -> Vec<String> {
        want.get(key)
            .and_then(Value::as_array)
            .map(|codes| codes.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    assert_eq!(
        codes(call, false),
        want_codes("violations"),
        "{name}: warnings and infos of {}",
        String::from_utf8_lossy(&call.id)
    );
    assert_eq!(
        codes(call, true),
        want_codes("errors"),
        "{name}: errors of {}",
        String::from_utf8_lossy(&call.id)
    );
    let extra: serde_json::Map<String, Value> = call
        .extra
        .iter()
        .map(|(key, raw)| ((*key).to_owned(), serde_json::from_slice(raw).expect("JSON")))
        .collect();
    let want_extra = want.get("extra").cloned().unwrap_or_else(|| serde_json::json!({}));
    assert_eq!(Value::Object(extra), want_extra, "{name}: extra");
}

/// The accumulator's configuration a manifest asks for: its tools, its `tool_choice` and its dialect.
fn config_of(manifest: &Value, data: &Path) -> Config {
    let validators = validators(manifest);
    let text_calls = manifest["dialect"].as_str().map(|name| TextDialect {
        dialect: Dialect::from_name(name).unwrap_or_else(|| panic!("{}: no dialect {name}", data.display())),
        reasoning: false,
        tools: validators.as_ref().map(|validators| validators.parameters()),
    });
    Config {
        tool_choice: tool_choice(manifest),
        validators,
        text_calls,
        ..Config::default()
    }
}

/// Feeds a recording to the end and returns the calls handed over, in the order of their choice and opening.
fn replay(manifest: &Value, data: &Path, decoder: &mut Decoder, accumulator: &mut Accumulator) -> Vec<HandedOver> {
    let mut payloads = Vec::new();
    let mut handed = Vec::new();
    if manifest["format"] == "text" {
        // A model's own text deltas: one JSON string per line, no body to frame.
        accumulator.text_source();
        for line in fs::read_to_string(data)
            .expect("readable")
            .lines()
            .filter(|line| !line.is_empty())
        {
            let delta: String = serde_json::from_str(line).expect("a JSON string per line");
            accumulator.generated_text(0, delta.as_bytes());
            handed.extend(accumulator.take_ready());
        }
    } else {
        for chunk in chunks(data) {
            feed(decoder, accumulator, &chunk, &mut payloads);
            handed.extend(accumulator.take_ready());
        }
        let mut canonical = canonical;
        decoder
            .end(accumulator, &mut canonical)
            .expect("the end of a well-formed stream");
    }
    accumulator.end();
    handed.extend(accumulator.take_ready());
    handed.sort_by_key(|call| (call.choice, call.seq));
    handed
}

/// The stream's own expectations: output items, stream violations, choices, refusal, finish reason and text.
fn check_stream(name: &str, expected: &Value, decoder: &Decoder, accumulator: &Accumulator) {
    // The decoder's items and the dialect's reasoning, placed by the calls opened before each (as the binding does).
    let mut items = decoder.output();
    items.extend(accumulator.reasoning_output());
    items.sort_by_key(|item| item.after_calls);
    let output: Vec<Value> = items
        .iter()
        .map(|item| {
            let value: Value = serde_json::from_slice(&item.json).expect("an output item is JSON");
            serde_json::json!({"after_calls": item.after_calls, "value": value})
        })
        .collect();
    let want_output = expected.get("output").cloned().unwrap_or_else(|| serde_json::json!([]));
    assert_eq!(Value::Array(output), want_output, "{name}: output");
    let mut stream: Vec<&str> = accumulator
        .stream_violations()
        .iter()
        .map(|v| v.code.as_str())
        .collect();
    stream.sort_unstable();
    let want_stream: Vec<&str> = expected["violations"]
        .as_array()
        .expect("stream violations")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(stream, want_stream, "{name}: stream violations");
    if let Some(want_choices) = expected.get("choices") {
        let choices: Vec<Value> = accumulator
            .choices()
            .into_iter()
            .map(|choice| {
                let mut described = serde_json::Map::new();
                described.insert("choice".into(), choice.choice.into());
                described.insert(
                    "text".into(),
                    String::from_utf8(choice.text).expect("UTF-8 text").into(),
                );
                let finish = choice
                    .finish_reason
                    .map(|reason| String::from_utf8(reason).expect("UTF-8"));
                described.insert("finish_reason".into(), finish.into());
                // A choice that refused lists its refusal; one that did not has none to list.
                if !choice.refusal.is_empty() {
                    let refusal = String::from_utf8(choice.refusal).expect("UTF-8 refusal");
                    described.insert("refusal".into(), refusal.into());
                }
                Value::Object(described)
            })
            .collect();
        assert_eq!(&Value::Array(choices), want_choices, "{name}: choices");
    }
    let first = accumulator.choices().into_iter().next();
    let refusal = first
        .as_ref()
        .filter(|choice| !choice.refusal.is_empty())
        .map(|choice| String::from_utf8(choice.refusal.clone()).expect("UTF-8 refusal"));
    assert_eq!(
        refusal.as_deref(),
        expected.get("refusal").and_then(Value::as_str),
        "{name}: refusal"
    );
    assert_eq!(
        first.as_ref().and_then(|choice| choice.finish_reason.as_deref()),
        expected["finish_reason"].as_str().map(str::as_bytes),
        "{name}"
    );
    let text = first
        .map(|choice| String::from_utf8(choice.text).expect("UTF-8 text"))
        .unwrap_or_default();
    assert_eq!(text, expected["text"], "{name}");
}

#[test]
fn every_recording_reassembles_to_its_expected_calls() {
    let folder = recordings();
    let mut checked = 0;
    let mut manifests: Vec<PathBuf> = fs::read_dir(&folder)
        .expect("recordings/ exists")
        .filter_map(Result::ok)
        .flat_map(|format| fs::read_dir(format.path()).expect("a format folder"))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    manifests.sort();
    for manifest_path in manifests {
        let manifest: Value =
            serde_json::from_str(&fs::read_to_string(&manifest_path).expect("readable")).expect("a JSON manifest");
        let data = DATA_EXTENSIONS
            .iter()
            .map(|ext| manifest_path.with_extension(ext))
            .find(|path| path.exists())
            .expect("a data file beside the manifest");
        let mut accumulator = Accumulator::new(config_of(&manifest, &data));
        let mut decoder = Decoder::new(None);
        let handed = replay(&manifest, &data, &mut decoder, &mut accumulator);

        let name = manifest_path.display().to_string();
        let expected = manifest["expected"]["calls"].as_array().expect("expected calls");
        assert_eq!(handed.len(), expected.len(), "{name}: number of calls");
        for (call, want) in handed.iter().zip(expected) {
            check_call(&name, call, want);
        }
        check_stream(&name, &manifest["expected"], &decoder, &accumulator);
        checked += 1;
    }
    assert!(checked >= 70, "only {checked} recordings found in {}", folder.display());
}
