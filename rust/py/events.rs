//! The events of `toolwire.events`, built in Rust as the value classes are (`values.rs`): a stream that shows its
//! calls as they form makes one per fragment, where a frozen dataclass's `__init__` cost more than reading it.
//! `toolwire/_pipeline/_progress.py` keeps their dataclasses as the fallback of an interpreter without this extension.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::values::value_class;

value_class! {
    /// Content text of a choice, as it arrived.
    TextDelta as "TextDelta" in "toolwire._pipeline._progress" {
        /// The choice the text belongs to.
        choice,
        /// The text, as it arrived.
        text,
    }
}

value_class! {
    /// A call opened; its id and name as they stand then (a name may still come later: see ``ToolCallReady``).
    ToolCallStarted as "ToolCallStarted" in "toolwire._pipeline._progress" {
        /// The call's position in the order calls were opened.
        seq,
        /// The choice it belongs to.
        choice,
        /// The provider's ``index`` as sent, or None.
        index,
        /// Its id as it stands, or None.
        id,
        /// Its name as it stands, or None.
        name,
    }
}

value_class! {
    /// A piece of a call's arguments text, as it arrived.
    ArgumentsDelta as "ArgumentsDelta" in "toolwire._pipeline._progress" {
        /// The call's position in the order calls were opened.
        seq,
        /// The choice it belongs to.
        choice,
        /// The piece of arguments text.
        fragment,
    }
    hidden {
        /// What gives a call's snapshot by its seq: the stream's engine.
        snapshots,
    }
    methods {
        /// The call's arguments as they stand now.
        ///
        /// Complete values are values, the value still arriving a ``toolwire.Pending``. The live value, updated in
        /// place by later fragments: copy it to keep one.
        fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            self.snapshots.bind(py).call1((self.seq.bind(py),))
        }
    }
}

/// An event that hands a call over: the call, and its seq read from it.
macro_rules! hand_over_event {
    ($(#[doc = $doc:literal])* $rust:ident as $name:literal) => {
        value_class! {
            $(#[doc = $doc])*
            $rust as $name in "toolwire._pipeline._progress" {
                /// The call.
                call,
            }
            methods {
                /// The call's seq.
                #[getter]
                fn seq<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                    self.call.bind(py).getattr(pyo3::intern!(py, "seq"))
                }
            }
        }
    };
}

hand_over_event! {
    /// A whole, valid call, handed over.
    ToolCallReady as "ToolCallReady"
}

hand_over_event! {
    /// An invalid call, handed over (answer it with ``call.to_tool_result(format)``).
    ToolCallInvalid as "ToolCallInvalid"
}

value_class! {
    /// The stream ended.
    Finished as "Finished" in "toolwire._pipeline._progress" {
        /// The stream's result.
        result,
    }
}
