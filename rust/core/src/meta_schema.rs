//! Meta-schema validation: every way a schema breaks the meta-schema of its draft, each with its JSON pointer.
//!
//! [`ToolValidators::compile`](crate::ToolValidators::compile) stops at the first problem of a schema, which is
//! right where tools are declared; a linter wants all of them. The meta-schemas are the ones bundled with the
//! `jsonschema` crate (built without HTTP or file resolving), so nothing is ever fetched.

use std::fmt;

use jsonschema::meta::MetaValidator;
use serde_json::Value;

/// The JSON Schema drafts whose meta-schemas a schema can be checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaDraft {
    /// Draft 4 (`http://json-schema.org/draft-04/schema#`).
    Draft4,
    /// Draft 6.
    Draft6,
    /// Draft 7.
    Draft7,
    /// Draft 2019-09.
    Draft201909,
    /// Draft 2020-12, the default of toolwire and of the providers that document one.
    Draft202012,
}

impl MetaDraft {
    /// The names [`MetaDraft::parse`] accepts, one per draft.
    pub const NAMES: [&'static str; 5] = ["4", "6", "7", "2019-09", "2020-12"];

    /// The draft named `4`, `6`, `7`, `2019-09` or `2020-12`; None for any other name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "4" => Some(Self::Draft4),
            "6" => Some(Self::Draft6),
            "7" => Some(Self::Draft7),
            "2019-09" => Some(Self::Draft201909),
            "2020-12" => Some(Self::Draft202012),
            _ => None,
        }
    }

    /// The crate's validator of this draft's meta-schema (compiled once, then shared).
    fn validator(self) -> MetaValidator<'static> {
        match self {
            Self::Draft4 => jsonschema::draft4::meta::validator(),
            Self::Draft6 => jsonschema::draft6::meta::validator(),
            Self::Draft7 => jsonschema::draft7::meta::validator(),
            Self::Draft201909 => jsonschema::draft201909::meta::validator(),
            Self::Draft202012 => jsonschema::draft202012::meta::validator(),
        }
    }
}

/// One way a schema breaks its meta-schema.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SchemaProblem {
    /// JSON pointer of the offending part inside the schema (`""` for the whole schema).
    pub pointer: String,
    /// What the meta-schema says is wrong there.
    pub message: String,
}

/// Text that is not a JSON document.
#[derive(Debug)]
pub struct NotJson(serde_json::Error);

impl fmt::Display for NotJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the schema is not JSON: {}", self.0)
    }
}

impl std::error::Error for NotJson {}

/// Every problem of the schema `text` (JSON) under the meta-schema of `draft`, sorted by pointer then message,
/// without duplicates; empty when the schema is valid. A schema's own `$schema` is not followed: the caller names
/// the draft.
pub fn schema_problems(text: &[u8], draft: MetaDraft) -> Result<Vec<SchemaProblem>, NotJson> {
    let schema: Value = serde_json::from_slice(text).map_err(NotJson)?;
    let validator = draft.validator();
    let mut problems: Vec<SchemaProblem> = validator
        .iter_errors(&schema)
        .map(|error| SchemaProblem {
            pointer: error.instance_path().as_str().to_owned(),
            message: crate::validator::shorten(error.to_string()),
        })
        .collect();
    problems.sort();
    problems.dedup();
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str, draft: MetaDraft) -> Vec<(String, String)> {
        schema_problems(text.as_bytes(), draft)
            .unwrap()
            .into_iter()
            .map(|problem| (problem.pointer, problem.message))
            .collect()
    }

    #[test]
    fn a_valid_schema_has_no_problem() {
        let schema = r#"{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}"#;
        assert!(problems(schema, MetaDraft::Draft202012).is_empty());
        assert!(problems(schema, MetaDraft::Draft7).is_empty());
    }

    #[test]
    fn every_problem_is_reported_with_its_pointer() {
        let schema = r#"{"type": "dict", "properties": {"w": {"type": "float"}, "t": {"type": "tuple"}}}"#;
        let found = problems(schema, MetaDraft::Draft202012);
        let pointers: Vec<&str> = found.iter().map(|(pointer, _)| pointer.as_str()).collect();
        assert_eq!(pointers, ["/properties/t/type", "/properties/w/type", "/type"]);
        assert!(found.iter().all(|(_, message)| !message.is_empty()));
    }

    #[test]
    fn the_draft_decides() {
        // Draft 7 reads `dependentRequired` as an unknown keyword (allowed); 2020-12 checks its shape.
        let schema = r#"{"type": "object", "dependentRequired": {"a": 1}}"#;
        assert!(problems(schema, MetaDraft::Draft7).is_empty());
        assert_eq!(problems(schema, MetaDraft::Draft202012).len(), 1);
    }

    #[test]
    fn not_json_is_an_error() {
        assert!(schema_problems(b"{", MetaDraft::Draft202012).is_err());
    }

    #[test]
    fn draft_names_round_trip() {
        for name in MetaDraft::NAMES {
            assert!(MetaDraft::parse(name).is_some(), "{name}");
        }
        assert_eq!(MetaDraft::parse("draft-07"), None);
    }
}
