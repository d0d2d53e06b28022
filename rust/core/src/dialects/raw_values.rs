//! Raw parameter values (`<parameter=K>V</parameter>`) typed by the tool's JSON Schema, as JSON text: the twin of
//! the reference's `dialects/_raw_values.py`, with the same texts and messages.
//!
//! The schema's types are tried in its order (`type`, a type list, the branches of `anyOf`/`oneOf`/`allOf`, a local
//! `$ref`; an `enum` or `const` without `type` has its values' types), `string` last: raw text is always a string. A
//! value read as JSON is one strict value (the scanner's grammar), nested within the call's `max_depth` counting the
//! arguments object, with finite numbers and no repeated key, kept as written less the whitespace outside strings.

use serde_json::Value;

use super::shared::{FindingCode, quoted};
use crate::scanner::{ScanState, Scanner};
use crate::validator::json_type;

/// `$ref` chains and nested unions are followed this deep at most, so that a schema referring to itself ends.
const MAX_NESTING: usize = 32;
/// JSON's whitespace, the only whitespace trimmed around a raw value of any type.
const WHITESPACE: &[char] = &[' ', '\t', '\r', '\n'];

/// Why a raw value was kept as a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueFinding {
    /// No type of the value's schema reads it (`UNTYPED_VALUE`).
    Untyped,
    /// The tool, or the parameter, has no schema (`NO_SCHEMA`).
    NoSchema,
}

impl ValueFinding {
    /// The finding's code in the dialects' table.
    pub(crate) fn code(self) -> FindingCode {
        match self {
            Self::Untyped => FindingCode::UntypedValue,
            Self::NoSchema => FindingCode::NoSchema,
        }
    }
}

/// The schema of the parameter `key` of a tool's `parameters`, or None when nothing describes it.
pub(crate) fn parameter_schema<'a>(parameters: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    let parameters = parameters?;
    if let Some(schema) = parameters
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|found| found.get(key))
    {
        return Some(schema);
    }
    parameters.get("additionalProperties").filter(|extra| extra.is_object())
}

/// The JSON text `raw` is under `schema` (a local `$ref` read in `root`), or why it is not (the caller keeps
/// `quoted(raw)`). `max_depth` is the call's `Limits::max_depth`: the arguments object holding the value counts as 1.
pub(crate) fn typed(raw: &str, schema: &Value, root: &Value, max_depth: u32) -> Result<String, String> {
    let mut names = Vec::new();
    types(schema, root, 0, &mut names);
    if names.is_empty() {
        return Ok(quoted(raw));
    }
    let read = read(raw, max_depth.saturating_sub(1));
    let ordered = names
        .iter()
        .filter(|name| *name != "string")
        .chain(names.iter().filter(|name| *name == "string"));
    for name in ordered {
        if let Some(text) = as_type(raw, name, read.as_ref()) {
            return Ok(text);
        }
    }
    Err(format!("{} is not {}", quoted(raw), names.join(" or ")))
}

/// The compact JSON text of the arguments object of a call's raw `(key, value)` pairs, typed in order by its tool's
/// `parameters` (None: no such tool); a key given twice is the caller's to refuse. Each value kept as a string is
/// said to `finding` with its message, as the reference appends to its findings.
pub(crate) fn typed_arguments<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    parameters: Option<&Value>,
    max_depth: u32,
    mut finding: impl FnMut(ValueFinding, String),
) -> String {
    let empty = Value::Object(serde_json::Map::new());
    let mut text = String::from("{");
    for (key, raw) in pairs {
        if text.len() > 1 {
            text.push(',');
        }
        text.push_str(&quoted(key));
        text.push(':');
        let Some(schema) = parameter_schema(parameters, key) else {
            let known = if parameters.is_none() {
                "the tool"
            } else {
                "the parameter"
            };
            let message = format!(
                "{known} of {} has no schema; its value is kept as a string",
                quoted(key)
            );
            finding(ValueFinding::NoSchema, message);
            text.push_str(&quoted(raw));
            continue;
        };
        match typed(raw, schema, parameters.unwrap_or(&empty), max_depth) {
            Ok(value) => text.push_str(&value),
            Err(problem) => {
                finding(
                    ValueFinding::Untyped,
                    format!("the parameter {}: {problem}; kept as a string", quoted(key)),
                );
                text.push_str(&quoted(raw));
            }
        }
    }
    text.push('}');
    text
}

/// The type names `schema` gives, in order, each once.
fn types(schema: &Value, root: &Value, depth: usize, names: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else { return };
    if depth > MAX_NESTING {
        return;
    }
    let add = |name: &str, names: &mut Vec<String>| {
        if !names.iter().any(|known| known == name) {
            names.push(name.to_owned());
        }
    };
    let reference = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|found| found.strip_prefix('#'));
    if let Some(target) = reference.and_then(|pointer| lookup(root, pointer)) {
        types(target, root, depth + 1, names);
    }
    match (schema.get("type"), schema.get("enum"), schema.get("const")) {
        (Some(Value::String(kind)), ..) => add(kind, names),
        (Some(Value::Array(kinds)), ..) => kinds.iter().filter_map(Value::as_str).for_each(|kind| add(kind, names)),
        // An `enum` that is no list names nothing, and hides a `const` beside it, as in the reference.
        (_, Some(Value::Array(values)), _) => values.iter().for_each(|value| add(json_type(value), names)),
        (_, None, Some(value)) => add(json_type(value), names),
        _ => {}
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = schema.get(keyword) {
            for branch in branches {
                types(branch, root, depth + 1, names);
            }
        }
    }
}

/// What the JSON pointer `pointer` (RFC 6901, its `#` gone) reaches in `root`: into an object by key, into an array
/// by a decimal index within its length.
fn lookup<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    pointer.split('/').skip(1).try_fold(root, |node, token| {
        let token = token.replace("~1", "/").replace("~0", "~");
        match node {
            Value::Object(members) => members.get(&token),
            Value::Array(items) if !token.is_empty() && token.bytes().all(|byte| byte.is_ascii_digit()) => {
                token.parse::<usize>().ok().and_then(|index| items.get(index))
            }
            _ => None,
        }
    })
}

/// The JSON text of `raw` as a value of the JSON type `name` (`read`: its JSON type and text), or None.
fn as_type(raw: &str, name: &str, read: Option<&(&'static str, String)>) -> Option<String> {
    match name {
        "string" => Some(quoted(raw)),
        "boolean" => match raw.trim_matches(WHITESPACE) {
            "true" | "True" => Some("true".to_owned()),
            "false" | "False" => Some("false".to_owned()),
            _ => None,
        },
        _ => {
            let (kind, text) = read?;
            (*kind == name || (name == "number" && *kind == "integer")).then(|| text.clone())
        }
    }
}

/// The JSON type and compact text of `raw` read as one JSON value, or None when it is none. `integer` is the type
/// of a number of integer value however written (`1.0`, `1e2`), as JSON Schema has it.
fn read(raw: &str, max_depth: u32) -> Option<(&'static str, String)> {
    let mut scanner = Scanner::new(max_depth);
    scanner.feed(raw.as_bytes());
    if !matches!(scanner.finish(), ScanState::Complete { .. }) || scanner.has_duplicate_keys() {
        return None;
    }
    let text = compact(raw)?;
    let kind = match text.as_bytes().first()? {
        b'{' => "object",
        b'[' => "array",
        b'"' => "string",
        b't' | b'f' => "boolean",
        b'n' => "null",
        _ if !text.contains(['.', 'e', 'E']) => "integer",
        _ if text.parse::<f64>().ok()?.fract() == 0.0 => "integer",
        _ => "number",
    };
    Some((kind, text))
}

/// JSON text the scanner accepted, less the whitespace outside strings; None when a number in it is not finite.
fn compact(json: &str) -> Option<String> {
    let mut text = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(at) =
        rest.find(|char: char| char == '"' || char == '-' || char.is_ascii_digit() || WHITESPACE.contains(&char))
    {
        let (before, from) = rest.split_at(at);
        text.push_str(before);
        let end = match from.as_bytes().first() {
            Some(b'"') => string_end(from),
            Some(byte) if byte.is_ascii_whitespace() => from
                .find(|char: char| !WHITESPACE.contains(&char))
                .unwrap_or(from.len()),
            _ => {
                let end = from
                    .find(|char: char| !matches!(char, '-' | '+' | '.' | 'e' | 'E' | '0'..='9'))
                    .unwrap_or(from.len());
                let number = from.get(..end)?;
                if number.contains(['.', 'e', 'E']) && !number.parse::<f64>().ok()?.is_finite() {
                    return None;
                }
                end
            }
        };
        let (token, after) = from.split_at(end);
        if !token.starts_with(WHITESPACE) {
            text.push_str(token);
        }
        rest = after;
    }
    text.push_str(rest);
    Some(text)
}

/// The length of the JSON string `from` starts with, its quotes included.
fn string_end(from: &str) -> usize {
    let mut escaped = false;
    for (at, byte) in from.bytes().enumerate().skip(1) {
        match byte {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return at + 1,
            _ => {}
        }
    }
    from.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASES: &str = include_str!("../../../../tests/dialects/data/literal_cases.json");
    const DEPTH: u32 = 128;

    fn cases(kind: &str) -> Vec<Value> {
        let table: Value = serde_json::from_str(CASES).unwrap_or_default();
        table.get(kind).and_then(Value::as_array).cloned().unwrap_or_default()
    }

    fn text(case: &Value, key: &str) -> String {
        case.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
    }

    #[test]
    fn raw_values_are_the_json_text_of_the_shared_table() {
        let all = cases("typed");
        assert!(all.len() > 50);
        for case in all {
            let raw = text(&case, "raw");
            let schema = case.get("schema").cloned().unwrap_or_default();
            let root = case
                .get("root")
                .cloned()
                .unwrap_or(Value::Object(serde_json::Map::new()));
            let depth = case
                .get("max_depth")
                .and_then(Value::as_u64)
                .map_or(DEPTH, |depth| depth.try_into().unwrap_or(0));
            let expected = if case.get("problem").is_some() {
                Err(text(&case, "problem"))
            } else {
                Ok(text(&case, "text"))
            };
            assert_eq!(typed(&raw, &schema, &root, depth), expected, "{case}");
        }
    }

    #[test]
    fn raw_arguments_are_an_object_in_order_with_their_findings() {
        for case in cases("typed_arguments") {
            let part = |pair: &Value, at: usize| pair.get(at).and_then(Value::as_str).unwrap_or_default().to_owned();
            let pairs: Vec<(String, String)> = case
                .get("pairs")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|pair| (part(pair, 0), part(pair, 1)))
                .collect();
            let parameters = case.get("parameters").filter(|found| !found.is_null());
            let mut findings = Vec::new();
            let arguments = typed_arguments(
                pairs.iter().map(|(key, raw)| (key.as_str(), raw.as_str())),
                parameters,
                DEPTH,
                |kind, message| findings.push(Value::from(vec![kind.code().as_str().to_owned(), message])),
            );
            assert_eq!(arguments, text(&case, "text"), "{case}");
            assert_eq!(Some(&Value::from(findings)), case.get("findings"), "{case}");
        }
    }

    #[test]
    fn nesting_and_huge_numbers_are_bounded() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let array = serde_json::json!({"type": "array"});
        let root = serde_json::json!({});
        assert!(typed(&deep, &array, &root, DEPTH).is_err());
        let fits = format!("{}{}", "[".repeat(127), "]".repeat(127));
        assert_eq!(typed(&fits, &array, &root, DEPTH), Ok(fits.clone()));
        let long = "1".repeat(100_000);
        assert_eq!(
            typed(&long, &serde_json::json!({"type": "integer"}), &root, DEPTH),
            Ok(long.clone())
        );
        let huge = format!("1e{}", "9".repeat(100_000));
        assert!(typed(&huge, &serde_json::json!({"type": "number"}), &root, DEPTH).is_err());
    }
}
