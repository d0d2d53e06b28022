//! The `Engine` class: one stream's accumulator, fed chunk by chunk or pulling from an iterator in Rust.
//!
//! `toolwire/_pipeline/_api.py` drives it (the same interface as the reference engine); `pull` keeps the whole chunk
//! loop in Rust, so Python code runs once per call handed over, not once per chunk.

use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyIterator, PyList, PyString, PyTuple, PyType};
use rustc_hash::FxHashMap;
use toolwire_core::accumulator::TextDialect;
use toolwire_core::decode::openai_completions;
use toolwire_core::dialects::Dialect;
use toolwire_core::framing::{Event, Framer, FramingError};
use toolwire_core::{
    Accumulator, ChunkError, Config, Decoder, Emit, EventExtras, Format, Limits, Severity, Step, ToolChoice,
};

use crate::errors::{is_malformed_chunk, malformed_chunk};
use crate::handover::HandOver;
use crate::input::{KindCache, canonical_text, read_chunk};
use crate::snapshot::Partial;
use crate::validators::ToolValidators;
use crate::{output, values};

/// Reassembles one stream (the engine behind `toolwire.reassemble`).
#[pyclass(module = "toolwire._core")]
pub(crate) struct Engine {
    accumulator: Accumulator,
    decoder: Decoder,
    chunks_read: u64,
    payloads: Vec<Py<PyAny>>,
    usage: Usage,
    calls: HandOver,
    on_violation: Option<Py<PyAny>>,
    kinds: KindCache,
    validators: Option<Py<ToolValidators>>,
    // A raw body: its framer, made on the first bytes, and its limit.
    framer: Option<Framer>,
    max_event_bytes: usize,
    // A read's malformed event, held back while the calls its earlier events made ready are handed over: raised by
    // the next call, as a chunk source raises at the chunk after handing over the calls before it.
    deferred: Option<PyErr>,
    // The read's malformed event came when no earlier event had made calls ready: it is raised at once, as a malformed
    // chunk is (the calls it made ready itself wait for the next step, as that chunk's do).
    raise_at_once: bool,
    // `end` has begun (no more input), and its decoder step is done: a second `end` after an exception resumes it.
    ending: bool,
    decoder_ended: bool,
    // With `progress`: the steps so far as Python tuples, and each call's partial arguments.
    progress: Option<Vec<Py<PyAny>>>,
    partials: FxHashMap<usize, Partial>,
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (
        *, tool_choice, emit, limits, on_violation = None, validators = None, format = None, progress = false,
        dialect = None,
    ))]
    #[expect(
        clippy::too_many_arguments,
        reason = "the keywords of the engine factory every implementation takes"
    )]
    fn new(
        tool_choice: &Bound<'_, PyAny>,
        emit: &str,
        limits: &Bound<'_, PyAny>,
        on_violation: Option<Py<PyAny>>,
        validators: Option<Py<ToolValidators>>,
        format: Option<&str>,
        progress: bool,
        dialect: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let format = format
            .map(|name| {
                Format::from_name(name).ok_or_else(|| PyValueError::new_err(format!("unknown wire format {name:?}")))
            })
            .transpose()?;
        let emit = match emit {
            "complete" => Emit::Complete,
            "call_end" => Emit::CallEnd,
            "stream_end" => Emit::StreamEnd,
            other => return Err(PyValueError::new_err(format!("unknown emission policy {other:?}"))),
        };
        // Interned names: a `&str` would make a new Python string per attribute and per stream.
        let py = limits.py();
        let max_event_bytes = limits.getattr(intern!(py, "max_event_bytes"))?.extract()?;
        let limits = Limits {
            max_argument_bytes: limits.getattr(intern!(py, "max_argument_bytes"))?.extract()?,
            max_depth: limits.getattr(intern!(py, "max_depth"))?.extract()?,
            max_calls: limits.getattr(intern!(py, "max_calls"))?.extract()?,
            max_violations: limits.getattr(intern!(py, "max_violations"))?.extract()?,
            max_text_bytes: limits.getattr(intern!(py, "max_text_bytes"))?.extract()?,
            max_choices: limits.getattr(intern!(py, "max_choices"))?.extract()?,
            max_output_bytes: limits.getattr(intern!(py, "max_output_bytes"))?.extract()?,
        };
        let tool_choice = ToolChoice {
            required: tool_choice.getattr(intern!(py, "required"))?.extract()?,
            name: tool_choice.getattr(intern!(py, "name"))?.extract()?,
        };
        let text_calls = dialect
            .map(|dialect| text_dialect(dialect, validators.as_ref()))
            .transpose()?;
        let config = Config {
            emit,
            limits,
            tool_choice,
            log_violations: on_violation.is_some(),
            validators: validators.as_ref().map(|validators| validators.get().core()),
            log_steps: progress,
            text_calls,
        };
        Ok(Self {
            accumulator: Accumulator::new(config),
            decoder: Decoder::new(format),
            chunks_read: 0,
            payloads: Vec::new(),
            usage: Usage::None,
            calls: HandOver::new(limits.max_violations),
            on_violation,
            kinds: KindCache::default(),
            validators,
            framer: None,
            max_event_bytes,
            deferred: None,
            raise_at_once: false,
            ending: false,
            decoder_ended: false,
            progress: progress.then(Vec::new),
            partials: FxHashMap::default(),
        })
    }

    /// A `str` chunk is a delta of the model's text (`dialect=` without `format=`), not a raw body's.
    #[getter]
    fn text_deltas(&self) -> bool {
        self.accumulator.reads_dialect() && !self.decoder.is_named()
    }

    /// Read one chunk; return the calls it made ready (and any an exception kept an earlier step from returning).
    fn feed<'py>(&mut self, chunk: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.read(chunk)?;
        self.deliver(chunk.py())
    }

    /// Read chunks until at least one call is ready; None once `chunks` is exhausted.
    fn pull<'py>(&mut self, chunks: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyList>>> {
        let chunks = chunks
            .cast::<PyIterator>()
            .map_err(|_| PyTypeError::new_err("pull() needs an iterator of chunks"))?;
        for chunk in chunks.clone() {
            self.read(&chunk?)?;
            if self.calls.pending(&self.accumulator) {
                return self.deliver(chunks.py()).map(Some);
            }
        }
        Ok(None)
    }

    /// Read a raw body's next bytes (any split); return the calls they made ready.
    fn feed_bytes<'py>(&mut self, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        self.raise_deferred()?;
        self.refuse_after_end("bytes")?;
        self.read_bytes_deferring(data, Joined::Read)?;
        self.deliver(data.py())
    }

    /// Read one item of a raw source (bytes or text: a read or a line, as the stream tells); return the calls it made
    /// ready, or None when it made none (a live stream's read usually: no list is built for it). An events engine
    /// always returns a list, since every read may have progress to log.
    fn feed_item<'py>(&mut self, item: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyList>>> {
        self.raise_deferred()?;
        self.refuse_after_end("bytes")?;
        self.read_bytes_deferring(item, Joined::Item)?;
        if self.progress.is_none() && !self.calls.pending(&self.accumulator) {
            return Ok(None);
        }
        self.deliver(item.py()).map(Some)
    }

    /// `pull` over the items of a raw source (bytes or text: reads or lines, as the stream tells).
    fn pull_items<'py>(&mut self, items: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyList>>> {
        let items = items
            .cast::<PyIterator>()
            .map_err(|_| PyTypeError::new_err("pull_items() needs an iterator of bytes or str"))?;
        self.raise_deferred()?;
        self.refuse_after_end("bytes")?;
        for item in items.clone() {
            self.read_bytes_deferring(&item?, Joined::Item)?;
            if self.calls.pending(&self.accumulator) {
                return self.deliver(items.py()).map(Some);
            }
        }
        Ok(None)
    }

    /// End the stream; return the calls only the end made ready. After an exception, calling it again finishes
    /// what is left of the end and returns the calls no step returned yet.
    fn end<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.raise_deferred()?;
        self.ending = true;
        if let Some(mut framer) = self.framer.take() {
            let outcome = framer.finish(&mut |event: Event<'_>| self.read_event(py, event));
            if matches!(outcome, Err(BytesError::Framing(_))) {
                // Kept: a body that failed to frame fails again at a second end, never ends clean.
                self.framer = Some(framer);
            }
            outcome.map_err(|error| self.bytes_error(py, error))?;
        }
        if !self.decoder_ended {
            self.decoder_ended = true;
            let mut canonical = |raw: &[u8]| canonical_text(py, raw);
            let ended = self.decoder.end(&mut self.accumulator, &mut canonical);
            // What the decoder's end found is told before the accumulator's end finds more: a callback that raises
            // on the first leaves the rest to the next `end`, which tells it then, as the reference does.
            self.notify(py)?;
            if let Err(ChunkError { path, problem }) = ended {
                return Err(malformed_chunk(py, self.chunks_read, &path, &problem));
            }
        }
        self.accumulator.end();
        self.notify(py)?;
        self.calls.ended(py);
        self.deliver(py)
    }

    /// Replace the handed-over call with the same `(choice, seq)` by `call` (a repaired one).
    fn amend(&mut self, call: &Bound<'_, PyAny>) -> PyResult<()> {
        self.calls.amend(call)
    }

    /// The stream's progress since the last take, in order: `("text", choice, text)`, `("started", seq, choice,
    /// index, id, name)`, `("arguments", seq, choice, fragment)`, `("ready", call)`. Empty without `progress`.
    fn take_progress(&mut self) -> Vec<Py<PyAny>> {
        self.progress.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The arguments of call `seq` as they stand (see `toolwire.Pending`); None before any arrived or without
    /// `progress`.
    fn snapshot(&mut self, py: Python<'_>, seq: usize) -> PyResult<Option<Py<PyAny>>> {
        match self.partials.get_mut(&seq) {
            Some(partial) => partial.snapshot(py),
            None => Ok(None),
        }
    }

    /// Whether the stream made a finding of error severity of its own (not on a call): what `on_invalid="raise"`
    /// raises `StreamContractError` for at the end, known without building the result.
    fn has_stream_errors(&self) -> bool {
        self.accumulator
            .stream_violations()
            .iter()
            .any(|violation| violation.severity == Severity::Error)
    }

    /// The `StreamResult` so far: every call the core handed over is in it, whatever exception came in between.
    fn result<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.collect(py)?;
        let (calls, invalid) = self.calls.calls(py, &self.payloads)?;
        let choices = self
            .accumulator
            .choices()
            .iter()
            .map(|choice| {
                let finish = choice
                    .finish_reason
                    .as_deref()
                    .map(|reason| output::text(py, reason))
                    .transpose()?;
                let refusal = (!choice.refusal.is_empty())
                    .then(|| output::text(py, &choice.refusal))
                    .transpose()?;
                let made = values::ChoiceResult {
                    choice: choice.choice.into_py_any(py)?,
                    text: output::text(py, &choice.text)?.into_any().unbind(),
                    finish_reason: finish.into_py_any(py)?,
                    refusal: refusal.into_py_any(py)?,
                };
                Bound::new(py, made)
            })
            .collect::<PyResult<Vec<_>>>()?;
        let usage = match &self.usage {
            Usage::None => None,
            Usage::Sent(usage) => Some(usage.bind(py).clone()),
            Usage::Held => self
                .decoder
                .usage()
                .map(|usage| output::json_bytes(py, &usage))
                .transpose()?,
        };
        // The result's finish reason, text and refusal are those of the lowest choice: reuse its strings, built once.
        let (finish_reason, text, refusal) = match choices.first() {
            Some(first) => {
                let first = first.get();
                (
                    first.finish_reason.clone_ref(py),
                    first.text.clone_ref(py),
                    first.refusal.clone_ref(py),
                )
            }
            None => (py.None(), PyString::new(py, "").into_any().unbind(), py.None()),
        };
        let violations = self
            .accumulator
            .stream_violations()
            .iter()
            .map(|violation| output::violation(py, violation, &self.payloads))
            .collect::<PyResult<Vec<_>>>()?;
        let mut items = self.decoder.output();
        let reasoning = self.accumulator.reasoning_output();
        if !reasoning.is_empty() {
            // Placed by the calls opened before each, after the decoder's items placed alike (a stable sort).
            items.extend(reasoning);
            items.sort_by_key(|item| item.after_calls);
        }
        let output = items
            .iter()
            .map(|item| {
                let made = values::OutputItem {
                    after_calls: item.after_calls.into_py_any(py)?,
                    value: output::json_bytes(py, &item.json)?.unbind(),
                };
                Bound::new(py, made)
            })
            .collect::<PyResult<Vec<_>>>()?;
        let made = values::StreamResult {
            calls: PyTuple::new(py, calls)?.into_any().unbind(),
            invalid_calls: PyTuple::new(py, invalid)?.into_any().unbind(),
            finish_reason,
            usage: usage.into_py_any(py)?,
            text,
            violations: PyTuple::new(py, violations)?.into_any().unbind(),
            choices: PyTuple::new(py, choices)?.into_any().unbind(),
            output: PyTuple::new(py, output)?.into_any().unbind(),
            format: self.decoder.format().map(Format::name).into_py_any(py)?,
            refusal,
        };
        Ok(Bound::new(py, made)?.into_any())
    }
}

impl Engine {
    fn read(&mut self, chunk: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = chunk.py();
        self.refuse_after_end("chunks")?;
        let number = self.chunks_read;
        self.chunks_read += 1;
        if self.text_deltas()
            && let Ok(delta) = chunk.cast::<PyString>()
        {
            return self.text_delta(delta, number);
        }
        if self.decoder.format() != Some(Format::OpenAiChat) {
            if self.decoder.format().is_none() && chat_decides(chunk)? {
                self.decoder.assume(Format::OpenAiChat);
            } else {
                return self.read_object_event(chunk, number);
            }
        }
        let extras = match read_chunk(&mut self.accumulator, &mut self.kinds, chunk, number) {
            Ok(extras) => extras,
            Err(malformed) => {
                // What the chunk did before its malformed field still happened: report it, as the reference does.
                self.notify(py)?;
                return Err(malformed);
            }
        };
        let recognised = self.decoder.recognised() || extras.error.is_some() || chat_recognised(chunk)?;
        self.decoder.counted(recognised);
        if let Some(error) = extras.error {
            self.provider_error(error);
        }
        if let Some(usage) = extras.usage {
            self.usage = Usage::Sent(usage.unbind());
        }
        if self.on_violation.is_some() {
            self.notify(py)?;
        }
        Ok(())
    }

    /// A delta of the model's text: a source of text deltas is that and nothing else, from its first chunk on.
    fn text_delta(&mut self, delta: &Bound<'_, PyString>, number: u64) -> PyResult<()> {
        let py = delta.py();
        if number == 0 {
            self.accumulator.text_source();
        } else if !self.accumulator.is_text_source() {
            let problem = "a text delta (str) in a stream of chunks: a source is one or the other";
            return Err(malformed_chunk(py, number, "", problem));
        }
        // A lone surrogate reads as U+FFFD per byte of its `surrogatepass` form, as the reference reads it.
        self.accumulator.generated_str(0, &delta.to_string_lossy());
        self.decoder.counted(true);
        if self.on_violation.is_some() {
            self.notify(py)?;
        }
        Ok(())
    }

    /// An error event: its payload is kept while its `PROVIDER_ERROR` is (past `Limits.max_violations` it is only
    /// counted, and so a stream of error events holds a bounded number of payloads).
    fn provider_error(&mut self, payload: Bound<'_, PyAny>) {
        let brief = brief(&payload);
        self.payloads.push(payload.unbind());
        if !self.accumulator.provider_error(self.payloads.len() - 1, &brief) {
            self.payloads.pop();
        }
    }

    fn raise_deferred(&mut self) -> PyResult<()> {
        self.deferred.take().map_or(Ok(()), Err)
    }

    fn refuse_after_end(&self, what: &str) -> PyResult<()> {
        if self.ending {
            return Err(stream_ended(what));
        }
        Ok(())
    }

    /// `read_bytes`, holding a malformed event's error back when earlier events of the read made calls ready. Any
    /// other exception (from a callback, a signal) propagates at once; the calls stay for the next step.
    fn read_bytes_deferring(&mut self, data: &Bound<'_, PyAny>, joined: Joined) -> PyResult<()> {
        self.raise_at_once = false;
        match self.read_bytes(data, joined) {
            Err(error)
                if !self.raise_at_once
                    && self.calls.pending(&self.accumulator)
                    && is_malformed_chunk(data.py(), &error) =>
            {
                self.deferred = Some(error);
                Ok(())
            }
            outcome => outcome,
        }
    }

    fn read_bytes(&mut self, data: &Bound<'_, PyAny>, joined: Joined) -> PyResult<()> {
        let py = data.py();
        if self.accumulator.is_ended() {
            return Err(PyValueError::new_err("the stream has ended; no more bytes can be fed"));
        }
        let text;
        let bytes;
        let read: &[u8] = match data.cast::<PyString>() {
            Ok(string) if joined == Joined::Item => {
                text = string.to_str().map_err(|error| {
                    PyTypeError::new_err(format!(
                        "raw stream text holds a character UTF-8 cannot carry: {}",
                        error.value(py)
                    ))
                })?;
                text.as_bytes()
            }
            _ => {
                bytes = data.extract::<PyBackedBytes>().map_err(|_| not_bytes(data, joined))?;
                &bytes
            }
        };
        let mut framer = self.framer.take().unwrap_or_else(|| Framer::new(self.max_event_bytes));
        let mut read_event = |event: Event<'_>| self.read_event(py, event);
        let outcome = match joined {
            Joined::Read => framer.feed(read, &mut read_event),
            Joined::Item => framer.feed_item(read, &mut read_event),
        };
        self.framer = Some(framer);
        outcome.map_err(|error| self.bytes_error(py, error))
    }

    /// One event's data: a chunk's JSON, or nothing (`[DONE]`, a keep-alive with empty data).
    fn read_event(&mut self, py: Python<'_>, event: Event<'_>) -> Result<(), BytesError> {
        let data = event.data.trim_ascii();
        if data.is_empty() || data == b"[DONE]" {
            return Ok(());
        }
        let number = self.chunks_read;
        self.chunks_read += 1;
        let name = (event.kind != b"message").then_some(event.kind);
        self.decode(py, number, name, data)
    }

    /// A Python object of a format other than Chat Completions: read as the JSON it serializes to.
    fn read_object_event(&mut self, chunk: &Bound<'_, PyAny>, number: u64) -> PyResult<()> {
        static EVENT_JSON: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let py = chunk.py();
        let event_json = EVENT_JSON.import(py, "toolwire.formats._event_json", "event_json")?;
        let data = match event_json.call1((chunk,)) {
            Ok(data) => data,
            Err(error) if error.is_instance_of::<PyTypeError>(py) => {
                return Err(malformed_chunk(py, number, "", &error.value(py).to_string()));
            }
            Err(error) => return Err(error),
        };
        let data = data.cast_into::<PyBytes>()?;
        self.decode(py, number, None, data.as_bytes())
            .map_err(|error| match error {
                BytesError::Python(error) => error,
                BytesError::Framing(error) => malformed_chunk(py, number, "", &error.to_string()),
            })
    }

    /// One event's JSON through the decoder; its error payload and usage kept as Python values.
    fn decode(&mut self, py: Python<'_>, number: u64, name: Option<&[u8]>, data: &[u8]) -> Result<(), BytesError> {
        let ready_before = self.calls.pending(&self.accumulator);
        let mut canonical = |raw: &[u8]| canonical_text(py, raw);
        let read = self.decoder.read(&mut self.accumulator, name, data, &mut canonical);
        let extras = match read {
            Ok(extras) => extras,
            Err(ChunkError { path, problem }) => {
                self.raise_at_once = !ready_before;
                self.notify(py)?;
                return Err(BytesError::Python(malformed_chunk(py, number, &path, &problem)));
            }
        };
        let EventExtras {
            error,
            usage,
            finish,
            usage_held,
        } = extras;
        if let Some(error) = error {
            self.provider_error(output::json_bytes(py, &error)?);
        }
        if let Some((reason, kind)) = finish {
            self.accumulator.finish(0, &reason, kind);
        }
        if let Some(usage) = usage {
            self.usage = Usage::Sent(output::json_bytes(py, &usage)?.unbind());
        } else if usage_held {
            self.usage = Usage::Held;
        }
        if self.on_violation.is_some() {
            self.notify(py)?;
        }
        Ok(())
    }

    #[cold]
    fn bytes_error(&self, py: Python<'_>, error: BytesError) -> PyErr {
        match error {
            BytesError::Python(error) => error,
            BytesError::Framing(error) => malformed_chunk(py, self.chunks_read, "", &error.to_string()),
        }
    }

    /// Hand every violation found since the last call to `on_violation`, in the order found. The calls handed over
    /// are recorded in the result first, so that an exception from the callback loses none.
    fn notify(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(callback) = &self.on_violation else {
            return Ok(());
        };
        let validators = self.validators.as_ref();
        self.calls
            .collect(py, &mut self.accumulator, validators, &self.payloads, true)?;
        self.calls.notify(py, &mut self.accumulator, callback, &self.payloads)
    }

    /// Records the calls handed over in the result.
    fn collect(&mut self, py: Python<'_>) -> PyResult<()> {
        let log = self.on_violation.is_some();
        let validators = self.validators.as_ref();
        self.calls
            .collect(py, &mut self.accumulator, validators, &self.payloads, log)
    }

    /// The calls handed over that no step returned yet, in hand-over order: the step's return value.
    fn deliver<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.collect(py)?;
        let list = PyList::new(py, self.calls.ready())?;
        if self.progress.is_some() {
            self.record_progress(py, &list)?;
        }
        self.calls.returned();
        Ok(list)
    }

    /// The steps the core logged, as Python tuples; a call's argument bytes also go to its partial value.
    fn record_progress(&mut self, py: Python<'_>, ready: &Bound<'_, PyList>) -> PyResult<()> {
        let mut handed = ready.iter();
        let mut recorded = Vec::new();
        for step in self.accumulator.take_steps() {
            let entry = match step {
                Step::Text { choice, text } => ("text", choice, output::text(py, &text)?).into_pyobject(py)?.into_any(),
                Step::Opened { seq } => {
                    let Some(identity) = self.accumulator.identity(seq) else {
                        continue;
                    };
                    let id = identity.id.map(|id| output::text(py, id)).transpose()?;
                    let name = identity.name.map(|name| output::text(py, name)).transpose()?;
                    ("started", seq, identity.choice, identity.index, id, name)
                        .into_pyobject(py)?
                        .into_any()
                }
                Step::Arguments { seq, bytes } => {
                    self.partials.entry(seq).or_default().feed(py, &bytes)?;
                    let choice = self.accumulator.identity(seq).map_or(0, |identity| identity.choice);
                    let fragment = String::from_utf8_lossy(&bytes);
                    ("arguments", seq, choice, fragment).into_pyobject(py)?.into_any()
                }
                Step::HandedOver { .. } => {
                    let Some(call) = handed.next() else { continue };
                    ("ready", call).into_pyobject(py)?.into_any()
                }
            };
            recorded.push(entry.unbind());
        }
        if let Some(progress) = self.progress.as_mut() {
            progress.extend(recorded);
        }
        Ok(())
    }
}

/// The stream's usage, as the result gives it.
enum Usage {
    /// None came.
    None,
    /// The last one sent.
    Sent(Py<PyAny>),
    /// The one the decoder assembles from several events (`Decoder::usage`), built when the result is.
    Held,
}

/// Why reading raw bytes stopped: the body's framing, or a Python error from a chunk or a callback.
enum BytesError {
    Framing(FramingError),
    Python(PyErr),
}

impl From<FramingError> for BytesError {
    fn from(error: FramingError) -> Self {
        Self::Framing(error)
    }
}

impl From<PyErr> for BytesError {
    fn from(error: PyErr) -> Self {
        Self::Python(error)
    }
}

/// How raw bytes given to the engine join the body: a read (`feed_bytes`), or an item of a raw source.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Joined {
    Read,
    Item,
}

#[cold]
fn not_bytes(data: &Bound<'_, PyAny>, joined: Joined) -> PyErr {
    let got = data
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |name| name.to_string());
    PyTypeError::new_err(match joined {
        Joined::Read => format!("raw stream chunks must be bytes, bytearray or memoryview; got {got}"),
        Joined::Item => {
            format!("raw stream chunks must be bytes, bytearray, memoryview or str (as the first was); got {got}")
        }
    })
}

/// Whether a Chat Completions chunk object is one of the format's own: `choices` non-null, or an `object` naming a
/// `chat.completion` (an error chunk counts through its `error`).
fn chat_recognised(chunk: &Bound<'_, PyAny>) -> PyResult<bool> {
    if chat_like(chunk)? {
        return Ok(true);
    }
    let kind = member(chunk, intern!(chunk.py(), "object"))?;
    Ok(kind.is_some_and(|kind| string_is(&kind, |text| text.starts_with("chat.completion"))))
}

/// Whether a Python chunk is a Chat Completions chunk: non-null `choices` (null is absent, as the detection of the same
/// chunk's bytes has it), unless it is a legacy completions chunk, whose hint the table asks first.
fn chat_like(chunk: &Bound<'_, PyAny>) -> PyResult<bool> {
    match member(chunk, intern!(chunk.py(), "choices"))? {
        Some(choices) => Ok(!completions_like(chunk, &choices)?),
        None => Ok(false),
    }
}

/// Whether a Python chunk, before the format is known, makes the stream Chat Completions: a chat chunk ([`chat_like`])
/// that decides between chat and completions. One of empty `choices` and no `object` naming chat decides nothing (the
/// core's `openai_completions::undecided`): it is read as the JSON it serializes to, which the core holds undecided.
fn chat_decides(chunk: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = chunk.py();
    let Some(choices) = member(chunk, intern!(py, "choices"))? else {
        return Ok(false);
    };
    if completions_like(chunk, &choices)? {
        return Ok(false);
    }
    let empty = match choices.cast::<PyList>() {
        Ok(list) => list.is_empty(),
        Err(_) => choices.cast::<PyTuple>().is_ok_and(PyTupleMethods::is_empty),
    };
    if !empty {
        return Ok(true);
    }
    let kind = member(chunk, intern!(py, "object"))?;
    Ok(kind.is_some_and(|kind| string_is(&kind, |text| text.starts_with("chat.completion"))))
}

/// Whether a Python chunk with `choices` is a legacy completions chunk (the openai SDK's `Completion`, or its dict):
/// the completions format's hint read by key or attribute, a `text_completion` object or a first choice with `text`
/// and no `delta`.
fn completions_like(chunk: &Bound<'_, PyAny>, choices: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = chunk.py();
    let kind = member(chunk, intern!(py, "object"))?;
    if kind.is_some_and(|kind| string_is(&kind, |text| text.as_bytes() == openai_completions::OBJECT)) {
        return Ok(true);
    }
    let first = if let Ok(list) = choices.cast::<PyList>() {
        list.get_item(0).ok()
    } else if let Ok(tuple) = choices.cast::<PyTuple>() {
        tuple.get_item(0).ok()
    } else {
        None
    };
    let Some(first) = first else { return Ok(false) };
    Ok(member(&first, intern!(py, "text"))?.is_some() && member(&first, intern!(py, "delta"))?.is_none())
}

/// A non-null member of a Python chunk: a mapping's by key, any other object's by attribute (a string, bytes or a
/// sequence has none).
fn member<'py>(chunk: &Bound<'py, PyAny>, name: &Bound<'py, PyString>) -> PyResult<Option<Bound<'py, PyAny>>> {
    static MAPPING: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let py = chunk.py();
    let value = if let Ok(dict) = chunk.cast::<PyDict>() {
        dict.get_item(name)?
    } else if chunk.is_instance(MAPPING.import(py, "collections.abc", "Mapping")?)? {
        Some(chunk.call_method1(intern!(py, "get"), (name,))?)
    } else if chunk.is_instance_of::<PyString>()
        || chunk.is_instance_of::<PyBytes>()
        || chunk.is_instance_of::<PyList>()
        || chunk.is_instance_of::<PyTuple>()
    {
        None
    } else {
        chunk.getattr_opt(name)?
    };
    Ok(value.filter(|value| !value.is_none()))
}

/// Whether a Python value is a string that passes `test`.
fn string_is(value: &Bound<'_, PyAny>, test: impl FnOnce(&str) -> bool) -> bool {
    value.cast::<PyString>().is_ok_and(|text| text.to_str().is_ok_and(test))
}

#[cold]
fn stream_ended(what: &str) -> PyErr {
    PyValueError::new_err(format!("the stream has ended; no more {what} can be fed"))
}

/// A short text of an error payload for the violation message (the payload itself is kept whole).
#[cold]
fn brief(payload: &Bound<'_, PyAny>) -> String {
    let text = payload
        .repr()
        .map_or_else(|_| "<unprintable payload>".to_owned(), |repr| repr.to_string());
    if text.chars().count() <= 300 {
        text
    } else {
        text.chars().take(297).chain("...".chars()).collect()
    }
}

/// `dialect=` (a `toolwire.TextDialect`) as the core's setting, its raw values typed by the declared tools' schemas.
fn text_dialect(dialect: &Bound<'_, PyAny>, validators: Option<&Py<ToolValidators>>) -> PyResult<TextDialect> {
    let name: String = dialect.getattr(intern!(dialect.py(), "name"))?.extract()?;
    let Some(found) = Dialect::from_name(&name) else {
        let names: Vec<&str> = Dialect::ALL.iter().map(|known| known.name()).collect();
        return Err(PyValueError::new_err(format!(
            "unknown dialect '{name}'; the dialects are {}",
            names.join(", ")
        )));
    };
    Ok(TextDialect {
        dialect: found,
        reasoning: dialect.getattr(intern!(dialect.py(), "reasoning"))?.extract()?,
        tools: validators.map(|validators| validators.get().core().parameters()),
    })
}
