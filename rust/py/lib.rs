//! `toolwire._core`: the thin binding between Python and the `toolwire-core` crate.
//!
//! It converts Python values in (`input`), drives the core (`engine`), converts results out (`output`) and maps
//! errors (`errors`); the algorithms live in the core crate.

mod collector;
mod dialects;
mod engine;
mod errors;
mod events;
mod handover;
mod input;
mod output;
mod replay;
mod scan;
mod snapshot;
mod validators;
mod value_reader;
mod values;

#[pyo3::pymodule(gil_used = false)]
mod _core {
    use pyo3::prelude::*;
    use pyo3::types::PyTuple;
    use toolwire_core::ViolationCode;

    #[pymodule_export]
    use crate::dialects::DialectParser;
    #[pymodule_export]
    use crate::engine::Engine;
    #[pymodule_export]
    use crate::events::{ArgumentsDelta, Finished, TextDelta, ToolCallInvalid, ToolCallReady, ToolCallStarted};
    #[pymodule_export]
    use crate::replay::CallLogReader;
    #[pymodule_export]
    use crate::scan::{frame, frame_body, framing_of, scan};
    #[pymodule_export]
    use crate::validators::{ToolValidators, schema_problems};
    #[pymodule_export]
    use crate::value_reader::ValueReader;
    #[pymodule_export]
    use crate::values::{ChoiceResult, InvalidToolCall, OutputItem, Pending, StreamResult, ToolCall, Violation};

    #[pymodule_init]
    fn init(module: &Bound<'_, PyModule>) -> PyResult<()> {
        module.add("__version__", env!("CARGO_PKG_VERSION"))?;
        module.add(
            "DIALECT_NAMES",
            PyTuple::new(module.py(), crate::dialects::dialect_names())?,
        )
    }

    /// The core's dialect findings: `(code, severity, meaning)` for every code, in order.
    #[pyfunction]
    fn dialect_findings() -> Vec<(&'static str, &'static str, &'static str)> {
        toolwire_core::dialects::FindingCode::ALL
            .iter()
            .map(|code| (code.as_str(), code.severity().as_str(), code.meaning()))
            .collect()
    }

    /// The core's violation table: `(code, level, severity, recoverable)` for every code, in order.
    #[pyfunction]
    fn violation_table() -> Vec<(&'static str, &'static str, &'static str, bool)> {
        ViolationCode::ALL
            .iter()
            .map(|code| {
                (
                    code.as_str(),
                    code.level().as_str(),
                    code.default_severity().as_str(),
                    code.recoverable(),
                )
            })
            .collect()
    }
}
