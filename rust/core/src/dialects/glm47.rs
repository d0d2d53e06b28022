//! `glm47`: GLM-4.7, 4.7-Flash, GLM-5.1 and Spark 2.5, `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…`.
//!
//! Twin of the reference's `dialects/glm47.py`: the GLM grammar (`glm.rs`), written with no whitespace between its
//! parts (GLM-4.5's layout parses too). Reasoning is `<think>…</think>`, which GLM-4.7-Flash's prompt opens; its
//! template closes it before any call, so a call written inside it is reasoning text.

use super::glm::Glm;

/// The `glm47` dialect.
pub(crate) type Glm47 = Glm<false>;

#[cfg(test)]
mod tests {
    use super::super::shared::{DialectEvent, Runner};
    use super::*;
    use crate::accumulator::Limits;

    #[test]
    fn a_call_inside_reasoning_is_reasoning_text() {
        let mut runner = Runner::<Glm47>::new(None, true, Limits::default());
        let mut out = Vec::new();
        assert_eq!(
            runner.feed("Plan.<tool_call>f</tool_call></think> done", &mut out),
            Ok(())
        );
        assert_eq!(runner.finish(&mut out), Ok(()));
        let reasoning = DialectEvent::Reasoning("Plan.<tool_call>f</tool_call>".to_owned());
        assert_eq!(out, vec![reasoning, DialectEvent::Text(" done".to_owned())]);
    }
}
