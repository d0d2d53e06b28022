//! What the dialects' unit tests share: a grammar fed its text, whole and a char at a time, and the events they
//! expect, built in one spelling.

use std::sync::Arc;

use super::shared::{DialectEvent, Finding, FindingCode, Grammar, Runner, TextCall, Tools};
use crate::accumulator::Limits;

/// The events of `deltas` fed to `G` in turn, then the end of the stream, as they come.
pub(crate) fn parse<G: Grammar>(
    deltas: &[&str],
    tools: Option<&Tools>,
    reasoning: bool,
    limits: Limits,
) -> Vec<DialectEvent> {
    let mut runner = Runner::<G>::new(tools.cloned().map(Arc::new), reasoning, limits);
    let mut out = Vec::new();
    for delta in deltas {
        assert_eq!(runner.feed(delta, &mut out), Ok(()));
    }
    assert_eq!(runner.finish(&mut out), Ok(()));
    out
}

/// Each run of text (or reasoning) as one event: what every split of one text gives.
pub(crate) fn merged(events: Vec<DialectEvent>) -> Vec<DialectEvent> {
    let mut out: Vec<DialectEvent> = Vec::new();
    for event in events {
        match (out.last_mut(), event) {
            (Some(DialectEvent::Text(last)), DialectEvent::Text(text))
            | (Some(DialectEvent::Reasoning(last)), DialectEvent::Reasoning(text)) => last.push_str(&text),
            (_, event) => out.push(event),
        }
    }
    out
}

/// The merged events of `whole`, which feeding it one char at a time must give too.
pub(crate) fn fed_both_ways<G: Grammar>(
    whole: &str,
    tools: Option<&Tools>,
    reasoning: bool,
    limits: Limits,
) -> Vec<DialectEvent> {
    let at_once = merged(parse::<G>(&[whole], tools, reasoning, limits));
    let chars: Vec<String> = whole.chars().map(String::from).collect();
    let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
    assert_eq!(merged(parse::<G>(&chars, tools, reasoning, limits)), at_once, "{whole}");
    at_once
}

/// The events of `whole` fed to `G` one char at a time, as they come, with no string allocated per char, so that a
/// megabyte of it is cheap: such a text is a test that the grammar reads it in linear time, or it never ends.
pub(crate) fn fed_by_char<G: Grammar>(whole: &str, limits: Limits) -> Vec<DialectEvent> {
    let mut runner = Runner::<G>::new(None, false, limits);
    let mut out = Vec::new();
    let mut buffer = [0; 4];
    for char in whole.chars() {
        assert_eq!(runner.feed(char.encode_utf8(&mut buffer), &mut out), Ok(()));
    }
    assert_eq!(runner.finish(&mut out), Ok(()));
    out
}

/// [`fed_both_ways`] with no tools, outside reasoning, within the default limits.
pub(crate) fn both_ways<G: Grammar>(whole: &str) -> Vec<DialectEvent> {
    fed_both_ways::<G>(whole, None, false, Limits::default())
}

pub(crate) fn text(text: &str) -> DialectEvent {
    DialectEvent::Text(text.to_owned())
}

pub(crate) fn reasoning(text: &str) -> DialectEvent {
    DialectEvent::Reasoning(text.to_owned())
}

pub(crate) fn finding(code: FindingCode, message: &str, call: Option<usize>) -> DialectEvent {
    DialectEvent::Finding(Finding {
        code,
        message: message.to_owned(),
        call,
    })
}

/// A call: its index, name, arguments and id, whether it is whole and valid ([`OK`], [`INVALID`] or [`CUT`]).
pub(crate) fn call(
    index: usize,
    name: Option<&str>,
    arguments: &str,
    id: Option<&str>,
    (whole, valid): (bool, bool),
) -> DialectEvent {
    DialectEvent::Call(TextCall {
        index,
        name: name.map(str::to_owned),
        arguments: arguments.to_owned(),
        id: id.map(str::to_owned),
        whole,
        valid,
    })
}

pub(crate) const OK: (bool, bool) = (true, true);
pub(crate) const INVALID: (bool, bool) = (true, false);
pub(crate) const CUT: (bool, bool) = (false, false);
