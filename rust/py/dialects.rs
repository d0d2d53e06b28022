//! The `DialectParser` class: the core's parser of one text dialect, for Python, event for event the reference's.
//!
//! The pipeline drives the core's parser in Rust; this class is how Python reaches it on its own: the tests hold it to
//! the reference's `toolwire.reference.dialects` parsers on every corpus case and every split.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyDict, PyString, PyTuple};
use toolwire_core::Limits;
use toolwire_core::dialects::{self, Dialect, DialectEvent, Tools};

use crate::input::dumps;

/// Every dialect's name, in the core's table order.
pub(crate) fn dialect_names() -> Vec<&'static str> {
    Dialect::ALL.iter().map(|dialect| dialect.name()).collect()
}

/// One stream's text parsed in one dialect: deltas in, events out as tuples.
#[pyclass(module = "toolwire._core")]
pub(crate) struct DialectParser {
    parser: dialects::DialectParser,
}

#[pymethods]
impl DialectParser {
    /// A parser of `dialect` at the start of a model's text; `tools` maps each tool's name to its parameters schema.
    /// Raises `ValueError` naming the dialects when `dialect` is none of them.
    #[new]
    #[pyo3(signature = (dialect, tools = None, *, reasoning = false, max_argument_bytes = None, max_depth = None))]
    fn new(
        dialect: &str,
        tools: Option<&Bound<'_, PyDict>>,
        reasoning: bool,
        max_argument_bytes: Option<usize>,
        max_depth: Option<u32>,
    ) -> PyResult<Self> {
        let found = Dialect::from_name(dialect).ok_or_else(|| {
            let quoted = serde_json::to_string(dialect).unwrap_or_default();
            PyValueError::new_err(format!(
                "unknown dialect {quoted}; the dialects are {}",
                dialect_names().join(", ")
            ))
        })?;
        let tools = tools.map(schemas).transpose()?.map(Arc::new);
        let defaults = Limits::default();
        let limits = Limits {
            max_argument_bytes: max_argument_bytes.unwrap_or(defaults.max_argument_bytes),
            max_depth: max_depth.unwrap_or(defaults.max_depth),
            ..defaults
        };
        Ok(Self {
            parser: dialects::DialectParser::new(found, tools, reasoning, limits),
        })
    }

    /// The events `delta` completes. Raises `ValueError` once the parser was finished.
    fn feed<'py>(&mut self, py: Python<'py>, delta: &str) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        let mut out = Vec::new();
        self.parser
            .feed(delta, &mut out)
            .map_err(|finished| PyValueError::new_err(finished.to_string()))?;
        events(py, out)
    }

    /// The events the end of the stream completes. Raises `ValueError` once the parser was finished.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        let mut out = Vec::new();
        self.parser
            .finish(&mut out)
            .map_err(|finished| PyValueError::new_err(finished.to_string()))?;
        events(py, out)
    }
}

/// Each tool's schema as a JSON value: written by `json.dumps`, read by `serde_json`, as schemas reach the core.
fn schemas(tools: &Bound<'_, PyDict>) -> PyResult<Tools> {
    tools
        .iter()
        .map(|(name, schema)| {
            let name: PyBackedStr = name.extract()?;
            let text = dumps(&schema)?.cast_into::<PyString>()?;
            let value = serde_json::from_str(text.to_str()?)
                .map_err(|error| PyValueError::new_err(format!("the schema of {name} is not JSON: {error}")))?;
            Ok((name.to_string(), value))
        })
        .collect()
}

/// `("text", s)`, `("reasoning", s)`, `("call", index, name, arguments, id, whole, valid)`, `("finding", code,
/// message, call)`.
fn events(py: Python<'_>, events: Vec<DialectEvent>) -> PyResult<Vec<Bound<'_, PyTuple>>> {
    events
        .into_iter()
        .map(|event| match event {
            DialectEvent::Text(text) => ("text", text).into_pyobject(py),
            DialectEvent::Reasoning(text) => ("reasoning", text).into_pyobject(py),
            DialectEvent::Call(call) => (
                "call",
                call.index,
                call.name,
                call.arguments,
                call.id,
                call.whole,
                call.valid,
            )
                .into_pyobject(py),
            DialectEvent::Finding(finding) => {
                ("finding", finding.code.as_str(), finding.message, finding.call).into_pyobject(py)
            }
        })
        .collect()
}
