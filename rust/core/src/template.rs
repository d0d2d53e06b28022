//! Events that repeat a known shape: the bytes of an earlier event with holes where values vary.
//!
//! A stream's argument events differ from each other only in a few values: the argument text, and sometimes a
//! counter (Responses' `sequence_number`) or padding (`OpenAI`'s `obfuscation`). Once a decoder has read one such
//! event the full way, it keeps it as a template; the next events are matched against it byte for byte, each hole
//! read as a JSON string or number, and only the argument text is taken. An event whose strings need a closer look
//! (a control character, invalid UTF-8, a bad escape, in the taken string or an ignored one) does not match: it is
//! read the full way, which reports what is wrong, so a template never changes what a stream gives.
//!
//! A template keeps the event's literal bytes only, never the values in its holes, and only events whose literal
//! bytes are those of an envelope (`MAX_LITERAL`): what a stream's templates hold is bounded whatever its events carry.

use std::borrow::Cow;

use crate::json_view::unescape;

/// What a hole holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hole {
    /// The string whose content is taken (the argument text).
    Text,
    /// A string that is ignored.
    Padding,
    /// A number that is ignored.
    Counter,
}

/// An event's literal bytes (a string hole's quotes included), with where each hole's value goes among them, in order.
#[derive(Debug)]
pub(crate) struct Template {
    literals: Vec<u8>,
    holes: Vec<(usize, Hole)>,
}

/// The literal bytes a template keeps at most: an argument event's envelope is a few hundred (its type, ids, index,
/// model, fingerprint); an event with more is read the full way.
const MAX_LITERAL: usize = 4096;

impl Template {
    /// The template of `event`, whose values at `holes` (sub-slices of it) vary; None when a hole is not in it, or
    /// when the rest of it is larger than an envelope.
    pub(crate) fn new(event: &[u8], holes: &[(&[u8], Hole)]) -> Option<Self> {
        let mut spans = holes
            .iter()
            .map(|(value, hole)| Some((span(event, value)?, *hole)))
            .collect::<Option<Vec<_>>>()?;
        spans.sort_by_key(|(range, _)| range.start);
        // The literals are at most the event: room for them at once spares the doubling's slack, which a stream kept
        // for as long as it kept the template.
        let mut literals = Vec::with_capacity(event.len().min(MAX_LITERAL));
        let mut kept = Vec::with_capacity(spans.len());
        let mut at = 0;
        for (range, hole) in spans {
            // A string's quotes are literal: only its content varies.
            let quote = usize::from(hole != Hole::Counter);
            literals.extend_from_slice(event.get(at..range.start + quote)?);
            kept.push((literals.len(), hole));
            at = range.end - quote;
        }
        literals.extend_from_slice(event.get(at..)?);
        (literals.len() <= MAX_LITERAL).then_some(Self { literals, holes: kept })
    }

    /// The decoded text of the `Text` hole when `event` is this template with other values in its holes.
    pub(crate) fn text_of<'a>(&self, event: &'a [u8]) -> Option<Cow<'a, [u8]>> {
        let mut at_template = 0;
        let mut at_event = 0;
        let mut text = None;
        for (position, hole) in &self.holes {
            // The literal up to the hole, a string's opening quote included.
            let literal = self.literals.get(at_template..*position)?;
            if event.get(at_event..at_event + literal.len())? != literal {
                return None;
            }
            at_event += literal.len();
            let rest = event.get(at_event..)?;
            let value = if *hole == Hole::Counter {
                number(rest)?
            } else {
                string_content(rest)?
            };
            if *hole == Hole::Text {
                text = Some(value);
            }
            at_event += value.len();
            at_template = *position;
        }
        if event.get(at_event..)? != self.literals.get(at_template..)? {
            return None;
        }
        let content = text?;
        if !content.contains(&b'\\') {
            return Some(Cow::Borrowed(content));
        }
        unescape(content).ok().map(Cow::Owned)
    }
}

/// Where `part` (a slice of `whole`) lies in it.
fn span(whole: &[u8], part: &[u8]) -> Option<std::ops::Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start..start + part.len())
}

/// The content of a JSON string whose opening quote was just read, up to its closing quote: None when it has a
/// control character, an escape JSON does not have, or is not UTF-8, or has no closing quote. Every string hole is
/// checked so, the ignored ones too: a template vouches for the whole event, as the full reading would.
fn string_content(bytes: &[u8]) -> Option<&[u8]> {
    let mut position = 0;
    loop {
        let found = position + memchr::memchr2(b'"', b'\\', bytes.get(position..)?)?;
        if bytes.get(found) == Some(&b'"') {
            let content = bytes.get(..found)?;
            let clean = content.iter().all(|byte| *byte >= 0x20) && std::str::from_utf8(content).is_ok();
            return clean.then_some(content);
        }
        position = found + escape_length(bytes.get(found + 1..)?)?;
    }
}

/// The length of the escape whose backslash precedes `after` (`\n`: 2, `\u00e9`: 6); None for one JSON does not have.
/// A `\u` escape of a lone surrogate is JSON's: the full reading keeps it (as `surrogatepass` bytes).
fn escape_length(after: &[u8]) -> Option<usize> {
    match after.first()? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' if after.get(1..5)?.iter().all(u8::is_ascii_hexdigit) => Some(6),
        _ => None,
    }
}

/// A JSON integer at the start of `bytes` (a counter is never a fraction): None when there is none.
fn number(bytes: &[u8]) -> Option<&[u8]> {
    let digits = bytes
        .iter()
        .enumerate()
        .take_while(|(position, byte)| byte.is_ascii_digit() || (*position == 0 && **byte == b'-'))
        .count();
    let value = bytes.get(..digits)?;
    let magnitude = value.strip_prefix(b"-").unwrap_or(value);
    // JSON has no leading zeros: `02` is not a number, and the full reading must say so.
    let valid = !magnitude.is_empty() && (magnitude.len() == 1 || magnitude.first() != Some(&b'0'));
    valid.then_some(value)
}

/// The templates of one stream, one per call being streamed at once, each under its key and the server-sent event
/// name it came with (an event with another name is another kind of event, whatever its data).
#[derive(Debug)]
pub(crate) struct Templates<K> {
    // The most recently matched first.
    kept: Vec<(K, Option<Vec<u8>>, Template)>,
}

impl<K> Default for Templates<K> {
    fn default() -> Self {
        Self { kept: Vec::new() }
    }
}

/// Templates kept per stream: calls streamed at once, interleaved.
const KEPT: usize = 64;

impl<K: Copy + PartialEq> Templates<K> {
    /// The key and text of the template `event` (named `name`) matches.
    pub(crate) fn find<'a>(&mut self, name: Option<&[u8]>, event: &'a [u8]) -> Option<(K, Cow<'a, [u8]>)> {
        let (position, text) = self
            .kept
            .iter()
            .enumerate()
            .filter(|(_, (_, kept_name, _))| kept_name.as_deref() == name)
            .find_map(|(position, (_, _, template))| Some((position, template.text_of(event)?)))?;
        if position > 0 {
            self.kept.swap(0, position);
        }
        self.kept.first().map(|(key, _, _)| (*key, text))
    }

    /// Keep `template` (of an event named `name`) for `key`, in place of the one it had.
    pub(crate) fn keep(&mut self, key: K, name: Option<&[u8]>, template: Template) {
        self.forget(key);
        self.kept.truncate(KEPT - 1);
        if self.kept.capacity() == 0 {
            // Room for one: a stream of one call keeps one template (a vector's first growth makes room for four).
            self.kept.reserve_exact(1);
        }
        self.kept.insert(0, (key, name.map(<[u8]>::to_vec), template));
    }

    /// Forget the template of `key` (its call is no longer the one at that key).
    pub(crate) fn forget(&mut self, key: K) {
        self.kept.retain(|(kept, _, _)| *kept != key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(text: &str, counter: u32) -> String {
        format!(r#"{{"type":"d","n":{counter},"delta":"{text}","pad":"xy"}}"#)
    }

    /// The raw value of `key` in `event` (no escapes in these tests): a string with its quotes, or a number.
    fn value<'a>(event: &'a [u8], key: &str) -> Option<&'a [u8]> {
        let key = format!("\"{key}\":");
        let at = event.windows(key.len()).position(|window| window == key.as_bytes())? + key.len();
        let rest = event.get(at..)?;
        let length = if rest.first() == Some(&b'"') {
            rest.get(1..)?.iter().position(|byte| *byte == b'"')? + 2
        } else {
            rest.iter().position(|byte| !byte.is_ascii_digit())?
        };
        rest.get(..length)
    }

    fn template(event: &str) -> Option<Template> {
        let event = event.as_bytes();
        let holes = [
            (value(event, "delta")?, Hole::Text),
            (value(event, "n")?, Hole::Counter),
            (value(event, "pad")?, Hole::Padding),
        ];
        Template::new(event, &holes)
    }

    #[test]
    fn a_template_keeps_the_literal_bytes_only_and_matches_other_values() {
        let big = "x".repeat(1 << 20);
        let kept = template(&delta(&big, 7)).expect("a template");
        assert_eq!(
            kept.literals, br#"{"type":"d","n":,"delta":"","pad":""}"#,
            "no value of a hole is kept"
        );
        let other = delta("a\\nb", 12);
        let text = kept.text_of(other.as_bytes()).expect("the same shape");
        assert_eq!(&*text, b"a\nb");
        assert!(kept.text_of(br#"{"type":"e","n":1,"delta":"a","pad":""}"#).is_none());
        assert!(
            kept.text_of(delta("a", 1).replace("\"n\":1", "\"n\":01").as_bytes())
                .is_none()
        );
    }

    #[test]
    fn an_event_larger_than_an_envelope_makes_no_template() {
        let envelope = format!(r#"{{"id":"{}","n":1,"delta":"a","pad":""}}"#, "i".repeat(MAX_LITERAL));
        assert!(template(&envelope).is_none());
        assert!(template(&delta("a", 1)).is_some());
    }
}
