r"""Where to rewrite a decoded value to mask every secret in it in place: its ``units``.

Recordings mask a secret character by character, inside JSON text that must stay valid and the same length in
characters once decoded: every character of a secret becomes ``*``, whatever its spelling (one character, or an
escape such as ``\u0073``), and a secret member's number keeps its shape (``4821`` gives ``1000``).

A unit is ``(start, end, replacement, aligned)`` in the text searched. An aligned unit is a run of characters each
spelled by itself, ``replacement`` giving one character for each (``"****"``, a masked number); otherwise the span
is the spelling of one character (an escape) and ``replacement`` takes its place whole. Units are sorted and
disjoint; a run is one unit, so that a long secret costs one tuple, not one per character.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from toolwire._common._redact import MASK, Redactor, mask_number
from toolwire.recordings._jsonspans import decode, decode_spans, leaves

__all__ = ["Unit", "units"]

Unit = tuple[int, int, str, bool]
_JSON_OPENERS: Final = ("{", "[")


def units(text: str, redactor: Redactor, *, anywhere: bool = False) -> list[Unit]:
    """The units that mask every secret of a decoded value (a call's arguments, a choice's text, an event's string).

    The text is searched as it stands (a pattern may span a key and its value); when it looks like JSON (or with
    ``anywhere``: text that may hold JSON anywhere), each string (keys too) is also searched decoded, and the string or
    number values of secret-named members are secret whole (``toolwire.recordings._jsonspans.leaves`` says which).
    """
    found: list[Unit] = [(start, end, MASK * (end - start), True) for start, end in redactor.spans(text)]
    hint = redactor.hint
    json = anywhere or text.lstrip()[:1] in _JSON_OPENERS
    if json and ("\\" in text or hint is None or hint.search(text)):
        for leaf in leaves(text, redactor.secret_name, hint):
            if not leaf.string:
                if leaf.secret:
                    found.append((leaf.start, leaf.end, mask_number(text[leaf.start : leaf.end]), True))
            elif leaf.secret:
                value, offsets = decode_spans(text, leaf.start, leaf.end)
                found += spelled_units(offsets, [(0, len(value))])
            elif "\\" in text[leaf.start : leaf.end]:
                spans = redactor.spans(decode(text, leaf.start, leaf.end))
                if spans:
                    found += spelled_units(decode_spans(text, leaf.start, leaf.end)[1], spans)
    return merge_units(found)


def spelled_units(offsets: Sequence[int], spans: list[tuple[int, int]]) -> list[Unit]:
    """The units masking the decoded characters ``spans`` of a string spelled as ``offsets`` say (``decode_spans``).

    Characters spelled by themselves make aligned runs; each escape is a unit of its own.
    """
    if isinstance(offsets, range):
        return [(offsets[first], offsets[last], MASK * (last - first), True) for first, last in spans]
    found: list[Unit] = []
    for first, last in spans:
        run = -1
        for char in range(first, last):
            start, end = offsets[char], offsets[char + 1]
            if end - start == 1:
                run = start if run < 0 else run
                continue
            if run >= 0:
                found.append((run, start, MASK * (start - run), True))
                run = -1
            found.append((start, end, MASK, False))
        if run >= 0:
            end = offsets[last]
            found.append((run, end, MASK * (end - run), True))
    return found


def merge_units(found: list[Unit]) -> list[Unit]:
    """Units sorted and made disjoint, each character masked once.

    Overlapping runs are joined; a run overlapping an escape is cut around it, the escape keeping its one ``*``.
    """
    found.sort()
    merged: list[Unit] = []
    for unit in found:
        if not merged or unit[0] >= merged[-1][1]:
            merged.append(unit)
            continue
        merged[-1:] = _overlap(merged[-1], unit)
    return merged


def _overlap(first: Unit, second: Unit) -> list[Unit]:
    """Two overlapping units (``first`` starting no later) as disjoint ones covering both."""
    if first[3] and second[3]:
        return [(first[0], max(first[1], second[1]), first[2] + second[2][first[1] - second[0] :], True)]
    if not first[3] and not second[3]:
        return [(first[0], max(first[1], second[1]), MASK, False)]
    escape, run = (second, first) if first[3] else (first, second)
    out: list[Unit] = []
    if run[0] < escape[0]:
        out.append((run[0], escape[0], run[2][: escape[0] - run[0]], True))
    out.append(escape)
    if run[1] > escape[1]:
        out.append((escape[1], run[1], run[2][escape[1] - run[0] :], True))
    return out
