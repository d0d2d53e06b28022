//! Core → Python: builds the value classes of `toolwire/_model.py` from the core's results.
//!
//! Python objects are created only here, when a call or a finding is handed to the user. A call's `arguments`
//! are built straight from its bytes by jiter, as pydantic-core does.

use crate::values;
use jiter::{FloatMode, PartialMode, PythonParse, StringCacheMode};
use pyo3::IntoPyObjectExt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolwire_core::kept::{self, Scope};
use toolwire_core::validator::number_too_long;
use toolwire_core::{Arguments, HandedOver, Severity, Violation, ViolationCode, ViolationData};

/// How JSON becomes Python objects: strict (no `NaN`), exact integers, floats as `float`, keys interned, the last of a
/// repeated key kept — what `json.loads` gives.
const PARSER: PythonParse = PythonParse {
    allow_inf_nan: false,
    cache_mode: StringCacheMode::Keys,
    partial_mode: PartialMode::Off,
    catch_duplicate_keys: false,
    float_mode: FloatMode::Float,
};

/// The enum members of `toolwire._model` a violation holds, imported once.
struct Classes {
    codes: Vec<Py<PyAny>>,
    severities: [Py<PyAny>; 3],
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let model = py.import("toolwire._model")?;
        let code_enum = model.getattr("ViolationCode")?;
        let codes = ViolationCode::ALL
            .iter()
            .map(|code| code_enum.getattr(code.as_str()).map(Bound::unbind))
            .collect::<PyResult<Vec<_>>>()?;
        let severity_enum = model.getattr("Severity")?;
        let severity = |name: &str| severity_enum.getattr(name).map(Bound::unbind);
        Ok(Classes {
            codes,
            severities: [severity("ERROR")?, severity("WARNING")?, severity("INFO")?],
        })
    })
}

/// `Severity.ERROR`, which makes a result not ok wherever a violation of it is.
pub(crate) fn error_severity(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    let [error, _, _] = &classes(py)?.severities;
    Ok(error.bind(py))
}

/// Identity bytes from the core as a Python string: UTF-8 in the common case, and the lone surrogates a
/// provider's string held (passed in as `surrogatepass` bytes) restored exactly.
pub(crate) fn text<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(PyString::new(py, text)),
        Err(_) => PyString::from_encoded_object(&PyBytes::new(py, bytes), Some(c"utf-8"), Some(c"surrogatepass")),
    }
}

/// Resolves `ViolationData::External` numbers to the objects the engine holds.
pub(crate) trait Payloads {
    fn payload(&self, py: Python<'_>, number: usize) -> Py<PyAny>;
}

impl Payloads for [Py<PyAny>] {
    fn payload(&self, py: Python<'_>, number: usize) -> Py<PyAny> {
        self.get(number)
            .map_or_else(|| py.None(), |payload| payload.clone_ref(py))
    }
}

/// A `Violation`.
pub(crate) fn violation<'py>(
    py: Python<'py>,
    violation: &Violation,
    payloads: &[Py<PyAny>],
) -> PyResult<Bound<'py, PyAny>> {
    let classes = classes(py)?;
    let position = ViolationCode::ALL
        .iter()
        .position(|code| *code == violation.code)
        .unwrap_or_default();
    let code = classes
        .codes
        .get(position)
        .map_or_else(|| py.None(), |code| code.clone_ref(py));
    let severity = match violation.severity {
        Severity::Error => &classes.severities[0],
        Severity::Warning => &classes.severities[1],
        Severity::Info => &classes.severities[2],
    };
    let data = match &violation.data {
        None => py.None(),
        Some(ViolationData::External(number)) => payloads.payload(py, *number),
        Some(ViolationData::Json(value)) => json_value(py, value)?,
        Some(other) => tally(py, other)?,
    };
    let made = values::Violation {
        code,
        message: violation.message.as_str().into_py_any(py)?,
        severity: severity.clone_ref(py),
        choice: violation.choice.into_py_any(py)?,
        seq: violation.seq.into_py_any(py)?,
        index: violation.index.into_py_any(py)?,
        path: violation.path.as_deref().into_py_any(py)?,
        offset: violation.offset.into_py_any(py)?,
        recoverable: violation.recoverable().into_py_any(py)?,
        data,
    };
    Ok(Bound::new(py, made)?.into_any())
}

/// JSON text (a chunk's error payload or usage, as raw bytes) as Python objects, built as jiter builds arguments.
/// jiter refuses `\u` escapes of lone surrogates, which a decoded chunk keeps: such text goes to `json.loads`.
pub(crate) fn json_bytes<'py>(py: Python<'py>, raw: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    PARSER.python_parse(py, raw).or_else(|error| {
        static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let loads = LOADS.import(py, "json", "loads")?;
        loads
            .call1((PyBytes::new(py, raw),))
            .map_err(|_| pyo3::exceptions::PyValueError::new_err(error.to_string()))
    })
}

/// A JSON value the core built (a violation's structured data) as Python objects; numbers exact, as jiter builds
/// arguments (an integer of any size is an `int`).
#[cold]
fn json_value(py: Python<'_>, value: &serde_json::Value) -> PyResult<Py<PyAny>> {
    use serde_json::Value;
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any().unbind(),
        Value::Number(number) => {
            let text = number.as_str();
            if text.bytes().any(|byte| matches!(byte, b'.' | b'e' | b'E')) {
                PyFloat::new(py, text.parse::<f64>().unwrap_or(f64::NAN))
                    .into_any()
                    .unbind()
            } else if let Ok(small) = text.parse::<i64>() {
                small.into_pyobject(py)?.into_any().unbind()
            } else {
                py.get_type::<PyInt>().call1((text,))?.unbind()
            }
        }
        Value::String(text) => PyString::new(py, text).into_any().unbind(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_value(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(members) => {
            let dict = PyDict::new(py);
            for (key, member) in members {
                dict.set_item(key, json_value(py, member)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// The data of a finding that grows as a stream repeats it (`TRAILING_DATA`, a limit's count, `VIOLATIONS_OMITTED`),
/// as it stands: a dict of its text and counts.
#[cold]
fn tally(py: Python<'_>, data: &ViolationData) -> PyResult<Py<PyAny>> {
    let dict = PyDict::new(py);
    match data {
        ViolationData::Trailing { text, bytes, fragments } => {
            dict.set_item(intern!(py, "text"), String::from_utf8_lossy(text))?;
            dict.set_item(intern!(py, "bytes"), bytes)?;
            dict.set_item(intern!(py, "fragments"), fragments)?;
        }
        ViolationData::Counted { limit, unit, count } => {
            dict.set_item(intern!(py, "limit"), limit)?;
            dict.set_item(*unit, count)?;
        }
        ViolationData::Omitted(omitted) => dict.set_item(intern!(py, "omitted"), omitted)?,
        ViolationData::External(_) | ViolationData::Json(_) => {}
    }
    Ok(dict.into_any().unbind())
}

fn violations_of<'a, 'py>(
    py: Python<'py>,
    items: impl Iterator<Item = &'a Violation>,
    payloads: &[Py<PyAny>],
) -> PyResult<Bound<'py, PyTuple>> {
    let built = items
        .map(|item| violation(py, item, payloads))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, built)
}

/// Parse argument bytes the scanner accepted into Python objects.
///
/// The one failure left once the scanner accepted the text is a value Python cannot hold: an integer of more
/// than 4300 digits, which jiter refuses as `CPython` does, against quadratic conversions. It becomes an
/// `INVALID_JSON` violation on the call (added last, within `Limits.max_violations`, as the reference does), never an
/// exception; the declared tools' check, which ran just before, has already found it when it checked the arguments.
pub(crate) fn parse_arguments<'py>(
    py: Python<'py>,
    call: &mut HandedOver,
    max_violations: usize,
) -> Option<Bound<'py, PyAny>> {
    if let Ok(value) = PARSER.python_parse(py, &call.arguments_json) {
        return Some(value);
    }
    call.arguments = Arguments::Absent;
    let mut violation = number_too_long();
    if call
        .violations
        .iter()
        .any(|found| (found.code, &found.message) == (violation.code, &violation.message))
    {
        return None;
    }
    let scope = Scope {
        choice: Some(call.choice),
        seq: Some(call.seq),
        index: call.index,
    };
    violation.choice = scope.choice;
    violation.seq = scope.seq;
    violation.index = scope.index;
    kept::keep(&mut call.violations, violation, max_violations, scope);
    None
}

/// A `ToolCall` or an `InvalidToolCall` for a call the core handed over, with its arguments as parsed by
/// [`parse_arguments`] (None when they are not a value).
pub(crate) fn handed_over<'py>(
    py: Python<'py>,
    call: &HandedOver,
    parsed: Option<Bound<'py, PyAny>>,
    tool_fingerprint: Option<Py<PyString>>,
    payloads: &[Py<PyAny>],
) -> PyResult<Bound<'py, PyAny>> {
    let free_text = call.arguments == Arguments::Text;
    let arguments = match (call.arguments, parsed) {
        (Arguments::Empty, _) => PyDict::new(py).into_any(),
        (Arguments::Text, _) if call.is_valid() => PyDict::new(py).into_any(),
        (Arguments::Value, Some(value)) => value,
        (Arguments::Value | Arguments::Absent | Arguments::Text, _) => py.None().into_bound(py),
    };
    // A free-text call's text is its `input`; it has no arguments text.
    let (arguments_json, input) = if free_text {
        (None, Some(text(py, &call.arguments_json)?))
    } else {
        (Some(String::from_utf8_lossy(&call.arguments_json)), None)
    };
    let others = violations_of(
        py,
        call.violations.iter().filter(|v| v.severity != Severity::Error),
        payloads,
    )?;
    let id = text(py, &call.id)?.into_any().unbind();
    let name = call
        .name
        .as_deref()
        .map(|name| text(py, name))
        .transpose()?
        .into_py_any(py)?;
    let extra = extra_fields(py, &call.extra)?;
    let arguments = arguments.unbind();
    let arguments_json = arguments_json.into_py_any(py)?;
    let (seq, index, choice) = (
        call.seq.into_py_any(py)?,
        call.index.into_py_any(py)?,
        call.choice.into_py_any(py)?,
    );
    let (violations, tool_fingerprint, input) = (
        others.into_any().unbind(),
        tool_fingerprint.into_py_any(py)?,
        input.into_py_any(py)?,
    );
    if call.is_valid() {
        let made = values::ToolCall {
            id,
            name,
            arguments,
            arguments_json,
            seq,
            index,
            choice,
            violations,
            tool_fingerprint,
            extra,
            input,
        };
        return Ok(Bound::new(py, made)?.into_any());
    }
    let errors = violations_of(
        py,
        call.violations.iter().filter(|v| v.severity == Severity::Error),
        payloads,
    )?;
    let made = values::InvalidToolCall {
        id,
        name,
        arguments,
        arguments_json,
        seq,
        index,
        choice,
        errors: errors.into_any().unbind(),
        violations,
        tool_fingerprint,
        extra,
        input,
    };
    Ok(Bound::new(py, made)?.into_any())
}

/// A call's provider fields as a new dict, or the shared empty mapping when it has none.
fn extra_fields(py: Python<'_>, extra: &[(&'static str, Vec<u8>)]) -> PyResult<Py<PyAny>> {
    if extra.is_empty() {
        return Ok(values::no_extra());
    }
    let values = PyDict::new(py);
    for (key, raw) in extra {
        values.set_item(*key, json_bytes(py, raw)?)?;
    }
    Ok(values.into_any().unbind())
}
