//! The hand-over: the calls the core handed over become Python objects, and no exception loses one.
//!
//! A call leaves the core's queue only into [`HandOver::collect`], which records its object in the stream's result
//! the moment it exists, before any Python code of the user's (an `on_violation` callback, the caller of a step) can
//! run and raise. A call whose building is interrupted (a `KeyboardInterrupt` surfaces in the first Python code that
//! runs, which may be a call class's `__init__`) stays queued and is built by the next step or by `result()`. Built
//! calls wait in `ready` until a step returns them: an exception between building and returning leaves them there
//! for the next step, and they are in the result all along.
//!
//! The result does not keep an object the consumer let go. Each call handed over is kept with the core's record of
//! it; a step after the next one lets go of every object only the result still holds (its reference count says so),
//! and the end lets go of the rest. The result's calls are then the objects the consumer still held when looked at,
//! and the others built again from their records, equal to those handed over, when the result is first asked for.
//! A Python object kept per call would make every garbage collection walk all the calls of a long stream (a text of
//! thousands of calls cost up to 18% more per byte than a short one), and would hold the arguments twice over (text
//! and value) for the stream's whole life. Looking one step late leaves the consumer's loop variable, still bound to
//! the call of the step before, out of it.

use std::collections::VecDeque;

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyString;
use toolwire_core::{Accumulator, Arguments, HandedOver, Violation};

use crate::output;
use crate::validators::ToolValidators;

/// The calls of one stream on their way from the core to the user.
pub(crate) struct HandOver {
    // `Limits.max_violations`, for a finding made while building a call.
    max_violations: usize,
    // Handed over by the core, not built yet (the front one's building was interrupted).
    unbuilt: VecDeque<HandedOver>,
    // Built and in the result, not yet returned by a step.
    ready: Vec<Py<PyAny>>,
    // Every call built, in hand-over order: the result's calls.
    built: Vec<Built>,
    // The calls of `built` looked at so far (each once), and where the calls of the last step that built any begin.
    looked_at: usize,
    last_step: usize,
    // Findings made while building a call (a number Python cannot hold), each with the position in the core's log it
    // belongs at, waiting for `notify`.
    late: VecDeque<(usize, Violation)>,
    // Violations of the core's log notified or skipped so far: the position of the next one.
    notified: usize,
}

struct Built {
    order: (i64, usize),
    valid: bool,
    kept: Kept,
}

/// A result's valid calls and its invalid ones.
pub(crate) type ValidAndInvalid<'py> = (Vec<Bound<'py, PyAny>>, Vec<Bound<'py, PyAny>>);

/// How the result keeps a call until it is asked for.
enum Kept {
    /// Handed over, and maybe held by the consumer: its object, and its record in case the consumer lets it go.
    Handed(Py<PyAny>, Box<Record>),
    /// Let go by the consumer: what building it again needs.
    Record(Box<Record>),
    /// Its object for good: held by the consumer when looked at, built for the result, or a repaired call.
    Object(Py<PyAny>),
}

struct Record {
    call: HandedOver,
    fingerprint: Option<Py<PyString>>,
}

/// Whether `object` is held by the result alone. Its reference count, which `PyO3` deprecates for free-threaded Python
/// (counts split between threads): a wrong answer there costs only identity (the call is built again, equal).
#[allow(
    deprecated,
    reason = "the safe way to read a reference count; `ffi::Py_REFCNT` needs unsafe"
)]
fn only_here(py: Python<'_>, object: &Py<PyAny>) -> bool {
    object.get_refcnt(py) == 1
}

impl Record {
    /// The call built again, equal to the one handed over.
    fn build<'py>(
        &mut self,
        py: Python<'py>,
        payloads: &[Py<PyAny>],
        max_violations: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        // A call whose arguments parsed once parses again; one that did not no longer holds a value.
        let parsed = if self.call.arguments == Arguments::Value {
            output::parse_arguments(py, &mut self.call, max_violations)
        } else {
            None
        };
        let fingerprint = self.fingerprint.as_ref().map(|fingerprint| fingerprint.clone_ref(py));
        output::handed_over(py, &self.call, parsed, fingerprint, payloads)
    }
}

impl HandOver {
    pub(crate) fn new(max_violations: usize) -> Self {
        Self {
            max_violations,
            unbuilt: VecDeque::new(),
            ready: Vec::new(),
            built: Vec::new(),
            looked_at: 0,
            last_step: 0,
            late: VecDeque::new(),
            notified: 0,
        }
    }

    /// Builds every call the core handed over and records it in the result. With `log` (an `on_violation` is
    /// waiting), a finding made while building is kept for [`HandOver::notify`].
    pub(crate) fn collect(
        &mut self,
        py: Python<'_>,
        accumulator: &mut Accumulator,
        validators: Option<&Py<ToolValidators>>,
        payloads: &[Py<PyAny>],
        log: bool,
    ) -> PyResult<()> {
        if accumulator.has_ready() {
            self.unbuilt.extend(accumulator.take_ready());
        }
        if !self.unbuilt.is_empty() {
            self.let_go(py, self.last_step);
            self.last_step = self.built.len();
        }
        while let Some(call) = self.unbuilt.front_mut() {
            // Parsing again after an interrupted building finds nothing new: the call no longer holds a value.
            let parsed = if call.arguments == Arguments::Value {
                let before = call.violations.len();
                let parsed = output::parse_arguments(py, call, self.max_violations);
                // A finding it added (or the VIOLATIONS_OMITTED it made room for) is reported as found.
                if log
                    && call.violations.len() > before
                    && let Some(finding) = call.violations.last()
                {
                    self.late.push_back((call.log_position, finding.clone()));
                }
                parsed
            } else {
                None
            };
            let fingerprint = validators
                .zip(call.name.as_deref())
                .and_then(|(validators, name)| validators.get().fingerprint_of(py, name));
            let kept_fingerprint = fingerprint.as_ref().map(|fingerprint| fingerprint.clone_ref(py));
            let object = output::handed_over(py, call, parsed, fingerprint, payloads)?.unbind();
            if let Some(call) = self.unbuilt.pop_front() {
                self.built.push(Built {
                    order: (call.choice, call.seq),
                    valid: call.is_valid(),
                    kept: Kept::Handed(
                        object.clone_ref(py),
                        Box::new(Record {
                            call,
                            fingerprint: kept_fingerprint,
                        }),
                    ),
                });
            }
            self.ready.push(object);
        }
        Ok(())
    }

    /// Looks at the calls handed over before `until` not looked at yet: one only the result holds becomes its
    /// record; one someone else holds stays the result's.
    pub(crate) fn let_go(&mut self, py: Python<'_>, until: usize) {
        let until = until.min(self.built.len());
        for entry in self.built.get_mut(self.looked_at..until).unwrap_or_default() {
            let kept = std::mem::replace(&mut entry.kept, Kept::Object(py.None()));
            entry.kept = match kept {
                Kept::Handed(object, record) if only_here(py, &object) => Kept::Record(record),
                Kept::Handed(object, _) => Kept::Object(object),
                other => other,
            };
        }
        self.looked_at = self.looked_at.max(until);
    }

    /// The end: the consumer has let go of every call it will not keep.
    pub(crate) fn ended(&mut self, py: Python<'_>) {
        self.let_go(py, self.built.len());
    }

    /// Whether calls were handed over that no step has returned yet (built or not).
    pub(crate) fn pending(&self, accumulator: &Accumulator) -> bool {
        !self.ready.is_empty() || !self.unbuilt.is_empty() || accumulator.has_ready()
    }

    /// The calls built and not yet returned, in hand-over order; [`HandOver::returned`] once a step returns them.
    pub(crate) fn ready(&self) -> &[Py<PyAny>] {
        &self.ready
    }

    /// The calls of [`HandOver::ready`] were returned by a step.
    pub(crate) fn returned(&mut self) {
        self.ready.clear();
    }

    /// Calls `callback` with every violation the core logged since the last time, in the order found, each finding
    /// made while building a call in its place among them. An exception from the callback propagates; the rest of
    /// the violations taken are skipped.
    pub(crate) fn notify(
        &mut self,
        py: Python<'_>,
        accumulator: &mut Accumulator,
        callback: &Py<PyAny>,
        payloads: &[Py<PyAny>],
    ) -> PyResult<()> {
        let log = accumulator.take_log();
        let start = self.notified;
        self.notified += log.len();
        let due = self.late.iter().take_while(|(at, _)| *at <= self.notified).count();
        let mut late: VecDeque<(usize, Violation)> = self.late.drain(..due).collect();
        let callback = callback.bind(py);
        for (position, violation) in (start..).zip(&log) {
            while late.front().is_some_and(|(at, _)| *at <= position) {
                if let Some((_, finding)) = late.pop_front() {
                    callback.call1((output::violation(py, &finding, payloads)?,))?;
                }
            }
            callback.call1((output::violation(py, violation, payloads)?,))?;
        }
        for (_, finding) in late {
            callback.call1((output::violation(py, &finding, payloads)?,))?;
        }
        Ok(())
    }

    /// Replaces the built call with the same `(choice, seq)` by `call` (a repaired one).
    pub(crate) fn amend(&mut self, call: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = call.py();
        let order: (i64, usize) = (
            call.getattr(intern!(py, "choice"))?.extract()?,
            call.getattr(intern!(py, "seq"))?.extract()?,
        );
        let valid: bool = call.getattr(intern!(py, "ok"))?.extract()?;
        let Some(entry) = self.built.iter_mut().find(|entry| entry.order == order) else {
            return Err(PyValueError::new_err(format!(
                "no call with choice={} seq={} was handed over",
                order.0, order.1
            )));
        };
        entry.valid = valid;
        entry.kept = Kept::Object(call.clone().unbind());
        Ok(())
    }

    /// The result's valid and invalid calls, each ordered by `(choice, seq)`: the first time, the objects not let go
    /// and the others built again from their records (equal to those handed over); the same objects every time
    /// after. A building interrupted by an exception leaves the calls not built yet as records, for the next time.
    pub(crate) fn calls<'py>(&mut self, py: Python<'py>, payloads: &[Py<PyAny>]) -> PyResult<ValidAndInvalid<'py>> {
        for entry in &mut self.built {
            let object = match &mut entry.kept {
                Kept::Object(_) => continue,
                Kept::Handed(object, _) => object.clone_ref(py),
                Kept::Record(record) => record.build(py, payloads, self.max_violations)?.unbind(),
            };
            entry.kept = Kept::Object(object);
        }
        let mut ordered: Vec<&Built> = self.built.iter().collect();
        ordered.sort_by_key(|call| call.order);
        let (valid, invalid): (Vec<&Built>, Vec<&Built>) = ordered.into_iter().partition(|call| call.valid);
        let bind = |calls: Vec<&Built>| {
            calls
                .into_iter()
                .filter_map(|call| match &call.kept {
                    Kept::Object(object) => Some(object.bind(py).clone()),
                    Kept::Handed(..) | Kept::Record(_) => None,
                })
                .collect()
        };
        Ok((bind(valid), bind(invalid)))
    }
}
