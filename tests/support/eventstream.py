"""AWS event-stream messages (Bedrock's framing) built as AWS builds them, for the tests of raw bodies and redaction."""

from __future__ import annotations

import zlib


def aws_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One AWS event-stream message as AWS frames it: prelude, string headers, payload, both CRC32s."""
    head = b"".join(
        bytes([len(name)]) + name.encode() + b"\x07" + len(value.encode()).to_bytes(2, "big") + value.encode()
        for name, value in headers.items()
    )
    prelude = (12 + len(head) + len(payload) + 4).to_bytes(4, "big") + len(head).to_bytes(4, "big")
    message = prelude + zlib.crc32(prelude).to_bytes(4, "big") + head + payload
    return message + zlib.crc32(message).to_bytes(4, "big")
