//! `minimax_m2`: `<minimax:tool_call><invoke name="NAME"><parameter name="K">V</parameter>…</invoke>…</minimax:tool_call>`.
//!
//! Twin of the reference's `dialects/minimax_m2.py`. MiniMax-M2, M2.1 and M2.5 write `qwen3_coder`'s body in other
//! tags, and so are read by its rules: values are raw text typed by the tool's schema (`raw_values`); `</parameter>`
//! ends a value only when `<parameter name=` or `</invoke>` follows it (after whitespace); a call is whole at
//! `</invoke>`; `<invoke name=` without the start marker opens a call (`MISSING_START_MARKER`). Three things differ.
//! A name is written in double quotes, and a tag whose name is not is malformed. Values stand inline in the
//! template, so they are kept exactly, no newline being a delimiter. One block holds several calls, each `<invoke>`
//! after the last's `</invoke>`. Reasoning is `<think>…</think>`, which the template opens in the prompt; a call
//! written inside it is reasoning text.

use super::qwen3_coder::{TagCalls, Tags};

const INVOKE: &str = "<invoke name=";

/// The tags of `minimax_m2`.
#[derive(Debug, Default)]
pub(crate) struct MiniMaxM2Tags;

impl Tags for MiniMaxM2Tags {
    const STARTS: &'static [&'static str] = &["<minimax:tool_call>", INVOKE];
    const THINK: Option<(&'static str, &'static str)> = Some(("<think>", "</think>"));
    const CALL_ENDS_REASONING: bool = false;
    const START: &'static str = "<minimax:tool_call>";
    const END: &'static str = "</minimax:tool_call>";
    const FUNCTION: &'static str = INVOKE;
    const PARAMETER: &'static str = "<parameter name=";
    const VALUE_END: &'static str = "</parameter>";
    const FUNCTION_END: &'static str = "</invoke>";
    const RUN_ON: &'static str = "\n<parameter name=";
    const NEWLINE_DELIMITED: bool = false;
    const SEVERAL_PER_BLOCK: bool = true;

    fn tag_value(text: &str) -> Option<&str> {
        let inner = text.strip_prefix('"')?.strip_suffix('"')?;
        (!inner.is_empty() && !inner.contains('"')).then_some(inner)
    }
}

/// The `minimax_m2` dialect.
pub(crate) type MiniMaxM2 = TagCalls<MiniMaxM2Tags>;

#[cfg(test)]
mod tests {
    use super::super::qwen3_coder::tests::weather;
    use super::super::shared::{DialectEvent, FindingCode};
    use super::super::test_support::{INVALID, OK, both_ways, call, fed_both_ways, finding, text};
    use super::*;
    use crate::accumulator::Limits;

    #[test]
    fn a_block_holds_several_calls_whose_values_are_kept_exactly() {
        let whole = "<minimax:tool_call>\n<invoke name=\"get_weather\"><parameter name=\"city\">\nParis\n</parameter>\
                     <parameter name=\"days\"> 3 </parameter></invoke>\n<invoke name=\"get_weather\"></invoke>\n\
                     </minimax:tool_call>.";
        let events = fed_both_ways::<MiniMaxM2>(whole, Some(&weather()), false, Limits::default());
        assert_eq!(
            events,
            vec![
                call(0, Some("get_weather"), r#"{"city":"\nParis\n","days":3}"#, None, OK),
                call(1, Some("get_weather"), "{}", None, OK),
                text("."),
            ]
        );
    }

    #[test]
    fn a_name_not_in_double_quotes_is_malformed() {
        let whole = "<minimax:tool_call><invoke name=f><parameter name=\"\">1</parameter></invoke>";
        let events = both_ways::<MiniMaxM2>(whole);
        let why = r#"a tag whose name is not in double quotes: "f""#;
        let raw = "<minimax:tool_call><invoke name=f><parameter name=\"\">1</parameter></invoke>";
        let missing = "no </minimax:tool_call> after the call";
        assert_eq!(
            events,
            vec![
                finding(FindingCode::MalformedCall, why, Some(0)),
                call(0, None, raw, None, INVALID),
                finding(FindingCode::MissingEndMarker, missing, Some(0)),
            ]
        );
        for name in ["\"\"", "\"", "\"a\"b\""] {
            assert_eq!(MiniMaxM2Tags::tag_value(name), None, "{name}");
        }
        assert_eq!(MiniMaxM2Tags::tag_value("\"é\""), Some("é"));
    }

    #[test]
    fn a_call_in_reasoning_is_reasoning_and_an_invoke_alone_is_a_call_without_its_block() {
        let events = both_ways::<MiniMaxM2>("<think><invoke name=\"f\"></invoke></think><invoke name=\"f\"></invoke>");
        assert_eq!(
            events,
            vec![
                DialectEvent::Reasoning("<invoke name=\"f\"></invoke>".to_owned()),
                finding(
                    FindingCode::MissingStartMarker,
                    "<invoke name= came without <minimax:tool_call>",
                    Some(0)
                ),
                call(0, Some("f"), "{}", None, OK),
            ]
        );
    }

    #[test]
    fn the_run_on_tag_is_a_newline_and_the_parameter_tag() {
        assert_eq!(format!("\n{}", MiniMaxM2Tags::PARAMETER), MiniMaxM2Tags::RUN_ON);
    }
}
