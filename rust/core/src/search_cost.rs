//! A tool's schema as a graph of subschemas, and what it costs to search an invalid call's arguments for its
//! findings, known before the search starts.
//!
//! Deciding validity is cheap (the `jsonschema` crate caches what a recursive schema decided). Listing every problem
//! the crate's way is not: its error search descends into every branch of a failed `anyOf`/`oneOf`, every schema of
//! an `allOf`, both `then` and `else`, and so on, and where a recursive schema does that at each level of the
//! arguments, the branches multiply: a 648-byte tree under `Node = anyOf[{kind: folder, children: [Node]}, {kind:
//! group, children: [Node]}]` asks for 2²⁴ visits. So the error search of this crate ([`crate::error_search`]) walks
//! the graph's plans ([`crate::plan`]) and judges each (subschema, value) pair once; the crate's own search is left
//! for schemas the walk does not model. Neither can be stopped once started, so each is started only when a count of
//! this module says that it fits in the budget (`Limits.max_validation_steps`): [`SearchGraph::pairs_exceed`] counts
//! the pairs the walk may judge, each once; [`SearchGraph::exceeds`] the visits of the crate's search, each pair with
//! multiplicity.
//!
//! Both count the *steps* of a search that takes every way the schema offers: the (subschema, value) pairs reached
//! from the root schema at the arguments, through
//!
//! | keyword                                                                | reaches                              |
//! | ---------------------------------------------------------------------- | ------------------------------------ |
//! | `allOf`, `anyOf`, `oneOf` (each branch), `not`, `if`, `then`, `else`   | the same value                       |
//! | `$ref`, `$dynamicRef`, `$recursiveRef`                                 | the same value (see *references*)    |
//! | `dependentSchemas`, `dependencies` (a schema)                          | the object, when it has that member  |
//! | `properties`                                                           | the member of that name              |
//! | `patternProperties`, `additionalProperties`, `unevaluatedProperties`   | every member (patterns not matched)  |
//! | `propertyNames`                                                        | every member's name                  |
//! | `prefixItems`, `items` (a list)                                        | the item at that position            |
//! | `items` (a schema), `additionalItems`, `unevaluatedItems`, `contains`  | every item                           |
//!
//! It never asks whether a value matches, so it counts at least the visits a search makes, and it counts the same
//! in the core and in the reference, whatever order either library searches in.
//!
//! In drafts 4 to 7 a `$ref` stands alone: the walk, like the libraries, takes no other keyword beside it.
//!
//! *References* are resolved as the libraries resolve them (the `referencing` crate, whose Python twin the reference
//! uses), the draft meta-schemas included. A `$dynamicRef` reaches its static target and every subschema whose
//! `$dynamicAnchor` has the name of its fragment; a `$recursiveRef` reaches `#` and every subschema with
//! `$recursiveAnchor: true`: all the places the dynamic scope could pick.

use referencing::{Draft, Resolver, ResourceRef, SPECIFICATIONS};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use crate::plan::{Plan, Unplanned};

/// Where an edge of the graph leads from the value a subschema is applied to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reach {
    /// The same value.
    InPlace,
    /// The member of this name of an object.
    Member(Box<str>),
    /// The object itself, when it has a member of this name.
    WhenMember(Box<str>),
    /// Every member of an object.
    EveryMember,
    /// Every member's name (a string) of an object.
    EveryName,
    /// The item at this position of an array.
    Item(usize),
    /// Every item of an array.
    EveryItem,
}

#[derive(Debug, Clone)]
struct Edge {
    reach: Reach,
    to: usize,
}

/// A tool's schema as the graph of the (subschema → subschema) steps a search can take; node 0 is the root.
#[derive(Debug)]
pub(crate) struct SearchGraph {
    /// The edges of each node; None when the schema's references could not be read, and so no search is bounded.
    edges: Option<Vec<Vec<Edge>>>,
    /// How each node applies, when every node the root reaches has a plan: then the error search walks the schema
    /// ([`crate::error_search`]) rather than leaving it to the crate.
    plans: Option<Vec<Plan>>,
    draft: Draft,
}

impl SearchGraph {
    /// The graph of `schema`, a schema of `draft` whose references all resolve offline (as they do once the
    /// `jsonschema` crate compiled it). A reference that does not resolve leads nowhere; a document whose
    /// references cannot be read at all (never seen: the crate reads them the same way) fails closed: every search
    /// is over any budget.
    pub(crate) fn new(schema: &Value, draft: Draft) -> Self {
        let root = ResourceRef::new(schema, draft);
        let base = root.id().unwrap_or(DEFAULT_BASE).to_owned();
        let registry = SPECIFICATIONS
            .add(&base, root)
            .and_then(|builder| builder.draft(draft).prepare());
        let (Ok(registry), Ok(base)) = (registry, referencing::uri::from_str(&base)) else {
            return Self {
                edges: None,
                plans: None,
                draft,
            };
        };
        let mut falses = FxHashMap::default();
        index_falses(schema, &mut String::new(), &mut falses);
        let mut builder = Builder {
            draft,
            values: Vec::new(),
            edges: Vec::new(),
            plans: Vec::new(),
            falses,
            at: FxHashMap::default(),
            pending: Vec::new(),
        };
        builder.node(schema, registry.resolver(base));
        while let Some((node, resolver)) = builder.pending.pop() {
            builder.walk(node, &resolver);
        }
        builder.add_dynamic_edges();
        let plans = reached_all_planned(&builder.edges, &builder.plans).then(|| {
            // A node the root does not reach (a definition never referred to) is never walked.
            let unreached = || Plan::Boolean {
                accepts: true,
                location: None,
            };
            builder
                .plans
                .into_iter()
                .map(|plan| plan.unwrap_or_else(|_| unreached()))
                .collect()
        });
        Self {
            edges: Some(builder.edges),
            plans,
            draft,
        }
    }

    /// How each node applies, indexed by node, when the error search can walk the schema.
    pub(crate) fn plans(&self) -> Option<&[Plan]> {
        self.plans.as_deref()
    }

    /// The draft every subschema is read in.
    pub(crate) fn draft(&self) -> Draft {
        self.draft
    }

    /// Whether a search of `instance` from the root could take more than `budget` steps, each (subschema, value)
    /// pair counted every time a search could reach it: the count for the crate's own search, which judges a pair
    /// again down every way that leads to it.
    ///
    /// Each visit counts when the walk schedules it, and none is scheduled past the budget: the walk's memory stays
    /// within `budget` visits, its time within `budget` and the length of the one container it was reading.
    pub(crate) fn exceeds(&self, instance: &Value, budget: u64) -> bool {
        let Some(edges) = &self.edges else {
            return true;
        };
        let mut pending: Vec<(usize, &Value)> = vec![(0, instance)];
        let mut steps: u64 = 1;
        while let Some((node, value)) = pending.pop() {
            for edge in edges.get(node).map_or(&[][..], Vec::as_slice) {
                reached(&edge.reach, value, |next| {
                    steps += 1;
                    if steps <= budget {
                        pending.push((edge.to, next));
                    }
                });
                if steps > budget {
                    return true;
                }
            }
        }
        steps > budget
    }

    /// Whether a search of `instance` from the root could take more than `budget` steps, each (subschema, value)
    /// pair counted once however many ways lead to it: the count for the error search, which judges each pair once.
    ///
    /// A member's name is a value of its own (one pair per name). Memory and time stay within `budget` pairs, as in
    /// [`SearchGraph::exceeds`].
    pub(crate) fn pairs_exceed(&self, instance: &Value, budget: u64) -> bool {
        let Some(edges) = &self.edges else {
            return true;
        };
        let root = Visit::Value(instance);
        let mut seen: FxHashSet<(usize, usize, bool)> = FxHashSet::default();
        seen.insert((0, root.address(), false));
        let mut pairs: u64 = 1;
        let mut pending = vec![(0, root)];
        while let Some((node, visit)) = pending.pop() {
            for edge in edges.get(node).map_or(&[][..], Vec::as_slice) {
                reached_once(&edge.reach, visit, |next| {
                    if pairs <= budget && seen.insert((edge.to, next.address(), matches!(next, Visit::Name(_)))) {
                        pairs += 1;
                        pending.push((edge.to, next));
                    }
                });
                if pairs > budget {
                    return true;
                }
            }
        }
        pairs > budget
    }
}

/// A value a search visits: one of the arguments', or a member's name (which `propertyNames` applies to).
#[derive(Debug, Clone, Copy)]
enum Visit<'v> {
    Value(&'v Value),
    Name(&'v String),
}

impl Visit<'_> {
    /// What tells this value from every other of the arguments (a name is told by its key in its object).
    fn address(self) -> usize {
        match self {
            Self::Value(value) => std::ptr::from_ref(value).addr(),
            Self::Name(name) => std::ptr::from_ref(name).addr(),
        }
    }
}

/// Calls `next` with every value `reach` leads to from `visit`, each member's name as itself.
fn reached_once<'v>(reach: &Reach, visit: Visit<'v>, mut next: impl FnMut(Visit<'v>)) {
    match (reach, visit) {
        (Reach::InPlace, _) => next(visit),
        (Reach::EveryName, Visit::Value(Value::Object(members))) => {
            members.keys().for_each(|name| next(Visit::Name(name)));
        }
        (_, Visit::Value(value)) => reached(reach, value, |value| next(Visit::Value(value))),
        (_, Visit::Name(_)) => {}
    }
}

/// Whether every node the root reaches has a plan.
fn reached_all_planned(edges: &[Vec<Edge>], plans: &[Result<Plan, Unplanned>]) -> bool {
    let mut seen = vec![false; edges.len()];
    let mut pending = vec![0];
    while let Some(node) = pending.pop() {
        let Some(slot) = seen.get_mut(node) else {
            return false;
        };
        if std::mem::replace(slot, true) {
            continue;
        }
        if plans.get(node).is_none_or(Result::is_err) {
            return false;
        }
        pending.extend(edges.get(node).into_iter().flatten().map(|edge| edge.to));
    }
    true
}

/// Records the pointer of every `false` subschema of `schema` (messages name where a false schema stands).
fn index_falses(schema: &Value, pointer: &mut String, falses: &mut FxHashMap<usize, String>) {
    match schema {
        Value::Bool(false) => {
            falses.insert(std::ptr::from_ref(schema).addr(), pointer.clone());
        }
        Value::Object(members) => {
            for (key, value) in members {
                let length = pointer.len();
                crate::validator::push_segment(pointer, key);
                index_falses(value, pointer, falses);
                pointer.truncate(length);
            }
        }
        Value::Array(items) => {
            for (at, value) in items.iter().enumerate() {
                let length = pointer.len();
                pointer.push('/');
                pointer.push_str(&at.to_string());
                index_falses(value, pointer, falses);
                pointer.truncate(length);
            }
        }
        _ => {}
    }
}

/// Calls `visit` with every value `reach` leads to from `value`.
fn reached<'v>(reach: &Reach, value: &'v Value, mut visit: impl FnMut(&'v Value)) {
    match (reach, value) {
        (Reach::InPlace, _) => visit(value),
        (Reach::Member(name), Value::Object(members)) => members.get(&**name).into_iter().for_each(visit),
        (Reach::WhenMember(name), Value::Object(members)) if members.contains_key(&**name) => visit(value),
        (Reach::EveryMember, Value::Object(members)) => members.values().for_each(visit),
        // A member's name is a string value; `NAME` stands in for all of them: no keyword's search depends on which
        // string it is given, only the number of visits counts.
        (Reach::EveryName, Value::Object(members)) => (0..members.len()).for_each(|_| visit(&NAME)),
        (Reach::Item(position), Value::Array(items)) => items.get(*position).into_iter().for_each(visit),
        (Reach::EveryItem, Value::Array(items)) => items.iter().for_each(visit),
        _ => {}
    }
}

static NAME: Value = Value::Null;

/// The value of `keyword` in `schema`, when it is an object that has it.
fn anchored<'v>(schema: &'v Value, keyword: &str) -> Option<&'v Value> {
    schema.as_object().and_then(|keywords| keywords.get(keyword))
}

/// The base URI of a document that names none, as the `jsonschema` crate gives it.
const DEFAULT_BASE: &str = "json-schema:///";

struct Builder<'r> {
    draft: Draft,
    /// Each node's subschema.
    values: Vec<&'r Value>,
    edges: Vec<Vec<Edge>>,
    /// Each node's plan, once walked.
    plans: Vec<Result<Plan, Unplanned>>,
    /// The pointers of the `false` subschemas of the tool's schema, by address.
    falses: FxHashMap<usize, String>,
    /// Nodes by the address of their subschema: a subschema reached twice (by a reference) is one node.
    at: FxHashMap<usize, usize>,
    /// Nodes found and not yet walked, with the resolver their references are read with.
    pending: Vec<(usize, Resolver<'r>)>,
}

impl<'r> Builder<'r> {
    /// The node of `schema`, found by `resolver`'s scope; numbered and queued the first time.
    fn node(&mut self, schema: &'r Value, resolver: Resolver<'r>) -> usize {
        let address = std::ptr::from_ref(schema).addr();
        if let Some(&node) = self.at.get(&address) {
            return node;
        }
        let node = self.values.len();
        self.at.insert(address, node);
        self.values.push(schema);
        self.edges.push(Vec::new());
        self.plans.push(Err(Unplanned));
        self.pending.push((node, resolver));
        node
    }

    /// The edges of `node` (to the subschemas in its keywords and to those its references reach) and its plan.
    fn walk(&mut self, node: usize, outer: &Resolver<'r>) {
        let Some(&schema) = self.values.get(node) else {
            return;
        };
        let location = self.falses.get(&std::ptr::from_ref(schema).addr()).cloned();
        let Value::Object(keywords) = schema else {
            let plan = Plan::new(schema, self.draft, location, Some(Vec::new()), |_| node);
            if let Some(slot) = self.plans.get_mut(node) {
                *slot = plan;
            }
            return;
        };
        let resolver = outer
            .in_subresource(ResourceRef::new(schema, self.draft))
            .unwrap_or_else(|_| outer.clone());
        let alone = !matches!(self.draft, Draft::Draft201909 | Draft::Draft202012) && keywords.contains_key("$ref");
        let mut edges = Vec::new();
        for (keyword, value) in keywords.iter().filter(|_| !alone) {
            if matches!(keyword.as_str(), "$defs" | "definitions") {
                // Not applied where they stand, but found now: a dynamic anchor among them may be reached.
                for member in value.as_object().into_iter().flat_map(serde_json::Map::values) {
                    self.node(member, resolver.clone());
                }
            }
            for (reach, subschema) in subschemas(keyword, value) {
                if subschema.is_object() || subschema.is_boolean() {
                    let to = self.node(subschema, resolver.clone());
                    edges.push(Edge { reach, to });
                }
            }
        }
        // The targets of `$ref` (None once one does not resolve), for the plan.
        let mut references = Some(Vec::new());
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            let Some(Value::String(reference)) = keywords.get(keyword) else {
                continue;
            };
            let target = if keyword == "$recursiveRef" { "#" } else { reference };
            match resolver.lookup(target).map(referencing::Resolved::into_inner) {
                Ok((contents, found, _)) => {
                    let to = self.node(contents, found);
                    edges.push(Edge {
                        reach: Reach::InPlace,
                        to,
                    });
                    if let (true, Some(targets)) = (keyword == "$ref", references.as_mut()) {
                        targets.push(to);
                    }
                }
                Err(_) if keyword == "$ref" => references = None,
                Err(_) => {}
            }
        }
        if let Some(slot) = self.edges.get_mut(node) {
            slot.extend(edges);
        }
        // Every subschema the plan names is one the edges above reach, so the walk stays within the count.
        let plan = Plan::new(schema, self.draft, location, references, |subschema| {
            self.node(subschema, resolver.clone())
        });
        if let Some(slot) = self.plans.get_mut(node) {
            *slot = plan;
        }
    }

    /// Every node a `$dynamicRef` or `$recursiveRef` could reach through the dynamic scope.
    fn add_dynamic_edges(&mut self) {
        for (node, &schema) in self.values.iter().enumerate() {
            let anchor = match (anchored(schema, "$dynamicRef"), anchored(schema, "$recursiveRef")) {
                (Some(Value::String(reference)), _) => {
                    let name = reference.rsplit_once('#').map_or("", |(_, name)| name);
                    Anchor::Dynamic(name)
                }
                (_, Some(Value::String(_))) => Anchor::Recursive,
                _ => continue,
            };
            let reached = self.values.iter().enumerate().filter(|(_, value)| anchor.is_on(value));
            if let Some(slot) = self.edges.get_mut(node) {
                slot.extend(reached.map(|(to, _)| Edge {
                    reach: Reach::InPlace,
                    to,
                }));
            }
        }
    }
}

/// What the dynamic scope may stop at for a dynamic reference.
enum Anchor<'s> {
    /// A `$dynamicAnchor` of this name.
    Dynamic(&'s str),
    /// `$recursiveAnchor: true`.
    Recursive,
}

impl Anchor<'_> {
    fn is_on(&self, schema: &Value) -> bool {
        match self {
            Self::Dynamic(name) => anchored(schema, "$dynamicAnchor").and_then(Value::as_str) == Some(*name),
            Self::Recursive => anchored(schema, "$recursiveAnchor") == Some(&Value::Bool(true)),
        }
    }
}

/// The subschemas a keyword's `value` holds, each with where it is applied from the value the keyword is.
fn subschemas<'v>(keyword: &str, value: &'v Value) -> Vec<(Reach, &'v Value)> {
    let named = |members: &'v serde_json::Map<String, Value>, reach: fn(&str) -> Reach| {
        members.iter().map(|(name, member)| (reach(name), member)).collect()
    };
    match (keyword, value) {
        ("allOf" | "anyOf" | "oneOf", Value::Array(branches)) => {
            branches.iter().map(|branch| (Reach::InPlace, branch)).collect()
        }
        ("prefixItems" | "items", Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(position, item)| (Reach::Item(position), item))
            .collect(),
        ("properties", Value::Object(members)) => named(members, |name| Reach::Member(name.into())),
        ("dependentSchemas" | "dependencies", Value::Object(members)) => {
            named(members, |name| Reach::WhenMember(name.into()))
        }
        ("patternProperties", Value::Object(members)) => named(members, |_| Reach::EveryMember),
        ("not" | "if" | "then" | "else", _) => vec![(Reach::InPlace, value)],
        ("additionalProperties" | "unevaluatedProperties", _) => vec![(Reach::EveryMember, value)],
        ("propertyNames", _) => vec![(Reach::EveryName, value)],
        ("items" | "additionalItems" | "unevaluatedItems" | "contains", _) => vec![(Reach::EveryItem, value)],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The steps a search of `instance` takes, found as the least budget it fits.
    fn steps(schema: &Value, instance: &Value) -> u64 {
        steps_in(schema, instance, Draft::Draft202012)
    }

    fn steps_in(schema: &Value, instance: &Value, draft: Draft) -> u64 {
        let graph = SearchGraph::new(schema, draft);
        (1..=1_000_000)
            .find(|&budget| !graph.exceeds(instance, budget))
            .unwrap()
    }

    fn node(kind: &str) -> Value {
        json!({"type": "object", "properties": {
            "kind": {"const": kind},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        }})
    }

    fn tree(depth: usize) -> Value {
        let mut value = json!({"kind": "file", "children": []});
        for _ in 0..depth {
            value = json!({"kind": "folder", "children": [value]});
        }
        value
    }

    #[test]
    fn each_place_a_keyword_leads_to_is_one_step() {
        let schema = json!({"properties": {"a": {"type": "string"}, "b": {}}, "items": {}});
        assert_eq!(steps(&schema, &json!({"a": 1, "c": 2})), 2);
        assert_eq!(steps(&schema, &json!([1, 2, 3])), 4);
        assert_eq!(steps(&schema, &json!(7)), 1);
        let schema = json!({"allOf": [{}, {"not": {}}], "if": true, "then": {}, "else": false});
        assert_eq!(steps(&schema, &json!(null)), 7);
        let schema = json!({"prefixItems": [{}, {}], "contains": {}, "propertyNames": {"maxLength": 2}});
        assert_eq!(steps(&schema, &json!([1])), 3);
        assert_eq!(steps(&schema, &json!({"ab": 1, "c": 2})), 3);
        let schema = json!({"dependentSchemas": {"a": {}, "b": {}}, "patternProperties": {"^x": {}, "^y": {}}});
        assert_eq!(steps(&schema, &json!({"a": 1})), 4);
    }

    #[test]
    fn failing_branches_of_a_recursive_union_multiply() {
        let schema = json!({"$defs": {"Node": {"anyOf": [node("folder"), node("group")]}}, "$ref": "#/$defs/Node"});
        let counts: Vec<u64> = (0..6).map(|depth| steps(&schema, &tree(depth))).collect();
        for pair in counts.windows(2) {
            assert!(pair[1] > 2 * pair[0], "{counts:?}");
        }
        let graph = SearchGraph::new(&schema, Draft::Draft202012);
        let started = std::time::Instant::now();
        assert!(graph.exceeds(&tree(24), 100_000));
        assert!(started.elapsed().as_secs() < 1);
    }

    /// The least budget the error search's count fits in.
    fn pairs(schema: &Value, instance: &Value) -> u64 {
        let graph = SearchGraph::new(schema, Draft::Draft202012);
        (1..=1_000_000)
            .find(|&budget| !graph.pairs_exceed(instance, budget))
            .unwrap()
    }

    #[test]
    fn each_pair_counts_once_however_many_ways_lead_to_it() {
        let schema = json!({"$defs": {"a": {"items": {}}}, "allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]});
        // The root, both branches, `a` once (though reached twice), and `items` at each of two items.
        assert_eq!(pairs(&schema, &json!([1, 2])), 6);
        assert_eq!(steps(&schema, &json!([1, 2])), 9);
        // Equal values in different places are different pairs; a member's name is a value of its own.
        assert_eq!(pairs(&json!({"items": {}}), &json!([1, 1, 1])), 4);
        let schema = json!({"propertyNames": {"maxLength": 1}, "additionalProperties": {}});
        assert_eq!(pairs(&schema, &json!({"ab": "ab", "c": "ab"})), 5);
        // A recursive union: in proportion to the depth.
        let schema = json!({"$defs": {"Node": {"anyOf": [node("folder"), node("group")]}}, "$ref": "#/$defs/Node"});
        let counts: Vec<u64> = (0..6).map(|depth| pairs(&schema, &tree(depth))).collect();
        let growth: Vec<u64> = counts.windows(2).map(|pair| pair[1] - pair[0]).collect();
        assert!(growth.windows(2).all(|pair| pair[0] == pair[1]), "{counts:?}");
        let graph = SearchGraph::new(&schema, Draft::Draft202012);
        assert!(!graph.pairs_exceed(&tree(60), 100_000));
        assert!(graph.pairs_exceed(&tree(60), counts[1]));
    }

    #[test]
    fn pointer_references_are_read_in_their_resource() {
        let schema = json!({
            "$defs": {
                "a": {"$id": "inner", "$defs": {"b": {"items": {}}}, "$ref": "#/$defs/b"},
                "b": {"items": {"items": {}}}
            },
            "$ref": "#/$defs/a"
        });
        // root → a → inner b → one item: the inner `b`, not the root's.
        assert_eq!(steps(&schema, &json!([[1]])), 4);
        let schema = json!({"$defs": {"a b": {"items": {}}}, "$ref": "#/$defs/a%20b"});
        assert_eq!(steps(&schema, &json!([1])), 3);
    }

    #[test]
    fn references_resolve_as_the_libraries_resolve_them() {
        let schema = json!({
            "$defs": {"x": {"$anchor": "x", "items": {}}, "y": {"$id": "y.json", "items": {"items": {}}}},
            "properties": {"p": {"$ref": "#x"}, "q": {"$ref": "y.json"}}
        });
        assert_eq!(steps(&schema, &json!({"p": [1]})), 4);
        assert_eq!(steps(&schema, &json!({"q": [[1]]})), 5);
    }

    #[test]
    fn a_dynamic_reference_reaches_every_anchor_of_its_name() {
        let schema = json!({
            "$defs": {
                "a": {"$dynamicAnchor": "n", "items": {}},
                "b": {"$id": "b", "$dynamicAnchor": "n", "items": {"items": {}}}
            },
            "properties": {"q": {"$dynamicRef": "#n"}}
        });
        // q reaches a (its static target), then a and b (each anchor named n).
        assert_eq!(steps(&schema, &json!({"q": [[1]]})), 1 + 1 + 3 + 2 + 2);
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "$recursiveAnchor": true,
            "properties": {"r": {"$recursiveRef": "#"}}
        });
        // r reaches the root twice (as `#` and as the one recursive anchor), and each of them r again.
        assert!(SearchGraph::new(&schema, Draft::Draft201909).exceeds(&json!({"r": {"r": {"r": {"r": 1}}}}), 30));
        assert!(!SearchGraph::new(&schema, Draft::Draft201909).exceeds(&json!({"r": 1}), 4));
    }

    #[test]
    fn the_walk_schedules_nothing_past_the_budget() {
        let graph = SearchGraph::new(&json!({"items": {}}), Draft::Draft202012);
        let long = Value::Array(vec![Value::Null; 1_000_000]);
        assert!(graph.exceeds(&long, 10));
        assert!(!graph.exceeds(&long, 1_000_001));
        assert!(graph.exceeds(&json!(1), 0));
        let unreadable = SearchGraph {
            edges: None,
            plans: None,
            draft: Draft::Draft202012,
        };
        assert!(unreadable.exceeds(&json!({}), u64::MAX));
    }

    #[test]
    fn a_reference_to_itself_is_counted_until_the_budget_ends() {
        let graph = SearchGraph::new(&json!({"$ref": "#"}), Draft::Draft202012);
        assert!(graph.exceeds(&json!(1), 1_000));
        let graph = SearchGraph::new(&json!({"allOf": [{"$ref": "#"}, {"$ref": "#"}]}), Draft::Draft202012);
        assert!(graph.exceeds(&json!(1), 1_000_000));
    }

    #[test]
    fn old_drafts_read_identifiers_and_references_their_way() {
        let schema = json!({
            "definitions": {"a": {"id": "a.json", "definitions": {"b": {}}, "allOf": [{"$ref": "#/definitions/b"}]}},
            "$ref": "#/definitions/a"
        });
        assert_eq!(steps_in(&schema, &json!(1), Draft::Draft4), 4);
        // Beside a `$ref`, nothing else counts, and an `$id` names no resource.
        let schema = json!({
            "definitions": {"b": {"items": {}}, "a": {"$id": "a.json", "definitions": {"b": {"items": {}}}, "$ref": "#/definitions/b"}},
            "$ref": "#/definitions/a",
            "items": {}
        });
        assert_eq!(steps_in(&schema, &json!([1]), Draft::Draft7), 4);
        assert_eq!(steps_in(&schema, &json!([1]), Draft::Draft202012), 5);
        // A `#name` id is an anchor there.
        let schema = json!({"definitions": {"a": {"$id": "#a", "allOf": [{"$ref": "#/definitions/b"}]}, "b": {}},
                            "allOf": [{"$ref": "#/definitions/a"}]});
        assert_eq!(steps_in(&schema, &json!(1), Draft::Draft7), 5);
    }
}
