//! `deepseek_v31`: DeepSeek V3.1 and V3.1-Terminus, `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>`.
//!
//! Twin of the reference's `dialects/deepseek_v31.py`. V3's markers without the `function` type and without the
//! fence, in `<｜tool▁calls▁begin｜>` … `<｜tool▁calls▁end｜>` (the section's rules are `deepseek.rs`'s). A call is
//! whole when its object closes. Reasoning is `<think>…</think>`, which the thinking prompt opens; a call written
//! inside it is reasoning text.

use super::deepseek::{Header, JsonCalls, JsonHeader, SEP, Sectioned, name_token};

/// The `deepseek_v31` dialect.
pub(crate) type DeepSeekV31 = Sectioned<JsonCalls<V31>>;

/// The header of a `deepseek_v31` call.
#[derive(Debug, Default)]
pub(crate) struct V31;

impl JsonHeader for V31 {
    const HEAD: &'static [&'static str] = &[SEP];

    fn header_of(parts: &[String]) -> Header {
        match name_token(parts.first().map_or("", String::as_str)) {
            Ok(name) => Header {
                name: Some(name),
                ..Header::default()
            },
            Err(problem) => Header {
                problem: Some(problem),
                ..Header::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::deepseek::{CALL_BEGIN, CALL_END, CALLS_BEGIN, CALLS_END};
    use super::super::shared::FindingCode;
    use super::super::test_support::{INVALID, OK, both_ways, call, finding, reasoning, text};
    use super::*;

    #[test]
    fn a_call_is_its_name_and_object() {
        let whole = format!("{CALLS_BEGIN}{CALL_BEGIN} get_weather {SEP}{{\"city\": \"Paris\"}}{CALL_END}{CALLS_END}");
        let want = vec![call(0, Some("get_weather"), r#"{"city":"Paris"}"#, None, OK)];
        assert_eq!(both_ways::<DeepSeekV31>(&whole), want);
    }

    #[test]
    fn a_name_with_whitespace_inside_is_no_name() {
        let whole = format!("{CALLS_BEGIN}{CALL_BEGIN}a b{SEP}{{}}{CALL_END}{CALLS_END}");
        assert_eq!(
            both_ways::<DeepSeekV31>(&whole),
            vec![
                finding(FindingCode::MalformedCall, r#""a b" is not a function name"#, Some(0)),
                call(0, None, "{}", None, INVALID),
            ]
        );
    }

    #[test]
    fn a_call_inside_reasoning_is_reasoning() {
        let inside = format!("a {CALLS_BEGIN}{CALL_BEGIN}f{SEP}{{}}");
        assert_eq!(
            both_ways::<DeepSeekV31>(&format!("<think>{inside}</think>ok")),
            vec![reasoning(&inside), text("ok")]
        );
    }
}
