"""Migrations: deterministic functions that carry one tool's arguments from one registry version to a later one.

``@toolwire.migration("create_ticket", from_="v1", to="v2")`` registers ``arguments dict -> arguments dict`` in
the default collection (the one ``RegistryHistory.replay`` uses when given none); ``Migrations()`` is a collection
of its own, with the same decorator as a method, for tests and for code that wants isolation.

A migration is run on a deep copy of the arguments, twice, and both results must be equal JSON objects: a function
that raises, returns anything but a JSON object, mutates shared state into its result or reads the clock is
reported for the call it was given (``MigrationError``), never allowed to stop a replay.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from toolwire._common._json import canonical

__all__ = ["Migration", "MigrationError", "MigrationFunction", "Migrations", "default_migrations", "migration"]

#: What a migration is: the arguments of a call under one version in, the arguments under a later version out.
MigrationFunction = Callable[[dict[str, Any]], dict[str, Any]]

_F = TypeVar("_F", bound=Callable[..., Any])


class MigrationError(ValueError):
    """A migration failed on one call's arguments: it raised, returned no JSON object, or is not deterministic."""


def _where(function: Callable[..., Any]) -> str:
    module = getattr(function, "__module__", None) or "?"
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None) or repr(function)
    return f"{module}.{name}"


def _canonical(value: object) -> str:
    # Sorted keys: two runs that build the same object in a different key order are the same result.
    return canonical(value)


@dataclass(frozen=True)
class Migration:
    """One registered migration.

    Attributes:
        tool: The tool whose arguments it carries.
        from_: The label of the version it starts from.
        to: The label of the version it produces arguments for (a later version of the history).
        function: ``arguments dict -> arguments dict``.
        where: The function's ``module.qualname``, named in reports.
    """

    tool: str
    from_: str
    to: str
    function: MigrationFunction
    where: str

    def __call__(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run the migration on ``arguments`` (left untouched) and check the result.

        The function runs twice, each time on its own deep copy; both results must be the same JSON object.

        Args:
            arguments: The call's arguments under ``from_``.

        Returns:
            The arguments under ``to``.

        Raises:
            MigrationError: The function raised (the exception is chained), returned something that is not a JSON
                object, or returned two different objects for the same input.
        """
        label = f"migration {self.tool} {self.from_}->{self.to} ({self.where})"
        results = []
        for _ in range(2):
            try:
                result = self.function(copy.deepcopy(arguments))
            except Exception as error:  # any failure of user code is that call's finding, not the run's end
                raise MigrationError(f"{label} raised {type(error).__name__}: {error}") from error
            if not isinstance(result, dict):
                raise MigrationError(f"{label} returned a {type(result).__name__}; return the arguments as a dict")
            try:
                results.append(_canonical(result))
            except (TypeError, ValueError) as error:
                raise MigrationError(f"{label} returned arguments that are not JSON: {error}") from error
        if results[0] != results[1]:
            raise MigrationError(
                f"{label} is not deterministic: two runs over the same arguments returned {results[0]:.200} and "
                f"{results[1]:.200}; derive every value from the arguments (no clock, random or shared state)"
            )
        value: dict[str, Any] = json.loads(results[0])
        return value


class Migrations:
    """A collection of migrations, at most one per (tool, from, to).

    Example:
        >>> migrations = Migrations()
        >>> @migrations.migration("create_ticket", from_="v1", to="v2")
        ... def add_priority(arguments):
        ...     return {"priority": "normal", **arguments}
        >>> migrations.get("create_ticket", "v1", "v2")({"title": "printer on fire"})
        {'priority': 'normal', 'title': 'printer on fire'}
    """

    def __init__(self, migrations: Iterable[Migration] = ()) -> None:
        """Start a collection, empty or with ``migrations`` (each added as ``add`` would).

        Raises:
            ValueError: Two migrations for the same (tool, from, to).
        """
        self._by_key: dict[tuple[str, str, str], Migration] = {}
        for item in migrations:
            self._put(item)

    def _put(self, item: Migration) -> Migration:
        key = (item.tool, item.from_, item.to)
        known = self._by_key.get(key)
        # The same function registered again is a module imported twice (a reload, a test re-import): it replaces.
        if known is not None and known.where != item.where:
            raise ValueError(
                f"two migrations for {item.tool} from {item.from_!r} to {item.to!r}: {known.where} and {item.where}; "
                "keep one"
            )
        self._by_key[key] = item
        return item

    def add(self, tool: str, from_: str, to: str, function: MigrationFunction) -> Migration:
        """Register ``function`` as the migration of ``tool`` from version ``from_`` to version ``to``.

        Args:
            tool: The tool name.
            from_: The label of the older version.
            to: The label of the newer version.
            function: ``arguments dict -> arguments dict``, deterministic.

        Returns:
            The registered ``Migration``.

        Raises:
            TypeError: A label or the tool is not a non-empty string, or ``function`` is not callable.
            ValueError: ``from_`` equals ``to``, or another function is registered for the same (tool, from, to).
        """
        for field_name, value in (("tool", tool), ("from_", from_), ("to", to)):
            if not isinstance(value, str) or not value:
                raise TypeError(f"migration {field_name} must be a non-empty str; got {value!r}")
        if from_ == to:
            raise ValueError(f"migration of {tool} from {from_!r} to itself; from_ and to must be different versions")
        if not callable(function):
            raise TypeError(f"migration of {tool} {from_}->{to}: {function!r} is not callable")
        return self._put(Migration(tool, from_, to, function, _where(function)))

    def migration(self, tool: str, *, from_: str, to: str) -> Callable[[_F], _F]:
        """Decorator: register the function as the migration of ``tool`` from ``from_`` to ``to``.

        Args:
            tool: The tool name.
            from_: The label of the older version.
            to: The label of the newer version.

        Returns:
            A decorator that registers the function and returns it unchanged.
        """

        def register(function: _F) -> _F:
            self.add(tool, from_, to, function)
            return function

        return register

    def get(self, tool: str, from_: str, to: str) -> Migration | None:
        """The migration of ``tool`` from ``from_`` to ``to``, or None."""
        return self._by_key.get((tool, from_, to))

    def for_tool(self, tool: str) -> tuple[Migration, ...]:
        """The migrations of ``tool``, in registration order."""
        return tuple(item for item in self._by_key.values() if item.tool == tool)

    def update(self, other: Iterable[Migration]) -> None:
        """Add every migration of ``other`` (a ``Migrations`` or any iterable of ``Migration``).

        Raises:
            ValueError: One clashes with a migration already here.
        """
        for item in other:
            self._put(item)

    def clear(self) -> None:
        """Forget every migration."""
        self._by_key.clear()

    def __iter__(self) -> Iterator[Migration]:
        """The migrations in registration order."""
        return iter(list(self._by_key.values()))

    def __len__(self) -> int:
        """How many migrations are registered."""
        return len(self._by_key)

    def __repr__(self) -> str:
        """The registered (tool, from, to) triples."""
        return f"Migrations({[f'{m.tool} {m.from_}->{m.to}' for m in self._by_key.values()]})"


_DEFAULT = Migrations()


def default_migrations() -> Migrations:
    """The collection ``@toolwire.migration`` registers into, used by a replay given no migrations."""
    return _DEFAULT


def migration(tool: str, *, from_: str, to: str) -> Callable[[_F], _F]:
    """Decorator: register a migration of ``tool``'s arguments from version ``from_`` to version ``to``.

    The function takes the arguments (a dict) a call carried under ``from_`` and returns the arguments it must
    carry under ``to``. It must be deterministic: a replay runs it twice on copies and reports a call whose two
    results differ.

    Example:
        In a module of migrations (``toolwire replay --migrations ticket_migrations`` imports it)::

            @toolwire.migration("create_ticket", from_="v1", to="v2")
            def rename_body(arguments):
                arguments = dict(arguments)
                arguments["description"] = arguments.pop("body", "")
                return arguments

    Args:
        tool: The tool name.
        from_: The label of the older version (a file name's stem, a manifest label, or a git hash or tag).
        to: The label of the newer version.

    Returns:
        A decorator that registers the function in the default collection and returns it unchanged.
    """
    return _DEFAULT.migration(tool, from_=from_, to=to)
