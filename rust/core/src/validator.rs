//! Tool-argument validation: one JSON Schema per tool, compiled once, applied to a complete call's bytes.
//!
//! Schemas are compiled with the `jsonschema` crate: the draft named by `$schema`, 2020-12 when absent; nothing is
//! fetched (a `$ref` to anything outside the schema is a [`SchemaError`]). `format`, `contentEncoding` and
//! `contentMediaType` are annotations in every draft, as in Python's `jsonschema` without a format checker, so the
//! core and the reference agree and a draft-07 schema means the same as a 2020-12 one. Nothing is ever coerced:
//! `"3"` is not `3`, while `1.0` is an integer, as JSON Schema says.
//!
//! Numbers are exact: `serde_json`'s `arbitrary_precision` keeps each number as written, and the crate compares them
//! as exact decimals, so an integer of any size is checked as the Python `int` the caller will receive. (A decimal
//! fraction is exact here too, where Python's `float` rounds it to 17 digits.)
//!
//! Each problem becomes one [`Violation`], with the JSON pointer of the field concerned:
//!
//! | keyword                                                  | code                        | path                 |
//! | -------------------------------------------------------- | --------------------------- | -------------------- |
//! | `required`                                               | `MISSING_REQUIRED_ARGUMENT` | the missing member   |
//! | `additionalProperties`/`unevaluatedProperties` `false`   | `UNEXPECTED_ARGUMENT`       | each such member     |
//! | `type`                                                   | `TYPE_MISMATCH`             | the value            |
//! | `anyOf`/`oneOf`, every branch failing on `type` alone    | `TYPE_MISMATCH`             | the value            |
//! | `enum`, `const`                                          | `ENUM_OUT_OF_RANGE`         | the value            |
//! | `propertyNames`                                          | `CONSTRAINT_VIOLATION`      | the member so named  |
//! | `dependentRequired` (draft 7: `dependencies`, a list)    | `CONSTRAINT_VIOLATION`      | the missing member   |
//! | `unevaluatedProperties` with a schema                    | `CONSTRAINT_VIOLATION`      | each failing member  |
//! | anything else (bounds, lengths, `pattern`, items, `not`, …) | `CONSTRAINT_VIOLATION`    | the value            |
//!
//! Below a failed `anyOf`/`oneOf`, the findings of the branch the value singles out are reported in the union's
//! place; when no branch is singled out, the union is one violation at the value, never one per branch (the rule:
//! [`crate::error_search`]). Violations are sorted by path (as a string), then code, then message, with exact
//! duplicates removed.
//!
//! Whether the arguments are valid is decided first, without looking for errors: from the text alone by
//! `quick_check` when the schema is in its subset (no value is built; it says "valid" or leaves the call to
//! what follows), else by the crate on the parsed value. The errors are then
//! found by [`crate::error_search`], which judges each (subschema, value) pair once (or, for a schema it does not
//! model, by the crate's own search), and only when a count made beforehand ([`crate::search_cost`]) shows the search
//! fits in the budget ([`ToolValidators::with_max_steps`]); otherwise the call is invalid with one
//! `VALIDATION_BUDGET_EXCEEDED`.

use std::fmt::{self, Write as _};
use std::sync::{Arc, OnceLock};

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{
    JsonType, JsonTypeSet, PatternOptions, ReferencingError, ValidationError, ValidationOptions, Validator,
};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Deserialize as _;
use serde_json::Value;

use crate::accumulator::Limits;
use crate::dialects::Tools;
use crate::error_search;
use crate::quick_check::QuickCheck;
use crate::search_cost::SearchGraph;
use crate::violation::{Violation, ViolationCode, ViolationData};

/// Longest rendering of a schema value (an enum's options, a `not` schema) kept in a message, in bytes.
const SHOWN_VALUE_BYTES: usize = 300;
/// Declared names listed in an `UNKNOWN_TOOL` message; the rest are counted.
const LISTED_NAMES: usize = 20;
/// Calls a thread of [`ToolValidators::validate_batch`] is given at least: fewer are not worth a thread's start.
const MIN_CALLS_PER_THREAD: usize = 256;
/// Characters of an unknown name compared with the declared ones.
const MAX_COMPARED_CHARS: usize = 256;
/// Steps an error search may take by default ([`ToolValidators::with_max_steps`]), as `Limits.max_validation_steps`.
pub const DEFAULT_MAX_STEPS: u64 = 100_000;

/// A tool's schema that cannot be compiled: not JSON, not a valid schema of its draft, a `$ref` that cannot be
/// resolved offline, or a name declared twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The tool whose schema failed.
    pub tool: String,
    /// JSON pointer of the failing part inside that schema (`""` for the whole schema).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() { "at the root" } else { "at " };
        write!(
            f,
            "the schema of tool {} is invalid {at}{}: {}",
            quoted(&self.tool),
            self.pointer,
            self.message
        )
    }
}

impl std::error::Error for SchemaError {}

struct Tool {
    name: String,
    // Kept to read a keyword's value when a message needs it (the limit of `minContains`, say).
    schema: Value,
    validator: Validator,
    // The walk that says "valid" without building a value, when the schema is in its subset.
    quick: Option<QuickCheck>,
    // Built the first time arguments are invalid: valid calls never need it.
    search: OnceLock<SearchGraph>,
}

/// The declared tools, each with its schema compiled once. Immutable once built, so `Send + Sync`: one instance
/// can serve every stream and thread.
pub struct ToolValidators {
    tools: Vec<Tool>,
    // Each tool's schema by name, made the first time a stream reads calls written into text (their raw values are
    // typed by it), then shared by every such stream.
    parameters: OnceLock<Arc<Tools>>,
    by_name: FxHashMap<String, usize>,
    // Built-in tools the provider runs itself (web search, code execution...): their calls are declared, and have
    // no schema of ours to check.
    server_names: FxHashSet<String>,
    max_depth: u32,
    max_steps: u64,
}

impl fmt::Debug for ToolValidators {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolValidators")
            .field("names", &self.names().collect::<Vec<_>>())
            .field("max_depth", &self.max_depth)
            .field("max_steps", &self.max_steps)
            .finish_non_exhaustive()
    }
}

/// The options every schema is compiled with.
pub(crate) fn options() -> ValidationOptions<'static> {
    jsonschema::options()
        .offline()
        // Linear-time matching (the `regex` crate's automata), whatever the pattern and the string: a backtracking
        // engine took 26 s on 40 000 characters (issue 15). Patterns only a backtracking engine runs (lookaround,
        // backreferences) do not compile, so a registry declaring one is refused where it is built.
        .with_pattern_options(PatternOptions::regex())
        .should_validate_formats(false)
        .without_content_encoding_support("base64")
        .without_content_media_type_support("application/json")
}

impl ToolValidators {
    /// `tools`: (name, JSON Schema text) pairs; compiles each once. A boolean schema is allowed (`true` accepts any
    /// arguments). Nesting is bounded at [`Limits::default`]'s `max_depth`; see [`ToolValidators::with_max_depth`].
    pub fn compile<'a>(tools: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Result<Self, SchemaError> {
        let options = options();
        let mut compiled = Self {
            tools: Vec::new(),
            parameters: OnceLock::new(),
            by_name: FxHashMap::default(),
            server_names: FxHashSet::default(),
            max_depth: Limits::default().max_depth,
            max_steps: DEFAULT_MAX_STEPS,
        };
        for (name, text) in tools {
            let failure = |pointer: String, message: String| SchemaError {
                tool: name.to_owned(),
                pointer,
                message,
            };
            if compiled.by_name.contains_key(name) {
                return Err(failure(String::new(), "the tool is declared more than once".to_owned()));
            }
            let schema: Value =
                serde_json::from_slice(text).map_err(|error| failure(String::new(), format!("not JSON: {error}")))?;
            let validator = options
                .build(&schema)
                .map_err(|error| failure(build_error_pointer(&schema, &error), build_error_message(&error)))?;
            compiled.by_name.insert(name.to_owned(), compiled.tools.len());
            compiled.tools.push(Tool {
                name: name.to_owned(),
                quick: QuickCheck::of(&schema),
                schema,
                validator,
                search: OnceLock::new(),
            });
        }
        Ok(compiled)
    }

    /// The same validators, accepting arguments nested up to `max_depth` (the top-level value counting as 1, as
    /// [`Limits::max_depth`] counts): pass the streams' limit so that what the scanner accepts is validated.
    /// Deeper arguments are `TOO_DEEP`. Validation recurses once per level, using about 1 KiB of stack per level.
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// The same validators, looking for the problems of invalid arguments only when the search takes at most
    /// `max_steps` steps, counted as [`crate::search_cost`] counts them; past it the arguments are reported invalid
    /// with one `VALIDATION_BUDGET_EXCEEDED`. Time and memory of a search are then in proportion to `max_steps`.
    #[must_use]
    pub fn with_max_steps(mut self, max_steps: u64) -> Self {
        self.max_steps = max_steps;
        self
    }

    /// The same validators, also declaring the server tools `names`: calls to them are neither unknown nor checked.
    #[must_use]
    pub fn with_server_tools<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Self {
        self.server_names.extend(names.into_iter().map(str::to_owned));
        self
    }

    /// Each function tool's parameters schema, by name: what types the raw values a text dialect writes.
    pub fn parameters(&self) -> Arc<Tools> {
        Arc::clone(self.parameters.get_or_init(|| {
            Arc::new(
                self.tools
                    .iter()
                    .map(|tool| (tool.name.clone(), tool.schema.clone()))
                    .collect(),
            )
        }))
    }

    /// The declared names, in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|tool| tool.name.as_str())
    }

    /// Every problem of `arguments` (a complete JSON text the scanner accepted) for tool `name`, as Violations
    /// (with code, message, path = JSON pointer, severity from the code's table); empty when the arguments are
    /// valid. An undeclared `name` gives one `UNKNOWN_TOOL`, a server tool's name nothing; text that is not JSON one
    /// `INVALID_JSON`; nesting past the depth limit one `TOO_DEEP`.
    pub fn validate(&self, name: &str, arguments: &[u8]) -> Vec<Violation> {
        let Some(tool) = self.by_name.get(name).and_then(|&at| self.tools.get(at)) else {
            return self.unknown_tool(name).into_iter().collect();
        };
        if self.certainly_valid(tool, arguments, false) {
            return Vec::new();
        }
        match self.parse_within_limits(arguments) {
            Ok(instance) => self.judge(tool, arguments, &instance),
            Err(violation) => vec![*violation],
        }
    }

    /// A tool call's arguments as a stream judges them once whole, in the stream's order: what is wrong with the
    /// text first (`EMPTY_ARGUMENTS`, then checked as `{}`; `INVALID_JSON`; `TOO_DEEP`; `ARGUMENTS_NOT_OBJECT`),
    /// then `UNKNOWN_TOOL`, then the schema's findings. A server tool's call is not checked at all.
    pub fn validate_arguments(&self, name: &str, arguments: &[u8]) -> Vec<Violation> {
        let tool = self.by_name.get(name).and_then(|&at| self.tools.get(at));
        if tool.is_none() && self.server_names.contains(name) {
            return Vec::new();
        }
        let mut found = Vec::new();
        // JSON's whitespace only: no value, as a stream sees a call whose arguments never started.
        let parsed = if arguments
            .iter()
            .all(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
        {
            found.push(Violation::new(
                ViolationCode::EMPTY_ARGUMENTS,
                "the call came without arguments".to_owned(),
            ));
            Some(Value::Object(serde_json::Map::new()))
        } else if tool.is_some_and(|tool| self.certainly_valid(tool, arguments, true)) {
            return found;
        } else {
            match self.parse_within_limits(arguments) {
                Err(violation) => {
                    found.push(*violation);
                    None
                }
                Ok(instance) => {
                    if !instance.is_object() {
                        found.push(Violation::new(
                            ViolationCode::ARGUMENTS_NOT_OBJECT,
                            format!("the arguments are a JSON {}, not an object", json_type(&instance)),
                        ));
                    }
                    Some(instance)
                }
            }
        };
        match (tool, parsed) {
            (Some(tool), Some(instance)) if instance.is_object() => {
                found.extend(self.judge(tool, arguments, &instance));
            }
            (tool, parsed) => {
                if tool.is_none() {
                    found.push(self.unknown_tool_violation(name));
                }
                // Found where a stream finds it: when the value becomes Python objects, after everything else.
                if parsed.is_some_and(|value| too_long_to_convert(arguments, &value)) {
                    found.push(number_too_long());
                }
            }
        }
        found
    }

    /// [`ToolValidators::validate_arguments`] for each `(name, arguments)` pair, in order, spread over the machine's
    /// cores when the batch is large enough to pay for the threads.
    pub fn validate_batch<N, T>(&self, calls: &[(N, T)]) -> Vec<Vec<Violation>>
    where
        N: AsRef<str> + Sync,
        T: AsRef<[u8]> + Sync,
    {
        let judge = |part: &[(N, T)]| -> Vec<Vec<Violation>> {
            part.iter()
                .map(|(name, arguments)| self.validate_arguments(name.as_ref(), arguments.as_ref()))
                .collect()
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(calls.len() / MIN_CALLS_PER_THREAD);
        if threads <= 1 {
            return judge(calls);
        }
        let part = calls.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = calls
                .chunks(part)
                .map(|chunk| scope.spawn(move || judge(chunk)))
                .collect();
            workers
                .into_iter()
                // A worker only panics on a bug; its panic is carried on rather than a result lost.
                .flat_map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        })
    }

    fn certainly_valid(&self, tool: &Tool, arguments: &[u8], object_only: bool) -> bool {
        tool.quick
            .as_ref()
            .is_some_and(|quick| quick.accepts(arguments, object_only, self.max_depth))
    }

    fn parse_within_limits(&self, arguments: &[u8]) -> Result<Value, Box<Violation>> {
        if too_deep(arguments, self.max_depth) {
            return Err(Box::new(too_deep_violation(self.max_depth)));
        }
        parse(arguments).map_err(|error| Box::new(invalid_json(&error)))
    }

    /// The findings of a parsed value: it is first one Python can hold (as a stream's emission requires), then it
    /// matches the schema.
    fn judge(&self, tool: &Tool, text: &[u8], instance: &Value) -> Vec<Violation> {
        if too_long_to_convert(text, instance) {
            return vec![number_too_long()];
        }
        self.check(tool, text, instance)
    }

    fn check(&self, tool: &Tool, text: &[u8], instance: &Value) -> Vec<Violation> {
        // `is_valid` builds no error values: the common, valid case stays on the fast path.
        if tool.validator.is_valid(instance) {
            return Vec::new();
        }
        let graph = tool
            .search
            .get_or_init(|| SearchGraph::new(&tool.schema, tool.validator.draft()));
        let mut violations = Vec::new();
        if let Some(plans) = graph.plans() {
            // Each value and each member's name owns a byte of the text (a scalar's first, a bracket, a quote): the
            // pairs number at most the text's length times the nodes, so a short text needs no count. (One more for
            // the `{}` an empty text stands for.)
            let values = text.len().saturating_add(1);
            let most = u64::try_from(values.saturating_mul(plans.len())).unwrap_or(u64::MAX);
            if most > self.max_steps && graph.pairs_exceed(instance, self.max_steps) {
                return vec![budget_exceeded(self.max_steps)];
            }
            let draft = graph.draft();
            violations = error_search::find(plans, &|| options().with_draft(draft), instance).unwrap_or_default();
        }
        if violations.is_empty() {
            // The crate's own search, for a schema the walk does not model (and, never seen, were the walk to find
            // nothing wrong with arguments the crate refuses: they must not pass without a finding).
            if graph.exceeds(instance, self.max_steps) {
                return vec![budget_exceeded(self.max_steps)];
            }
            for error in tool.validator.iter_errors(instance) {
                push_violations(&tool.schema, &error, "", &mut violations);
            }
        }
        sort_and_dedup(&mut violations);
        violations
    }

    /// `UNKNOWN_TOOL` when `name` is neither a declared function tool nor a server tool, listing the declared
    /// names and the closest one (also in its data: `{"available": [...], "closest": ...}`).
    pub fn unknown_tool(&self, name: &str) -> Option<Violation> {
        if self.by_name.contains_key(name) || self.server_names.contains(name) {
            return None;
        }
        Some(self.unknown_tool_violation(name))
    }

    #[cold]
    fn unknown_tool_violation(&self, name: &str) -> Violation {
        let mut message = format!("unknown tool {}", shorten(quoted(name)));
        let available: Vec<Value> = self
            .names()
            .map(|declared| Value::String(declared.to_owned()))
            .collect();
        if self.tools.is_empty() {
            message.push_str("; no tools are declared");
            let mut violation = Violation::new(ViolationCode::UNKNOWN_TOOL, message);
            violation.data = Some(ViolationData::Json(
                serde_json::json!({"available": available, "closest": null}),
            ));
            return violation;
        }
        message.push_str("; declared: ");
        let listed: Vec<String> = self.names().take(LISTED_NAMES).map(quoted).collect();
        message.push_str(&listed.join(", "));
        if self.tools.len() > LISTED_NAMES {
            let _ = write!(message, " and {} more", self.tools.len() - LISTED_NAMES);
        }
        // The first of the nearest names, so that equal distances resolve in declaration order. A name longer than
        // any sensible tool name is compared by its start, keeping the cost linear in the declared names.
        let probe = name
            .char_indices()
            .nth(MAX_COMPARED_CHARS)
            .map_or(name, |(end, _)| name.get(..end).unwrap_or(name));
        let mut closest: Option<(usize, &str)> = None;
        for declared in self.names() {
            let distance = levenshtein(probe, declared);
            if closest.is_none_or(|(best, _)| distance < best) {
                closest = Some((distance, declared));
            }
        }
        let closest = closest.map(|(_, declared)| declared);
        if let Some(declared) = closest {
            let _ = write!(message, "; closest: {}", quoted(declared));
        }
        let mut violation = Violation::new(ViolationCode::UNKNOWN_TOOL, message);
        violation.data = Some(ViolationData::Json(
            serde_json::json!({"available": available, "closest": closest}),
        ));
        violation
    }
}

/// Sorts violations by path (as a string), code and message, and removes exact duplicates (`allOf` branches or
/// `$ref`s reaching one subschema twice report the same problem twice).
pub(crate) fn sort_and_dedup(violations: &mut Vec<Violation>) {
    violations.sort_by(|a, b| {
        (a.path.as_deref(), a.code.as_str(), a.message.as_str()).cmp(&(
            b.path.as_deref(),
            b.code.as_str(),
            b.message.as_str(),
        ))
    });
    violations.dedup();
}

/// Edit distance in characters (insertions, deletions, substitutions), in O(len(a) × len(b)) time and
/// O(len(b)) memory.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = i;
        let mut left = i + 1;
        for (cell, &cb) in row.iter_mut().skip(1).zip(&b) {
            let up = *cell;
            let next = (diagonal + usize::from(ca != cb)).min(up + 1).min(left + 1);
            diagonal = up;
            *cell = next;
            left = next;
        }
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
    }
    row.last().copied().unwrap_or(0)
}

/// Whether arrays and objects nest deeper than `max_depth`, counted as the scanner counts (brackets inside strings
/// do not count). Parsing, validation and dropping the value recurse per level, so this bounds their stack before
/// any of them starts, whatever the caller checked before.
fn too_deep(text: &[u8], max_depth: u32) -> bool {
    // Arguments rarely open more brackets in all than the limit: a count the compiler vectorizes settles it
    // (measured: 0.2 µs of a 1.1 µs call on 130-byte arguments for the exact pass, a tenth of that for the count).
    let opens = text.iter().filter(|&&byte| byte == b'[' || byte == b'{').count();
    if opens <= usize::try_from(max_depth).unwrap_or(usize::MAX) {
        return false;
    }
    let mut depth: u32 = 0;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// One complete JSON value; duplicate keys keep the last value, as everywhere in toolwire.
fn parse(text: &[u8]) -> Result<Value, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    // Depth is bounded by `too_deep`, at the caller's limit rather than serde_json's fixed 127.
    deserializer.disable_recursion_limit();
    let value = Value::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

#[cold]
fn invalid_json(error: &serde_json::Error) -> Violation {
    Violation::new(
        ViolationCode::INVALID_JSON,
        format!("the arguments are not valid JSON: {error}"),
    )
}

/// The most digits `CPython` converts to an `int` (`sys.get_int_max_str_digits()`), a guard against quadratic
/// conversion time that jiter, which builds the core's Python values, applies to the integer part of every number.
const MAX_INTEGER_DIGITS: usize = 4300;

/// Whether `value`, parsed from `text`, holds a number Python values are not built from: one whose integer part
/// has more than [`MAX_INTEGER_DIGITS`] digits, whatever fraction or exponent follows.
fn too_long_to_convert(text: &[u8], value: &Value) -> bool {
    // The common case, a text shorter than such a number, costs one comparison.
    if text.len() <= MAX_INTEGER_DIGITS {
        return false;
    }
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Number(number) => {
                let digits = number.as_str().trim_start_matches('-');
                if digits.find(['.', 'e', 'E']).unwrap_or(digits.len()) > MAX_INTEGER_DIGITS {
                    return true;
                }
            }
            Value::Array(items) => pending.extend(items),
            Value::Object(members) => pending.extend(members.values()),
            _ => {}
        }
    }
    false
}

/// `INVALID_JSON` for a value Python cannot hold, with the message a stream gives it.
#[cold]
pub fn number_too_long() -> Violation {
    Violation::new(
        ViolationCode::INVALID_JSON,
        format!("the arguments hold a number too long to convert (over {MAX_INTEGER_DIGITS} digits)"),
    )
}

#[cold]
fn budget_exceeded(max_steps: u64) -> Violation {
    let message = format!(
        "the arguments do not match the schema; finding where would take more than {max_steps} steps \
         (Limits.max_validation_steps)"
    );
    violation(
        ViolationCode::VALIDATION_BUDGET_EXCEEDED,
        String::new(),
        message,
        Some(serde_json::json!({ "limit": max_steps })),
    )
}

#[cold]
fn too_deep_violation(max_depth: u32) -> Violation {
    Violation::new(
        ViolationCode::TOO_DEEP,
        format!("the arguments nest arrays and objects deeper than {max_depth} levels"),
    )
}

/// The pointer of the part of `schema` a compile error is about. Meta-schema failures name it themselves; a
/// reference that cannot be resolved is found by looking for the `$ref` that names it.
fn build_error_pointer(schema: &Value, error: &ValidationError<'_>) -> String {
    let ValidationErrorKind::Referencing(reference) = error.kind() else {
        return error.instance_path().as_str().to_owned();
    };
    let matches: Box<dyn Fn(&str) -> bool + '_> = match reference {
        ReferencingError::UnknownSpecification { .. } | ReferencingError::CircularMetaschema { .. } => {
            return if schema.get("$schema").is_some() {
                "/$schema".to_owned()
            } else {
                String::new()
            };
        }
        ReferencingError::Unretrievable { uri, .. } => Box::new(move |target: &str| {
            let resource = target.split('#').next().unwrap_or_default();
            !resource.is_empty() && uri.trim_end_matches('#').ends_with(resource)
        }),
        ReferencingError::PointerToNowhere { pointer }
        | ReferencingError::InvalidPercentEncoding { pointer, .. }
        | ReferencingError::InvalidArrayIndex { pointer, .. } => {
            Box::new(move |target: &str| target.split_once('#').is_some_and(|(_, fragment)| fragment == pointer))
        }
        ReferencingError::NoSuchAnchor { anchor } | ReferencingError::InvalidAnchor { anchor } => {
            Box::new(move |target: &str| target.split_once('#').is_some_and(|(_, fragment)| fragment == anchor))
        }
        ReferencingError::InvalidUri(_) => Box::new(|_: &str| true),
    };
    find_reference(schema, &mut String::new(), &*matches).unwrap_or_default()
}

/// What is wrong, for a compile error: the crate's words, save for a pattern the linear engine cannot run.
fn build_error_message(error: &ValidationError<'_>) -> String {
    match (error.kind(), error.instance().as_str()) {
        (ValidationErrorKind::Format { format }, Some(pattern)) if format == "regex" => shorten(format!(
            "{} is not a regular expression that runs in linear time (lookaround and backreferences are not \
             supported, and the compiled pattern must stay within the engine's size limit)",
            quoted(pattern)
        )),
        _ => shorten(error.to_string()),
    }
}

/// The pointer of the first `$ref`-like keyword in `schema` whose target satisfies `matches`.
fn find_reference(schema: &Value, pointer: &mut String, matches: &dyn Fn(&str) -> bool) -> Option<String> {
    match schema {
        Value::Object(members) => {
            for (key, value) in members {
                let length = pointer.len();
                push_segment(pointer, key);
                let is_reference = matches!(key.as_str(), "$ref" | "$dynamicRef" | "$recursiveRef");
                let found = match value {
                    Value::String(target) if is_reference && matches(target) => Some(pointer.clone()),
                    _ => find_reference(value, pointer, matches),
                };
                pointer.truncate(length);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        Value::Array(items) => items.iter().enumerate().find_map(|(at, item)| {
            let length = pointer.len();
            let _ = write!(pointer, "/{at}");
            let found = find_reference(item, pointer, matches);
            pointer.truncate(length);
            found
        }),
        _ => None,
    }
}

/// Appends `/segment`, escaped as RFC 6901 says.
pub(crate) fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    for character in segment.chars() {
        match character {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            _ => pointer.push(character),
        }
    }
}

pub(crate) fn child(pointer: &str, member: &str) -> String {
    let mut path = pointer.to_owned();
    push_segment(&mut path, member);
    path
}

/// The keyword that failed: the last segment of the error's schema path (`minContains` for a `Contains` error the
/// crate raises on behalf of `minContains`, say).
fn failed_keyword<'e>(error: &'e ValidationError<'_>) -> &'e str {
    let path = error.schema_path().as_str();
    path.rsplit('/').next().filter(|last| !last.is_empty()).unwrap_or("")
}

/// The value of the failed keyword, read from the root: inside a subschema with its own `$id` the crate's path is
/// relative to that subschema, and this may find nothing or another keyword, so it only refines messages and the
/// rare `unevaluatedProperties` with a schema.
fn keyword_value<'s>(schema: &'s Value, error: &ValidationError<'_>) -> Option<&'s Value> {
    schema.pointer(error.schema_path().as_str())
}

pub(crate) fn violation(code: ViolationCode, path: String, message: String, data: Option<Value>) -> Violation {
    let mut violation = Violation::new(code, message);
    violation.path = Some(path);
    violation.data = data.map(ViolationData::Json);
    violation
}

pub(crate) fn keyword_data(keyword: &str) -> Value {
    serde_json::json!({ "keyword": keyword })
}

/// The violations `error` stands for, `error` raised by a schema compiled from `schema` for the value at `base`.
pub(crate) fn push_violations(schema: &Value, error: &ValidationError<'_>, base: &str, out: &mut Vec<Violation>) {
    use ViolationCode::{CONSTRAINT_VIOLATION, ENUM_OUT_OF_RANGE, MISSING_REQUIRED_ARGUMENT, UNEXPECTED_ARGUMENT};
    let at = &format!("{base}{}", error.instance_path().as_str());
    let keyword = failed_keyword(error);
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let member = property.as_str().map_or_else(|| property.to_string(), str::to_owned);
            let path = child(at, &member);
            if matches!(keyword, "dependentRequired" | "dependencies") {
                let message = format!(
                    "{keyword}: {} is required when another member is present",
                    quoted(&member)
                );
                out.push(violation(
                    CONSTRAINT_VIOLATION,
                    path,
                    message,
                    Some(keyword_data(keyword)),
                ));
            } else {
                let message = format!("missing required argument {}", quoted(&member));
                out.push(violation(MISSING_REQUIRED_ARGUMENT, path, message, None));
            }
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            for member in unexpected {
                let message = format!("unexpected argument {} (additionalProperties is false)", quoted(member));
                out.push(violation(UNEXPECTED_ARGUMENT, child(at, member), message, None));
            }
        }
        ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            push_unevaluated(schema, error, at, unexpected, out);
        }
        ValidationErrorKind::Type { kind } => {
            let mut expected = Vec::new();
            add_types(&mut expected, kind, keyword_value(schema, error));
            out.push(type_mismatch(at, &expected, error.instance()));
        }
        ValidationErrorKind::Enum { options } => {
            let message = format!("must be one of {}", shown_options(options));
            let allowed = match &**options {
                Value::Array(_) => (**options).clone(),
                other => Value::Array(vec![other.clone()]),
            };
            let data = Some(serde_json::json!({ "allowed": allowed }));
            out.push(violation(ENUM_OUT_OF_RANGE, at.to_owned(), message, data));
        }
        ValidationErrorKind::Constant { expected_value } => {
            let message = format!("must be {} (const)", shown(expected_value));
            let data = Some(serde_json::json!({ "allowed": [&**expected_value] }));
            out.push(violation(ENUM_OUT_OF_RANGE, at.to_owned(), message, data));
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            let combinator = if matches!(error.kind(), ValidationErrorKind::AnyOf { .. }) {
                "anyOf"
            } else {
                "oneOf"
            };
            if let Some(expected) = branch_types(schema, context, at) {
                out.push(type_mismatch(at, &expected, error.instance()));
            } else {
                let message = format!("{combinator}: matches none of the {} alternatives", context.len());
                out.push(violation(
                    CONSTRAINT_VIOLATION,
                    at.to_owned(),
                    message,
                    Some(keyword_data(combinator)),
                ));
            }
        }
        ValidationErrorKind::OneOfMultipleValid { context } => {
            let matched = context.iter().filter(|branch| branch.is_empty()).count();
            let message = format!(
                "oneOf: matches {matched} of the {} alternatives; exactly one is allowed",
                context.len()
            );
            out.push(violation(
                CONSTRAINT_VIOLATION,
                at.to_owned(),
                message,
                Some(keyword_data("oneOf")),
            ));
        }
        ValidationErrorKind::PropertyNames { error: inner } => {
            let name = inner.instance();
            let name = name.as_str().map_or_else(|| name.to_string(), str::to_owned);
            let message = format!(
                "propertyNames: the name {} is not allowed: {}",
                quoted(&name),
                constraint_message(schema, inner)
            );
            let data = Some(keyword_data("propertyNames"));
            out.push(violation(CONSTRAINT_VIOLATION, child(at, &name), message, data));
        }
        _ => out.push(violation(
            CONSTRAINT_VIOLATION,
            at.to_owned(),
            constraint_message(schema, error),
            Some(constraint_data(schema, error)),
        )),
    }
}

/// Members an `unevaluatedProperties` keyword refused: unexpected when it is `false`; when it is a schema they
/// were allowed, with a shape, so failing it is a constraint violation.
fn push_unevaluated(
    schema: &Value,
    error: &ValidationError<'_>,
    at: &str,
    unexpected: &[String],
    out: &mut Vec<Violation>,
) {
    use ViolationCode::{CONSTRAINT_VIOLATION, UNEXPECTED_ARGUMENT};
    let forbidden = keyword_value(schema, error).is_none_or(|value| *value == Value::Bool(false));
    for member in unexpected {
        let (code, message, data) = if forbidden {
            let message = format!(
                "unexpected argument {} (unevaluatedProperties is false)",
                quoted(member)
            );
            (UNEXPECTED_ARGUMENT, message, None)
        } else {
            let message = format!("unevaluatedProperties: {} does not match its schema", quoted(member));
            (
                CONSTRAINT_VIOLATION,
                message,
                Some(keyword_data("unevaluatedProperties")),
            )
        };
        out.push(violation(code, child(at, member), message, data));
    }
}

pub(crate) fn type_mismatch(at: &str, expected: &[String], instance: &Value) -> Violation {
    let data = serde_json::json!({ "expected": expected });
    violation(
        ViolationCode::TYPE_MISMATCH,
        at.to_owned(),
        type_message(expected, instance),
        Some(data),
    )
}

/// `{"keyword": ..., "limit": ...}` of a `CONSTRAINT_VIOLATION`: the limit for bounds, lengths, counts and
/// `pattern`, which a model can act on; the keyword alone otherwise.
fn constraint_data(schema: &Value, error: &ValidationError<'_>) -> Value {
    let (keyword, limit): (&str, Option<Value>) = match error.kind() {
        ValidationErrorKind::Minimum { limit } => ("minimum", Some(limit.clone())),
        ValidationErrorKind::Maximum { limit } => ("maximum", Some(limit.clone())),
        ValidationErrorKind::ExclusiveMinimum { limit } => ("exclusiveMinimum", Some(limit.clone())),
        ValidationErrorKind::ExclusiveMaximum { limit } => ("exclusiveMaximum", Some(limit.clone())),
        ValidationErrorKind::MultipleOf { multiple_of } => ("multipleOf", Some(multiple_of.clone())),
        ValidationErrorKind::MinLength { limit } => ("minLength", Some(Value::from(*limit))),
        ValidationErrorKind::MaxLength { limit } => ("maxLength", Some(Value::from(*limit))),
        ValidationErrorKind::MinItems { limit } => ("minItems", Some(Value::from(*limit))),
        ValidationErrorKind::MaxItems { limit } => ("maxItems", Some(Value::from(*limit))),
        ValidationErrorKind::MinProperties { limit } => ("minProperties", Some(Value::from(*limit))),
        ValidationErrorKind::MaxProperties { limit } => ("maxProperties", Some(Value::from(*limit))),
        ValidationErrorKind::Pattern { pattern } => ("pattern", Some(Value::String(pattern.clone()))),
        ValidationErrorKind::Contains => match failed_keyword(error) {
            keyword @ ("minContains" | "maxContains") => (keyword, keyword_value(schema, error).cloned()),
            _ => ("contains", None),
        },
        ValidationErrorKind::FalseSchema => ("false", None),
        _ => (failed_keyword(error), None),
    };
    match limit {
        Some(limit) => serde_json::json!({ "keyword": keyword, "limit": limit }),
        None => serde_json::json!({ "keyword": keyword }),
    }
}

/// The types every branch of a failed `anyOf`/`oneOf` asked for, when each branch failed only on `type`, at the
/// combinator's own value (`["string", "null"]` for an optional string given a number): a type mismatch, not a
/// structural one.
fn branch_types(schema: &Value, context: &[Vec<ValidationError<'static>>], at: &str) -> Option<Vec<String>> {
    let mut expected = Vec::new();
    for branch in context {
        if branch.is_empty() {
            return None;
        }
        for error in branch {
            if error.instance_path().as_str() != at {
                return None;
            }
            let ValidationErrorKind::Type { kind } = error.kind() else {
                return None;
            };
            add_types(&mut expected, kind, keyword_value(schema, error));
        }
    }
    (!expected.is_empty()).then_some(expected)
}

/// Adds the type names a `type` error asked for, once each: in the schema's order when its `type` keyword can be
/// read, else in the crate's (which loses the order of a list).
fn add_types(expected: &mut Vec<String>, kind: &TypeKind, keyword: Option<&Value>) {
    let mut add = |name: String| {
        if !expected.contains(&name) {
            expected.push(name);
        }
    };
    match (kind, keyword) {
        // The schema path is read from the root, so across an `$id` it may land on another `type`: its list is
        // used only when it names the crate's types.
        (TypeKind::Multiple(set), Some(Value::Array(names))) if names_the_types(names, *set) => {
            names
                .iter()
                .filter_map(Value::as_str)
                .for_each(|name| add(name.to_owned()));
        }
        (TypeKind::Single(single), _) => add(single.to_string()),
        (TypeKind::Multiple(set), _) => set.iter().for_each(|kind: JsonType| add(kind.to_string())),
    }
}

fn names_the_types(names: &[Value], set: JsonTypeSet) -> bool {
    names.len() == set.iter().count()
        && names
            .iter()
            .all(|name| set.iter().any(|kind| name.as_str() == Some(kind.to_string().as_str())))
}

fn type_message(names: &[String], instance: &Value) -> String {
    let expected = match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "nothing".to_owned(),
    };
    format!("expected {expected}, got {}", json_type(instance))
}

/// The JSON type of a value as JSON Schema names it; a number written without fraction or exponent is an integer.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) => {
            if number.as_str().bytes().any(|byte| matches!(byte, b'.' | b'e' | b'E')) {
                "number"
            } else {
                "integer"
            }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The message of a `CONSTRAINT_VIOLATION`: the keyword and its limit, never the (possibly huge) value itself.
fn constraint_message(schema: &Value, error: &ValidationError<'_>) -> String {
    let keyword = failed_keyword(error);
    match error.kind() {
        ValidationErrorKind::Minimum { limit } => format!("minimum: must be at least {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("maximum: must be at most {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("exclusiveMinimum: must be greater than {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("exclusiveMaximum: must be less than {limit}"),
        ValidationErrorKind::MultipleOf { multiple_of } => format!("multipleOf: must be a multiple of {multiple_of}"),
        ValidationErrorKind::MinLength { limit } => format!("minLength: must be at least {limit} characters long"),
        ValidationErrorKind::MaxLength { limit } => format!("maxLength: must be at most {limit} characters long"),
        ValidationErrorKind::MinItems { limit } => format!("minItems: must have at least {limit} items"),
        ValidationErrorKind::MaxItems { limit } => format!("maxItems: must have at most {limit} items"),
        ValidationErrorKind::MinProperties { limit } => format!("minProperties: must have at least {limit} members"),
        ValidationErrorKind::MaxProperties { limit } => format!("maxProperties: must have at most {limit} members"),
        ValidationErrorKind::AdditionalItems { limit } => {
            format!("additionalItems: must have at most {limit} items")
        }
        ValidationErrorKind::UniqueItems => "uniqueItems: items must be unique".to_owned(),
        ValidationErrorKind::Pattern { pattern } => format!("pattern: must match {}", quoted(pattern)),
        ValidationErrorKind::BacktrackLimitExceeded { error } => {
            format!("pattern: the regular expression could not decide: {error}")
        }
        ValidationErrorKind::RegexEngineFailure { message } => {
            format!("pattern: the regular expression could not decide: {message}")
        }
        ValidationErrorKind::Format { format } => format!("format: must be a valid {format}"),
        ValidationErrorKind::Contains => match (keyword, keyword_value(schema, error)) {
            ("minContains", Some(limit)) => format!("minContains: at least {limit} items must match `contains`"),
            ("maxContains", Some(limit)) => format!("maxContains: at most {limit} items may match `contains`"),
            ("minContains" | "maxContains", None) => {
                format!("{keyword}: the number of items matching `contains` is out of range")
            }
            _ => "contains: no item matches".to_owned(),
        },
        ValidationErrorKind::UnevaluatedItems { unexpected } => {
            format!("unevaluatedItems: unexpected items {}", unexpected.join(", "))
        }
        ValidationErrorKind::Not { schema } => format!("not: must not match {}", shown(schema)),
        ValidationErrorKind::FalseSchema => {
            let location = error.schema_path().as_str();
            let location = if location.is_empty() { "the root" } else { location };
            format!("false schema: no value is allowed here (schema at {location})")
        }
        ValidationErrorKind::ContentEncoding { content_encoding } => {
            format!("contentEncoding: must be encoded as {content_encoding}")
        }
        ValidationErrorKind::FromUtf8 { .. } => "contentEncoding: the decoded bytes are not UTF-8".to_owned(),
        ValidationErrorKind::ContentMediaType { content_media_type } => {
            format!("contentMediaType: must be {content_media_type}")
        }
        ValidationErrorKind::Custom { keyword, message } => format!("{keyword}: {message}"),
        ValidationErrorKind::Referencing(reference) => format!("$ref: {reference}"),
        // Mapped to other codes by `push_violations`; reached only when nested (inside `propertyNames`).
        ValidationErrorKind::Required { .. }
        | ValidationErrorKind::AdditionalProperties { .. }
        | ValidationErrorKind::UnevaluatedProperties { .. }
        | ValidationErrorKind::Type { .. }
        | ValidationErrorKind::Enum { .. }
        | ValidationErrorKind::Constant { .. }
        | ValidationErrorKind::AnyOf { .. }
        | ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::OneOfMultipleValid { .. }
        | ValidationErrorKind::PropertyNames { .. } => format!("{keyword}: {}", error.masked()),
    }
}

fn shown_options(options: &Value) -> String {
    match options {
        Value::Array(values) => {
            let listed: Vec<String> = values.iter().map(|value| shorten(value.to_string())).collect();
            shorten(listed.join(", "))
        }
        other => shown(other),
    }
}

/// A schema value as JSON, cut to [`SHOWN_VALUE_BYTES`].
fn shown(value: &Value) -> String {
    shorten(value.to_string())
}

pub(crate) fn shorten(mut text: String) -> String {
    if text.len() > SHOWN_VALUE_BYTES {
        let mut end = SHOWN_VALUE_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// `text` as a JSON string, so names with quotes or control characters stay readable and unambiguous.
pub(crate) fn quoted(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::violation::Severity;

    fn tools(pairs: &[(&'static str, &'static str)]) -> ToolValidators {
        ToolValidators::compile(pairs.iter().map(|(name, schema)| (*name, schema.as_bytes()))).unwrap()
    }

    fn one(schema: &'static str) -> ToolValidators {
        tools(&[("t", schema)])
    }

    /// (code, path) of every violation, in order.
    fn found(validators: &ToolValidators, arguments: &str) -> Vec<(&'static str, String)> {
        validators
            .validate("t", arguments.as_bytes())
            .into_iter()
            .map(|v| (v.code.as_str(), v.path.unwrap_or_else(|| "-".to_owned())))
            .collect()
    }

    fn codes(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        pairs.iter().map(|(code, path)| (*code, (*path).to_owned())).collect()
    }

    const ADDRESS: &str = r#"{
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
                "required": ["street", "zip"],
                "additionalProperties": false
            }
        },
        "required": ["name"],
        "additionalProperties": false
    }"#;

    #[test]
    fn valid_arguments_have_no_violation() {
        let v = one(ADDRESS);
        let ok = r#"{"name": "x", "age": 3, "unit": "celsius", "address": {"street": "s", "zip": "12345"}}"#;
        assert!(v.validate("t", ok.as_bytes()).is_empty());
    }

    #[test]
    fn missing_required_names_the_missing_member() {
        let v = one(ADDRESS);
        assert_eq!(
            found(&v, r#"{"address": {}}"#),
            codes(&[
                ("MISSING_REQUIRED_ARGUMENT", "/address/street"),
                ("MISSING_REQUIRED_ARGUMENT", "/address/zip"),
                ("MISSING_REQUIRED_ARGUMENT", "/name"),
            ])
        );
        let violations = v.validate("t", br#"{"address": {"street": "s"}}"#);
        let zip = violations
            .iter()
            .find(|x| x.path.as_deref() == Some("/address/zip"))
            .unwrap();
        assert!(zip.message.contains("\"zip\""), "{}", zip.message);
        assert_eq!(zip.severity, Severity::Error);
        assert!(zip.recoverable());
    }

    #[test]
    fn each_unexpected_member_is_one_violation_with_an_escaped_pointer() {
        let v = one(ADDRESS);
        assert_eq!(
            found(
                &v,
                r#"{"name": "x", "b": 1, "a/~": 2, "address": {"street": "s", "zip": "12345", "c": 0}}"#
            ),
            // Sorted by the pointer as written: `~` sorts after letters.
            codes(&[
                ("UNEXPECTED_ARGUMENT", "/address/c"),
                ("UNEXPECTED_ARGUMENT", "/a~1~0"),
                ("UNEXPECTED_ARGUMENT", "/b"),
            ])
        );
    }

    #[test]
    fn unevaluated_properties_false_is_unexpected_and_with_a_schema_a_constraint() {
        let v = one(r#"{"properties": {"a": {}}, "unevaluatedProperties": false}"#);
        assert_eq!(
            found(&v, r#"{"a": 1, "b": 2, "c": 3}"#),
            codes(&[("UNEXPECTED_ARGUMENT", "/b"), ("UNEXPECTED_ARGUMENT", "/c")])
        );
        let v = one(r#"{"unevaluatedProperties": {"type": "string"}}"#);
        assert_eq!(
            found(&v, r#"{"a": 1, "b": "x"}"#),
            codes(&[("CONSTRAINT_VIOLATION", "/a")])
        );
    }

    #[test]
    fn type_mismatch_is_exact_and_names_both_types() {
        let v = one(ADDRESS);
        let violations = v.validate("t", br#"{"name": "x", "age": "3"}"#);
        assert_eq!(violations.len(), 1);
        let age = &violations[0];
        assert_eq!(age.code, ViolationCode::TYPE_MISMATCH);
        assert_eq!(age.path.as_deref(), Some("/age"));
        assert_eq!(age.message, "expected integer, got string");
        assert!(found(&v, r#"{"name": "x", "age": 3}"#).is_empty());
        let v = one(r#"{"properties": {"n": {"type": ["string", "null"]}}}"#);
        assert_eq!(
            v.validate("t", br#"{"n": 1.5}"#)[0].message,
            "expected string or null, got number"
        );
        let v = one(r#"{"type": ["null", "string"]}"#);
        assert_eq!(v.validate("t", b"1")[0].message, "expected null or string, got integer");
    }

    #[test]
    fn an_integral_float_is_an_integer_in_draft_7_and_2020_12() {
        for schema in [
            r#"{"type": "integer"}"#,
            r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer"}"#,
        ] {
            let v = one(schema);
            assert!(found(&v, "1.0").is_empty(), "{schema}");
            assert!(found(&v, "1e2").is_empty(), "{schema}");
            assert_eq!(found(&v, "1.5"), codes(&[("TYPE_MISMATCH", "")]), "{schema}");
        }
    }

    #[test]
    fn big_integers_are_exact() {
        let big = "123456789012345678901234567890";
        assert_eq!(
            found(&one(r#"{"maximum": 10}"#), big),
            codes(&[("CONSTRAINT_VIOLATION", "")])
        );
        assert!(found(&one(r#"{"type": "integer"}"#), big).is_empty());
        // Past u64 and past f64's 53 bits: equal as f64, different as integers.
        let v = one(r#"{"const": 123456789012345678901234567890}"#);
        assert!(found(&v, big).is_empty());
        assert_eq!(
            found(&v, "123456789012345678901234567891"),
            codes(&[("ENUM_OUT_OF_RANGE", "")])
        );
        let v = one(r#"{"maximum": 9007199254740992}"#);
        assert_eq!(found(&v, "9007199254740993"), codes(&[("CONSTRAINT_VIOLATION", "")]));
        let v = one(r#"{"minimum": 18446744073709551616}"#);
        assert_eq!(
            found(&v, "18446744073709551615"),
            codes(&[("CONSTRAINT_VIOLATION", "")])
        );
        // Beyond f64's range is still a number.
        assert!(found(&one(r#"{"type": "number", "minimum": 1e300}"#), "1e400").is_empty());
    }

    #[test]
    fn enum_and_const_list_the_allowed_values() {
        let v = one(ADDRESS);
        let violations = v.validate("t", br#"{"name": "x", "unit": "kelvin"}"#);
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].code, ViolationCode::ENUM_OUT_OF_RANGE);
        assert_eq!(violations[0].path.as_deref(), Some("/unit"));
        assert_eq!(violations[0].message, r#"must be one of "celsius", "fahrenheit""#);
        let v = one(r#"{"properties": {"k": {"const": "on"}}}"#);
        let violations = v.validate("t", br#"{"k": "off"}"#);
        assert_eq!(violations[0].code, ViolationCode::ENUM_OUT_OF_RANGE);
        assert_eq!(violations[0].message, r#"must be "on" (const)"#);
    }

    #[test]
    fn constraints_name_the_keyword_and_the_limit() {
        let cases: &[(&str, &str, &str)] = &[
            (r#"{"minimum": 5}"#, "4", "minimum: must be at least 5"),
            (r#"{"maximum": 5}"#, "6", "maximum: must be at most 5"),
            (
                r#"{"exclusiveMinimum": 5}"#,
                "5",
                "exclusiveMinimum: must be greater than 5",
            ),
            (
                r#"{"exclusiveMaximum": 5}"#,
                "5",
                "exclusiveMaximum: must be less than 5",
            ),
            (r#"{"multipleOf": 0.5}"#, "0.7", "multipleOf: must be a multiple of 0.5"),
            (
                r#"{"minLength": 2}"#,
                r#""a""#,
                "minLength: must be at least 2 characters long",
            ),
            (
                r#"{"maxLength": 2}"#,
                r#""abc""#,
                "maxLength: must be at most 2 characters long",
            ),
            (r#"{"pattern": "^a"}"#, r#""b""#, r#"pattern: must match "^a""#),
            (r#"{"minItems": 2}"#, "[1]", "minItems: must have at least 2 items"),
            (r#"{"maxItems": 1}"#, "[1, 2]", "maxItems: must have at most 1 items"),
            (
                r#"{"uniqueItems": true}"#,
                "[1, 1.0]",
                "uniqueItems: items must be unique",
            ),
            (
                r#"{"minProperties": 1}"#,
                "{}",
                "minProperties: must have at least 1 members",
            ),
            (
                r#"{"maxProperties": 0}"#,
                r#"{"a": 1}"#,
                "maxProperties: must have at most 0 members",
            ),
            (
                r#"{"contains": {"type": "string"}}"#,
                "[1]",
                "contains: no item matches",
            ),
            (
                r#"{"contains": {"type": "string"}, "minContains": 2}"#,
                r#"["a"]"#,
                "minContains: at least 2 items must match `contains`",
            ),
            (
                r#"{"not": {"type": "string"}}"#,
                r#""a""#,
                r#"not: must not match {"type":"string"}"#,
            ),
            (
                r#"{"anyOf": [{"minimum": 5}, {"maximum": 1}]}"#,
                "3",
                "anyOf: matches none of the 2 alternatives",
            ),
            (
                r#"{"oneOf": [{"type": "number"}, {"type": "integer"}]}"#,
                "1",
                "oneOf: matches 2 of the 2 alternatives; exactly one is allowed",
            ),
            (r#"{"allOf": [{"minimum": 5}]}"#, "3", "minimum: must be at least 5"),
            (
                r#"{"if": {"minimum": 0}, "then": {"multipleOf": 2}}"#,
                "3",
                "multipleOf: must be a multiple of 2",
            ),
            (r#"{"prefixItems": [{}], "items": false}"#, "[1, 2]", "false schema"),
            (
                r"false",
                "1",
                "false schema: no value is allowed here (schema at the root)",
            ),
        ];
        for (schema, arguments, message) in cases {
            let violations = one(schema).validate("t", arguments.as_bytes());
            assert_eq!(violations.len(), 1, "{schema} {arguments}: {violations:?}");
            assert_eq!(violations[0].code, ViolationCode::CONSTRAINT_VIOLATION, "{schema}");
            assert!(
                violations[0].message.starts_with(message),
                "{schema}: {}",
                violations[0].message
            );
        }
        let v = one(r#"{"prefixItems": [{}], "items": false}"#);
        assert_eq!(found(&v, "[1, 2]"), codes(&[("CONSTRAINT_VIOLATION", "/1")]));
    }

    #[test]
    fn patterns_match_in_linear_time_with_ecma_classes() {
        let v = one(r#"{"properties": {"p": {"pattern": "(a+)+$"}, "q": {"pattern": "^\\d\\s\\w$"}}}"#);
        // Exponential on a backtracking engine; one pass here.
        let hostile = format!(r#"{{"p": "{}!"}}"#, "a".repeat(100_000));
        assert_eq!(found(&v, &hostile), codes(&[("CONSTRAINT_VIOLATION", "/p")]));
        assert!(found(&v, r#"{"p": "aaa", "q": "1\u00a0_"}"#).is_empty());
        assert_eq!(
            found(&v, r#"{"q": "\u0661 x"}"#),
            codes(&[("CONSTRAINT_VIOLATION", "/q")])
        );
    }

    #[test]
    fn property_names_and_dependent_required_point_at_the_member() {
        let v = one(r#"{"propertyNames": {"maxLength": 2}, "dependentRequired": {"a": ["b"]}}"#);
        assert_eq!(
            found(&v, r#"{"abc": 1, "a": 2}"#),
            codes(&[("CONSTRAINT_VIOLATION", "/abc"), ("CONSTRAINT_VIOLATION", "/b")])
        );
        let v = one(r#"{"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}"#);
        assert_eq!(found(&v, r#"{"a": 1}"#), codes(&[("CONSTRAINT_VIOLATION", "/b")]));
    }

    #[test]
    fn a_failed_union_reports_the_branch_the_value_singles_out() {
        // The object branch accepts the value's type and misses members; the array branch refuses the type.
        let v = one(r#"{"properties": {"p": {"anyOf": [
                {"type": "object", "required": ["a", "b", "c"]},
                {"type": "array", "minItems": 3}
            ]}}}"#);
        assert_eq!(
            found(&v, r#"{"p": {}}"#),
            codes(&[
                ("MISSING_REQUIRED_ARGUMENT", "/p/a"),
                ("MISSING_REQUIRED_ARGUMENT", "/p/b"),
                ("MISSING_REQUIRED_ARGUMENT", "/p/c")
            ])
        );
        // pydantic's `Optional[Model]`: the model's own problem, where it is.
        let v = one(
            r##"{"$defs": {"M": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
                 "properties": {"m": {"anyOf": [{"$ref": "#/$defs/M"}, {"type": "null"}]}}}"##,
        );
        assert_eq!(found(&v, r#"{"m": {"n": "3"}}"#), codes(&[("TYPE_MISMATCH", "/m/n")]));
        // A tagged union: the branch whose tag the value carries.
        let v = one(r#"{"properties": {"pet": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer"}},
                 "required": ["kind", "lives"]},
                {"type": "object", "properties": {"kind": {"const": "dog"}, "barks": {"type": "boolean"}},
                 "required": ["kind", "barks"]}
            ]}}}"#);
        assert_eq!(
            found(&v, r#"{"pet": {"kind": "dog", "barks": "yes"}}"#),
            codes(&[("TYPE_MISMATCH", "/pet/barks")])
        );
        let violations = v.validate("t", br#"{"pet": {"kind": "cow"}}"#);
        assert_eq!(
            (violations.len(), violations[0].path.as_deref(), data(&violations[0])),
            (1, Some("/pet"), serde_json::json!({"keyword": "oneOf"}))
        );
        assert_eq!(violations[0].message, "oneOf: matches none of the 2 alternatives");
        // The branch of the right type, with its limit.
        let v = one(r#"{"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 3}]}"#);
        let violations = v.validate("t", br#""ab""#);
        assert_eq!(
            data(&violations[0]),
            serde_json::json!({"keyword": "minLength", "limit": 3})
        );
        // Deeper findings: the branch the value followed further.
        let v = one(r#"{"anyOf": [
                {"properties": {"a": {"properties": {"b": {"type": "string"}}}}},
                {"properties": {"a": {"type": "string"}}}
            ]}"#);
        assert_eq!(found(&v, r#"{"a": {"b": 1}}"#), codes(&[("TYPE_MISMATCH", "/a/b")]));
    }

    #[test]
    fn a_failed_union_no_branch_is_singled_out_by_is_one_violation() {
        // Optional fields (pydantic's `anyOf: [T, null]`) failing on type alone are a type mismatch.
        let v = one(r#"{"properties": {"n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}"#);
        let violations = v.validate("t", br#"{"n": "3"}"#);
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].code, ViolationCode::TYPE_MISMATCH);
        assert_eq!(violations[0].message, "expected integer or null, got string");
        // Nested unions of types are one union of types.
        let v = one(r#"{"anyOf": [{"anyOf": [{"type": "integer"}, {"type": "null"}]}, {"type": "string"}]}"#);
        assert_eq!(
            data(&v.validate("t", b"[]")[0]),
            serde_json::json!({"expected": ["integer", "null", "string"]})
        );
        // Two branches as close as each other: neither is reported in the union's place.
        let v = one(r#"{"anyOf": [{"minimum": 5}, {"maximum": 1}]}"#);
        assert_eq!(found(&v, "3"), codes(&[("CONSTRAINT_VIOLATION", "")]));
        assert_eq!(data(&v.validate("t", b"3")[0]), serde_json::json!({"keyword": "anyOf"}));
        // Every branch refuses the tag (the tree's bad leaf): the union, at the value.
        let v = one(r#"{"anyOf": [{"properties": {"k": {"const": "a"}}}, {"properties": {"k": {"const": "b"}}}]}"#);
        assert_eq!(found(&v, r#"{"k": "c"}"#), codes(&[("CONSTRAINT_VIOLATION", "")]));
        // A `oneOf` matched twice.
        let v = one(r#"{"oneOf": [{"type": "number"}, {"type": "integer"}]}"#);
        assert_eq!(
            v.validate("t", b"1")[0].message,
            "oneOf: matches 2 of the 2 alternatives; exactly one is allowed"
        );
    }

    /// `Node = anyOf[{kind: folder, children: [Node]}, {kind: group, children: [Node]}]` under `root`.
    const TREE: &str = r##"{
        "$defs": {"Node": {"anyOf": [
            {"type": "object", "properties": {"kind": {"const": "folder"},
             "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
             "required": ["kind", "children"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"const": "group"},
             "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
             "required": ["kind", "children"], "additionalProperties": false}
        ]}},
        "type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "required": ["root"]
    }"##;

    /// A tree `depth` levels deep under `root`, its leaf of kind `leaf`.
    fn tree(depth: usize, leaf: &str) -> String {
        let mut node = format!(r#"{{"kind": "{leaf}", "children": []}}"#);
        for level in 0..depth {
            let kind = if level % 2 == 0 { "group" } else { "folder" };
            node = format!(r#"{{"kind": "{kind}", "children": [{node}]}}"#);
        }
        format!(r#"{{"root": {node}}}"#)
    }

    #[test]
    fn a_deep_bad_leaf_under_a_recursive_union_is_found_where_it_is() {
        let v = one(TREE);
        // Valid trees are decided without any search, however deep.
        assert!(v.validate("t", tree(60, "folder").as_bytes()).is_empty());
        let started = std::time::Instant::now();
        // 62 levels nest 127 deep, within the default `max_depth`.
        for depth in [3, 18, 24, 60, 62] {
            let leaf = format!("/root{}", "/children/0".repeat(depth));
            let violations = v.validate("t", tree(depth, "file").as_bytes());
            assert_eq!(
                violations
                    .iter()
                    .map(|v| (v.code.as_str(), v.path.clone().unwrap_or_default()))
                    .collect::<Vec<_>>(),
                codes(&[("CONSTRAINT_VIOLATION", &leaf)]),
                "{depth}"
            );
            assert_eq!(data(&violations[0]), serde_json::json!({"keyword": "anyOf"}));
        }
        // A hang guard, not a measure (benches/test_bench_validation.py measures): the crate's own search took
        // minutes at depth 24.
        assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
        // A bad member deep down is reported in its own place.
        let deep = tree(40, "folder").replace(r#""children": []"#, r#""children": [], "x": 1"#);
        let leaf = format!("/root{}/x", "/children/0".repeat(40));
        assert_eq!(found(&v, &deep), codes(&[("UNEXPECTED_ARGUMENT", &leaf)]));
    }

    #[test]
    fn a_search_past_the_budget_is_not_started() {
        // One step per (subschema, value) pair: here the root and each item.
        let v = one(r#"{"items": {"type": "string"}}"#).with_max_steps(3);
        assert_eq!(
            found(&v, "[1, 2]"),
            codes(&[("TYPE_MISMATCH", "/0"), ("TYPE_MISMATCH", "/1")])
        );
        let violations = v.validate("t", b"[1, 2, 3]");
        assert_eq!(found(&v, "[1, 2, 3]"), codes(&[("VALIDATION_BUDGET_EXCEEDED", "")]));
        assert_eq!(data(&violations[0]), serde_json::json!({"limit": 3}));
        assert!(!violations[0].recoverable());
        assert!(found(&v, r#"["a", "b", "c", "d"]"#).is_empty());
        // Each pair counts once, however many branches lead to it: the tree counts in proportion to its depth.
        let fits = |depth: usize, steps: u64| {
            let v = one(TREE).with_max_steps(steps);
            found(&v, &tree(depth, "file")) != codes(&[("VALIDATION_BUDGET_EXCEEDED", "")])
        };
        let least = |depth: usize| (1..10_000).find(|&steps| fits(depth, steps)).unwrap();
        let counts: Vec<u64> = [10, 20, 40].into_iter().map(least).collect();
        assert_eq!(counts[2] - counts[1], 2 * (counts[1] - counts[0]), "{counts:?}");
        // A schema the walk does not model is searched by the crate, counted with multiplicity.
        let v = one(r#"{"items": {"type": "string"}, "unevaluatedItems": false}"#).with_max_steps(4);
        assert_eq!(found(&v, "[1]"), codes(&[("TYPE_MISMATCH", "/0")]));
        assert_eq!(found(&v, "[1, 2]"), codes(&[("VALIDATION_BUDGET_EXCEEDED", "")]));
        // A short text is not counted (its pairs cannot pass the budget), save an empty one: it stands for `{}`, whose
        // three pairs here are past two steps.
        let v = one(r#"{"allOf": [{"required": ["a"]}, {"required": ["b"]}]}"#).with_max_steps(2);
        let budget = ViolationCode::VALIDATION_BUDGET_EXCEEDED;
        assert_eq!(
            v.validate_arguments("t", b"").last().map(|found| found.code),
            Some(budget)
        );
        let v = v.with_max_steps(3);
        assert_eq!(
            v.validate_arguments("t", b"").last().map(|found| found.code),
            Some(ViolationCode::MISSING_REQUIRED_ARGUMENT)
        );
    }

    #[test]
    fn every_problem_is_reported_in_path_order() {
        let v = one(ADDRESS);
        assert_eq!(
            found(&v, r#"{"age": -1, "unit": 1, "zzz": 0, "address": {"zip": "1"}}"#),
            codes(&[
                ("MISSING_REQUIRED_ARGUMENT", "/address/street"),
                ("CONSTRAINT_VIOLATION", "/address/zip"),
                ("CONSTRAINT_VIOLATION", "/age"),
                ("MISSING_REQUIRED_ARGUMENT", "/name"),
                ("ENUM_OUT_OF_RANGE", "/unit"),
                ("UNEXPECTED_ARGUMENT", "/zzz"),
            ])
        );
    }

    #[test]
    fn references_inside_the_schema_are_followed() {
        let v = one(r##"{"$defs": {"p": {"type": "string", "minLength": 3}},
                 "properties": {"a": {"$ref": "#/$defs/p"}, "b": {"items": {"$ref": "#/$defs/p"}}}}"##);
        assert_eq!(
            found(&v, r#"{"a": "x", "b": ["long enough", 4]}"#),
            codes(&[("CONSTRAINT_VIOLATION", "/a"), ("TYPE_MISMATCH", "/b/1")])
        );
    }

    #[test]
    fn format_and_content_are_annotations_in_every_draft() {
        for draft in [
            "https://json-schema.org/draft/2020-12/schema",
            "http://json-schema.org/draft-07/schema#",
        ] {
            let schema = format!(
                r#"{{"$schema": "{draft}", "properties": {{"e": {{"format": "email"}},
                    "c": {{"contentEncoding": "base64", "contentMediaType": "application/json"}}}}}}"#
            );
            let v = ToolValidators::compile([("t", schema.as_bytes())]).unwrap();
            assert!(
                v.validate("t", br#"{"e": "not an email", "c": "{"}"#).is_empty(),
                "{draft}"
            );
        }
    }

    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let v = one(r#"{"properties": {"a": {"type": "integer"}}}"#);
        assert!(found(&v, r#"{"a": "x", "a": 1}"#).is_empty());
        assert_eq!(found(&v, r#"{"a": 1, "a": "x"}"#), codes(&[("TYPE_MISMATCH", "/a")]));
    }

    #[test]
    fn unknown_tool_lists_the_declared_names_and_the_closest() {
        let v = tools(&[("get_weather", "{}"), ("search_web", "{}"), ("send_mail", "{}")]);
        let violations = v.validate("get_wether", b"{}");
        assert_eq!(violations.len(), 1);
        let unknown = &violations[0];
        assert_eq!(unknown.code, ViolationCode::UNKNOWN_TOOL);
        assert_eq!(unknown.path, None);
        assert!(unknown.recoverable());
        assert_eq!(
            unknown.message,
            r#"unknown tool "get_wether"; declared: "get_weather", "search_web", "send_mail"; closest: "get_weather""#
        );
        assert_eq!(
            v.names().collect::<Vec<_>>(),
            ["get_weather", "search_web", "send_mail"]
        );
        let long = "x".repeat(100_000);
        let violations = v.validate(&long, b"{}");
        assert!(violations[0].message.len() < 1000);
        assert!(violations[0].message.ends_with(r#"closest: "get_weather""#));
        let none = ToolValidators::compile([]).unwrap();
        assert!(none.validate("x", b"{}")[0].message.ends_with("no tools are declared"));
    }

    fn data(violation: &Violation) -> Value {
        match &violation.data {
            Some(ViolationData::Json(value)) => value.clone(),
            other => panic!("expected JSON data, got {other:?}"),
        }
    }

    #[test]
    fn unknown_tool_data_lists_every_name_and_server_tools_are_declared() {
        let v = tools(&[("get_weather", "{}"), ("search_web", "{}")]).with_server_tools(["web_search"]);
        let unknown = v.unknown_tool("get_wether").unwrap();
        assert_eq!(
            data(&unknown),
            serde_json::json!({"available": ["get_weather", "search_web"], "closest": "get_weather"})
        );
        assert!(v.unknown_tool("web_search").is_none());
        assert!(v.validate("web_search", b"not even json").is_empty());
        assert!(v.unknown_tool("get_weather").is_none());
        let none = ToolValidators::compile([]).unwrap();
        assert_eq!(
            data(&none.unknown_tool("x").unwrap()),
            serde_json::json!({"available": [], "closest": null})
        );
    }

    #[test]
    fn data_says_what_is_allowed() {
        let v = one(r#"{"type": "object", "properties": {
                "n": {"type": ["integer", "null"], "maximum": 10},
                "unit": {"enum": ["c", "f"]},
                "k": {"const": 3},
                "s": {"type": "string", "pattern": "^a", "maxLength": 2},
                "o": {"anyOf": [{"type": "string"}, {"type": "boolean"}]}
            }}"#);
        let violations = v.validate("t", br#"{"n": "3", "unit": "k", "k": 4, "s": "bbb", "o": 1}"#);
        let by_path: Vec<(String, Value)> = violations
            .iter()
            .map(|violation| (violation.path.clone().unwrap(), data(violation)))
            .collect();
        assert_eq!(
            by_path,
            [
                ("/k".to_owned(), serde_json::json!({"allowed": [3]})),
                ("/n".to_owned(), serde_json::json!({"expected": ["integer", "null"]})),
                ("/o".to_owned(), serde_json::json!({"expected": ["string", "boolean"]})),
                ("/s".to_owned(), serde_json::json!({"keyword": "maxLength", "limit": 2})),
                (
                    "/s".to_owned(),
                    serde_json::json!({"keyword": "pattern", "limit": "^a"})
                ),
                ("/unit".to_owned(), serde_json::json!({"allowed": ["c", "f"]})),
            ]
        );
        let bound = v.validate("t", br#"{"n": 11}"#);
        assert_eq!(data(&bound[0]), serde_json::json!({"keyword": "maximum", "limit": 10}));
    }

    #[test]
    fn validate_arguments_judges_a_call_as_a_stream_would() {
        let v = one(r#"{"properties": {"x": {"type": "integer"}}}"#).with_server_tools(["web_search"]);
        let codes_of = |name: &str, text: &str| -> Vec<&'static str> {
            v.validate_arguments(name, text.as_bytes())
                .iter()
                .map(|violation| violation.code.as_str())
                .collect()
        };
        assert_eq!(codes_of("t", r#"{"x": 1}"#), Vec::<&str>::new());
        assert_eq!(codes_of("t", "[1]"), ["ARGUMENTS_NOT_OBJECT"]);
        assert_eq!(codes_of("t", r#"{"x": "1"}"#), ["TYPE_MISMATCH"]);
        assert_eq!(codes_of("nope", "{"), ["INVALID_JSON", "UNKNOWN_TOOL"]);
        assert_eq!(codes_of("t", " "), ["EMPTY_ARGUMENTS"]);
        assert_eq!(codes_of("nope", r#"{"x": "1"}"#), ["UNKNOWN_TOOL"]);
        // A number Python values are not built from is found where a stream finds it: last, and then the schema is
        // not applied.
        let big = "9".repeat(MAX_INTEGER_DIGITS + 1);
        assert_eq!(
            codes_of("t", &format!(r#"{{"x": "1", "y": [{big}]}}"#)),
            ["INVALID_JSON"]
        );
        assert_eq!(codes_of("t", &format!(r#"{{"x": -{big}}}"#)), ["INVALID_JSON"]);
        assert_eq!(
            codes_of("t", &format!("[{big}]")),
            ["ARGUMENTS_NOT_OBJECT", "INVALID_JSON"]
        );
        assert_eq!(
            codes_of("nope", &format!(r#"{{"x": {big}}}"#)),
            ["UNKNOWN_TOOL", "INVALID_JSON"]
        );
        assert_eq!(
            v.validate_arguments("t", format!(r#"{{"x": {big}}}"#).as_bytes()),
            [number_too_long()]
        );
        // The integer part of a fraction or of an exponent counts; as many digits as Python converts are a number,
        // and so is a fraction of any length.
        assert_eq!(codes_of("t", &format!(r#"{{"y": {big}.5}}"#)), ["INVALID_JSON"]);
        assert_eq!(codes_of("t", &format!(r#"{{"y": -{big}e-9}}"#)), ["INVALID_JSON"]);
        let most = "9".repeat(MAX_INTEGER_DIGITS);
        assert_eq!(codes_of("t", &format!(r#"{{"x": {most}}}"#)), Vec::<&str>::new());
        assert_eq!(
            codes_of("t", &format!(r#"{{"y": {most}.{big}e1, "z": 0.{big}}}"#)),
            Vec::<&str>::new()
        );
        assert_eq!(v.validate("t", big.as_bytes()), [number_too_long()]);
        assert_eq!(codes_of("web_search", "not json"), Vec::<&str>::new());
    }

    #[test]
    fn a_batch_is_judged_in_order_whatever_the_threads() {
        let v = one(r#"{"properties": {"x": {"type": "integer"}}}"#);
        let calls: Vec<(String, String)> = (0..2_000)
            .map(|i| {
                let arguments = if i % 3 == 0 {
                    format!(r#"{{"x": "{i}"}}"#)
                } else {
                    format!(r#"{{"x": {i}}}"#)
                };
                ("t".to_owned(), arguments)
            })
            .collect();
        let one_by_one: Vec<Vec<Violation>> = calls
            .iter()
            .map(|(name, arguments)| v.validate_arguments(name, arguments.as_bytes()))
            .collect();
        assert_eq!(v.validate_batch(&calls), one_by_one);
        assert_eq!(one_by_one.iter().filter(|found| !found.is_empty()).count(), 667);
        assert!(v.validate_batch::<&str, &str>(&[]).is_empty());
    }

    #[test]
    fn levenshtein_counts_characters() {
        assert_eq!(levenshtein("", ""), 0);
        assert_eq!(levenshtein("abc", ""), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("héllo", "hello"), 1);
    }

    #[test]
    fn schema_errors_name_the_tool_and_the_pointer() {
        let error = |schema: &'static str| {
            ToolValidators::compile([("ok", b"{}".as_slice()), ("bad", schema.as_bytes())]).unwrap_err()
        };
        let e = error(r#"{"properties": {"a": {"type": "dict"}}}"#);
        assert_eq!((e.tool.as_str(), e.pointer.as_str()), ("bad", "/properties/a/type"));
        assert!(
            e.to_string()
                .starts_with(r#"the schema of tool "bad" is invalid at /properties/a/type: "#)
        );
        assert_eq!(
            error(r#"{"properties": {"a": {"pattern": "(("}}}"#).pointer,
            "/properties/a/pattern"
        );
        // Patterns run on a linear-time engine: one that needs backtracking is refused where it is declared.
        for (schema, pointer) in [
            (
                r#"{"properties": {"a": {"pattern": "^(?=.*[A-Z]).{8,}$"}}}"#,
                "/properties/a/pattern",
            ),
            (r#"{"propertyNames": {"pattern": "(?<!x)y"}}"#, "/propertyNames/pattern"),
            (r#"{"patternProperties": {"(a)\\1": {}}}"#, "/patternProperties/(a)\\1"),
        ] {
            let e = error(schema);
            assert_eq!(e.pointer, pointer, "{schema}");
            assert!(
                e.message.contains("not a regular expression that runs in linear time"),
                "{}",
                e.message
            );
        }
        assert_eq!(error(r#"{"items": {"minLength": -1}}"#).pointer, "/items/minLength");
        assert_eq!(
            error(r#"{"properties": {"a": {"$ref": "https://example.com/a.json"}}}"#).pointer,
            "/properties/a/$ref"
        );
        assert_eq!(
            error(r##"{"prefixItems": [{"$ref": "#/$defs/missing"}]}"##).pointer,
            "/prefixItems/0/$ref"
        );
        assert_eq!(
            error(r#"{"$schema": "https://example.com/custom"}"#).pointer,
            "/$schema"
        );
        let e = error("{");
        assert_eq!(e.pointer, "");
        assert!(e.message.starts_with("not JSON"), "{}", e.message);
        let e = ToolValidators::compile([("a", b"{}".as_slice()), ("a", b"true".as_slice())]).unwrap_err();
        assert_eq!(e.message, "the tool is declared more than once");
    }

    #[test]
    fn boolean_schemas_compile() {
        let v = tools(&[("any", "true"), ("none", "false")]);
        assert!(v.validate("any", br#"{"x": 1}"#).is_empty());
        assert_eq!(v.validate("none", b"{}")[0].code, ViolationCode::CONSTRAINT_VIOLATION);
    }

    #[test]
    fn text_that_is_not_json_is_invalid_json() {
        let v = one("{}");
        for text in [&b""[..], b"{", b"{} x", b"\xff", br#"{"a": "\ud800"}"#, b"[1,]", b"nul"] {
            let violations = v.validate("t", text);
            assert_eq!(violations.len(), 1, "{text:?}");
            assert_eq!(violations[0].code, ViolationCode::INVALID_JSON, "{text:?}");
        }
    }

    #[test]
    fn nesting_is_bounded_like_the_scanner() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let v = one("true");
        // serde_json alone stops at 127; the scanner's default limit is 128.
        assert!(v.validate("t", nested(128).as_bytes()).is_empty());
        assert_eq!(v.validate("t", nested(129).as_bytes())[0].code, ViolationCode::TOO_DEEP);
        let v = one("true").with_max_depth(500);
        assert!(v.validate("t", nested(500).as_bytes()).is_empty());
        // Brackets inside strings do not count.
        let quoted_brackets = format!(r#"["{}\"{}"]"#, "[".repeat(200), "{".repeat(200));
        assert!(one("true").validate("t", quoted_brackets.as_bytes()).is_empty());
        // Unbalanced garbage is bounded too, before the parser sees it.
        assert_eq!(
            one("true").validate("t", "[".repeat(100_000).as_bytes())[0].code,
            ViolationCode::TOO_DEEP
        );
    }

    #[test]
    fn validators_can_be_shared_across_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<ToolValidators>();
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
                let v = one(ADDRESS);
                let _ = v.validate("t", &data);
                let _ = ToolValidators::compile([("t", data.as_slice())]);
            }

            #[test]
            fn jsonish_text_never_panics(text in r#"[\[\]{}",:0-9a-z\\ .eE+-]{0,80}"#) {
                let v = one(ADDRESS);
                let _ = v.validate("t", text.as_bytes());
                let _ = ToolValidators::compile([("t", text.as_bytes())]);
            }
        }
    }
}
