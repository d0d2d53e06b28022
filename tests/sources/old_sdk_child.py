"""Run by ``test_sdk_bodies.py`` in a child whose path starts with an old SDK: the bypass against the object path.

``python old_sdk_child.py PACKAGE VERSION``: checks that ``PACKAGE`` imported is ``VERSION``, then reads every
recording of the formats that SDK speaks through its client over loopback, as its stream (``create(stream=True)``)
and, where it has one, its helper's manager, sync and async, once with the bypass and once on the object path, on the
core and the reference, and exits non-zero on the first difference or when the bypass did not read the bytes. The
SDKs of that age build their client on ``httpx`` (no ``httpx2``), and pass ``proxies=`` that httpx 0.28 refuses, so
the client is given its ``http_client``.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx

import toolwire
import toolwire.reference
from tests.sources import test_sdk_bodies as case
from tests.support.loopback import loopback
from toolwire._pipeline import _sdk_bodies

WIDE = 4
FORMATS = {"openai": ("openai-chat", "openai-completions"), "anthropic": ("anthropic-messages",)}


def client(package: str, base_url: str, is_async: bool) -> Any:
    sdk = importlib.import_module(package)
    kind = getattr(sdk, ("Async" if is_async else "") + ("OpenAI" if package == "openai" else "Anthropic"))
    http = httpx.AsyncClient() if is_async else httpx.Client()
    url = f"{base_url}/v1" if package == "openai" else base_url
    return kind(base_url=url, api_key="test", max_retries=0, http_client=http)


CLIENTS: dict[str, Any] = {}


def sync_outcome(implementation: Any, package: str, recording: Any, base_url: str, how: str) -> Any:
    case.serve(recording)
    if package not in CLIENTS:  # one client (building one costs more than a reading)
        CLIENTS[package] = client(package, base_url, False)
    sdk_client = CLIENTS[package]
    source = (
        case.create(sdk_client, recording.format) if how == "create" else case.manager(sdk_client, recording.format)
    )
    return case.outcome(implementation.reassemble(source, on_invalid="yield", dialect=recording.dialect))


def async_outcome(package: str, recording: Any, base_url: str, how: str) -> Any:
    case.serve(recording)

    async def run() -> Any:
        async with client(package, base_url, True) as sdk_client:
            if how == "create":
                source = await case.create(sdk_client, recording.format)
            else:
                source = case.manager(sdk_client, recording.format)
            return await case.aoutcome(toolwire.areassemble(source, on_invalid="yield", dialect=recording.dialect))

    return asyncio.run(run())


Reader = Callable[[str], Any]


def check(package: str, seen: list[str], read: Reader, how: str) -> None:
    """``read`` as ``how`` with the bypass (which must read the bytes) equals the object path of the SDK's stream."""
    seen.clear()
    fast = read(how)
    assert seen == [package], (how, "the bypass did not read the bytes")
    _sdk_bodies._BYPASS = False
    try:
        slow = read("create")
    finally:
        _sdk_bodies._BYPASS = True
    case.assert_same(fast, slow)


def main(package: str, version: str) -> int:
    found = importlib.import_module(package).__version__
    assert found == version, f"{package} {found} imported, not {version}"
    seen: list[str] = []
    reads, areads = _sdk_bodies._reads, _sdk_bodies._areads

    def spy(response: Any, name: str) -> Any:
        seen.append(name)
        return reads(response, name)

    def aspy(response: Any, name: str) -> Any:
        seen.append(name)
        return areads(response, name)

    _sdk_bodies._reads, _sdk_bodies._areads = spy, aspy  # type: ignore[assignment]
    checked = 0
    with loopback(case.Handler) as base_url:
        for wire_format in FORMATS[package]:
            for number, recording in enumerate(case.iter_recordings(format=wire_format)):
                # Every recording through the core's sync stream; the first few also through the helper's manager,
                # the async client and the reference, so that the child stays well under a minute.
                wide = number < WIDE
                readers: list[Reader] = [partial(sync_outcome, toolwire, package, recording, base_url)]
                if wide:
                    readers.append(partial(sync_outcome, toolwire.reference, package, recording, base_url))
                    readers.append(partial(async_outcome, package, recording, base_url))
                helper = wide and wire_format in ("openai-chat", "anthropic-messages")
                for how in ("create", "manager") if helper else ("create",):
                    for read in readers:
                        try:
                            check(package, seen, read, how)
                        except AssertionError as error:
                            raise AssertionError(f"{recording.name} ({how}): {error}") from error
                        checked += 1
    print(f"{package} {version}: {checked} readings, bypass equal to the object path")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
