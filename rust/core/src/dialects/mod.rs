//! Text dialects: the tool calls open-weight models write into their text, parsed as the text streams.
//!
//! The rules are those of `docs/semantics.md` ("Text dialects"), each dialect's those of `docs/dialects.md`; the
//! reference's parsers in `python/toolwire/reference/dialects/` are the same, file for file, and give the same events
//! (messages included) for every split of every text. What every dialect stands on (the events, the findings, the
//! buffer and its hold-back of markers, the JSON reader) is `shared.rs`; a dialect is its file: its markers, its call
//! state and one step per state ([`shared::Grammar`]).
//!
//! The dialects are the one table below (`dialects!`): the enum of dialects, their names, the parser of a stream and
//! its dispatch are generated from it, so that a dialect is registered by one line.

// The dialects' files, declared here rather than by the table, so that one file may hold several dialects
// (`qwen3_coder.rs`: `seed_oss` too) and rustfmt reaches them.
mod apriel;
mod cohere_command;
mod deepseek;
mod deepseek_dsml;
mod deepseek_v3;
mod deepseek_v31;
mod functiongemma;
mod gemma;
mod gemma4;
mod glm;
mod glm45;
mod glm47;
mod granite;
mod harmony;
mod hermes;
mod json_array;
mod kimi_k2;
mod llama3_json;
mod minimax_m2;
mod mistral;
mod phi4_mini;
mod python_literals;
mod pythonic;
mod qwen3_coder;
mod raw_values;
mod shared;
#[cfg(test)]
pub(crate) mod test_support;
mod xlam;

// The decoders' tests write output items compact with it, as the binding does.
#[cfg(test)]
pub(crate) use shared::compact_text;
use std::sync::Arc;

use crate::accumulator::Limits;

use shared::Runner;
pub use shared::{DialectEvent, Finding, FindingCode, Finished, TextCall, Tools};

/// Generates, from one line per dialect (its variant, its name as servers give it to `--tool-call-parser`, its file
/// and grammar, and what it is), the [`Dialect`] enum and its names, and [`DialectParser`]'s dispatch.
macro_rules! dialects {
    ($($variant:ident $name:literal $module:ident::$grammar:ident $doc:literal,)+) => {
        /// A text dialect.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Dialect {
            $(#[doc = $doc] $variant,)+
        }

        impl Dialect {
            /// Every dialect, in the order of the table (the reference's `DIALECTS`).
            pub const ALL: &[Self] = &[$(Self::$variant,)+];

            /// The dialect's name, as servers give it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }
        }

        /// One stream's parser: the dialect's grammar beside the shared runner, dispatched statically (boxed: the
        /// dialects' states differ in size, and a stream has one parser).
        #[derive(Debug)]
        enum Parser {
            $($variant(Box<Runner<$module::$grammar>>),)+
        }

        impl Parser {
            fn new(dialect: Dialect, tools: Option<Arc<Tools>>, reasoning: bool, limits: Limits) -> Self {
                match dialect {
                    $(Dialect::$variant => Self::$variant(Box::new(Runner::new(tools, reasoning, limits))),)+
                }
            }

            fn feed(&mut self, delta: &str, out: &mut Vec<DialectEvent>) -> Result<(), Finished> {
                match self {
                    $(Self::$variant(runner) => runner.feed(delta, out),)+
                }
            }

            fn finish(&mut self, out: &mut Vec<DialectEvent>) -> Result<(), Finished> {
                match self {
                    $(Self::$variant(runner) => runner.finish(out),)+
                }
            }
        }
    };
}

// The dialects: one line each. Its twin is `DIALECTS` in `python/toolwire/reference/dialects/__init__.py`, whose
// order it keeps; `tests/dialects/test_core_twin.py` holds the two to the same events.
dialects! {
    Hermes "hermes" hermes::Hermes "`<tool_call>{\"name\": …, \"arguments\": {…}}</tool_call>` (Hermes, Qwen2.5/3, Granite 4).",
    Qwen3Coder "qwen3_coder" qwen3_coder::Qwen3Coder "`<tool_call><function=NAME><parameter=K>V</parameter>…</function></tool_call>` (Qwen3-Coder, Qwen3.5).",
    SeedOss "seed_oss" qwen3_coder::SeedOss "`qwen3_coder`'s body in `<seed:tool_call>`, reasoning in `<seed:think>` (Seed-OSS).",
    Llama3Json "llama3_json" llama3_json::Llama3Json "`{\"name\": …, \"parameters\": {…}}`, bare or after `<|python_tag|>` (Llama 3.1/3.3, Llama 4).",
    Mistral "mistral" mistral::Mistral "`[TOOL_CALLS]` then a JSON array of calls (pre-v11) or `NAME[CALL_ID]ID[ARGS]{…}` (v11+).",
    Pythonic "pythonic" pythonic::Pythonic "A Python list of calls `[f(a=1), g(b='x')]` (Llama 3.2, Llama 4, LFM2, Olmo 3).",
    MiniMaxM2 "minimax_m2" minimax_m2::MiniMaxM2 "`<minimax:tool_call><invoke name=\"NAME\"><parameter name=\"K\">V</parameter>…</invoke>` (MiniMax-M2).",
    DeepSeekV3 "deepseek_v3" deepseek_v3::DeepSeekV3 "`<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and fenced JSON (DeepSeek V3, R1).",
    DeepSeekV31 "deepseek_v31" deepseek_v31::DeepSeekV31 "`<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}` (DeepSeek V3.1).",
    DeepSeekDsml "deepseek_dsml" deepseek_dsml::DeepSeekDsml "`<｜DSML｜invoke name=\"NAME\">` with typed parameters (DeepSeek V3.2, V4).",
    KimiK2 "kimi_k2" kimi_k2::KimiK2 "`<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}` (Kimi K2).",
    Harmony "harmony" harmony::Harmony "gpt-oss's messages: `<|channel|>commentary to=functions.NAME<|message|>{…}<|call|>`.",
    Glm45 "glm45" glm45::Glm45 "`<tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>…</tool_call>` (GLM-4.5/4.6, Ling 3.0).",
    Glm47 "glm47" glm47::Glm47 "`<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>` (GLM-4.7, GLM-5.1).",
    Gemma4 "gemma4" gemma4::Gemma4 "`<|tool_call>call:NAME{key:<|\"|>text<|\"|>,n:42}<tool_call|>` (Gemma 4).",
    FunctionGemma "functiongemma" functiongemma::FunctionGemma "`<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>` (FunctionGemma).",
    Granite "granite" granite::Granite "`<|tool_call|>` or `<tool_call>` (unclosed), then a JSON array of calls (Granite 3.x).",
    Phi4Mini "phi4_mini" phi4_mini::Phi4Mini "`functools[{\"name\": …, \"arguments\": {…}}]` (Phi-4-mini, `FireFunction` v2).",
    Xlam "xlam" xlam::Xlam "A JSON array of calls, bare, fenced, after `[TOOL_CALLS]` or in `<tool_call>` (xLAM-2).",
    Apriel "apriel" apriel::Apriel "`<tool_calls>[{\"name\": …, \"arguments\": {…}}]</tool_calls>` (Apriel 1.5).",
    CohereCommand "cohere_command" cohere_command::CohereCommand "`<|START_ACTION|>[{\"tool_call_id\": …, \"tool_name\": …, \"parameters\": {…}}]<|END_ACTION|>` (Command R7B, A).",
}

impl Dialect {
    /// The dialect a name stands for.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|dialect| dialect.name() == name)
    }
}

/// A dialect's streaming parser: text deltas in, events out, in order.
#[derive(Debug)]
pub struct DialectParser {
    parser: Parser,
}

impl DialectParser {
    /// A parser at the start of a model's text.
    ///
    /// `tools` are the parameters schema of each tool, by name (what types raw values, and nothing else);
    /// `reasoning` says the prompt opened the reasoning block, so the text starts inside it (ignored by a dialect
    /// without reasoning markers); `limits.max_argument_bytes` caps a call's text and `limits.max_depth` its nesting.
    pub fn new(dialect: Dialect, tools: Option<Arc<Tools>>, reasoning: bool, limits: Limits) -> Self {
        Self {
            parser: Parser::new(dialect, tools, reasoning, limits),
        }
    }

    /// Appends to `out` the events `delta` completes.
    pub fn feed(&mut self, delta: &str, out: &mut Vec<DialectEvent>) -> Result<(), Finished> {
        self.parser.feed(delta, out)
    }

    /// Appends to `out` the events the end of the stream completes: held text released, a call cut, reasoning left
    /// open. The parser takes nothing more.
    pub fn finish(&mut self, out: &mut Vec<DialectEvent>) -> Result<(), Finished> {
        self.parser.finish(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_in_the_table_and_nowhere_else() {
        for dialect in Dialect::ALL {
            assert_eq!(Dialect::from_name(dialect.name()), Some(*dialect));
        }
        assert_eq!(Dialect::from_name("Hermes"), None);
    }

    #[test]
    fn the_parser_dispatches_to_its_dialect_and_refuses_text_after_finish() {
        let mut parser = DialectParser::new(Dialect::Hermes, None, false, Limits::default());
        let mut out = Vec::new();
        assert_eq!(
            parser.feed("Hi <tool_call>{\"name\": \"f\", \"arguments\": {}}", &mut out),
            Ok(())
        );
        assert_eq!(parser.finish(&mut out), Ok(()));
        assert!(matches!(
            out.as_slice(),
            [DialectEvent::Text(_), DialectEvent::Call(_), DialectEvent::Finding(_)]
        ));
        assert_eq!(parser.feed("x", &mut out), Err(Finished));
        assert_eq!(parser.finish(&mut out), Err(Finished));
    }
}
