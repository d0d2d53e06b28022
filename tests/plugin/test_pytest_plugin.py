"""The pytest plugin, run in inner pytest sessions (pytester): options, marker, live skips, and every fixture.

The plugin is loaded by its ``pytest11`` entry point in the inner sessions too; no ``-p`` is passed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.loopback import loopback, replay_handler
from tests.support.paths import RECORDINGS
from toolwire.pytest_plugin import LiveTarget, live_target, live_unconfigured_reason

pytest_plugins = ["pytester"]

ENV = (
    "TOOLWIRE_BASE_URL",
    "TOOLWIRE_MODEL",
    "TOOLWIRE_API_KEY",
    "TOOLWIRE_API_KEY_ENV",
    "TOOLWIRE_FORMAT",
    "MY_PROVIDER_KEY",
)
INI = """
[pytest]
filterwarnings = error
addopts = --strict-markers --strict-config -p no:cacheprovider -p no:randomly
"""
GET_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester with a clean toolwire environment and a strict ini of its own."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    pytester.makeini(INI)
    return pytester


def configure(pytester: pytest.Pytester, **keys: str) -> None:
    pytester.makeini(INI + "".join(f"{key} = {value}\n" for key, value in keys.items()))


LIVE_TEST = """
import pytest

@pytest.mark.toolwire_live
def test_live(toolwire_live):
    assert toolwire_live.base_url
"""


# ---------------------------------------------------------------------------------------------------------------
# option, ini keys, marker, cheap import


def test_help_shows_the_option_and_ini_keys(inner: pytest.Pytester) -> None:
    result = inner.runpytest("--help")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*toolwire:*", "*--toolwire-live*run tests marked toolwire_live*"])
    for key in ("toolwire_recordings", "toolwire_tools", "toolwire_script"):
        result.stdout.fnmatch_lines([f"*{key} (*"])


def test_marker_is_registered(inner: pytest.Pytester) -> None:
    result = inner.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.toolwire_live: talks to a live endpoint*"])


def test_importing_the_plugin_imports_no_server_stack() -> None:
    code = (
        "import sys, toolwire.pytest_plugin; "
        "print(sorted(m for m in ('toolwire.server', 'starlette', 'uvicorn', 'httpx', 'openai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ---------------------------------------------------------------------------------------------------------------
# live tests: skipped, refused, or run


def test_live_test_is_skipped_without_configuration(inner: pytest.Pytester) -> None:
    inner.makepyfile(LIVE_TEST)
    result = inner.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    reason = live_unconfigured_reason({})
    assert reason == (
        "toolwire_live: set TOOLWIRE_BASE_URL and TOOLWIRE_MODEL to run this test against a live endpoint "
        "(the API key in TOOLWIRE_API_KEY, or the name of its variable in TOOLWIRE_API_KEY_ENV; "
        "TOOLWIRE_FORMAT for a format other than openai-chat); with --toolwire-live an unconfigured endpoint "
        "is an error instead of a skip"
    )
    result.stdout.fnmatch_lines([f"SKIPPED [[]1[]] test_live_test_is_skipped_without_configuration.py:*: {reason}"])


def test_skip_reason_names_only_what_is_missing(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLWIRE_BASE_URL", "http://127.0.0.1:9/v1")
    inner.makepyfile(LIVE_TEST)
    result = inner.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*toolwire_live: set TOOLWIRE_MODEL to run this test*"])
    result.stdout.no_fnmatch_line("*set TOOLWIRE_BASE_URL*")


def test_fixture_alone_skips_too(inner: pytest.Pytester) -> None:
    inner.makepyfile("def test_unmarked(toolwire_live):\n    pass\n")
    result = inner.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*toolwire_live: set TOOLWIRE_BASE_URL and TOOLWIRE_MODEL*"])


def test_option_without_configuration_is_a_usage_error(inner: pytest.Pytester) -> None:
    inner.makepyfile(LIVE_TEST)
    result = inner.runpytest("--toolwire-live")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --toolwire-live was given, but the live endpoint is not configured: set TOOLWIRE_BASE_URL and "
            "TOOLWIRE_MODEL (the API key in TOOLWIRE_API_KEY, *), or leave out --toolwire-live to skip the live "
            "tests"
        ]
    )


def test_option_without_live_tests_is_harmless(inner: pytest.Pytester) -> None:
    inner.makepyfile("def test_offline():\n    pass\n")
    inner.runpytest("--toolwire-live").assert_outcomes(passed=1)


def test_option_with_an_unmarked_fixture_user_fails_clearly(inner: pytest.Pytester) -> None:
    inner.makepyfile("def test_unmarked(toolwire_live):\n    pass\n")
    result = inner.runpytest("--toolwire-live")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--toolwire-live was given, but the live endpoint is not configured: set TOOLWIRE_*"])


def test_live_fixture_reads_the_environment(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLWIRE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("TOOLWIRE_MODEL", "qwen3")
    monkeypatch.setenv("TOOLWIRE_API_KEY", "fallback-key")
    inner.makepyfile(
        """
        import os
        import pytest

        @pytest.mark.toolwire_live
        def test_plain(toolwire_live):
            assert toolwire_live.base_url == "http://127.0.0.1:9/v1"
            assert toolwire_live.model == "qwen3"
            assert toolwire_live.api_key == "fallback-key"
            assert toolwire_live.format == "openai-chat"
            assert "fallback-key" not in repr(toolwire_live)

        @pytest.mark.toolwire_live
        def test_named_key_and_format(toolwire_live):
            assert toolwire_live.api_key == os.environ["MY_PROVIDER_KEY"] == "named-key"
            assert toolwire_live.format == "anthropic-messages"
        """
    )
    monkeypatch.setenv("TOOLWIRE_API_KEY_ENV", "MY_PROVIDER_KEY")
    monkeypatch.setenv("MY_PROVIDER_KEY", "named-key")
    monkeypatch.setenv("TOOLWIRE_FORMAT", "anthropic-messages")
    inner.runpytest("-k", "named").assert_outcomes(passed=1, deselected=1)
    for name in ("TOOLWIRE_API_KEY_ENV", "MY_PROVIDER_KEY", "TOOLWIRE_FORMAT"):
        monkeypatch.delenv(name)
    inner.runpytest("-k", "plain", "--toolwire-live").assert_outcomes(passed=1, deselected=1)


def test_live_fixture_misconfiguration_fails(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLWIRE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("TOOLWIRE_MODEL", "m")
    monkeypatch.setenv("TOOLWIRE_API_KEY_ENV", "MY_PROVIDER_KEY")
    inner.makepyfile(LIVE_TEST)
    result = inner.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*TOOLWIRE_API_KEY_ENV names MY_PROVIDER_KEY, which is not set*"])
    monkeypatch.delenv("TOOLWIRE_API_KEY_ENV")
    monkeypatch.setenv("TOOLWIRE_FORMAT", "openai")
    result = inner.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*TOOLWIRE_FORMAT must be one of openai-completions, openai-chat, *; got 'openai'*"])


def test_live_target_helpers() -> None:
    environ = {"TOOLWIRE_BASE_URL": "http://h/v1", "TOOLWIRE_MODEL": "m", "TOOLWIRE_API_KEY": ""}
    assert live_target(environ) == LiveTarget("http://h/v1", "m", None, "openai-chat")
    assert live_unconfigured_reason(environ) is None
    with pytest.raises(ValueError, match="set TOOLWIRE_MODEL"):
        live_target({"TOOLWIRE_BASE_URL": "http://h/v1", "TOOLWIRE_MODEL": ""})


@pytest.fixture
def tiny_endpoint() -> Iterator[str]:
    served = {"body": (RECORDINGS / "openai-chat" / "parallel-calls.sse").read_bytes()}
    with loopback(replay_handler(served, 97)) as url:
        yield url + "/v1"


def test_live_test_talks_to_the_configured_endpoint(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tiny_endpoint: str
) -> None:
    monkeypatch.setenv("TOOLWIRE_BASE_URL", tiny_endpoint)
    monkeypatch.setenv("TOOLWIRE_MODEL", "gpt-4o")
    inner.makepyfile(
        """
        import openai
        import pytest
        import toolwire

        @pytest.mark.toolwire_live
        def test_parallel_calls(toolwire_live):
            with openai.OpenAI(base_url=toolwire_live.base_url, api_key=toolwire_live.api_key or "none") as client:
                stream = client.chat.completions.create(
                    model=toolwire_live.model, messages=[{"role": "user", "content": "2+3, 3-2"}], stream=True
                )
                assert [call.name for call in toolwire.reassemble(stream)] == ["plus", "minus"]
        """
    )
    inner.runpytest().assert_outcomes(passed=1)


# ---------------------------------------------------------------------------------------------------------------
# toolwire_recording


def copy_recording(folder: Path, name: str) -> None:
    for source in RECORDINGS.glob(f"{name}.*"):
        target = folder / source.relative_to(RECORDINGS)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def test_recording_fixture_loads_by_name(inner: pytest.Pytester) -> None:
    configure(inner, toolwire_recordings="data/recs")
    copy_recording(inner.path / "data" / "recs", "openai-chat/parallel-calls")
    copy_recording(inner.path / "data" / "recs", "anthropic-messages/text-then-tool-use-paris")
    inner.makepyfile(
        """
        import toolwire

        def test_load(toolwire_recording):
            recording = toolwire_recording("openai-chat/parallel-calls")
            assert recording.name == "openai-chat/parallel-calls"
            assert [call.name for call in toolwire.reassemble(recording)] == ["plus", "minus"]
            assert toolwire_recording("openai-chat/parallel-calls.sse") == recording
            assert toolwire_recording("anthropic-messages/text-then-tool-use-paris").format == "anthropic-messages"
        """
    )
    inner.runpytest().assert_outcomes(passed=1)


def test_recording_fixture_default_folder_is_beside_the_ini_file(inner: pytest.Pytester) -> None:
    copy_recording(inner.path / "recordings", "openai-chat/parallel-calls")
    sub = inner.mkdir("tests")
    (sub / "test_default.py").write_text(
        "def test_default(toolwire_recording):\n"
        "    assert toolwire_recording('openai-chat/parallel-calls').format == 'openai-chat'\n",
        encoding="utf-8",
    )
    inner.runpytest("tests").assert_outcomes(passed=1)


def test_missing_recording_lists_close_matches(inner: pytest.Pytester) -> None:
    copy_recording(inner.path / "recordings", "openai-chat/parallel-calls")
    copy_recording(inner.path / "recordings", "openai-chat/q8-index-starts-at-1")
    inner.makepyfile(
        """
        def test_typo(toolwire_recording):
            toolwire_recording("openai-chat/parallel-call")

        def test_wrong_folder(toolwire_recording):
            toolwire_recording("openai/parallel-calls")

        def test_nothing_close(toolwire_recording):
            toolwire_recording("gemini/zzz")

        def test_escape(toolwire_recording):
            toolwire_recording("../secrets")
        """
    )
    result = inner.runpytest()
    result.assert_outcomes(failed=4)
    folder = inner.path / "recordings"
    result.stdout.fnmatch_lines(
        [
            f"E   *FileNotFoundError: no recording 'openai-chat/parallel-call' in {folder}; "
            "did you mean 'openai-chat/parallel-calls'?",
            f"E   *FileNotFoundError: no recording 'openai/parallel-calls' in {folder}; "
            "did you mean 'openai-chat/parallel-calls'?",
            f"E   *FileNotFoundError: no recording 'gemini/zzz' in {folder}; it holds 2 recordings, "
            "e.g. 'openai-chat/parallel-calls', 'openai-chat/q8-index-starts-at-1'",
            "E   *ValueError: bad recording name '../secrets': *",
        ],
        consecutive=False,
    )


def test_missing_recordings_folder_names_the_ini_key(inner: pytest.Pytester) -> None:
    configure(inner, toolwire_recordings="nowhere")
    inner.makepyfile("def test_x(toolwire_recording):\n    toolwire_recording('openai-chat/x')\n")
    result = inner.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no recordings folder *nowhere (for 'openai-chat/x'); set toolwire_recordings*"])


# ---------------------------------------------------------------------------------------------------------------
# toolwire_registry


def test_registry_fixture_loads_the_configured_tools(inner: pytest.Pytester) -> None:
    configure(inner, toolwire_tools="conf/tools.json")
    (inner.mkdir("conf") / "tools.json").write_text(json.dumps([GET_WEATHER]), encoding="utf-8")
    inner.makepyfile(
        """
        import toolwire

        def test_tools(toolwire_registry):
            assert isinstance(toolwire_registry, toolwire.ToolRegistry)
            assert toolwire_registry.names == ("get_weather",)

        def test_same_registry_for_the_session(toolwire_registry, request):
            assert request.getfixturevalue("toolwire_registry") is toolwire_registry
        """
    )
    inner.runpytest().assert_outcomes(passed=2)


def test_registry_fixture_errors(inner: pytest.Pytester) -> None:
    inner.makepyfile("def test_tools(toolwire_registry):\n    pass\n")
    result = inner.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*toolwire_registry: no tools file configured; set toolwire_tools = *"])
    configure(inner, toolwire_tools="missing.yaml")
    result = inner.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*toolwire_registry: cannot load toolwire_tools ({inner.path / 'missing.yaml'})*"])


# ---------------------------------------------------------------------------------------------------------------
# toolwire_server and toolwire_serve (the local endpoint, with the openai SDK as the client)

SERVER_TESTS = """
import httpx
import openai
import pytest
import toolwire

GET_WEATHER = {get_weather}
URLS = []


def test_server_answers_a_forced_call(toolwire_server):
    URLS.append(toolwire_server.url)
    with openai.OpenAI(base_url=toolwire_server.url, api_key="test") as client:
        response = client.chat.completions.create(
            model="clean",
            messages=[{{"role": "user", "content": "What is the weather in Paris?"}}],
            tools=[GET_WEATHER],
            tool_choice={{"type": "function", "function": {{"name": "get_weather"}}}},
        )
    calls = response.choices[0].message.tool_calls
    assert [call.function.name for call in calls] == ["get_weather"]
    assert len(toolwire_server.requests) == 1


def test_server_was_stopped():
    with pytest.raises(httpx.ConnectError):
        httpx.get(URLS[0] + "/models")


def test_serve_a_script(toolwire_serve):
    endpoint = toolwire_serve({{"models": {{"greeter": {{"otherwise": {{"text": "hello from the script"}}}}}}}})
    assert endpoint.running and "greeter" in endpoint.models  # a LocalEndpoint, as toolwire_server gives
    url = endpoint.url
    URLS.append(url)
    with openai.OpenAI(base_url=url, api_key="test") as client:
        response = client.chat.completions.create(model="greeter", messages=[{{"role": "user", "content": "hi"}}])
    assert response.choices[0].message.content == "hello from the script"


def test_serve_recordings_from_the_ini_folder(toolwire_serve):
    url = toolwire_serve().url
    URLS.append(url)
    with openai.OpenAI(base_url=url, api_key="test") as client:
        stream = client.chat.completions.create(
            model="recording:openai-chat/parallel-calls", messages=[{{"role": "user", "content": "x"}}], stream=True
        )
        assert [call.name for call in toolwire.reassemble(stream)] == ["plus", "minus"]


def test_serve_endpoints_were_stopped():
    for url in URLS[1:]:
        with pytest.raises(httpx.ConnectError):
            httpx.get(url + "/models")
"""


def test_server_fixtures_with_the_openai_sdk(inner: pytest.Pytester) -> None:
    copy_recording(inner.path / "recordings", "openai-chat/parallel-calls")
    inner.makepyfile(SERVER_TESTS.format(get_weather=repr(GET_WEATHER)))
    inner.runpytest().assert_outcomes(passed=5)


def test_server_fixture_uses_the_configured_script(inner: pytest.Pytester) -> None:
    configure(inner, toolwire_script="scripts/script.json")
    script = {"models": {"scripted": {"otherwise": {"text": "from the ini script"}}}}
    (inner.mkdir("scripts") / "script.json").write_text(json.dumps(script), encoding="utf-8")
    inner.makepyfile(
        """
        import openai

        def ask(url):
            with openai.OpenAI(base_url=url, api_key="test") as client:
                response = client.chat.completions.create(model="scripted", messages=[{"role": "user", "content": "?"}])
            return response.choices[0].message.content

        def test_server(toolwire_server):
            assert ask(toolwire_server.url) == "from the ini script"

        def test_serve_default(toolwire_serve):
            assert ask(toolwire_serve().url) == "from the ini script"
        """
    )
    inner.runpytest().assert_outcomes(passed=2)


def test_server_fixture_reports_a_missing_script(inner: pytest.Pytester) -> None:
    configure(inner, toolwire_script="missing.yaml")
    inner.makepyfile("def test_server(toolwire_server):\n    pass\n")
    result = inner.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*toolwire_server: cannot load toolwire_script ({inner.path / 'missing.yaml'})*"])
