"""``cohere_command``: ``<|START_ACTION|>[{"tool_call_id": ..., "tool_name": ..., "parameters": {...}}]<|END_ACTION|>``.

Command R7B, Command A and Cohere2MoE (llama.cpp's templates): ``tool_call_id`` is the call's id; reasoning is
``<|START_THINKING|>…<|END_THINKING|>`` (Cohere2MoE's prompt opens it: ``reasoning=True``); an answer is framed by
``<|START_RESPONSE|>…<|END_RESPONSE|>`` or ``<|START_TEXT|>…<|END_TEXT|>``, markers that are not text. A call inside
reasoning is reasoning text: the templates write actions after it. The machinery is ``_json_array.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from toolwire.reference.dialects._json_array import JsonArrayParser

__all__ = ["CohereCommandParser"]


class CohereCommandParser(JsonArrayParser):
    """The ``cohere_command`` dialect."""

    arrays: ClassVar[Mapping[str, str | None]] = {"<|START_ACTION|>": "<|END_ACTION|>"}
    silent = ("<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>")
    think = ("<|START_THINKING|>", "<|END_THINKING|>")
    name_key = "tool_name"
    argument_keys = ("parameters",)
    id_key = "tool_call_id"
