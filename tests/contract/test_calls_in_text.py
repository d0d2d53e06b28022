"""``calls_in_text``: the probe names the dialect of the calls a server left in the content.

The endpoint's ``calls_in_content`` quirk writes the calls into the content as ``toolwire.dialects.render`` does (the
ground truth); the check must read them back with the dialect's parser and name it. Which dialect a text is written in
when several parsers read it is decided by ``written_calls``, tested here over every dialect the reference reads (the
core's table may hold fewer while the dialects are ported to it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

import toolwire
import toolwire.reference as reference
from tests.support.paths import REPO
from toolwire._pipeline._written import server_parser, written_calls
from toolwire.contract import probe
from toolwire.dialects import STYLES, render
from toolwire.server import LocalEndpoint

WEATHER = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["city"],
        "additionalProperties": False,
    }
}
PARIS = ("get_weather", {"city": "Paris", "unit": "celsius"})
TOKYO = ("get_weather", {"city": "Tokyo", "unit": "celsius"})
# GLM-4.7's calls differ from GLM-4.5's only by the newline after the name, which GLM-4.5's parser reads too, and
# leaves no text either: the tie goes to the table's order (vLLM serves both with one parser class).
NAMED_AS = {"glm47": "glm45"}
# The calls the bundled script answers each forced probe with (python/toolwire/server/default_script.yaml; `get_time`
# has no rule: the endpoint synthesizes its call).
PROBE_CALLS = {
    "forced_buffered": "get_weather",
    "forced_streamed": "get_weather",
    "parallel_required": "get_weather, get_weather",
    "strict_schema": "lookup_order",
    "no_parameters": "get_time",
}
ONE_AND_TWO = ["forced_streamed", "parallel_required"]


def leaky_script() -> dict[str, Any]:
    """The bundled script's rules, one model per dialect leaking its calls into the content in that dialect."""
    bundled = yaml.safe_load((REPO / "python" / "toolwire" / "server" / "default_script.yaml").read_text("utf-8"))
    return {"defaults": bundled["defaults"], "models": {d: {"quirks": {"calls_in_content": d}} for d in STYLES}}


@pytest.fixture(scope="module")
def leaky() -> Iterator[LocalEndpoint]:
    with LocalEndpoint(leaky_script()) as running:
        yield running


def evidence(dialect: str, names: str) -> str:
    count = names.count(",") + 1
    return (
        f"the content holds {count} call(s) written in the {dialect} dialect ({names}): the server's tool-call parser "
        f"is off or mismatched (vLLM: --enable-auto-tool-choice --tool-call-parser {server_parser(dialect)})"
    )


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic-messages"])
def test_hermes_calls_in_the_content_are_named_an_error_when_a_tool_was_forced(leaky: LocalEndpoint, fmt: str) -> None:
    result = probe(leaky.url, "hermes", format=fmt)
    assert not result.ok
    for outcome in result.outcomes:
        check = outcome.report["calls_in_text"]
        if outcome.probe == "choice_none":  # the script answers "none" with prose
            assert (check.status.value, check.severity) == ("passed", "warning"), check.evidence
        else:
            assert (check.status.value, check.severity) == ("failed", "error"), outcome.probe
            assert check.evidence == evidence("hermes", PROBE_CALLS[outcome.probe])


@pytest.mark.parametrize("dialect", list(STYLES))
def test_every_dialect_the_core_reads_is_named(leaky: LocalEndpoint, dialect: str) -> None:
    result = probe(leaky.url, dialect, only=ONE_AND_TWO)
    named = NAMED_AS.get(dialect, dialect)
    for outcome in result.outcomes:
        assert outcome.report["calls_in_text"].evidence == evidence(named, PROBE_CALLS[outcome.probe])


def test_calls_left_in_the_content_without_a_forced_tool_are_a_warning() -> None:
    # A model that writes a call although tool_choice was "none", through a server whose parser is off.
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    script = {
        "models": {
            "leaky": {
                "quirks": {"calls_in_content": "hermes"},
                "rules": [{"when": {"tool_choice": "none"}, "reply": {"text": "Here:\n", "calls": [call]}}],
            }
        }
    }
    with LocalEndpoint(script) as endpoint:
        result = probe(endpoint.url, "leaky", only=["choice_none"])
    check = result.outcomes[0].report["calls_in_text"]
    assert (check.status.value, check.severity) == ("failed", "warning")
    assert check.evidence == evidence("hermes", "get_weather")
    assert result.ok and result.failed() == {"choice_none": ("calls_in_text",)}


def test_prose_passes_and_an_answer_without_text_is_not_applicable() -> None:
    with LocalEndpoint() as endpoint:
        prose = probe(endpoint.url, "quirk/prose_when_forced", only=["forced_streamed"]).outcomes[0].report
        calls = probe(endpoint.url, "clean", only=["forced_streamed"]).outcomes[0].report
    assert prose["calls_in_text"].status.value == "passed"
    assert prose["calls_in_text"].evidence == (
        f"no dialect's parser reads a call in the content (41 characters; {', '.join(toolwire.DIALECTS)})"
    )
    assert calls["calls_in_text"].status.value == "not_applicable"
    assert calls["calls_in_text"].evidence == "the answer has no content text"


# -- which dialect: the most valid calls, then the least text left, then the table's order ---------------------------


def read(text: str) -> tuple[str, int, int] | None:
    found = written_calls(text, WEATHER, dialects=reference.DIALECTS, reader=reference)
    return None if found is None else (found.dialect, len(found.calls), found.valid)


@pytest.mark.parametrize(("dialect", "style"), [(d, s) for d, styles in STYLES.items() for s in (None, *styles)])
def test_each_dialects_text_is_named_after_it(dialect: str, style: str | None) -> None:
    # Mistral's [CALL_ID] style needs ids (nine letters or digits); every other style writes its own or none.
    calls = [(*PARIS, "a1b2c3d4e"), (*TOKYO, "f5g6h7i8j")] if style == "v11_call_id" else [PARIS, TOKYO]
    text = render(calls, dialect, style=style, text_before="Let me check.\n")
    # xLAM's array after [TOOL_CALLS] is, letter for letter, Mistral's pre-v11 call: the table's order names it.
    named = "mistral" if (dialect, style) == ("xlam", "tool_calls") else NAMED_AS.get(dialect, dialect)
    assert read(text) == (named, 2, 2)


def test_a_tie_goes_to_the_dialect_that_leaves_less_text_then_to_the_tables_order() -> None:
    hermes = render([PARIS], "hermes")
    # Llama 3's parser reads the object inside the block too, leaving the markers as text.
    assert written_calls(hermes, WEATHER, dialects=["llama3_json", "hermes"], reader=reference).dialect == "hermes"
    glm = render([PARIS], "glm45")
    assert written_calls(glm, WEATHER, dialects=["glm47", "glm45"], reader=reference).dialect == "glm47"
    assert written_calls(glm, WEATHER, dialects=["glm45", "glm47"], reader=reference).dialect == "glm45"


def test_the_most_valid_calls_win_over_the_tables_order() -> None:
    # One Hermes block, then a Llama 3 call: Hermes' parser reads one call, Llama 3's both.
    text = render([PARIS], "hermes") + "\n" + render([TOKYO], "llama3_json", style="python_tag")
    assert read(text) == ("llama3_json", 2, 2)


def test_invalid_calls_are_named_and_counted() -> None:
    found = written_calls(render([("get_forecast", {"city": "Paris"})], "hermes"), WEATHER, dialects=["hermes"])
    assert found is not None and found.summary == "1 call(s) written in the hermes dialect (get_forecast; 0 valid)"
    cut = written_calls('<tool_call>{"name": "get_weather", "arguments": {"ci', WEATHER, dialects=["hermes"])
    assert cut is not None and cut.summary == "1 call(s) written in the hermes dialect (get_weather; 0 valid)"


def test_text_no_parser_reads_holds_no_call() -> None:
    assert read("") is None
    assert read("It is sunny in Paris; call get_weather(city) again tomorrow.") is None
    assert read("<tool_call> is the marker Qwen writes.") is None
