//! The `ToolValidators` class: a registry's parameter schemas compiled once by the core, shared by every stream
//! that declares those tools and by `toolwire.validate`.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use rustc_hash::FxHashMap;
use toolwire_core::validator::DEFAULT_MAX_STEPS;
use toolwire_core::{MetaDraft, SchemaError, Violation};

use crate::input::utf8;
use crate::output;
use crate::{collector, errors};

/// Compiled parameter schemas of a set of tools, with each tool's fingerprint. Immutable and thread-safe.
#[pyclass(frozen, module = "toolwire._core")]
pub(crate) struct ToolValidators {
    core: Arc<toolwire_core::ToolValidators>,
    fingerprints: FxHashMap<String, Py<PyString>>,
}

#[pymethods]
impl ToolValidators {
    /// Compile `tools`, `(name, parameters schema as JSON text, fingerprint)` triples; calls named in `server_names`
    /// are declared but not checked; `max_depth` and `max_steps` are `Limits.max_depth` and
    /// `Limits.max_validation_steps`. Raises `toolwire.errors.SchemaError` naming the tool and the pointer.
    #[new]
    #[pyo3(signature = (tools, server_names, max_depth, max_steps = DEFAULT_MAX_STEPS))]
    #[expect(clippy::needless_pass_by_value, reason = "pyo3 extracts arguments into owned values")]
    fn new(
        py: Python<'_>,
        tools: Vec<(String, String, Py<PyString>)>,
        server_names: Vec<String>,
        max_depth: u32,
        max_steps: u64,
    ) -> PyResult<Self> {
        let compiled = toolwire_core::ToolValidators::compile(
            tools.iter().map(|(name, schema, _)| (name.as_str(), schema.as_bytes())),
        )
        .map_err(|error| schema_error(py, &error))?
        .with_server_tools(server_names.iter().map(String::as_str))
        .with_max_depth(max_depth)
        .with_max_steps(max_steps);
        let fingerprints = tools
            .into_iter()
            .map(|(name, _, fingerprint)| (name, fingerprint))
            .collect();
        Ok(Self {
            core: Arc::new(compiled),
            fingerprints,
        })
    }

    /// The function tools' names, in declaration order.
    #[getter]
    fn names(&self) -> Vec<&str> {
        self.core.names().collect()
    }

    /// Each function tool's parameters schema, by name: what types the raw values a text dialect writes.
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let parameters = PyDict::new(py);
        for (name, schema) in self.core.parameters().iter() {
            parameters.set_item(name, crate::output::json_bytes(py, schema.to_string().as_bytes())?)?;
        }
        Ok(parameters)
    }

    /// The fingerprint of the function tool `name`, or None.
    fn fingerprint(&self, py: Python<'_>, name: &str) -> Option<Py<PyString>> {
        self.fingerprints.get(name).map(|fingerprint| fingerprint.clone_ref(py))
    }

    /// `UNKNOWN_TOOL` when `name` is neither a function tool nor a server tool, else None.
    fn unknown_tool<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.core
            .unknown_tool(name)
            .map(|violation| output::violation(py, &violation, &[]))
            .transpose()
    }

    /// Every problem of `arguments` (JSON text, `str` or `bytes`) for the tool `name`; empty when valid. With
    /// `call=True` the arguments are judged as a call's (they must be an object; see the core's
    /// `validate_arguments`); with `call=False` any JSON value is checked against the schema.
    #[pyo3(signature = (name, arguments, *, call = true))]
    fn validate<'py>(&self, name: &str, arguments: &Bound<'py, PyAny>, call: bool) -> PyResult<Bound<'py, PyList>> {
        let py = arguments.py();
        let text = json_text(arguments)?;
        let found = if call {
            self.core.validate_arguments(name, &text)
        } else {
            self.core.validate(name, &text)
        };
        built(py, &found)
    }

    /// `validate` (as calls) for a list of `(name, arguments)` pairs, with the GIL released while the batch is
    /// checked (on every core when it is large); None when an item is not such a pair, for the caller to normalize.
    fn validate_many<'py>(&self, calls: &Bound<'py, PyList>) -> PyResult<Option<Bound<'py, PyList>>> {
        let py = calls.py();
        let mut batch = Vec::with_capacity(calls.len());
        for item in calls.iter() {
            let Some(pair) = Text::pair(&item)? else {
                return Ok(None);
            };
            batch.push(pair);
        }
        let core = &self.core;
        let found = py.detach(|| core.validate_batch(&batch));
        let _paused = collector::pause(py)?;
        let results = found
            .iter()
            .map(|violations| built(py, violations))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, results).map(Some)
    }
}

/// The arguments text of a batch's pair, borrowing the Python string's UTF-8 where it can.
enum Text {
    Str(PyBackedStr),
    Bytes(PyBackedBytes),
    /// A string holding lone surrogates, as `surrogatepass` bytes (which the parser rejects as invalid UTF-8).
    Encoded(Vec<u8>),
}

impl Text {
    /// `(name, arguments)` of a batch's item, or None when it is not a pair of `str` and `str`/`bytes`.
    fn pair(item: &Bound<'_, PyAny>) -> PyResult<Option<(PyBackedStr, Self)>> {
        let Ok(pair) = item.cast::<PyTuple>() else {
            return Ok(None);
        };
        if pair.len() != 2 {
            return Ok(None);
        }
        let Ok(name) = pair.get_item(0)?.extract::<PyBackedStr>() else {
            return Ok(None);
        };
        let arguments = pair.get_item(1)?;
        let arguments = if let Ok(text) = arguments.cast::<PyString>() {
            match PyBackedStr::try_from(text.clone()) {
                Ok(text) => Text::Str(text),
                Err(_) => Text::Encoded(utf8(text)?.into_owned()),
            }
        } else if let Ok(bytes) = arguments.cast::<PyBytes>() {
            Text::Bytes(bytes.clone().into())
        } else {
            return Ok(None);
        };
        Ok(Some((name, arguments)))
    }
}

impl AsRef<[u8]> for Text {
    fn as_ref(&self) -> &[u8] {
        match self {
            Text::Str(text) => text.as_bytes(),
            Text::Bytes(bytes) => bytes,
            Text::Encoded(bytes) => bytes,
        }
    }
}

impl ToolValidators {
    /// The compiled validators, for an engine to share.
    pub(crate) fn core(&self) -> Arc<toolwire_core::ToolValidators> {
        Arc::clone(&self.core)
    }

    /// The fingerprint of the function tool named by `name` (bytes as the core keeps names).
    pub(crate) fn fingerprint_of(&self, py: Python<'_>, name: &[u8]) -> Option<Py<PyString>> {
        let name = std::str::from_utf8(name).ok()?;
        self.fingerprints.get(name).map(|fingerprint| fingerprint.clone_ref(py))
    }
}

/// Every way `schema_json` (a schema as JSON text) breaks the meta-schema of `draft` (`"2020-12"`, `"2019-09"`,
/// `"7"`, `"6"` or `"4"`): `(JSON pointer inside the schema, message)` pairs sorted by pointer, empty when it is
/// valid. The bundled meta-schemas are used; nothing is fetched. Raises `ValueError` for text that is not JSON or an
/// unknown draft.
#[pyfunction]
#[pyo3(signature = (schema_json, draft = "2020-12"))]
pub(crate) fn schema_problems(schema_json: &[u8], draft: &str) -> PyResult<Vec<(String, String)>> {
    let Some(meta) = MetaDraft::parse(draft) else {
        return Err(PyValueError::new_err(format!(
            "draft must be one of {}; got {draft:?}",
            MetaDraft::NAMES.join(", ")
        )));
    };
    let problems =
        toolwire_core::schema_problems(schema_json, meta).map_err(|error| PyValueError::new_err(error.to_string()))?;
    Ok(problems
        .into_iter()
        .map(|problem| (problem.pointer, problem.message))
        .collect())
}

fn json_text<'a>(arguments: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    if let Ok(text) = arguments.cast::<PyString>() {
        return utf8(text);
    }
    if let Ok(bytes) = arguments.cast::<PyBytes>() {
        return Ok(std::borrow::Cow::Borrowed(bytes.as_bytes()));
    }
    Err(PyTypeError::new_err(format!(
        "arguments must be JSON text (str or bytes); got {}",
        arguments.get_type().name()?
    )))
}

fn built<'py>(py: Python<'py>, violations: &[Violation]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for violation in violations {
        list.append(output::violation(py, violation, &[])?)?;
    }
    Ok(list)
}

#[cold]
fn schema_error(py: Python<'_>, error: &SchemaError) -> PyErr {
    errors::schema_error(py, &error.tool, &error.pointer, &error.message)
}
