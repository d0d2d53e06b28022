//! The scanner on its own, for tests that compare it with the reference and for users who want the verdict.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use toolstream_core::scanner::{ScanState, Scanner, ValueKind};

/// The outcome of scanning: `(state, end_or_offset, error_kind, root_kind, duplicate_keys)`.
type ScanOutcome = (
    &'static str,
    Option<u64>,
    Option<&'static str>,
    Option<&'static str>,
    Vec<(String, u64)>,
);

/// Scan `fragments` in order with the incremental JSON scanner; `finish` marks the end of input.
#[pyfunction]
#[expect(clippy::needless_pass_by_value, reason = "pyo3 extracts arguments into owned values")]
#[pyo3(signature = (fragments, *, max_depth = 128, finish = true))]
pub(crate) fn scan(fragments: Vec<PyBackedBytes>, max_depth: u32, finish: bool) -> ScanOutcome {
    let mut scanner = Scanner::new(max_depth);
    let mut duplicates = Vec::new();
    for fragment in &fragments {
        scanner.feed(fragment);
        duplicates.extend(
            scanner
                .take_duplicate_keys()
                .into_iter()
                .map(|key| (key.path, key.offset)),
        );
    }
    let state = if finish { scanner.finish() } else { scanner.state() };
    let root = scanner.root_kind().map(ValueKind::as_str);
    match state {
        ScanState::Incomplete => ("incomplete", None, None, root, duplicates),
        ScanState::Complete { end } => ("complete", Some(end), None, root, duplicates),
        ScanState::Invalid(error) => (
            "invalid",
            Some(error.offset),
            Some(error.kind.as_str()),
            root,
            duplicates,
        ),
    }
}
