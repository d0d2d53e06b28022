"""What the wire renderers share: deterministic ids, seeded fragments and the truncate cut.

A renderer builds an answer as a list of *pieces*: fixed event payloads, ``Fragment`` s (a piece of text — argument
or reply text — with the function that wraps it into its event) and one ``FINISH`` marker where the closing events
begin. Quirks that rearrange or cut the stream work on that list; ``payloads`` then turns it into the events sent.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from toolwire.server._match import Turn
from toolwire.server._quirks import Quirks
from toolwire.server._request import ParsedRequest
from toolwire.server._script import Chunking

__all__ = [
    "CREATED",
    "FINISH",
    "TEXT",
    "Context",
    "Fragment",
    "cut",
    "halve",
    "payloads",
    "round_robin",
]

#: ``created`` of every answer (2026-01-01T00:00:00Z): a fixed time keeps answers byte-identical.
CREATED: Final = 1767225600
#: The owner of reply-text fragments (calls own theirs by position).
TEXT: Final = -1


class _Finish:
    """The place in a piece list where the closing events (finish reason, usage, terminal event) begin."""

    def __repr__(self) -> str:
        return "FINISH"


FINISH: Final = _Finish()


@dataclass(frozen=True)
class Fragment:
    """A piece of streamed text and how it becomes an event.

    Attributes:
        owner: The position of the call whose arguments it carries, or ``TEXT``.
        text: The text.
        build: Makes the event payload that carries a (possibly shortened) text.
    """

    owner: int
    text: str
    build: Callable[[str], Any]


@dataclass(frozen=True)
class Context:
    """Everything a renderer needs besides the turn.

    Attributes:
        request: The request being answered.
        quirks: The model's quirks.
        chunking: The model's chunking.
        dialect: The dialect the model writes its calls in where an answer is text only, or None.
    """

    request: ParsedRequest
    quirks: Quirks
    chunking: Chunking
    dialect: str | None = None

    @property
    def model(self) -> str:
        """The model named in the request, echoed in the answer."""
        return self.request.model

    def id(self, label: str, length: int) -> str:
        """A hex id derived from the request and ``label``: the same request always gets the same ids."""
        return hashlib.sha256(f"{self.request.digest}:{label}".encode()).hexdigest()[:length]

    def splitter(self) -> Callable[[str], list[str]]:
        """Splits text into fragments of 1 to ``max_fragment`` characters, seeded: one per answer, used in order."""
        rng = random.Random(self.chunking.seed)
        largest = self.chunking.max_fragment

        def split(text: str) -> list[str]:
            parts, start = [], 0
            while start < len(text):
                size = rng.randint(1, largest)
                parts.append(text[start : start + size])
                start += size
            return parts

        return split

    def completion_tokens(self, turn: Turn) -> int:
        """A deterministic estimate of the answer's size in tokens."""
        return max(1, (len(turn.text) + sum(len(call.arguments_json) for call in turn.calls)) // 4)


def halve(text: str) -> str:
    """The first half of a text, as a cut in its middle leaves it."""
    return text[: len(text) // 2]


def cut(pieces: Sequence[Any], owner: int) -> list[Any]:
    """The pieces up to the middle of ``owner`` 's text; nothing after (no closing events).

    When ``owner`` has no text fragment at all, the cut falls where the closing events begin.
    """
    keep = sum(len(p.text) for p in pieces if isinstance(p, Fragment) and p.owner == owner) // 2
    kept: list[Any] = []
    seen = 0
    for piece in pieces:
        if piece is FINISH:
            break
        if isinstance(piece, Fragment) and piece.owner == owner:
            room = keep - seen
            if len(piece.text) < room:
                seen += len(piece.text)
            else:
                if room > 0:
                    kept.append(Fragment(owner, piece.text[:room], piece.build))
                break
        kept.append(piece)
    return kept


def round_robin(groups: Iterable[Sequence[Any]]) -> list[Any]:
    """The items of several sequences taken one from each in turn."""
    lists = [list(group) for group in groups]
    merged: list[Any] = []
    for position in range(max((len(items) for items in lists), default=0)):
        merged.extend(items[position] for items in lists if position < len(items))
    return merged


def payloads(pieces: Iterable[Any]) -> list[Any]:
    """The event payloads of a piece list (the ``FINISH`` marker dropped)."""
    return [
        piece.build(piece.text) if isinstance(piece, Fragment) else piece for piece in pieces if piece is not FINISH
    ]
