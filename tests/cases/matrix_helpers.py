"""Shared by the end-to-end tests of ``toolwire matrix``: the two scripted models, what each does with the four
cases of ``examples/support.yaml``, and small loopback endpoints that answer in sequences (flaky, rate-limited)."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from toolwire.cases import EXAMPLES

SUPPORT = EXAMPLES / "support.yaml"
MODELS_SCRIPT = Path(__file__).with_name("matrix_models.yaml")
CASE_NAMES = ("opening hours", "cancel subscription", "weather in two cities", "urgent ticket")

#: (case, scripted model) -> the failure codes its cells must show; () for a cell that passes. What each model does
#: is described in tests/cases/matrix_models.yaml.
VERDICTS: dict[tuple[str, str], set[str]] = {
    ("opening hours", "steady"): set(),
    ("opening hours", "eager"): {"unexpected_call"},
    ("cancel subscription", "steady"): set(),
    ("cancel subscription", "eager"): {"wrong_count", "value_mismatch"},
    ("weather in two cities", "steady"): set(),
    ("weather in two cities", "eager"): {"wrong_count"},
    ("urgent ticket", "steady"): {"schema_violation"},
    ("urgent ticket", "eager"): set(),
}


def completion(calls: list[tuple[str, dict[str, Any]]], text: str = "") -> bytes:
    """A buffered OpenAI Chat Completions answer with these calls."""
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
            for n, (name, arguments) in enumerate(calls)
        ]
    finish = "tool_calls" if calls else "stop"
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "m", "choices": [choice]}).encode()


Answer = tuple[int, dict[str, str], bytes]


def sequenced(answer: Callable[[str, int], Answer]) -> tuple[type[BaseHTTPRequestHandler], dict[str, int]]:
    """A Chat Completions handler whose answer depends on the last user message and how often it was asked before.

    ``answer(prompt, count)`` gives (status, headers, body); ``count`` starts at 0 for each prompt, so that concurrent
    requests for other prompts do not change the sequence one prompt sees.
    """
    asked: dict[str, int] = defaultdict(int)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            prompt = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
            with lock:
                count = asked[prompt]
                asked[prompt] += 1
            status, headers, data = answer(prompt, count)
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler, asked


#: A case file for the sequenced endpoints: one case that may fail half its repeats, one that may not.
FLAKY_CASES = {
    "version": 1,
    "tools": {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
    "cases": [
        {
            "name": "lenient",
            "prompt": "Weather in Paris?",
            "min_pass_rate": 0.5,
            "expect": {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
        },
        {
            "name": "strict",
            "prompt": "Weather in Oslo?",
            "expect": {"calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
        },
    ],
}


def write_flaky_cases(folder: Path) -> Path:
    path = folder / "flaky.json"
    path.write_text(json.dumps(FLAKY_CASES), encoding="utf-8")
    return path


def alternating(prompt: str, count: int) -> Answer:
    """Right on even counts, a wrong city on odd ones."""
    city = prompt.removeprefix("Weather in ").removesuffix("?")
    return 200, {}, completion([("get_weather", {"city": city if count % 2 == 0 else "Lyon"})])


def rate_limited_once(prompt: str, count: int) -> Answer:
    """429 with ``Retry-After: 0`` the first time a prompt is asked, the right answer after."""
    if count == 0:
        return 429, {"Retry-After": "0"}, b'{"error": {"message": "Rate limit reached"}}'
    city = prompt.removeprefix("Weather in ").removesuffix("?")
    return 200, {}, completion([("get_weather", {"city": city})])
