"""Every recording in recordings/ reassembles, through the core and the reference, to its expected result.

The expected values in each manifest were derived by hand from the chunks and docs/semantics.md (for the
default ``emit="call_end"``), independently of either implementation.
"""

from __future__ import annotations

from types import ModuleType

import pytest

import toolwire
import toolwire.reference
from toolwire.recordings import Recording, describe_call, iter_recordings

RECORDINGS = list(iter_recordings())


def codes(violations: tuple[toolwire.Violation, ...]) -> list[str]:
    return sorted(violation.code.value for violation in violations)


def test_there_are_recordings_for_every_chat_quirk() -> None:
    quirks = {recording.manifest.get("quirk") for recording in RECORDINGS}
    assert {f"Q{number}" for number in range(1, 22)} | {"Q7b"} <= quirks


@pytest.mark.parametrize("recording", RECORDINGS, ids=[recording.name for recording in RECORDINGS])
def test_recording_reassembles_to_its_expected_result(recording: Recording, implementation: ModuleType) -> None:
    stream = implementation.reassemble(recording.chunks(), **recording.reassemble_options(), on_invalid="yield")
    handed_over = [describe_call(call) for call in stream]
    result = stream.result
    expected = recording.expected
    every_call = sorted([*result.calls, *result.invalid_calls], key=lambda call: (call.choice, call.seq))
    assert [describe_call(call) for call in every_call] == expected["calls"]
    assert sorted(handed_over, key=lambda call: (call["choice"], call["seq"])) == expected["calls"]
    assert result.finish_reason == expected["finish_reason"]
    assert result.text == expected["text"]
    assert result.refusal == expected.get("refusal")
    assert codes(result.violations) == expected["violations"]
    assert result.usage == expected.get("usage")
    assert [{"after_calls": item.after_calls, "value": item.value} for item in result.output] == expected.get(
        "output", []
    )
    if "choices" in expected:
        described = [
            {
                "choice": choice.choice,
                "text": choice.text,
                "finish_reason": choice.finish_reason,
                **({} if choice.refusal is None else {"refusal": choice.refusal}),
            }
            for choice in result.choices
        ]
        assert described == expected["choices"]
