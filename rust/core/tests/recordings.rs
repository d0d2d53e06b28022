//! Every `OpenAI` Chat recording in `recordings/` reassembles, through the core alone, to its expected calls.
//!
//! The chunks are read with `serde_json` and walked in the order `docs/semantics.md` gives ("Reading a chunk"), the
//! same walk the Python binding does over dicts; expected values come from each recording's manifest. Calls are
//! checked against the request's tools when the manifest records them.

#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "a test fails loudly on a broken recording"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use toolstream_core::{
    Accumulator, Arguments, Config, Emit, Fragment, HandedOver, Limits, Severity, ToolChoice, ToolValidators,
};

fn recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../recordings/openai-chat")
}

/// The `data:` payloads of an SSE body (the framing of a later issue replaces this test helper).
fn sse_payloads(text: &str) -> Vec<String> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut payloads = Vec::new();
    for event in normalized.split("\n\n") {
        let data: Vec<&str> = event
            .lines()
            .map(str::trim_start)
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|value| value.strip_prefix(' ').unwrap_or(value))
            .collect();
        if !data.is_empty() {
            let payload = data.join("\n");
            if payload.trim() != "[DONE]" {
                payloads.push(payload);
            }
        }
    }
    payloads
}

fn chunks(path: &Path) -> Vec<Value> {
    let text = fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let payloads: Vec<String> = if path.extension().is_some_and(|ext| ext == "jsonl") {
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(str::to_owned)
            .collect()
    } else {
        sse_payloads(&text)
    };
    payloads
        .iter()
        .map(|payload| serde_json::from_str(payload).expect("a JSON chunk"))
        .collect()
}

fn feed(accumulator: &mut Accumulator, chunk: &Value, payloads: &mut Vec<Value>) {
    if let Some(error) = chunk.get("error").filter(|error| !error.is_null()) {
        payloads.push(error.clone());
        accumulator.provider_error(payloads.len() - 1, &error.to_string());
        return;
    }
    let choices = chunk
        .get("choices")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (position, choice) in choices.iter().enumerate() {
        let number = choice
            .get("index")
            .and_then(Value::as_i64)
            .unwrap_or(i64::try_from(position).expect("small"));
        accumulator.touch(number);
        if let Some(delta) = choice.get("delta").filter(|delta| delta.is_object()) {
            for call in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
                let function = call.get("function");
                let raw = function
                    .and_then(|function| function.get("arguments"))
                    .filter(|raw| !raw.is_null());
                let canonical = raw.filter(|raw| !raw.is_string()).map(Value::to_string);
                let arguments = match (raw, &canonical) {
                    (_, Some(canonical)) => Some(canonical.as_bytes()),
                    (Some(Value::String(text)), None) => Some(text.as_bytes()),
                    _ => None,
                };
                let fragment = Fragment {
                    index: call.get("index").and_then(Value::as_i64),
                    id: text(call.get("id")),
                    name: text(function.and_then(|function| function.get("name"))),
                    kind: text(call.get("type")),
                    arguments,
                    arguments_was_value: canonical.is_some(),
                };
                accumulator.fragment(number, &fragment);
            }
            if let Some(content) = delta.get("content").and_then(Value::as_str) {
                accumulator.text(number, content.as_bytes());
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            accumulator.finish(number, reason.as_bytes());
        }
    }
}

fn text(value: Option<&Value>) -> Option<&[u8]> {
    value.and_then(Value::as_str).map(str::as_bytes)
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
    let schemas: Vec<(&str, String)> = tools
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().expect("a tool name");
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

#[test]
fn every_recording_reassembles_to_its_expected_calls() {
    let folder = recordings();
    let mut checked = 0;
    let mut manifests: Vec<PathBuf> = fs::read_dir(&folder)
        .expect("recordings/openai-chat exists")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    manifests.sort();
    for manifest_path in manifests {
        let manifest: Value =
            serde_json::from_str(&fs::read_to_string(&manifest_path).expect("readable")).expect("a JSON manifest");
        let data = ["sse", "jsonl"]
            .iter()
            .map(|ext| manifest_path.with_extension(ext))
            .find(|path| path.exists())
            .expect("a data file beside the manifest");
        let config = Config {
            emit: Emit::CallEnd,
            limits: Limits::default(),
            tool_choice: tool_choice(&manifest),
            log_violations: false,
            validators: validators(&manifest),
        };
        let mut accumulator = Accumulator::new(config);
        let mut payloads = Vec::new();
        let mut handed = Vec::new();
        for chunk in chunks(&data) {
            feed(&mut accumulator, &chunk, &mut payloads);
            handed.extend(accumulator.take_ready());
        }
        accumulator.end();
        handed.extend(accumulator.take_ready());
        handed.sort_by_key(|call| (call.choice, call.seq));

        let name = manifest_path.display().to_string();
        let expected = manifest["expected"]["calls"].as_array().expect("expected calls");
        assert_eq!(handed.len(), expected.len(), "{name}: number of calls");
        for (call, want) in handed.iter().zip(expected) {
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
            assert_eq!(text, want["arguments_json"].as_str().expect("arguments_json"), "{name}");
            let arguments = match call.arguments {
                Arguments::Empty => Some(Value::Object(serde_json::Map::new())),
                Arguments::Value => Some(serde_json::from_slice(&call.arguments_json).expect("a value")),
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
        }
        let mut stream: Vec<&str> = accumulator
            .stream_violations()
            .iter()
            .map(|v| v.code.as_str())
            .collect();
        stream.sort_unstable();
        let want_stream: Vec<&str> = manifest["expected"]["violations"]
            .as_array()
            .expect("stream violations")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(stream, want_stream, "{name}: stream violations");
        let first = accumulator.choices().into_iter().next();
        assert_eq!(
            first.as_ref().and_then(|choice| choice.finish_reason.as_deref()),
            manifest["expected"]["finish_reason"].as_str().map(str::as_bytes),
            "{name}"
        );
        let text = first
            .map(|choice| String::from_utf8(choice.text).expect("UTF-8 text"))
            .unwrap_or_default();
        assert_eq!(text, manifest["expected"]["text"], "{name}");
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} recordings found in {}", folder.display());
}
