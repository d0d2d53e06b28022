//! Python's cyclic garbage collector held off while a batch's results are built.
//!
//! A batch's results are one new list per call (and a few objects per finding), none of which can form a cycle; yet
//! each few hundred of them start a collection, and the older generations' collections walk every object the program
//! holds, so on a large heap building 100,000 results cost more than checking them. The collector is paused for the
//! build and resumed after it (the objects then count towards the next collection as usual), only when it was running
//! and only with the GIL: the build then holds the interpreter throughout, so no other Python code can see or change
//! the pause. Without the GIL another thread's `gc.disable()` could be undone by the resumption, so nothing is paused.

use pyo3::intern;
use pyo3::prelude::*;

/// The collector paused until this is dropped (see the module's documentation).
pub(crate) struct Paused<'py> {
    resume: Option<Bound<'py, PyAny>>,
}

/// Pauses the collector when it is running and the interpreter has a GIL.
pub(crate) fn pause(py: Python<'_>) -> PyResult<Paused<'_>> {
    let gc = py.import(intern!(py, "gc"))?;
    let gil_enabled = match py.import(intern!(py, "sys"))?.getattr(intern!(py, "_is_gil_enabled")) {
        Ok(is_enabled) => is_enabled.call0()?.is_truthy()?,
        // Before 3.13 every build has a GIL.
        Err(_) => true,
    };
    if !gil_enabled || !gc.call_method0(intern!(py, "isenabled"))?.is_truthy()? {
        return Ok(Paused { resume: None });
    }
    let resume = gc.getattr(intern!(py, "enable"))?;
    gc.call_method0(intern!(py, "disable"))?;
    Ok(Paused { resume: Some(resume) })
}

impl Drop for Paused<'_> {
    fn drop(&mut self) {
        if let Some(resume) = self.resume.take()
            && let Err(error) = resume.call0()
        {
            // `gc.enable` does not fail; were it to, the error is shown rather than lost.
            error.write_unraisable(resume.py(), Some(&resume));
        }
    }
}
