"""The problems of invalid arguments, found by one walk over (subschema, value) pairs that judges each pair once.

The twin of ``rust/core/src/error_search.rs``, with the same rule. ``jsonschema``'s own error search judges a
subschema again down every way that leads to it, and lists the errors of every branch of a failed ``anyOf``/
``oneOf``: under a recursive union the branches multiply at each level of the arguments. This walk follows the
tool's plans (:mod:`toolwire.reference._plan`) instead, keeping one outcome per (subschema, value) pair, so its time
and memory are in proportion to the pairs (``SearchGraph.pairs_exceed`` counts them before it starts). Each outcome
holds the pair's own findings (the library's errors for the keywords that apply no subschema; the walk's own for the
rest), the outcomes whose findings it reports, and a summary from which a union ranks its branches without listing
their findings.

Below a failed union (no branch holds) the branches are ranked by their own findings, each found the same way:

1. a branch that accepts the value's type (no ``TYPE_MISMATCH`` at the value itself) ranks before one that does not;
2. then one whose ``const``/``enum`` accept the value and its members (no ``ENUM_OUT_OF_RANGE`` at the value or one
   level below);
3. then one that misses no member it requires (no ``MISSING_REQUIRED_ARGUMENT`` one level below);
4. then the one whose shallowest finding lies deepest.

When one branch ranks first alone and passes 1 and 2 (the value has its shape and its tags), the value singles it out:
its findings are reported in the union's place, at their own pointers, where a model can act on them. Otherwise the
union is one violation at the value: ``TYPE_MISMATCH`` when every branch failed on its type alone (the types they
accept, in order), else ``CONSTRAINT_VIOLATION``. A ``oneOf`` that several branches match is one
``CONSTRAINT_VIOLATION``.

A pair met again while it is being judged (a schema that refers to itself without reaching into the value) holds, as
in the core.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolwire._model import Violation, ViolationCode
from toolwire.reference._findings import child, constraint, quoted, sorted_unique, type_message, violation
from toolwire.reference._plan import Boolean, Contains, Keywords, Plan
from toolwire.reference._search_cost import location

__all__ = ["find"]

#: The violations of the keywords of a plan that apply no subschema, for a value at a pointer.
Assertions = Callable[[Keywords, Any, str], list[Violation]]
#: Whether a pattern matches a member's name.
Matches = Callable[[str, str], bool]

# The codes a union tells its branches by, as bits.
_TYPE, _ENUM, _MISSING, _OTHER = 1, 2, 4, 8
_CODES = {
    ViolationCode.TYPE_MISMATCH: _TYPE,
    ViolationCode.ENUM_OUT_OF_RANGE: _ENUM,
    ViolationCode.MISSING_REQUIRED_ARGUMENT: _MISSING,
}


def find(plans: list[Plan], assertions: Assertions, matches: Matches, instance: Any) -> list[Violation]:
    """Every finding of ``instance`` under ``plans`` (node 0 the root), unsorted; empty when the walk finds it valid."""
    walk = _Walk(plans, assertions, matches)
    return walk.findings(walk.judge(0, instance, location(None, None), ""))


@dataclass
class _Summary:
    """What the findings of a pair look like, enough for a union to rank its branches without listing them."""

    # Levels below the value of the shallowest finding; None when there is none (the pair holds).
    shallowest: int | None = None
    # The codes of the findings at the value, and one level below (a member, an item, a missing member's pointer).
    here: int = 0
    below: int = 0
    # A finding two or more levels below.
    deeper: bool = False

    def holds(self) -> bool:
        return self.shallowest is None

    def add(self, code: ViolationCode, depth: int) -> None:
        """Adds a finding ``depth`` levels below the value."""
        self.shallowest = depth if self.shallowest is None else min(self.shallowest, depth)
        bit = _CODES.get(code, _OTHER)
        if depth == 0:
            self.here |= bit
        elif depth == 1:
            self.below |= bit
        else:
            self.deeper = True

    def add_below(self, other: _Summary, levels: int) -> None:
        """Adds the findings of a pair ``levels`` (0 or 1) below the value."""
        if other.shallowest is None:
            return
        depth = other.shallowest + levels
        self.shallowest = depth if self.shallowest is None else min(self.shallowest, depth)
        if levels == 0:
            self.here |= other.here
            self.below |= other.below
            self.deeper |= other.deeper
        else:
            self.below |= other.here
            self.deeper |= bool(other.below) or other.deeper

    def only_type_here(self) -> bool:
        """Every finding is a ``TYPE_MISMATCH`` at the value."""
        return self.here == _TYPE and not self.below and not self.deeper

    def fits(self) -> bool:
        """The value has the shape and the tags of the branch."""
        return not self.here & _TYPE and not (self.here | self.below) & _ENUM

    def rank(self) -> tuple[bool, bool, bool, int]:
        """Smaller is closer."""
        deepest_first = -(self.shallowest if self.shallowest is not None else 1 << 62)
        return (
            bool(self.here & _TYPE),
            bool((self.here | self.below) & _ENUM),
            bool(self.below & _MISSING),
            deepest_first,
        )


_HOLDS = _Summary()


@dataclass
class _Outcome:
    """One (subschema, value) pair's judgment: None while it is being made."""

    summary: _Summary | None = None
    local: list[Violation] = field(default_factory=list)
    reported: list[int] = field(default_factory=list)


@dataclass
class _Judging:
    """A pair's judgment while it is made."""

    pointer: str
    summary: _Summary = field(default_factory=_Summary)
    local: list[Violation] = field(default_factory=list)
    reported: list[int] = field(default_factory=list)

    def found(self, problem: Violation) -> None:
        below = (problem.path or "")[len(self.pointer) :]
        self.summary.add(problem.code, below.count("/"))
        self.local.append(problem)


class _Walk:
    def __init__(self, plans: list[Plan], assertions: Assertions, matches: Matches) -> None:
        self.plans = plans
        self.assertions = assertions
        self.matches = matches
        self.outcomes: list[_Outcome] = []
        self.at: dict[tuple[int, Any], int] = {}

    def judge(self, node: int, value: Any, at: Any, pointer: str) -> int:
        """The outcome of subschema ``node`` at ``value`` (found at ``at``, ``pointer``), judged the first time."""
        known = self.at.get((node, at))
        if known is not None:
            return known
        outcome = self.at[node, at] = len(self.outcomes)
        self.outcomes.append(_Outcome())
        judging = _Judging(pointer)
        plan = self.plans[node]
        if isinstance(plan, Boolean):
            if not plan.accepts:
                judging.found(_false_schema(pointer, plan.location))
        else:
            self._apply(plan, value, at, judging)
        self.outcomes[outcome] = _Outcome(judging.summary, judging.local, judging.reported)
        return outcome

    def summary(self, outcome: int) -> _Summary:
        return self.outcomes[outcome].summary or _HOLDS

    def holds(self, outcome: int) -> bool:
        return self.summary(outcome).holds()

    def _is_false(self, node: int) -> bool:
        plan = self.plans[node]
        return isinstance(plan, Boolean) and not plan.accepts

    def _include(self, judging: _Judging, outcome: int, levels: int) -> None:
        """Reports ``outcome``'s findings as part of the pair being judged, ``levels`` below it."""
        summary = self.summary(outcome)
        if not summary.holds():
            judging.summary.add_below(summary, levels)
            judging.reported.append(outcome)

    def _in_place(self, node: int, value: Any, at: Any, judging: _Judging) -> None:
        self._include(judging, self.judge(node, value, at, judging.pointer), 0)

    def _below(self, node: int, value: Any, at: Any, pointer: str, judging: _Judging) -> None:
        self._include(judging, self.judge(node, value, at, pointer), 1)

    def _apply(self, keywords: Keywords, value: Any, at: Any, judging: _Judging) -> None:
        for problem in self.assertions(keywords, value, judging.pointer):
            judging.found(problem)
        for node in (*keywords.references, *keywords.all_of):
            self._in_place(node, value, at, judging)
        self._union(keywords.any_of, "anyOf", value, at, judging)
        self._union(keywords.one_of, "oneOf", value, at, judging)
        if keywords.not_ is not None and self.holds(self.judge(keywords.not_[0], value, at, judging.pointer)):
            judging.found(constraint(judging.pointer, f"not: must not match {keywords.not_[1]}", "not"))
        condition = keywords.condition
        if condition is not None:
            holds = self.holds(self.judge(condition.test, value, at, judging.pointer))
            branch = condition.then if holds else condition.otherwise
            if branch is not None:
                self._in_place(branch, value, at, judging)
        if isinstance(value, dict):
            for name, node in keywords.dependent:
                if name in value:
                    self._in_place(node, value, at, judging)
            self._members(keywords, value, judging)
        elif isinstance(value, list):
            self._items(keywords, value, judging)

    def _members(self, keywords: Keywords, members: dict[str, Any], judging: _Judging) -> None:
        """``properties``, ``patternProperties``, ``additionalProperties`` and ``propertyNames``."""
        for name, member in members.items():
            pointer, at = child(judging.pointer, name), location(members, name)
            named = False
            for property_name, node in keywords.properties:
                if property_name == name:
                    named = True
                    self._below(node, member, at, pointer, judging)
            for pattern, node in keywords.patterns:
                if self.matches(pattern, name):
                    named = True
                    self._below(node, member, at, pointer, judging)
            if keywords.additional is not None and not named:
                if self._is_false(keywords.additional):
                    message = f"unexpected argument {quoted(name)} (additionalProperties is false)"
                    judging.found(violation(ViolationCode.UNEXPECTED_ARGUMENT, pointer, message))
                else:
                    self._below(keywords.additional, member, at, pointer, judging)
        if keywords.names is not None:
            self._names(keywords.names, members, judging)

    def _names(self, names: int, members: dict[str, Any], judging: _Judging) -> None:
        """``propertyNames``: each member's name, a value of its own."""
        if self._is_false(names):
            # The core's crate fails the object itself: no name at all is allowed.
            if members:
                plan = self.plans[names]
                judging.found(_false_schema(judging.pointer, plan.location if isinstance(plan, Boolean) else None))
            return
        for name in members:
            pointer = child(judging.pointer, name)
            outcome = self.judge(names, name, location(members, ("name", name)), pointer)
            for problem in self._report_of(outcome):
                message = f"propertyNames: the name {quoted(name)} is not allowed: {problem.message}"
                judging.found(constraint(pointer, message, "propertyNames"))

    def _items(self, keywords: Keywords, items: list[Any], judging: _Judging) -> None:
        """``prefixItems`` (or ``items`` as a list), the items past them, and ``contains``."""
        for index, (item, node) in enumerate(zip(items, keywords.prefix, strict=False)):
            self._below(node, item, location(items, index), child(judging.pointer, str(index)), judging)
        rest = keywords.rest
        if rest is not None:
            start = len(keywords.prefix)
            if rest.additional_items and self._is_false(rest.node):
                if len(items) > start:
                    message = f"additionalItems: must have at most {start} items"
                    judging.found(constraint(judging.pointer, message, "additionalItems"))
            else:
                for index in range(start, len(items)):
                    at, pointer = location(items, index), child(judging.pointer, str(index))
                    self._below(rest.node, items[index], at, pointer, judging)
        contains = keywords.contains
        if contains is not None:
            matches = 0
            for index, item in enumerate(items):
                at, pointer = location(items, index), child(judging.pointer, str(index))
                matches += self.holds(self.judge(contains.node, item, at, pointer))
            problem = _contains_problem(contains, matches, judging.pointer)
            if problem is not None:
                judging.found(problem)

    def _union(self, branches: list[int], keyword: str, value: Any, at: Any, judging: _Judging) -> None:
        """A union: nothing when it holds, else its closest branch's findings or one violation (the module's rule)."""
        if not branches:
            return
        outcomes = [self.judge(branch, value, at, judging.pointer) for branch in branches]
        matched = sum(self.holds(outcome) for outcome in outcomes)
        if matched == 1 or (matched > 1 and keyword == "anyOf"):
            return
        if matched > 1:
            message = f"oneOf: matches {matched} of the {len(branches)} alternatives; exactly one is allowed"
            judging.found(constraint(judging.pointer, message, "oneOf"))
            return
        ranks = [self.summary(outcome).rank() for outcome in outcomes]
        closest = [outcome for outcome, rank in zip(outcomes, ranks, strict=True) if rank == min(ranks)]
        if len(closest) == 1 and self.summary(closest[0]).fits():
            self._include(judging, closest[0], 0)
            return
        if all(self.summary(outcome).only_type_here() for outcome in outcomes):
            expected: list[str] = []
            for outcome in outcomes:
                for problem in self._report_of(outcome):
                    for name in (problem.data or {}).get("expected", []):
                        if name not in expected:
                            expected.append(name)
            message = type_message(expected, value)
            judging.found(violation(ViolationCode.TYPE_MISMATCH, judging.pointer, message, {"expected": expected}))
        else:
            message = f"{keyword}: matches none of the {len(branches)} alternatives"
            judging.found(constraint(judging.pointer, message, keyword))

    def _report_of(self, outcome: int) -> list[Violation]:
        """The findings ``outcome`` reports, sorted as the validator sorts them."""
        return sorted_unique(self.findings(outcome))

    def findings(self, root: int) -> list[Violation]:
        """The findings the pair ``root`` reports (its own, and those of the pairs it reports, each pair's once)."""
        seen: set[int] = set()
        pending = [root]
        found: list[Violation] = []
        while pending:
            outcome = pending.pop()
            if outcome in seen:
                continue
            seen.add(outcome)
            found.extend(self.outcomes[outcome].local)
            pending.extend(self.outcomes[outcome].reported)
        return found


def _contains_problem(contains: Contains, matches: int, pointer: str) -> Violation | None:
    """The verdict on ``contains`` and its bounds, ``matches`` items matching.

    The violation names the keyword the core's crate names: the bound broken; ``maxContains`` when it is the only
    bound, as it still asks for one match.
    """
    low, high = contains.min, contains.max
    if high is not None and matches > high.count:
        keyword, bound = "maxContains", high
    elif low is not None and matches < low.count:
        keyword, bound = "minContains", low
    elif low is None and high is not None and matches == 0:
        keyword, bound = "maxContains", high
    elif low is None and high is None and matches == 0:
        return constraint(pointer, "contains: no item matches", "contains")
    else:
        return None
    if keyword == "minContains":
        message = f"minContains: at least {bound.count} items must match `contains`"
    else:
        message = f"maxContains: at most {bound.count} items may match `contains`"
    return constraint(pointer, message, keyword, bound.count)


def _false_schema(pointer: str, where: str | None) -> Violation:
    if where is None:
        message = "false schema: no value is allowed here"
    else:
        message = f"false schema: no value is allowed here (schema at {where or 'the root'})"
    return constraint(pointer, message, "false")
