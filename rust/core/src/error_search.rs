//! The problems of invalid arguments, found by one walk over (subschema, value) pairs that judges each pair once.
//!
//! The crate's own error search judges a subschema again down every way that leads to it, and lists the errors of
//! every branch of a failed `anyOf`/`oneOf`: under a recursive union the branches multiply at each level of the
//! arguments. This walk follows the tool's plans ([`crate::plan`]) instead, keeping one outcome per (subschema,
//! value) pair, so its time and memory are in proportion to the pairs ([`SearchGraph::pairs_exceed`] counts them
//! before it starts). Each outcome holds the pair's own findings (the crate's errors for the keywords that apply no
//! subschema, mapped as [`crate::validator`] maps them; the walk's own for the rest), the outcomes whose findings it
//! reports, and a summary from which a union chooses among its branches without listing their findings.
//!
//! Below a failed union (no branch holds) the branches are ranked by their own findings, each found the same way; a
//! branch ranks before another when, in this order,
//!
//! 1. it accepts the value's type (no `TYPE_MISMATCH` at the value itself),
//! 2. its `const`/`enum` accept the value and its members (no `ENUM_OUT_OF_RANGE` at the value or one level below),
//! 3. it misses no member it requires (no `MISSING_REQUIRED_ARGUMENT` one level below),
//! 4. its shallowest finding lies deeper.
//!
//! When one branch ranks first alone and passes 1 and 2 (the value has its type and its tags), the value singles it
//! out: its findings are reported in the union's place, at their own pointers, where a model can act on them.
//! Otherwise the union is one violation at the value: `TYPE_MISMATCH` when every branch failed on its type alone (the
//! types they accept, in order), else `CONSTRAINT_VIOLATION`. A `oneOf` that several branches match is one
//! `CONSTRAINT_VIOLATION`.
//!
//! A pair met again while it is being judged (a schema that refers to itself without reaching into the value) holds,
//! as in the crate.

use std::cmp::Reverse;

use jsonschema::ValidationOptions;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value};

use crate::plan::{Compiled, Contains, Keywords, Plan};
use crate::validator::{child, keyword_data, push_violations, quoted, type_mismatch, violation};
use crate::violation::{Violation, ViolationCode, ViolationData};

/// The walk met a plan whose validators do not compile (never seen: each is a part of a schema the crate compiled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unwalked;

/// Every finding of `instance` under `plans` (node 0 the root), unsorted; empty when the walk finds it valid.
/// `options` compiles a plan's validators, with the draft of the schema.
pub(crate) fn find(
    plans: &[Plan],
    options: &dyn Fn() -> ValidationOptions<'static>,
    instance: &Value,
) -> Result<Vec<Violation>, Unwalked> {
    let mut walk = Walk {
        plans,
        options,
        outcomes: Vec::new(),
        at: FxHashMap::default(),
    };
    let root = walk.judge(0, instance, At::of(instance), "")?;
    Ok(walk.into_findings(root))
}

/// The outcome of every pair that holds without being kept: a `true`, or a subschema that applies no other and whose
/// assertions pass: most pairs of a flat schema, which are then neither kept nor given a pointer.
const HOLDS: usize = usize::MAX;

/// What tells a value from every other of the arguments: its address, or a member's name by its key's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum At {
    Value(usize),
    Name(usize),
}

impl At {
    fn of(value: &Value) -> Self {
        Self::Value(std::ptr::from_ref(value).addr())
    }

    fn name(name: &String) -> Self {
        Self::Name(std::ptr::from_ref(name).addr())
    }
}

/// The codes a union tells its branches by, found at some level below a value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Codes(u8);

impl Codes {
    const TYPE: Self = Self(1);
    const ENUM: Self = Self(2);
    const MISSING: Self = Self(4);
    const OTHER: Self = Self(8);

    fn of(code: ViolationCode) -> Self {
        match code {
            ViolationCode::TYPE_MISMATCH => Self::TYPE,
            ViolationCode::ENUM_OUT_OF_RANGE => Self::ENUM,
            ViolationCode::MISSING_REQUIRED_ARGUMENT => Self::MISSING,
            _ => Self::OTHER,
        }
    }

    fn has(self, codes: Self) -> bool {
        self.0 & codes.0 != 0
    }

    fn with(self, codes: Self) -> Self {
        Self(self.0 | codes.0)
    }
}

/// What the findings of a pair look like, enough for a union to rank its branches without listing them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Summary {
    /// Levels below the value of the shallowest finding; None when there is none (the pair holds).
    shallowest: Option<usize>,
    /// The codes of the findings at the value.
    here: Codes,
    /// The codes of the findings one level below (a member, an item, a missing member's pointer).
    below: Codes,
    /// A finding two or more levels below.
    deeper: bool,
}

impl Summary {
    const HOLDS: Self = Self {
        shallowest: None,
        here: Codes(0),
        below: Codes(0),
        deeper: false,
    };

    fn holds(&self) -> bool {
        self.shallowest.is_none()
    }

    /// Adds a finding `depth` levels below the value.
    fn add(&mut self, code: ViolationCode, depth: usize) {
        self.shallowest = Some(self.shallowest.map_or(depth, |shallowest| shallowest.min(depth)));
        match depth {
            0 => self.here = self.here.with(Codes::of(code)),
            1 => self.below = self.below.with(Codes::of(code)),
            _ => self.deeper = true,
        }
    }

    /// Adds the findings of a pair `levels` (0 or 1) below the value.
    fn add_below(&mut self, other: &Self, levels: usize) {
        let Some(shallowest) = other.shallowest else {
            return;
        };
        let depth = shallowest + levels;
        self.shallowest = Some(self.shallowest.map_or(depth, |mine| mine.min(depth)));
        if levels == 0 {
            self.here = self.here.with(other.here);
            self.below = self.below.with(other.below);
            self.deeper |= other.deeper;
        } else {
            self.below = self.below.with(other.here);
            self.deeper |= other.below != Codes::default() || other.deeper;
        }
    }

    /// Every finding is a `TYPE_MISMATCH` at the value.
    fn only_type_here(&self) -> bool {
        self.here == Codes::TYPE && self.below == Codes::default() && !self.deeper
    }

    fn tags_refused(&self) -> bool {
        self.here.with(self.below).has(Codes::ENUM)
    }

    /// The value has the shape and the tags of the branch: its findings are worth reporting in the union's place.
    fn fits(&self) -> bool {
        !self.here.has(Codes::TYPE) && !self.tags_refused()
    }

    /// Smaller is closer.
    fn rank(&self) -> (bool, bool, bool, Reverse<Option<usize>>) {
        (
            self.here.has(Codes::TYPE),
            self.tags_refused(),
            self.below.has(Codes::MISSING),
            Reverse(self.shallowest),
        )
    }
}

/// One (subschema, value) pair's judgment.
#[derive(Debug)]
struct Outcome {
    /// None while the pair is being judged.
    summary: Option<Summary>,
    /// The pair's own findings.
    local: Vec<Violation>,
    /// The pairs whose findings this one reports.
    reported: Vec<usize>,
}

/// A pair's judgment while it is made.
struct Judging<'p> {
    pointer: &'p str,
    summary: Summary,
    local: Vec<Violation>,
    reported: Vec<usize>,
}

impl Judging<'_> {
    fn found(&mut self, violation: Violation) {
        let below = violation
            .path
            .as_deref()
            .and_then(|path| path.get(self.pointer.len()..));
        let depth = below.map_or(0, |below| below.matches('/').count());
        self.summary.add(violation.code, depth);
        self.local.push(violation);
    }
}

struct Walk<'a> {
    plans: &'a [Plan],
    options: &'a dyn Fn() -> ValidationOptions<'static>,
    outcomes: Vec<Outcome>,
    at: FxHashMap<(usize, At), usize>,
}

impl<'a> Walk<'a> {
    /// The outcome of subschema `node` at `value` (found at `at`, `pointer`), judged the first time it is asked for.
    fn judge(&mut self, node: usize, value: &Value, at: At, pointer: &str) -> Result<usize, Unwalked> {
        if self.holds_alone(node, value)? {
            return Ok(HOLDS);
        }
        self.judge_kept(node, value, at, pointer)
    }

    /// [`Walk::judge`] for a pair that does not hold alone ([`Walk::holds_alone`]): its outcome is kept.
    fn judge_kept(&mut self, node: usize, value: &Value, at: At, pointer: &str) -> Result<usize, Unwalked> {
        if let Some(&known) = self.at.get(&(node, at)) {
            return Ok(known);
        }
        let id = self.outcomes.len();
        self.at.insert((node, at), id);
        self.outcomes.push(Outcome {
            summary: None,
            local: Vec::new(),
            reported: Vec::new(),
        });
        let mut judging = Judging {
            pointer,
            summary: Summary::HOLDS,
            local: Vec::new(),
            reported: Vec::new(),
        };
        match self.plan(node).ok_or(Unwalked)? {
            Plan::Boolean { accepts: true, .. } => {}
            Plan::Boolean {
                accepts: false,
                location,
            } => judging.found(false_schema(pointer, location.as_deref())),
            Plan::Keywords(keywords) => self.apply(keywords, value, at, &mut judging)?,
        }
        let outcome = self.outcomes.get_mut(id).ok_or(Unwalked)?;
        outcome.summary = Some(judging.summary);
        outcome.local = judging.local;
        outcome.reported = judging.reported;
        Ok(id)
    }

    /// Whether `node` holds at `value` without a pair kept: `true`, or a subschema whose assertions alone judge the
    /// value and pass it.
    fn holds_alone(&self, node: usize, value: &Value) -> Result<bool, Unwalked> {
        Ok(match self.plan(node).ok_or(Unwalked)? {
            Plan::Boolean { accepts, .. } => *accepts,
            Plan::Keywords(keywords) if keywords.applies_none() => {
                let compiled = keywords.compiled(self.options).ok_or(Unwalked)?;
                compiled
                    .assertions
                    .as_ref()
                    .is_none_or(|assertions| assertions.is_valid(value))
            }
            Plan::Keywords(_) => false,
        })
    }

    fn summary(&self, id: usize) -> Summary {
        self.outcomes
            .get(id)
            .and_then(|outcome| outcome.summary)
            .unwrap_or(Summary::HOLDS)
    }

    fn holds(&self, id: usize) -> bool {
        self.summary(id).holds()
    }

    fn plan(&self, node: usize) -> Option<&'a Plan> {
        self.plans.get(node)
    }

    /// Whether `node` is `false`.
    fn is_false(&self, node: usize) -> bool {
        matches!(self.plan(node), Some(Plan::Boolean { accepts: false, .. }))
    }

    /// Where `node` stands in the tool's schema, when it is a `false` that does.
    fn location(&self, node: usize) -> Option<&'a str> {
        match self.plan(node) {
            Some(Plan::Boolean { location, .. }) => location.as_deref(),
            _ => None,
        }
    }

    /// Reports `id`'s findings as part of the pair being judged, `levels` below it.
    fn include(&self, judging: &mut Judging<'_>, id: usize, levels: usize) {
        let summary = self.summary(id);
        if !summary.holds() {
            judging.summary.add_below(&summary, levels);
            judging.reported.push(id);
        }
    }

    fn in_place(&mut self, node: usize, value: &Value, at: At, judging: &mut Judging<'_>) -> Result<(), Unwalked> {
        let id = self.judge(node, value, at, judging.pointer)?;
        self.include(judging, id, 0);
        Ok(())
    }

    /// Reports the outcome of `node` at `value`, the member or item `segment` of the value being judged.
    fn below(&mut self, node: usize, value: &Value, segment: &str, judging: &mut Judging<'_>) -> Result<(), Unwalked> {
        // Most members and items hold: their pointer is only written for those that do not.
        if !self.holds_alone(node, value)? {
            let id = self.judge_kept(node, value, At::of(value), &child(judging.pointer, segment))?;
            self.include(judging, id, 1);
        }
        Ok(())
    }

    fn apply(
        &mut self,
        keywords: &'a Keywords,
        value: &Value,
        at: At,
        judging: &mut Judging<'_>,
    ) -> Result<(), Unwalked> {
        let options = self.options;
        let compiled = keywords.compiled(options).ok_or(Unwalked)?;
        if let (Some(validator), Some(schema)) = (&compiled.assertions, &keywords.assertions)
            && !validator.is_valid(value)
        {
            let mut found = Vec::new();
            for error in validator.iter_errors(value) {
                push_violations(schema, &error, judging.pointer, &mut found);
            }
            for violation in found {
                judging.found(violation);
            }
        }
        for &node in keywords.references.iter().chain(&keywords.all_of) {
            self.in_place(node, value, at, judging)?;
        }
        self.union(&keywords.any_of, "anyOf", value, at, judging)?;
        self.union(&keywords.one_of, "oneOf", value, at, judging)?;
        if let Some((node, shown)) = &keywords.not {
            let id = self.judge(*node, value, at, judging.pointer)?;
            if self.holds(id) {
                let message = format!("not: must not match {shown}");
                judging.found(constraint(judging.pointer, message, "not"));
            }
        }
        if let Some(condition) = &keywords.condition {
            let test = self.judge(condition.test, value, at, judging.pointer)?;
            let branch = if self.holds(test) {
                condition.then
            } else {
                condition.otherwise
            };
            if let Some(node) = branch {
                self.in_place(node, value, at, judging)?;
            }
        }
        match value {
            Value::Object(members) => {
                for (name, node) in &keywords.dependent {
                    if members.contains_key(name) {
                        self.in_place(*node, value, at, judging)?;
                    }
                }
                self.members(keywords, compiled, members, judging)
            }
            Value::Array(items) => self.items(keywords, items, judging),
            _ => Ok(()),
        }
    }

    /// `properties`, `patternProperties`, `additionalProperties` and `propertyNames`.
    fn members(
        &mut self,
        keywords: &Keywords,
        compiled: &Compiled,
        members: &Map<String, Value>,
        judging: &mut Judging<'_>,
    ) -> Result<(), Unwalked> {
        for (name, node) in &keywords.properties {
            if let Some(member) = members.get(name) {
                self.below(*node, member, name, judging)?;
            }
        }
        if keywords.patterns.is_empty() && keywords.additional.is_none() {
            return self.names(keywords, members, judging);
        }
        for (name, member) in members {
            let mut named = keywords
                .properties
                .binary_search_by(|(property, _)| property.as_str().cmp(name))
                .is_ok();
            if !keywords.patterns.is_empty() {
                let text = Value::String(name.clone());
                for ((_, node), pattern) in keywords.patterns.iter().zip(&compiled.patterns) {
                    if pattern.is_valid(&text) {
                        named = true;
                        self.below(*node, member, name, judging)?;
                    }
                }
            }
            match keywords.additional {
                Some(node) if !named => {
                    if self.is_false(node) {
                        let message = format!("unexpected argument {} (additionalProperties is false)", quoted(name));
                        let pointer = child(judging.pointer, name);
                        judging.found(violation(ViolationCode::UNEXPECTED_ARGUMENT, pointer, message, None));
                    } else {
                        self.below(node, member, name, judging)?;
                    }
                }
                _ => {}
            }
        }
        self.names(keywords, members, judging)
    }

    /// `propertyNames`: each member's name, a value of its own.
    fn names(
        &mut self,
        keywords: &Keywords,
        members: &Map<String, Value>,
        judging: &mut Judging<'_>,
    ) -> Result<(), Unwalked> {
        let Some(names) = keywords.names else {
            return Ok(());
        };
        if self.is_false(names) {
            // The crate fails the object itself: no name at all is allowed.
            if !members.is_empty() {
                judging.found(false_schema(judging.pointer, self.location(names)));
            }
            return Ok(());
        }
        for name in members.keys() {
            let pointer = child(judging.pointer, name);
            let text = Value::String(name.clone());
            let id = self.judge(names, &text, At::name(name), &pointer)?;
            for problem in self.report_of(id) {
                let message = format!(
                    "propertyNames: the name {} is not allowed: {}",
                    quoted(name),
                    problem.message
                );
                judging.found(constraint(&pointer, message, "propertyNames"));
            }
        }
        Ok(())
    }

    /// `prefixItems` (or `items` as a list), the items past them, and `contains`.
    fn items(&mut self, keywords: &Keywords, items: &[Value], judging: &mut Judging<'_>) -> Result<(), Unwalked> {
        for (index, (item, node)) in items.iter().zip(&keywords.prefix).enumerate() {
            self.below(*node, item, &index.to_string(), judging)?;
        }
        if let Some(rest) = &keywords.rest {
            let start = keywords.prefix.len();
            if rest.additional_items && self.is_false(rest.node) {
                if items.len() > start {
                    let message = format!("additionalItems: must have at most {start} items");
                    judging.found(constraint(judging.pointer, message, "additionalItems"));
                }
            } else {
                for (index, item) in items.iter().enumerate().skip(start) {
                    self.below(rest.node, item, &index.to_string(), judging)?;
                }
            }
        }
        if let Some(contains) = &keywords.contains {
            let mut matches: u64 = 0;
            for (index, item) in items.iter().enumerate() {
                let id = self.judge(
                    contains.node,
                    item,
                    At::of(item),
                    &child(judging.pointer, &index.to_string()),
                )?;
                matches += u64::from(self.holds(id));
            }
            if let Some(problem) = contains_problem(contains, matches, judging.pointer) {
                judging.found(problem);
            }
        }
        Ok(())
    }

    /// A union: nothing when it holds, else its closest branch's findings or one violation (see the module's doc).
    fn union(
        &mut self,
        branches: &[usize],
        keyword: &'static str,
        value: &Value,
        at: At,
        judging: &mut Judging<'_>,
    ) -> Result<(), Unwalked> {
        if branches.is_empty() {
            return Ok(());
        }
        let mut outcomes = Vec::with_capacity(branches.len());
        for &branch in branches {
            outcomes.push(self.judge(branch, value, at, judging.pointer)?);
        }
        let matched = outcomes.iter().filter(|&&id| self.holds(id)).count();
        if matched == 1 || (matched > 1 && keyword == "anyOf") {
            return Ok(());
        }
        if matched > 1 {
            let message = format!(
                "oneOf: matches {matched} of the {} alternatives; exactly one is allowed",
                branches.len()
            );
            judging.found(constraint(judging.pointer, message, "oneOf"));
            return Ok(());
        }
        // The closest branch is reported only when the value singles it out: it fits, and no other ranks as close.
        let ranks: Vec<_> = outcomes.iter().map(|&id| self.summary(id).rank()).collect();
        let best = ranks.iter().min().ok_or(Unwalked)?;
        let mut closest = ranks
            .iter()
            .zip(&outcomes)
            .filter(|(rank, _)| *rank == best)
            .map(|(_, &id)| id);
        if let (Some(id), None) = (closest.next(), closest.next())
            && self.summary(id).fits()
        {
            self.include(judging, id, 0);
            return Ok(());
        }
        let type_alone = outcomes.iter().all(|&id| self.summary(id).only_type_here());
        if type_alone {
            let mut expected: Vec<String> = Vec::new();
            for &id in &outcomes {
                for problem in self.report_of(id) {
                    let Some(ViolationData::Json(data)) = &problem.data else {
                        continue;
                    };
                    let names = data.get("expected").and_then(Value::as_array);
                    for name in names.into_iter().flatten().filter_map(Value::as_str) {
                        if !expected.iter().any(|known| known == name) {
                            expected.push(name.to_owned());
                        }
                    }
                }
            }
            judging.found(type_mismatch(judging.pointer, &expected, value));
        } else {
            let message = format!("{keyword}: matches none of the {} alternatives", branches.len());
            judging.found(constraint(judging.pointer, message, keyword));
        }
        Ok(())
    }

    /// The findings `id` reports, its own and those of the pairs it reports, each pair's once; sorted as the
    /// validator sorts them.
    fn report_of(&self, id: usize) -> Vec<Violation> {
        let mut found = self.findings(id);
        crate::validator::sort_and_dedup(&mut found);
        found
    }

    /// The findings the pair `root` reports, unsorted. Its own visited set: a union asks this of each branch it
    /// lists the types of, so a table over every outcome would make a long array of such unions quadratic.
    fn findings(&self, root: usize) -> Vec<Violation> {
        let mut seen = FxHashSet::default();
        let mut pending = vec![root];
        let mut found = Vec::new();
        while let Some(id) = pending.pop() {
            let Some(outcome) = self.outcomes.get(id) else {
                continue;
            };
            if seen.insert(id) {
                found.extend(outcome.local.iter().cloned());
                pending.extend(&outcome.reported);
            }
        }
        found
    }

    /// [`Walk::findings`] of the root, moved out of the walk.
    fn into_findings(self, root: usize) -> Vec<Violation> {
        let reported = self.reported(root);
        let outcomes = self
            .outcomes
            .into_iter()
            .zip(reported)
            .filter(|(_, reported)| *reported);
        outcomes.flat_map(|(outcome, _)| outcome.local).collect()
    }

    /// Which outcomes the pair `root` reports: its own, and those of the pairs it reports, each once.
    fn reported(&self, root: usize) -> Vec<bool> {
        let mut reported = vec![false; self.outcomes.len()];
        let mut pending = vec![root];
        while let Some(id) = pending.pop() {
            let (Some(slot), Some(outcome)) = (reported.get_mut(id), self.outcomes.get(id)) else {
                continue;
            };
            if !std::mem::replace(slot, true) {
                pending.extend(&outcome.reported);
            }
        }
        reported
    }
}

/// The crate's verdict on `contains` and its bounds, `matches` items matching: a violation naming the keyword the
/// crate names (the bound broken; `maxContains` when it is the only bound, as it still asks for one match).
fn contains_problem(contains: &Contains, matches: u64, pointer: &str) -> Option<Violation> {
    let (keyword, bound) = match (&contains.min, &contains.max) {
        (_, Some(max)) if matches > max.count => ("maxContains", max),
        (Some(min), _) if matches < min.count => ("minContains", min),
        (None, Some(max)) if matches == 0 => ("maxContains", max),
        (None, None) if matches == 0 => {
            return Some(constraint(pointer, "contains: no item matches".to_owned(), "contains"));
        }
        _ => return None,
    };
    let limit = &bound.written;
    let message = if keyword == "minContains" {
        format!("minContains: at least {limit} items must match `contains`")
    } else {
        format!("maxContains: at most {limit} items may match `contains`")
    };
    let data = serde_json::json!({ "keyword": keyword, "limit": limit });
    Some(violation(
        ViolationCode::CONSTRAINT_VIOLATION,
        pointer.to_owned(),
        message,
        Some(data),
    ))
}

fn constraint(pointer: &str, message: String, keyword: &str) -> Violation {
    violation(
        ViolationCode::CONSTRAINT_VIOLATION,
        pointer.to_owned(),
        message,
        Some(keyword_data(keyword)),
    )
}

fn false_schema(pointer: &str, location: Option<&str>) -> Violation {
    let message = match location {
        Some("") => "false schema: no value is allowed here (schema at the root)".to_owned(),
        Some(location) => format!("false schema: no value is allowed here (schema at {location})"),
        None => "false schema: no value is allowed here".to_owned(),
    };
    constraint(pointer, message, "false")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::search_cost::SearchGraph;
    use crate::test_corpora::{corpus, schema_suite_cases};
    use crate::validator::{options, sort_and_dedup};

    /// The walk's findings (sorted) and the crate's verdict, for `instance` under `schema`.
    fn walked(schema: &Value, instance: &Value) -> Option<(Vec<Violation>, bool)> {
        let validator = options().build(schema).ok()?;
        let graph = SearchGraph::new(schema, validator.draft());
        let draft = graph.draft();
        let mut found = find(graph.plans()?, &|| options().with_draft(draft), instance).ok()?;
        sort_and_dedup(&mut found);
        Some((found, validator.is_valid(instance)))
    }

    /// The crate's own search, mapped as the validator maps it.
    fn legacy(schema: &Value, instance: &Value) -> Vec<Violation> {
        let Ok(validator) = options().build(schema) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for error in validator.iter_errors(instance) {
            push_violations(schema, &error, "", &mut found);
        }
        sort_and_dedup(&mut found);
        found
    }

    fn keys(violations: &[Violation]) -> Vec<(&'static str, Option<&str>, Option<&ViolationData>)> {
        violations
            .iter()
            .map(|v| (v.code.as_str(), v.path.as_deref(), v.data.as_ref()))
            .collect()
    }

    #[test]
    fn a_summary_ranks_shape_then_tags_then_required_members_then_depth() {
        let mut wrong_type = Summary::HOLDS;
        wrong_type.add(ViolationCode::TYPE_MISMATCH, 0);
        let mut wrong_tag = Summary::HOLDS;
        wrong_tag.add(ViolationCode::ENUM_OUT_OF_RANGE, 1);
        let mut missing = Summary::HOLDS;
        missing.add(ViolationCode::MISSING_REQUIRED_ARGUMENT, 1);
        let mut deep = Summary::HOLDS;
        deep.add(ViolationCode::CONSTRAINT_VIOLATION, 3);
        let mut shallow = Summary::HOLDS;
        shallow.add(ViolationCode::CONSTRAINT_VIOLATION, 1);
        let ranked = [wrong_type, wrong_tag, missing, shallow, deep];
        for pair in ranked.windows(2) {
            assert!(pair[1].rank() < pair[0].rank(), "{pair:?}");
        }
        assert!(!wrong_type.fits() && !wrong_tag.fits());
        assert!(missing.fits() && deep.fits());
        assert!(wrong_type.only_type_here() && !wrong_tag.only_type_here());
    }

    #[test]
    fn a_summary_moves_findings_one_level_down_below_a_member() {
        let mut member = Summary::HOLDS;
        member.add(ViolationCode::ENUM_OUT_OF_RANGE, 0);
        member.add(ViolationCode::MISSING_REQUIRED_ARGUMENT, 1);
        let mut object = Summary::HOLDS;
        object.add_below(&member, 1);
        // The member's refused tag is one level below the object; its missing member two.
        assert_eq!(object.shallowest, Some(1));
        assert!(object.below.has(Codes::ENUM) && !object.below.has(Codes::MISSING) && object.deeper);
        let mut same = Summary::HOLDS;
        same.add_below(&member, 0);
        assert_eq!(same, member);
        let mut holds = Summary::HOLDS;
        holds.add_below(&Summary::HOLDS, 1);
        assert!(holds.holds());
    }

    #[test]
    fn a_schema_referring_to_itself_in_place_holds_as_in_the_crate() {
        for schema in [
            json!({"$ref": "#"}),
            json!({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}),
        ] {
            let (found, valid) = walked(&schema, &json!(1)).unwrap();
            assert!(found.is_empty() && valid, "{schema}");
        }
        let schema =
            json!({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}}, "$ref": "#/$defs/a"});
        let (found, valid) = walked(&schema, &json!(1)).unwrap();
        assert_eq!(keys(&found), [("TYPE_MISMATCH", Some(""), found[0].data.as_ref())]);
        assert!(!valid);
    }

    #[test]
    fn schemas_the_walk_does_not_model_have_no_plans() {
        for schema in [
            json!({"unevaluatedProperties": false}),
            json!({"properties": {"a": {"$dynamicRef": "#x"}}, "$defs": {"x": {"$dynamicAnchor": "x"}}}),
            json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveRef": "#"}),
            json!({"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}}),
            json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}),
        ] {
            let validator = options().build(&schema).unwrap();
            assert!(
                SearchGraph::new(&schema, validator.draft()).plans().is_none(),
                "{schema}"
            );
        }
        // A definition the root never reaches does not matter.
        let schema = json!({"$defs": {"x": {"unevaluatedProperties": false}}, "type": "object"});
        assert!(
            SearchGraph::new(&schema, referencing::Draft::Draft202012)
                .plans()
                .is_some()
        );
    }

    /// The JSON Schema Test Suite (`../shared/corpora`, skipped when absent): on every schema the walk models, its
    /// verdict is the crate's; without a union, its findings are the crate's own search's.
    #[test]
    fn the_walk_agrees_with_the_crate_on_the_json_schema_test_suite() {
        let Some(dir) = corpus("json-schema-test-suite") else {
            return;
        };
        let mut checked = 0;
        let mut wrong = Vec::new();
        for (folder, dialect) in [
            ("draft2020-12", "https://json-schema.org/draft/2020-12/schema"),
            ("draft7", "http://json-schema.org/draft-07/schema#"),
        ] {
            for (path, case) in schema_suite_cases(&dir, folder) {
                let mut schema = case["schema"].clone();
                if let Value::Object(keywords) = &mut schema {
                    keywords.entry("$schema").or_insert_with(|| json!(dialect));
                }
                let union = schema.to_string().contains("\"anyOf\"") || schema.to_string().contains("\"oneOf\"");
                for test in case["tests"].as_array().unwrap() {
                    let Some((found, valid)) = walked(&schema, &test["data"]) else {
                        continue;
                    };
                    checked += 1;
                    if found.is_empty() != valid {
                        wrong.push(format!(
                            "verdict: {path:?} {} / {}",
                            case["description"], test["description"]
                        ));
                    }
                    if !union && !valid && keys(&found) != keys(&legacy(&schema, &test["data"])) {
                        wrong.push(format!(
                            "findings: {path:?} {} / {}",
                            case["description"], test["description"]
                        ));
                    }
                }
            }
        }
        assert!(checked > 1500, "{checked}");
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
}
