"""The wire format registry: every format has its four homes, and its name is written in few places outside them.

Adding a wire format means its core decoder (``rust/core/src/decode/<format>.rs`` and one line of the ``formats!``
table in ``decode/mod.rs``), its reference twin (``toolwire.reference.decode.<format>`` and one line of its
``DECODERS`` table), its ``toolwire.formats`` module (one line in ``FORMATS``) and its recordings; these tests list
every format from the registry and check each home exists and both tables list exactly the registry's formats, and
measure, on the code (string literals, not comments, docstrings or Rust unit tests), in how many files of the core
(the Rust crates and the Python package less its kits) each format's name is written, so that a new list of format
names kept by hand shows up here.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from typing import get_args

import pytest

import toolwire
from tests.support.paths import RECORDINGS, REPO
from toolwire._core import framing_of
from toolwire.formats import DEFAULT_FORMAT, FORMATS, WIRE_FORMATS, Format, FormatModule, WireFormat, format_of
from toolwire.recordings import DATA_SUFFIXES, TEXT_FORMAT, Recording, iter_recordings
from toolwire.reference.decode import DECODERS

PACKAGE = REPO / "python" / "toolwire"
RUST_CORE = REPO / "rust" / "core" / "src"
#: The Rust crates' sources: the core and the binding.
RUST_SOURCES = (RUST_CORE, REPO / "rust" / "py")
DECODERS_RS = RUST_CORE / "decode"
#: The kits and the formats' own home: a kit may name the formats it has its own modules for.
NOT_CORE = ("contract", "server", "cases", "schema", "strategies", "cli", "formats")
#: The most core files a format's name may be written in; the default format is named where it is the default.
MOST_MODULES = 5
MOST_MODULES_DEFAULT = 8

ENTRIES = [pytest.param(entry, id=entry.name) for entry in FORMATS.values()]


def test_the_registry_lists_every_name_of_the_public_type_in_its_order() -> None:
    assert WIRE_FORMATS == get_args(WireFormat)
    assert toolwire.WIRE_FORMATS == WIRE_FORMATS
    assert [entry.name for entry in FORMATS.values()] == list(FORMATS)


def _stem(entry: Format) -> str:
    """The name of a format's files: its decoders' in the core and in the reference, and its module here."""
    return entry.name.replace("-", "_")


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_core_decoder_exists(entry: Format) -> None:
    assert entry.core_decoder == f"decode/{_stem(entry)}.rs"
    assert (RUST_CORE / entry.core_decoder).is_file()


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_reference_twin_exists_with_the_core_decoder_s_name(entry: Format) -> None:
    assert entry.reference_decoder == f"toolwire.reference.decode.{_stem(entry)}"
    spec = importlib.util.find_spec(entry.reference_decoder)
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin) == PACKAGE / "reference" / "decode" / f"{_stem(entry)}.py"


#: A line of the core's ``formats!`` table: variant, name, decoder (``module::Type``) and its description.
_TABLE_LINE = re.compile(r'^\s*(?P<variant>\w+)\s+"(?P<name>[^"]+)"\s+(?P<module>\w+)::(?P<decoder>\w+)\s+"[^"]*",\s*$')


def core_table() -> list[tuple[str, str]]:
    """The core's table of formats, parsed from ``decode/mod.rs``: (name, decoder module) per line, in order."""
    text = (DECODERS_RS / "mod.rs").read_text(encoding="utf-8")
    body = text.split("\nformats! {\n", 1)[1].split("\n}\n", 1)[0]
    lines = [line for line in body.splitlines() if line.strip() and not line.strip().startswith("//")]
    matches = [_TABLE_LINE.match(line) for line in lines]
    assert all(matches), f"a line of the formats! table is not one format: {lines}"
    return [(match["name"], match["module"]) for match in matches if match]


def test_the_core_table_lists_exactly_the_registry_s_formats_in_its_order() -> None:
    assert [name for name, _ in core_table()] == list(FORMATS)


def test_the_core_table_names_each_format_s_decoder_file() -> None:
    for name, module in core_table():
        assert module == _stem(FORMATS[name])  # type: ignore[index]
        assert (DECODERS_RS / f"{module}.rs").is_file()


def test_the_reference_table_lists_exactly_the_registry_s_formats_in_its_order() -> None:
    assert list(DECODERS) == list(FORMATS)
    for name, decoder in DECODERS.items():
        assert decoder.__module__ == FORMATS[name].reference_decoder


def test_every_decoder_file_is_a_format_s_and_has_its_twin() -> None:
    """Besides the formats' decoders, the two decode folders hold the same shared pieces (``x.rs`` as ``_x.py``)."""
    rust = {path.stem for path in DECODERS_RS.glob("*.rs")} - {"mod"}
    python = {path.stem for path in (PACKAGE / "reference" / "decode").glob("*.py")} - {"__init__"}
    stems = {_stem(entry) for entry in FORMATS.values()}
    assert rust & stems == stems == python & stems
    assert {f"_{stem}" for stem in rust - stems} == python - stems


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
    if recording.path.suffix == ".jsonl" and recording.format != TEXT_FORMAT  # a model's text deltas have no body
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
    with pytest.raises(
        ValueError, match=r"format must be one of 'openai-completions', 'openai-chat', .*; got 'openai'"
    ):
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


#: A Rust token that matters to the measure: a comment, a string or char literal, a brace, a statement's end, or the
#: attribute that marks test-only code.
_RUST_TOKEN = re.compile(
    r"""(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?<!\w)b?r(?P<hashes>\#*)"(?P<raw>.*?)"(?P=hashes)
    |(?:(?<!\w)b)?"(?P<text>(?:[^"\\]|\\.)*)"
    |(?:(?<!\w)b)?'(?:[^'\\\n]|\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.))'
    |(?P<test>\#\[cfg\(test\)\])
    |(?P<brace>[{};])""",
    re.S | re.X,
)


def _rust_strings(path: Path) -> list[str]:
    """The string literals of a Rust file's code: comments, char literals and test-only items (``#[cfg(test)]``, the
    unit tests at the bottom of a file) left out."""
    found: list[str] = []
    depth = 0
    skipping = 0  # the depth at which a test-only item's body began (0: not in one)
    test_item = False  # a ``#[cfg(test)]`` was seen, and its item's body has not begun yet
    for token in _RUST_TOKEN.finditer(path.read_text(encoding="utf-8")):
        brace = token["brace"]
        if brace == "{":
            depth += 1
            if test_item:
                skipping, test_item = depth, False
        elif brace == "}":
            skipping = 0 if skipping == depth else skipping
            depth -= 1
        elif skipping:
            continue
        elif brace == ";":
            test_item = False  # the attribute was a test-only ``use`` or ``const``'s
        elif token["test"]:
            test_item = True
        elif token["comment"] is None:
            text = token["raw"] if token["raw"] is not None else token["text"]
            if text is not None:
                found.append(text)
    return found


def core_modules_naming(name: str) -> list[str]:
    """The core's files whose code writes ``name`` (a whole word of a string literal), relative to the repository.

    The core is the Rust crates and the Python package less its kits and the formats' own homes (their decoders).
    """
    decoders = {Path(*entry.reference_decoder.split(".")).with_suffix(".py") for entry in FORMATS.values()}
    decoders |= {Path("rust", "core", "src", entry.core_decoder) for entry in FORMATS.values()}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in NOT_CORE or Path("toolwire", relative) in decoders:
            continue
        if any(_writes(text, name) for text in _strings(path)):
            found.append(path.relative_to(REPO).as_posix())
    for path in sorted(path for source in RUST_SOURCES for path in source.rglob("*.rs")):
        if path.relative_to(REPO) in decoders:
            continue
        if any(_writes(text, name) for text in _rust_strings(path)):
            found.append(path.relative_to(REPO).as_posix())
    return found


@pytest.mark.parametrize("name", WIRE_FORMATS)
def test_a_format_name_is_written_in_few_core_modules(name: WireFormat) -> None:
    most = MOST_MODULES_DEFAULT if name == DEFAULT_FORMAT else MOST_MODULES
    found = core_modules_naming(name)
    assert len(found) <= most, f"{name!r} is written in {len(found)} core files (at most {most}): {found}"


def test_the_measure_sees_a_name_in_code_and_not_in_a_docstring(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""Reads openai-chat."""\n\nX = "gemini"\nY = "recordings/ollama/x"\nZ = "gemini-2.0"\n')
    strings = _strings(module)
    assert strings == ["gemini", "recordings/ollama/x", "gemini-2.0"]
    assert [text for text in strings if _writes(text, "gemini")] == ["gemini"]
    assert [text for text in strings if _writes(text, "ollama")] == ["recordings/ollama/x"]


def test_the_measure_sees_a_name_in_rust_code_and_not_in_a_comment_or_a_test(tmp_path: Path) -> None:
    source = tmp_path / "m.rs"
    source.write_text(
        '//! Reads "gemini".\n'
        '/// Names "ollama".\n'
        'const A: &str = "gemini"; // "ollama"\n'
        "const B: u8 = b'\"'; const C: char = '\\''; fn f<'a>(x: &'a str) {}\n"
        'const D: &[u8] = br#"x "ollama""#; /* "openai-chat" */\n'
        '#[cfg(test)] pub(super) fn only_in_tests() -> &\'static str { if true { "bedrock-converse" } else { "" } }\n'
        "#[cfg(test)]\nuse super::*;\n"
        'const E: &str = "gemini-2.0";\n'
        '#[cfg(test)]\nmod tests {\n    const F: &str = "openai-responses";\n}\n'
    )
    strings = _rust_strings(source)
    assert strings == ["gemini", 'x "ollama"', "gemini-2.0"]
    assert [text for text in strings if _writes(text, "gemini")] == ["gemini"]
