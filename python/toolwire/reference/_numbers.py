"""The numbers a call's arguments may hold: the one rule streams, ``validate`` and replay share.

CPython converts at most 4300 digits to an ``int`` (``sys.get_int_max_str_digits()``), a guard against quadratic
conversion time; jiter, which builds the core's Python values, applies the same limit to the integer part of every
number, a fraction's or an exponent's too. Arguments holding such a number are ``INVALID_JSON``.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_INTEGER_DIGITS", "NUMBER_TOO_LONG", "loads_arguments"]

#: The most digits the integer part of a number may have.
MAX_INTEGER_DIGITS = 4300
#: The message of the ``INVALID_JSON`` such arguments get.
NUMBER_TOO_LONG = f"the arguments hold a number too long to convert (over {MAX_INTEGER_DIGITS} digits)"


def _checked(text: str) -> str:
    digits = text.lstrip("-")
    integer_part = len(digits) - len(digits.lstrip("0123456789"))
    if integer_part > MAX_INTEGER_DIGITS:
        raise ValueError(f"a number whose integer part has more than {MAX_INTEGER_DIGITS} digits")
    return text


def loads_arguments(text: bytes) -> Any:
    """Strict JSON ``text`` (as the scanner accepted it) as the Python values a call carries.

    Raises:
        ValueError: It holds a number whose integer part has more than :data:`MAX_INTEGER_DIGITS` digits, whatever
            the interpreter's own limit, so that the reference refuses what the core refuses.
    """
    return json.loads(
        text.decode("utf-8"),
        parse_int=lambda digits: int(_checked(digits)),
        parse_float=lambda digits: float(_checked(digits)),
    )
