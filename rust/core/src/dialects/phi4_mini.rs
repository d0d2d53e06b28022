//! `phi4_mini`: `functools` then a JSON array of `{"name": ..., "arguments": {...}}` (Phi-4-mini, `FireFunction` v2).
//!
//! Twin of the reference's `dialects/phi4_mini.py`; the machinery is `json_array.rs`.

use super::json_array::{JsonArray, Layout, Opener};

/// The `phi4_mini` dialect.
pub(crate) type Phi4Mini = JsonArray<Phi4MiniLayout>;

#[derive(Debug, Default)]
pub(crate) struct Phi4MiniLayout;

impl Layout for Phi4MiniLayout {
    const OPENERS: &'static [(&'static str, Opener)] = &[("functools", Opener::Array(None))];
    const STARTS: &'static [&'static str] = &["functools"];
}
