//! `kimi_k2`: Kimi K2 and K2-Thinking, `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}`.
//!
//! Twin of the reference's `dialects/kimi_k2.py`. Calls sit in `<|tool_calls_section_begin|>` …
//! `<|tool_calls_section_end|>` (the singular `<|tool_call_section_begin|>` occurs too, llama.cpp#17376), each
//! `<|tool_call_begin|>ID<|tool_call_argument_begin|>` then a JSON object and `<|tool_call_end|>`; the section's and
//! the call's rules are `deepseek.rs`'s ([`JsonCalls`], with the id as the call's header). The id
//! `functions.NAME:IDX` (or `NAME:IDX`) is kept as the call's id and names the call; an id that names nothing is a
//! malformed call, never a name guessed from the arguments. A call is whole when its object closes. K2-Thinking
//! writes calls inside an unclosed `<think>`, sometimes with neither section markers nor `<|tool_call_end|>`: a call
//! marker ends reasoning, and a call outside a section stands (`MISSING_START_MARKER`), ended by its object.

use super::deepseek::{Header, JsonCalls, JsonHeader, Sectioned, name_token};
use super::shared::{is_python_space, quoted};

const SECTION_BEGIN: &str = "<|tool_calls_section_begin|>";
const SECTION_BEGIN_SINGULAR: &str = "<|tool_call_section_begin|>";
const SECTION_END: &str = "<|tool_calls_section_end|>";
const CALL_BEGIN: &str = "<|tool_call_begin|>";
const ARGUMENT_BEGIN: &str = "<|tool_call_argument_begin|>";
const CALL_END: &str = "<|tool_call_end|>";

const PREFIX: &str = "functions.";

/// The `kimi_k2` dialect.
pub(crate) type KimiK2 = Sectioned<JsonCalls<Kimi>>;

/// The markers and id of a `kimi_k2` call.
#[derive(Debug, Default)]
pub(crate) struct Kimi;

impl JsonHeader for Kimi {
    const SECTIONS: &'static [(&'static str, &'static str)] =
        &[(SECTION_BEGIN, SECTION_END), (SECTION_BEGIN_SINGULAR, SECTION_END)];
    const STARTS: &'static [&'static str] = &[SECTION_BEGIN, SECTION_BEGIN_SINGULAR, CALL_BEGIN];
    const CALL_START: &'static str = CALL_BEGIN;
    const CALL_END: &'static str = CALL_END;
    const CALL_ENDS_REASONING: bool = true;
    const HEAD: &'static [&'static str] = &[ARGUMENT_BEGIN];
    const HEADER: &'static str = "id";

    fn header_of(parts: &[String]) -> Header {
        call_id(parts.first().map_or("", String::as_str))
    }

    fn bare(start: &str) -> Option<(&'static str, String)> {
        (start == CALL_BEGIN).then(|| (SECTION_END, format!("a call outside a {SECTION_BEGIN} section")))
    }
}

/// The id a call's header writes (whitespace around it aside), the name it gives, and why it gives none.
///
/// `functions.NAME:IDX` or `NAME:IDX`, IDX digits: the name is what lies between the prefix and the last `:`.
fn call_id(header: &str) -> Header {
    let text = header.trim_matches(is_python_space);
    let malformed = |why: &str| Header {
        problem: Some(format!("the call id {} {why}", quoted(text))),
        ..Header::default()
    };
    let Some((name, index)) = text.strip_prefix(PREFIX).unwrap_or(text).rsplit_once(':') else {
        return malformed("is not functions.NAME:IDX");
    };
    if index.is_empty() || !index.bytes().all(|byte| byte.is_ascii_digit()) {
        return malformed("is not functions.NAME:IDX");
    }
    match name_token(name) {
        Ok(name) => Header {
            name: Some(name),
            id: Some(text.to_owned()),
            problem: None,
        },
        Err(_) => malformed("names no function"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::shared::FindingCode;
    use super::super::test_support::{INVALID, OK, both_ways, call, fed_both_ways, finding, reasoning, text};
    use super::*;
    use crate::accumulator::Limits;

    fn kimi(id: &str, arguments: &str) -> String {
        format!("{CALL_BEGIN}{id}{ARGUMENT_BEGIN}{arguments}{CALL_END}")
    }

    #[test]
    fn calls_keep_their_ids() {
        let whole = format!(
            "Before {SECTION_BEGIN}{}{}{SECTION_END} after",
            kimi("functions.f:0", r#"{"a": 1}"#),
            kimi(" g:1 ", "{}")
        );
        assert_eq!(
            both_ways::<KimiK2>(&whole),
            vec![
                text("Before "),
                call(0, Some("f"), r#"{"a":1}"#, Some("functions.f:0"), OK),
                call(1, Some("g"), "{}", Some("g:1"), OK),
                text(" after"),
            ]
        );
    }

    #[test]
    fn an_id_that_names_nothing_is_a_malformed_call() {
        for (id, why) in [
            ("0", r#"the call id "0" is not functions.NAME:IDX"#),
            (
                "functions.f:x",
                r#"the call id "functions.f:x" is not functions.NAME:IDX"#,
            ),
            ("functions.a b:0", r#"the call id "functions.a b:0" names no function"#),
        ] {
            let whole = format!("{SECTION_BEGIN_SINGULAR}{}{SECTION_END}", kimi(id, r#"{"q": 1}"#));
            assert_eq!(
                both_ways::<KimiK2>(&whole),
                vec![
                    finding(FindingCode::MalformedCall, why, Some(0)),
                    call(0, None, r#"{"q":1}"#, None, INVALID)
                ]
            );
        }
    }

    #[test]
    fn a_call_outside_a_section_ends_reasoning_and_stands_and_text_follows_it() {
        let outside = format!("a call outside a {SECTION_BEGIN} section");
        let whole = format!("think{CALL_BEGIN}functions.f:0{ARGUMENT_BEGIN}{{}} rest");
        assert_eq!(
            fed_both_ways::<KimiK2>(&whole, None, true, Limits::default()),
            vec![
                reasoning("think"),
                finding(FindingCode::MissingStartMarker, &outside, Some(0)),
                call(0, Some("f"), "{}", Some("functions.f:0"), OK),
                finding(
                    FindingCode::MissingEndMarker,
                    &format!("no {CALL_END} after the call"),
                    Some(0)
                ),
                text(" rest"),
            ]
        );
    }

    #[test]
    fn a_broken_call_outside_a_section_ends_where_the_next_call_begins() {
        let broken = format!("{CALL_BEGIN}functions.f:0{ARGUMENT_BEGIN}{{x");
        let whole = format!("{broken}{}", kimi("functions.g:1", "{}"));
        let outside = format!("a call outside a {SECTION_BEGIN} section");
        assert_eq!(
            both_ways::<KimiK2>(&whole),
            vec![
                finding(FindingCode::MissingStartMarker, &outside, Some(0)),
                finding(FindingCode::InvalidArguments, "the arguments are not JSON", Some(0)),
                call(0, Some("f"), &broken, Some("functions.f:0"), INVALID),
                finding(FindingCode::MissingStartMarker, &outside, Some(1)),
                call(1, Some("g"), "{}", Some("functions.g:1"), OK),
            ]
        );
    }

    #[test]
    fn an_id_past_the_byte_limit_is_said_of_the_id() {
        let limits = Limits {
            max_argument_bytes: 16,
            ..Limits::default()
        };
        let whole = format!("{SECTION_BEGIN}{}{SECTION_END}", kimi("functions.f:0", "{}"));
        assert_eq!(
            fed_both_ways::<KimiK2>(&whole, None, false, limits),
            vec![
                finding(
                    FindingCode::TooLarge,
                    "the call's id passed the limit on a call's bytes",
                    Some(0)
                ),
                call(0, None, "<|tool_call_begi", None, INVALID),
            ]
        );
    }
}
