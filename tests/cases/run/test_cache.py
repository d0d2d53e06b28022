"""The response cache: keys from the canonical request (never the API key), one file per entry, atomic writes."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from toolwire.cases.run._cache import CacheEntry, ResponseCache, request_key

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True, "temperature": 0}


def test_the_key_is_the_canonical_request_and_the_repeat() -> None:
    key = request_key("openai-chat", "http://h/v1", BODY, 1)
    reordered = dict(reversed(list(BODY.items())))
    assert request_key("openai-chat", "http://h/v1/", reordered, 1) == key
    others = [
        request_key("openai-responses", "http://h/v1", BODY, 1),
        request_key("openai-chat", "http://other/v1", BODY, 1),
        request_key("openai-chat", "http://h/v1", {**BODY, "model": "n"}, 1),
        request_key("openai-chat", "http://h/v1", {**BODY, "stream": False}, 1),
        request_key("openai-chat", "http://h/v1", {**BODY, "temperature": 1}, 1),
        request_key("openai-chat", "http://h/v1", BODY, 2),
    ]
    assert len({key, *others}) == 1 + len(others)
    assert len(key) == 64 and int(key, 16) >= 0


@pytest.mark.parametrize("body", [b"data: {}\n\ndata: [DONE]\n\n", "événement ✓".encode(), b"\xff\xfe\x00 not utf-8"])
def test_an_entry_reads_back_byte_for_byte(tmp_path: Path, body: bytes) -> None:
    cache = ResponseCache(tmp_path / "cache")
    key = request_key("openai-chat", "http://h/v1", BODY, 1)
    assert cache.get(key) is None and len(cache) == 0
    written = cache.put(key, CacheEntry(body, True, {"body": BODY}))
    assert written == tmp_path / "cache" / key[:2] / f"{key}.json"
    entry = cache.get(key)
    assert entry is not None
    assert (entry.body, entry.stream, entry.request) == (body, True, {"body": BODY})
    assert len(cache) == 1
    assert [path.name for path in written.parent.iterdir()] == [written.name]  # no temporary file left


def test_concurrent_writers_of_one_entry_leave_one_whole_file(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = request_key("openai-chat", "http://h/v1", BODY, 1)
    bodies = [(str(n) * 50_000).encode() for n in range(8)]
    threads = [threading.Thread(target=cache.put, args=(key, CacheEntry(b, False, {}))) for b in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entry = cache.get(key)
    assert entry is not None and entry.body in bodies
    assert len(list(cache.path(key).parent.iterdir())) == 1


def test_a_damaged_entry_names_its_file_and_the_fix(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = request_key("openai-chat", "http://h/v1", BODY, 1)
    cache.put(key, CacheEntry(b"{}", False, {}))
    cache.path(key).write_text(json.dumps({"version": 1, "stream": False}), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{key}\.json: not a toolwire matrix cache entry .*delete the file"):
        cache.get(key)
    cache.path(key).write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="delete the file"):
        cache.get(key)


def test_a_cache_folder_that_is_a_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_text("", encoding="utf-8")
    with pytest.raises(NotADirectoryError, match="exists and is not a directory"):
        ResponseCache(path)
