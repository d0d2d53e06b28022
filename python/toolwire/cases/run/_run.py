"""The matrix runner: every case, model and repeat, concurrently, each judged into a cell of the matrix.

Each run sends the case's conversation in the model's wire format, reads the answer into a ``Turn`` (streamed or
buffered, as the spec says), and, for a multi-turn case, answers the calls with the case's canned tool results and
asks again until a turn brings no call or ``max_turns`` is reached; then ``judge`` gives the verdict. Requests run
concurrently up to a limit, with retries (``_http``); answers are read from and written to the response cache
when one is given (``_cache``), and ``offline`` forbids the network altogether: a request the cache cannot answer
stops the run with ``CacheMissError`` naming the case, the model and the turn.

A model that cannot be reached (``Exchange.unreachable``: no answer, or a status saying the request never got to a
model) makes its run unreachable, and every later request to it is not sent: its remaining runs are unreachable
with the same cause, instead of each waiting out its own retries. Its cells then say ``unreachable``, not ``fail``.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Final

from toolwire.cases._judge import judge
from toolwire.cases._model import Case, Expectation, Turn
from toolwire.cases._spec import ModelSpec, assign_labels
from toolwire.cases._turn import next_messages, turn_from_response
from toolwire.cases.report import CaseInfo, Cell, MatrixResult, RunRecord
from toolwire.cases.run._cache import CacheEntry, CacheMissError, ResponseCache, request_key
from toolwire.cases.run._http import Exchange, RetryPolicy, fetch, render_request
from toolwire.errors import ToolwireError
from toolwire.formats import request_headers

if TYPE_CHECKING:
    import httpx

__all__ = ["RunProgress", "arun_matrix", "run_matrix"]

_DEFAULT_CONCURRENCY: Final = 4
_DEFAULT_TIMEOUT: Final = 60.0


@dataclass(frozen=True)
class RunProgress:
    """Reported after each run, for a progress bar.

    Attributes:
        done: Runs finished so far.
        total: Runs in the whole matrix.
        case: The case of the run just finished.
        model: The model's label.
        record: Its outcome.
    """

    done: int
    total: int
    case: str
    model: str
    record: RunRecord


@dataclass(frozen=True)
class _Context:
    client: httpx.AsyncClient | None
    limit: asyncio.Semaphore
    policy: RetryPolicy
    cache: ResponseCache | None
    offline: bool
    stream: bool
    keys: Mapping[str, str | None]
    timeout: float
    # Why each model that could not be reached could not be, by label; shared by every run of the matrix.
    down: dict[str, str]


def _expected_line(expect: Expectation) -> str:
    """The expectation in one line, for row headers: ``no tool call``, ``exact: a → b`` or alternatives."""
    if expect.no_tool_call:
        return "no tool call"
    lines = []
    for alternative in expect.alternatives:
        steps = [" + ".join(call.name for call in step) for step in alternative.steps]
        lines.append(f"{alternative.mode}: {' → '.join(steps) if steps else '(none)'}")
    return " | ".join(lines) if lines else "any"


def _expectation_json(expect: Expectation) -> dict[str, Any]:
    """The expectation as JSON data, the matchers spelled as in a case file."""
    data: dict[str, Any] = {}
    if expect.no_tool_call:
        data["no_tool_call"] = True
    if expect.alternatives:
        data["one_of"] = [
            {
                "mode": alternative.mode,
                "steps": [
                    [{**call.as_json(), **({"strict_args": True} if call.strict_args else {})} for call in step]
                    for step in alternative.steps
                ],
            }
            for alternative in expect.alternatives
        ]
    if expect.finish_reason is not None:
        data["finish_reason"] = list(expect.finish_reason)
    return data


def _case_info(case: Case) -> CaseInfo:
    return CaseInfo(
        case.name, case.origin, case.min_pass_rate, _expected_line(case.expect), _expectation_json(case.expect)
    )


def _read_turn(case: Case, spec: ModelSpec, data: bytes, stream: bool) -> Turn:
    """The turn of an answer body; ValueError when it cannot be read at all."""
    answer: Any
    if stream:
        answer = [data]
    else:
        try:
            answer = json.loads(data)
        except ValueError as error:
            raise ValueError(f"the buffered answer is not JSON ({error}): {data[:120]!r}") from None
    return turn_from_response(answer, format=spec.format, tools=case.tools, stream=stream, tool_choice=case.tool_choice)


async def _answer(
    context: _Context, case: Case, spec: ModelSpec, repeat: int, turn: int, url: str, body: dict[str, Any]
) -> tuple[bytes | None, Exchange | None]:
    """The body of the answer: from the cache when it has it, else over HTTP (then stored)."""
    key = request_key(spec.format, spec.base_url, body, repeat)
    if context.cache is not None:
        entry = context.cache.get(key)
        if entry is not None:
            return entry.body, None
    if context.offline or context.client is None:
        where = context.cache.folder if context.cache is not None else "no --cache"
        raise CacheMissError(
            f"--offline: no cached answer for case {case.name!r} ({case.origin}) and model {spec.label!r}, "
            f"turn {turn}, repeat {repeat} in {where}; run once without --offline to fill the cache "
            "(or the case or model changed since it was filled)"
        )
    headers = request_headers(spec.format, context.keys[spec.label], bool(body.get("stream")))
    exchange = await fetch(
        context.client,
        url,
        body,
        headers,
        policy=context.policy,
        limit=context.limit,
        timeout=context.timeout,
        base_url=spec.base_url,
        known_down=lambda: context.down.get(spec.label),
    )
    if exchange.unreachable:
        context.down.setdefault(spec.label, exchange.error or "unreachable")
    if exchange.body is not None and context.cache is not None:
        request = {"format": spec.format, "base_url": spec.base_url, "body": body, "repeat": repeat}
        context.cache.put(key, CacheEntry(exchange.body, bool(body.get("stream")), request))
    return exchange.body, exchange


async def _run_one(context: _Context, case: Case, spec: ModelSpec, repeat: int) -> RunRecord:
    started = time.monotonic()
    stream = spec.stream if spec.stream is not None else context.stream  # set by arun_matrix; kept for direct calls
    messages: list[dict[str, Any]] = [dict(message) for message in case.messages]
    turns: list[Turn] = []
    retries: list[str] = []
    cached = sent = 0

    def record(error: str | None = None, unreachable: bool = False) -> RunRecord:
        result = None if error is not None else judge(case, turns)
        seconds = time.monotonic() - started
        return RunRecord(repeat, result, error, tuple(retries), cached, sent, seconds, unreachable)

    while True:
        number = len(turns)
        url, body = render_request(spec, messages, case.tools, case.tool_choice, stream)
        data, exchange = await _answer(context, case, spec, repeat, number, url, body)
        if exchange is None:
            cached += 1
        else:
            retries.extend(f"turn {number}, {line}" for line in exchange.retries)
            if data is None:
                return record(f"turn {number}: {exchange.error}", exchange.unreachable)
            sent += 1
        assert data is not None  # a cached answer always has a body
        try:
            turns.append(_read_turn(case, spec, data, stream))
        except (ToolwireError, ValueError, TypeError) as error:
            return record(f"turn {number}: the answer could not be read: {error}")
        if not case.wants_next_turn(turns):
            return record()
        messages = next_messages(case, messages, turns[-1], spec.format)


def _keys(models: Sequence[ModelSpec], offline: bool) -> dict[str, str | None]:
    """Each model's API key; an explicitly named variable that is unset is an error (unless offline)."""
    keys = {}
    for spec in models:
        key = spec.api_key()
        if key is None and spec.key_env is not None and not offline:
            raise ValueError(
                f"model {spec.label!r} ({spec.origin or spec.compact()}): the API key variable ${spec.key_env} is not "
                f"set; export it, or drop key_env to send no key"
            )
        keys[spec.label] = key
    return keys


async def arun_matrix(
    cases: Sequence[Case],
    models: Sequence[ModelSpec],
    *,
    source: str = "",
    repeat: int | None = None,
    concurrency: int = _DEFAULT_CONCURRENCY,
    stream: bool = True,
    timeout: float = _DEFAULT_TIMEOUT,
    retry: RetryPolicy | None = None,
    cache: ResponseCache | str | os.PathLike[str] | None = None,
    offline: bool = False,
    on_progress: Callable[[RunProgress], None] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> MatrixResult:
    """Run every case against every model (the async form of ``run_matrix``; same arguments)."""
    if not cases:
        raise ValueError("no cases to run")
    if not models:
        raise ValueError("no models to run against; give --model SPEC or --models FILE")
    if repeat is not None and (isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1):
        raise ValueError(f"repeat must be an integer of at least 1, got {repeat!r}")
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be an integer of at least 1, got {concurrency!r}")
    if offline and cache is None:
        raise ValueError("--offline reads answers from the cache only: give --cache DIR")
    names = [case.name for case in cases]
    if len(set(names)) != len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise ValueError(f"case names must be unique in a matrix; given more than once: {', '.join(twice)}")
    # Each column says how it was run: the command's default fills in a spec that does not say whether to stream.
    specs = tuple(
        replace(spec, stream=stream if spec.stream is None else spec.stream) for spec in assign_labels(models)
    )
    store = cache if isinstance(cache, ResponseCache) or cache is None else ResponseCache(cache)
    keys = _keys(specs, offline)
    counts = {case.name: repeat if repeat is not None else case.repeat for case in cases}
    jobs = [(case, spec, number) for case in cases for spec in specs for number in range(1, counts[case.name] + 1)]
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    started = time.monotonic()
    client = None if offline else _client(concurrency, timeout, transport)
    try:
        limit = asyncio.Semaphore(concurrency)
        policy = retry or RetryPolicy()
        down: dict[str, str] = {}
        contexts = {
            spec.label: _Context(client, limit, policy, store, offline, stream, keys, spec.timeout or timeout, down)
            for spec in specs
        }
        records = await _gather(jobs, contexts, on_progress)
    finally:
        if client is not None:
            await client.aclose()
    cells = tuple(
        Cell(
            case.name,
            spec.label,
            case.min_pass_rate,
            tuple(records[(case.name, spec.label, number)] for number in range(1, counts[case.name] + 1)),
        )
        for case in cases
        for spec in specs
    )
    infos = tuple(_case_info(case) for case in cases)
    return MatrixResult(source, infos, specs, cells, started_at, time.monotonic() - started, offline)


def _client(concurrency: int, timeout: float, transport: httpx.AsyncBaseTransport | None) -> httpx.AsyncClient:
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    return httpx.AsyncClient(timeout=httpx.Timeout(timeout), limits=limits, transport=transport)


async def _gather(
    jobs: Sequence[tuple[Case, ModelSpec, int]],
    contexts: Mapping[str, _Context],
    on_progress: Callable[[RunProgress], None] | None,
) -> dict[tuple[str, str, int], RunRecord]:
    """Every run, concurrently; the first exception (a cache miss offline) cancels the others and propagates."""

    async def job(case: Case, spec: ModelSpec, number: int) -> tuple[tuple[str, str, int], RunRecord]:
        return (case.name, spec.label, number), await _run_one(contexts[spec.label], case, spec, number)

    tasks = [asyncio.ensure_future(job(*item)) for item in jobs]
    records: dict[tuple[str, str, int], RunRecord] = {}
    try:
        for finished in asyncio.as_completed(tasks):
            (case_name, label, number), record = await finished
            records[(case_name, label, number)] = record
            if on_progress is not None:
                on_progress(RunProgress(len(records), len(tasks), case_name, label, record))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return records


def run_matrix(
    cases: Sequence[Case],
    models: Sequence[ModelSpec],
    *,
    source: str = "",
    repeat: int | None = None,
    concurrency: int = _DEFAULT_CONCURRENCY,
    stream: bool = True,
    timeout: float = _DEFAULT_TIMEOUT,
    retry: RetryPolicy | None = None,
    cache: ResponseCache | str | os.PathLike[str] | None = None,
    offline: bool = False,
    on_progress: Callable[[RunProgress], None] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> MatrixResult:
    """Run every case against every model and judge each run.

    Args:
        cases: The cases (``load_cases(path).cases``).
        models: The model specs (``parse_spec``, ``load_models``); unlabelled ones get labels (``assign_labels``).
        source: The case file's name, for the reports.
        repeat: Repeats of every case against every model; None for each case's own ``repeat``.
        concurrency: Requests in flight at most.
        stream: Ask for streamed answers when a spec does not say.
        timeout: Seconds to wait for each read of an answer when a spec does not say.
        retry: When to retry (default ``RetryPolicy()``: 5 attempts, backoff from 1 s, ``Retry-After`` honoured).
        cache: A ``ResponseCache`` or its folder; answers are read from it and written to it.
        offline: Never send a request: answer from the cache only.
        on_progress: Called after each run.
        transport: An httpx transport to send through (tests; proxies).

    Returns:
        The matrix; a model that could not be reached has its cells ``unreachable`` (``MatrixResult.unreachable``,
        ``exit_status`` 3).

    Raises:
        CacheMissError: ``offline`` and the cache has no answer for a request (names the case, model and turn).
        ValueError: No cases or models, a bad count, ``offline`` without a cache, an unset ``key_env``, or two
            models that are the same.
    """
    return asyncio.run(
        arun_matrix(
            cases,
            models,
            source=source,
            repeat=repeat,
            concurrency=concurrency,
            stream=stream,
            timeout=timeout,
            retry=retry,
            cache=cache,
            offline=offline,
            on_progress=on_progress,
            transport=transport,
        )
    )
