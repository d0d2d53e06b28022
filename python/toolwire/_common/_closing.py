"""``with`` blocks that close what they hold: the one home of the context-manager methods of every closable object.

A call log, a recorder and every stream (of calls, events or snapshots) end a ``with`` block by calling their own
``close()``, and an async stream ends an ``async with`` block by awaiting its ``aclose()``, even when the block raised
(the exception still propagates). Their ``close`` and ``aclose`` say what closing means for each.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing_extensions import Self  # typing's from Python 3.11

__all__ = ["AcloseBlock", "AsyncClosingBlock", "ClosingBlock"]


class ClosingBlock(ABC):
    """``with x:`` gives ``x`` and calls ``x.close()`` when the block ends."""

    __slots__ = ()

    @abstractmethod
    def close(self) -> object:
        """What ending the block does (each class says, and may return what it made)."""

    def __enter__(self) -> Self:
        """The object itself."""
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        """``close()``, whether or not the block raised."""
        self.close()


class AsyncClosingBlock(ClosingBlock):
    """``with x:`` and ``async with x:`` alike give ``x`` and call ``x.close()`` when the block ends."""

    __slots__ = ()

    async def __aenter__(self) -> Self:
        """The object itself."""
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        """``close()``, whether or not the block raised."""
        self.close()


class AcloseBlock(ABC):
    """``async with x:`` gives ``x`` and awaits ``x.aclose()`` when the block ends: an async stream's close awaits."""

    __slots__ = ()

    @abstractmethod
    async def aclose(self) -> None:
        """What ending the block does."""

    async def __aenter__(self) -> Self:
        """The object itself."""
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        """``await aclose()``, whether or not the block raised."""
        await self.aclose()
