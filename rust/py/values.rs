//! The value classes toolwire hands to its users, built in Rust: immutable, compared and hashed by their fields, as
//! the frozen dataclasses of `toolwire/_model.py` are (that module keeps them as the fallback of an interpreter
//! without this extension, and takes these when it is there, so that both implementations hand over one class).
//!
//! A dataclass's generated `__init__` sets each field through `object.__setattr__`: on this machine a microsecond for
//! a violation of ten fields, more than the core spends finding it. Here an instance is one allocation.
//!
//! Fields hold Python objects as given, as a dataclass's do. The instances are not tracked by the cyclic collector:
//! they hold no reference back to themselves unless a user puts one in a payload, and a stream of many findings no
//! longer starts collections that walk the whole heap.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyDict, PyString, PyTuple};

/// Python's `None`, as a keyword's default.
#[expect(
    clippy::redundant_closure_for_method_calls,
    reason = "`Python::None` is not general over the lifetime"
)]
fn none() -> Py<PyAny> {
    Python::attach(|py| py.None())
}

/// Python's `False`, as a keyword's default.
fn no() -> Py<PyAny> {
    Python::attach(|py| pyo3::types::PyBool::new(py, false).to_owned().into_any().unbind())
}

/// A value class: a frozen pyclass whose fields are Python objects, with the dataclass protocol users rely on —
/// keyword construction with defaults, `==` and `hash` over the fields (`NotImplemented` against another class), the
/// dataclass `repr`, `__match_args__`, `__replace__` and pickling.
macro_rules! value_class {
    (
        $(#[doc = $doc:literal])*
        $rust:ident as $name:literal {
            $( $(#[doc = $field_doc:literal])* $field:ident $(= $default:expr)? ),+ $(,)?
        }
        $(methods { $($methods:tt)* })?
    ) => {
        $(#[doc = $doc])*
        #[pyclass(module = "toolwire._model", name = $name, frozen)]
        pub(crate) struct $rust {
            $( $(#[doc = $field_doc])* #[pyo3(get)] pub(crate) $field: Py<PyAny>, )+
        }

        #[pymethods]
        impl $rust {
            #[new]
            #[expect(clippy::too_many_arguments, reason = "a keyword per field, as the dataclass's __init__ takes")]
            #[pyo3(signature = ($($field $(= $default)?),+))]
            fn new($($field: Py<PyAny>),+) -> Self {
                Self { $($field),+ }
            }

            #[classattr]
            fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
                Ok(PyTuple::new(py, [$(stringify!($field)),+])?.unbind())
            }

            fn __richcmp__(
                slf: &Bound<'_, Self>,
                other: &Bound<'_, PyAny>,
                op: CompareOp,
            ) -> PyResult<Py<PyAny>> {
                let py = slf.py();
                let Ok(other) = other.cast_exact::<Self>() else {
                    return Ok(py.NotImplemented());
                };
                match op {
                    CompareOp::Eq | CompareOp::Ne => {
                        let equal = slf.get().fields(py)?.eq(other.get().fields(py)?)?;
                        Ok(pyo3::types::PyBool::new(py, equal == matches!(op, CompareOp::Eq))
                            .to_owned()
                            .into_any()
                            .unbind())
                    }
                    _ => Ok(py.NotImplemented()),
                }
            }

            fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
                self.fields(py)?.hash()
            }

            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                let mut text = String::from(concat!($name, "("));
                let mut first = true;
                $(
                    if !first {
                        text.push_str(", ");
                    }
                    first = false;
                    text.push_str(concat!(stringify!($field), "="));
                    text.push_str(&self.$field.bind(py).repr()?.to_cow()?);
                )+
                let _ = first;
                text.push(')');
                Ok(text)
            }

            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<(Bound<'py, pyo3::types::PyType>, Bound<'py, PyTuple>)> {
                Ok((slf.get_type(), slf.get().fields(slf.py())?))
            }

            /// A copy with the fields named in `changes` replaced (`copy.replace`, `dataclasses.replace`).
            #[pyo3(signature = (**changes))]
            fn __replace__(&self, py: Python<'_>, changes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                let mut copy = Self { $($field: self.$field.clone_ref(py)),+ };
                if let Some(changes) = changes {
                    for (key, value) in changes.iter() {
                        let key = key.cast_into::<PyString>()?;
                        match &*key.to_cow()? {
                            $(stringify!($field) => copy.$field = value.unbind(),)+
                            other => {
                                return Err(PyTypeError::new_err(format!(
                                    concat!($name, ".__replace__() got an unexpected keyword argument '{}'"),
                                    other
                                )));
                            }
                        }
                    }
                }
                Ok(copy)
            }

            $($($methods)*)?
        }

        impl $rust {
            /// The fields in order, as the dataclass compares and hashes them.
            fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
                PyTuple::new(py, [$(self.$field.bind(py)),+])
            }
        }
    };
}

value_class! {
    /// One contract violation, as data (never an exception).
    ///
    /// Attributes:
    ///     code: What went wrong.
    ///     message: A sentence for humans; differential tests never compare it.
    ///     severity: ``error`` makes the call (or the stream) invalid; ``warning`` and ``info`` ride along.
    ///     choice: The choice it concerns (0 unless the request asked for several).
    ///     seq: The call it concerns, by opening order in the stream; None for stream-wide findings.
    ///     index: The provider's ``index`` of that call as sent, when it sent one.
    ///     path: JSON pointer inside the arguments (``/items/0/qty``) for argument-level findings.
    ///     offset: Byte offset inside the call's arguments text for parse findings.
    ///     recoverable: Whether the model can fix it on its next turn if told.
    ///     data: The payload that must not be lost: a provider error event; for ``TRAILING_DATA`` on a call that was
    ///         over, ``{"text", "bytes", "fragments"}``; what a finding names or counts (see docs/semantics.md).
    Violation as "Violation" {
        /// What went wrong.
        code,
        /// A sentence for humans; differential tests never compare it.
        message,
        /// ``error`` makes the call (or the stream) invalid; ``warning`` and ``info`` ride along.
        severity,
        /// The choice it concerns (0 unless the request asked for several).
        choice = none(),
        /// The call it concerns, by opening order in the stream; None for stream-wide findings.
        seq = none(),
        /// The provider's ``index`` of that call as sent, when it sent one.
        index = none(),
        /// JSON pointer inside the arguments (``/items/0/qty``) for argument-level findings.
        path = none(),
        /// Byte offset inside the call's arguments text for parse findings.
        offset = none(),
        /// Whether the model can fix it on its next turn if told.
        recoverable = no(),
        /// The payload that must not be lost (see docs/semantics.md).
        data = none(),
    }
    methods {
    /// The identity differential tests compare: (code, severity, choice, seq, path).
    fn key<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let value = |field: &Py<PyAny>| field.bind(py).getattr(pyo3::intern!(py, "value"));
        PyTuple::new(
            py,
            [
                value(&self.code)?,
                value(&self.severity)?,
                self.choice.bind(py).clone(),
                self.seq.bind(py).clone(),
                self.path.bind(py).clone(),
            ],
        )
    }
    }
}
