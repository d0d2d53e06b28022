//! Python → core: reads an `OpenAI` Chat Completions chunk (a dict, a mapping, or an SDK object with the same
//! attributes) straight into the accumulator, without building intermediate Python or Rust values.
//!
//! Reading order and type rules are those of `docs/semantics.md` ("Reading a chunk"), the same as
//! `python/toolwire/reference/decode/openai_chat.py`. This is the per-chunk hot path: field paths for error messages
//! are formatted only when something is wrong, and how a container is read is decided once per type.

use std::borrow::Cow;

use pyo3::exceptions::{PyAttributeError, PyOverflowError, PyRecursionError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use toolwire_core::decode::openai_chat::{At, finish_kind};
use toolwire_core::{Accumulator, Fragment};

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
    kinds: &mut KindCache,
    chunk: &Bound<'py, PyAny>,
    number: u64,
) -> PyResult<Extras<'py>> {
    let mut reader = Reader { number, kinds };
    let [error, choices, usage] = reader.record(chunk, At::CHUNK)?.fields(&CHUNK)?;
    if error.is_some() {
        return Ok(Extras { error, usage: None });
    }
    if let Some(choices) = choices {
        let choices = reader.sequence(&choices, At::CHOICES)?;
        for position in 0..choices.len() {
            reader.read_choice(accumulator, &choices.get(position)?, position)?;
        }
    }
    Ok(Extras { error: None, usage })
}

/// How the fields of a container type are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Any `collections.abc.Mapping` other than a `dict`: by `.get(key)`.
    Mapping,
    /// A pydantic model (the SDKs' objects): field values from its `__dict__`, extra fields from
    /// `__pydantic_extra__`. The same values `getattr` returns, without the exception pydantic's `__getattr__`
    /// raises for every absent field (a chunk's `error`: 2 µs each).
    Pydantic,
    /// Any other object: by attribute.
    Attributes,
}

/// The access of each container type seen, so that the `collections.abc.Mapping` check (slow for an ABC) runs
/// once per type: a stream has a handful of types (chunk, choice, delta, call, function).
#[derive(Default)]
pub(crate) struct KindCache(Vec<(Py<PyType>, Access)>);

const KIND_CACHE_SIZE: usize = 16;

static MAPPING: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// A container whose fields can be read.
enum Record<'a, 'py> {
    Dict(&'a Bound<'py, PyDict>),
    /// Declared fields are all in `__dict__` (absent ones as None); only an undeclared key, such as a chunk's
    /// `error`, needs `__pydantic_extra__`.
    Pydantic {
        object: &'a Bound<'py, PyAny>,
        fields: Option<Bound<'py, PyDict>>,
    },
    Mapping(&'a Bound<'py, PyAny>),
    Attributes(&'a Bound<'py, PyAny>),
}

impl<'py> Record<'_, 'py> {
    /// The non-null values of `keys`, in their order.
    fn fields<const N: usize>(&self, keys: &Keys<N>) -> PyResult<[Option<Bound<'py, PyAny>>; N]> {
        let mut found = [const { None }; N];
        for (slot, key) in found.iter_mut().zip(keys.interned(self.py())?) {
            *slot = self.get(key.bind(self.py()))?;
        }
        Ok(found)
    }

    fn py(&self) -> Python<'py> {
        match self {
            Self::Dict(dict) => dict.py(),
            Self::Pydantic { object, .. } | Self::Mapping(object) | Self::Attributes(object) => object.py(),
        }
    }

    /// A field; a null value is an absent one.
    fn get(&self, key: &Bound<'py, PyString>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let value = match self {
            Self::Dict(dict) => dict.get_item(key)?,
            Self::Pydantic { object, fields } => {
                match fields.as_ref().map(|fields| fields.get_item(key)).transpose()? {
                    Some(Some(value)) => Some(value),
                    _ => match object
                        .getattr(intern!(object.py(), "__pydantic_extra__"))?
                        .cast_into::<PyDict>()
                    {
                        Ok(extra) => extra.get_item(key)?,
                        Err(_) => None,
                    },
                }
            }
            Self::Mapping(object) => Some(object.call_method1(intern!(object.py(), "get"), (key,))?),
            Self::Attributes(object) => match object.getattr(key) {
                Ok(value) => Some(value),
                Err(error) if error.is_instance_of::<PyAttributeError>(object.py()) => None,
                Err(error) => return Err(error),
            },
        };
        Ok(value.filter(|value| !value.is_none()))
    }
}

/// The fields one kind of container is read for, interned once.
struct Keys<const N: usize> {
    names: [&'static str; N],
    interned: PyOnceLock<[Py<PyString>; N]>,
}

impl<const N: usize> Keys<N> {
    const fn new(names: [&'static str; N]) -> Self {
        Self {
            names,
            interned: PyOnceLock::new(),
        }
    }

    fn interned(&self, py: Python<'_>) -> PyResult<&[Py<PyString>; N]> {
        self.interned.get_or_try_init(py, || {
            Ok::<_, PyErr>(self.names.map(|name| PyString::intern(py, name).unbind()))
        })
    }
}

static CHUNK: Keys<3> = Keys::new(["error", "choices", "usage"]);
static CHOICE: Keys<3> = Keys::new(["index", "delta", "finish_reason"]);
static DELTA: Keys<3> = Keys::new(["tool_calls", "content", "refusal"]);
static CALL: Keys<4> = Keys::new(["index", "id", "type", "function"]);
static FUNCTION: Keys<2> = Keys::new(["name", "arguments"]);

/// A list or tuple, read by position without copying.
enum Sequence<'a, 'py> {
    List(&'a Bound<'py, PyList>),
    Tuple(&'a Bound<'py, PyTuple>),
}

impl<'py> Sequence<'_, 'py> {
    fn len(&self) -> usize {
        match self {
            Self::List(list) => list.len(),
            Self::Tuple(tuple) => tuple.len(),
        }
    }

    fn get(&self, position: usize) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Self::List(list) => list.get_item(position),
            Self::Tuple(tuple) => tuple.get_item(position),
        }
    }
}

struct Reader<'k> {
    number: u64,
    kinds: &'k mut KindCache,
}

impl Reader<'_> {
    #[cold]
    fn fail(&self, py: Python<'_>, at: At, problem: &str) -> PyErr {
        malformed_chunk(py, self.number, &at.to_string(), problem)
    }

    #[cold]
    fn fail_type(&self, value: &Bound<'_, PyAny>, at: At, expected: &str) -> PyErr {
        let got = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |name| name.to_string());
        self.fail(value.py(), at, &format!("expected {expected}, got {got}"))
    }

    fn record<'a, 'py>(&mut self, value: &'a Bound<'py, PyAny>, at: At) -> PyResult<Record<'a, 'py>> {
        if let Ok(dict) = value.cast::<PyDict>() {
            return Ok(Record::Dict(dict));
        }
        Ok(match self.access(value, at)? {
            Access::Pydantic => Record::Pydantic {
                object: value,
                fields: value
                    .getattr(intern!(value.py(), "__dict__"))?
                    .cast_into::<PyDict>()
                    .ok(),
            },
            Access::Mapping => Record::Mapping(value),
            Access::Attributes => Record::Attributes(value),
        })
    }

    fn access(&mut self, value: &Bound<'_, PyAny>, at: At) -> PyResult<Access> {
        if value.is_none()
            || value.is_instance_of::<PyString>()
            || value.is_instance_of::<PyBytes>()
            || value.is_instance_of::<PyByteArray>()
            || value.is_instance_of::<PyInt>()
            || value.is_instance_of::<PyFloat>()
            || value.is_instance_of::<PyList>()
            || value.is_instance_of::<PyTuple>()
        {
            return Err(self.fail_type(value, at, "a mapping or an object with attributes"));
        }
        let py = value.py();
        let kind = value.get_type();
        if let Some((_, access)) = self.kinds.0.iter().find(|(known, _)| known.bind(py).is(&kind)) {
            return Ok(*access);
        }
        let access = if value.is_instance(MAPPING.import(py, "collections.abc", "Mapping")?)? {
            Access::Mapping
        } else if kind.hasattr(intern!(py, "__pydantic_fields__"))?
            && value.hasattr(intern!(py, "__pydantic_extra__"))?
        {
            Access::Pydantic
        } else {
            Access::Attributes
        };
        if self.kinds.0.len() < KIND_CACHE_SIZE {
            self.kinds.0.push((kind.unbind(), access));
        }
        Ok(access)
    }

    fn sequence<'a, 'py>(&self, value: &'a Bound<'py, PyAny>, at: At) -> PyResult<Sequence<'a, 'py>> {
        if let Ok(list) = value.cast::<PyList>() {
            Ok(Sequence::List(list))
        } else if let Ok(tuple) = value.cast::<PyTuple>() {
            Ok(Sequence::Tuple(tuple))
        } else {
            Err(self.fail_type(value, at, "a list"))
        }
    }

    fn string<'a, 'py>(&self, value: &'a Bound<'py, PyAny>, at: At) -> PyResult<&'a Bound<'py, PyString>> {
        value
            .cast::<PyString>()
            .map_err(|_| self.fail_type(value, at, "a string or null"))
    }

    fn integer(&self, value: &Bound<'_, PyAny>, at: At) -> PyResult<i64> {
        if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
            return Err(self.fail_type(value, at, "an integer or null"));
        }
        value.extract::<i64>().map_err(|error| {
            if error.is_instance_of::<PyOverflowError>(value.py()) {
                self.fail(value.py(), at, &format!("integer {value} is out of the 64-bit range"))
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
        let [index, delta, finish_reason] = self.record(choice, At::choice(position, ""))?.fields(&CHOICE)?;
        let number = match index {
            Some(index) => self.integer(&index, At::choice(position, ".index"))?,
            None => i64::try_from(position).unwrap_or(i64::MAX),
        };
        if !accumulator.choice_entry(number) {
            return Ok(()); // a choice past `Limits.max_choices`: counted, not read
        }
        if let Some(delta) = delta {
            let [tool_calls, content, refusal] = self.record(&delta, At::choice(position, ".delta"))?.fields(&DELTA)?;
            if let Some(tool_calls) = tool_calls {
                let tool_calls = self.sequence(&tool_calls, At::choice(position, ".delta.tool_calls"))?;
                for call in 0..tool_calls.len() {
                    self.read_tool_call(accumulator, number, &tool_calls.get(call)?, position, call)?;
                }
            }
            if let Some(content) = content {
                let content = self.string(&content, At::choice(position, ".delta.content"))?;
                accumulator.text(number, &utf8(content)?);
            }
            if let Some(refusal) = refusal {
                let refusal = self.string(&refusal, At::choice(position, ".delta.refusal"))?;
                accumulator.refusal(number, &utf8(refusal)?);
            }
        }
        if let Some(reason) = finish_reason {
            let reason = self.string(&reason, At::choice(position, ".finish_reason"))?;
            let reason = utf8(reason)?;
            accumulator.finish(number, &reason, finish_kind(&reason));
        }
        Ok(())
    }

    fn read_tool_call(
        &mut self,
        accumulator: &mut Accumulator,
        choice: i64,
        tool_call: &Bound<'_, PyAny>,
        position: usize,
        call: usize,
    ) -> PyResult<()> {
        let at = |field| At::call(position, call, field);
        let [index, id, kind, function] = self.record(tool_call, at(""))?.fields(&CALL)?;
        let index = index.map(|index| self.integer(&index, at(".index"))).transpose()?;
        let id = id.as_ref().map(|id| self.string(id, at(".id"))).transpose()?;
        let kind = kind.as_ref().map(|kind| self.string(kind, at(".type"))).transpose()?;
        let mut name = None;
        let mut arguments = None;
        let mut arguments_was_value = false;
        if let Some(function) = function {
            let [found, raw] = self.record(&function, at(".function"))?.fields(&FUNCTION)?;
            if let Some(found) = found {
                name = Some(self.string(&found, at(".function.name"))?.clone());
            }
            if let Some(raw) = raw {
                arguments = Some(match raw.cast_into::<PyString>() {
                    Ok(text) => text,
                    Err(error) => {
                        arguments_was_value = true;
                        self.canonical(&error.into_inner(), at(".function.arguments"))?
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
            extra: &[],
            ..Fragment::default()
        };
        accumulator.fragment(choice, &fragment);
        Ok(())
    }

    /// The canonical text of arguments sent as a JSON value, exactly as the reference computes it.
    #[cold]
    fn canonical<'py>(&self, value: &Bound<'py, PyAny>, at: At) -> PyResult<Bound<'py, PyString>> {
        let py = value.py();
        match dumps(value) {
            Ok(text) => Ok(text.cast_into::<PyString>()?),
            Err(error)
                if error.is_instance_of::<PyTypeError>(py)
                    || error.is_instance_of::<PyValueError>(py)
                    || error.is_instance_of::<PyRecursionError>(py) =>
            {
                Err(self.fail(
                    py,
                    at,
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
pub(crate) fn utf8<'a>(text: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, [u8]>> {
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

/// `json.dumps` with the options of the canonical text of arguments sent as a value.
pub(crate) fn dumps<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = value.py();
    let dumps = DUMPS.import(py, "json", "dumps")?;
    let options = PyDict::new(py);
    options.set_item("separators", (",", ":"))?;
    options.set_item("ensure_ascii", false)?;
    options.set_item("allow_nan", false)?;
    dumps.call((value,), Some(&options))
}

/// The canonical text of arguments that came as a JSON value in raw bytes: the value decoded as a dict would be,
/// then written as `read_tool_call` writes it, so bytes and decoded chunks give the same `arguments_json`.
#[cold]
pub(crate) fn canonical_text(py: Python<'_>, raw: &[u8]) -> Result<Vec<u8>, String> {
    let value = crate::output::json_bytes(py, raw).map_err(|error| error.to_string())?;
    let text = dumps(&value).map_err(|error| error.value(py).to_string())?;
    let text = text.cast_into::<PyString>().map_err(|error| error.to_string())?;
    utf8(&text).map(Cow::into_owned).map_err(|error| error.to_string())
}
