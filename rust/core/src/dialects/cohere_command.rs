//! `cohere_command`: `<|START_ACTION|>[{"tool_call_id": ..., "tool_name": ..., "parameters": {...}}]<|END_ACTION|>`.
//!
//! Twin of the reference's `dialects/cohere_command.py`; the machinery is `json_array.rs`. Reasoning is
//! `<|START_THINKING|>…<|END_THINKING|>`; `<|START_RESPONSE|>`, `<|START_TEXT|>` and their ends frame text and are not
//! text.

use super::json_array::{JsonArray, Layout, Opener};
use super::shared::CallKeys;

/// The `cohere_command` dialect.
pub(crate) type CohereCommand = JsonArray<CohereCommandLayout>;

#[derive(Debug, Default)]
pub(crate) struct CohereCommandLayout;

impl Layout for CohereCommandLayout {
    const OPENERS: &'static [(&'static str, Opener)] = &[
        ("<|START_ACTION|>", Opener::Array(Some("<|END_ACTION|>"))),
        ("<|START_RESPONSE|>", Opener::Silent),
        ("<|END_RESPONSE|>", Opener::Silent),
        ("<|START_TEXT|>", Opener::Silent),
        ("<|END_TEXT|>", Opener::Silent),
    ];
    const STARTS: &'static [&'static str] = &[
        "<|START_ACTION|>",
        "<|START_RESPONSE|>",
        "<|END_RESPONSE|>",
        "<|START_TEXT|>",
        "<|END_TEXT|>",
    ];
    const THINK: Option<(&'static str, &'static str)> = Some(("<|START_THINKING|>", "<|END_THINKING|>"));
    const KEYS: CallKeys = CallKeys {
        name: "tool_name",
        arguments: &["parameters"],
        id: Some("tool_call_id"),
    };
}
