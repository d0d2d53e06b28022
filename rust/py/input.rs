//! Python → core: reads an `OpenAI` Chat Completions chunk (a dict, or an SDK object with the same attributes)
//! straight into the accumulator, without building intermediate Python or Rust values.
//!
//! Reading order and type rules are those of `docs/semantics.md` ("Reading a chunk"), the same as
//! `python/toolstream/reference/_openai_chat.py`.

use std::borrow::Cow;

use pyo3::exceptions::{PyAttributeError, PyOverflowError, PyRecursionError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use toolstream_core::{Accumulator, Fragment};

use crate::errors::malformed_chunk;

/// What a chunk hands to the engine besides accumulator calls.
pub(crate) struct Extras<'py> {
    /// A provider error payload, when the chunk was an error event.
    pub(crate) error: Option<Bound<'py, PyAny>>,
    /// The chunk's non-null usage.
    pub(crate) usage: Option<Bound<'py, PyAny>>,
}

/// How the fields of a container are read, decided once per container type (see [`KindCache`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Dict,
    Mapping,
    Attributes,
}

/// Which non-dict types are mappings, so that the `collections.abc.Mapping` check (slow for an ABC) runs once
/// per type, not once per SDK object: a stream has a handful of types (chunk, choice, delta, call, function).
#[derive(Default)]
pub(crate) struct KindCache(Vec<(Py<PyType>, Access)>);

const KIND_CACHE_SIZE: usize = 16;

static MAPPING: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// A container whose fields can be read, and how.
struct Record<'a, 'py> {
    object: &'a Bound<'py, PyAny>,
    access: Access,
}

impl<'py> Record<'_, 'py> {
    /// A field; a null value is an absent one.
    fn get(&self, key: &Bound<'py, PyString>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let value = match self.access {
            Access::Dict => {
                return Ok(self
                    .object
                    .cast::<PyDict>()?
                    .get_item(key)?
                    .filter(|value| !value.is_none()));
            }
            Access::Mapping => self.object.call_method1(intern!(self.object.py(), "get"), (key,))?,
            Access::Attributes => match self.object.getattr(key) {
                Ok(value) => value,
                Err(error) if error.is_instance_of::<PyAttributeError>(self.object.py()) => return Ok(None),
                Err(error) => return Err(error),
            },
        };
        Ok((!value.is_none()).then_some(value))
    }
}

/// Feed one chunk to the accumulator. `number` is the chunk's position, for error messages.
pub(crate) fn read_chunk<'py>(
    accumulator: &mut Accumulator,
    kinds: &mut KindCache,
    chunk: &Bound<'py, PyAny>,
    number: u64,
) -> PyResult<Extras<'py>> {
    let py = chunk.py();
    let mut reader = Reader { number, kinds };
    let chunk = reader.record(chunk, "")?;
    if let Some(error) = chunk.get(intern!(py, "error"))? {
        return Ok(Extras {
            error: Some(error),
            usage: None,
        });
    }
    if let Some(choices) = chunk.get(intern!(py, "choices"))? {
        let choices = reader.sequence(&choices, "choices")?;
        for (position, choice) in choices.iter().enumerate() {
            reader.read_choice(accumulator, &choice, position)?;
        }
    }
    Ok(Extras {
        error: None,
        usage: chunk.get(intern!(py, "usage"))?,
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

struct Reader<'k> {
    number: u64,
    kinds: &'k mut KindCache,
}

impl Reader<'_> {
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

    fn record<'a, 'py>(&mut self, value: &'a Bound<'py, PyAny>, path: &str) -> PyResult<Record<'a, 'py>> {
        if value.is_instance_of::<PyDict>() {
            return Ok(Record {
                object: value,
                access: Access::Dict,
            });
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
        let kind = value.get_type();
        if let Some((_, access)) = self.kinds.0.iter().find(|(known, _)| known.bind(value.py()).is(&kind)) {
            return Ok(Record {
                object: value,
                access: *access,
            });
        }
        let mapping = MAPPING.import(value.py(), "collections.abc", "Mapping")?;
        let access = if value.is_instance(mapping)? {
            Access::Mapping
        } else {
            Access::Attributes
        };
        if self.kinds.0.len() < KIND_CACHE_SIZE {
            self.kinds.0.push((kind.unbind(), access));
        }
        Ok(Record { object: value, access })
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

    fn read_choice(
        &mut self,
        accumulator: &mut Accumulator,
        choice: &Bound<'_, PyAny>,
        position: usize,
    ) -> PyResult<()> {
        let py = choice.py();
        // Paths are only formatted when something is wrong: the happy path allocates nothing.
        let at = |field: &str| format!("choices[{position}]{field}");
        let choice = self.record(choice, &at(""))?;
        let number = match choice.get(intern!(py, "index"))? {
            Some(index) => self.integer(&index, &at(".index"))?,
            None => i64::try_from(position).unwrap_or(i64::MAX),
        };
        accumulator.touch(number);
        if let Some(delta) = choice.get(intern!(py, "delta"))? {
            let delta = self.record(&delta, &at(".delta"))?;
            if let Some(tool_calls) = delta.get(intern!(py, "tool_calls"))? {
                let tool_calls = self.sequence(&tool_calls, &at(".delta.tool_calls"))?;
                for (call_position, tool_call) in tool_calls.iter().enumerate() {
                    self.read_tool_call(accumulator, number, &tool_call, position, call_position)?;
                }
            }
            if let Some(content) = delta.get(intern!(py, "content"))? {
                let content = self.string(&content, &at(".delta.content"))?;
                accumulator.text(number, &utf8(content)?);
            }
        }
        if let Some(reason) = choice.get(intern!(py, "finish_reason"))? {
            let reason = self.string(&reason, &at(".finish_reason"))?;
            accumulator.finish(number, &utf8(reason)?);
        }
        Ok(())
    }

    fn read_tool_call(
        &mut self,
        accumulator: &mut Accumulator,
        choice: i64,
        tool_call: &Bound<'_, PyAny>,
        position: usize,
        call_position: usize,
    ) -> PyResult<()> {
        let py = tool_call.py();
        let at = |field: &str| format!("choices[{position}].delta.tool_calls[{call_position}]{field}");
        let tool_call = self.record(tool_call, &at(""))?;
        let index = tool_call
            .get(intern!(py, "index"))?
            .map(|index| self.integer(&index, &at(".index")))
            .transpose()?;
        let id = tool_call.get(intern!(py, "id"))?;
        let id = id.as_ref().map(|id| self.string(id, &at(".id"))).transpose()?;
        let kind = tool_call.get(intern!(py, "type"))?;
        let kind = kind.as_ref().map(|kind| self.string(kind, &at(".type"))).transpose()?;
        let mut name = None;
        let mut arguments = None;
        let mut arguments_was_value = false;
        if let Some(function) = tool_call.get(intern!(py, "function"))? {
            let function = self.record(&function, &at(".function"))?;
            if let Some(found) = function.get(intern!(py, "name"))? {
                name = Some(self.string(&found, &at(".function.name"))?.clone());
            }
            if let Some(raw) = function.get(intern!(py, "arguments"))? {
                arguments = Some(match raw.cast_into::<PyString>() {
                    Ok(text) => text,
                    Err(error) => {
                        arguments_was_value = true;
                        self.canonical(&error.into_inner(), &at(".function.arguments"))?
                    }
                });
            }
        }
        let id = id.map(utf8).transpose()?;
        let kind = kind.map(utf8).transpose()?;
        let name = name.as_ref().map(utf8).transpose()?;
        let argument_bytes = arguments.as_ref().map(utf8).transpose()?;
        let fragment = Fragment {
            index,
            id: id.as_deref(),
            name: name.as_deref(),
            kind: kind.as_deref(),
            arguments: argument_bytes.as_deref(),
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
            Err(error)
                if error.is_instance_of::<PyTypeError>(py)
                    || error.is_instance_of::<PyValueError>(py)
                    || error.is_instance_of::<PyRecursionError>(py) =>
            {
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

/// A string's UTF-8 bytes, borrowed from the string's own cache in the common case.
///
/// A string holding lone surrogates (from a `\ud800` escape) has no UTF-8 form: it is passed as the bytes
/// `CPython` writes with `surrogatepass`. Identity fields come back out intact (`output::text`); in arguments the
/// scanner rejects them like any invalid UTF-8.
fn utf8<'a>(text: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, [u8]>> {
    match text.to_str() {
        Ok(text) => Ok(Cow::Borrowed(text.as_bytes())),
        Err(_) => surrogatepass(text).map(Cow::Owned),
    }
}

#[cold]
fn surrogatepass(text: &Bound<'_, PyString>) -> PyResult<Vec<u8>> {
    let encoded = text.call_method1(intern!(text.py(), "encode"), ("utf-8", "surrogatepass"))?;
    Ok(encoded.cast_into::<PyBytes>()?.as_bytes().to_vec())
}
