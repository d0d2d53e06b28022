//! `xlam`: a JSON array of `{"name": ..., "arguments": {...}}`, bare, fenced, after `[TOOL_CALLS]` or in tags.
//!
//! Twin of the reference's `dialects/xlam.py`; the machinery is `json_array.rs`.

use super::json_array::{BARE, JsonArray, Layout, Opener};

/// The `xlam` dialect.
pub(crate) type Xlam = JsonArray<XlamLayout>;

#[derive(Debug, Default)]
pub(crate) struct XlamLayout;

impl Layout for XlamLayout {
    const OPENERS: &'static [(&'static str, Opener)] = &[
        ("[TOOL_CALLS]", Opener::Array(None)),
        ("<tool_call>", Opener::Array(Some("</tool_call>"))),
        ("```json", Opener::Array(Some("```"))),
        (BARE, Opener::Bare),
    ];
    const STARTS: &'static [&'static str] = &["[TOOL_CALLS]", "<tool_call>", "```json", BARE];
    const THINK: Option<(&'static str, &'static str)> = Some(("<think>", "</think>"));
}
