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

// The classes' doc comments are their Python docstrings, in the docstring style of `toolwire/_model.py`.
#![expect(
    clippy::doc_markdown,
    reason = "Python docstrings name fields as Python does, not as Markdown code"
)]

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::sync::PyOnceLock;
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
///
/// `in` names the module whose attribute the class is (where pickling finds it). `hidden` fields are a dataclass's
/// `field(repr=False, compare=False)`: given at construction, after the others, and kept by a copy, but neither
/// shown, compared, hashed nor matched.
macro_rules! value_class {
    (
        $(#[doc = $doc:literal])*
        $rust:ident as $name:literal in $module:literal {
            $( $(#[doc = $field_doc:literal])* $field:ident $(= $default:expr)? ),+ $(,)?
        }
        $(hidden { $( $(#[doc = $hidden_doc:literal])* $hidden:ident ),+ $(,)? })?
        $(methods { $($methods:tt)* })?
    ) => {
        $(#[doc = $doc])*
        #[pyclass(module = $module, name = $name, frozen)]
        pub(crate) struct $rust {
            $( $(#[doc = $field_doc])* #[pyo3(get)] pub(crate) $field: Py<PyAny>, )+
            $($( $(#[doc = $hidden_doc])* $hidden: Py<PyAny>, )+)?
        }

        #[pymethods]
        impl $rust {
            #[new]
            #[allow(clippy::too_many_arguments, reason = "a keyword per field, as the dataclass's __init__ takes")]
            #[pyo3(signature = ($($field $(= $default)?),+ $($(, $hidden)+)?))]
            fn new($($field: Py<PyAny>),+ $($(, $hidden: Py<PyAny>)+)?) -> Self {
                Self { $($field),+ $($(, $hidden)+)? }
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
                let py = slf.py();
                let value = slf.get();
                Ok((slf.get_type(), PyTuple::new(py, [$(value.$field.bind(py)),+ $($(, value.$hidden.bind(py))+)?])?))
            }

            /// A copy with the fields named in `changes` replaced: `copy.replace` on Python 3.13+, which a value built
            /// in Rust supports where `dataclasses.replace` does not.
            #[pyo3(signature = (**changes))]
            fn __replace__(&self, py: Python<'_>, changes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                let mut copy = Self {
                    $($field: self.$field.clone_ref(py)),+
                    $($(, $hidden: self.$hidden.clone_ref(py))+)?
                };
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
    Violation as "Violation" in "toolwire._model" {
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
    /// One line: ``CODE at /pointer: message``, or ``CODE: message`` for a finding without a pointer.
    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        let code = self.code.bind(py).getattr(pyo3::intern!(py, "value"))?.str()?;
        let message = self.message.bind(py).str()?;
        // A provider's message may hold line breaks: the line is still one.
        let message = message.to_string_lossy().replace("\r\n", " ").replace(['\r', '\n'], " ");
        let path = self.path.bind(py);
        Ok(if path.is_none() {
            format!("{code}: {message}")
        } else {
            format!("{code} at {}: {message}", path.str()?)
        })
    }

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

pub(crate) use value_class;

/// An empty tuple, as a keyword's default.
fn empty() -> Py<PyAny> {
    Python::attach(|py| PyTuple::empty(py).into_any().unbind())
}

/// An empty string, as a keyword's default.
fn blank() -> Py<PyAny> {
    Python::attach(|py| PyString::new(py, "").into_any().unbind())
}

/// A call as the assistant side of a conversation records it: `toolwire.formats.call_entry`, whose shape per
/// provider is Python's and shared with the fallback dataclasses, for a valid and an invalid call alike.
fn call_entry<'py>(call: &Bound<'py, PyAny>, format: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    static CALL_ENTRY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    CALL_ENTRY
        .import(call.py(), "toolwire.formats", "call_entry")?
        .call1((call, format))
}

value_class! {
    /// What one choice of the response brought besides its calls.
    ///
    /// Attributes:
    ///     choice: The choice index.
    ///     text: Its concatenated content text.
    ///     finish_reason: Its first non-null finish reason, or None.
    ///     refusal: What it said when it refused (OpenAI ``refusal`` deltas), concatenated; None when it did not.
    ChoiceResult as "ChoiceResult" in "toolwire._model" {
        /// The choice index.
        choice,
        /// Its concatenated content text.
        text,
        /// Its first non-null finish reason, or None.
        finish_reason,
        /// What it said when it refused (OpenAI ``refusal`` deltas), concatenated; None when it did not.
        refusal = none(),
    }
}

value_class! {
    /// A piece of the assistant turn that is not a client tool call, kept for the next request.
    ///
    /// Anthropic content blocks (text, thinking with its signature, redacted thinking, server tool use and results),
    /// Responses output items (message, reasoning, built-in tool calls and their outputs), Gemini parts other than
    /// calls, Bedrock reasoning blocks: each as the provider's own JSON shape, completed from its deltas.
    ///
    /// Attributes:
    ///     after_calls: How many calls of the stream were opened before it, which places it among them.
    ///     value: The block, item or part, as the provider's JSON object.
    OutputItem as "OutputItem" in "toolwire._model" {
        /// How many calls of the stream were opened before it, which places it among them.
        after_calls,
        /// The block, item or part, as the provider's JSON object.
        value,
    }
}

value_class! {
    /// Everything a stream brought, settled once it has ended.
    ///
    /// Attributes:
    ///     calls: The valid calls, ordered by (choice, seq).
    ///     invalid_calls: The invalid calls, ordered by (choice, seq).
    ///     finish_reason: The first non-null finish reason of choice 0 (or of the lowest choice seen).
    ///     usage: The last usage payload the stream carried, as sent.
    ///     text: The content text of that same choice.
    ///     violations: Stream-level findings.
    ///     choices: Text and finish reason of every choice seen.
    ///     output: The turn's other pieces in order (see ``OutputItem``): thinking, reasoning, server tool calls.
    ///     format: The wire format the stream was read as (named or detected), or None when nothing told it.
    ///     refusal: What that same choice said when it refused (OpenAI ``refusal`` deltas), or None.
    StreamResult as "StreamResult" in "toolwire._model" {
        /// The valid calls, ordered by (choice, seq).
        calls = empty(),
        /// The invalid calls, ordered by (choice, seq).
        invalid_calls = empty(),
        /// The first non-null finish reason of choice 0 (or of the lowest choice seen).
        finish_reason = none(),
        /// The last usage payload the stream carried, as sent.
        usage = none(),
        /// The content text of that same choice.
        text = blank(),
        /// Stream-level findings.
        violations = empty(),
        /// Text and finish reason of every choice seen.
        choices = empty(),
        /// The turn's other pieces in order (see ``OutputItem``): thinking, reasoning, server tool calls.
        output = empty(),
        /// The wire format the stream was read as (named or detected), or None when nothing told it.
        format = none(),
        /// What that same choice said when it refused (OpenAI ``refusal`` deltas), or None.
        refusal = none(),
    }
    methods {
        /// The calls the provider ran itself, as sent (their results, kept in ``output`` too, are not calls).
        ///
        /// Anthropic ``server_tool_use``/``mcp_tool_use`` blocks, Responses built-in tool call items
        /// (``web_search_call``, ``tool_search_call``, a ``custom_tool_call`` the provider ran, ...), Bedrock
        /// ``toolUse`` blocks of type ``server_tool_use``, Gemini ``executableCode`` and ``toolCall`` parts.
        #[getter]
        fn server_calls<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
            static SERVER_CALLS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
            SERVER_CALLS.import(slf.py(), "toolwire._model", "server_calls")?.call1((slf,))
        }

        /// The assistant turn of the first choice, ready to append to the next request, ids echoed exactly.
        ///
        /// Every call of that choice, valid or invalid, in the order the model opened them, with the choice's text
        /// and, when ``format`` is the stream's own, every other piece of the turn in its place (``output``).
        /// ``"openai-completions"`` gives the text; see ``toolwire.formats.turn`` for each format's shape.
        ///
        /// Raises:
        ///     ValueError: ``"openai-completions"`` for a turn with calls, or an unknown format.
        fn to_history<'py>(slf: &Bound<'py, Self>, format: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
            static TURN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
            TURN.import(slf.py(), "toolwire.formats", "turn")?.call1((slf, format))
        }

        /// True when no call is invalid and no stream-level violation is an error.
        #[getter]
        fn ok(&self, py: Python<'_>) -> PyResult<bool> {
            if self.invalid_calls.bind(py).is_truthy()? {
                return Ok(false);
            }
            let error = crate::output::error_severity(py)?;
            for violation in self.violations.bind(py).try_iter()? {
                if violation?.getattr(pyo3::intern!(py, "severity"))?.is(error) {
                    return Ok(false);
                }
            }
            Ok(true)
        }
    }
}

/// The `extra` of a call that has none: `toolwire._model`'s one shared, read-only empty mapping.
pub(crate) fn no_extra() -> Py<PyAny> {
    static NO_EXTRA: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    Python::attach(|py| {
        NO_EXTRA
            .import(py, "toolwire._model", "_NO_EXTRA")
            .map_or_else(|_| PyDict::new(py).into_any().unbind(), |empty| empty.clone().unbind())
    })
}

value_class! {
    /// A whole, valid tool call, ready to dispatch.
    ///
    /// Attributes:
    ///     id: The provider's call id, or a generated ``ts_<choice>_<seq>`` (with ``MISSING_ID``) when none came.
    ///     name: The tool name, taken on first arrival.
    ///     arguments: The parsed arguments, exactly the value that was checked; ``{}`` for a custom tool call (its
    ///         input is ``input``).
    ///     arguments_json: The exact concatenated arguments text (the canonical text when an object was sent); None
    ///         for a custom tool call, whose input is free text, not JSON.
    ///     seq: Position of the call in the order calls were opened in this stream.
    ///     index: The provider's ``index`` as sent, or None.
    ///     choice: The choice the call belongs to.
    ///     violations: Warnings and infos found on the way (errors would have made it an ``InvalidToolCall``).
    ///     tool_fingerprint: The fingerprint of the tool definition the arguments were validated against (see
    ///         ``Tool.fingerprint``), so logs can say which schema version accepted the call; None when no tools
    ///         were given or the name is a server tool's.
    ///     extra: Provider fields the next request needs back, as sent: Responses ``item_id``, Gemini
    ///         ``thought_signature``, Anthropic ``caller``. Empty for most calls.
    ///     input: A custom tool call's input text (OpenAI Responses ``custom_tool_call``: free text, never parsed or
    ///         validated), exactly as it arrived; None for a function call.
    ToolCall as "ToolCall" in "toolwire._model" {
        /// The provider's call id, or a generated ``ts_<choice>_<seq>`` (with ``MISSING_ID``) when none came.
        id,
        /// The tool name, taken on first arrival.
        name,
        /// The parsed arguments, exactly the value that was checked; ``{}`` for a custom tool call.
        arguments,
        /// The exact concatenated arguments text; None for a custom tool call.
        arguments_json,
        /// Position of the call in the order calls were opened in this stream.
        seq,
        /// The provider's ``index`` as sent, or None.
        index,
        /// The choice the call belongs to.
        choice,
        /// Warnings and infos found on the way.
        violations = empty(),
        /// The fingerprint of the tool definition the arguments were validated against, or None.
        tool_fingerprint = none(),
        /// Provider fields the next request needs back, as sent. Empty for most calls.
        extra = no_extra(),
        /// A custom tool call's input text, exactly as it arrived; None for a function call.
        input = none(),
    }
    methods {
        /// Always True: a ``ToolCall`` is valid by construction.
        #[getter]
        #[expect(clippy::unused_self, reason = "a Python property: the instance is its receiver")]
        fn ok(&self) -> bool {
            true
        }

        /// This call as the assistant side of a conversation records it, its id echoed exactly (see
        /// ``toolwire.formats.call_entry`` for each format's shape).
        ///
        /// Raises:
        ///     ValueError: ``"openai-completions"``, whose requests carry a prompt with no shape for a call, or an
        ///         unknown format.
        fn to_history<'py>(slf: &Bound<'py, Self>, format: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
            call_entry(slf.as_any(), format)
        }
    }
}

value_class! {
    /// A tool call that must not be dispatched; it still carries everything that arrived for it.
    ///
    /// Attributes:
    ///     id: The provider's call id, or a generated one, so that a tool result can still answer it.
    ///     name: The tool name, or None when none arrived.
    ///     arguments: The parsed arguments when the text was a complete JSON value, else None (always for a custom
    ///         tool call).
    ///     arguments_json: The arguments text received (up to the size limit); None for a custom tool call.
    ///     seq: Position of the call in the order calls were opened in this stream.
    ///     index: The provider's ``index`` as sent, or None.
    ///     choice: The choice the call belongs to.
    ///     errors: The error-severity violations that make it invalid (at least one).
    ///     violations: Its warnings and infos.
    ///     tool_fingerprint: The fingerprint of the declared tool its arguments were checked against, or None (no
    ///         tools given, unknown or missing name, server tool).
    ///     extra: Provider fields the next request needs back (see ``ToolCall.extra``).
    ///     input: A custom tool call's input text as received (see ``ToolCall.input``); None for a function call.
    InvalidToolCall as "InvalidToolCall" in "toolwire._model" {
        /// The provider's call id, or a generated one, so that a tool result can still answer it.
        id,
        /// The tool name, or None when none arrived.
        name,
        /// The parsed arguments when the text was a complete JSON value, else None.
        arguments,
        /// The arguments text received (up to the size limit); None for a custom tool call.
        arguments_json,
        /// Position of the call in the order calls were opened in this stream.
        seq,
        /// The provider's ``index`` as sent, or None.
        index,
        /// The choice the call belongs to.
        choice,
        /// The error-severity violations that make it invalid (at least one).
        errors,
        /// Its warnings and infos.
        violations = empty(),
        /// The fingerprint of the declared tool its arguments were checked against, or None.
        tool_fingerprint = none(),
        /// Provider fields the next request needs back (see ``ToolCall.extra``).
        extra = no_extra(),
        /// A custom tool call's input text as received; None for a function call.
        input = none(),
    }
    methods {
        /// Always False.
        #[getter]
        #[expect(clippy::unused_self, reason = "a Python property: the instance is its receiver")]
        fn ok(&self) -> bool {
            false
        }

        /// This call as the assistant side of a conversation records it (see ``ToolCall.to_history``).
        ///
        /// An invalid call is part of the turn too: its tool result (``to_tool_result``) must answer a call the
        /// provider knows. Its arguments text is replayed as received (``{}`` when none came); Anthropic's
        /// ``input``, which must be an object, is ``{}`` when the text was no object.
        fn to_history<'py>(slf: &Bound<'py, Self>, format: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
            call_entry(slf.as_any(), format)
        }

        /// The tool-result message that tells the model what was wrong, so it can try again on its next turn.
        ///
        /// The content is compact JSON: ``{"error": "invalid_tool_call", "tool", "problems": [...],
        /// "available_tools" (for an unknown tool), "instruction"}``, with at most 20 problems (``more_problems``
        /// counts the rest); see ``toolwire.formats.tool_result`` for each format's message.
        ///
        /// Raises:
        ///     ValueError: ``"openai-completions"``, whose requests have no message to answer a call with, or an
        ///         unknown format.
        fn to_tool_result<'py>(
            slf: &Bound<'py, Self>,
            format: &Bound<'py, PyAny>,
        ) -> PyResult<Bound<'py, PyAny>> {
            static TOOL_RESULT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
            TOOL_RESULT.import(slf.py(), "toolwire.formats", "tool_result")?.call1((slf, format))
        }
    }
}

value_class! {
    /// A value of a snapshot that is still arriving, never shown as final (``{"n": 12`` is not ``{"n": 12}``).
    ///
    /// Attributes:
    ///     kind: ``"string"``, ``"number"`` or ``"literal"`` (``true``, ``false``, ``null`` being spelled), or
    ///         ``"value"`` for a member whose key arrived and whose value has not started.
    ///     text: What arrived so far: a string's decoded text (an escape still arriving left out), a number's or a
    ///         literal's characters.
    Pending as "Pending" in "toolwire._model" {
        /// ``"string"``, ``"number"``, ``"literal"`` or ``"value"``.
        kind,
        /// What arrived so far.
        text,
    }
}
