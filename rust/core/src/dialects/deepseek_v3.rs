//! `deepseek_v3`: DeepSeek V3 (0324) and R1 (0528, distills), a fenced JSON object per call.
//!
//! Twin of the reference's `dialects/deepseek_v3.py`. `<｜tool▁calls▁begin｜>` then per call
//! `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and a ```` ```json ```` fence around the arguments, closed by
//! ```` ``` ```` and `<｜tool▁call▁end｜>`, then `<｜tool▁calls▁end｜>` (the section's rules are `deepseek.rs`'s). The
//! closing fence may follow the JSON with no newline (llama.cpp's R1 tests) and whitespace may sit between calls
//! (SGLang's MTP test). A call is whole when its object closes. Reasoning is `<think>…</think>`, which R1's prompt
//! opens; a call written inside it is reasoning text.

use super::deepseek::{Header, JsonCalls, JsonHeader, SEP, Sectioned, name_token};
use super::shared::{is_python_space, quoted};

const TYPE: &str = "function";

/// The `deepseek_v3` dialect.
pub(crate) type DeepSeekV3 = Sectioned<JsonCalls<V3>>;

/// The header and trailer of a `deepseek_v3` call.
#[derive(Debug, Default)]
pub(crate) struct V3;

impl JsonHeader for V3 {
    const HEAD: &'static [&'static str] = &[SEP, "```json"];
    const TRAIL: &'static [&'static str] = &["```"];

    fn header_of(parts: &[String]) -> Header {
        let kind = parts.first().map_or("", String::as_str);
        let name = parts.get(1).map_or("", String::as_str);
        let (name, problem) = match name_token(name) {
            Ok(name) => (Some(name), None),
            Err(problem) => (None, Some(problem)),
        };
        if kind.trim_matches(is_python_space) != TYPE {
            let problem = format!("the call's type is {}, not {}", quoted(kind), quoted(TYPE));
            return Header {
                name,
                id: None,
                problem: Some(problem),
            };
        }
        Header {
            name,
            id: None,
            problem,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::deepseek::{CALL_BEGIN, CALL_END, CALLS_BEGIN, CALLS_END};
    use super::super::shared::FindingCode;
    use super::super::test_support::{INVALID, OK, both_ways, call, finding, text};
    use super::*;

    #[test]
    fn a_fenced_call_with_its_type_and_name() {
        let whole = format!("{CALLS_BEGIN}{CALL_BEGIN}function{SEP}f\n```json\n{{\"a\": 1}}\n```{CALL_END}{CALLS_END}");
        assert_eq!(
            both_ways::<DeepSeekV3>(&whole),
            vec![call(0, Some("f"), r#"{"a":1}"#, None, OK)]
        );
    }

    #[test]
    fn a_type_other_than_function_is_a_malformed_call_that_keeps_its_name() {
        let whole = format!("{CALLS_BEGIN}{CALL_BEGIN}fn{SEP}f```json{{}}```{CALL_END}{CALLS_END}");
        assert_eq!(
            both_ways::<DeepSeekV3>(&whole),
            vec![
                finding(
                    FindingCode::MalformedCall,
                    r#"the call's type is "fn", not "function""#,
                    Some(0)
                ),
                call(0, Some("f"), "{}", None, INVALID),
            ]
        );
    }

    #[test]
    fn a_missing_fence_ends_the_call_and_its_section() {
        let whole = format!("{CALLS_BEGIN}{CALL_BEGIN}function{SEP}f```json{{}}{CALL_END}{CALLS_END}");
        assert_eq!(
            both_ways::<DeepSeekV3>(&whole),
            vec![
                call(0, Some("f"), "{}", None, OK),
                finding(FindingCode::MissingEndMarker, "no ``` after the call", Some(0)),
                finding(
                    FindingCode::MissingEndMarker,
                    &format!("the section of calls was not closed by {CALLS_END}"),
                    Some(0)
                ),
                text(&format!("{CALL_END}{CALLS_END}")),
            ]
        );
    }

    #[test]
    fn a_block_without_its_call_marker_is_named_by_its_header() {
        let block = format!("function{SEP}f```json{{x");
        assert_eq!(
            both_ways::<DeepSeekV3>(&format!("{CALLS_BEGIN}{block}{CALLS_END}")),
            vec![
                finding(
                    FindingCode::MalformedCall,
                    &format!("no {CALL_BEGIN} opens the call"),
                    Some(0)
                ),
                call(0, Some("f"), &block, None, INVALID),
            ]
        );
    }
}
