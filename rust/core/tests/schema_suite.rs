//! The official JSON Schema Test Suite (`json-schema-org/JSON-Schema-Test-Suite`, drafts 2020-12 and 7, the
//! required tests, not `optional/`): every case's schema is compiled as a tool and every test's data must give no
//! error-severity violation exactly when the suite says it is valid.
//!
//! The tool definitions gathered from real requests (`../shared/corpora/tool-schemas`) must compile, except BFCL's
//! as published, which are not JSON Schema.
//!
//! The corpora live outside the repository (`../shared/corpora`); the tests pass with a note when they are absent,
//! as in a user's fresh clone.

use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolwire_core::validator::ToolValidators;
use toolwire_core::violation::{Severity, ViolationCode};

/// The drafts run, with the `$schema` a case gets when it names none.
const DRAFTS: &[(&str, &str)] = &[
    ("draft2020-12", "https://json-schema.org/draft/2020-12/schema"),
    ("draft7", "http://json-schema.org/draft-07/schema#"),
];

/// Cases that cannot pass here, as (draft, file, case description or `*` for the whole file, reason). A skipped
/// case must fail: a case listed here that passes fails the test, so the list cannot go stale.
const SKIPPED: &[(&str, &str, &str, &str)] = &[
    ("draft2020-12", "refRemote.json", "*", REMOTE),
    ("draft7", "refRemote.json", "*", REMOTE),
    (
        "draft2020-12",
        "dynamicRef.json",
        "strict-tree schema, guards against misspelled properties",
        REMOTE,
    ),
    (
        "draft2020-12",
        "dynamicRef.json",
        "tests for implementation dynamic anchor and reference link",
        REMOTE,
    ),
    (
        "draft2020-12",
        "dynamicRef.json",
        "$ref and $dynamicAnchor are independent of order - $defs first",
        REMOTE,
    ),
    (
        "draft2020-12",
        "dynamicRef.json",
        "$ref and $dynamicAnchor are independent of order - $ref first",
        REMOTE,
    ),
    (
        "draft2020-12",
        "dynamicRef.json",
        "$ref to $dynamicRef finds detached $dynamicAnchor",
        REMOTE,
    ),
    (
        "draft2020-12",
        "vocabulary.json",
        "schema that uses custom metaschema with with no validation vocabulary",
        REMOTE_METASCHEMA,
    ),
    (
        "draft2020-12",
        "vocabulary.json",
        "ignore unrecognized optional vocabulary",
        REMOTE_METASCHEMA,
    ),
];

const REMOTE: &str = "a $ref to a document served by the suite's server (localhost:1234): nothing is fetched";
const REMOTE_METASCHEMA: &str = "$schema names a custom meta-schema served by the suite's server: nothing is fetched";

const SCHEMA_CODES: &[ViolationCode] = &[
    ViolationCode::MISSING_REQUIRED_ARGUMENT,
    ViolationCode::UNEXPECTED_ARGUMENT,
    ViolationCode::TYPE_MISMATCH,
    ViolationCode::ENUM_OUT_OF_RANGE,
    ViolationCode::CONSTRAINT_VIOLATION,
];

fn skip_reason(draft: &str, file: &str, case: &str) -> Option<&'static str> {
    SKIPPED
        .iter()
        .find(|(d, f, c, _)| *d == draft && *f == file && (*c == "*" || *c == case))
        .map(|(_, _, _, reason)| *reason)
}

#[derive(Default)]
struct Tally {
    passed: usize,
    skipped: usize,
    failures: Vec<String>,
}

/// Runs one case; `Err` holds what went wrong, `Ok(n)` the number of tests passed.
fn run_case(case: &Value, default_schema: &str) -> Result<usize, String> {
    let mut schema = case["schema"].clone();
    if let Value::Object(members) = &mut schema {
        members
            .entry("$schema")
            .or_insert_with(|| Value::String(default_schema.to_owned()));
    }
    let text = serde_json::to_vec(&schema).map_err(|e| e.to_string())?;
    let validators = ToolValidators::compile([("case", text.as_slice())]).map_err(|e| format!("compile: {e}"))?;
    let mut problems = Vec::new();
    let tests = case["tests"].as_array().ok_or("no tests")?;
    for test in tests {
        let data = serde_json::to_vec(&test["data"]).map_err(|e| e.to_string())?;
        let violations = validators.validate("case", &data);
        let valid = violations.iter().all(|v| v.severity != Severity::Error);
        // Suite data is always JSON within bounds: only schema codes, each with a pointer, may come back.
        if let Some(v) = violations
            .iter()
            .find(|v| !SCHEMA_CODES.contains(&v.code) || v.path.is_none())
        {
            problems.push(format!("{:?}: unexpected {v:?}", test["description"]));
        }
        if Some(valid) != test["valid"].as_bool() {
            let codes: Vec<String> = violations
                .iter()
                .map(|v| format!("{} at {:?}: {}", v.code.as_str(), v.path, v.message))
                .collect();
            problems.push(format!(
                "{:?} (data {}): expected valid={}, got {codes:?}",
                test["description"].as_str().unwrap_or_default(),
                test["data"],
                test["valid"]
            ));
        }
    }
    if problems.is_empty() {
        Ok(tests.len())
    } else {
        Err(problems.join("; "))
    }
}

/// The files of `dir` with extension `ext`, sorted, each with its file name.
fn files_ending(dir: &Path, ext: &str) -> Result<Vec<(PathBuf, String)>, Box<dyn Error>> {
    let mut files: Vec<(PathBuf, String)> = fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|found| found == ext))
        .map(|path| {
            let name = path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or_default()
                .to_owned();
            (path, name)
        })
        .collect();
    files.sort();
    Ok(files)
}

fn run_draft(dir: &Path, draft: &str, default_schema: &str) -> Result<Tally, Box<dyn Error>> {
    let mut tally = Tally::default();
    for (path, file) in files_ending(&dir.join(draft), "json")? {
        let cases: Value = serde_json::from_slice(&fs::read(&path)?)?;
        for case in cases.as_array().ok_or("a list of cases")? {
            let description = case["description"].as_str().unwrap_or_default();
            let tests = case["tests"].as_array().map_or(0, Vec::len);
            let outcome = run_case(case, default_schema);
            match (skip_reason(draft, &file, description), outcome) {
                (None, Ok(passed)) => tally.passed += passed,
                (None, Err(problem)) => tally
                    .failures
                    .push(format!("{draft}/{file} {description:?}: {problem}")),
                (Some(_), Err(_)) => tally.skipped += tests,
                (Some(reason), Ok(_)) => tally.failures.push(format!(
                    "{draft}/{file} {description:?} is skipped ({reason}) but passes: remove it from SKIPPED"
                )),
            }
        }
    }
    Ok(tally)
}

#[test]
fn the_json_schema_test_suite_agrees() -> Result<(), Box<dyn Error>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/json-schema-test-suite");
    if !dir.is_dir() {
        eprintln!(
            "note: {} is absent; JSON Schema Test Suite checks skipped",
            dir.display()
        );
        return Ok(());
    }
    let mut failures = Vec::new();
    for (draft, default_schema) in DRAFTS {
        let tally = run_draft(&dir, draft, default_schema)?;
        eprintln!(
            "{draft}: {} tests passed, {} skipped, {} cases failed",
            tally.passed,
            tally.skipped,
            tally.failures.len()
        );
        failures.extend(tally.failures);
    }
    none_failed(&failures);
    Ok(())
}

/// Files whose schemas are not JSON Schema (`"type": "dict"`, `"float"`, …; see the corpus README): every one must be
/// a `SchemaError`.
const NOT_JSON_SCHEMA: &[&str] = &["bfcl_v4.jsonl"];

#[test]
fn real_tool_definitions_compile() -> Result<(), Box<dyn Error>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/tool-schemas");
    if !dir.is_dir() {
        eprintln!("note: {} is absent; tool definition checks skipped", dir.display());
        return Ok(());
    }
    let mut failures = Vec::new();
    for (path, file) in files_ending(&dir, "jsonl")? {
        let expect_error = NOT_JSON_SCHEMA.contains(&file.as_str());
        let (mut compiled, mut rejected) = (0, 0);
        for line in fs::read_to_string(&path)?.lines() {
            let definition: Value = serde_json::from_str(line)?;
            let name = definition["name"].as_str().unwrap_or_default();
            let schema = serde_json::to_vec(&definition["parameters"])?;
            match ToolValidators::compile([(name, schema.as_slice())]) {
                Ok(validators) => {
                    compiled += 1;
                    // Some violation or none, never a panic, for the commonest arguments of all.
                    let _ = validators.validate(name, b"{}");
                    if expect_error {
                        failures.push(format!("{file} {name:?}: compiles, but is not JSON Schema"));
                    }
                }
                Err(error) => {
                    rejected += 1;
                    if error.tool != name {
                        failures.push(format!("{file} {name:?}: the error names {:?}", error.tool));
                    }
                    if !expect_error {
                        failures.push(format!("{file}: {error}"));
                    }
                }
            }
        }
        eprintln!("{file}: {compiled} compiled, {rejected} rejected");
    }
    none_failed(&failures);
    Ok(())
}

/// Passes when no check failed; else fails listing every failure (a corpus run reports all of them, not the first).
fn none_failed(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
