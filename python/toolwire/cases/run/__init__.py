"""The matrix runner: every case, model and repeat sent (with retries and a response cache) and judged."""

from __future__ import annotations

from toolwire.cases.run._cache import CacheMissError, ResponseCache
from toolwire.cases.run._http import RetryPolicy
from toolwire.cases.run._progress import ProgressBar
from toolwire.cases.run._run import RunProgress, arun_matrix, run_matrix

__all__ = [
    "CacheMissError",
    "ProgressBar",
    "ResponseCache",
    "RetryPolicy",
    "RunProgress",
    "arun_matrix",
    "run_matrix",
]
