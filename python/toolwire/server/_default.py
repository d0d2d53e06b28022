"""The bundled script: model ``clean`` and one model ``quirk/<id>`` per quirk, all answering the same rules."""

from __future__ import annotations

import functools
from importlib import resources

from toolwire._common._yaml import parse_yaml
from toolwire.server._script import Script, read_script

__all__ = ["default_script"]

_FILE = "default_script.yaml"


@functools.cache
def default_script() -> Script:
    """The script bundled with toolwire (``toolwire/server/default_script.yaml``).

    Model ``clean`` keeps every contract; ``quirk/<id>`` answers the same rules with one quirk of ``QUIRKS`` switched
    on (``quirk/delay`` sleeps 0.01 s per chunk, ``quirk/reject_keywords`` refuses ``anyOf`` and ``oneOf``). The
    rules answer the requests of ``toolwire probe``: the weather in Paris, in Paris and in Tokyo (two parallel
    calls), order ORD-1234, ``tool_choice: none`` and a turn after tool results with text.

    Returns:
        The script (loaded once).
    """
    origin = f"toolwire/server/{_FILE}"
    text = resources.files("toolwire.server").joinpath(_FILE).read_text(encoding="utf-8")
    return read_script(parse_yaml(text, origin), origin)
