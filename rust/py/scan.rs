//! The scanner and the body framer on their own, for tests that compare them with the reference's (and
//! for users who want the scanner's verdict).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;
use toolwire_core::framing::{self, Event, Framer, FramingError};
use toolwire_core::scanner::{ScanState, Scanner, ValueKind};

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

/// The events of a raw body given as `pieces` (reads, or with `items` a raw source's items): `(event, data)` pairs,
/// for tests that compare the framer with the reference's. A body that does not frame raises `ValueError` with the
/// framing error's message.
#[pyfunction]
#[expect(clippy::needless_pass_by_value, reason = "pyo3 extracts arguments into owned values")]
#[pyo3(signature = (pieces, *, limit = 32 * 1024 * 1024, items = false))]
pub(crate) fn frame(
    py: Python<'_>,
    pieces: Vec<PyBackedBytes>,
    limit: usize,
    items: bool,
) -> PyResult<Vec<(Py<PyBytes>, Py<PyBytes>)>> {
    let mut framer = Framer::new(limit);
    let mut events = Vec::new();
    let mut collect = |event: Event<'_>| -> Result<(), FramingError> {
        events.push((
            PyBytes::new(py, event.kind).unbind(),
            PyBytes::new(py, event.data).unbind(),
        ));
        Ok(())
    };
    let refused = |error: FramingError| PyValueError::new_err(error.to_string());
    for piece in &pieces {
        if items {
            framer.feed_item(piece, &mut collect).map_err(refused)?;
        } else {
            framer.feed(piece, &mut collect).map_err(refused)?;
        }
    }
    framer.finish(&mut collect).map_err(refused)?;
    Ok(events)
}

/// A whole body framed, for the recording writer: `(framing, events, error)` (see `framing::frame_body`).
#[pyfunction]
pub(crate) fn frame_body(
    py: Python<'_>,
    body: &[u8],
    limit: usize,
) -> (Option<&'static str>, Vec<Py<PyBytes>>, Option<String>) {
    let framed = framing::frame_body(body, limit);
    let events = framed
        .events
        .iter()
        .map(|data| PyBytes::new(py, data).unbind())
        .collect();
    (
        framed.framing.map(framing::Framing::as_str),
        events,
        framed.error.map(|error| error.to_string()),
    )
}

/// The framing a raw body's opening tells (`framing::framing_of`), by its name.
#[pyfunction]
pub(crate) fn framing_of(body: &[u8]) -> Option<&'static str> {
    framing::framing_of(body).map(framing::Framing::as_str)
}
