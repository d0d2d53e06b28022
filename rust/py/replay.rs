//! The `CallLogReader` class: a JSONL call log read and validated by the core in chunks, with the GIL released.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use toolwire_core::replay::{CallCounts, ResultLines, Segment, replay_lines};

use crate::validators::ToolValidators;
use crate::{collector, output};

/// Bytes read from a file at a time, by default: about 5,000 lines of a usual call log.
const DEFAULT_CHUNK: usize = 1 << 20;

/// Reads the lines of a call log (a file it opens, or bytes fed to it) and validates those of the usual shape,
/// chunk by chunk; the bytes held at once are at most the chunk size plus the longest line.
#[pyclass(module = "toolwire._core")]
pub(crate) struct CallLogReader {
    validators: Arc<toolwire_core::ToolValidators>,
    file: Option<File>,
    chunk_size: usize,
    /// Bytes read and not yet judged from `start` on.
    buffer: Vec<u8>,
    start: usize,
    /// The number of the next line to judge (from 1).
    line: u64,
    /// Whether the last bytes are in the buffer.
    ended: bool,
    /// Calls read in the core per `(name, fingerprint)`: counted here and handed over once, since a batch of a log of
    /// many tools holds almost as many keys as calls.
    counts: CallCounts,
    /// Whether a line recording a result is handed back, for the Python reader to check the result.
    results: ResultLines,
}

#[pymethods]
impl CallLogReader {
    /// A reader validating with `validators`; it reads the file at `path` when given, else it is fed bytes. With
    /// `hand_back_results`, a line that records the call's result (`result`) is handed back too.
    #[new]
    #[pyo3(signature = (validators, path = None, chunk_size = DEFAULT_CHUNK, *, hand_back_results = false))]
    fn new(
        validators: &ToolValidators,
        path: Option<PathBuf>,
        chunk_size: usize,
        hand_back_results: bool,
    ) -> PyResult<Self> {
        if chunk_size == 0 {
            return Err(PyValueError::new_err("chunk_size must be at least 1"));
        }
        let file = path.map(File::open).transpose()?;
        Ok(Self {
            validators: validators.core(),
            file,
            chunk_size,
            buffer: Vec::new(),
            start: 0,
            line: 1,
            ended: false,
            counts: CallCounts::default(),
            results: if hand_back_results {
                ResultLines::HandedBack
            } else {
                ResultLines::Read
            },
        })
    }

    /// Adds bytes of the log after those given before (`last` when no more follow); a reader of a file is not fed.
    #[pyo3(signature = (data, last = false))]
    fn feed(&mut self, data: &[u8], last: bool) -> PyResult<()> {
        if self.file.is_some() || self.ended {
            return Err(PyValueError::new_err(
                "this reader reads a file, or was given its last bytes",
            ));
        }
        self.compact();
        self.buffer.extend_from_slice(data);
        self.ended = last;
        Ok(())
    }

    /// Judges the next lines (at most `max_lines`, at least one when any is whole), reading the file as needed, and
    /// gives a list of segments: `(calls, new_keys, flagged)` for a run of lines read in the core (`new_keys`: the
    /// `(name, fingerprint)` pairs first seen in it, in order, their calls counted by `counts`; flagged: `(line, name,
    /// arguments, id, violations)` for each call with any violation) and `(line, bytes)` for a line the Python reader
    /// reads. None when no line is whole: the end of the log, or (fed) more bytes are needed.
    fn read<'py>(&mut self, py: Python<'py>, max_lines: usize) -> PyResult<Option<Bound<'py, PyList>>> {
        let max_lines = max_lines.max(1);
        let judged = py.detach(|| self.judge_next(max_lines))?;
        let Some((segments, end, lines)) = judged else {
            return Ok(None);
        };
        let built = self.built(py, segments)?;
        self.start = end;
        self.line += lines;
        if self.ended && self.start == self.buffer.len() {
            self.buffer = Vec::new();
            self.start = 0;
        }
        Ok(Some(built))
    }

    /// The calls read in the core so far per `(name, fingerprint, count)`, in first-seen order.
    fn counts(&self) -> Vec<(&str, Option<&str>, u64)> {
        self.counts.iter().collect()
    }
}

impl CallLogReader {
    /// Drops the bytes already judged.
    fn compact(&mut self) {
        self.buffer.drain(..self.start);
        self.start = 0;
    }

    /// The segments of the next lines, where they end in the buffer and how many lines they are; None when no line
    /// is whole.
    fn judge_next(&mut self, max_lines: usize) -> std::io::Result<Option<(Vec<Segment>, usize, u64)>> {
        while !self.ended && memchr::memchr(b'\n', self.buffer.get(self.start..).unwrap_or_default()).is_none() {
            self.compact();
            let Some(file) = self.file.as_mut() else {
                return Ok(None);
            };
            let before = self.buffer.len();
            file.by_ref()
                .take(u64::try_from(self.chunk_size).unwrap_or(u64::MAX))
                .read_to_end(&mut self.buffer)?;
            if self.buffer.len() == before {
                self.ended = true;
                self.file = None;
            }
        }
        let rest = self.buffer.get(self.start..).unwrap_or_default();
        if rest.is_empty() {
            return Ok(None);
        }
        let mut ends = memchr::memchr_iter(b'\n', rest).take(max_lines);
        let mut taken = 0;
        let mut end = None;
        for at in ends.by_ref() {
            taken += 1;
            end = Some(at + 1);
        }
        let (end, lines) = match end {
            Some(end) if taken == max_lines || !self.ended || end == rest.len() => (end, taken),
            // The last line, without a line end.
            _ => (rest.len(), taken + 1),
        };
        let chunk = rest.get(..end).unwrap_or_default();
        let segments = replay_lines(&self.validators, chunk, self.line, &mut self.counts, self.results);
        Ok(Some((segments, self.start + end, lines as u64)))
    }

    fn built<'py>(&self, py: Python<'py>, segments: Vec<Segment>) -> PyResult<Bound<'py, PyList>> {
        let _paused = collector::pause(py)?;
        let list = PyList::empty(py);
        for segment in segments {
            match segment {
                Segment::Calls {
                    calls,
                    new_keys,
                    flagged,
                } => {
                    let keys = PyList::new(py, new_keys.filter_map(|at| self.counts.key(at)))?;
                    let found = PyList::empty(py);
                    for call in &flagged {
                        let violations = PyList::empty(py);
                        for violation in &call.violations {
                            violations.append(output::violation(py, violation, &[])?)?;
                        }
                        found.append((call.line, &call.name, &call.arguments, &call.id, violations))?;
                    }
                    list.append(PyTuple::new(
                        py,
                        [calls.into_pyobject(py)?.into_any(), keys.into_any(), found.into_any()],
                    )?)?;
                }
                Segment::Other { line, span } => {
                    let at = (self.start + span.start)..(self.start + span.end);
                    let bytes = PyBytes::new(py, self.buffer.get(at).unwrap_or_default());
                    list.append((line, bytes))?;
                }
            }
        }
        Ok(list)
    }
}
