//! Property tests of the scanner: rendered values complete at their length, verdicts agree with
//! `serde_json` on arbitrary and mutated inputs, splitting never changes an outcome, and duplicate keys
//! are found exactly where they were put.

use std::collections::HashSet;
use std::fmt::Write as _;

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;
use toolwire_core::scanner::{ScanErrorKind, ScanState, Scanner};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Incomplete,
    Complete(u64),
    Invalid(u64, ScanErrorKind),
}

/// A scanner fed `data` in the pieces `cuts` makes of it.
fn fed_split(data: &[u8], cuts: &[Index]) -> Scanner {
    let mut offsets: Vec<usize> = cuts.iter().map(|cut| cut.index(data.len() + 1)).collect();
    offsets.sort_unstable();
    let mut scanner = Scanner::new(128);
    let mut start = 0;
    for offset in offsets.into_iter().chain([data.len()]) {
        scanner.feed(data.get(start..offset).unwrap_or_default());
        start = offset;
    }
    scanner
}

fn scan_split(data: &[u8], cuts: &[Index]) -> Outcome {
    match fed_split(data, cuts).finish() {
        ScanState::Incomplete => Outcome::Incomplete,
        ScanState::Complete { end } => Outcome::Complete(end),
        ScanState::Invalid(err) => Outcome::Invalid(err.offset, err.kind),
    }
}

fn scan_whole(data: &[u8]) -> Outcome {
    scan_split(data, &[])
}

fn len_u64(data: &[u8]) -> u64 {
    u64::try_from(data.len()).unwrap_or(u64::MAX)
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f).map(Value::Number)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Bytes that matter to the grammar, plus UTF-8 pieces valid and invalid.
const ALPHABET: &[u8] = b"{}[]:,\"\\ \t\n\r0123456789-+.eEtrufalsnbu/dD8aAxX\x00\x1f\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\xc0\xff\x0c";

fn jsonish_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..32),
        prop::collection::vec(prop::sample::select(ALPHABET), 0..48),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(Index),
    Insert(Index, u8),
    Replace(Index, u8),
    Truncate(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop_oneof![prop::sample::select(ALPHABET), any::<u8>()];
    prop_oneof![
        any::<Index>().prop_map(Mutation::Delete),
        (any::<Index>(), byte.clone()).prop_map(|(at, b)| Mutation::Insert(at, b)),
        (any::<Index>(), byte).prop_map(|(at, b)| Mutation::Replace(at, b)),
        any::<Index>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(mut data: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for mutation in mutations {
        if data.is_empty() {
            break;
        }
        match *mutation {
            Mutation::Delete(at) => {
                data.remove(at.index(data.len()));
            }
            Mutation::Insert(at, b) => data.insert(at.index(data.len() + 1), b),
            Mutation::Replace(at, b) => {
                let at = at.index(data.len());
                data.splice(at..=at, [b]);
            }
            Mutation::Truncate(at) => data.truncate(at.index(data.len())),
        }
    }
    data
}

/// `serde_json`'s verdict, or `None` where it rejects for a reason outside JSON syntax: a number past
/// the range of f64 (the scanner checks syntax only).
fn serde_accepts(data: &[u8]) -> Option<bool> {
    match serde_json::from_slice::<Value>(data) {
        Ok(_) => Some(true),
        Err(err) if err.to_string().contains("number out of range") => None,
        Err(_) => Some(false),
    }
}

/// A tree whose objects may repeat keys (`serde_json`'s `Map` cannot), with each key written either
/// minimally escaped or entirely as `\u` escapes, so that equal keys differ in their bytes.
#[derive(Debug, Clone)]
enum Tree {
    Leaf(Value),
    Array(Vec<Tree>),
    Object(Vec<(String, bool, Tree)>),
}

fn tree() -> impl Strategy<Value = Tree> {
    let key = prop_oneof![
        prop::sample::select(vec!["a", "b", "a/b", "~", "é", "😀", "\"", "\n", ""]).prop_map(str::to_owned),
        "[a-z]{1,2}",
        any::<String>(),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<i32>().prop_map(Value::from),
        "[a-z]{0,3}".prop_map(Value::String)
    ]
    .prop_map(Tree::Leaf);
    leaf.prop_recursive(5, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Tree::Array),
            prop::collection::vec((key.clone(), any::<bool>(), inner.clone()), 0..6).prop_map(Tree::Object),
            // Wide objects, past the scanner's linear key search, where it switches to hashing.
            prop::collection::vec((key.clone(), any::<bool>(), inner), 17..48).prop_map(Tree::Object),
        ]
    })
}

fn pointer_token(key: &str) -> String {
    format!("/{}", key.replace('~', "~0").replace('/', "~1"))
}

fn write_key(out: &mut Vec<u8>, key: &str, all_escaped: bool) {
    if all_escaped {
        let mut text = String::from("\"");
        for unit in key.encode_utf16() {
            let _ = write!(text, "\\u{unit:04x}");
        }
        text.push('"');
        out.extend_from_slice(text.as_bytes());
    } else {
        out.extend_from_slice(Value::from(key).to_string().as_bytes());
    }
}

/// Renders `tree` and returns the duplicate keys it holds, as (pointer, offset of the key's quote).
fn render(tree: &Tree, path: &str, out: &mut Vec<u8>, duplicates: &mut Vec<(String, u64)>) {
    match tree {
        Tree::Leaf(value) => out.extend_from_slice(value.to_string().as_bytes()),
        Tree::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                render(item, &format!("{path}/{index}"), out, duplicates);
            }
            out.push(b']');
        }
        Tree::Object(members) => {
            out.push(b'{');
            let mut seen = HashSet::new();
            for (index, (key, all_escaped, value)) in members.iter().enumerate() {
                if index > 0 {
                    out.extend_from_slice(b", ");
                }
                let member = format!("{path}{}", pointer_token(key));
                if !seen.insert(key.as_str()) {
                    duplicates.push((member.clone(), len_u64(out)));
                }
                write_key(out, key, *all_escaped);
                out.push(b':');
                render(value, &member, out, duplicates);
            }
            out.push(b'}');
        }
    }
}

proptest! {
    #[test]
    fn rendered_values_complete_at_their_length(value in json_value(), cuts in prop::collection::vec(any::<Index>(), 0..6)) {
        for text in [serde_json::to_vec(&value), serde_json::to_vec_pretty(&value)] {
            let text = text.map_err(|e| TestCaseError::fail(e.to_string()))?;
            let want = Outcome::Complete(len_u64(&text));
            prop_assert_eq!(scan_whole(&text), want);
            prop_assert_eq!(scan_split(&text, &cuts), want);
        }
    }

    #[test]
    fn arbitrary_bytes_get_serde_json_verdict(data in jsonish_bytes(), cuts in prop::collection::vec(any::<Index>(), 1..6)) {
        let ours = scan_whole(&data);
        if let Some(accepted) = serde_accepts(&data) {
            prop_assert_eq!(matches!(ours, Outcome::Complete(_)), accepted, "{:?}", ours);
        }
        prop_assert_eq!(scan_split(&data, &cuts), ours);
    }

    #[test]
    fn mutated_values_get_serde_json_verdict(
        value in json_value(),
        mutations in prop::collection::vec(mutation(), 1..4),
        cuts in prop::collection::vec(any::<Index>(), 1..6),
    ) {
        let text = serde_json::to_vec(&value).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let data = mutate(text, &mutations);
        let ours = scan_whole(&data);
        if let Some(accepted) = serde_accepts(&data) {
            prop_assert_eq!(matches!(ours, Outcome::Complete(_)), accepted, "{:?} {:?}", ours, String::from_utf8_lossy(&data));
        }
        prop_assert_eq!(scan_split(&data, &cuts), ours);
    }

    #[test]
    fn duplicate_keys_found_where_they_were_put(tree in tree(), cuts in prop::collection::vec(any::<Index>(), 0..6)) {
        let mut text = Vec::new();
        let mut want = Vec::new();
        render(&tree, "", &mut text, &mut want);
        let mut scanner = fed_split(&text, &cuts);
        prop_assert_eq!(scanner.finish(), ScanState::Complete { end: len_u64(&text) });
        let found: Vec<(String, u64)> = scanner.take_duplicate_keys().into_iter().map(|d| (d.path, d.offset)).collect();
        prop_assert_eq!(found, want);
    }
}
