"""toolwire.CallLog: the calls of real recorded streams logged and read back, secrets never on disk, whole lines."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolwire
from tests.support.paths import RECORDINGS, REPO
from toolwire._common._redact import REDACTED
from toolwire._common._secrets import find, is_secret_name
from toolwire.recordings import iter_recordings
from toolwire.recordings._calllog import RECORD_KEYS, CallLog
from toolwire.schema.calls import ObservedCall, read_calls

# Credentials shaped like the real ones (each matches a built-in pattern), never real.
OPENAI_KEY = "sk-proj-" + "Q7x2Lm9Vb4Nc8Zr1Tk6Wp3Hd5Fj0Gs"
ANTHROPIC_KEY = "sk-ant-api03-" + "Zq8Rt4Vm2Xn6Bk1Lp9Wc3Hy7"
AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"
GOOGLE_KEY = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
BEARER = "Bearer " + "eyJhbGciOiJIUzI1NiJ9.payload.signature"


def recorded_calls() -> list[toolwire.ToolCall | toolwire.InvalidToolCall]:
    calls: list[toolwire.ToolCall | toolwire.InvalidToolCall] = []
    for recording in iter_recordings(RECORDINGS):
        stream = toolwire.reassemble(recording.source(), **recording.reassemble_options(), on_invalid="yield")
        calls.extend(stream)
    return calls


def lines(path: Path) -> list[dict[str, Any]]:
    # Not splitlines(): U+0085 and U+2028 may stand raw inside a JSON string.
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def test_every_recorded_call_is_logged_as_made_and_read_back_by_replay(tmp_path: Path) -> None:
    calls = recorded_calls()
    assert len(calls) > 50 and any(not call.ok for call in calls) and any(call.tool_fingerprint for call in calls)
    path = tmp_path / "calls.jsonl"
    with CallLog(path) as log:
        for call in calls:
            log.record(call)
    written = lines(path)
    assert len(written) == len(calls)
    for call, line in zip(calls, written, strict=True):
        assert tuple(line) == RECORD_KEYS
        assert (line["id"], line["name"], line["tool_fingerprint"]) == (call.id, call.name, call.tool_fingerprint)
        assert line["outcome"] == ("ok" if call.ok else "invalid")
        text = call.arguments_json if call.input is None else call.input  # a custom tool call's input is its text
        assert text is not None
        if not any(find(text)):
            assert line["arguments"] == text  # exact text, whitespace and all
    observed = list(read_calls(path))
    assert all(isinstance(item, ObservedCall) for item in observed), [
        item for item in observed if not isinstance(item, ObservedCall)
    ]
    assert [(o.id, o.name, o.arguments, o.schema_fingerprint) for o in observed if isinstance(o, ObservedCall)] == [
        (line["id"], line["name"], line["arguments"], line["tool_fingerprint"]) for line in written
    ]


def test_the_logged_calls_replay_to_the_verdicts_the_stream_gave(tmp_path: Path) -> None:
    # A recording whose request declared tools: the log alone must reproduce each call's verdict.
    for recording in iter_recordings(RECORDINGS):
        options = recording.reassemble_options()
        if not options["tools"]:
            continue
        registry = toolwire.ToolRegistry(options["tools"])
        calls = [c for c in toolwire.reassemble(recording.source(), **options, on_invalid="yield") if c.name]
        if not calls:
            continue
        path = tmp_path / f"{recording.name.replace('/', '_')}.jsonl"
        with CallLog(path, tools=registry) as log:
            for call in calls:
                log.record(call)
        observed = [o for o in read_calls(path) if isinstance(o, ObservedCall)]
        verdicts = toolwire.validate_many([(o.name, o.arguments) for o in observed], registry)
        for call, found in zip(calls, verdicts, strict=True):
            errors = [v for v in found if v.severity is toolwire.Severity.ERROR]
            assert (not errors) == call.ok, (recording.name, call, found)


def test_the_fingerprint_comes_from_the_call_else_from_tools(tmp_path: Path) -> None:
    registry = toolwire.ToolRegistry(
        [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    )
    tool = registry.get("get_weather")
    assert tool is not None
    with CallLog(tmp_path / "calls.jsonl", tools=registry) as log:
        from_tools = log.record({"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}})
        unknown = log.record({"id": "c2", "name": "not_declared", "arguments": "{}"})
        call = next(
            iter(
                toolwire.reassemble(
                    [
                        {
                            "choices": [
                                {
                                    "index": 0,
                                    "delta": {
                                        "tool_calls": [
                                            {
                                                "index": 0,
                                                "id": "c3",
                                                "type": "function",
                                                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                                            }
                                        ]
                                    },
                                }
                            ]
                        }
                    ],
                    tools=registry,
                )
            )
        )
        from_call = log.record(call)
        given_explicitly = log.record(call, tool_fingerprint="sha256:" + "0" * 64)
    assert from_tools["tool_fingerprint"] == tool.fingerprint
    assert unknown["tool_fingerprint"] is None
    assert call.tool_fingerprint == tool.fingerprint and from_call["tool_fingerprint"] == tool.fingerprint
    assert given_explicitly["tool_fingerprint"] == "sha256:" + "0" * 64


def test_sdk_objects_and_mappings_of_every_provider_shape(tmp_path: Path) -> None:
    from anthropic.types import ToolUseBlock
    from openai.types.chat import ChatCompletionMessageToolCall
    from openai.types.responses import ResponseFunctionToolCall

    chat = ChatCompletionMessageToolCall.model_validate(
        {"id": "call_1", "type": "function", "function": {"name": "plus", "arguments": '{"a": 2, "b": 3}'}}
    )
    responses = ResponseFunctionToolCall(
        type="function_call", id="fc_item", call_id="call_2", name="minus", arguments='{"a":3,"b":2}'
    )
    anthropic = ToolUseBlock(type="tool_use", id="toolu_3", name="get_weather", input={"city": "Paris"})
    shapes: list[tuple[Any, tuple[str | None, str, str]]] = [
        (chat, ("call_1", "plus", '{"a": 2, "b": 3}')),
        (responses, ("call_2", "minus", '{"a":3,"b":2}')),  # call_id, which a tool result answers, not the item id
        (anthropic, ("toolu_3", "get_weather", '{"city":"Paris"}')),
        (
            {"toolUse": {"toolUseId": "tooluse_4", "name": "get_time", "input": {"tz": "UTC"}}},
            ("tooluse_4", "get_time", '{"tz":"UTC"}'),
        ),
        ({"functionCall": {"id": "fc_5", "name": "lookup", "args": {"q": "x"}}}, ("fc_5", "lookup", '{"q":"x"}')),
        ({"function": {"name": "ollama_tool", "arguments": {"n": 1}}}, (None, "ollama_tool", '{"n":1}')),
        ({"id": "c7", "name": "plain", "arguments": ""}, ("c7", "plain", "")),
    ]
    with CallLog(tmp_path / "calls.jsonl") as log:
        for call, expected in shapes:
            record = log.record(call)
            assert (record["id"], record["name"], record["arguments"]) == expected
        override = log.record(chat, "error", id="mine", name="renamed", arguments={"z": 1})
    assert (override["id"], override["name"], override["arguments"], override["outcome"]) == (
        "mine",
        "renamed",
        '{"z":1}',
        "error",
    )


# Each case: the call, and the secrets (and their JSON-escaped spellings) that must never be in the file.
SECRET_CALLS: list[tuple[dict[str, Any], list[str]]] = [
    ({"name": "send", "arguments": json.dumps({"key": OPENAI_KEY, "to": "ops"})}, [OPENAI_KEY]),
    ({"name": "send", "arguments": json.dumps({"nested": [{"deep": {"k": ANTHROPIC_KEY}}]})}, [ANTHROPIC_KEY]),
    ({"name": "aws", "arguments": json.dumps({AWS_KEY: "as a key"})}, [AWS_KEY]),
    # Spelled with JSON escapes: the text does not contain the key, the decoded value does.
    (
        {"name": "escaped", "arguments": '{"k": "' + "".join(f"\\u{ord(c):04x}" for c in GOOGLE_KEY) + '"}'},
        [GOOGLE_KEY, GOOGLE_KEY[4:20]],
    ),
    # The first of two duplicate keys is lost by json.loads but is still in the text.
    ({"name": "dup", "arguments": '{"k": "' + OPENAI_KEY + '", "k": "x"}'}, [OPENAI_KEY]),
    (
        {"name": "header", "arguments": json.dumps({"authorization": "Basic dXNlcjpwYXNzd29yZA=="})},
        ["dXNlcjpwYXNzd29yZA=="],
    ),
    ({"name": "bearer", "arguments": json.dumps({"note": f"use {BEARER} please"})}, [BEARER.split()[1]]),
    (
        {"name": "login", "arguments": json.dumps({"user": "bob", "password": "correct horse battery"})},
        ["correct horse battery"],
    ),
    ({"name": "login", "arguments": json.dumps({"user": "bob", "Pass-Word": 12345678901})}, ["12345678901"]),
    # Truncated (not JSON): the member scan still finds the secret-named value, cut short or not.
    ({"name": "cut", "arguments": '{"user": "bob", "password": "tr0ub4dor&3'}, ["tr0ub4dor&3", "tr0ub4dor"]),
    ({"name": "cut", "arguments": '{"password": {"old": "s3cr3t-old", "new": "s3cr3t-n'}, ["s3cr3t-old", "s3cr3t-n"]),
    ({"name": "cut", "arguments": '{"q": "' + OPENAI_KEY[:30]}, [OPENAI_KEY[:30]]),
    ({"name": "ssn", "arguments": json.dumps({"text": "my ssn is 078-05-1120"})}, ["078-05-1120"]),
    ({"id": OPENAI_KEY, "name": "in_id", "arguments": "{}"}, [OPENAI_KEY]),
    # Patterns with flags or groups of their own are searched apart from the others.
    ({"name": "flags", "arguments": json.dumps({"a": "PIN=4821 then Internal-qwerty"})}, ["4821", "qwerty"]),
]


@pytest.mark.parametrize("buffer_bytes", [0, 1 << 20])
def test_secrets_never_reach_the_file(tmp_path: Path, buffer_bytes: int) -> None:
    path = tmp_path / "calls.jsonl"
    with CallLog(
        path,
        redact=[r"\b\d{3}-\d{2}-\d{4}\b", re.compile(r"(pin)=(\d{4})", re.IGNORECASE), "(?i)internal-[a-z]{6}"],
        redact_keys=["password", "pass_word"],
        buffer_bytes=buffer_bytes,
    ) as log:
        for call, _ in SECRET_CALLS:
            log.record(call, conversation={"api_key": "plain-secret-value-1", "text": f"token {AWS_KEY}"})
        log.record(name="extra", arguments="{}", headers={"X-Api-Key": "plain-secret-value-2"}, trace=[ANTHROPIC_KEY])
    data = path.read_bytes()
    secrets = [s for _, found in SECRET_CALLS for s in found]
    secrets += ["plain-secret-value-1", "plain-secret-value-2"]
    for secret in secrets:
        for spelling in {secret, json.dumps(secret)[1:-1], json.dumps(json.dumps(secret))[1:-1]}:
            assert spelling.encode() not in data, secret
    written = lines(path)
    assert len(written) == len(SECRET_CALLS) + 1
    for (call, _), line in zip(SECRET_CALLS, written, strict=False):
        assert REDACTED in json.dumps(line)
        try:
            original = json.loads(call["arguments"], object_pairs_hook=list)
        except ValueError:
            continue
        # A redacted JSON text stays JSON with the same members in the same order (duplicates kept).
        rewritten = json.loads(line["arguments"], object_pairs_hook=list)
        assert [key for key, _ in rewritten] == [re.sub(AWS_KEY, REDACTED, key) for key, _ in original]


def test_redaction_rewrites_only_what_it_replaces(tmp_path: Path) -> None:
    text = '{"n": 1.50, "big": 12345678901234567890, "e": 1E+2, "s": "caf\\u00e9", "password": "x"}'
    with CallLog(tmp_path / "calls.jsonl", redact_keys=["password"]) as log:
        line = log.record(name="t", arguments=text)
        untouched = log.record(name="t", arguments='{ "a" :  1.0 }')
    assert line["arguments"] == '{"n":1.50,"big":12345678901234567890,"e":1E+2,"s":"café","password":"[REDACTED]"}'
    assert untouched["arguments"] == '{ "a" :  1.0 }'


json_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12)
)
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


def expected_redaction(value: Any, keys: set[str]) -> Any:
    if isinstance(value, str):
        return value.replace(OPENAI_KEY, REDACTED)
    if isinstance(value, dict):
        return {
            expected_redaction(key, keys): REDACTED
            if is_secret_name(key) or key.lower().replace("-", "_") in keys
            else expected_redaction(item, keys)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [expected_redaction(item, keys) for item in value]
    return value


@given(
    arguments=st.dictionaries(st.text(max_size=8), json_values, max_size=6),
    where=st.lists(st.integers(min_value=0, max_value=40), max_size=3),
    secret_key=st.sampled_from(["password", "API_KEY", "Cookie", "clientSecret", "ssn", "ordinary"]),
)
def test_any_arguments_with_secrets_anywhere_are_redacted_and_stay_the_same_json(
    tmp_path_factory: pytest.TempPathFactory, arguments: dict[str, Any], where: list[int], secret_key: str
) -> None:
    # Plant the key into strings at the drawn positions (of a flattened walk), and a secret-named member.
    strings: list[tuple[Any, Any]] = []

    def walk(container: Any) -> None:
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, item in list(items):
            if isinstance(item, str):
                strings.append((container, key))
            elif isinstance(item, (dict, list)):
                walk(item)

    walk(arguments)
    for position in where:
        if strings:
            container, key = strings[position % len(strings)]
            # Spaced: the built-in pattern wants the key as a word of its own ("task-..." is not a key).
            container[key] = f"{container[key]} {OPENAI_KEY} "
    arguments[secret_key] = "value-of-" + secret_key
    keys = {"ssn"}  # redact_keys; the built-in secret names are is_secret_name's
    path = tmp_path_factory.mktemp("log") / "calls.jsonl"
    with CallLog(path, redact_keys=["SSN"]) as log:
        log.record(name="t", arguments=json.dumps(arguments))
    data = path.read_bytes()
    assert OPENAI_KEY.encode() not in data
    assert (f"value-of-{secret_key}".encode() in data) == (secret_key == "ordinary")
    written = json.loads(lines(path)[0]["arguments"])
    assert written == expected_redaction(arguments, keys)


def test_concurrent_threads_write_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    threads, per_thread = 8, 300
    # Lines of ~20 KiB, larger than a pipe buffer or a page: a torn write would show.
    payload = "x" * 20_000
    start = threading.Barrier(threads)
    with CallLog(path) as log:

        def work(worker: int) -> None:
            start.wait()
            for number in range(per_thread):
                log.record(name=f"tool_{worker}", id=f"{worker}-{number}", arguments={"pad": payload, "n": number})

        pool = [threading.Thread(target=work, args=(worker,)) for worker in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
    written = lines(path)
    assert len(written) == threads * per_thread
    assert sorted(line["id"] for line in written) == sorted(
        f"{w}-{n}" for w in range(threads) for n in range(per_thread)
    )
    for worker in range(threads):
        numbers = [json.loads(line["arguments"])["n"] for line in written if line["name"] == f"tool_{worker}"]
        assert numbers == list(range(per_thread))  # each thread's own records in its order


def test_concurrent_threads_with_a_buffer_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    with CallLog(path, buffer_bytes=64 * 1024) as log:

        def work(worker: int) -> None:
            for number in range(500):
                log.record(name="t", id=f"{worker}-{number}", arguments={"n": number})

        pool = [threading.Thread(target=work, args=(worker,)) for worker in range(6)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        assert len(path.read_bytes().splitlines()) < 3000  # the tail is still pending until close
    assert len({line["id"] for line in lines(path)}) == 3000


def test_concurrent_processes_append_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    script = (
        "import sys\nfrom toolwire.recordings._calllog import CallLog\n"
        "with CallLog(sys.argv[1]) as log:\n"
        "    for n in range(200):\n"
        "        log.record(name='p', id=f'{sys.argv[2]}-{n}', arguments={'pad': 'y' * 30000})\n"
    )
    workers = [subprocess.Popen([sys.executable, "-c", script, str(path), str(w)]) for w in range(4)]
    assert [worker.wait(timeout=120) for worker in workers] == [0] * 4
    assert len({line["id"] for line in lines(path)}) == 800


def test_coroutines_record_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"

    async def main() -> None:
        async with CallLog(path) as log:
            await asyncio.gather(
                *(log.arecord(name="a", id=f"a{n}", arguments={"n": n}) for n in range(200)),
                *(asyncio.to_thread(log.record, name="s", id=f"s{n}", arguments={"n": n}) for n in range(200)),
            )
        assert log.closed

    asyncio.run(main())
    assert len({line["id"] for line in lines(path)}) == 400


def test_timestamps_outcomes_and_extra_fields(tmp_path: Path) -> None:
    moments = iter(datetime(2025, 5, 1, 12, 0, tzinfo=timezone.utc) + timedelta(seconds=n) for n in range(10))
    path = tmp_path / "calls.jsonl"
    with CallLog(path, clock=lambda: next(moments)) as log:
        log.record(name="a", arguments="{}")
        log.record(name="a", arguments="{}", ts=datetime(2025, 5, 1, 14, 0, tzinfo=timezone(timedelta(hours=2))))
        log.record(name="a", arguments="{}", outcome="timeout", conversation="c-9", latency_ms=31)
        with pytest.raises(ValueError, match="timezone-aware"):
            log.record(name="a", arguments="{}", ts=datetime(2025, 5, 1))
        with pytest.raises(ValueError, match="'schema_fingerprint' would be read back"):
            log.record(name="a", arguments="{}", schema_fingerprint="sha256:x")
        with pytest.raises(TypeError, match="not JSON-compatible"):
            log.record(name="a", arguments="{}", extra={1, 2})
        with pytest.raises(TypeError, match="give a call"):
            log.record()
        with pytest.raises(TypeError, match="outcome"):
            log.record(name="a", outcome="")
    written = lines(path)
    assert [line["ts"] for line in written] == [
        "2025-05-01T12:00:00.000000+00:00",
        "2025-05-01T12:00:00.000000+00:00",
        "2025-05-01T12:00:01.000000+00:00",
    ]
    assert written[2]["outcome"] == "timeout" and written[2]["conversation"] == "c-9"
    observed = [o for o in read_calls(path) if isinstance(o, ObservedCall)]
    assert [o.ts for o in observed] == [datetime.fromisoformat(line["ts"]) for line in written]
    assert dict(observed[2].fields) == {"outcome": "timeout", "conversation": "c-9", "latency_ms": 31}


def test_a_result_is_logged_as_the_spec_writes_it_redacted_and_read_back(tmp_path: Path) -> None:
    mcp_types = pytest.importorskip("mcp_types")
    path = tmp_path / "calls.jsonl"
    sdk = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(text="token sk-proj-" + "a1" * 20)], structured_content={"api_key": "k", "n": 1}
    )
    with CallLog(path) as log:
        log.record(name="a", arguments="{}", result=sdk)
        log.record(name="a", arguments="{}", result={"content": [], "isError": True})
        log.record(name="a", arguments="{}")
        with pytest.raises(TypeError, match="the result or an extra field is not JSON-compatible"):
            log.record(name="a", arguments="{}", result={"content": {1, 2}})
    written = lines(path)
    # By the spec's names (structuredContent, isError), the type a model's default fills kept, secrets redacted.
    assert written[0]["result"] == {
        "content": [{"type": "text", "text": "token [REDACTED]"}],
        "structuredContent": {"api_key": "[REDACTED]", "n": 1},
        "isError": False,
        "resultType": "complete",
    }
    assert written[1]["result"] == {"content": [], "isError": True}
    assert "result" not in written[2]
    observed = [o for o in read_calls(path) if isinstance(o, ObservedCall)]
    assert [o.result for o in observed] == [written[0]["result"], written[1]["result"], None]
    assert all("result" not in o.fields for o in observed)


def test_closed_log_refuses_and_an_existing_file_is_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_text('{"name":"earlier","arguments":"{}"}\n')
    log = CallLog(path)
    log.record(name="later", arguments="{}")
    log.close()
    log.close()
    assert log.closed and "closed" in repr(log)
    with pytest.raises(ValueError, match="closed"):
        log.record(name="again", arguments="{}")
    assert [line["name"] for line in lines(path)] == ["earlier", "later"]
    with pytest.raises(FileNotFoundError):
        CallLog(tmp_path / "missing-folder" / "calls.jsonl")
    with pytest.raises(ValueError, match="not a regular expression"):
        CallLog(tmp_path / "x.jsonl", redact=["("])
    with pytest.raises(ValueError, match="buffer_bytes"):
        CallLog(tmp_path / "x.jsonl", buffer_bytes=-1)


def test_a_forgotten_buffered_log_is_written_at_exit(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    script = (
        "import sys\nfrom toolwire.recordings._calllog import CallLog\n"
        "log = CallLog(sys.argv[1], buffer_bytes=1 << 20)\n"
        "for n in range(10):\n    log.record(name='t', id=str(n), arguments='{}')\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True, timeout=60)
    assert [line["id"] for line in lines(path)] == [str(n) for n in range(10)]


def test_importing_the_module_is_cheap() -> None:
    # Beyond the package itself it loads the redaction rules and the standard library's datetime, nothing else:
    # no asyncio (only arecord needs it), no third-party JSON, no database or schema toolkit.
    script = (
        "import sys, toolwire\nbefore = set(sys.modules)\nimport toolwire.recordings._calllog\n"
        "print(sorted(set(sys.modules) - before))"
    )
    added = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout
    # The package's front loads the recordings' reading and writing sides with it: pure Python, named here.
    recordings = {
        f"toolwire.recordings{module}"
        for module in ("", "._read", "._write", "._redact_stream", "._masking", "._stream_frames", "._stream_pieces")
    }
    assert set(json.loads(added.replace("'", '"'))) - recordings <= {
        "toolwire.recordings._calllog",
        "toolwire.recordings._jsonspans",
        "toolwire._common._secrets",
        "toolwire._common._redact",
        "toolwire._common._jsontree",
        "datetime",
        "_datetime",
        "_strptime",
        "weakref",
        "threading",
    }


def test_exported_as_toolwire_calllog() -> None:
    assert toolwire.CallLog is CallLog


def test_the_call_log_page_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shlex

    from toolwire.cli import main

    text = (REPO / "docs" / "call-logs.md").read_text(encoding="utf-8")
    (tools,) = re.findall(r"^```yaml\n(.*?)^```", text, re.M | re.S)
    loop, sample, contract = re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)
    commands = re.findall(r"^\$ toolwire (.+)$", text, re.M)
    assert [command.split()[0] for command in commands] == ["sample", "replay"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "recordings").symlink_to(RECORDINGS)
    (tmp_path / "tools.yaml").write_text(tools, encoding="utf-8")
    exec(compile(loop, "call-logs.md", "exec"), {"__name__": "docs"})
    written = lines(tmp_path / "calls.jsonl")
    registry = toolwire.ToolRegistry.from_file(tmp_path / "tools.yaml")
    assert [(line["name"], line["outcome"]) for line in written] == [("plus", "ok"), ("minus", "ok")]
    assert all(line["tool_fingerprint"] == registry.get(line["name"]).fingerprint for line in written)  # type: ignore[union-attr]
    assert all(isinstance(line["latency_ms"], float) for line in written)
    for command in commands:
        assert main(shlex.split(command)) == 0, command
    exec(compile(sample, "call-logs.md", "exec"), {"__name__": "docs"})
    namespace: dict[str, Any] = {"__name__": "docs"}
    exec(compile(contract, "call-logs.md", "exec"), namespace)
    namespace["test_observed_calls_are_still_accepted"]()
    assert "features covered" in capsys.readouterr().out
