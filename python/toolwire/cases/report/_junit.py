"""The matrix as JUnit XML for CI: a ``<testsuite>`` per model, a ``<testcase>`` per case and model.

A cell below its threshold is a ``<failure>`` (type: its failure codes; text: every failure with its diff); a cell
where no repeat got an answer is an ``<error>``, and so is a cell whose model could not be reached (type
``unreachable``: the endpoint is down or wrong, which is not a failure of the model); a cell at its threshold with
failed repeats passes, and says what failed in ``<system-out>``, so that a dashboard stays green while the flakiness
stays visible.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from toolwire.cases.report._model import Cell, Matrix, failure_groups, percent
from toolwire.contract._report import _xml_text

__all__ = ["render_junit"]


def _details(cell: Cell) -> str:
    lines = []
    for group in failure_groups(cell):
        lines.append(f"{group.code}: {group.message} ({group.which})")
        lines.extend(f"    {line}" for line in group.diff.splitlines())
    for run in cell.runs:
        lines.extend(f"retried (repeat {run.repeat}): {retry}" for retry in run.retries)
    return "\n".join(lines)


def render_junit(result: Matrix) -> str:
    """The matrix as a JUnit XML document."""
    root = ET.Element("testsuites", name="toolwire.matrix")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for spec in result.models:
        suite = ET.SubElement(root, "testsuite", name=_xml_text(spec.label))
        properties = ET.SubElement(suite, "properties")
        for key in ("format", "model", "base_url"):
            ET.SubElement(properties, "property", name=key, value=_xml_text(str(getattr(spec, key))))
        counts = {"tests": 0, "failures": 0, "errors": 0}
        seconds = 0.0
        for info in result.cases:
            cell = result.cell(info.name, spec.label)
            counts["tests"] += 1
            elapsed = sum(run.seconds for run in cell.runs)
            seconds += elapsed
            case = ET.SubElement(
                suite,
                "testcase",
                classname=_xml_text(f"toolwire.matrix.{spec.label}"),
                name=_xml_text(info.name),
                time=f"{elapsed:.3f}",
            )
            message = f"{cell.fraction} passed, needs {percent(cell.min_pass_rate)}: {', '.join(cell.codes)}"
            if cell.status == "unreachable":
                counts["errors"] += 1
                cause = result.unreachable_models()[cell.model]
                element = ET.SubElement(case, "error", message=_xml_text(f"unreachable: {cause}"), type="unreachable")
                element.text = _xml_text(_details(cell))
            elif cell.status == "error":
                counts["errors"] += 1
                element = ET.SubElement(case, "error", message=_xml_text(message), type="error")
                element.text = _xml_text(_details(cell))
            elif not cell.ok:
                counts["failures"] += 1
                element = ET.SubElement(case, "failure", message=_xml_text(message), type=" ".join(cell.codes))
                element.text = _xml_text(_details(cell))
            elif cell.status == "flaky":
                note = f"flaky, at threshold ({cell.fraction}, needs {percent(cell.min_pass_rate)})\n{_details(cell)}"
                ET.SubElement(case, "system-out").text = _xml_text(note)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("skipped", "0")
        suite.set("time", f"{seconds:.3f}")
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("skipped", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
