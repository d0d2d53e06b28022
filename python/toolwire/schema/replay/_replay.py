"""Replay: validate tool calls already made against the tools as they are now.

``replay_calls`` reads calls (``read_calls`` sources, or ``ObservedCall``s already at hand), validates them in
batches through ``toolwire.validate_many`` (the Rust core, the GIL released for the batch) and sums them up in a
``ReplayReport``: counts by tool and by violation code, the first failures with their ids and origins, the records
that are not calls, and the calls produced under another version of their tool's schema (a ``schema_fingerprint``
other than the tool's current one: the history replay, ``toolwire.RegistryHistory``, checks those against the
version they were made under).

A call fails when a violation of severity ``error`` is found (an unknown tool is ``UNKNOWN_TOOL``); warnings and
infos (``EMPTY_ARGUMENTS``...) are counted apart and do not fail it. A call recorded with its result (``result``, as
``toolwire.CallLog`` writes it) to a tool that declares an MCP ``outputSchema`` has the result checked too
(``toolwire.validate_result``: its shape, and ``structuredContent`` against the schema), its violations beside those
of the arguments; a log of such calls is read by the Python reader, about as fast as a log the core cannot read.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from itertools import chain, compress, islice
from operator import itemgetter
from pathlib import Path
from typing import Any, Final

from toolwire._common._json_data import json_fields
from toolwire._core import CallLogReader, ToolValidators
from toolwire._model import Severity, Violation
from toolwire._pipeline._bound import core
from toolwire.registry import ToolRegistry, core_validators
from toolwire.schema.calls import (
    ObservedCall,
    RawCall,
    Source,
    UnreadableRecord,
    is_database_url,
    iter_raw,
    observed,
    shown_url,
)

__all__ = ["DEFAULT_BATCH_SIZE", "Failure", "ReplayReport", "ToolCounts", "registry_of", "replay_calls"]

#: Calls validated per call into the core: enough to amortise the call and to spread over 8 threads (256 calls
#: each) on a larger machine, few enough that a batch's texts are still in the CPU cache when the core reads them.
#: Measured on one core, dev build, 100,000 calls against the 3462 BFCL schemas (best of 6): 256-2,048 within 5% of
#: each other; 4,096 8% slower; 16,384 15-25% slower.
DEFAULT_BATCH_SIZE: Final = 2_048

_ERROR: Final = Severity.ERROR


@dataclass(frozen=True)
class ToolCounts:
    """The calls of one tool name.

    Attributes:
        calls: Calls read with this name.
        failed: Those that failed validation.
        fingerprint_mismatch: Those whose ``schema_fingerprint`` is not the tool's current fingerprint.
    """

    calls: int = 0
    failed: int = 0
    fingerprint_mismatch: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The counts as JSON data."""
        return json_fields(self, "calls failed fingerprint_mismatch")


@dataclass(frozen=True)
class Failure:
    """A call that fails against the current tools.

    Attributes:
        origin: Where it was read (``calls.jsonl:12``).
        id: Its call id, when recorded.
        name: The tool it calls.
        arguments: Its arguments text.
        violations: Every violation found (errors first, as the core orders them).
    """

    origin: str
    id: str | None
    name: str
    arguments: str
    violations: tuple[Violation, ...]

    @property
    def errors(self) -> tuple[Violation, ...]:
        """The violations that make it fail."""
        return tuple(v for v in self.violations if v.severity is _ERROR)

    def as_dict(self) -> dict[str, Any]:
        """The failure as JSON data, every violation with it."""
        violations = [_violation_dict(violation) for violation in self.violations]
        return json_fields(self, "origin id name arguments violations", violations=violations)


def _violation_dict(violation: Violation) -> dict[str, Any]:
    found: dict[str, Any] = {
        "code": violation.code.value,
        "severity": violation.severity.value,
        "message": violation.message,
    }
    if violation.path is not None:
        found["path"] = violation.path
    if violation.offset is not None:
        found["offset"] = violation.offset
    return found


@dataclass
class ReplayReport:
    """What replaying calls against the current tools found.

    Attributes:
        calls: Calls read and validated.
        valid: Calls without an error.
        invalid: Calls with at least one error.
        unreadable: Records that are not calls.
        by_tool: Per tool name: calls, failed, fingerprint mismatches (names in first-seen order).
        by_code: Per error code: the number of failing calls that carry it.
        notes_by_code: Per warning or info code: the number of calls that carry it (they do not fail a call).
        failures: The first failures (``limit`` of them), in reading order.
        unreadable_records: The first unreadable records (``limit`` of them).
        fingerprint_mismatches: Calls whose ``schema_fingerprint`` differs from their tool's current one.
        limit: How many failures and unreadable records are kept.
        sources: The sources read (labels), when replay read them.
        tools: The current tools' names.
        seconds: Wall time of reading and validating.
    """

    calls: int = 0
    valid: int = 0
    invalid: int = 0
    unreadable: int = 0
    by_tool: dict[str, ToolCounts] = field(default_factory=dict)
    by_code: dict[str, int] = field(default_factory=dict)
    notes_by_code: dict[str, int] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    unreadable_records: list[UnreadableRecord] = field(default_factory=list)
    fingerprint_mismatches: int = 0
    limit: int = 20
    sources: list[str] = field(default_factory=list)
    tools: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """No call failed and every record was a call (an unreadable record is one nobody could check)."""
        return self.invalid == 0 and self.unreadable == 0

    @property
    def calls_per_second(self) -> float:
        """Calls read and validated per second of wall time."""
        return self.calls / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-able data (the ``json`` output format)."""
        keys = (
            "ok calls valid invalid unreadable fingerprint_mismatches by_tool by_code notes_by_code failures "
            "unreadable_records limit sources tools seconds calls_per_second"
        )
        return json_fields(
            self,
            keys,
            by_tool={name: counts.as_dict() for name, counts in self.by_tool.items()},
            unreadable_records=[json_fields(record, "origin reason") for record in self.unreadable_records],
            seconds=round(self.seconds, 6),
            calls_per_second=round(self.calls_per_second, 1),
        )


def registry_of(tools: object) -> ToolRegistry:
    """The current tools as a registry.

    Args:
        tools: A ``ToolRegistry``; tool files, directories or ``package.module:attr`` paths (one or a list, read with
            ``toolwire.schema.load_tools``); or anything ``ToolRegistry`` loads (definitions, ``Tool``s).

    Raises:
        ValueError: A tool definition does not load (naming where it is and why), or two tools share a name.
        OSError: A tool file cannot be read.
    """
    if isinstance(tools, ToolRegistry):
        return tools
    specs: list[str | os.PathLike[str]] | None = None
    if isinstance(tools, (str, os.PathLike)):
        specs = [tools]
    elif isinstance(tools, (list, tuple)) and tools and all(isinstance(t, (str, os.PathLike)) for t in tools):
        specs = list(tools)
    if specs is None:
        return ToolRegistry.load(tools)
    from toolwire.schema._sources import load_tools

    sources = load_tools([s if isinstance(s, str) else Path(s) for s in specs])
    broken = [source for source in sources if source.error is not None]
    if broken:
        listed = "; ".join(f"{s.origin}: {s.error}" for s in broken[:5])
        more = f" (and {len(broken) - 5} more)" if len(broken) > 5 else ""
        raise ValueError(
            f"{len(broken)} tool definition(s) do not load: {listed}{more}; fix them (toolwire check shows each)"
        )
    loaded: list[Any] = [s.tool for s in sources if s.tool is not None]
    loaded += [s.definition for s in sources if s.server_tool is not None]
    if not loaded:
        raise ValueError(f"no tool definitions in {', '.join(map(str, specs))}")
    return ToolRegistry(loaded)


_PAIR: Final = itemgetter(0, 1)
_NAME_AND_FINGERPRINT: Final = itemgetter(0, 4)


class _Replay:
    """The running totals of one replay; ``chunk`` validates one chunk of read items and adds it in.

    The per-call work is done by C loops where it can be (``map`` with ``itemgetter``, ``Counter``,
    ``itertools.compress``): at 200,000 calls a second, every Python-level step per call shows.
    """

    def __init__(self, registry: ToolRegistry, limit: int) -> None:
        self.registry = registry
        self.limit = limit
        self.report = ReplayReport(limit=limit, tools=registry.names)
        self.current = {name: tool.fingerprint for name in registry.names if (tool := registry.get(name))}
        self.keys: Counter[tuple[str, str | None]] = Counter()
        self.failed: Counter[str] = Counter()
        self.codes: Counter[str] = Counter()
        self.notes: Counter[str] = Counter()
        compiled = core_validators(registry)
        assert isinstance(compiled, ToolValidators), "the core's compiled tools"
        self.compiled = compiled
        #: The tools whose recorded results are checked: those that declare an output schema.
        self.with_results = frozenset(tool.name for tool in registry if "outputSchema" in tool.extra)

    def unreadable(self, record: UnreadableRecord) -> None:
        self.report.unreadable += 1
        if len(self.report.unreadable_records) < self.limit:
            self.report.unreadable_records.append(record)

    def chunk(self, items: list[RawCall | ObservedCall | UnreadableRecord]) -> None:
        """Validate the calls among ``items`` in one batch and count them; keep the unreadable records."""
        calls: list[RawCall | ObservedCall | UnreadableRecord]
        if set(map(type, items)) == {tuple}:  # the usual chunk: JSONL call records only
            calls = items
            pairs: list[tuple[str, str]] = list(map(_PAIR, items))  # type: ignore[arg-type]
            # Counted straight into the running Counter (an iterable is counted in C; a Counter is merged in Python).
            self.keys.update(map(_NAME_AND_FINGERPRINT, items))  # type: ignore[arg-type]
        else:
            calls, pairs, found = [], [], []
            for item in items:
                if isinstance(item, tuple):
                    calls.append(item)
                    pairs.append((item[0], item[1]))
                    found.append((item[0], item[4]))
                elif isinstance(item, ObservedCall):
                    calls.append(item)
                    pairs.append((item.name, item.arguments))
                    found.append((item.name, item.schema_fingerprint))
                else:
                    self.unreadable(item)
            self.keys.update(found)
        if not pairs:
            return
        results = core.validate_many(pairs, self.registry)
        if self.with_results:
            self.add_results(calls, results)
        invalid = 0
        failures = self.report.failures
        for position in compress(range(len(results)), results):  # the calls with any violation
            violations = results[position]
            if self._judge(pairs[position][0], violations):
                invalid += 1
                if len(failures) < self.limit:
                    call = calls[position]
                    assert not isinstance(call, UnreadableRecord)
                    call = observed(call) if isinstance(call, tuple) else call
                    failures.append(Failure(call.origin, call.id, call.name, call.arguments, tuple(violations)))
        self.count(len(pairs), invalid)

    def add_results(self, calls: list[RawCall | ObservedCall | UnreadableRecord], found: list[list[Violation]]) -> None:
        """Add the violations of each recorded result to those of its call (raw calls record none: see read_numbered)."""
        for position, call in enumerate(calls):
            if isinstance(call, ObservedCall) and call.result is not None and call.name in self.with_results:
                found[position] = [*found[position], *core.validate_result(call.name, call.result, self.registry)]

    def count(self, calls: int, invalid: int) -> None:
        self.report.calls += calls
        self.report.invalid += invalid
        self.report.valid += calls - invalid

    def log(self, log: _Log, batch_size: int, progress: Callable[[int], None] | None) -> None:
        """Replay a JSONL log read by the core (``_core.CallLogReader``).

        The lines of the usual shape are read and validated there with the GIL released, ``batch_size`` lines at a
        time; the others come back and are read here, in line order.
        """
        self.report.sources.append(log.shown)
        reader = CallLogReader(
            self.compiled,
            log.path if log.stream is None else None,
            LOG_CHUNK,
            hand_back_results=bool(self.with_results),
        )

        def judge_lines() -> None:
            while (found := reader.read(batch_size)) is not None:
                self.segments(found, log.label, batch_size)
                if progress is not None:
                    progress(self.report.calls)

        if log.stream is None:
            judge_lines()
        else:
            stream = log.stream()
            try:
                read = getattr(stream, "read1", stream.read)
                while data := read(LOG_CHUNK):
                    reader.feed(data)
                    judge_lines()
                reader.feed(b"", last=True)
                judge_lines()
            finally:
                if log.path is not None:
                    stream.close()
        for name, fingerprint, count in reader.counts():
            self.keys[name, fingerprint] += count

    def segments(self, found: list[Any], label: str, batch_size: int) -> None:
        """Count what the core found in a chunk of a log, and read the lines it handed back, in line order."""
        others: list[tuple[int, bytes]] = []
        failures = self.report.failures
        keys = self.keys
        for segment in found:
            if len(segment) == 2:  # (line, bytes): a line for the Python reader
                others.append(segment)
                continue
            if others:
                self.python_lines(others, label, batch_size)
                others = []
            calls, new_keys, flagged = segment
            for key in new_keys:  # the core counts its calls (`counts`); here a key only takes its place in order
                keys[key] += 0
            invalid = 0
            for number, name, arguments, identifier, violations in flagged:
                if self._judge(name, violations):
                    invalid += 1
                    if len(failures) < self.limit:
                        failures.append(Failure(f"{label}:{number}", identifier, name, arguments, tuple(violations)))
            self.count(calls, invalid)
        if others:
            self.python_lines(others, label, batch_size)

    def python_lines(self, numbered: list[tuple[int, bytes]], label: str, batch_size: int) -> None:
        from toolwire.schema.calls import read_numbered  # needs orjson, the `replay` extra

        items = read_numbered(numbered, label, records=False)
        while batch := list(islice(items, batch_size)):
            self.chunk(batch)

    def _judge(self, name: str, violations: list[Violation]) -> bool:
        """Count one call's violations; True when it fails."""
        errors = {v.code.value for v in violations if v.severity is _ERROR}
        if len(errors) < len(violations):
            for code in {v.code.value for v in violations if v.severity is not _ERROR}:
                self.notes[code] += 1
        if not errors:
            return False
        for code in errors:  # (not Counter.update, which costs more than the rest of this method)
            self.codes[code] += 1
        self.failed[name] += 1
        return True

    def finish(self, seconds: float) -> ReplayReport:
        calls: Counter[str] = Counter()
        mismatched: Counter[str] = Counter()
        current = self.current
        # Per distinct (tool, fingerprint) pair, not per call: a log holds few of them.
        for (name, fingerprint), count in self.keys.items():
            calls[name] += count
            if fingerprint is not None and current.get(name, fingerprint) != fingerprint:
                mismatched[name] += count
        report = self.report
        report.by_tool = {name: ToolCounts(count, self.failed[name], mismatched[name]) for name, count in calls.items()}
        report.by_code = dict(self.codes.most_common())
        report.notes_by_code = dict(self.notes.most_common())
        report.fingerprint_mismatches = sum(mismatched.values())
        report.seconds = seconds
        return report


#: Whether replay reads JSONL logs (files, ``.jsonl.gz``, stdin) in the core; the Python reader, which the core
#: hands back every line not of the usual shape, is the reference (tests and benchmarks turn this off to compare).
READ_IN_CORE = True

#: Bytes of a log read (or decompressed) at a time: about 5,000 lines of a usual call log. The core holds at most
#: this plus the longest line, and one chunk's results.
LOG_CHUNK = 1 << 20


@dataclass(frozen=True)
class _Log:
    """A JSONL log the core reads: a file by its path, or a stream of bytes (standard input, a ``.gz`` file)."""

    shown: str
    label: str
    path: Path | None
    stream: Callable[[], Any] | None


def _core_log(source: object) -> _Log | None:
    """The log the core reads for ``source``, or None when the Python readers read it."""
    from toolwire.schema.calls import log_file, open_log  # needs orjson, the `replay` extra

    if isinstance(source, str) and source == "-":
        return _Log("-", "<stdin>", None, lambda: sys.stdin.buffer)
    path = log_file(source)
    if path is None:
        return None
    if path.name.lower().endswith(".gz"):
        return _Log(str(source), str(path), path, partial(open_log, path))
    return _Log(str(source), str(path), path, None)


def _parts(
    sources_or_calls: object, query: str | None, batch_size: int, labels: list[str]
) -> list[Iterator[RawCall | ObservedCall | UnreadableRecord] | _Log]:
    """The sources in order: the logs the core reads apart, runs of everything else as ``_items``."""
    if not READ_IN_CORE or not isinstance(sources_or_calls, (str, os.PathLike, list, tuple)):
        return [_items(sources_or_calls, query, batch_size, labels)]
    elements = [sources_or_calls] if isinstance(sources_or_calls, (str, os.PathLike)) else sources_or_calls
    parts: list[Iterator[RawCall | ObservedCall | UnreadableRecord] | _Log] = []
    run: list[object] = []
    for element in elements:
        log = _core_log(element)
        if log is None:
            run.append(element)
            continue
        if run:
            parts.append(_items(run, query, batch_size, labels))
            run = []
        parts.append(log)
    if run:
        parts.append(_items(run, query, batch_size, labels))
    return parts


def _items(
    sources_or_calls: object, query: str | None, batch_size: int, labels: list[str]
) -> Iterator[RawCall | ObservedCall | UnreadableRecord]:
    """Calls from sources (read on the fast path) and calls given as they are, in order.

    Raises:
        TypeError: ``sources_or_calls`` is no source and not iterable (at once), or an item is neither a source nor
            an observed call (when it is reached).
    """
    if isinstance(sources_or_calls, (str, os.PathLike)):
        sources_or_calls = [sources_or_calls]
    if not isinstance(sources_or_calls, Iterable):
        raise TypeError(
            "replay_calls takes sources (paths, '-', database URLs) or ObservedCalls; "
            f"got {type(sources_or_calls).__name__}"
        )

    def one(item: object) -> Iterable[RawCall | ObservedCall | UnreadableRecord]:
        if isinstance(item, (ObservedCall, UnreadableRecord)):
            return (item,)
        if isinstance(item, (str, os.PathLike)):
            labels.append(shown_url(str(item)) if is_database_url(item) else str(item))
            return iter_raw(item, query=query, batch_size=batch_size, records=False)
        raise TypeError(
            f"replay_calls: a {type(item).__name__} is neither a source (a path, '-', a database URL) nor an "
            "ObservedCall"
        )

    # chain, not `yield from`: a call read from a file reaches the batch through no Python frame but the reader's.
    return chain.from_iterable(map(one, sources_or_calls))


def replay_calls(
    sources_or_calls: Source | Iterable[Source | ObservedCall | UnreadableRecord],
    tools: object,
    *,
    query: str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    limit_failures: int = 20,
    progress: Callable[[int], None] | None = None,
) -> ReplayReport:
    """Validate calls already made against the current tools, in batches through the Rust core.

    Args:
        sources_or_calls: Sources as ``read_calls`` takes them (a path, ``"-"``, a database URL, or a list), or
            ``ObservedCall``s (and ``UnreadableRecord``s) already read, or a list mixing both.
        tools: The current tools: a ``ToolRegistry``, tool files or directories, or anything ``ToolRegistry``
            loads (see ``registry_of``).
        query: The SQL for database sources (see ``read_calls``).
        batch_size: Calls validated per batch (and rows fetched at a time from a database).
        limit_failures: How many failures and unreadable records the report keeps (all are counted).
        progress: Called after each batch with the number of calls read so far.

    Returns:
        The report.

    Raises:
        TypeError: An item is neither a source nor an observed call.
        ValueError: The tools do not load, a database source lacks a query, or ``batch_size`` is below 1.
        OSError: A source or tool file cannot be read.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1; got {batch_size}")
    if limit_failures < 0:
        raise ValueError(f"limit_failures must be 0 or more; got {limit_failures}")
    registry = registry_of(tools)
    started = time.perf_counter()
    replay = _Replay(registry, limit_failures)
    for part in _parts(sources_or_calls, query, batch_size, replay.report.sources):
        if isinstance(part, _Log):
            replay.log(part, batch_size, progress)
            continue
        while chunk := list(islice(part, batch_size)):
            replay.chunk(chunk)
            if progress is not None:
                progress(replay.report.calls)
    return replay.finish(time.perf_counter() - started)
