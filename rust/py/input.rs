//! Python → core: reads an `OpenAI` Chat Completions chunk (a dict, or an SDK object with the same attributes)
//! straight into the accumulator, without building intermediate Python or Rust values.
//!
//! Reading order and type rules are those of `docs/semantics.md` ("Reading a chunk"), the same as
//! `python/toolstream/reference/_openai_chat.py`.

use pyo3::exceptions::{PyAttributeError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolstream_core::{Accumulator, Fragment};

use crate::errors::malformed_chunk;

/// What a chunk hands to the engine besides accumulator calls.
pub(crate) struct Extras<'py> {
    /// A provider error payload, when the chunk was an error event.
    pub(crate) error: Option<Bound<'py, PyAny>>,
    /// The chunk's non-null usage.
    pub(crate) usage: Option<Bound<'py, PyAny>>,
}

/// Feed one chunk to the accumulator. `number` is the chunk's position, for error messages.
pub(crate) fn read_chunk<'py>(
    accumulator: &mut Accumulator,
    chunk: &Bound<'py, PyAny>,
    number: u64,
) -> PyResult<Extras<'py>> {
    let py = chunk.py();
    let reader = Reader { number };
    reader.record(chunk, "")?;
    if let Some(error) = get(chunk, intern!(py, "error"))? {
        return Ok(Extras {
            error: Some(error),
            usage: None,
        });
    }
    if let Some(choices) = get(chunk, intern!(py, "choices"))? {
        let choices = reader.sequence(&choices, "choices")?;
        for (position, choice) in choices.iter().enumerate() {
            reader.read_choice(accumulator, &choice, position)?;
        }
    }
    Ok(Extras {
        error: None,
        usage: get(chunk, intern!(py, "usage"))?,
    })
}

/// A list or tuple, iterated without copying.
enum Sequence<'a, 'py> {
    List(&'a Bound<'py, PyList>),
    Tuple(&'a Bound<'py, PyTuple>),
}

impl<'py> Sequence<'_, 'py> {
    fn iter(&self) -> Box<dyn Iterator<Item = Bound<'py, PyAny>> + '_> {
        match self {
            Self::List(list) => Box::new(list.iter()),
            Self::Tuple(tuple) => Box::new(tuple.iter()),
        }
    }
}

/// Field access on dicts and on objects with the same attributes; a null value is an absent one.
fn get<'py>(container: &Bound<'py, PyAny>, key: &Bound<'py, PyString>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if let Ok(dict) = container.cast::<PyDict>() {
        return Ok(dict.get_item(key)?.filter(|value| !value.is_none()));
    }
    match container.getattr(key) {
        Ok(value) => Ok((!value.is_none()).then_some(value)),
        Err(error) if error.is_instance_of::<PyAttributeError>(container.py()) => Ok(None),
        Err(error) => Err(error),
    }
}

struct Reader {
    number: u64,
}

impl Reader {
    #[cold]
    fn fail(&self, py: Python<'_>, path: &str, problem: &str) -> PyErr {
        malformed_chunk(py, self.number, path, problem)
    }

    #[cold]
    fn fail_type(&self, value: &Bound<'_, PyAny>, path: &str, expected: &str) -> PyErr {
        let got = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |name| name.to_string());
        self.fail(value.py(), path, &format!("expected {expected}, got {got}"))
    }

    fn record(&self, value: &Bound<'_, PyAny>, path: &str) -> PyResult<()> {
        if value.is_instance_of::<PyDict>() {
            return Ok(());
        }
        if value.is_none()
            || value.is_instance_of::<PyString>()
            || value.is_instance_of::<PyBytes>()
            || value.is_instance_of::<PyByteArray>()
            || value.is_instance_of::<PyInt>()
            || value.is_instance_of::<PyFloat>()
            || value.is_instance_of::<PyList>()
            || value.is_instance_of::<PyTuple>()
        {
            return Err(self.fail_type(value, path, "a mapping or an object with attributes"));
        }
        Ok(())
    }

    fn sequence<'a, 'py>(&self, value: &'a Bound<'py, PyAny>, path: &str) -> PyResult<Sequence<'a, 'py>> {
        if let Ok(list) = value.cast::<PyList>() {
            Ok(Sequence::List(list))
        } else if let Ok(tuple) = value.cast::<PyTuple>() {
            Ok(Sequence::Tuple(tuple))
        } else {
            Err(self.fail_type(value, path, "a list"))
        }
    }

    fn string<'a, 'py>(&self, value: &'a Bound<'py, PyAny>, path: &str) -> PyResult<&'a Bound<'py, PyString>> {
        value
            .cast::<PyString>()
            .map_err(|_| self.fail_type(value, path, "a string or null"))
    }

    fn integer(&self, value: &Bound<'_, PyAny>, path: &str) -> PyResult<i64> {
        if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
            return Err(self.fail_type(value, path, "an integer or null"));
        }
        value.extract::<i64>().map_err(|error| {
            if error.is_instance_of::<PyOverflowError>(value.py()) {
                self.fail(value.py(), path, &format!("integer {value} is out of the 64-bit range"))
            } else {
                error
            }
        })
    }

    fn read_choice(&self, accumulator: &mut Accumulator, choice: &Bound<'_, PyAny>, position: usize) -> PyResult<()> {
        let py = choice.py();
        // Paths are only formatted when something is wrong: the happy path allocates nothing.
        let at = |field: &str| format!("choices[{position}]{field}");
        self.record(choice, &at(""))?;
        let number = match get(choice, intern!(py, "index"))? {
            Some(index) => self.integer(&index, &at(".index"))?,
            None => i64::try_from(position).unwrap_or(i64::MAX),
        };
        accumulator.touch(number);
        if let Some(delta) = get(choice, intern!(py, "delta"))? {
            self.record(&delta, &at(".delta"))?;
            if let Some(tool_calls) = get(&delta, intern!(py, "tool_calls"))? {
                let tool_calls = self.sequence(&tool_calls, &at(".delta.tool_calls"))?;
                for (call_position, tool_call) in tool_calls.iter().enumerate() {
                    self.read_tool_call(accumulator, number, &tool_call, position, call_position)?;
                }
            }
            if let Some(content) = get(&delta, intern!(py, "content"))? {
                let content = self.string(&content, &at(".delta.content"))?;
                accumulator.text(number, &content.to_string_lossy());
            }
        }
        if let Some(reason) = get(choice, intern!(py, "finish_reason"))? {
            let reason = self.string(&reason, &at(".finish_reason"))?;
            accumulator.finish(number, &reason.to_string_lossy());
        }
        Ok(())
    }

    fn read_tool_call(
        &self,
        accumulator: &mut Accumulator,
        choice: i64,
        tool_call: &Bound<'_, PyAny>,
        position: usize,
        call_position: usize,
    ) -> PyResult<()> {
        let py = tool_call.py();
        let at = |field: &str| format!("choices[{position}].delta.tool_calls[{call_position}]{field}");
        self.record(tool_call, &at(""))?;
        let index = get(tool_call, intern!(py, "index"))?
            .map(|index| self.integer(&index, &at(".index")))
            .transpose()?;
        let id = get(tool_call, intern!(py, "id"))?;
        let id = id.as_ref().map(|id| self.string(id, &at(".id"))).transpose()?;
        let kind = get(tool_call, intern!(py, "type"))?;
        let kind = kind.as_ref().map(|kind| self.string(kind, &at(".type"))).transpose()?;
        let mut name = None;
        let mut arguments = None;
        let mut arguments_was_value = false;
        if let Some(function) = get(tool_call, intern!(py, "function"))? {
            self.record(&function, &at(".function"))?;
            if let Some(found) = get(&function, intern!(py, "name"))? {
                name = Some(self.string(&found, &at(".function.name"))?.clone());
            }
            if let Some(raw) = get(&function, intern!(py, "arguments"))? {
                arguments = Some(match raw.cast_into::<PyString>() {
                    Ok(text) => text,
                    Err(error) => {
                        arguments_was_value = true;
                        self.canonical(&error.into_inner(), &at(".function.arguments"))?
                    }
                });
            }
        }
        let id = id.map(|id| id.to_string_lossy());
        let kind = kind.map(|kind| kind.to_string_lossy());
        let name = name.as_ref().map(|name| name.to_string_lossy());
        let encoded;
        let argument_bytes = match &arguments {
            None => None,
            Some(text) => Some(if let Ok(text) = text.to_str() {
                text.as_bytes()
            } else {
                encoded = surrogatepass(text)?;
                encoded.as_bytes()
            }),
        };
        let fragment = Fragment {
            index,
            id: id.as_deref(),
            name: name.as_deref(),
            kind: kind.as_deref(),
            arguments: argument_bytes,
            arguments_was_value,
        };
        accumulator.fragment(choice, &fragment);
        Ok(())
    }

    /// The canonical text of arguments sent as a JSON value, exactly as the reference computes it.
    #[cold]
    fn canonical<'py>(&self, value: &Bound<'py, PyAny>, path: &str) -> PyResult<Bound<'py, PyString>> {
        static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let py = value.py();
        let dumps = DUMPS.import(py, "json", "dumps")?;
        let options = PyDict::new(py);
        options.set_item("separators", (",", ":"))?;
        options.set_item("ensure_ascii", false)?;
        options.set_item("allow_nan", false)?;
        match dumps.call((value,), Some(&options)) {
            Ok(text) => Ok(text.cast_into::<PyString>()?),
            Err(error) if error.is_instance_of::<PyTypeError>(py) || error.is_instance_of::<PyValueError>(py) => {
                Err(self.fail(
                    py,
                    path,
                    &format!("arguments sent as a value that is not JSON: {}", error.value(py)),
                ))
            }
            Err(error) => Err(error),
        }
    }
}

/// A string holding lone surrogates has no UTF-8 form; its bytes as `CPython` would write them (`surrogatepass`)
/// go to the scanner, which rejects them like any invalid UTF-8.
#[cold]
fn surrogatepass<'py>(text: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyBytes>> {
    Ok(text
        .call_method1(intern!(text.py(), "encode"), ("utf-8", "surrogatepass"))?
        .cast_into::<PyBytes>()?)
}
