"""Tool definitions read one by one for the schema commands, each with its origin, examples and meta keys."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from toolwire.schema import load_tools

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_a_bad_definition_does_not_stop_the_others(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(
        json.dumps(
            [
                {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}},
                {"name": "bfcl", "parameters": {"type": "dict", "properties": {"x": {"type": "float"}}}},
                {"name": "bad_ref", "parameters": {"type": "object", "properties": {"x": {"$ref": "#/$defs/nope"}}}},
                "not a tool",
            ]
        ),
        encoding="utf-8",
    )
    sources = load_tools([path])
    assert [(s.name, s.origin.rsplit("#", 1)[1], s.tool is not None) for s in sources] == [
        ("get_weather", "0", True),
        ("bfcl", "1", False),
        ("bad_ref", "2", False),
        (None, "3", False),
    ]
    assert "BFCL's dialect" in (sources[1].error or "")
    assert sources[1].parameters == {"type": "dict", "properties": {"x": {"type": "float"}}}
    assert sources[2].error_pointer == "/properties/x/$ref"
    assert "not a tool definition" in (sources[3].error or "")


def test_examples_and_meta_keys_are_taken_off_the_definition(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(
        """
- type: function
  function:
    name: refund
    description: Refund an order.
    parameters:
      type: object
      properties: {amount: {type: number}}
      examples: [{amount: 3}]
    examples:
      valid: [{amount: 1}]
      invalid: [{amount: "1"}]
  side_effects: true
  deprecated: use refund_v2
  sunset: "2027-01-31"
refund_v2:
""".replace("refund_v2:\n", ""),
        encoding="utf-8",
    )
    (source,) = load_tools([path])
    assert source.tool is not None and source.tool.name == "refund"
    assert source.valid_examples == ({"amount": 1}, {"amount": 3})
    assert source.invalid_examples == ({"amount": "1"},)
    assert dict(source.meta) == {"side_effects": True, "deprecated": "use refund_v2", "sunset": "2027-01-31"}
    assert "examples" not in source.definition["function"]
    assert source.description == "Refund an order."


def test_mappings_jsonl_lines_directories_and_import_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "map.json").write_text(json.dumps({"get_weather": WEATHER, "ping": None}), encoding="utf-8")
    (tmp_path / "a" / "lines.jsonl").write_text(
        json.dumps({"name": "one", "parameters": WEATHER}) + "\n\n{broken\n", encoding="utf-8"
    )
    (tmp_path / "a" / "notes.txt").write_text("ignored", encoding="utf-8")
    (tmp_path / "mytools.py").write_text(
        "def lookup(order_id: str) -> str:\n    '''Look an order up.'''\n    return order_id\nTOOLS = [lookup]\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sources = load_tools([tmp_path / "a", "mytools:TOOLS"])
    sys.modules.pop("mytools", None)
    origins = [(s.name, Path(s.origin).name if "/" in s.origin else s.origin, s.tool is not None) for s in sources]
    assert origins == [
        ("one", "lines.jsonl:1", True),
        (None, "lines.jsonl:3", False),
        ("get_weather", "map.json:1#0", True),  # the map is written on one line
        ("ping", "map.json:1#1", True),
        ("lookup", "mytools:TOOLS#0", True),
    ]
    assert "invalid JSON" in (sources[1].error or "")


def test_misuse_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file or directory"):
        load_tools([tmp_path / "missing.yaml"])
    (tmp_path / "tools.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown tool file type"):
        load_tools([tmp_path / "tools.txt"])
    with pytest.raises(ValueError, match="cannot import"):
        load_tools(["no_such_module_here:TOOLS"])
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="invalid JSON at line 1"):
        load_tools([tmp_path / "bad.json"])


def test_a_definition_s_origin_names_the_line_it_opens_on(tmp_path: Path) -> None:
    yaml_file = tmp_path / "tools.yaml"
    yaml_file.write_text(
        "# the team's tools\n"
        "tools:\n"
        "  - name: first\n"  # line 3
        "    parameters: {type: object}\n"
        "\n"
        "  - name: second\n"  # line 6
        "    parameters:\n"
        "      type: object\n",
        encoding="utf-8",
    )
    json_file = tmp_path / "tools.json"
    json_file.write_text(
        '{"get_weather": {"type": "object"},\n'  # line 1
        ' "ping":\n'
        '   {"type": "object"}}\n',  # line 3: where the value opens
        encoding="utf-8",
    )
    origins = [source.origin for source in load_tools([yaml_file, json_file])]
    assert origins == [f"{yaml_file}:3#0", f"{yaml_file}:6#1", f"{json_file}:1#0", f"{json_file}:3#1"]


def test_a_file_whose_lines_cannot_be_told_keeps_its_definition_numbers(tmp_path: Path) -> None:
    # JSON that YAML cannot read: a key of more than 1,024 characters, which YAML refuses as a simple key.
    path = tmp_path / "tools.json"
    schema = {"type": "object", "properties": {"k" * 1100: {}}}
    path.write_text(json.dumps([{"name": "a", "parameters": schema}]), encoding="utf-8")
    (source,) = load_tools([path])
    assert source.tool is not None and source.origin == f"{path}#0"


def test_a_missing_tool_file_names_the_closest_one_beside_it(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text("[]\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a tool file", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match=re.escape(f"(did you mean '{tmp_path / 'tools.yaml'}'?)")):
        load_tools([tmp_path / "tols.yaml"])
    with pytest.raises(FileNotFoundError) as raised:
        load_tools([tmp_path / "notes.tx"])  # a file that is no tool file is never suggested
    assert "did you mean" not in str(raised.value)
