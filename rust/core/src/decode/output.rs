//! The assistant turn's pieces other than client calls (`StreamResult.output`), written as JSON text.

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
