//! The assistant turn's pieces other than client calls (`StreamResult.output`), written as JSON text, and what each
//! counts towards `Limits.max_output_bytes`.

use super::shared::{Canonical, Sink};
use crate::accumulator::Accumulator;
use crate::json_view::ChunkError;
use crate::json_view::Path;

pub(crate) use crate::accumulator::BOOKKEEPING;

/// A value kept whole in the output (a block's start, an item, a part, a citation...): its JSON text written
/// compactly, as Python's `json.dumps(..., separators=(",", ":"), ensure_ascii=False)` writes the decoded value, so that
/// what it counts is the same whatever spacing or escapes it came with, and what the core holds is what it counts (an
/// event's spacing, or a float's surplus digits, is not kept).
#[derive(Debug)]
pub(crate) struct Whole {
    /// The compact text, a lone surrogate escaped (`\ud800`) so that it reads back.
    pub(crate) json: Vec<u8>,
    /// What it counts: its compact text's UTF-8 bytes (a lone surrogate as three) and `BOOKKEEPING`.
    pub(crate) size: usize,
}

impl Whole {
    /// The value `raw` (at `at` in its event), written compactly.
    pub(crate) fn of(raw: &[u8], at: &Path<'_>, canonical: Canonical<'_>) -> Result<Self, ChunkError> {
        let text = canonical(raw).map_err(|problem| at.fail(format!("the value is not JSON: {problem}")))?;
        Ok(Self {
            size: text.len() + BOOKKEEPING,
            json: escape_surrogates(text),
        })
    }

    /// The value, when the output has room for it (else it is counted as left out).
    pub(crate) fn admitted(self, accumulator: &mut Accumulator) -> Option<Vec<u8>> {
        accumulator.admit_output(self.size).then_some(self.json)
    }
}

impl Sink<'_, '_> {
    /// The value `raw` (at `at` in its event) written compactly, when the output has room for it (else it is counted
    /// as left out).
    pub(crate) fn admit_whole(&mut self, raw: &[u8], at: &Path<'_>) -> Result<Option<Vec<u8>>, ChunkError> {
        Ok(Whole::of(raw, at, self.canonical)?.admitted(self.accumulator))
    }
}

/// `text` with each lone surrogate (as `surrogatepass` writes it: ED A0..BF xx, which valid UTF-8 never holds) written
/// as its `\u` escape, which every JSON reader reads back.
fn escape_surrogates(text: Vec<u8>) -> Vec<u8> {
    if !text.windows(2).any(|pair| matches!(pair, [0xED, 0xA0..=0xBF])) {
        return text;
    }
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut rest = text.as_slice();
    while let Some((&first, tail)) = rest.split_first() {
        if let (0xED, [second @ 0xA0..=0xBF, third, after @ ..]) = (first, tail) {
            let unit = 0xD000 | (u32::from(second & 0x3F) << 6) | u32::from(third & 0x3F);
            out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
            rest = after;
        } else {
            out.push(first);
            rest = tail;
        }
    }
    out
}

/// A block, item or part of the assistant turn that is not a client call, as the provider's JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputItem {
    /// How many calls of the stream were opened before it.
    pub after_calls: usize,
    /// The object's JSON text.
    pub json: Vec<u8>,
}

/// Writes a JSON object from raw member spans: `members` as sent, where `replaced` keys take new raw values (in
/// place when the key was there, appended otherwise). Keys are compared as written; decoders replace only keys
/// they read, which providers never escape.
pub(crate) fn object_with(members: &[(&[u8], &[u8])], replaced: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        members
            .iter()
            .map(|(key, value)| key.len() + value.len() + 4)
            .sum::<usize>()
            + 2,
    );
    out.push(b'{');
    let mut written: Vec<&[u8]> = Vec::new();
    let mut first = true;
    for (key, value) in members {
        if written.contains(key) {
            continue;
        }
        // The last of a repeated key wins, as in a decoded dict; it keeps the first one's place.
        let last = members
            .iter()
            .rev()
            .find(|(other, _)| other == key)
            .map_or(*value, |(_, value)| *value);
        let value = replaced
            .iter()
            .find(|(name, _)| name.as_bytes() == *key)
            .map_or(last, |(_, value)| value.as_slice());
        member(&mut out, &mut first, key, value);
        written.push(key);
    }
    for (name, value) in replaced {
        if !written.contains(&name.as_bytes()) {
            member(&mut out, &mut first, name.as_bytes(), value);
        }
    }
    out.push(b'}');
    out
}

fn member(out: &mut Vec<u8>, first: &mut bool, key: &[u8], value: &[u8]) {
    if !*first {
        out.push(b',');
    }
    *first = false;
    out.push(b'"');
    out.extend_from_slice(key);
    out.extend_from_slice(b"\":");
    out.extend_from_slice(value);
}

/// A JSON string from escaped content (pieces of JSON strings concatenated as they were written).
pub(crate) fn quoted(inner: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(inner.len() + 2);
    out.push(b'"');
    out.extend_from_slice(inner);
    out.push(b'"');
    out
}

/// A JSON string holding `text` (bytes that may hold `surrogatepass` sequences, kept as `\u` escapes).
pub(crate) fn string_of(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 2);
    out.push(b'"');
    let mut rest = text;
    while !rest.is_empty() {
        let (valid, invalid) = match std::str::from_utf8(rest) {
            Ok(valid) => (valid, &[][..]),
            Err(error) => {
                let (valid, invalid) = rest.split_at(error.valid_up_to());
                (std::str::from_utf8(valid).unwrap_or_default(), invalid)
            }
        };
        for character in valid.chars() {
            match character {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                control if u32::from(control) < 0x20 => {
                    out.extend_from_slice(format!("\\u{:04x}", u32::from(control)).as_bytes());
                }
                other => {
                    let mut buffer = [0; 4];
                    out.extend_from_slice(other.encode_utf8(&mut buffer).as_bytes());
                }
            }
        }
        rest = match invalid {
            // A surrogate as `surrogatepass` wrote it (ED A0..BF xx): back to its escape.
            [0xED, second, third, tail @ ..] if (0xA0..0xC0).contains(second) => {
                let unit = 0xD000 | (u32::from(second & 0x3F) << 6) | u32::from(third & 0x3F);
                out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
                tail
            }
            [_, tail @ ..] => {
                out.extend_from_slice("\u{FFFD}".as_bytes());
                tail
            }
            [] => &[],
        };
    }
    out.push(b'"');
    out
}

/// Writes a JSON object from owned (raw key, raw value) pairs.
pub(crate) fn object_from(members: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![b'{'];
    let mut first = true;
    for (key, value) in members {
        member(&mut out, &mut first, key, value);
    }
    out.push(b'}');
    out
}

/// Sets `key` to `value` among owned members: in place when present, appended otherwise.
pub(crate) fn upsert(members: &mut Vec<(Vec<u8>, Vec<u8>)>, key: &[u8], value: &[u8]) {
    match members.iter_mut().find(|(name, _)| name == key) {
        Some((_, kept)) => value.clone_into(kept),
        None => members.push((key.to_vec(), value.to_vec())),
    }
}
