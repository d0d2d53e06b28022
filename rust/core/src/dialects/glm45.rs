//! `glm45`: GLM-4.5, 4.5-Air, 4.6 and Ling 3.0, `<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>…`.
//!
//! Twin of the reference's `dialects/glm45.py`: the GLM grammar (`glm.rs`), its parts on their own lines. Reasoning is
//! `<think>…</think>`; Ling 3.0's prompt opens it, and a call ends it without `</think>` (llama.cpp's Ling tests), so a
//! call written inside reasoning is a call.

use super::glm::Glm;

/// The `glm45` dialect.
pub(crate) type Glm45 = Glm<true>;

#[cfg(test)]
mod tests {
    use super::super::shared::{DialectEvent, Runner, TextCall};
    use super::*;
    use crate::accumulator::Limits;

    #[test]
    fn a_call_ends_reasoning() {
        let mut runner = Runner::<Glm45>::new(None, true, Limits::default());
        let mut out = Vec::new();
        assert_eq!(runner.feed("Plan.<tool_call>f</tool_call> done", &mut out), Ok(()));
        assert_eq!(runner.finish(&mut out), Ok(()));
        let call = TextCall {
            index: 0,
            name: Some("f".to_owned()),
            arguments: "{}".to_owned(),
            id: None,
            whole: true,
            valid: true,
        };
        let text = DialectEvent::Text(" done".to_owned());
        assert_eq!(
            out,
            vec![
                DialectEvent::Reasoning("Plan.".to_owned()),
                DialectEvent::Call(call),
                text
            ]
        );
    }
}
