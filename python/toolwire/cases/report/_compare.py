"""``toolwire matrix --compare OLD.json NEW.json``: what changed between two runs of the matrix.

Both files are JSON reports (``--output FILE.json``). Cells are matched by case name and model label. The comparison
lists cells newly below their threshold (regressions), cells newly at it (fixes), every other change of pass rate,
cells whose failure codes changed at the same rate, and the cases and models only one run has.

Exit status under each policy (``toolwire matrix --fail-on`` error, warning, never): ``threshold`` (error, the
default) 1 when a cell is newly below its threshold; ``any`` (warning) 1 when any cell's pass rate dropped; ``never``
0. A cell whose model could not be reached in either run (status
``unreachable``) measures nothing: it is listed as not compared, never as a regression or a fix.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from toolwire._common._json_data import json_fields
from toolwire.cases.report._model import REPORT_SCHEMA, TIMES, FailOn

__all__ = ["CellChange", "Comparison", "compare_reports", "load_report"]

Change = Literal["regressed", "fixed", "dropped", "improved", "codes", "same", "unreachable"]


def load_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a JSON report written by ``toolwire matrix --output FILE.json``.

    Raises:
        FileNotFoundError: No such file.
        ValueError: Not JSON, or not a matrix report (the message names the file and the fix).
    """
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ValueError(f"{path}: not JSON ({error}); --compare takes files written by --output FILE.json") from None
    if not isinstance(document, dict) or document.get("schema") != REPORT_SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise ValueError(
            f"{path}: not a matrix report (schema {found!r}, expected {REPORT_SCHEMA!r}); "
            "--compare takes files written by toolwire matrix --output FILE.json"
        )
    for position, cell in enumerate(document.get("cells", [])):
        for key in ("case", "model", "passed", "total", "ok"):
            if not isinstance(cell, dict) or key not in cell:
                raise ValueError(f"{path}: /cells/{position}/{key} is missing; the report is damaged, write it again")
    return dict(document)


@dataclass(frozen=True)
class CellChange:
    """One cell present in both runs.

    Attributes:
        case: The case.
        model: The model's label.
        old: ``(passed, total, ok)`` before.
        new: ``(passed, total, ok)`` after.
        old_codes: The failure codes before.
        new_codes: The failure codes after.
        change: ``regressed`` (newly below threshold), ``fixed`` (newly at it), ``dropped`` / ``improved`` (the
            pass rate moved, the verdict did not), ``codes`` (same rate, other failures), ``same``, or
            ``unreachable`` (the model could not be reached in one of the runs: not compared).
    """

    case: str
    model: str
    old: tuple[int, int, bool]
    new: tuple[int, int, bool]
    old_codes: tuple[str, ...]
    new_codes: tuple[str, ...]
    change: Change

    @property
    def delta(self) -> float:
        """The change of pass rate (new minus old, from -1 to 1)."""
        return _rate(self.new) - _rate(self.old)

    def as_dict(self) -> dict[str, Any]:
        """The change as JSON data."""
        old, new = _side(self.old, self.old_codes), _side(self.new, self.new_codes)
        return json_fields(self, "case model change old new delta", old=old, new=new, delta=round(self.delta, 6))


def _side(counts: tuple[int, int, bool], codes: tuple[str, ...]) -> dict[str, Any]:
    passed, total, ok = counts
    return {"passed": passed, "total": total, "ok": ok, "codes": list(codes)}


def _rate(counts: tuple[int, int, bool]) -> float:
    return counts[0] / counts[1] if counts[1] else 0.0


@dataclass(frozen=True)
class Comparison:
    """What changed between two runs.

    Attributes:
        old: The older report's file.
        new: The newer report's file.
        cells: Every cell both runs have, in the newer run's order.
        cases_added: Cases only the newer run has.
        cases_removed: Cases only the older run has.
        models_added: Model labels only the newer run has.
        models_removed: Model labels only the older run has.
    """

    old: str
    new: str
    cells: tuple[CellChange, ...]
    cases_added: tuple[str, ...]
    cases_removed: tuple[str, ...]
    models_added: tuple[str, ...]
    models_removed: tuple[str, ...]

    def of(self, change: Change) -> tuple[CellChange, ...]:
        """The cells with one kind of change."""
        return tuple(cell for cell in self.cells if cell.change == change)

    @property
    def changed(self) -> bool:
        """Anything differs: a cell, a case or a model."""
        return any(cell.change != "same" for cell in self.cells) or bool(
            self.cases_added or self.cases_removed or self.models_added or self.models_removed
        )

    def exit_status(self, fail_on: FailOn = "threshold") -> int:
        """1 for a regression under the policy (see the module docstring), else 0."""
        if fail_on == "threshold":
            return 1 if self.of("regressed") else 0
        if fail_on == "any":
            return 1 if any(cell.delta < 0 for cell in self.cells) else 0
        return 0

    def as_dict(self) -> dict[str, Any]:
        """The comparison as JSON data."""
        keys = "old new changed summary cases_added cases_removed models_added models_removed cells"
        summary = {kind: len(self.of(kind)) for kind in _TITLES}
        return json_fields(self, keys, summary=summary, cells=[cell for cell in self.cells if cell.change != "same"])

    def render(self, fmt: str = "text") -> str:
        """The comparison as ``text``, ``markdown`` or ``json``."""
        if fmt == "json":
            return json.dumps(self.as_dict(), indent=2, ensure_ascii=False) + "\n"
        return _render(self, markdown=fmt == "markdown")


_TITLES: Mapping[Change, str] = {
    "regressed": "Newly below threshold",
    "fixed": "Newly at threshold",
    "dropped": "Pass rate dropped (verdict unchanged)",
    "improved": "Pass rate rose (verdict unchanged)",
    "codes": "Other failures at the same pass rate",
    "unreachable": "Not compared: the model could not be reached",
}


def _line(cell: CellChange) -> str:
    if cell.change == "unreachable":
        runs = [name for name, codes in (("old", cell.old_codes), ("new", cell.new_codes)) if "unreachable" in codes]
        return f"{cell.case} {TIMES} {cell.model}: unreachable in the {' and the '.join(runs)} run"
    old, new = f"{cell.old[0]}/{cell.old[1]}", f"{cell.new[0]}/{cell.new[1]}"
    delta = f"{cell.delta:+.0%}"
    codes = ""
    if cell.old_codes != cell.new_codes:
        codes = f"  codes: {', '.join(cell.old_codes) or '—'} → {', '.join(cell.new_codes) or '—'}"
    return f"{cell.case} {TIMES} {cell.model}: {old} → {new} ({delta}){codes}"


def _render(comparison: Comparison, *, markdown: bool) -> str:
    bullet = "- " if markdown else "  "
    title = f"toolwire matrix --compare  {comparison.old}  →  {comparison.new}"
    lines = [f"### {title}" if markdown else title, ""]
    for kind, heading in _TITLES.items():
        found = comparison.of(kind)
        if found:
            lines.append(f"**{heading}** ({len(found)})" if markdown else f"{heading} ({len(found)}):")
            lines += [bullet + (f"`{_line(cell)}`" if markdown else _line(cell)) for cell in found]
            lines.append("")
    for label, names in (
        ("Cases added", comparison.cases_added),
        ("Cases removed", comparison.cases_removed),
        ("Models added", comparison.models_added),
        ("Models removed", comparison.models_removed),
    ):
        if names:
            lines.append(f"{label}: {', '.join(names)}")
    if not comparison.changed:
        lines.append("No change: every cell has the same pass rate and failures, the same cases and models.")
    counts = {kind: len(comparison.of(kind)) for kind in _TITLES}
    same = len(comparison.of("same"))
    if lines[-1]:
        lines.append("")
    lines += [
        f"{counts['regressed']} regressed, {counts['fixed']} fixed, {counts['dropped']} dropped, "
        f"{counts['improved']} improved, {counts['codes']} with other failures, {same} unchanged"
        + (f", {counts['unreachable']} not compared (unreachable)" if counts["unreachable"] else ""),
    ]
    return "\n".join(lines).strip("\n") + "\n"


def _counts(cell: Mapping[str, Any]) -> tuple[int, int, bool]:
    return int(cell["passed"]), int(cell["total"]), bool(cell["ok"])


def _kind(old: tuple[int, int, bool], new: tuple[int, int, bool], same_codes: bool) -> Change:
    if old[2] and not new[2]:
        return "regressed"
    if new[2] and not old[2]:
        return "fixed"
    delta = _rate(new) - _rate(old)
    if delta < 0:
        return "dropped"
    if delta > 0:
        return "improved"
    return "same" if same_codes else "codes"


def _names(items: Sequence[Mapping[str, Any]], key: str) -> list[str]:
    return [str(item[key]) for item in items]


def compare_reports(
    old: Mapping[str, Any], new: Mapping[str, Any], *, old_name: str = "old", new_name: str = "new"
) -> Comparison:
    """Compare two JSON reports (``load_report``).

    Args:
        old: The earlier run.
        new: The later run.
        old_name: How to call the earlier run in the output (its file).
        new_name: How to call the later run.

    Returns:
        The comparison.
    """
    old_cells = {(cell["case"], cell["model"]): cell for cell in old.get("cells", [])}
    changes = []
    for cell in new.get("cells", []):
        before = old_cells.get((cell["case"], cell["model"]))
        if before is None:
            continue
        old_codes, new_codes = tuple(before.get("codes", ())), tuple(cell.get("codes", ()))
        if "unreachable" in (before.get("status"), cell.get("status")):
            kind: Change = "unreachable"
        else:
            kind = _kind(_counts(before), _counts(cell), old_codes == new_codes)
        changes.append(
            CellChange(cell["case"], cell["model"], _counts(before), _counts(cell), old_codes, new_codes, kind)
        )
    old_cases, new_cases = _names(old.get("cases", []), "name"), _names(new.get("cases", []), "name")
    old_models, new_models = _names(old.get("models", []), "label"), _names(new.get("models", []), "label")
    return Comparison(
        old_name,
        new_name,
        tuple(changes),
        tuple(name for name in new_cases if name not in old_cases),
        tuple(name for name in old_cases if name not in new_cases),
        tuple(name for name in new_models if name not in old_models),
        tuple(name for name in old_models if name not in new_models),
    )
