"""The progress bar of ``toolwire matrix``: one line on stderr, redrawn after each run, only on a terminal."""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

from toolwire.cases.report import TIMES
from toolwire.cases.run._run import RunProgress

__all__ = ["ProgressBar"]


class ProgressBar:
    """Draws ``matrix [█████░░░░] 12/40  1 failed  <case> x <model>`` on a terminal, nothing elsewhere.

    Use it as the runner's ``on_progress`` and ``close()`` it at the end (or use it as a context manager), which
    clears the line so the report starts on a clean one.
    """

    def __init__(self, stream: TextIO | None = None, *, enabled: bool | None = None, width: int = 24) -> None:
        """Draw on ``stream`` (stderr by default) when it is a terminal, or when ``enabled`` says so."""
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.width = width
        self.failed = 0
        self._drawn = False

    def line(self, progress: RunProgress) -> str:
        """The line for a progress report, fitted to the terminal's width."""
        filled = round(self.width * progress.done / progress.total) if progress.total else self.width
        bar = "█" * filled + "░" * (self.width - filled)
        count = f"{progress.done}/{progress.total}"
        failed = f"  {self.failed} failed" if self.failed else ""
        text = f"matrix [{bar}] {count}{failed}  {progress.case} {TIMES} {progress.model}"
        columns = shutil.get_terminal_size((100, 20)).columns - 1
        return text if len(text) <= columns else text[: max(columns - 1, 0)] + "…"

    def __call__(self, progress: RunProgress) -> None:
        """Count the run and redraw."""
        self.failed += not progress.record.passed
        if self.enabled:
            self.stream.write("\r\x1b[2K" + self.line(progress))
            self.stream.flush()
            self._drawn = True

    def close(self) -> None:
        """Clear the line."""
        if self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._drawn = False

    def __enter__(self) -> ProgressBar:
        """Return self."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Clear the line."""
        self.close()
