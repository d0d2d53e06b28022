//! The one mapping from failures in the binding to toolwire's Python exceptions (`toolwire/errors.py`).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

static MALFORMED_CHUNK_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static SCHEMA_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `MalformedChunkError(chunk_number, path, problem)`: a chunk without the shape of its wire format.
#[cold]
pub(crate) fn malformed_chunk(py: Python<'_>, chunk_number: u64, path: &str, problem: &str) -> PyErr {
    match MALFORMED_CHUNK_ERROR.import(py, "toolwire.errors", "MalformedChunkError") {
        Ok(class) => match class.call1((chunk_number, path, problem)) {
            Ok(error) => PyErr::from_value(error),
            Err(error) => error,
        },
        Err(error) => error,
    }
}

/// Whether `error` is a `MalformedChunkError`.
pub(crate) fn is_malformed_chunk(py: Python<'_>, error: &PyErr) -> bool {
    MALFORMED_CHUNK_ERROR
        .import(py, "toolwire.errors", "MalformedChunkError")
        .is_ok_and(|class| error.is_instance(py, class))
}

/// `SchemaError(tool, pointer, problem)`: a tool's parameters schema that does not compile.
#[cold]
pub(crate) fn schema_error(py: Python<'_>, tool: &str, pointer: &str, problem: &str) -> PyErr {
    match SCHEMA_ERROR.import(py, "toolwire.errors", "SchemaError") {
        Ok(class) => match class.call1((tool, pointer, problem)) {
            Ok(error) => PyErr::from_value(error),
            Err(error) => error,
        },
        Err(error) => error,
    }
}
