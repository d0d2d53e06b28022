//! The `ValueReader` class: one JSON value read as its text arrives (a streamed structured output), for
//! `toolwire.stream_object`.
//!
//! The scanner (`toolwire_core::scanner`) gives its verdict on the text so far, the moment the value is whole or
//! broken; the snapshot (`snapshot.rs`) is the value as it stands, complete values as values and the one still
//! arriving a `Pending`. The snapshot reads only the value's own bytes: none after its end or after the byte that
//! broke it. Both are linear in the text, so a snapshot after every delta keeps the stream linear.

use pyo3::prelude::*;
use toolwire_core::scanner::{ScanErrorKind, ScanState, Scanner};

use crate::snapshot::Partial;

/// The scanner's verdict: `(state, end or offset, error kind)`, as `_core.scan` gives it.
type Verdict = (&'static str, Option<u64>, Option<&'static str>);

/// One JSON value read as its text arrives: the verdict on the text so far and the value as it stands.
#[pyclass(module = "toolwire._core")]
pub(crate) struct ValueReader {
    scanner: Scanner,
    partial: Partial,
}

/// The verdict on the value: text after it (the scanner's `TrailingData`) is the caller's to judge, so the value is
/// complete there, with the whitespace before that text.
fn verdict(state: ScanState) -> Verdict {
    match state {
        ScanState::Incomplete => ("incomplete", None, None),
        ScanState::Complete { end } => ("complete", Some(end), None),
        ScanState::Invalid(error) if error.kind == ScanErrorKind::TrailingData => {
            ("complete", Some(error.offset), None)
        }
        ScanState::Invalid(error) => ("invalid", Some(error.offset), Some(error.kind.as_str())),
    }
}

#[pymethods]
impl ValueReader {
    /// A reader of a value nested at most `max_depth` levels.
    #[new]
    #[pyo3(signature = (max_depth = 128))]
    fn new(max_depth: u32) -> Self {
        Self {
            scanner: Scanner::new(max_depth),
            partial: Partial::default(),
        }
    }

    /// Reads the next piece of the text (UTF-8 bytes) and gives the verdict on all of it so far: `"incomplete"`,
    /// `"complete"` with the offset just past the value (or where text after it starts), or `"invalid"` with the
    /// offset of the byte that broke it and why.
    fn feed(&mut self, py: Python<'_>, text: &[u8]) -> PyResult<Verdict> {
        let before = self.scanner.bytes_seen();
        let reading = matches!(self.scanner.state(), ScanState::Incomplete);
        let state = self.scanner.feed(text);
        if reading {
            let stop = match state {
                ScanState::Incomplete => None,
                ScanState::Complete { end } => Some(end),
                ScanState::Invalid(error) => Some(error.offset),
            };
            let own = stop.map_or(text.len(), |stop| {
                usize::try_from(stop.saturating_sub(before)).map_or(text.len(), |own| own.min(text.len()))
            });
            self.partial.feed(py, text.get(..own).unwrap_or(text))?;
        }
        Ok(verdict(state))
    }

    /// Declares the end of the text: a top-level number whole so far completes here; the verdict.
    fn finish(&mut self) -> Verdict {
        verdict(self.scanner.finish())
    }

    /// The value as it stands (None before it started); the live value, updated in place by later pieces.
    fn snapshot(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.partial.snapshot(py)
    }

    /// The keys found twice in one object so far, not taken before: `(JSON pointer of the second, its offset)`.
    fn take_duplicate_keys(&mut self) -> Vec<(String, u64)> {
        self.scanner
            .take_duplicate_keys()
            .into_iter()
            .map(|key| (key.path, key.offset))
            .collect()
    }

    /// The containers of the snapshot still open, outermost first: an item of an array is whole when it is neither a
    /// `Pending` nor one of these.
    fn open_values(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.partial.open_values(py)
    }
}
