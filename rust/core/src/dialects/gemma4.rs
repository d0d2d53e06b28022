//! `gemma4`: Gemma 4, `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:42}<tool_call|>`.
//!
//! Twin of the reference's `dialects/gemma4.py`: the Gemma grammar (`gemma.rs`) with strings quoted by the token
//! `<|"|>`. Reasoning is the thought channel, `<|channel>thought` and a newline (the channel's header, not reasoning)
//! up to `<channel|>`; the template closes it before a call, so a call written inside it is reasoning text.

use super::gemma::{Gemma, Spelling};

/// The `gemma4` dialect.
pub(crate) type Gemma4 = Gemma<Gemma4Spelling>;

#[derive(Debug, Default)]
pub(crate) struct Gemma4Spelling;

impl Spelling for Gemma4Spelling {
    const START: &'static str = "<|tool_call>";
    const END: &'static str = "<tool_call|>";
    const QUOTE: &'static str = "<|\"|>";
    const THINK: Option<(&'static str, &'static str)> = Some(("<|channel>thought\n", "<channel|>"));
}
