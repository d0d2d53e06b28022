"""The matrix as one self-contained HTML file: the case-by-model grid, and each failing cell's details.

Everything is inline (CSS, a small script, no fonts or images), so the file opens from disk, from a CI artifact or
from a mail attachment with no network. The grid's cells show ``k/n`` coloured by status (``unreachable`` for a cell
whose model could not be reached, with why in its section and in a list above the grid); a cell that did not pass
every repeat links to a ``<details>`` section below the grid with, for each failure, its code, message and diff
(expected against received), then the expectation beside the calls each failed repeat received, and the contract
findings of those answers. The script opens the section a cell links to (on a click, or when the page is opened
with ``#cell-R-C`` in its address), lets the reader keep only rows with failures, and marks the document
``data-ready`` once it has run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from typing import Any, Final

from toolwire._model import InvalidToolCall
from toolwire.cases._model import Turn
from toolwire.cases.report._model import TIMES, Cell, Matrix, RunRecord, failure_groups, percent, rows
from toolwire.cases.report._text import MARKS, cell_text, heading, totals, unreachable_lines

__all__ = ["cell_id", "expectation_lines", "render_html"]

# Turn text beyond this many characters is cut: the report is for the calls, not the prose.
_TEXT_CHARS: Final = 600

_CSS: Final = """
:root { --bg: #fff; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --pass: #dafbe1; --flaky: #fff8c5;
  --fail: #ffebe9; --error: #fbefff; --unreachable: #ddf4ff; --exp: #0550ae; --got: #cf222e; --code: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d;
  --pass: #12361f; --flaky: #3b2e00; --fail: #4c1418; --error: #3a1d4a; --unreachable: #0c2d48; --exp: #79c0ff;
  --got: #ff7b72;
  --code: #161b22; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 24px; background: var(--bg); color: var(--fg);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.meta, .legend, .expect, .repeats, .note { color: var(--muted); }
.controls { margin: 12px 0; display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
table.grid { border-collapse: collapse; margin-top: 8px; }
.grid th, .grid td { border: 1px solid var(--line); padding: 6px 10px; text-align: center; }
.grid th[scope=row] { text-align: left; font-weight: normal; }
.grid th[scope=row] .case { font-family: ui-monospace, monospace; font-weight: 600; display: block; }
.grid th[scope=row] .expect { font-size: 12px; }
.grid th[scope=col] .where { display: block; font-size: 12px; font-weight: normal; color: var(--muted); }
.grid td.pass { background: var(--pass); } .grid td.flaky { background: var(--flaky); }
.grid td.fail { background: var(--fail); font-weight: 600; } .grid td.error { background: var(--error); }
.grid td.unreachable { background: var(--unreachable); font-style: italic; }
.grid td a { color: inherit; display: block; text-decoration: none; } .grid td a:hover { text-decoration: underline; }
.grid td .codes { display: block; font-size: 11px; font-weight: normal; color: var(--muted); }
.grid td.selected { outline: 3px solid var(--exp); outline-offset: -3px; }
body.only-failing .grid tbody tr:not(.has-failures) { display: none; }
details.cell { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; }
details.cell > summary { cursor: pointer; padding: 8px 12px; font-weight: 600; }
details.cell[open] > summary { border-bottom: 1px solid var(--line); }
details.cell > .body { padding: 4px 12px 12px; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
code.code { background: var(--code); border-radius: 4px; padding: 1px 5px; }
pre { background: var(--code); border-radius: 6px; padding: 8px 10px; margin: 6px 0; white-space: pre-wrap;
  overflow-wrap: anywhere; }
pre.diff .exp { color: var(--exp); } pre.diff .got { color: var(--got); }
.versus { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.versus > div { min-width: 0; }
ul.findings { padding-left: 20px; } ul.findings li { margin: 4px 0; }
.warning { color: var(--muted); }
"""

_SCRIPT: Final = """
(function () {
  "use strict";
  function select(id) {
    document.querySelectorAll("td.selected").forEach(function (cell) { cell.classList.remove("selected"); });
    var link = document.querySelector('td a[href="#' + id + '"]');
    if (link) { link.parentElement.classList.add("selected"); }
  }
  function openCell(id, scroll) {
    var section = id ? document.getElementById(id) : null;
    if (!section || section.tagName !== "DETAILS") { return false; }
    section.open = true;
    select(id);
    if (scroll) { section.scrollIntoView({ block: "start" }); }
    return true;
  }
  function fromAddress() { openCell(decodeURIComponent(location.hash.slice(1)), true); }
  document.querySelectorAll("table.grid td a").forEach(function (link) {
    link.addEventListener("click", function () { openCell(link.getAttribute("href").slice(1), false); });
  });
  var only = document.getElementById("only-failing");
  if (only) {
    only.addEventListener("change", function () { document.body.classList.toggle("only-failing", only.checked); });
  }
  var all = document.getElementById("open-all");
  if (all) {
    all.addEventListener("click", function () {
      var sections = document.querySelectorAll("details.cell");
      var open = Array.prototype.some.call(sections, function (s) { return !s.open; });
      sections.forEach(function (s) { s.open = open; });
      all.textContent = open ? "close every failure" : "open every failure";
    });
  }
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
  document.documentElement.setAttribute("data-ready", "true");
})();
"""


def cell_id(row: int, column: int) -> str:
    """The id of a cell's details section (``cell-<row>-<column>``, both from 0): the address to open it with."""
    return f"cell-{row}-{column}"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)


def expectation_lines(expectation: Mapping[str, Any]) -> list[str]:
    """The expectation (``CaseInfo.expectation``) as lines: each alternative's mode, then its steps, one per line."""
    lines = []
    if expectation.get("no_tool_call"):
        lines.append("no tool call (and no call-looking text)")
    alternatives = expectation.get("one_of", [])
    for number, alternative in enumerate(alternatives):
        prefix = f"one_of #{number} " if len(alternatives) > 1 else ""
        lines.append(f"{prefix}mode {alternative.get('mode')}:")
        for position, step in enumerate(alternative.get("steps", [])):
            calls = " + ".join(f"{call.get('name')} {_compact(call.get('arguments', {}))}" for call in step)
            lines.append(f"  step {position}: {calls}")
    if "finish_reason" in expectation:
        lines.append(f"finish reason: {' or '.join(expectation['finish_reason'])}")
    return lines or ["any answer"]


def _diff(diff: str) -> str:
    lines = []
    for line in diff.splitlines():
        kind = "exp" if line.startswith("-") else "got" if line.startswith("+") else ""
        lines.append(f'<span class="{kind}">{escape(line)}</span>' if kind else escape(line))
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


def _turn(number: int, turn: Turn) -> str:
    parts = [f"<h4>turn {number} · finish reason <code>{escape(str(turn.finish_reason))}</code></h4>"]
    if turn.calls:
        received = []
        for call in turn.calls:
            if isinstance(call, InvalidToolCall):
                received.append(f"{call.name} {call.arguments_json}  (invalid)")
                received.extend(
                    f"    {error.code.value}{' ' + error.path if error.path else ''}: {error.message}"
                    for error in call.errors
                )
            else:
                received.append(f"{call.name} {_compact(call.arguments)}")
        shown = "\n".join(received)
        parts.append(f"<pre>{escape(shown)}</pre>")
    else:
        parts.append('<p class="note">no tool call</p>')
    if turn.text:
        text = turn.text if len(turn.text) <= _TEXT_CHARS else turn.text[: _TEXT_CHARS - 1] + "…"
        parts.append(f'<p class="note">text:</p><pre>{escape(text)}</pre>')
    return "\n".join(parts)


def _findings(run: RunRecord) -> str:
    if run.result is None:
        return ""
    items = []
    for number, turn in enumerate(run.result.turns):
        for check in turn.contract.failed:
            level = ' <span class="warning">(warning)</span>' if check.severity == "warning" else ""
            evidence = escape(check.evidence)
            items.append(f"<li>turn {number}: <code class='code'>{escape(check.id)}</code>{level} — {evidence}</li>")
    if not items:
        return '<p class="note">none: every answer keeps its format\'s contract</p>'
    return '<ul class="findings">' + "".join(items) + "</ul>"


def _run_section(run: RunRecord, expectation: str) -> str:
    parts = [f"<h3>repeat {run.repeat}</h3>"]
    if run.error is not None or run.result is None:
        parts.append(f"<p>no answer: {escape(run.error or 'unknown')}</p>")
    else:
        turns = "\n".join(_turn(number, turn) for number, turn in enumerate(run.result.turns))
        parts.append(
            '<div class="versus"><div><h4>expected</h4>'
            f"<pre>{escape(expectation)}</pre></div><div><h4>received</h4>{turns or '<p>no turn</p>'}</div></div>"
        )
        parts.append("<h4>contract findings</h4>" + _findings(run))
    for retry in run.retries:
        parts.append(f'<p class="note">retried: {escape(retry)}</p>')
    return "\n".join(parts)


def _cell_section(cell: Cell, row: int, column: int, expectation: str) -> str:
    codes = ", ".join(cell.codes)
    verdict = (
        "not judged: the model could not be reached"
        if cell.status == "unreachable"
        else f"{cell.fraction} passed (needs {percent(cell.min_pass_rate)})"
    )
    summary = f"{MARKS[cell.status]} {escape(cell.case)} {TIMES} {escape(cell.model)} — {verdict} — {escape(codes)}"
    parts = [
        f'<details class="cell {cell.status}" id="{cell_id(row, column)}" data-case="{escape(cell.case)}" '
        f'data-model="{escape(cell.model)}" data-status="{cell.status}">',
        f"<summary>{summary}</summary>",
        '<div class="body">',
        "<h3>failures</h3>",
    ]
    for group in failure_groups(cell):
        parts.append(
            f'<div class="failure" data-code="{escape(group.code)}"><p><code class="code">{escape(group.code)}</code> '
            f'{escape(group.message)} <span class="repeats">({group.which})</span></p>'
            + (_diff(group.diff) if group.diff else "")
            + "</div>"
        )
    parts.extend(_run_section(run, expectation) for run in cell.failed_runs)
    parts += ["</div>", "</details>"]
    return "\n".join(parts)


def render_html(result: Matrix) -> str:
    """The matrix as one self-contained HTML document (see the module docstring)."""
    title = f"toolwire matrix — {result.source}"
    started = f" · started {escape(result.started)}" if result.started else ""
    head = [
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        "<header>",
        "<h1>toolwire matrix</h1>",
        f'<p class="meta">{escape(heading(result))}{started}</p>',
        f'<p class="summary">{escape(totals(result))}</p>',
        "</header>",
    ]
    grid = ['<table class="grid" id="grid">', "<thead><tr><th>case</th>"]
    for spec in result.models:
        # Which API a column spoke to, in sight: the same model name behind two servers is two columns.
        where = f"{spec.format} · {spec.base_url}"
        grid.append(
            f'<th scope="col" title="{escape(spec.compact())}">{escape(spec.label)}'
            f'<span class="where">{escape(where)}</span></th>'
        )
    grid.append("</tr></thead><tbody>")
    sections = []
    for row, (info, cells) in enumerate(rows(result)):
        marked = ' class="has-failures"' if any(cell.status != "pass" for cell in cells) else ""
        grid.append(
            f'<tr data-case="{escape(info.name)}"{marked}>'
            f'<th scope="row"><span class="case">{escape(info.name)}</span>'
            f'<span class="expect">{escape(info.expected)}</span></th>'
        )
        expectation = "\n".join(expectation_lines(info.expectation))
        for column, cell in enumerate(cells):
            text = cell_text(cell)
            attributes = f'class="cell {cell.status}" data-model="{escape(cell.model)}" data-status="{cell.status}"'
            if cell.status == "pass":
                grid.append(f"<td {attributes}>{text}</td>")
                continue
            codes = f'<span class="codes">{escape(", ".join(cell.codes))}</span>'
            grid.append(f'<td {attributes}><a href="#{cell_id(row, column)}">{text}{codes}</a></td>')
            sections.append(_cell_section(cell, row, column, expectation))
        grid.append("</tr>")
    grid.append("</tbody></table>")
    legend = (
        f'<p class="legend">{MARKS["pass"]} every repeat passed · {MARKS["flaky"]} some failed, at the threshold · '
        f"{MARKS['fail']} below the threshold · {MARKS['error']} no answer. "
        "A cell that did not pass every repeat opens to its failures below.</p>"
    )
    controls = (
        '<div class="controls"><label><input type="checkbox" id="only-failing"> only rows with failures</label>'
        + ('<button type="button" id="open-all">open every failure</button>' if sections else "")
        + "</div>"
    )
    down = unreachable_lines(result)
    unreachable = (
        ['<section id="unreachable">', "<h2>Unreachable (not judged)</h2>", "<ul>"]
        + [f"<li>{escape(line)}</li>" for line in down]
        + ["</ul>", "</section>"]
        if down
        else []
    )
    body = [controls, *unreachable, *grid, legend]
    if sections:
        body += ['<section id="failures">', "<h2>What failed</h2>", *sections, "</section>"]
    else:
        body.append('<p id="no-failures">Every repeat of every cell passed.</p>')
    tail = [f"<script>{_SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join([*head, *body, *tail]) + "\n"
