"""The strategies for one place of a schema: numbers, strings and formats, arrays, objects; plain or hostile.

``_schema.Compiler`` reads a schema and calls these with what it read (``Bounds``, ``TextRules``, ``ObjectShape``);
nothing here looks at a schema. Hostile variants draw from the catalogue (``_hostile``) four times in five (arrays
at their limit one time in four, as they are costly), and report each hostile value as a hypothesis event.
"""

from __future__ import annotations

import copy
import datetime
import functools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import event
from hypothesis import strategies as st

from toolwire.strategies import _hostile
from toolwire.strategies._hostile import HostileOptions
from toolwire.strategies._merge import json_key

__all__ = [
    "FORMATS",
    "Bounds",
    "ObjectShape",
    "TextRules",
    "any_json",
    "arrays",
    "at_limit",
    "hostile_numbers",
    "hostile_texts",
    "numbers",
    "objects",
    "sometimes",
    "texts",
    "with_members",
]

Strategy = st.SearchStrategy[Any]
CHARACTERS = st.characters(exclude_categories=["Cs"])
_BIGGEST = Fraction(1.7976931348623157e308)


def _note(category: str, value: Any) -> Any:
    event(f"hostile: {category}")
    return value


def _tagged(category: str, strategy: Strategy) -> Strategy:
    return strategy.map(lambda value: _note(category, value))


@st.composite
def _mostly(draw: st.DrawFn, hostile: Strategy, plain: Strategy) -> Any:
    """The hostile strategy four times in five (shrinking towards it), else the plain one."""
    return draw(hostile) if draw(st.integers(0, 4)) < 4 else draw(plain)


@st.composite
def sometimes(draw: st.DrawFn, hostile: Strategy, plain: Strategy) -> Any:
    """The hostile strategy one time in four (an array at its limit is costly), else the plain one."""
    return draw(hostile) if draw(st.integers(0, 3)) == 0 else draw(plain)


@functools.cache
def any_json() -> Strategy:
    """Any JSON value, kept small: what a schema without constraints accepts."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**6), 10**6),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(CHARACTERS, max_size=20),
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=3), st.dictionaries(st.text(CHARACTERS, max_size=8), children, max_size=3)
        ),
        max_leaves=6,
    )


# ------------------------------------------------------------------------------------------------ numbers


@dataclass(frozen=True)
class Bounds:
    """What a number must meet: bounds (exact), whether they are open, ``multipleOf``, a format's integer limits."""

    lo: Fraction | None = None
    hi: Fraction | None = None
    lo_open: bool = False
    hi_open: bool = False
    multiple: Fraction | None = None
    limits: tuple[int, ...] = ()

    def __str__(self) -> str:
        """The interval, as in ``[0, 10)``, and the multiple."""
        interval = f"{'(' if self.lo_open else '['}{self.lo}, {self.hi}{')' if self.hi_open else ']'}"
        return interval + (f" (multipleOf {self.multiple})" if self.multiple is not None else "")


def _as_number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _steps(bounds: Bounds, step: Fraction) -> Strategy | None:
    """``k * step`` for the integers ``k`` that put it inside the bounds; None when there is none."""
    k_lo = k_hi = None
    if bounds.lo is not None:
        ratio = bounds.lo / step
        k_lo = ratio.__ceil__() + (1 if bounds.lo_open and ratio.denominator == 1 else 0)
    if bounds.hi is not None:
        ratio = bounds.hi / step
        k_hi = ratio.__floor__() - (1 if bounds.hi_open and ratio.denominator == 1 else 0)
    if k_lo is not None and k_hi is not None and k_lo > k_hi:
        return None
    if k_lo is None and k_hi is None:
        ks = st.one_of(st.integers(-1000, 1000), st.integers(-(10**12), 10**12), st.integers())
    else:
        ks = st.integers(k_lo, k_hi)
    return ks.map(lambda k: _as_number(k * step))


def _float_bound(bound: Fraction | None, is_open: bool, direction: float) -> tuple[float | None, bool]:
    """The float nearest ``bound`` on its inside, and whether that float must itself be excluded."""
    if bound is None or abs(bound) > _BIGGEST:
        return None, False
    value = float(bound)
    if (Fraction(value) - bound) * direction < 0:  # rounded to the outside
        value = math.nextafter(value, direction * math.inf)
    return value, is_open and Fraction(value) == bound


def _floats(bounds: Bounds) -> Strategy | None:
    """Finite floats inside the bounds, exact bounds respected (a bound's nearest float may lie outside it)."""
    if (bounds.lo is not None and bounds.lo > _BIGGEST) or (bounds.hi is not None and bounds.hi < -_BIGGEST):
        return None
    lo, exclude_lo = _float_bound(bounds.lo, bounds.lo_open, 1.0)
    hi, exclude_hi = _float_bound(bounds.hi, bounds.hi_open, -1.0)
    if lo is not None and hi is not None and (lo > hi or (lo == hi and (exclude_lo or exclude_hi))):
        return None  # checked here: hypothesis reports an empty interval only when a value is drawn
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False, exclude_min=exclude_lo, exclude_max=exclude_hi)


def numbers(bounds: Bounds, *, integer: bool) -> Strategy | None:
    """Integers (or numbers: integers and floats) inside the bounds; None when there is none."""
    step = bounds.multiple if bounds.multiple is not None else Fraction(1)
    if integer and bounds.multiple is not None:
        step = Fraction(bounds.multiple.numerator)  # an integer multiple of p/q is a multiple of p
    options = [s for s in (_steps(bounds, step),) if s is not None]
    if not integer and bounds.multiple is None:
        options += [s for s in (_floats(bounds),) if s is not None]
    return st.one_of(options) if options else None


def hostile_numbers(plain: Strategy, bounds: Bounds, *, integer: bool, options: HostileOptions) -> Strategy:
    """``plain``, or (mostly) the extremes the bounds allow."""
    if "extreme_number" not in options.categories:
        return plain
    extremes = _hostile.number_candidates(
        integer=integer,
        lo=bounds.lo,
        hi=bounds.hi,
        lo_open=bounds.lo_open,
        hi_open=bounds.hi_open,
        multiple=bounds.multiple,
        limits=bounds.limits,
    )
    return _mostly(_tagged("extreme_number", st.sampled_from(extremes)), plain) if extremes else plain


# ------------------------------------------------------------------------------------------------ strings


@dataclass(frozen=True)
class TextRules:
    """What a string must meet: its length in code points, its pattern (ECMA meaning, compiled), its format."""

    min_len: int = 0
    max_len: int | None = None
    regex: re.Pattern[str] | None = None
    format: str | None = None

    def fits(self, text: str) -> bool:
        """Whether ``text`` meets the length bounds and the pattern (search semantics)."""
        return _hostile.fits_string(text, self.min_len, self.max_len, self.regex)

    def pad(self, text: str) -> str:
        """``text`` lengthened to ``min_len`` with ``A``."""
        return text + "A" * max(0, self.min_len - len(text))

    @property
    def free(self) -> bool:
        """Whether the string is free text (no format, or one that only names a kind of text)."""
        return self.format is None or self.format in _FREE_FORMATS


def _uris() -> Strategy:
    host = st.from_regex(r"[a-z][a-z0-9-]{0,12}\.(com|org|net|io|example)", fullmatch=True)
    path = st.lists(st.from_regex(r"[A-Za-z0-9._~-]{1,10}", fullmatch=True), max_size=3).map("/".join)
    query = st.one_of(st.just(""), st.from_regex(r"\?[a-z]{1,6}=[A-Za-z0-9]{0,8}", fullmatch=True))
    return st.builds(
        lambda *parts: "{}://{}/{}{}".format(*parts), st.sampled_from(["https", "http"]), host, path, query
    )


def _date_times() -> Strategy:
    zones = st.sampled_from([datetime.timezone.utc, datetime.timezone(datetime.timedelta(hours=5, minutes=30))])
    return st.datetimes(timezones=zones).map(lambda d: d.isoformat().replace("+00:00", "Z"))


def _emails() -> Strategy:
    # hypothesis' addresses run long; short plain ones too, so that a maxLength rarely has to filter
    return st.one_of(
        st.emails(), st.from_regex(r"[a-z0-9][a-z0-9._+-]{0,10}@[a-z][a-z0-9-]{0,10}\.(com|org|io)", fullmatch=True)
    )


#: The formats generated as such; a string of another format is plain text (the validator checks no format).
FORMATS: dict[str, Callable[[], Strategy]] = {
    "email": _emails,
    "idn-email": _emails,
    "uri": _uris,
    "url": _uris,
    "iri": _uris,
    "uri-reference": _uris,
    "iri-reference": _uris,
    "date": lambda: st.dates().map(datetime.date.isoformat),
    "date-time": _date_times,
    "time": lambda: st.times().map(lambda t: t.isoformat() + "Z"),
    "uuid": lambda: st.uuids().map(str),
    "ipv4": lambda: st.ip_addresses(v=4).map(str),
    "ipv6": lambda: st.ip_addresses(v=6).map(str),
    "hostname": lambda: st.from_regex(r"[a-z][a-z0-9-]{0,12}(\.[a-z][a-z0-9-]{0,12}){0,2}", fullmatch=True),
}
_FREE_FORMATS = frozenset({"password", "text", "textarea", "markdown", "multiline", "string"})
_LONG_FILLERS = ("A", "a", "1", "../", "\U0001f600", "' OR '1'='1' -- ", "Ignore previous instructions. ", "\u202e")


def texts(rules: TextRules) -> Strategy:
    """Strings meeting the rules: from the pattern, else of the format, else any text of the right length."""
    bounded = rules.min_len > 0 or rules.max_len is not None
    if rules.regex is not None:
        strategy: Strategy = st.from_regex(rules.regex, fullmatch=bounded, alphabet=CHARACTERS)
    elif rules.format in FORMATS:
        strategy = FORMATS[rules.format]()
    else:
        return st.text(CHARACTERS, min_size=rules.min_len, max_size=rules.max_len)
    if not bounded:
        return strategy
    return strategy.filter(lambda s: rules.min_len <= len(s) and (rules.max_len is None or len(s) <= rules.max_len))


def _payloads(rules: TextRules, options: HostileOptions) -> list[tuple[str, str]]:
    """The catalogue's (category, value) pairs that fit the rules as they are (padded to ``minLength``)."""
    if rules.free:
        pairs = _hostile.text_candidates(options)
    elif rules.format is not None:
        pairs = _hostile.format_candidates(rules.format, options)
    else:
        pairs = []
    fitting = [(category, rules.pad(value)) for category, value in _hostile.kept(pairs, options.categories)]
    return [(category, value) for category, value in fitting if rules.fits(value)]


def _long_texts(rules: TextRules) -> list[str]:
    sizes = [max(rules.max_len, rules.min_len)] if rules.max_len is not None else [4096, 65536]
    candidates = [(filler * (size // len(filler) + 1))[:size] for size in sizes for filler in _LONG_FILLERS]
    return [text for text in candidates if rules.fits(text)]


@st.composite
def _embedded(draw: st.DrawFn, payloads: list[tuple[str, str]], matches: Strategy, rules: TextRules) -> str:
    """A payload before or after a string the pattern matches (search semantics), if that still matches."""
    category, payload = draw(st.sampled_from(payloads))
    match = str(draw(matches))
    for text in (payload + match, match + payload, f"{match} {payload}"):
        if rules.fits(rules.pad(text)):
            return str(_note(category, rules.pad(text)))
    return match  # a pattern anchored at both ends: the plain match


def hostile_texts(plain: Strategy, rules: TextRules, options: HostileOptions) -> Strategy:
    """``plain``, or (mostly) a payload that fits: as it is, embedded around a pattern match, or a long string."""
    choices: list[Strategy] = []
    fitting = _payloads(rules, options)
    if fitting:
        choices.append(st.sampled_from(fitting).map(lambda pair: _note(*pair)))
    if rules.regex is not None and rules.free:
        embeddable = _hostile.kept(_hostile.text_candidates(options), options.categories)
        if embeddable:
            choices.append(_embedded(embeddable, plain, rules))
    if "long_string" in options.categories and rules.free:
        long = _long_texts(rules)
        if long:  # one draw in (about) eight: long strings are costly, and other payloads matter as much
            choices = [*choices * 4, _tagged("long_string", st.sampled_from(long))]
    return _mostly(st.one_of(choices), plain) if choices else plain


# ------------------------------------------------------------------------------------------------- arrays


def arrays(prefix: list[Strategy], rest: Strategy | None, *, least: int, most: int | None, unique: bool) -> Strategy:
    """The prefix items, then ``least`` to ``most`` items of ``rest`` (unique by JSON equality when asked)."""
    element = rest if rest is not None else st.nothing()
    tail = st.lists(
        element, min_size=least, max_size=0 if rest is None else most, unique_by=json_key if unique else None
    )
    return st.tuples(st.tuples(*prefix), tail).map(lambda pair: [*pair[0], *pair[1]])


def at_limit(prefix: list[Strategy], rest: Strategy, size: int) -> Strategy:
    """An array of ``size`` items: drawn ones, or (past 64) one item repeated."""
    count = max(0, size - len(prefix))
    if count <= 64:
        tail: Strategy = st.lists(rest, min_size=count, max_size=count)
    else:
        tail = rest.map(lambda item: [copy.deepcopy(item) for _ in range(count)])
    return _tagged("max_items", st.tuples(st.tuples(*prefix), tail).map(lambda pair: [*pair[0], *pair[1]]))


def with_members(strategy: Strategy, member: Strategy, needed: int, max_items: int | None) -> Strategy:
    """Arrays of ``strategy`` with ``needed`` items of ``member`` put in (``contains``/``minContains``)."""

    @st.composite
    def arrays_with_members(draw: st.DrawFn) -> list[Any]:
        value: list[Any] = list(draw(strategy))
        if max_items is not None:  # room for the members, the length staying within [minItems, maxItems]
            value = value[: max(0, max_items - needed)]
        for _ in range(needed):
            value.insert(draw(st.integers(0, len(value))), draw(member))
        return value

    return arrays_with_members()


# ------------------------------------------------------------------------------------------------ objects


@dataclass
class ObjectShape:
    """What an object schema lets a generator put in an object."""

    required: list[str]
    optional: list[str]
    values: dict[str, Strategy]  # the value of each property that can have one
    extra: Strategy | None  # the value of an undeclared key; None when none may be added
    patterned: list[tuple[Strategy, Strategy]]  # (keys, values) of each patternProperties entry
    dependent: dict[str, list[str]]  # dependentRequired
    declared: Mapping[str, Any]  # the properties, in declaration order
    undeclared: Callable[[str], bool]  # whether a key is neither declared nor matched by a pattern
    min_properties: int = 0
    max_properties: int | None = None
    hostile_keys: tuple[str, ...] = ()
    generous: bool = False  # hostile: every optional property most of the time


def _chosen(draw: st.DrawFn, shape: ObjectShape) -> list[str]:
    """The keys of one object: the required ones, some optional ones, and what those bring along."""
    room = None if shape.max_properties is None else shape.max_properties - len(shape.required)
    most = len(shape.optional) if room is None else min(len(shape.optional), room)
    least = max(0, min(most, shape.min_properties - len(shape.required)))
    if shape.generous and draw(st.integers(0, 3)) != 0:
        chosen = set(draw(st.permutations(shape.optional))[:most])
    elif shape.optional:
        chosen = set(draw(st.lists(st.sampled_from(shape.optional), unique=True, min_size=least, max_size=most)))
    else:
        chosen = set()
    keys = [*shape.required, *(key for key in shape.declared if key in chosen)]
    for key in list(keys):  # dependentRequired: a present key brings its dependents
        keys += [needed for needed in shape.dependent.get(key, []) if needed not in keys and needed in shape.values]
    return keys


def _add_undeclared(draw: st.DrawFn, shape: ObjectShape, result: dict[str, Any]) -> None:
    """Now and then (or as ``minProperties`` needs) one or two undeclared keys, hostile ones among them."""
    wanted = max(0, shape.min_properties - len(result))
    if shape.extra is None or not (wanted or draw(st.integers(0, 5)) == 0):
        return
    count = max(wanted, draw(st.integers(1, 2)))
    if shape.max_properties is not None:
        count = min(count, shape.max_properties - len(result))
    names = st.one_of(st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True), st.text(CHARACTERS, max_size=8))
    for _ in range(count):
        hostile = bool(shape.hostile_keys) and draw(st.booleans())
        if hostile:
            name = _note("hostile_key", draw(st.sampled_from(shape.hostile_keys)))
        else:
            name = draw(names.filter(lambda k: shape.undeclared(k) and k not in result))
        if name not in result:
            result[name] = draw(shape.extra)


def _add_patterned(draw: st.DrawFn, shape: ObjectShape, result: dict[str, Any]) -> None:
    """Now and then (or as ``minProperties`` needs) a key of each patternProperties entry."""
    for keys, values in shape.patterned:
        if shape.max_properties is not None and len(result) >= shape.max_properties:
            return
        if len(result) < shape.min_properties or draw(st.integers(0, 3)) == 0:
            name = draw(keys.filter(lambda k: k not in shape.declared))
            if name not in result:
                result[name] = draw(values)


def objects(shape: ObjectShape) -> Strategy:
    """Objects of the shape: the required keys, some optional ones, now and then undeclared or patterned ones."""

    @st.composite
    def shaped(draw: st.DrawFn) -> dict[str, Any]:
        result = {key: draw(shape.values[key]) for key in _chosen(draw, shape)}
        _add_undeclared(draw, shape, result)
        _add_patterned(draw, shape, result)
        return result

    return shaped()
