"""The toolwire pytest plugin: recordings, tools, a local endpoint and live endpoints as fixtures.

pytest loads it through the ``pytest11`` entry point whenever toolwire is installed. Importing it is cheap: the local
endpoint (``toolwire.server`` and its ASGI stack) is imported only by the fixtures that start one.

Configuration (``[tool.pytest.ini_options]``, ``pytest.ini`` or ``tox.ini``; relative paths are read from the
configuration file's folder, or the rootdir when there is none):

- ``toolwire_recordings``: the recordings folder of ``toolwire_recording`` (default ``recordings``).
- ``toolwire_tools``: a tools file (``.json``, ``.yaml``, ``.jsonl``) for ``toolwire_registry``.
- ``toolwire_script``: a script for ``toolwire_server`` and ``toolwire_serve`` (default: the bundled one).

Live tests. The marker ``toolwire_live`` marks a test that talks to a real endpoint. It runs when
``TOOLWIRE_BASE_URL`` and ``TOOLWIRE_MODEL`` are set and is skipped otherwise, with a reason naming what to set.
``--toolwire-live`` says live tests must run: with it, a missing variable is a usage error instead of a skip, so a
misconfigured CI job fails rather than skipping everything. The ``toolwire_live`` fixture gives the target: the
base URL, the model, the API key (from the variable named by ``TOOLWIRE_API_KEY_ENV``, else ``TOOLWIRE_API_KEY``)
and the wire format (``TOOLWIRE_FORMAT``, default ``openai-chat``).

Fixtures:

- ``toolwire_live``: a ``LiveTarget`` (skips, like the marker, when the endpoint is not configured).
- ``toolwire_recording``: a factory, ``toolwire_recording("openai-chat/parallel-calls")`` → ``Recording``; an
  unknown name fails with the closest names in the folder.
- ``toolwire_registry``: the ``ToolRegistry`` of ``toolwire_tools`` (loaded once per session).
- ``toolwire_server``: a started ``toolwire.server.LocalEndpoint`` on ``toolwire_script`` (or the bundled
  script), also serving ``toolwire_recordings`` when that folder exists; one per test, stopped after it.
- ``toolwire_serve``: a factory, ``toolwire_serve(script=None, *, recordings=None)`` → a started ``LocalEndpoint``,
  as ``toolwire_server`` gives (its base URL is ``.url`` in both); every endpoint it starts is stopped after the
  test. ``None`` means the same defaults as ``toolwire_server``.

Example:
    >>> @pytest.mark.toolwire_live  # doctest: +SKIP
    ... def test_forced_call(toolwire_live, toolwire_registry):
    ...     client = OpenAI(base_url=toolwire_live.base_url, api_key=toolwire_live.api_key or "none")
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from toolwire.formats import DEFAULT_FORMAT, WIRE_FORMATS
from toolwire.recordings import DATA_SUFFIXES, MANIFEST_SUFFIX, Recording, load_recording
from toolwire.registry import ToolRegistry

if TYPE_CHECKING:
    from toolwire.server import LocalEndpoint

__all__ = ["LiveTarget", "ServeFactory", "find_recording", "live_target", "live_unconfigured_reason"]

MARKER = "toolwire_live"
OPTION = "--toolwire-live"
_REQUIRED_ENV = ("TOOLWIRE_BASE_URL", "TOOLWIRE_MODEL")
_KEY_HINT = (
    "(the API key in TOOLWIRE_API_KEY, or the name of its variable in TOOLWIRE_API_KEY_ENV; TOOLWIRE_FORMAT for "
    f"a format other than {DEFAULT_FORMAT})"
)
_CLOSE = 0.75  # difflib ratio from which a recording name is offered as "did you mean"


@dataclass(frozen=True)
class LiveTarget:
    """The live endpoint the ``toolwire_live`` fixture points at.

    Attributes:
        base_url: ``TOOLWIRE_BASE_URL``, e.g. ``"http://localhost:8000/v1"``.
        model: ``TOOLWIRE_MODEL``.
        api_key: The key, or None when none is set (kept out of ``repr``).
        format: The wire format, ``TOOLWIRE_FORMAT`` or ``"openai-chat"``.
    """

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    format: str = DEFAULT_FORMAT


class ServeFactory(Protocol):
    """The ``toolwire_serve`` fixture: starts a local endpoint and returns it (its base URL is ``.url``)."""

    def __call__(self, script: object = None, *, recordings: str | os.PathLike[str] | None = None) -> LocalEndpoint:
        """Start an endpoint on ``script`` (a path, mapping or Script; None: the configured default)."""


def _missing(environ: Mapping[str, str]) -> list[str]:
    return [name for name in _REQUIRED_ENV if not environ.get(name)]


def live_unconfigured_reason(environ: Mapping[str, str]) -> str | None:
    """Why live tests are skipped, naming what to set; None when the endpoint is configured.

    Args:
        environ: The environment (``os.environ``).

    Returns:
        The skip reason, or None.
    """
    missing = _missing(environ)
    if not missing:
        return None
    return (
        f"{MARKER}: set {' and '.join(missing)} to run this test against a live endpoint {_KEY_HINT}; "
        f"with {OPTION} an unconfigured endpoint is an error instead of a skip"
    )


def _refusal(environ: Mapping[str, str]) -> str:
    """The error when ``--toolwire-live`` demands a live endpoint that is not configured."""
    return (
        f"{OPTION} was given, but the live endpoint is not configured: set {' and '.join(_missing(environ))} "
        f"{_KEY_HINT}, or leave out {OPTION} to skip the live tests"
    )


def live_target(environ: Mapping[str, str]) -> LiveTarget:
    """Read the live endpoint from the environment.

    Args:
        environ: The environment (``os.environ``).

    Returns:
        The target.

    Raises:
        ValueError: A required variable is missing, ``TOOLWIRE_API_KEY_ENV`` names an unset variable, or
            ``TOOLWIRE_FORMAT`` is not a wire format.
    """
    reason = live_unconfigured_reason(environ)
    if reason is not None:
        raise ValueError(reason)
    key_variable = environ.get("TOOLWIRE_API_KEY_ENV")
    if key_variable:
        api_key = environ.get(key_variable)
        if not api_key:
            raise ValueError(f"TOOLWIRE_API_KEY_ENV names {key_variable}, which is not set; set it to the API key")
    else:
        api_key = environ.get("TOOLWIRE_API_KEY") or None
    wire_format = environ.get("TOOLWIRE_FORMAT") or DEFAULT_FORMAT
    if wire_format not in WIRE_FORMATS:
        raise ValueError(f"TOOLWIRE_FORMAT must be one of {', '.join(WIRE_FORMATS)}; got {wire_format!r}")
    return LiveTarget(environ["TOOLWIRE_BASE_URL"], environ["TOOLWIRE_MODEL"], api_key, wire_format)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register ``--toolwire-live`` and the ini keys."""
    group = parser.getgroup("toolwire")
    group.addoption(
        OPTION,
        action="store_true",
        default=False,
        help=f"run tests marked {MARKER} against TOOLWIRE_BASE_URL/TOOLWIRE_MODEL; fail instead of skipping "
        "them when those are not set",
    )
    parser.addini("toolwire_recordings", "recordings folder of the toolwire_recording fixture", default="recordings")
    parser.addini("toolwire_tools", "tools file (.json, .yaml, .jsonl) of the toolwire_registry fixture", default="")
    parser.addini("toolwire_script", "script of the toolwire_server fixture (default: the bundled one)", default="")


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``toolwire_live`` marker."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}: talks to a live endpoint; skipped unless TOOLWIRE_BASE_URL and TOOLWIRE_MODEL are set "
        f"({OPTION} makes an unconfigured endpoint an error)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip live tests when no live endpoint is configured, or stop the run when ``--toolwire-live`` demands one.

    Raises:
        pytest.UsageError: ``--toolwire-live`` is given, live tests are selected and the endpoint is not configured.
    """
    live = [item for item in items if item.get_closest_marker(MARKER) is not None]
    reason = live_unconfigured_reason(os.environ)
    if not live or reason is None:
        return
    if config.getoption("toolwire_live"):
        raise pytest.UsageError(_refusal(os.environ))
    for item in live:
        item.add_marker(pytest.mark.skip(reason=reason))


def _ini_path(config: pytest.Config, key: str) -> Path | None:
    """An ini key's path, relative to the configuration file's folder (or the rootdir); None when unset."""
    value = str(config.getini(key)).strip()
    if not value:
        return None
    path = Path(value).expanduser()
    if path.is_absolute():
        return path
    base = config.inipath.parent if config.inipath is not None else config.rootpath
    return base / path


def _recordings_folder(config: pytest.Config) -> Path:
    folder = _ini_path(config, "toolwire_recordings")
    return folder if folder is not None else config.rootpath / "recordings"


def _known_names(folder: Path) -> list[str]:
    return sorted(path.relative_to(folder).with_suffix("").as_posix() for path in folder.rglob(f"*{MANIFEST_SUFFIX}"))


def find_recording(folder: Path, name: str) -> Recording:
    """Load a recording by name from a recordings folder.

    Args:
        folder: The recordings folder.
        name: ``"<format folder>/<stem>"`` (a data or manifest suffix is allowed).

    Returns:
        The recording, named ``name``.

    Raises:
        FileNotFoundError: The folder or the recording does not exist (with the closest names in the folder).
        ValueError: The name leaves the folder or is otherwise not a recording name.
    """
    from toolwire.recordings import check_name

    __tracebackhide__ = True  # a failing test shows its own call and the message, not the plugin's frames
    for suffix in (*DATA_SUFFIXES, MANIFEST_SUFFIX):
        name = name.removesuffix(suffix) if isinstance(name, str) else name
    try:
        check_name(name)
    except ValueError as error:
        raise ValueError(str(error)) from None
    if not folder.is_dir():
        raise FileNotFoundError(
            f"no recordings folder {folder} (for {name!r}); set toolwire_recordings in your pytest configuration "
            "to the folder holding <format>/<name>.json files"
        )
    stem = folder.joinpath(*name.split("/"))
    for suffix in (MANIFEST_SUFFIX, *DATA_SUFFIXES):
        path = stem.with_name(stem.name + suffix)
        if path.is_file():
            return replace(load_recording(path), name=name)
    known = _known_names(folder)
    # The whole name against the whole names, and the stem against the stems (the right file in another folder).
    by_stem: dict[str, list[str]] = {}
    for known_name in known:
        by_stem.setdefault(known_name.rpartition("/")[2], []).append(known_name)
    close_stems = difflib.get_close_matches(stem.name, list(by_stem), n=5, cutoff=_CLOSE)
    close_names = difflib.get_close_matches(name, known, n=5, cutoff=_CLOSE)
    close = list(dict.fromkeys([*close_names, *(match for found in close_stems for match in by_stem[found])]))[:5]
    if close:
        hint = f"did you mean {', '.join(map(repr, close))}?"
    elif known:
        hint = f"it holds {len(known)} recordings, e.g. {', '.join(map(repr, known[:5]))}"
    else:
        hint = "it holds no recordings"
    raise FileNotFoundError(f"no recording {name!r} in {folder}; {hint}")


@pytest.fixture
def toolwire_live(request: pytest.FixtureRequest) -> LiveTarget:
    """The live endpoint from the environment; skips when it is not configured (fails with ``--toolwire-live``)."""
    reason = live_unconfigured_reason(os.environ)
    if reason is not None:
        if request.config.getoption("toolwire_live"):
            pytest.fail(_refusal(os.environ), pytrace=False)
        pytest.skip(reason)
    try:
        return live_target(os.environ)
    except ValueError as error:
        pytest.fail(f"toolwire_live: {error}", pytrace=False)


@pytest.fixture
def toolwire_recording(pytestconfig: pytest.Config) -> Callable[[str], Recording]:
    """A factory loading recordings by name from ``toolwire_recordings``: ``"openai-chat/parallel-calls"``."""
    folder = _recordings_folder(pytestconfig)

    def load(name: str) -> Recording:
        __tracebackhide__ = True
        return find_recording(folder, name)

    return load


@pytest.fixture(scope="session")
def toolwire_registry(pytestconfig: pytest.Config) -> ToolRegistry:
    """The tools of the ``toolwire_tools`` file, loaded once per session."""
    path = _ini_path(pytestconfig, "toolwire_tools")
    if path is None:
        pytest.fail(
            "toolwire_registry: no tools file configured; set toolwire_tools = path/to/tools.yaml in your pytest "
            "configuration ([tool.pytest.ini_options] in pyproject.toml, or pytest.ini)",
            pytrace=False,
        )
    try:
        return ToolRegistry.from_file(path)
    except (OSError, TypeError, ValueError) as error:
        pytest.fail(f"toolwire_registry: cannot load toolwire_tools ({path}): {error}", pytrace=False)


def _endpoint_defaults(config: pytest.Config) -> tuple[Path | None, Path | None]:
    """The configured script (None: the bundled one) and recordings folder (None when it does not exist)."""
    folder = _recordings_folder(config)
    return _ini_path(config, "toolwire_script"), folder if folder.is_dir() else None


@pytest.fixture
def toolwire_server(pytestconfig: pytest.Config) -> Iterator[LocalEndpoint]:
    """A started local endpoint on ``toolwire_script`` (or the bundled script), stopped after the test."""
    from toolwire.server import LocalEndpoint

    script, recordings = _endpoint_defaults(pytestconfig)
    try:
        endpoint = LocalEndpoint(script, recordings=recordings)
    except (OSError, TypeError, ValueError) as error:
        where = f"toolwire_script ({script})" if script is not None else "the bundled script"
        pytest.fail(f"toolwire_server: cannot load {where} with recordings {recordings}: {error}", pytrace=False)
    with endpoint:
        yield endpoint


@pytest.fixture
def toolwire_serve(pytestconfig: pytest.Config) -> Iterator[ServeFactory]:
    """A factory starting local endpoints, ``toolwire_serve(script)`` → ``LocalEndpoint``; all stopped after the test."""
    from toolwire.server import LocalEndpoint

    default_script, default_recordings = _endpoint_defaults(pytestconfig)
    with ExitStack() as stack:

        def start(script: Any = None, *, recordings: str | os.PathLike[str] | None = None) -> LocalEndpoint:
            chosen = default_recordings if recordings is None else recordings
            endpoint = LocalEndpoint(default_script if script is None else script, recordings=chosen)
            return stack.enter_context(endpoint)

        yield start
