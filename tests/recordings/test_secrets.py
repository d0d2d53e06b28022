"""The one set of secret detectors (``toolwire._common._secrets``): what each finds, what it leaves alone, and that nothing
ordinary in real streams, recordings and tool definitions is taken for a secret."""

from __future__ import annotations

import base64
import doctest
import json
from pathlib import Path
from typing import Any

import pytest

import toolwire
from tests.support.paths import CORPORA, RECORDINGS
from toolwire._common import _secrets
from toolwire._common._redact import Redactor
from toolwire._common._secrets import DETECTORS, find, find_secrets, is_secret_name, masked_text
from toolwire.recordings import TEXT_FORMAT, decode_jsonl, iter_recordings, load, write
from toolwire.recordings._masking import units

# One of each kind, in the text a model or a person writes around it.
FOUND = {
    "OpenAI API key": "sk-proj-4QxT9bV2nLk8pR3sW6yZ1aC5dF7gH0jKmN",
    "Anthropic API key": "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
    "AWS access key id": "AKIAIOSFODNN7EXAMPLE",
    "AWS secret access key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "Google API key": "AIzaSyD4n8Xq2Lp9Rv6Tw3Yz1Ab5Cd7Ef0GhIjK",
    "GitHub token": "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
    "Slack token": "xoxb-123456789012-abcdefABCDEF123456",
    "Stripe key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "Hugging Face token": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456",
    "JWT": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "Bearer credential": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9x",
    "Basic credential": base64.b64encode(b"ann:s3cr3t-pa55").decode(),
    "private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----",
}
CONTEXT = {
    "AWS secret access key": "aws_secret_access_key = {}",
    "Bearer credential": "Authorization: Bearer {}",
    "Basic credential": "Authorization: Basic {}",
}
# Words, slugs and prose that look a little like credentials and are not.
ORDINARY = [
    "ask-me about sk-learn and sk-performance-monitoring",
    "a bearer of news; Bearer authentication; bearer-token-based auth",
    "basic functionality, Basic understanding, basic authentication",
    "the AKIA prefix, AIza is how Google keys start, ghp_ is GitHub's",
    "xoxb- tokens are for bots; eyJ starts a JWT",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "hf_hub_download, task-1234567890abcdef, desk-AbCdEfGhIjKlMnOpQr",
    "aws_secret_access_key is the name of the setting",
]


@pytest.mark.parametrize("kind", FOUND)
def test_each_kind_is_found_in_its_context_and_alone_when_its_shape_says_so(kind: str) -> None:
    secret = FOUND[kind]
    text = "before " + CONTEXT.get(kind, "{}").format(secret) + " after"
    assert (secret, kind) in [(text[start:end], found) for start, end, found in find(text)]
    if kind not in CONTEXT:
        assert [(secret[start:end], found) for start, end, found in find(secret)][:1] == [(secret, kind)]


def test_a_private_key_cut_short_is_taken_to_where_it_stops() -> None:
    text = '{"key": "-----BEGIN RSA PRIVATE KEY-----\\nMIIEow' + 'IBAAKCAQEA" }'
    decoded = json.loads(text)["key"]
    ((start, end, kind),) = find(decoded)
    assert (decoded[start:end], kind) == (decoded, "private key")
    # In JSON text the match stops at the escape: rewriting it never splits one.
    ((start, end, _),) = find(text)
    assert text[start:end] == "-----BEGIN RSA PRIVATE KEY-----"


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_holds_no_secret(text: str) -> None:
    assert list(find(text)) == []


def test_secret_names() -> None:
    secret = ["password", "Passwd", "passphrase", "token", "access_token", "refreshToken", "id_token", "client_secret",
              "clientSecret", "private_key", "aws_secret_access_key", "api_key", "apiKey", "API-Key", "apikey",
              "secret", "authorization", "Proxy-Authorization", "x-api-key", "cookie", "Set-Cookie", "db_password",
              "github_access_token", "stripe_secret_key", "session_token"]  # fmt: skip
    ordinary = ["max_tokens", "tokens", "token_count", "input_tokens", "keyword", "key", "monkey", "secretary",
                "password_hint", "auth_url", "passenger", "cookies_enabled", "name", "type"]  # fmt: skip
    assert [name for name in secret if not is_secret_name(name)] == []
    assert [name for name in ordinary if is_secret_name(name)] == []


def test_reports_show_a_secret_masked_never_whole() -> None:
    secret = FOUND["GitHub token"]
    assert list(find_secrets({"a": [f"use {secret}"]})) == [("/a/0", "GitHub token", "ghp_… (40 characters)")]
    assert masked_text(f"use {secret}.") == "use ghp_… (40 characters)."


def test_every_detector_kind_has_an_example_here() -> None:
    assert {detector.kind for detector in DETECTORS} == set(FOUND)


def test_docstring_examples() -> None:
    failures, tried = doctest.testmod(_secrets)
    assert tried and not failures


# --- nothing ordinary is taken for a secret ----------------------------------------------------------------------


def test_the_bundled_recordings_are_written_as_they_are(tmp_path: Path) -> None:
    # A text recording is written by hand (deltas and their dialect), not by write(), which records wire formats.
    recordings = [recording for recording in iter_recordings(RECORDINGS) if recording.format != TEXT_FORMAT]
    assert len(recordings) > 50
    assert {recording.path.suffix for recording in recordings} == {".sse", ".jsonl", ".json-array", ".eventstream"}
    for recording in recordings:
        written = write(tmp_path, recording.name, recording, format=recording.manifest["format"])
        assert list(written) == list(recording), recording.name  # the same reads, or the same chunks
        assert written.path.suffix == recording.path.suffix, recording.name


def _tool_definitions() -> list[Any]:
    folder = CORPORA / "tool-schemas"
    if not folder.exists():
        pytest.skip(f"{folder} is absent (the shared corpora live beside the repository in ../shared)")
    return [json.loads(line) for path in sorted(folder.glob("*.jsonl")) for line in path.read_text().splitlines()]


def test_no_real_tool_definition_holds_a_secret() -> None:
    definitions = _tool_definitions()
    assert len(definitions) > 7000
    assert [found for definition in definitions for found in find_secrets(definition)] == []


def _corpus_streams() -> list[tuple[Path, dict[str, Any]]]:
    streams = []
    for manifest in (
        CORPORA / "provider-streams" / "streams" / "MANIFEST.jsonl",
        CORPORA / "provider-streams-ext" / "MANIFEST.jsonl",
    ):
        if not manifest.exists():
            continue
        for line in manifest.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry["format"] in ("sse", "jsonl-chunks", "json-array"):
                streams.append((manifest.parent / entry["file"], entry))
            if entry.get("raw_file"):  # Bedrock's binary body, beside the events boto3 yields for it
                streams.append((manifest.parent / "streams" / entry["raw_file"], {**entry, "format": "raw"}))
    return streams


def _masked_text(redactor: Redactor, text: str) -> str:
    out = list(text)
    for start, end, replacement, _ in reversed(units(text, redactor)):
        out[start:end] = [replacement]
    return "".join(out)


def test_real_streams_keep_everything_but_their_secrets(tmp_path: Path) -> None:
    """Each real stream, recorded, replays as it did: only the values of secret-named members are masked."""
    streams = _corpus_streams()
    if not streams:
        pytest.skip("the provider-streams corpora are absent (they live beside the repository in ../shared)")
    redactor = Redactor()
    changed: list[str] = []
    named: list[str] = []
    for path, entry in streams:
        format = entry["wire_format"]
        data = path.read_bytes()
        source: Any = decode_jsonl(data, str(path)) if entry["format"] == "jsonl-chunks" else data
        recording = write(tmp_path, path.stem, source, format=format)
        if entry["format"] != "jsonl-chunks":
            suffixes = {"sse": ".sse", "json-array": ".json-array", "raw": ".eventstream"}
            assert recording.path.suffix == suffixes[entry["format"]], path.name
        before = toolwire.reassemble(source, format=format, on_invalid="yield")
        after = toolwire.reassemble(load(recording.path), format=format, on_invalid="yield")
        calls = [(call.name, call.arguments, call.ok) for call in before]
        replayed = [(call.name, call.arguments, call.ok) for call in after]
        assert replayed == [(name, redactor.mask_value(arguments), ok) for name, arguments, ok in calls], path.name
        assert after.result.text == _masked_text(redactor, before.result.text), path.name
        assert [v.code for v in after.result.violations] == [v.code for v in before.result.violations], path.name
        if replayed != calls:
            changed.append(path.name)
        if any(is_secret_name(key) for _, arguments, _ in calls if isinstance(arguments, dict) for key in arguments):
            named.append(path.name)
    # The only secrets in these streams are the values of members named so (a demo agent's "password").
    assert changed == named and changed


# --- every writer uses them --------------------------------------------------------------------------------------


def runs(text: str, size: int = 4) -> set[str]:
    return {text[start : start + size] for start in range(len(text) - size + 1)}


def spellings(text: str) -> set[str]:
    """A text as it may stand in a file: as is, JSON-escaped once or twice, or with every character a ``\\u`` escape."""
    once = json.dumps(text)[1:-1]
    return {text, once, json.dumps(once)[1:-1], "".join(f"\\u{ord(char):04x}" for char in text)}


def no_piece_of(secret: str, data: str, baseline: str) -> set[str]:
    """The runs of 4 characters of the secret (in any spelling) that ``data`` holds and ``baseline`` does not."""
    return {run for spelled in spellings(secret) for run in runs(spelled) if run in data and run not in baseline}


@pytest.mark.parametrize("kind", FOUND)
def test_call_logs_keep_no_piece_of_any_kind(tmp_path: Path, kind: str) -> None:
    secret = FOUND[kind]
    text = CONTEXT.get(kind, "{}").format(secret)
    escaped = "".join(f"\\u{ord(char):04x}" for char in text)  # the words around a credential say what it is
    arguments = '{"note": ' + json.dumps(text) + ', "escaped": "' + escaped + '", "password": "hunter2"}'
    for buffer_bytes in (0, 1 << 16):
        path = tmp_path / f"calls-{buffer_bytes}.jsonl"
        with toolwire.CallLog(path, buffer_bytes=buffer_bytes) as log:
            log.record(name="deploy", arguments=arguments, trace={"header": text, "clientSecret": "s3cr3t-v4lue"})
        data = path.read_text(encoding="utf-8")
        baseline = data.replace("[REDACTED]", "")
        assert no_piece_of(secret, data, baseline.replace(secret, "")) == set(), kind
        line = json.loads(data)
        assert json.loads(line["arguments"])["password"] == "[REDACTED]"
        assert line["trace"]["clientSecret"] == "[REDACTED]" and "s3cr3t" not in data
        assert "[REDACTED]" in line["trace"]["header"]


@pytest.mark.parametrize("kind", FOUND)
def test_samples_keep_no_piece_of_any_kind(kind: str) -> None:
    from toolwire.schema.calls import ObservedCall
    from toolwire.schema.sample._sample import sample_calls
    from toolwire.schema.sample._scrub import Scrub

    secret = FOUND[kind]
    text = CONTEXT.get(kind, "{}").format(secret)
    arguments = {"note": text, "refresh_token": "opaque-refresh-value", "client": {"apiKey": "k-123456789"}}
    scrub: Scrub | bool
    calls = [ObservedCall("deploy", json.dumps(arguments), "id-1", origin="test:1")]
    for scrub in (Scrub(), Scrub(defaults=False), False):  # secrets are scrubbed whatever the rules, or none
        data = sample_calls(calls, per_tool=1, seed=0, scrub=scrub).to_jsonl()
        assert no_piece_of(secret, data, "") == set(), (kind, scrub)
        assert "opaque-refresh-value" not in data and "k-123456789" not in data


def test_the_schema_check_reports_every_kind() -> None:
    definition = {"name": "t", "description": " ".join(CONTEXT.get(kind, "{}").format(FOUND[kind]) for kind in FOUND)}
    assert {kind for _, kind, _ in find_secrets(definition)} == set(FOUND)
