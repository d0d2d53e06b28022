"""``deepseek_v31``: DeepSeek V3.1 and V3.1-Terminus, ``<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>``.

V3's markers without the ``function`` type and without the fence, in ``<｜tool▁calls▁begin｜>`` …
``<｜tool▁calls▁end｜>`` (the section's rules are ``_deepseek``'s). A call is whole when its object closes. Reasoning
is ``<think>…</think>``, which the thinking prompt opens; a call written inside it is reasoning text.
"""

from __future__ import annotations

from toolwire.reference.dialects._deepseek import SEP, JsonCallParser, name_token

__all__ = ["DeepSeekV31Parser"]


class DeepSeekV31Parser(JsonCallParser):
    """The ``deepseek_v31`` dialect."""

    head = (SEP,)

    def _header_of(self, parts: list[str]) -> tuple[str | None, str | None, str | None]:
        name, problem = name_token(parts[0])
        return name, None, problem
