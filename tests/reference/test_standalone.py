"""The reference stands alone: without the compiled extension, ``toolwire`` imports and ``toolwire.reference`` works.

Each test runs a fresh interpreter in which ``toolwire._core`` cannot be imported (a finder ahead of every other
refuses it, as a platform the wheel was not built for would), so nothing imported before can hide a dependency.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: Makes the extension unimportable, then runs the test's body.
PRELUDE = """
import importlib.abc
import sys


class NoExtension(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "toolwire._core":
            raise ModuleNotFoundError("No module named 'toolwire._core' (made unimportable by the test)", name=name)
        return None


sys.meta_path.insert(0, NoExtension())
"""

CHUNKS = """
def chunk(delta, finish=None):
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def call(call_id, name, arguments):
    opening = {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return chunk({"tool_calls": [opening]})


TOOLS = [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                               "required": ["city"]}}]
"""


def run_without_extension(body: str) -> str:
    """Run ``body`` where the extension cannot be imported; its standard output."""
    script = PRELUDE + CHUNKS + textwrap.dedent(body)
    process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert process.returncode == 0, process.stderr
    return process.stdout


def test_the_reference_imports_and_reassembles_without_the_extension() -> None:
    out = run_without_extension(
        """
        import toolwire.reference as reference

        stream = reference.reassemble(
            [call("call_1", "get_weather", '{"city": "Par'), chunk({"tool_calls": [
                {"index": 0, "function": {"arguments": 'is"}'}}]}), chunk({}, "tool_calls")],
            tools=TOOLS,
        )
        calls = list(stream)
        assert [(c.id, c.name, c.arguments) for c in calls] == [("call_1", "get_weather", {"city": "Paris"})], calls
        assert stream.result.finish_reason == "tool_calls"
        assert calls[0].tool_fingerprint == reference.ToolRegistry(TOOLS)["get_weather"].fingerprint
        assert "toolwire._core" not in sys.modules
        print("reassembled")
        """
    )
    assert out.strip() == "reassembled"


def test_every_reference_entry_point_works_without_the_extension() -> None:
    out = run_without_extension(
        """
        import asyncio

        import toolwire.reference as reference

        stream = [call("call_1", "get_weather", '{"town": 1}'), chunk({}, "tool_calls")]
        [invalid] = reference.reassemble(stream, tools=TOOLS, on_invalid="yield")
        assert invalid.errors, invalid
        assert isinstance(list(reference.events(stream))[-1], reference.Finished)
        codes = [v.code for v in reference.validate("get_weather", "{}", TOOLS)]
        assert codes == [reference.ViolationCode.MISSING_REQUIRED_ARGUMENT], codes
        assert reference.validate_many([("get_weather", '{"city": "Oslo"}')], TOOLS) == [[]]
        reassembler = reference.Reassembler(tools=TOOLS)
        reassembler.feed(call("call_2", "get_weather", '{"city": "Oslo"}'))
        assert [c.id for c in reassembler.finish()] == ["call_2"]
        completion = {"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "tool_calls": [{"id": "call_3", "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]}}]}
        assert [c.id for c in reference.normalize(completion, tools=TOOLS).calls] == ["call_3"]

        async def source():
            for item in stream:
                yield item

        async def main():
            return [c async for c in reference.areassemble(source(), on_invalid="yield")]

        assert [c.id for c in asyncio.run(main())] == ["call_1"]
        assert "toolwire._core" not in sys.modules
        print("all")
        """
    )
    assert out.strip() == "all"


@pytest.mark.parametrize(
    "use",
    [
        "toolwire.reassemble([chunk({}, 'stop')])",
        "toolwire.areassemble(None)",
        "toolwire.events([chunk({}, 'stop')])",
        "toolwire.validate('get_weather', '{}', TOOLS)",
        "toolwire.validate_many([], TOOLS)",
        "toolwire.normalize({'choices': []})",
        "toolwire.Reassembler()",
        "toolwire.reassemble([], tools=TOOLS)",
    ],
)
def test_a_core_entry_point_without_the_extension_says_what_is_missing(use: str) -> None:
    out = run_without_extension(
        f"""
        import toolwire

        try:
            {use}
        except ImportError as error:
            print(error)
        """
    )
    assert "toolwire._core" in out, out
    assert "toolwire.reference" in out and "works without it" in out, out


def test_the_package_still_names_its_version_without_the_extension() -> None:
    out = run_without_extension(
        """
        import importlib.metadata

        import toolwire

        assert toolwire.__version__ == importlib.metadata.version("toolwire"), toolwire.__version__
        print("version")
        """
    )
    assert out.strip() == "version"
