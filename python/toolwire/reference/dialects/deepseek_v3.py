"""``deepseek_v3``: DeepSeek V3 (0324) and R1 (0528, distills), a fenced JSON object per call.

``<｜tool▁calls▁begin｜>`` then per call ``<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` and a ```` ```json ````
fence around the arguments, closed by ```` ``` ```` and ``<｜tool▁call▁end｜>``, then ``<｜tool▁calls▁end｜>``
(the section's rules are ``_deepseek``'s). The closing fence may follow the JSON with no newline (llama.cpp's R1
tests) and whitespace may sit between calls (SGLang's MTP test). A call is whole when its object closes. Reasoning is
``<think>…</think>``, which R1's prompt opens; a call written inside it is reasoning text.
"""

from __future__ import annotations

from typing import Final

from toolwire.reference.dialects._deepseek import SEP, JsonCallParser, name_token
from toolwire.reference.dialects._shared import quoted

__all__ = ["DeepSeekV3Parser"]

_TYPE: Final = "function"
_FENCE: Final = "```"


class DeepSeekV3Parser(JsonCallParser):
    """The ``deepseek_v3`` dialect."""

    head = (SEP, _FENCE + "json")
    trail = (_FENCE,)

    def _header_of(self, parts: list[str]) -> tuple[str | None, str | None, str | None]:
        kind, name = parts
        found, problem = name_token(name)
        if kind.strip() != _TYPE:
            return found, None, f"the call's type is {quoted(kind)}, not {quoted(_TYPE)}"
        return found, None, problem
