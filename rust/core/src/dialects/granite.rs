//! `granite`: `<|tool_call|>` (Granite 3.0) or `<tool_call>` (3.1+, never closed), then a JSON array of calls.
//!
//! Twin of the reference's `dialects/granite.py`; the machinery is `json_array.rs`.

use super::json_array::{JsonArray, Layout, Opener};

/// The `granite` dialect.
pub(crate) type Granite = JsonArray<GraniteLayout>;

#[derive(Debug, Default)]
pub(crate) struct GraniteLayout;

impl Layout for GraniteLayout {
    const OPENERS: &'static [(&'static str, Opener)] = &[
        ("<|tool_call|>", Opener::Array(None)),
        ("<tool_call>", Opener::Array(None)),
    ];
    const STARTS: &'static [&'static str] = &["<|tool_call|>", "<tool_call>"];
}
