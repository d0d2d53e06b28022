//! A verdict of "valid" straight from a call's argument bytes, for the schemas most tools declare, without building a
//! value: the path almost every call takes.
//!
//! A [`QuickCheck`] is made from a tool's schema when every subschema uses only `type`, `properties`, `required`,
//! `additionalProperties`, `items` (one schema), `enum` and `const` of scalars, integer bounds (`minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`), `minLength`, `maxLength`, `minItems`, `maxItems` ([`constraints`]), and
//! annotations (`title`, `description`, `default`, `examples`, `format`, ...); any other keyword, or a `$ref`, leaves
//! the tool to the crate alone. It walks
//! the text once with jiter's pull parser, skipping what the schema does not constrain, and answers only `true`
//! (certainly valid) or `false` (not known to be): the validator then parses and judges the text as before, so a
//! `false` costs nothing but the walk, and findings always come from one place.
//!
//! `true` must never be said of text the crate would refuse or that is not one complete JSON value read as the
//! validator reads it; so the walk says `false` to everything it does not decide exactly the same way: an integer
//! written with a fraction or an exponent (`1.0` is an integer to JSON Schema), a number against a bound or an `enum`
//! that it cannot compare exactly from its digits, a `\u` escape of a surrogate (the
//! parsers disagree on lone ones), a number longer than Python converts, text that is not UTF-8, and any jiter error.
//! The differential tests hold it to the crate on the JSON Schema Test Suite's cases in the subset, on the corpus's
//! real schemas with generated arguments, and on the texts of `JSONTestSuite`.

use std::sync::LazyLock;

mod constraints;

use jiter::{Jiter, Peek};
use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use self::constraints::{Limits, Options};

/// Keywords that do not constrain a value (with the validator's options: formats and content are annotations).
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "format",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentEncoding",
    "contentMediaType",
];
/// Digits beyond which a number is left to the validator (it refuses integers Python will not convert).
const LONGEST_NUMBER: usize = 4300;

const NULL: u8 = 1;
const BOOLEAN: u8 = 1 << 1;
const OBJECT: u8 = 1 << 2;
const ARRAY: u8 = 1 << 3;
const NUMBER: u8 = 1 << 4;
const INTEGER: u8 = 1 << 5;
const STRING: u8 = 1 << 6;
const ANY_TYPE: u8 = NULL | BOOLEAN | OBJECT | ARRAY | NUMBER | INTEGER | STRING;

/// Declared properties beyond which a member's name is looked up by hash rather than compared with each in turn.
const COMPARED_IN_TURN: usize = 8;

/// One subschema in the subset.
#[derive(Debug, Default)]
struct Node {
    types: u8,
    properties: Properties,
    /// The positions of the required names that are declared properties.
    required: Vec<usize>,
    /// Required names no property declares: undeclared members' names are then kept while an object is read.
    required_undeclared: Vec<String>,
    additional: Additional,
    items: Option<Box<Node>>,
    /// Each `enum` and `const`: the value must be one of each.
    allowed: Vec<Options>,
    limits: Limits,
}

/// `properties`, in declaration order (a property's position is its index), with a table by name for many.
#[derive(Debug, Default)]
struct Properties {
    declared: Vec<(String, Node)>,
    by_name: Option<FxHashMap<String, usize>>,
}

impl Properties {
    fn insert(&mut self, name: &str, schema: Node) {
        self.declared.push((name.to_owned(), schema));
    }

    /// Builds the table when the properties are too many to compare in turn.
    fn indexed(mut self) -> Self {
        if self.declared.len() > COMPARED_IN_TURN {
            let table = self.declared.iter().enumerate();
            self.by_name = Some(table.map(|(position, (name, _))| (name.clone(), position)).collect());
        }
        self
    }

    fn position(&self, name: &str) -> Option<usize> {
        match &self.by_name {
            Some(table) => table.get(name).copied(),
            None => self.declared.iter().position(|(declared, _)| declared == name),
        }
    }

    fn len(&self) -> usize {
        self.declared.len()
    }
}

/// A member's name as the object's schema reads it.
enum Member<'n> {
    Declared(usize, &'n Node),
    Undeclared(Option<String>),
}

impl Node {
    /// What `name` is.
    fn member(&self, name: &str) -> Member<'_> {
        let declared = self.properties.position(name).and_then(|position| {
            let (_, schema) = self.properties.declared.get(position)?;
            Some(Member::Declared(position, schema))
        });
        declared.unwrap_or_else(|| Member::Undeclared((!self.required_undeclared.is_empty()).then(|| name.to_owned())))
    }
}

#[derive(Debug, Default)]
enum Additional {
    #[default]
    Any,
    Forbidden,
    Schema(Box<Node>),
}

/// A tool's schema as the walk reads it (see the module's documentation).
#[derive(Debug)]
pub(crate) struct QuickCheck {
    root: Node,
}

impl QuickCheck {
    /// The check of `schema`, when the whole schema is in the subset.
    pub(crate) fn of(schema: &Value) -> Option<Self> {
        let root = match schema {
            Value::Object(members) => object_node(members, true)?,
            other => node(other)?,
        };
        Some(Self { root })
    }

    /// Whether `text` is certainly one JSON value the schema accepts, nested at most `max_depth` deep (the top-level
    /// value counting as 1, as the validator counts); `object_only` also asks that it be an object.
    pub(crate) fn accepts(&self, text: &[u8], object_only: bool, max_depth: u32) -> bool {
        if std::str::from_utf8(text).is_err() || escapes_surrogate(text) {
            return false;
        }
        let mut jiter = Jiter::new(text);
        let Ok(peek) = jiter.peek() else { return false };
        if object_only && peek != Peek::Object {
            return false;
        }
        walk(&self.root, &mut jiter, peek, max_depth).unwrap_or(false) && jiter.finish().is_ok()
    }
}

fn node(schema: &Value) -> Option<Node> {
    match schema {
        Value::Bool(true) => Some(Node {
            types: ANY_TYPE,
            ..Node::default()
        }),
        Value::Object(members) => object_node(members, false),
        _ => None,
    }
}

/// A subschema's node; the root's `$schema` names a draft (the subset's keywords read the same in every draft) and
/// its `$defs` are never reached (the subset has no `$ref`).
fn object_node(members: &Map<String, Value>, root: bool) -> Option<Node> {
    let mut found = Node {
        types: ANY_TYPE,
        ..Node::default()
    };
    let mut required = None;
    for (keyword, value) in members {
        match keyword.as_str() {
            "type" => found.types = types(value)?,
            "properties" => {
                for (name, schema) in value.as_object()? {
                    found.properties.insert(name, node(schema)?);
                }
            }
            "required" => required = Some(value.as_array()?),
            "additionalProperties" => {
                found.additional = match value {
                    Value::Bool(true) => Additional::Any,
                    Value::Bool(false) => Additional::Forbidden,
                    schema => Additional::Schema(Box::new(node(schema)?)),
                };
            }
            "items" => found.items = Some(Box::new(node(value)?)),
            "enum" => found.allowed.push(Options::of(value.as_array()?)?),
            "const" => found.allowed.push(Options::of(std::slice::from_ref(value))?),
            annotation if ANNOTATIONS.contains(&annotation) => {}
            "$schema" | "$defs" | "definitions" if root => {}
            bound => {
                if !found.limits.read(bound, value)? {
                    return None;
                }
            }
        }
    }
    found.properties = found.properties.indexed();
    for name in required.into_iter().flatten() {
        let name = name.as_str()?;
        match found.properties.position(name) {
            Some(position) => found.required.push(position),
            None => found.required_undeclared.push(name.to_owned()),
        }
    }
    Some(found)
}

fn types(value: &Value) -> Option<u8> {
    let one = |name: &Value| match name.as_str()? {
        "null" => Some(NULL),
        "boolean" => Some(BOOLEAN),
        "object" => Some(OBJECT),
        "array" => Some(ARRAY),
        "number" => Some(NUMBER),
        "integer" => Some(INTEGER),
        "string" => Some(STRING),
        _ => None,
    };
    match value {
        Value::Array(names) => names.iter().try_fold(0, |set, name| Some(set | one(name)?)),
        name => one(name),
    }
}

/// `\u` followed by a surrogate's first digit: jiter and `serde_json` read a lone surrogate differently.
fn escapes_surrogate(text: &[u8]) -> bool {
    memchr::memchr_iter(b'\\', text)
        .any(|at| text.get(at + 1) == Some(&b'u') && matches!(text.get(at + 2), Some(b'd' | b'D')))
}

/// Whether the value that `peek` starts is certainly valid against `node`; `None` on any jiter error, and for a
/// container nested deeper than `depth` more levels (the walk recurses per level).
fn walk(node: &Node, jiter: &mut Jiter<'_>, peek: Peek, depth: u32) -> Option<bool> {
    let inner = match peek {
        Peek::Array | Peek::Object => depth.checked_sub(1)?,
        _ => depth,
    };
    let valid = match peek {
        Peek::Null => {
            jiter.known_null().ok()?;
            node.types & NULL != 0 && node.allowed.iter().all(Options::allow_null)
        }
        Peek::True | Peek::False => {
            let flag = jiter.known_bool(peek).ok()?;
            node.types & BOOLEAN != 0 && node.allowed.iter().all(|options| options.allow_bool(flag))
        }
        Peek::String => {
            let text = jiter.known_str().ok()?;
            node.types & STRING != 0
                && node.allowed.iter().all(|options| options.allow_str(text))
                && node.limits.admit_str(text)
        }
        Peek::Array => node.types & ARRAY != 0 && node.allowed.is_empty() && array(node, jiter, inner)?,
        Peek::Object => node.types & OBJECT != 0 && node.allowed.is_empty() && object(node, jiter, inner)?,
        number => {
            let digits = jiter.known_number_bytes(number).ok()?;
            let integral = !digits.iter().any(|byte| matches!(byte, b'.' | b'e' | b'E'));
            digits.len() <= LONGEST_NUMBER
                && (node.types & NUMBER != 0 || (integral && node.types & INTEGER != 0))
                && node.allowed.iter().all(|options| options.allow_number(digits))
                && node.limits.admit_number(digits)
        }
    };
    Some(valid)
}

fn array(node: &Node, jiter: &mut Jiter<'_>, depth: u32) -> Option<bool> {
    let mut next = jiter.known_array().ok()?;
    let mut count: u64 = 0;
    while let Some(peek) = next {
        count += 1;
        let valid = match &node.items {
            Some(items) => walk(items, jiter, peek, depth)?,
            None => skip(jiter, peek, depth)?,
        };
        if !valid {
            return Some(false);
        }
        next = jiter.array_step().ok()?;
    }
    Some(node.limits.items.admits(count))
}

fn object(node: &Node, jiter: &mut Jiter<'_>, depth: u32) -> Option<bool> {
    // Which declared properties were seen, for `required`; names of undeclared ones only when one is required.
    let mut seen = Seen::for_properties(node.properties.len());
    let mut undeclared_seen: Vec<String> = Vec::new();
    let mut member = jiter.known_object().ok()?.map(|name| node.member(name));
    while let Some(found) = member {
        let peek = jiter.peek().ok()?;
        let valid = match found {
            Member::Declared(position, schema) => {
                seen.mark(position);
                walk(schema, jiter, peek, depth)?
            }
            Member::Undeclared(name) => {
                undeclared_seen.extend(name);
                match &node.additional {
                    Additional::Any => skip(jiter, peek, depth)?,
                    Additional::Forbidden => false,
                    Additional::Schema(schema) => walk(schema, jiter, peek, depth)?,
                }
            }
        };
        if !valid {
            return Some(false);
        }
        member = jiter.next_key().ok()?.map(|name| node.member(name));
    }
    Some(
        node.required.iter().all(|&position| seen.has(position))
            && node
                .required_undeclared
                .iter()
                .all(|name| undeclared_seen.iter().any(|seen| seen == name)),
    )
}

/// The declared properties an object has shown: a bit each, in a word for the usual object (no allocation).
enum Seen {
    Few(u64),
    Many(Vec<bool>),
}

impl Seen {
    fn for_properties(count: usize) -> Self {
        if count <= 64 {
            Self::Few(0)
        } else {
            Self::Many(vec![false; count])
        }
    }

    fn mark(&mut self, position: usize) {
        match self {
            Self::Few(bits) => *bits |= 1 << position,
            Self::Many(flags) => {
                if let Some(flag) = flags.get_mut(position) {
                    *flag = true;
                }
            }
        }
    }

    fn has(&self, position: usize) -> bool {
        match self {
            Self::Few(bits) => bits & (1 << position) != 0,
            Self::Many(flags) => flags.get(position).copied().unwrap_or(false),
        }
    }
}

/// A value no keyword constrains: read for its well-formedness only, and its numbers for their length.
fn skip(jiter: &mut Jiter<'_>, peek: Peek, depth: u32) -> Option<bool> {
    static ANY: LazyLock<Node> = LazyLock::new(|| Node {
        types: ANY_TYPE,
        ..Node::default()
    });
    walk(&ANY, jiter, peek, depth)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_corpora::{corpus, schema_suite_cases};
    use crate::validator::options;

    const DEPTH: u32 = 64;

    fn accepts(schema: &Value, text: &str) -> bool {
        QuickCheck::of(schema)
            .expect("in the subset")
            .accepts(text.as_bytes(), false, DEPTH)
    }

    #[test]
    fn the_subset_and_what_leaves_it() {
        for schema in [
            json!(true),
            json!({}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "$defs": {"x": {"not": {}}}}),
            json!({"type": ["string", "null"], "description": "d", "format": "date", "default": "x"}),
            json!({"properties": {"a": {"items": {"enum": ["x", "y"]}}}, "additionalProperties": {"type": "integer"}}),
            json!({"properties": {"a": {"enum": [1, "x", null, true]}, "b": {"const": 2}}}),
            json!({"minimum": 0, "exclusiveMaximum": 10.0, "minLength": 1, "maxLength": 5, "minItems": 0, "maxItems": 2}),
        ] {
            assert!(QuickCheck::of(&schema).is_some(), "{schema}");
        }
        for schema in [
            json!(false),
            json!({"pattern": "x"}),
            json!({"$ref": "#/$defs/x", "$defs": {"x": {}}}),
            json!({"properties": {"a": {"enum": [[1], "x"]}}}),
            json!({"const": {"a": 1}}),
            json!({"maximum": 1.5}),
            json!({"exclusiveMaximum": true, "maximum": 3}),
            json!({"maxLength": -1}),
            json!({"items": [{"type": "string"}]}),
            json!({"type": "dict"}),
            json!({"properties": {"a": {"nullable": true}}}),
            json!({"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}}),
        ] {
            assert!(QuickCheck::of(&schema).is_none(), "{schema}");
        }
    }

    #[test]
    fn certainly_valid_only_when_it_is() {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "enum": ["Paris", "Lyon"]},
                "days": {"type": "integer"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "ratio": {"type": "number"},
            },
            "required": ["city", "extra"],
            "additionalProperties": {"type": "boolean"},
        });
        assert!(accepts(
            &schema,
            r#"{"city": "Paris", "extra": true, "days": 3, "tags": ["a"], "ratio": 1e3}"#
        ));
        // A key written with escapes is the key it decodes to; a repeated key is read twice, both must hold.
        assert!(accepts(
            &schema,
            r#"{"c\u0069ty": "Lyon", "extra": false, "extra": true}"#
        ));
        for text in [
            r#"{"city": "Nice", "extra": true}"#,
            r#"{"city": "Paris"}"#,
            r#"{"city": "Paris", "extra": 1}"#,
            r#"{"city": "Paris", "extra": true, "days": 3.0}"#,
            r#"{"city": "Paris", "extra": true, "days": 1e2}"#,
            r#"{"city": "Paris", "extra": true, "tags": [1]}"#,
            r#"{"city": "Paris", "extra": true} x"#,
            r#"{"city": "Paris", "extra": true"#,
            r#"{"city": "Paris", "extra": true, "days": 01}"#,
            r#"{"city": "Paris", "extra": true, "note": "\ud83d\ude00"}"#,
            "[]",
        ] {
            assert!(!accepts(&schema, text), "{text}");
        }
        let closed = json!({"properties": {"a": {}}, "additionalProperties": false});
        assert!(accepts(&closed, r#"{"a": [1, {"b": null}]}"#));
        assert!(!accepts(&closed, r#"{"a": 1, "b": 2}"#));
        let long = format!(r#"{{"a": {}}}"#, "9".repeat(LONGEST_NUMBER + 1));
        assert!(!accepts(&closed, &long));
        assert!(
            !QuickCheck::of(&closed)
                .unwrap()
                .accepts(b"{\"a\": \"\xff\"}", false, DEPTH)
        );
        assert!(!QuickCheck::of(&closed).unwrap().accepts(b"[]", true, DEPTH));
    }

    #[test]
    fn nesting_past_the_limit_is_left_to_the_validator() {
        let quick = QuickCheck::of(&json!({})).unwrap();
        assert!(quick.accepts(b"[[1]]", false, 2));
        assert!(!quick.accepts(b"[[[1]]]", false, 2));
        assert!(quick.accepts(b"{}", false, 1));
        assert!(!quick.accepts(b"{\"a\": {}}", false, 1));
        assert!(!quick.accepts(&b"[".repeat(100_000), false, DEPTH));
    }

    #[test]
    fn required_among_more_than_sixty_four_properties() {
        let properties: Map<String, Value> = (0..70).map(|n| (format!("p{n}"), json!({"type": "integer"}))).collect();
        let schema = json!({"properties": properties, "required": ["p0", "p69"]});
        assert!(accepts(&schema, r#"{"p69": 1, "p0": 2}"#));
        assert!(!accepts(&schema, r#"{"p68": 1, "p0": 2}"#));
    }

    /// Every case of the JSON Schema Test Suite whose schema is in the subset: "certainly valid" is said only of data
    /// the crate accepts, and is said of most of what it accepts (else the check would be worth nothing).
    #[test]
    fn never_valid_where_the_crate_refuses_on_the_json_schema_test_suite() {
        let Some(dir) = corpus("json-schema-test-suite") else {
            return;
        };
        let (mut accepted, mut valid, mut wrong) = (0, 0, Vec::new());
        for folder in ["draft2020-12", "draft7"] {
            for (path, case) in schema_suite_cases(&dir, folder) {
                let schema = &case["schema"];
                let (Some(quick), Ok(validator)) = (QuickCheck::of(schema), options().build(schema)) else {
                    continue;
                };
                for test in case["tests"].as_array().unwrap() {
                    let text = test["data"].to_string();
                    let crate_says = validator.is_valid(&test["data"]);
                    valid += usize::from(crate_says);
                    if quick.accepts(text.as_bytes(), false, DEPTH) {
                        accepted += 1;
                        if !crate_says {
                            wrong.push(format!("{path:?} {} / {}", case["description"], test["description"]));
                        }
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
        assert!(
            valid > 150 && accepted * 10 >= valid * 9,
            "accepted {accepted} of {valid}"
        );
    }

    /// The texts of `JSONTestSuite` against the schema that accepts everything: "certainly valid" only of text the
    /// validator's parser reads.
    #[test]
    fn never_valid_for_text_the_parser_refuses_on_jsontestsuite() {
        let Some(dir) = corpus("json-test-suite") else { return };
        let quick = QuickCheck::of(&json!({})).unwrap();
        let (mut files, mut wrong) = (0, Vec::new());
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|extension| extension != "json") {
                continue;
            }
            files += 1;
            let text = std::fs::read(&path).unwrap();
            let parsed = serde_json::from_slice::<Value>(&text).is_ok();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if quick.accepts(&text, false, DEPTH) && (!parsed || name.starts_with("n_")) {
                wrong.push(name);
            } else if name.starts_with("y_") && !quick.accepts(&text, false, DEPTH) && !name.contains("surrogate") {
                // Numbers and escapes the walk leaves to the validator are the only texts it may refuse.
                let left = String::from_utf8_lossy(&text).contains("\\u") || name.starts_with("y_number");
                if !left {
                    wrong.push(format!("refused {name}"));
                }
            }
        }
        assert!(files > 300, "{files}");
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        fn names() -> impl Strategy<Value = String> {
            prop::sample::select(vec!["a", "b", "c", "d"]).prop_map(str::to_owned)
        }

        fn schemas() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(json!({})),
                prop::sample::subsequence(
                    vec!["null", "boolean", "number", "integer", "string", "object", "array"],
                    1..3
                )
                .prop_map(|types| json!({"type": types})),
                prop::sample::subsequence(vec!["a", "b", "x"], 1..3).prop_map(|options| json!({"enum": options})),
                prop::sample::subsequence(
                    vec![
                        json!("a"),
                        json!(0),
                        json!(5),
                        json!(5.0),
                        json!(1.5),
                        json!(null),
                        json!(true)
                    ],
                    1..4
                )
                .prop_map(|options| json!({"enum": options})),
                prop::sample::select(vec![json!(0), json!("a"), json!(false), json!(null)])
                    .prop_map(|only| json!({"const": only})),
                (
                    prop::sample::select(vec!["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
                    prop::sample::select(vec![json!(0), json!(5), json!(-1), json!(10.0)]),
                )
                    .prop_map(|(keyword, bound)| json!({ keyword: bound })),
                (
                    prop::sample::select(vec!["minLength", "maxLength", "minItems", "maxItems"]),
                    0_u64..3,
                )
                    .prop_map(|(keyword, size)| json!({ keyword: size })),
            ];
            leaf.prop_recursive(3, 24, 4, |inner| {
                prop_oneof![
                    (
                        prop::collection::btree_map(names(), inner.clone(), 0..4),
                        prop::collection::btree_set(names(), 0..3),
                        prop_oneof![Just(json!(true)), Just(json!(false)), inner.clone()],
                    )
                        .prop_map(|(properties, required, additional)| {
                            json!({"type": "object", "properties": properties, "required": Vec::from_iter(required),
                                   "additionalProperties": additional})
                        }),
                    inner.prop_map(|items| json!({"type": "array", "items": items})),
                ]
            })
        }

        fn values() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(json!(null)),
                any::<bool>().prop_map(Value::Bool),
                prop::sample::select(vec![
                    "0",
                    "-0",
                    "-1",
                    "1.5",
                    "1.0",
                    "1e2",
                    "100000000000000000000000",
                    "5",
                    "5.0",
                    "5.000001",
                    "4.9999999999999999999",
                    "10",
                    "10.0",
                    "-0.5",
                    "-1.0000001",
                    "1e-400"
                ])
                .prop_map(|number| serde_json::from_str(number).unwrap()),
                prop::sample::select(vec!["a", "b", "x", "\\u0061", "", "é", "𝄞a", "abc"]).prop_map(|text| json!(text)),
            ];
            leaf.prop_recursive(4, 32, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    prop::collection::btree_map(names(), inner, 0..5)
                        .prop_map(|members| Value::Object(members.into_iter().collect())),
                ]
            })
        }

        proptest! {
            /// Generated schemas of the subset and values around them: "certainly valid" only when the crate agrees.
            #[test]
            fn certainly_valid_only_when_the_crate_agrees(schema in schemas(), value in values()) {
                let quick = QuickCheck::of(&schema).expect("the generated schemas are in the subset");
                let validator = options().build(&schema).unwrap();
                if quick.accepts(value.to_string().as_bytes(), false, DEPTH) {
                    prop_assert!(validator.is_valid(&value), "{schema} {value}");
                }
            }
        }
    }
}
