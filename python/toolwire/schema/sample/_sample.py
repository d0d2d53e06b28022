"""``toolwire sample``: a small fixture of observed calls that still shows everything the logs showed.

``sample_calls`` takes calls as ``read_calls`` yields them (logs, conversation logs, databases, recordings) and picks,
per tool, calls that together cover every *feature* seen (``toolwire.schema.sample._features``: the tool itself,
every enumerated value at every pointer, every optional member seen given and seen left out): a greedy set cover,
the call covering most features not yet covered first, ties broken by a seeded random order. Then each tool is
filled up to ``per_tool`` calls with a seeded choice among the rest. Coverage comes first, so a tool whose features
need more calls than ``per_tool`` gets more. The same input and seed give the same sample.

The sample is drawn from the calls that are valid: against ``tools`` when given (validated in the core, in
batches), else whose arguments are a JSON object; ``include_invalid`` samples every call instead, and adds each
violation code seen to the features. Calls left out are counted per tool, records that are not calls reported.

The sampled calls are then scrubbed (``toolwire.schema.sample._scrub``): identifier-like values replaced by stable
placeholders of the same type and format. With ``tools``, every sampled call that was valid is checked again after
scrubbing; a value whose placeholder breaks the schema gets a same-shape placeholder instead (and consistently
everywhere), and a call that still fails is left out of the fixture, reported, and replaced by the next best call,
so that no identifier is ever kept to satisfy a schema.

The output is JSONL that ``read_calls`` (and so ``toolwire replay``) reads: ``{"id", "name", "arguments",
"tool_fingerprint", "ts"}`` per line, the keys a ``CallLog`` writes, in the order the calls were read. Memory grows with the calls read (each is kept
until the sample is chosen).
"""

from __future__ import annotations

import heapq
import json
import os
import random
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from toolwire._common._json import compact_utf8
from toolwire.registry import ToolRegistry
from toolwire.schema.calls import ObservedCall, UnreadableRecord
from toolwire.schema.sample._features import (
    Feature,
    Inference,
    ToolShape,
    call_features,
    feature_label,
    schema_shape,
)
from toolwire.schema.sample._scrub import Scrub, Scrubber

__all__ = ["DEFAULT_PER_TOOL", "SampleResult", "Scrub", "ToolSample", "sample_calls"]

#: Calls per tool when ``per_tool`` is not given.
DEFAULT_PER_TOOL: Final = 5
_BATCH: Final = 10_000
# Calls left out as invalid are counted; this many of them are also listed with the reason.
_LISTED: Final = 20
# Rounds of "scrub, check against the schema, give the values that broke it a same-shape placeholder".
_SCRUB_ROUNDS: Final = 3
# Rounds of "choose, leave out the calls that cannot be scrubbed, choose again".
_CHOICE_ROUNDS: Final = 3


@dataclass(frozen=True, slots=True)
class ToolSample:
    """One tool in the sample.

    Attributes:
        tool: The tool name.
        seen: Calls of it read.
        invalid: Of those, left out as invalid (0 with ``include_invalid``).
        sampled: Calls of it in the sample.
        features_seen: Features its sampled-from calls show.
        features_covered: Of those, shown by the sample.
    """

    tool: str
    seen: int
    invalid: int
    sampled: int
    features_seen: int
    features_covered: int


@dataclass(frozen=True)
class SampleResult:
    """A fixture sample and how it was drawn.

    Attributes:
        calls: The sampled calls, scrubbed, in the order they were read (``origin`` still says where each was).
        read: Calls read.
        tools: Per tool: calls seen, left out, sampled; features seen and covered.
        features_seen: Every feature of the calls sampled from (labels such as ``get_weather /unit="celsius"``).
        features_missed: Features seen that no sampled call shows (only when calls had to be left out).
        unreadable: Records of the sources that are not calls.
        invalid: The first calls left out as invalid: (origin, the violation codes).
        dropped: Calls left out because their scrubbed arguments would fail their schema, with why.
        placeholders: Placeholders made, per kind (``email``, ``uuid``) or key prefix (``user``).
        per_tool: The fill target per tool.
        seed: The seed of the choice.
    """

    calls: tuple[ObservedCall, ...]
    read: int
    tools: tuple[ToolSample, ...]
    features_seen: tuple[str, ...]
    features_missed: tuple[str, ...] = ()
    unreadable: tuple[UnreadableRecord, ...] = ()
    invalid: tuple[tuple[str, str], ...] = ()
    dropped: tuple[str, ...] = ()
    placeholders: Mapping[str, int] = field(default_factory=dict)
    per_tool: int = DEFAULT_PER_TOOL
    seed: int = 0

    @property
    def ok(self) -> bool:
        """True when every record was a call and no call had to be left out for its scrubbing."""
        return not self.unreadable and not self.dropped

    def records(self) -> list[dict[str, Any]]:
        """The fixture's lines as dicts, keyed as a ``CallLog`` writes (``tool_fingerprint``, ``ts`` in ISO 8601)."""
        return [
            {
                "id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "tool_fingerprint": call.schema_fingerprint,
                "ts": call.ts.isoformat() if call.ts is not None else None,
            }
            for call in self.calls
        ]

    def to_jsonl(self) -> str:
        """The fixture as JSONL text (one call per line)."""
        return "".join(_line(record) + "\n" for record in self.records())

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the fixture to ``path`` in one piece (a temporary file renamed over it).

        Raises:
            OSError: The folder does not exist or cannot be written.
        """
        target = Path(path)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                out.write(self.to_jsonl())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def summary(self) -> dict[str, Any]:
        """Everything but the calls, as JSON-ready data."""
        return {
            "ok": self.ok,
            "read": self.read,
            "sampled": len(self.calls),
            "per_tool": self.per_tool,
            "seed": self.seed,
            "features": {
                "seen": len(self.features_seen),
                "covered": len(self.features_seen) - len(self.features_missed),
            },
            "features_missed": list(self.features_missed),
            "tools": [
                {
                    "tool": tool.tool,
                    "seen": tool.seen,
                    "invalid": tool.invalid,
                    "sampled": tool.sampled,
                    "features_seen": tool.features_seen,
                    "features_covered": tool.features_covered,
                }
                for tool in self.tools
            ],
            "unreadable": [{"origin": r.origin, "reason": r.reason} for r in self.unreadable],
            "invalid": [{"origin": origin, "codes": codes} for origin, codes in self.invalid],
            "dropped": list(self.dropped),
            "placeholders": dict(self.placeholders),
        }

    def render(self, format: Literal["text", "json"] = "text") -> str:
        """The summary for people (``text``) or machines (``json``)."""
        if format == "json":
            return json.dumps(self.summary(), ensure_ascii=False, indent=2)
        return _render_text(self)


def _line(record: Mapping[str, Any]) -> str:
    return compact_utf8(record, allow_nan=True)


def _render_text(result: SampleResult) -> str:
    invalid = sum(tool.invalid for tool in result.tools)
    head = f"toolwire sample: {result.read:,} calls read"
    if invalid:
        head += f", {invalid:,} invalid left out"
    if result.unreadable:
        head += f", {len(result.unreadable):,} records unreadable"
    width = max([4, *(len(tool.tool) for tool in result.tools)])
    lines = [head, f"  {'tool'.ljust(width)}  {'seen':>8}  {'invalid':>7}  {'sampled':>7}  features"]
    for tool in result.tools:
        lines.append(
            f"  {tool.tool.ljust(width)}  {tool.seen:>8,}  {tool.invalid:>7,}  {tool.sampled:>7,}  "
            f"{tool.features_covered}/{tool.features_seen}"
        )
    seen = len(result.features_seen)
    made = sum(result.placeholders.values())
    kinds = ", ".join(f"{kind} {count}" for kind, count in result.placeholders.items())
    lines.append(
        f"{len(result.calls)} calls sampled from {len(result.tools)} tool{'s' if len(result.tools) != 1 else ''} (per tool {result.per_tool}, seed "
        f"{result.seed}); {seen - len(result.features_missed)}/{seen} features covered; {made} placeholders"
        + (f" ({kinds})" if kinds else "")
    )
    sections = [
        ("not covered (their calls were left out)", list(result.features_missed)),
        (
            "left out: no placeholder keeps them valid (narrow the rules: --no-default-scrub and --scrub-field)",
            list(result.dropped),
        ),
        ("unreadable records", [f"{r.origin}: {r.reason}" for r in result.unreadable[:_LISTED]]),
        ("invalid calls left out (first ones)", [f"{origin}: {codes}" for origin, codes in result.invalid]),
    ]
    for title, items in sections:
        if items:
            lines.append(f"{title}:")
            lines.extend(f"  {item}" for item in items)
    if len(result.unreadable) > _LISTED:
        lines.append(f"  ... and {len(result.unreadable) - _LISTED} more unreadable records")
    return "\n".join(lines)


@dataclass
class _Read:
    """The calls read and judged (arguments are parsed when needed, never kept: memory stays at the calls)."""

    calls: list[ObservedCall] = field(default_factory=list)
    codes: list[tuple[str, ...]] = field(default_factory=list)
    unreadable: list[UnreadableRecord] = field(default_factory=list)


_NOT_JSON: Final = object()


def _parse(text: str) -> Any:
    if not text.strip():
        return {}  # no arguments: checked as {}
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _read(calls: Iterable[ObservedCall | UnreadableRecord], on_progress: Callable[[int], None] | None) -> _Read:
    read = _Read()
    for position, item in enumerate(calls):
        if isinstance(item, ObservedCall):
            read.calls.append(item)
        elif isinstance(item, UnreadableRecord):
            read.unreadable.append(item)
        else:
            raise TypeError(
                f"calls[{position}]: expected an ObservedCall or UnreadableRecord (what read_calls yields); "
                f"got {type(item).__name__}"
            )
        if on_progress is not None and position % 1000 == 0:
            on_progress(len(read.calls))
    return read


def _validate(read: _Read, registry: ToolRegistry) -> None:
    """The error codes of each call, from the core, in batches."""
    import toolwire
    from toolwire._model import Severity

    for start in range(0, len(read.calls), _BATCH):
        batch = read.calls[start : start + _BATCH]
        verdicts = toolwire.validate_many([(call.name, call.arguments) for call in batch], registry)
        for found in verdicts:
            read.codes.append(tuple(dict.fromkeys(v.code.value for v in found if v.severity is Severity.ERROR)))


def _judge(read: _Read, registry: ToolRegistry | None, include_invalid: bool) -> tuple[list[int], dict[str, ToolShape]]:
    """Which calls to sample from, and each tool's shape (from its schema, else inferred from those calls).

    Without tools a call is valid when its arguments are a JSON object (``INVALID_JSON``, ``ARGUMENTS_NOT_OBJECT``
    otherwise); with tools the core says.
    """
    if registry is not None:
        _validate(read, registry)
    shapes: dict[str, ToolShape] = {}
    inference = Inference()
    eligible: list[int] = []
    for index, call in enumerate(read.calls):
        declared = registry.get(call.name) if registry is not None else None
        if declared is not None and call.name not in shapes:
            shapes[call.name] = schema_shape(declared.parameters)
        # A declared tool's shape is its schema's: its arguments need no parsing here.
        parsed = _parse(call.arguments) if declared is None else _NOT_JSON
        if registry is None:
            not_object = "INVALID_JSON" if parsed is _NOT_JSON else "ARGUMENTS_NOT_OBJECT"
            read.codes.append(() if isinstance(parsed, dict) else (not_object,))
        if include_invalid or not read.codes[index]:
            eligible.append(index)
            if parsed is not _NOT_JSON:
                inference.observe(call.name, parsed)
    for index in eligible:
        name = read.calls[index].name
        if name not in shapes:
            shapes[name] = inference.shape(name)
    return eligible, shapes


class _Features:
    """Features interned as numbers: a call's features are a sorted tuple of them (small, hashable, groupable)."""

    def __init__(self) -> None:
        self.numbers: dict[Feature, int] = {}
        self.features: list[Feature] = []

    def of(self, found: Iterable[Feature]) -> tuple[int, ...]:
        numbers = []
        for feature in found:
            number = self.numbers.get(feature)
            if number is None:
                number = self.numbers[feature] = len(self.features)
                self.features.append(feature)
            numbers.append(number)
        return tuple(sorted(numbers))

    def labels(self, numbers: Iterable[int]) -> tuple[str, ...]:
        return tuple(sorted(feature_label(self.features[number]) for number in numbers))


def _call_features(
    read: _Read, eligible: list[int], shapes: Mapping[str, ToolShape], table: _Features
) -> list[tuple[int, ...]]:
    features: list[tuple[int, ...]] = [()] * len(read.calls)
    for index in eligible:
        call = read.calls[index]
        parsed = _parse(call.arguments)
        found = (
            call_features(call.name, parsed, shapes[call.name]) if parsed is not _NOT_JSON else {("tool", call.name)}
        )
        found |= {("violation", call.name, code) for code in read.codes[index]}
        features[index] = table.of(found)
    return features


def _cover(members: list[tuple[float, int]], features: list[tuple[int, ...]], per_tool: int) -> list[int]:
    """One tool's choice: greedy set cover over its calls' features, then a seeded fill up to ``per_tool``.

    Args:
        members: (random key, call index) of the tool's eligible calls.
        features: Features per call index.
        per_tool: The fill target.
    """
    groups: dict[tuple[int, ...], list[tuple[float, int]]] = defaultdict(list)
    for key, index in members:
        groups[features[index]].append((key, index))
    # Calls with the same features are interchangeable for the cover: each group offers its lowest key.
    order = [(sorted(group), frozenset(numbers)) for numbers, group in groups.items()]
    uncovered: set[int] = set().union(*(feature_set for _, feature_set in order))
    heap = [(-len(feature_set), group[0][0], number) for number, (group, feature_set) in enumerate(order)]
    heapq.heapify(heap)
    chosen: list[tuple[float, int]] = []
    taken: set[int] = set()
    while uncovered and heap:
        bound, key, number = heapq.heappop(heap)
        group, feature_set = order[number]
        gain = len(feature_set & uncovered)
        if gain == 0:
            continue
        if gain < -bound:
            # Stale bound: gains only shrink, so push it back with the true one and take the best again.
            heapq.heappush(heap, (-gain, key, number))
            continue
        chosen.append(group[0])
        taken.add(group[0][1])
        uncovered -= feature_set
    rest = sorted(member for member in members if member[1] not in taken)
    chosen += rest[: max(0, per_tool - len(chosen))]
    return [index for _, index in chosen]


def _registry(tools: object) -> ToolRegistry | None:
    if tools is None:
        return None
    from toolwire.schema.replay import registry_of

    return registry_of(tools)


def _check_options(per_tool: int, seed: int, scrub: Scrub | bool) -> None:
    if isinstance(per_tool, bool) or not isinstance(per_tool, int) or per_tool < 0:
        raise ValueError(f"per_tool must be an int >= 0 (0: only the calls coverage needs); got {per_tool!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int; got {seed!r}")
    if not isinstance(scrub, (Scrub, bool)):
        raise TypeError(f"scrub must be a Scrub (the rules), True (the defaults) or False; got {type(scrub).__name__}")


class _Scrubbed:
    """The scrubbed arguments of the chosen calls, checked against the schema when the tools are known."""

    def __init__(self, read: _Read, rules: Scrub, shapes: Mapping[str, ToolShape], registry: ToolRegistry | None):
        self.read = read
        self.rules = rules
        self.pinned = {name: shape.pinned for name, shape in shapes.items()}
        self.registry = registry
        self.placeholders: dict[str, int] = {}

    def run(self, chosen: list[int]) -> tuple[dict[int, str], dict[int, str]]:
        """The scrubbed text per call, and the calls that cannot be scrubbed (why, per call)."""
        shaped: set[str] = set()
        for _ in range(_SCRUB_ROUNDS):
            texts, used = self._once(chosen, shaped)
            broken = self._broken(chosen, texts)
            if not broken:
                return texts, {}
            culprits: set[str] = set()
            for index, violations in broken.items():
                paths = [v.path or "" for v in violations]
                hit = {original for pointer, original in used[index] if any(_under(pointer, p) for p in paths)}
                culprits |= hit or {original for _, original in used[index]}
            if culprits <= shaped:
                break
            shaped |= culprits
        reasons = {
            index: "; ".join(f"{v.path or '/'} {v.code.value}: {v.message}" for v in violations)
            for index, violations in broken.items()
        }
        return texts, reasons

    def _once(self, chosen: list[int], shaped: set[str]) -> tuple[dict[int, str], dict[int, list[tuple[str, str]]]]:
        scrubber = Scrubber(self.rules, self.pinned, shaped)
        calls = self.read.calls
        for index in chosen:
            scrubber.register(calls[index].name, calls[index].arguments)
        scrubber.seal()
        texts: dict[int, str] = {}
        used: dict[int, list[tuple[str, str]]] = {}
        for index in chosen:
            texts[index], used[index] = scrubber.arguments(calls[index].name, calls[index].arguments)
        self.placeholders = scrubber.counts()
        return texts, used

    def _broken(self, chosen: list[int], texts: Mapping[int, str]) -> dict[int, list[Any]]:
        if self.registry is None:
            return {}
        import toolwire
        from toolwire._model import Severity

        # Only calls that were valid must stay valid; an invalid call sampled on purpose stays as it was.
        check = [
            index for index in chosen if not self.read.codes[index] and texts[index] != self.read.calls[index].arguments
        ]
        broken: dict[int, list[Any]] = {}
        for start in range(0, len(check), _BATCH):
            batch = check[start : start + _BATCH]
            pairs = [(self.read.calls[index].name, texts[index]) for index in batch]
            for index, found in zip(batch, toolwire.validate_many(pairs, self.registry), strict=True):
                errors = [v for v in found if v.severity is Severity.ERROR]
                if errors:
                    broken[index] = errors
        return broken


def _under(pointer: str, path: str) -> bool:
    return not path or pointer == path or pointer.startswith(path + "/")


def sample_calls(
    calls: Iterable[ObservedCall | UnreadableRecord],
    *,
    per_tool: int = DEFAULT_PER_TOOL,
    seed: int = 0,
    scrub: Scrub | bool = True,
    tools: object = None,
    include_invalid: bool = False,
    on_progress: Callable[[int], None] | None = None,
) -> SampleResult:
    """A stratified, covering, scrubbed sample of observed calls, for a committed fixture.

    Args:
        calls: What ``read_calls`` yields (``ObservedCall`` and ``UnreadableRecord``), in source order.
        per_tool: Calls per tool to fill up to once every feature is covered (coverage may take more).
        seed: Seeds the order among equally good calls and the fill: the same input and seed give the same sample.
        scrub: The scrubbing rules (``Scrub``), True for the defaults, False to keep every value as read but secrets
            (what the detectors find, secret-named members), which are always scrubbed.
        tools: The tools (a ``ToolRegistry``, tool files or directories, or anything ``ToolRegistry`` loads): enables
            schema-based features and validity, and the check that scrubbing keeps valid calls valid.
        include_invalid: Sample from every call, not only the valid ones, and cover every violation code seen.
        on_progress: Called now and then with the number of calls read so far.

    Returns:
        The sample (``SampleResult.calls``) and how it was drawn.

    Raises:
        TypeError: An item of ``calls`` is not what ``read_calls`` yields, or a bad option type.
        ValueError: ``per_tool`` below 0, or tools that do not load.
    """
    _check_options(per_tool, seed, scrub)
    # Without scrubbing, secrets are still scrubbed: a fixture is committed, and toolwire writes no credential.
    rules = scrub if isinstance(scrub, Scrub) else Scrub() if scrub else Scrub(defaults=False)
    registry = _registry(tools)
    read = _read(calls, on_progress)
    eligible, shapes = _judge(read, registry, include_invalid)
    table = _Features()
    features = _call_features(read, eligible, shapes, table)
    draw = random.Random(seed)
    keys = [draw.random() for _ in read.calls]
    by_tool: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for index in eligible:
        by_tool[read.calls[index].name].append((keys[index], index))

    scrubbed = _Scrubbed(read, rules, shapes, registry)
    left_out: dict[int, str] = {}
    texts: dict[int, str] = {}
    for _ in range(_CHOICE_ROUNDS):
        chosen = sorted(
            index
            for members in by_tool.values()
            for index in _cover([m for m in members if m[1] not in left_out], features, per_tool)
        )
        texts, reasons = scrubbed.run(chosen)
        if not reasons:
            break
        left_out.update(reasons)
    else:
        chosen = [index for index in chosen if index not in left_out]
    return _result(
        read, eligible, features, table, chosen, texts, left_out, scrubbed, rules, per_tool, seed, include_invalid
    )


def _result(
    read: _Read,
    eligible: list[int],
    features: list[tuple[int, ...]],
    table: _Features,
    chosen: list[int],
    texts: Mapping[int, str],
    left_out: Mapping[int, str],
    scrubbed: _Scrubbed,
    rules: Scrub,
    per_tool: int,
    seed: int,
    include_invalid: bool,
) -> SampleResult:
    sampled: list[ObservedCall] = []
    for number, index in enumerate(chosen, start=1):
        call = read.calls[index]
        identifier = call.id if rules.keep_ids else f"call-{number:04d}"
        sampled.append(ObservedCall(call.name, texts[index], identifier, call.ts, call.schema_fingerprint, call.origin))
    seen_by_tool: dict[str, set[int]] = defaultdict(set)
    for index in eligible:
        seen_by_tool[read.calls[index].name].update(features[index])
    covered: set[int] = set().union(*(features[index] for index in chosen))
    counts = Counter(call.name for call in read.calls)
    invalid = Counter(read.calls[index].name for index, codes in enumerate(read.codes) if codes)
    eligible_set = set(eligible)
    chosen_counts = Counter(read.calls[index].name for index in chosen)
    summaries = tuple(
        ToolSample(
            tool=name,
            seen=counts[name],
            invalid=0 if include_invalid else invalid[name],
            sampled=chosen_counts[name],
            features_seen=len(seen_by_tool[name]),
            features_covered=len(seen_by_tool[name] & covered),
        )
        for name in sorted(counts)
    )
    seen = set().union(*seen_by_tool.values())
    listed = [
        (read.calls[index].origin, " ".join(codes))
        for index, codes in enumerate(read.codes)
        if codes and index not in eligible_set
    ][:_LISTED]
    dropped = tuple(
        f"{read.calls[index].name} at {read.calls[index].origin}: {reason}"
        for index, reason in sorted(left_out.items())
    )
    return SampleResult(
        calls=tuple(sampled),
        read=len(read.calls),
        tools=summaries,
        features_seen=table.labels(seen),
        features_missed=table.labels(seen - covered),
        unreadable=tuple(read.unreadable),
        invalid=tuple(listed),
        dropped=dropped,
        placeholders=scrubbed.placeholders,
        per_tool=per_tool,
        seed=seed,
    )
