//! The hand-over: the calls the core handed over become Python objects, and no exception loses one.
//!
//! A call leaves the core's queue only into [`HandOver::collect`], which records its object in the stream's result
//! the moment it exists, before any Python code of the user's (an `on_violation` callback, the caller of a step) can
//! run and raise. A call whose building is interrupted (a `KeyboardInterrupt` surfaces in the first Python code that
//! runs, which may be a call class's `__init__`) stays queued and is built by the next step or by `result()`. Built
//! calls wait in `ready` until a step returns them: an exception between building and returning leaves them there
//! for the next step, and they are in the result all along.

use std::collections::VecDeque;

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
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
    // Findings made while building a call (a number Python cannot hold), each with the position in the core's log it
    // belongs at, waiting for `notify`.
    late: VecDeque<(usize, Violation)>,
    // Violations of the core's log notified or skipped so far: the position of the next one.
    notified: usize,
}

struct Built {
    order: (i64, usize),
    valid: bool,
    object: Py<PyAny>,
}

impl HandOver {
    pub(crate) fn new(max_violations: usize) -> Self {
        Self {
            max_violations,
            unbuilt: VecDeque::new(),
            ready: Vec::new(),
            built: Vec::new(),
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
            let object = output::handed_over(py, call, parsed, fingerprint, payloads)?.unbind();
            let order = (call.choice, call.seq);
            let valid = call.is_valid();
            self.unbuilt.pop_front();
            self.built.push(Built {
                order,
                valid,
                object: object.clone_ref(py),
            });
            self.ready.push(object);
        }
        Ok(())
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
        entry.object = call.clone().unbind();
        Ok(())
    }

    /// The result's valid and invalid calls, each ordered by `(choice, seq)`.
    pub(crate) fn calls<'py>(&self, py: Python<'py>) -> (Vec<Bound<'py, PyAny>>, Vec<Bound<'py, PyAny>>) {
        let mut ordered: Vec<&Built> = self.built.iter().collect();
        ordered.sort_by_key(|call| call.order);
        let (valid, invalid): (Vec<&Built>, Vec<&Built>) = ordered.into_iter().partition(|call| call.valid);
        let bind = |calls: Vec<&Built>| calls.into_iter().map(|call| call.object.bind(py).clone()).collect();
        (bind(valid), bind(invalid))
    }
}
