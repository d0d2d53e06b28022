"""The wire format registry: every format has its four homes, and its name is written in few places outside them.

Adding a wire format means its core decoder, its reference twin, its ``toolwire.formats`` module (one line in
``FORMATS``) and its recordings; these tests list every format from the registry and check each home exists, and
measure, on the code (string constants, not comments or docstrings), in how many modules of the core package each
format's name is written, so that a new list of format names kept by hand shows up here.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from typing import get_args

import pytest

import toolwire
from conftest import RECORDINGS, REPO
from toolwire._core import framing_of
from toolwire.formats import FORMATS, WIRE_FORMATS, Format, FormatModule, WireFormat, format_of
from toolwire.recordings import DATA_SUFFIXES, Recording, iter_recordings

PACKAGE = REPO / "python" / "toolwire"
#: The kits and the formats' own home: a kit may name the formats it has its own modules for.
NOT_CORE = ("contract", "server", "cases", "schema", "strategies", "formats")
#: The most core modules a format's name may be written in; the default format is named where it is the default.
MOST_MODULES = 5
MOST_MODULES_DEFAULT = 8

ENTRIES = [pytest.param(entry, id=entry.name) for entry in FORMATS.values()]


def test_the_registry_lists_every_name_of_the_public_type_in_its_order() -> None:
    assert WIRE_FORMATS == get_args(WireFormat)
    assert toolwire.WIRE_FORMATS == WIRE_FORMATS
    assert [entry.name for entry in FORMATS.values()] == list(FORMATS)


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_core_decoder_exists(entry: Format) -> None:
    assert (REPO / "rust" / "core" / "src" / entry.core_decoder).is_file()


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_reference_twin_exists(entry: Format) -> None:
    spec = importlib.util.find_spec(entry.reference_decoder)
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin).parent == PACKAGE / "reference"


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_format_module_is_named_after_the_format_and_is_complete(entry: Format) -> None:
    assert entry.module.__name__ == f"toolwire.formats.{entry.name.replace('-', '_')}"  # type: ignore[attr-defined]
    wanted = {name for name in dir(FormatModule) if not name.startswith("_")}
    assert wanted <= set(entry.module.__all__)  # type: ignore[attr-defined]
    assert all(callable(getattr(entry.module, name)) for name in wanted)


@pytest.mark.parametrize("entry", ENTRIES)
def test_recordings_exist(entry: Format) -> None:
    folder = RECORDINGS / entry.name
    assert any(path.suffix in DATA_SUFFIXES for path in folder.iterdir()), f"no recording in {folder}"


CHUNK_RECORDINGS = [
    pytest.param(recording, id=recording.name)
    for recording in iter_recordings(RECORDINGS)
    if recording.path.suffix == ".jsonl"
]


def _outcome(source: object, format: WireFormat) -> tuple[object, ...]:
    stream = toolwire.reassemble(source, format=format, on_invalid="yield")
    for _ in stream:
        pass
    result = stream.result
    return (
        [(call.id, call.name, call.arguments) for call in result.calls],
        [
            (call.id, call.name, sorted(violation.code.value for violation in call.errors))
            for call in result.invalid_calls
        ],
        result.finish_reason,
        result.text,
    )


@pytest.mark.parametrize("recording", CHUNK_RECORDINGS)
def test_a_stream_body_rendered_from_chunks_reads_as_the_chunks(recording: Recording) -> None:
    entry = format_of(recording.format)
    body = entry.module.stream_body(recording.chunks())
    assert body and all(isinstance(piece, bytes) for piece in body)
    assert framing_of(b"".join(body)) == entry.framing
    assert _outcome(body, entry.name) == _outcome(recording.chunks(), entry.name)


def test_every_format_renders_a_stream_body() -> None:
    assert {format_of(recording.format).name for recording in (p.values[0] for p in CHUNK_RECORDINGS)} == set(FORMATS)


def test_every_format_module_is_in_the_registry() -> None:
    modules = {path.stem for path in (PACKAGE / "formats").glob("*.py") if not path.stem.startswith("_")}
    assert modules == {entry.name.replace("-", "_") for entry in FORMATS.values()}


def test_an_unknown_format_is_refused_with_the_accepted_ones() -> None:
    with pytest.raises(ValueError, match=r"format must be one of 'openai-chat', .*; got 'openai'"):
        format_of("openai")


def _strings(path: Path) -> list[str]:
    """The string constants of a module's code, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def _writes(text: str, name: str) -> bool:
    """Whether a string writes the name as a whole word (``recordings/gemini/x``, not ``gemini-2.0-flash``)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def core_modules_naming(name: str) -> list[str]:
    """The core package's modules whose code writes ``name`` (a whole word of a string constant)."""
    decoders = {Path(*entry.reference_decoder.split(".")[1:]).with_suffix(".py") for entry in FORMATS.values()}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in NOT_CORE or relative in decoders:
            continue
        if any(_writes(text, name) for text in _strings(path)):
            found.append(relative.as_posix())
    return found


@pytest.mark.parametrize("name", WIRE_FORMATS)
def test_a_format_name_is_written_in_few_core_modules(name: WireFormat) -> None:
    most = MOST_MODULES_DEFAULT if name == WIRE_FORMATS[0] else MOST_MODULES
    found = core_modules_naming(name)
    assert len(found) <= most, f"{name!r} is written in {len(found)} core modules (at most {most}): {found}"


def test_the_measure_sees_a_name_in_code_and_not_in_a_docstring(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""Reads openai-chat."""\n\nX = "gemini"\nY = "recordings/ollama/x"\nZ = "gemini-2.0"\n')
    strings = _strings(module)
    assert strings == ["gemini", "recordings/ollama/x", "gemini-2.0"]
    assert [text for text in strings if _writes(text, "gemini")] == ["gemini"]
    assert [text for text in strings if _writes(text, "ollama")] == ["recordings/ollama/x"]
