"""CallLog on a failing disk: a record is either in the file, readable by replay, or named by the error of the call
whose write failed; a line cut short by a failure never swallows the next record.

A full disk is simulated by fault injection: ``os.write`` on the log's file descriptor writes what room is left and
then fails with ``ENOSPC``, as a full file system does (a short write, then the error).
"""

from __future__ import annotations

import errno
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolwire import CallLog
from toolwire.errors import CallLogWriteError, ToolwireError
from toolwire.schema import read_calls
from toolwire.schema.calls import ObservedCall, UnreadableRecord

REAL_WRITE = os.write


class Disk:
    """``os.write`` for one file descriptor on a disk with ``room`` bytes left (None: as much as wanted)."""

    def __init__(self, room: int | None) -> None:
        self.room = room
        self.fds: set[int] = set()
        self.failures = 0

    def write(self, fd: int, data: Any) -> int:
        if fd not in self.fds or self.room is None:
            return REAL_WRITE(fd, data)
        if self.room == 0:
            self.failures += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        size = min(len(data), self.room)
        written = REAL_WRITE(fd, bytes(data[:size]))
        self.room -= written
        return written


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[Disk]:
    disk = Disk(None)
    monkeypatch.setattr(os, "write", disk.write)
    yield disk


def open_log(path: Path, disk: Disk, **options: Any) -> CallLog:
    log = CallLog(path, **options)
    disk.fds.add(log._sink.fd)  # type: ignore[arg-type]
    return log


class Outcome:
    """What the caller was told: the records ``record`` returned, and those an error said were not written."""

    def __init__(self) -> None:
        self.returned: list[dict[str, Any]] = []
        self.lost: list[dict[str, Any]] = []
        self.errors: list[CallLogWriteError] = []

    def attempt(self, action: Any, *args: Any, **kwargs: Any) -> None:
        try:
            result = action(*args, **kwargs)
        except CallLogWriteError as error:
            self.errors.append(error)
            self.lost += error.records
        else:
            if isinstance(result, dict):
                self.returned.append(result)

    @property
    def kept(self) -> list[str]:
        lost = {record["id"] for record in self.lost}
        return [record["id"] for record in self.returned if record["id"] not in lost]


def call(number: int) -> dict[str, Any]:
    return {"id": f"call-{number:03d}", "name": "plus", "arguments": json.dumps({"a": number, "note": "x" * number})}


def read_back(path: Path) -> tuple[list[ObservedCall], list[UnreadableRecord]]:
    found = list(read_calls(path))
    return [f for f in found if isinstance(f, ObservedCall)], [f for f in found if isinstance(f, UnreadableRecord)]


def check(path: Path, outcome: Outcome) -> None:
    """Every record the caller was not told about is read back, in order, once; nothing else is; a torn line is
    reported as unreadable, never joined to a record."""
    observed, unreadable = read_back(path)
    assert [call.id for call in observed] == outcome.kept
    assert not {call.id for call in observed} & {record["id"] for record in outcome.lost}
    assert len(unreadable) <= len(outcome.errors)
    lines = path.read_bytes().split(b"\n")
    written = [json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() for record in outcome.lost]
    for record in unreadable:
        line = lines[int(record.origin.rpartition(":")[2]) - 1]
        assert any(whole.startswith(line) for whole in written), f"{line!r} is not the start of a lost record"


@pytest.mark.parametrize("buffer_bytes", [0, 200, 1 << 20])
def test_a_full_disk_loses_no_record_silently_and_tears_no_record_into_the_next(
    tmp_path: Path, disk: Disk, buffer_bytes: int
) -> None:
    probe = tmp_path / "probe.jsonl"
    with CallLog(probe) as log:
        for number in range(8):
            log.record(**call(number))
    total = probe.stat().st_size
    for room in range(0, total + 1, 13):
        path = tmp_path / f"calls-{buffer_bytes}-{room}.jsonl"
        outcome = Outcome()
        disk.room = room
        log = open_log(path, disk, buffer_bytes=buffer_bytes)
        for number in range(8):
            outcome.attempt(log.record, **call(number))
        outcome.attempt(log.flush)
        disk.room = None  # the disk is freed: the log records on
        for number in range(8, 12):
            outcome.attempt(log.record, **call(number))
        outcome.attempt(log.close)
        assert log.closed
        check(path, outcome)
        assert outcome.kept[-4:] == [f"call-{number:03d}" for number in range(8, 12)]
        if room < total:
            assert outcome.errors and all(error.errno == errno.ENOSPC for error in outcome.errors)


def test_the_error_names_the_file_the_records_and_the_fix(tmp_path: Path, disk: Disk) -> None:
    path = tmp_path / "calls.jsonl"
    disk.room = 0
    log = open_log(path, disk, buffer_bytes=1 << 20)
    first = log.record(**call(1))
    second = log.record(**call(2))
    with pytest.raises(CallLogWriteError) as raised:
        log.close()
    error = raised.value
    assert isinstance(error, OSError) and isinstance(error, ToolwireError)
    assert error.errno == errno.ENOSPC and error.path == str(path)
    assert error.records == (first, second)
    assert str(error) == (
        f"[Errno {errno.ENOSPC}] CallLog {path}: 2 records not written (No space left on device); free the disk, "
        "then record them again"
    )
    assert read_back(path) == ([], [])


def test_a_record_cut_short_is_ended_before_the_next_one(tmp_path: Path, disk: Disk) -> None:
    path = tmp_path / "calls.jsonl"
    log = open_log(path, disk)
    log.record(**call(1))
    disk.room = 25
    with pytest.raises(CallLogWriteError) as raised:
        log.record(**call(2))
    assert [record["id"] for record in raised.value.records] == ["call-002"]
    assert not path.read_bytes().endswith(b"\n"), "the failure left part of a line"
    disk.room = None
    log.record(**call(3))
    log.close()
    observed, unreadable = read_back(path)
    assert [c.id for c in observed] == ["call-001", "call-003"]
    assert [u.origin for u in unreadable] == [f"{path}:2"]


def test_a_file_left_torn_by_an_earlier_process_is_ended_before_the_first_record(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    with CallLog(path) as log:
        log.record(**call(1))
    with path.open("ab") as file:
        file.write(b'{"id": "call-002", "name": "plus", "argu')  # the process died mid-write
    with CallLog(path) as log:
        log.record(**call(3))
    observed, unreadable = read_back(path)
    assert [c.id for c in observed] == ["call-001", "call-003"] and len(unreadable) == 1
    # A whole file is left alone: no blank line is added.
    size = path.stat().st_size
    with CallLog(path) as log:
        log.record(**call(4))
    assert path.read_bytes()[size : size + 1] == b"{"


def test_an_fsync_that_fails_says_the_records_may_be_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    path = tmp_path / "calls.jsonl"
    log = CallLog(path, fsync=True)
    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(CallLogWriteError, match="1 record written but not synced to disk") as raised:
        log.record(**call(1))
    assert raised.value.synced is False and raised.value.errno == errno.EIO
    monkeypatch.undo()
    log.close()
    assert [c.id for c in read_back(path)[0]] == ["call-001"]


def record_many(log: CallLog, outcome: Outcome, first: int) -> None:
    for number in range(first, first + 40):
        outcome.attempt(log.record, **call(number))


@pytest.mark.parametrize("buffer_bytes", [0, 300])
def test_threads_on_a_filling_disk_lose_nothing_silently(tmp_path: Path, disk: Disk, buffer_bytes: int) -> None:
    path = tmp_path / "calls.jsonl"
    disk.room = 2500
    log = open_log(path, disk, buffer_bytes=buffer_bytes)
    outcomes = [Outcome() for _ in range(4)]
    threads = [threading.Thread(target=record_many, args=(log, outcomes[n], n * 100)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    disk.room = None
    everything = Outcome()
    everything.attempt(log.close)
    for outcome in outcomes:
        everything.returned += outcome.returned
        everything.lost += outcome.lost
        everything.errors += outcome.errors
    observed, unreadable = read_back(path)
    assert sorted(c.id for c in observed) == sorted(everything.kept)
    assert everything.errors and len(unreadable) <= len(everything.errors)
