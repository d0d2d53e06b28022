//! `functiongemma`: FunctionGemma, `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`.
//!
//! Twin of the reference's `dialects/functiongemma.py`: the Gemma grammar (`gemma.rs`) with strings quoted by the
//! token `<escape>`; a `,` left out between two members (FunctionGemma's streamed calls, vLLM's tests) is read as if
//! written. No reasoning markers.

use super::gemma::{Gemma, Spelling};

/// The `functiongemma` dialect.
pub(crate) type FunctionGemma = Gemma<FunctionGemmaSpelling>;

#[derive(Debug, Default)]
pub(crate) struct FunctionGemmaSpelling;

impl Spelling for FunctionGemmaSpelling {
    const START: &'static str = "<start_function_call>";
    const END: &'static str = "<end_function_call>";
    const QUOTE: &'static str = "<escape>";
}
