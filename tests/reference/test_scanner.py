"""The pure-Python scanner (``toolwire.reference._scanner``): the table shared with the Rust unit
tests, JSONTestSuite against a strict ``json.loads``, and hypothesis properties (rendered values,
arbitrary and mutated bytes, splits, duplicate keys)."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolwire.reference._scanner as _scanner
from tests.support.paths import CORPORA

CORPUS = CORPORA / "json-test-suite"


Scanner = _scanner.Scanner
ScanError = _scanner.ScanError
DuplicateKey = _scanner.DuplicateKey

MAX_DEPTH = 128
ERROR_KINDS = {
    "unexpected_byte",
    "invalid_number",
    "invalid_literal",
    "invalid_escape",
    "lone_surrogate",
    "control_character",
    "invalid_utf8",
    "trailing_data",
    "too_deep",
}


def outcome(scanner: Any) -> tuple[str, Any]:
    if scanner.state == "complete":
        return ("complete", scanner.end)
    if scanner.state == "invalid":
        return ("invalid", tuple(scanner.error))
    return ("incomplete", None)


def scan_pieces(pieces: Any, max_depth: int = MAX_DEPTH) -> tuple[str, Any]:
    scanner = Scanner(max_depth)
    for piece in pieces:
        scanner.feed(piece)
    scanner.finish()
    return outcome(scanner)


def scan(data: bytes, max_depth: int = MAX_DEPTH) -> tuple[str, Any]:
    return scan_pieces([data], max_depth)


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    offsets = sorted(min(max(cut, 0), len(data)) for cut in cuts)
    bounds = [0, *offsets, len(data)]
    return [data[start:end] for start, end in itertools.pairwise(bounds)]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _has_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in item):
                return True
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return False


def strict_loads(data: bytes) -> bool:
    """Whether a strict RFC 8259 parser accepts ``data``: ``json.loads`` on strictly decoded UTF-8,
    with NaN/Infinity, a BOM and lone surrogates rejected."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if text.startswith("\ufeff"):
        return False
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return False
    return not _has_surrogate(value)


# The same table is in `rust/core/src/scanner.rs` (unit tests): both implementations must agree on
# every verdict, kind and offset.
TABLE: list[tuple[bytes, int, tuple[str, Any]]] = [
    (b"{}", 128, ("complete", 2)),
    (b"[]", 128, ("complete", 2)),
    (b'""', 128, ("complete", 2)),
    (b"0", 128, ("complete", 1)),
    (b"-0", 128, ("complete", 2)),
    (b"-0.0e-0", 128, ("complete", 7)),
    (b"12", 128, ("complete", 2)),
    (b"1.5E+3", 128, ("complete", 6)),
    (b"true", 128, ("complete", 4)),
    (b"false", 128, ("complete", 5)),
    (b"null", 128, ("complete", 4)),
    (b" \t\n\r{ } ", 128, ("complete", 7)),
    (b"", 128, ("incomplete", None)),
    (b"   ", 128, ("incomplete", None)),
    (b"{", 128, ("incomplete", None)),
    (b"[1,", 128, ("incomplete", None)),
    (b'"abc', 128, ("incomplete", None)),
    (b"tru", 128, ("incomplete", None)),
    (b"-", 128, ("incomplete", None)),
    (b"1.", 128, ("incomplete", None)),
    (b"1e", 128, ("incomplete", None)),
    (b"1e+", 128, ("incomplete", None)),
    (b'{"a"', 128, ("incomplete", None)),
    (b'{"a":', 128, ("incomplete", None)),
    (b"[1", 128, ("incomplete", None)),
    (b'{"a":1', 128, ("incomplete", None)),
    (b'{"a":1}{"b":2}', 128, ("invalid", (7, "trailing_data"))),
    (b"{} x", 128, ("invalid", (3, "trailing_data"))),
    (b"1 2", 128, ("invalid", (2, "trailing_data"))),
    (b'"a"x', 128, ("invalid", (3, "trailing_data"))),
    (b"truex", 128, ("invalid", (4, "trailing_data"))),
    (b"1]", 128, ("invalid", (1, "trailing_data"))),
    (b"1,", 128, ("invalid", (1, "trailing_data"))),
    (b"[1 2]", 128, ("invalid", (3, "unexpected_byte"))),
    (b"[12x]", 128, ("invalid", (3, "invalid_number"))),
    (b"[1true]", 128, ("invalid", (2, "invalid_number"))),
    (b"[truex]", 128, ("invalid", (5, "unexpected_byte"))),
    (b'{"a":1,}', 128, ("invalid", (7, "unexpected_byte"))),
    (b"[1,]", 128, ("invalid", (3, "unexpected_byte"))),
    (b"[,1]", 128, ("invalid", (1, "unexpected_byte"))),
    (b"{,}", 128, ("invalid", (1, "unexpected_byte"))),
    (b'{"a" 1}', 128, ("invalid", (5, "unexpected_byte"))),
    (b'{"a":1 "b":2}', 128, ("invalid", (7, "unexpected_byte"))),
    (b"[1}", 128, ("invalid", (2, "unexpected_byte"))),
    (b'{"a":1]', 128, ("invalid", (6, "unexpected_byte"))),
    (b"}", 128, ("invalid", (0, "unexpected_byte"))),
    (b"]", 128, ("invalid", (0, "unexpected_byte"))),
    (b"\xef\xbb\xbf{}", 128, ("invalid", (0, "unexpected_byte"))),
    (b"\xc3\xa9", 128, ("invalid", (0, "unexpected_byte"))),
    (b"'a'", 128, ("invalid", (0, "unexpected_byte"))),
    (b"NaN", 128, ("invalid", (0, "unexpected_byte"))),
    (b"Infinity", 128, ("invalid", (0, "unexpected_byte"))),
    (b"-Infinity", 128, ("invalid", (1, "invalid_number"))),
    (b"+1", 128, ("invalid", (0, "unexpected_byte"))),
    (b".5", 128, ("invalid", (0, "unexpected_byte"))),
    (b"/* */{}", 128, ("invalid", (0, "unexpected_byte"))),
    (b"\x0c1", 128, ("invalid", (0, "unexpected_byte"))),
    (b"\xa01", 128, ("invalid", (0, "unexpected_byte"))),
    (b"{1:1}", 128, ("invalid", (1, "unexpected_byte"))),
    (b'{"a":1,,"b":2}', 128, ("invalid", (7, "unexpected_byte"))),
    (b"[1,,2]", 128, ("invalid", (3, "unexpected_byte"))),
    (b'{"a"::1}', 128, ("invalid", (5, "unexpected_byte"))),
    (b"01", 128, ("invalid", (1, "invalid_number"))),
    (b"-01", 128, ("invalid", (2, "invalid_number"))),
    (b"-a", 128, ("invalid", (1, "invalid_number"))),
    (b"1.]", 128, ("invalid", (2, "invalid_number"))),
    (b"[1e+]", 128, ("invalid", (4, "invalid_number"))),
    (b"1.e1", 128, ("invalid", (2, "invalid_number"))),
    (b"-.5", 128, ("invalid", (1, "invalid_number"))),
    (b"00", 128, ("invalid", (1, "invalid_number"))),
    (b"1e1.5", 128, ("invalid", (3, "invalid_number"))),
    (b"[-]", 128, ("invalid", (2, "invalid_number"))),
    (b"[1.]", 128, ("invalid", (3, "invalid_number"))),
    (b"[1e]", 128, ("invalid", (3, "invalid_number"))),
    (b"[0x1]", 128, ("invalid", (2, "invalid_number"))),
    (b"1E-", 128, ("incomplete", None)),
    (b"[1:2]", 128, ("invalid", (2, "invalid_number"))),
    (b'{"a":1:}', 128, ("invalid", (6, "invalid_number"))),
    (b'[1"a"]', 128, ("invalid", (2, "invalid_number"))),
    (b"[1\t,2\r\n]", 128, ("complete", 8)),
    (b"123456789012345678901234567890", 128, ("complete", 30)),
    (b"1e999", 128, ("complete", 5)),
    (b"-0.000000000000000000000000001e-999", 128, ("complete", 35)),
    (b"tru1", 128, ("invalid", (3, "invalid_literal"))),
    (b"[nul]", 128, ("invalid", (4, "invalid_literal"))),
    (b"nul]", 128, ("invalid", (3, "invalid_literal"))),
    (b"fals", 128, ("incomplete", None)),
    (b"[fALSE]", 128, ("invalid", (2, "invalid_literal"))),
    (b"nulll", 128, ("invalid", (4, "trailing_data"))),
    (b"[true,false,null]", 128, ("complete", 17)),
    (b'"\\x"', 128, ("invalid", (2, "invalid_escape"))),
    (b'"\\u12G4"', 128, ("invalid", (5, "invalid_escape"))),
    (b'"\\U0041"', 128, ("invalid", (2, "invalid_escape"))),
    (b'"\\ua"', 128, ("invalid", (4, "invalid_escape"))),
    (b'"\\\n"', 128, ("invalid", (2, "invalid_escape"))),
    (b'"\\u00e9\\u00E9"', 128, ("complete", 14)),
    (b'"\\/\\b\\f\\n\\r\\t\\"\\\\"', 128, ("complete", 18)),
    (b'"\\u0000"', 128, ("complete", 8)),
    (b'"\\udc00"', 128, ("invalid", (6, "lone_surrogate"))),
    (b'"\\ud800"', 128, ("invalid", (7, "lone_surrogate"))),
    (b'"\\ud800x"', 128, ("invalid", (7, "lone_surrogate"))),
    (b'"\\ud800\\n"', 128, ("invalid", (8, "lone_surrogate"))),
    (b'"\\ud800\\u0041"', 128, ("invalid", (12, "lone_surrogate"))),
    (b'"\\ud800\\ud800"', 128, ("invalid", (12, "lone_surrogate"))),
    (b'"\\ud800\\udbff"', 128, ("invalid", (12, "lone_surrogate"))),
    (b'"\\udbff\\udfff"', 128, ("complete", 14)),
    (b'"\\ud834\\udd1e"', 128, ("complete", 14)),
    (b'"\\ud800\\u00"', 128, ("invalid", (11, "invalid_escape"))),
    (b'"\\ud800\\uzz"', 128, ("invalid", (9, "invalid_escape"))),
    (b'{"\\udfff":1}', 128, ("invalid", (7, "lone_surrogate"))),
    (b'"\x00"', 128, ("invalid", (1, "control_character"))),
    (b'"\x1f"', 128, ("invalid", (1, "control_character"))),
    (b'"\x7f"', 128, ("complete", 3)),
    (b'"a\nb"', 128, ("invalid", (2, "control_character"))),
    (b'"\t"', 128, ("invalid", (1, "control_character"))),
    (b'{"\x01":1}', 128, ("invalid", (2, "control_character"))),
    (b'"\x80"', 128, ("invalid", (1, "invalid_utf8"))),
    (b'"\xc0\x80"', 128, ("invalid", (1, "invalid_utf8"))),
    (b'"\xc1\xbf"', 128, ("invalid", (1, "invalid_utf8"))),
    (b'"\xc2"', 128, ("invalid", (2, "invalid_utf8"))),
    (b'"\xc3\xa9"', 128, ("complete", 4)),
    (b'"\xe0\x80\x80"', 128, ("invalid", (2, "invalid_utf8"))),
    (b'"\xe0\x9f\xbf"', 128, ("invalid", (2, "invalid_utf8"))),
    (b'"\xe0\xa0\x80"', 128, ("complete", 5)),
    (b'"\xed\xa0\x80"', 128, ("invalid", (2, "invalid_utf8"))),
    (b'"\xed\x9f\xbf"', 128, ("complete", 5)),
    (b'"\xef\xbf\xbf"', 128, ("complete", 5)),
    (b'"\xf0\x8f\xbf\xbf"', 128, ("invalid", (2, "invalid_utf8"))),
    (b'"\xf0\x90\x80\x80"', 128, ("complete", 6)),
    (b'"\xf4\x8f\xbf\xbf"', 128, ("complete", 6)),
    (b'"\xf4\x90\x80\x80"', 128, ("invalid", (2, "invalid_utf8"))),
    (b'"\xf5\x80\x80\x80"', 128, ("invalid", (1, "invalid_utf8"))),
    (b'"\xff"', 128, ("invalid", (1, "invalid_utf8"))),
    (b'"\xe2\x82"', 128, ("invalid", (3, "invalid_utf8"))),
    (b'"\xe2\x82a"', 128, ("invalid", (3, "invalid_utf8"))),
    (b'"\xf0\x9f\x98"', 128, ("invalid", (4, "invalid_utf8"))),
    (b'"\xc3\xc3"', 128, ("invalid", (2, "invalid_utf8"))),
    (b'["\xe9"]', 128, ("invalid", (3, "invalid_utf8"))),
    (b'{"\xf0\x9f\x98\x80":"\xe2\x82\xac"}', 128, ("complete", 14)),
    (b"1", 0, ("complete", 1)),
    (b"[]", 0, ("invalid", (0, "too_deep"))),
    (b"{}", 0, ("invalid", (0, "too_deep"))),
    (b'"x"', 0, ("complete", 3)),
    (b'{"a":1}', 1, ("complete", 7)),
    (b'{"a":{}}', 1, ("invalid", (5, "too_deep"))),
    (b"[[]]", 1, ("invalid", (1, "too_deep"))),
    (b"[[]]", 2, ("complete", 4)),
    (b"[[[]]]", 2, ("invalid", (2, "too_deep"))),
    (b'[{"a":[1]}]', 2, ("invalid", (6, "too_deep"))),
    (b"[[],{}]", 2, ("complete", 7)),
    (b'[[],{"a":[{}]}]', 3, ("invalid", (10, "too_deep"))),
]


@pytest.mark.parametrize(("data", "max_depth", "expected"), TABLE, ids=[repr(case[0])[:40] for case in TABLE])
def test_table_whole_every_split_and_byte_by_byte(data: bytes, max_depth: int, expected: tuple[str, Any]) -> None:
    assert scan(data, max_depth) == expected
    for at in range(len(data) + 1):
        assert scan_pieces([data[:at], data[at:]], max_depth) == expected, at
    assert scan_pieces([data[i : i + 1] for i in range(len(data))], max_depth) == expected
    untracked = Scanner(max_depth)
    untracked.stop_tracking_keys()
    untracked.feed(data)
    untracked.finish()
    assert outcome(untracked) == expected


def test_table_uses_every_error_kind() -> None:
    kinds = {expected[1][1] for _, _, expected in TABLE if expected[0] == "invalid"}
    assert kinds == ERROR_KINDS
    assert {getattr(_scanner, kind.upper()) for kind in ERROR_KINDS} == ERROR_KINDS


def test_top_level_number_completes_at_terminator_or_finish() -> None:
    scanner = Scanner(MAX_DEPTH)
    assert scanner.feed(b"12") == "incomplete"
    assert scanner.end is None
    assert scanner.feed(b" ") == "complete"
    assert scanner.end == 2
    assert scanner.finish() == "complete"
    assert scanner.feed(b"3") == "invalid"
    assert scanner.error == ScanError(3, "trailing_data")
    assert scanner.end is None

    scanner = Scanner(MAX_DEPTH)
    assert scanner.feed(b"-1.5e") == "incomplete"
    assert scanner.feed(b"3") == "incomplete"
    assert scanner.finish() == "complete"
    assert scanner.end == 6
    assert scanner.feed(b" ") == "complete"
    assert scanner.feed(b"1") == "invalid"
    assert scanner.error == ScanError(7, "trailing_data")


@pytest.mark.parametrize("data", [b"", b"  ", b"[1", b'{"a":1', b'"ab', b"tru", b"-", b"1.", b"1e", b"1e-", b'"\\u12'])
def test_finish_leaves_unclosed_values_incomplete(data: bytes) -> None:
    scanner = Scanner(MAX_DEPTH)
    scanner.feed(data)
    assert scanner.finish() == "incomplete"
    assert scanner.state == "incomplete"
    assert scanner.error is None and scanner.end is None


def test_invalid_is_final_and_later_bytes_are_only_counted() -> None:
    scanner = Scanner(MAX_DEPTH)
    assert scanner.feed(b"[1,]") == "invalid"
    assert scanner.feed(b"]]]") == "invalid"
    assert scanner.finish() == "invalid"
    assert scanner.error == ScanError(3, "unexpected_byte")
    assert scanner.bytes_seen == 7


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b' {"a": 1}', "object"),
        (b"[", "array"),
        (b'"', "string"),
        (b"-", "number"),
        (b"7", "number"),
        (b"t", "true"),
        (b"fx", "false"),
        (b"n", "null"),
        (b"x", None),
        (b"\xef\xbb\xbf", None),
    ],
)
def test_root_kind_and_is_started(data: bytes, kind: str | None) -> None:
    scanner = Scanner(MAX_DEPTH)
    assert not scanner.is_started
    scanner.feed(data)
    assert scanner.root_kind == kind
    assert scanner.is_started


def test_whitespace_only_is_not_started() -> None:
    scanner = Scanner(MAX_DEPTH)
    scanner.feed(b" \n\t\r")
    assert not scanner.is_started
    assert scanner.root_kind is None
    assert scanner.bytes_seen == 4


def test_depth_limit_edges() -> None:
    assert scan(b"1", 0) == ("complete", 1)
    assert scan(b"[]", 0) == ("invalid", (0, "too_deep"))
    assert scan(b'{"a":1}', 1) == ("complete", 7)
    assert scan(b'{"a":{}}', 1) == ("invalid", (5, "too_deep"))
    assert scan(b"[" * 128 + b"]" * 128, 128) == ("complete", 256)
    assert scan(b"[" * 129 + b"]" * 129, 128) == ("invalid", (128, "too_deep"))
    assert scan(b'[[],[],{"a":[]}]', 3) == ("complete", 16)
    assert scan(b'[[],[],{"a":[]}]', 2) == ("invalid", (12, "too_deep"))


def duplicates(data: bytes) -> list[tuple[str, int]]:
    scanner = Scanner(MAX_DEPTH)
    scanner.feed(data)
    return [tuple(duplicate) for duplicate in scanner.take_duplicate_keys()]


def test_duplicate_keys_with_escapes_and_paths() -> None:
    assert duplicates(b'{"a":1,"\\u0061":2}') == [("/a", 7)]
    assert duplicates(b'{"a":1,"b":2}') == []
    assert duplicates(b'{"a":1,"a":2,"a":3}') == [("/a", 7), ("/a", 13)]
    assert duplicates(b'{"~/":1,"~\\/":2}') == [("/~0~1", 8)]
    assert duplicates(b'{"a/b":[0,{"x":{},"x":1}],"c~":{"\\u00e9":1,"\xc3\xa9":2}}') == [
        ("/a~1b/1/x", 18),
        ("/c~0/\u00e9", 43),
    ]
    assert duplicates(b'[{"\\ud83d\\ude00":1,"\xf0\x9f\x98\x80":2}]') == [("/0/\U0001f600", 19)]
    assert duplicates(b'{"a":{"a":1},"b":[{"a":1},{"a":1}]}') == []
    assert duplicates(b'{"":1,"":2}') == [("/", 6)]
    assert duplicates(b'[[1,2,{"k\\n":0,"k\\u000a":0}]]') == [("/0/2/k\n", 15)]


def test_duplicate_keys_found_across_splits() -> None:
    data = b'{"x":[{"\\u00e9t\xc3\xa9":1,"\xc3\xa9t\\u00E9":2}]}'
    for at in range(len(data) + 1):
        scanner = Scanner(MAX_DEPTH)
        scanner.feed(data[:at])
        scanner.feed(data[at:])
        assert scanner.end == len(data)
        assert scanner.take_duplicate_keys() == [DuplicateKey("/x/0/\u00e9t\u00e9", 21)]


def test_duplicate_keys_in_wide_objects() -> None:
    # The Rust scanner switches from linear search to hashing past 16 keys; the outcome must not change.
    text = "{" + "".join(f'"k{i}":{{"k{i}":1,"x":[{{"y":0}}]}},' for i in range(100))
    expected = []
    for i in [0, 15, 16, 17, 99, 0]:
        expected.append(DuplicateKey(f"/k{i}", len(text)))
        text += f'"\\u006b{i}":0,'
    text += '"inner":{' + "".join(f'"{i}":0,' for i in range(40))
    expected.append(DuplicateKey("/inner/7", len(text)))
    text += '"7":1}}'
    data = text.encode()
    for size in (len(data), 3):
        scanner = Scanner(MAX_DEPTH)
        for start in range(0, len(data), size):
            scanner.feed(data[start : start + size])
        assert scanner.end == len(data)
        assert scanner.take_duplicate_keys() == expected


def test_take_duplicate_keys_drains() -> None:
    scanner = Scanner(MAX_DEPTH)
    scanner.feed(b'{"a":1,"a":2')
    assert scanner.has_duplicate_keys
    assert len(scanner.take_duplicate_keys()) == 1
    assert not scanner.has_duplicate_keys
    assert scanner.take_duplicate_keys() == []
    scanner.feed(b',"a":3}')
    assert scanner.take_duplicate_keys() == [DuplicateKey("/a", 13)]


def test_stop_tracking_keys_keeps_verdicts_and_pending_duplicates() -> None:
    scanner = Scanner(MAX_DEPTH)
    scanner.feed(b'{"a":1,"a":2,"b":{"c":1,')
    scanner.stop_tracking_keys()
    scanner.feed(b'"c":2},"a":[{"d":1,"d":2}]}')
    assert scanner.end == 51
    assert scanner.take_duplicate_keys() == [DuplicateKey("/a", 7)]

    scanner = Scanner(MAX_DEPTH)
    scanner.feed(b'{"ab')
    scanner.stop_tracking_keys()
    assert scanner.feed(b'c":1,"abc":2}') == "complete"
    assert not scanner.has_duplicate_keys


def test_long_plain_runs() -> None:
    data = b'{"' + b"k" * 1000 + b'":"' + b"v" * 5000 + b'","' + b"k" * 1000 + b'":0}'
    assert scan(data) == ("complete", len(data))
    scanner = Scanner(MAX_DEPTH)
    for start in range(0, len(data), 333):
        scanner.feed(data[start : start + 333])
    assert scanner.end == len(data)
    assert len(scanner.take_duplicate_keys()) == 1


# JSONTestSuite

# The outcome of each implementation-defined case (same table as rust/core/tests/scanner_corpus.rs).
_BIG_NUMBERS = "numbers are checked for syntax only; magnitude and precision are the consumer's business"
_LONE = "lone surrogates cannot be carried as UTF-8: rejected by design"
_UTF8 = "JSON text is UTF-8: invalid UTF-8 inside strings is rejected"
_UTF16 = "UTF-16 input is not UTF-8 JSON text"
IMPLEMENTATION_DEFINED: dict[str, tuple[tuple[str, Any], str]] = {
    "i_number_double_huge_neg_exp.json": (("complete", 14), _BIG_NUMBERS),
    "i_number_huge_exp.json": (("complete", 137), _BIG_NUMBERS),
    "i_number_neg_int_huge_exp.json": (("complete", 10), _BIG_NUMBERS),
    "i_number_pos_double_huge_exp.json": (("complete", 11), _BIG_NUMBERS),
    "i_number_real_neg_overflow.json": (("complete", 16), _BIG_NUMBERS),
    "i_number_real_pos_overflow.json": (("complete", 15), _BIG_NUMBERS),
    "i_number_real_underflow.json": (("complete", 15), _BIG_NUMBERS),
    "i_number_too_big_neg_int.json": (("complete", 33), _BIG_NUMBERS),
    "i_number_too_big_pos_int.json": (("complete", 23), _BIG_NUMBERS),
    "i_number_very_big_negative_int.json": (("complete", 51), _BIG_NUMBERS),
    "i_object_key_lone_2nd_surrogate.json": (("invalid", (7, "lone_surrogate")), _LONE),
    "i_string_1st_surrogate_but_2nd_missing.json": (("invalid", (8, "lone_surrogate")), _LONE),
    "i_string_1st_valid_surrogate_2nd_invalid.json": (("invalid", (13, "lone_surrogate")), _LONE),
    "i_string_incomplete_surrogate_and_escape_valid.json": (("invalid", (9, "lone_surrogate")), _LONE),
    "i_string_incomplete_surrogate_pair.json": (("invalid", (7, "lone_surrogate")), _LONE),
    "i_string_incomplete_surrogates_escape_valid.json": (("invalid", (13, "lone_surrogate")), _LONE),
    "i_string_invalid_lonely_surrogate.json": (("invalid", (8, "lone_surrogate")), _LONE),
    "i_string_invalid_surrogate.json": (("invalid", (8, "lone_surrogate")), _LONE),
    "i_string_inverted_surrogates_U+1D11E.json": (("invalid", (7, "lone_surrogate")), _LONE),
    "i_string_lone_second_surrogate.json": (("invalid", (7, "lone_surrogate")), _LONE),
    "i_string_UTF-8_invalid_sequence.json": (("invalid", (7, "invalid_utf8")), _UTF8),
    "i_string_UTF8_surrogate_U+D800.json": (("invalid", (3, "invalid_utf8")), _UTF8),
    "i_string_invalid_utf-8.json": (("invalid", (2, "invalid_utf8")), _UTF8),
    "i_string_iso_latin_1.json": (("invalid", (3, "invalid_utf8")), _UTF8),
    "i_string_lone_utf8_continuation_byte.json": (("invalid", (2, "invalid_utf8")), _UTF8),
    "i_string_not_in_unicode_range.json": (("invalid", (3, "invalid_utf8")), _UTF8),
    "i_string_overlong_sequence_2_bytes.json": (("invalid", (2, "invalid_utf8")), _UTF8),
    "i_string_overlong_sequence_6_bytes.json": (("invalid", (2, "invalid_utf8")), _UTF8),
    "i_string_overlong_sequence_6_bytes_null.json": (("invalid", (2, "invalid_utf8")), _UTF8),
    "i_string_truncated-utf-8.json": (("invalid", (3, "invalid_utf8")), _UTF8),
    "i_string_UTF-16LE_with_BOM.json": (("invalid", (0, "unexpected_byte")), _UTF16),
    "i_string_utf16BE_no_BOM.json": (("invalid", (0, "unexpected_byte")), _UTF16),
    "i_string_utf16LE_no_BOM.json": (("invalid", (1, "unexpected_byte")), _UTF16),
    "i_structure_UTF-8_BOM_empty_object.json": (("invalid", (0, "unexpected_byte")), "a UTF-8 BOM is not accepted"),
    "i_structure_500_nested_arrays.json": (("invalid", (128, "too_deep")), "500 nested arrays exceed depth limit 128"),
}
# Where the scanner and strict_loads differ on an implementation-defined case, and why.
STRICT_LOADS_DIFFERS = {"i_structure_500_nested_arrays.json": "json.loads has no depth limit of 128"}


def corpus_files() -> dict[str, bytes]:
    if not CORPUS.is_dir():
        pytest.skip(f"JSONTestSuite corpus not found at {CORPUS}")
    return {path.name: path.read_bytes() for path in sorted(CORPUS.glob("*.json"))}


def test_corpus_accepted_and_rejected_agree_with_suite_and_strict_loads() -> None:
    files = corpus_files()
    failures = []
    checked = 0
    for name, data in files.items():
        if name[:2] not in ("y_", "n_"):
            continue
        checked += 1
        expected = name.startswith("y_")
        ours = scan(data)[0] == "complete"
        if ours != expected or strict_loads(data) != expected:
            failures.append(f"{name}: ours {scan(data)}, strict_loads {strict_loads(data)}, suite {expected}")
    assert checked > 250
    assert not failures, "\n".join(failures)


def test_corpus_splits_give_the_whole_fed_outcome() -> None:
    files = corpus_files()
    rng = random.Random(20240601)
    for name, data in files.items():
        whole = scan(data)
        if len(data) < 2048:
            for at in range(len(data) + 1):
                assert scan_pieces([data[:at], data[at:]]) == whole, (name, at)
        for _ in range(4):
            cuts = [rng.randrange(len(data) + 1) for _ in range(rng.randrange(1, min(len(data), 40) + 2))]
            assert scan_pieces(split_at(data, cuts)) == whole, (name, sorted(cuts))


def test_corpus_implementation_defined_outcomes() -> None:
    files = corpus_files()
    names = {name for name in files if name.startswith("i_")}
    assert names == set(IMPLEMENTATION_DEFINED)
    for name in sorted(names):
        expected, _reason = IMPLEMENTATION_DEFINED[name]
        assert scan(files[name]) == expected, name
        agrees = (expected[0] == "complete") == strict_loads(files[name])
        assert agrees != (name in STRICT_LOADS_DIFFERS), name


# Hypothesis

json_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.text(alphabet=st.sampled_from('"\\/\b\f\n\r\t\x00\x1f\x7f\u00e9\u2028\ud7ff\ue000\uffff\U0001f600\U0010ffff'))
)
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=6), children, max_size=5),
    max_leaves=25,
)


@st.composite
def renderings(draw: st.DrawFn) -> bytes:
    value = draw(json_values)
    ensure_ascii = draw(st.booleans())
    indent = draw(st.sampled_from([None, 0, 2, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (" , ", " : ")]))
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators).encode("utf-8")


cut_lists = st.lists(st.integers(min_value=0, max_value=10_000), max_size=8)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(data=renderings(), cuts=cut_lists)
def test_rendered_values_complete_at_their_length(data: bytes, cuts: list[int]) -> None:
    assert scan(data) == ("complete", len(data))
    assert scan_pieces(split_at(data, cuts)) == ("complete", len(data))


ALPHABET = b'{}[]:,"\\ \t\n\r0123456789-+.eEtrufalsnbu/dD8aAxX\x00\x1f\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\xc0\xff\x0c'
jsonish_bytes = st.binary(max_size=32) | st.lists(st.sampled_from(list(ALPHABET)), max_size=48).map(bytes)


@FAST
@given(data=jsonish_bytes, cuts=cut_lists)
def test_arbitrary_bytes_get_strict_loads_verdict(data: bytes, cuts: list[int]) -> None:
    ours = scan(data)
    assert (ours[0] == "complete") == strict_loads(data), ours
    assert scan_pieces(split_at(data, cuts)) == ours


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(renderings()))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        if not data:
            break
        at = draw(st.integers(min_value=0, max_value=len(data) - 1))
        byte = draw(st.sampled_from(list(ALPHABET)) | st.integers(min_value=0, max_value=255))
        operation = draw(st.sampled_from(["delete", "insert", "replace", "truncate"]))
        if operation == "delete":
            del data[at]
        elif operation == "insert":
            data.insert(at, byte)
        elif operation == "replace":
            data[at] = byte
        else:
            del data[at:]
    return bytes(data)


@FAST
@given(data=mutated(), cuts=cut_lists)
def test_mutated_values_get_strict_loads_verdict(data: bytes, cuts: list[int]) -> None:
    ours = scan(data)
    assert (ours[0] == "complete") == strict_loads(data), (ours, data)
    assert scan_pieces(split_at(data, cuts)) == ours


# A tree whose objects may repeat keys (a dict cannot), each key written minimally escaped, as raw
# UTF-8, or entirely as `\u` escapes, so equal keys differ in their bytes.
dup_keys = (
    st.sampled_from(["a", "b", "a/b", "~", "\u00e9", "\U0001f600", '"', "\n", ""])
    | st.text(alphabet="ab", min_size=1, max_size=3)
    | st.text(max_size=4)
)
key_styles = st.sampled_from(["ascii", "utf8", "escaped"])
trees = st.recursive(
    st.tuples(st.just("leaf"), st.none() | st.integers() | st.text(max_size=3)),
    lambda children: st.tuples(st.just("array"), st.lists(children, max_size=5))
    | st.tuples(st.just("object"), st.lists(st.tuples(dup_keys, key_styles, children), max_size=5))
    | st.tuples(st.just("object"), st.lists(st.tuples(dup_keys, key_styles, children), min_size=17, max_size=40)),
    max_leaves=20,
)


def render_key(key: str, style: str) -> bytes:
    if style == "escaped":
        units = key.encode("utf-16-be")
        return (
            b'"'
            + b"".join(b"\\u%04x" % int.from_bytes(units[i : i + 2], "big") for i in range(0, len(units), 2))
            + b'"'
        )
    return json.dumps(key, ensure_ascii=style == "ascii").encode("utf-8")


def render(tree: Any, path: str, out: bytearray, found: list[tuple[str, int]]) -> None:
    kind, content = tree
    if kind == "leaf":
        out += json.dumps(content).encode("utf-8")
    elif kind == "array":
        out += b"["
        for index, item in enumerate(content):
            if index:
                out += b","
            render(item, f"{path}/{index}", out, found)
        out += b"]"
    else:
        out += b"{"
        seen = set()
        for index, (key, style, value) in enumerate(content):
            if index:
                out += b", "
            member = path + "/" + key.replace("~", "~0").replace("/", "~1")
            if key in seen:
                found.append((member, len(out)))
            seen.add(key)
            out += render_key(key, style) + b":"
            render(value, member, out, found)
        out += b"}"


@FAST
@given(tree=trees, cuts=cut_lists)
def test_duplicate_keys_found_where_they_were_put(tree: Any, cuts: list[int]) -> None:
    out = bytearray()
    expected: list[tuple[str, int]] = []
    render(tree, "", out, expected)
    data = bytes(out)
    scanner = Scanner(MAX_DEPTH)
    for piece in split_at(data, cuts):
        scanner.feed(piece)
    assert scanner.finish() == "complete"
    assert scanner.end == len(data)
    assert [tuple(duplicate) for duplicate in scanner.take_duplicate_keys()] == expected
