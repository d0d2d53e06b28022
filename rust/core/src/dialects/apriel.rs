//! `apriel`: `<tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>` (`ServiceNow` Apriel 1.5).
//!
//! Twin of the reference's `dialects/apriel.py`; the machinery is `json_array.rs`.

use super::json_array::{JsonArray, Layout, Opener};

/// The `apriel` dialect.
pub(crate) type Apriel = JsonArray<AprielLayout>;

#[derive(Debug, Default)]
pub(crate) struct AprielLayout;

impl Layout for AprielLayout {
    const OPENERS: &'static [(&'static str, Opener)] = &[("<tool_calls>", Opener::Array(Some("</tool_calls>")))];
    const STARTS: &'static [&'static str] = &["<tool_calls>"];
}
