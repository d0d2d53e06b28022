//! How one subschema applies to a value, keyword by keyword, as the `jsonschema` crate applies it: what the error
//! search ([`crate::error_search`]) walks.
//!
//! A plan names the subschemas a keyword applies, as nodes of the tool's graph ([`crate::search_cost`]), and keeps
//! the keywords that apply none (`type`, `enum`, `const`, bounds, lengths, `pattern`, `required`...) as a schema of
//! their own, which the crate compiles and runs: whether a value passes them, and how it fails them, stay the crate's.
//!
//! Keywords apply in the drafts the crate applies them in (with every vocabulary, as a schema this crate compiles
//! names no custom meta-schema):
//!
//! | keywords                                                                         | drafts          |
//! | -------------------------------------------------------------------------------- | --------------- |
//! | `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `properties`, `patternProperties`,     | all             |
//! | `additionalProperties`, `items`, `additionalItems`, `dependencies`               |                 |
//! | `contains`, `propertyNames`                                                      | 6 and later     |
//! | `if`, `then`, `else`                                                             | 7 and later     |
//! | `dependentSchemas`, `minContains`, `maxContains`                                 | 2019-09, 2020-12 |
//! | `prefixItems`                                                                    | 2020-12         |
//!
//! In drafts 4 to 7 a `$ref` stands alone. A plan cannot be made (the search falls back to the crate's own) for a
//! subschema the walk does not model: `unevaluatedProperties`/`unevaluatedItems` (they read what every passing branch
//! evaluated), `$dynamicRef`/`$recursiveRef` (resolved by the dynamic scope), a `$schema` naming another draft than the
//! root's, or a reference that does not resolve.

use std::sync::OnceLock;

use jsonschema::{ValidationOptions, Validator};
use referencing::Draft;
use serde_json::{Map, Value};

/// The keywords that apply no subschema, kept in a subschema's plan as a schema the crate runs.
const ASSERTIONS: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
];

/// Why a subschema has no plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unplanned;

/// How a subschema applies to a value.
#[derive(Debug)]
pub(crate) enum Plan {
    /// `true` (any value) or `false` (none), with the pointer of a `false` in the tool's schema when it lies there.
    Boolean { accepts: bool, location: Option<String> },
    /// A schema object.
    Keywords(Box<Keywords>),
}

/// The keywords of a schema object that apply, each with its subschemas as graph nodes.
#[derive(Debug, Default)]
pub(crate) struct Keywords {
    /// The keywords that apply no subschema, as a schema; None when there are none.
    pub(crate) assertions: Option<Value>,
    /// `$ref` targets.
    pub(crate) references: Vec<usize>,
    pub(crate) all_of: Vec<usize>,
    pub(crate) any_of: Vec<usize>,
    pub(crate) one_of: Vec<usize>,
    /// `not`, with its value as JSON for the message.
    pub(crate) not: Option<(usize, String)>,
    /// `if`, with `then` and `else`.
    pub(crate) condition: Option<Condition>,
    /// `dependentSchemas` and the schemas of `dependencies`: applied to the object when it has that member.
    pub(crate) dependent: Vec<(String, usize)>,
    /// By name, sorted (looked up by binary search).
    pub(crate) properties: Vec<(String, usize)>,
    /// `patternProperties`: each pattern with its subschema.
    pub(crate) patterns: Vec<(String, usize)>,
    /// `additionalProperties`: the members no `properties` names and no pattern matches.
    pub(crate) additional: Option<usize>,
    /// `propertyNames`.
    pub(crate) names: Option<usize>,
    /// `prefixItems`, or `items` as a list (drafts before 2020-12): the items at those positions.
    pub(crate) prefix: Vec<usize>,
    /// The items past the prefix.
    pub(crate) rest: Option<Rest>,
    pub(crate) contains: Option<Contains>,
    compiled: OnceLock<Option<Compiled>>,
}

/// What the crate runs for a plan, compiled the first time a walk needs it.
#[derive(Debug)]
pub(crate) struct Compiled {
    /// The assertions, when there are any.
    pub(crate) assertions: Option<Validator>,
    /// `{"pattern": ...}` for each of the plan's `patterns`, in order: whether a member's name matches, the crate's
    /// way.
    pub(crate) patterns: Vec<Validator>,
}

impl Keywords {
    /// Whether the schema applies no subschema: only its assertions judge a value.
    pub(crate) fn applies_none(&self) -> bool {
        self.references.is_empty()
            && self.all_of.is_empty()
            && self.any_of.is_empty()
            && self.one_of.is_empty()
            && self.not.is_none()
            && self.condition.is_none()
            && self.dependent.is_empty()
            && self.properties.is_empty()
            && self.patterns.is_empty()
            && self.additional.is_none()
            && self.names.is_none()
            && self.prefix.is_empty()
            && self.rest.is_none()
            && self.contains.is_none()
    }

    /// The plan's validators, compiled with `options` the first time; None when one does not compile (never seen:
    /// each is a part of a schema the crate compiled).
    pub(crate) fn compiled(&self, options: impl FnOnce() -> ValidationOptions<'static>) -> Option<&Compiled> {
        self.compiled
            .get_or_init(|| {
                let options = options();
                let assertions = match &self.assertions {
                    Some(schema) => Some(options.build(schema).ok()?),
                    None => None,
                };
                let patterns = self
                    .patterns
                    .iter()
                    .map(|(pattern, _)| options.build(&serde_json::json!({ "pattern": pattern })).ok())
                    .collect::<Option<Vec<_>>>()?;
                Some(Compiled { assertions, patterns })
            })
            .as_ref()
    }
}

/// `if`, `then`, `else`.
#[derive(Debug)]
pub(crate) struct Condition {
    pub(crate) test: usize,
    pub(crate) then: Option<usize>,
    pub(crate) otherwise: Option<usize>,
}

/// The subschema applied to the items past the prefix, and the keyword it came from.
#[derive(Debug)]
pub(crate) struct Rest {
    pub(crate) node: usize,
    /// From `additionalItems` (whose `false` the crate reports once, at the array), not from `items`.
    pub(crate) additional_items: bool,
}

/// `contains`, with `minContains` and `maxContains` where the draft reads them.
#[derive(Debug)]
pub(crate) struct Contains {
    pub(crate) node: usize,
    pub(crate) min: Option<Bound>,
    pub(crate) max: Option<Bound>,
}

/// A bound of `contains`: the count, and the value as the schema writes it (for the violation's data).
#[derive(Debug)]
pub(crate) struct Bound {
    pub(crate) count: u64,
    pub(crate) written: Value,
}

impl Plan {
    /// The plan of `schema` (a node of the graph) under `draft`: `node` numbers a subschema, `references` are the
    /// nodes its `$ref` resolves to (None when it does not resolve), `location` its pointer when it is a `false`.
    pub(crate) fn new<'v>(
        schema: &'v Value,
        draft: Draft,
        location: Option<String>,
        references: Option<Vec<usize>>,
        mut node: impl FnMut(&'v Value) -> usize,
    ) -> Result<Self, Unplanned> {
        let keywords = match schema {
            Value::Bool(accepts) => {
                return Ok(Self::Boolean {
                    accepts: *accepts,
                    location: location.filter(|_| !accepts),
                });
            }
            Value::Object(keywords) => keywords,
            _ => return Err(Unplanned),
        };
        if draft.detect(schema) != draft {
            return Err(Unplanned);
        }
        let mut plan = Keywords {
            references: references.ok_or(Unplanned)?,
            ..Keywords::default()
        };
        let modern = matches!(draft, Draft::Draft201909 | Draft::Draft202012);
        if !modern && keywords.contains_key("$ref") {
            return Ok(Self::Keywords(Box::new(plan)));
        }
        let unmodelled: &[&str] = match draft {
            Draft::Draft201909 => &["$recursiveRef", "unevaluatedProperties", "unevaluatedItems"],
            Draft::Draft202012 => &["$dynamicRef", "unevaluatedProperties", "unevaluatedItems"],
            _ => &[],
        };
        if unmodelled.iter().any(|keyword| keywords.contains_key(*keyword)) {
            return Err(Unplanned);
        }
        let since_6 = draft != Draft::Draft4;
        let since_7 = since_6 && draft != Draft::Draft6;
        if let Some(value) = keywords.get("not") {
            plan.not = Some((node(value), crate::validator::shorten(value.to_string())));
        }
        plan.additional = keywords.get("additionalProperties").map(&mut node);
        if since_6 {
            plan.names = keywords.get("propertyNames").map(&mut node);
        }
        if since_7 && let Some(test) = keywords.get("if") {
            plan.condition = Some(Condition {
                test: node(test),
                then: keywords.get("then").map(&mut node),
                otherwise: keywords.get("else").map(&mut node),
            });
        }
        plan.all_of = listed(keywords, "allOf", &mut node);
        plan.any_of = listed(keywords, "anyOf", &mut node);
        plan.one_of = listed(keywords, "oneOf", &mut node);
        let prefix = if draft == Draft::Draft202012 {
            "prefixItems"
        } else {
            "items"
        };
        plan.prefix = listed(keywords, prefix, &mut node);
        plan.rest = rest(keywords, draft, &mut node);
        plan.properties = named(keywords, "properties", &mut node);
        plan.properties.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        plan.patterns = named(keywords, "patternProperties", &mut node);
        plan.dependent = named(keywords, "dependencies", &mut node);
        if modern {
            plan.dependent.extend(named(keywords, "dependentSchemas", &mut node));
        }
        if since_6 && let Some(value) = keywords.get("contains") {
            let bound = |keyword: &str| {
                let value = keywords.get(keyword).filter(|_| modern)?;
                Some(Bound {
                    count: size_limit(value)?,
                    written: value.clone(),
                })
            };
            plan.contains = Some(Contains {
                node: node(value),
                min: bound("minContains"),
                max: bound("maxContains"),
            });
        }
        plan.assertions = assertions(keywords);
        Ok(Self::Keywords(Box::new(plan)))
    }
}

/// The subschemas of a keyword holding a list of them.
fn listed<'v>(
    keywords: &'v Map<String, Value>,
    keyword: &str,
    node: &mut impl FnMut(&'v Value) -> usize,
) -> Vec<usize> {
    match keywords.get(keyword) {
        Some(Value::Array(subschemas)) => subschemas.iter().map(node).collect(),
        _ => Vec::new(),
    }
}

/// The subschemas of a keyword holding them by name (`properties`, a pattern, a member's name).
fn named<'v>(
    keywords: &'v Map<String, Value>,
    keyword: &str,
    node: &mut impl FnMut(&'v Value) -> usize,
) -> Vec<(String, usize)> {
    match keywords.get(keyword) {
        Some(Value::Object(members)) => members
            .iter()
            .filter(|(_, subschema)| subschema.is_object() || subschema.is_boolean())
            .map(|(name, subschema)| (name.clone(), node(subschema)))
            .collect(),
        _ => Vec::new(),
    }
}

/// The subschema for the items past the prefix: `items` as a schema (after `prefixItems` in 2020-12), or
/// `additionalItems` when `items` is a list.
fn rest<'v>(keywords: &'v Map<String, Value>, draft: Draft, node: &mut impl FnMut(&'v Value) -> usize) -> Option<Rest> {
    match keywords.get("items") {
        Some(Value::Array(_)) if draft != Draft::Draft202012 => keywords.get("additionalItems").map(|value| Rest {
            node: node(value),
            additional_items: true,
        }),
        Some(value @ (Value::Object(_) | Value::Bool(_))) => Some(Rest {
            node: node(value),
            additional_items: false,
        }),
        _ => None,
    }
}

/// A count the crate reads from a schema (`minContains`): a non-negative integer, or an integer-valued number; one
/// past `u64` is `u64::MAX`.
fn size_limit(value: &Value) -> Option<u64> {
    let Value::Number(number) = value else {
        return None;
    };
    if let Some(count) = number.as_u64() {
        return Some(count);
    }
    if number.as_str().bytes().all(|byte| byte.is_ascii_digit()) {
        return Some(u64::MAX);
    }
    #[expect(
        clippy::float_cmp,
        reason = "whether the number is whole, exactly, as the crate asks"
    )]
    let whole = number
        .as_f64()
        .filter(|count| *count >= 0.0 && count.trunc() == *count)?;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a whole, non-negative number below 2**64 (larger ones were taken above)"
    )]
    Some(whole as u64)
}

/// The keywords of `keywords` that apply no subschema, as a schema; `dependencies` keeps its lists of names.
fn assertions(keywords: &Map<String, Value>) -> Option<Value> {
    let mut kept: Map<String, Value> = ASSERTIONS
        .iter()
        .filter_map(|&keyword| Some((keyword.to_owned(), keywords.get(keyword)?.clone())))
        .collect();
    if let Some(Value::Object(dependencies)) = keywords.get("dependencies") {
        let lists: Map<String, Value> = dependencies
            .iter()
            .filter(|(_, value)| value.is_array())
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        if !lists.is_empty() {
            kept.insert("dependencies".to_owned(), Value::Object(lists));
        }
    }
    (!kept.is_empty()).then_some(Value::Object(kept))
}
