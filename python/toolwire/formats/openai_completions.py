"""The legacy completions endpoint (``openai-completions``: ``/v1/completions``): what Python knows of the format.

vLLM, SGLang, llama.cpp, TGI and LM Studio serve it for self-hosted models (and OpenAI for its instruct models). A
request carries a prompt and nothing else of a conversation; a response carries only generated text per choice. A
buffered ``text_completion`` has the shape of one of its chunks. A turn is its text: a request's history is the
prompt, which the model's chat template writes. A call is written into that text in the model's own dialect and a
tool result into the prompt by the template, neither of which this format has a shape for: ``call_entry``,
``tool_result`` and a turn with calls are refused with a ``ValueError`` rather than given an invented shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from toolwire.formats._body import sse_event
from toolwire.formats._buffered import as_dict, as_list, field
from toolwire.formats.openai_chat import DONE

if TYPE_CHECKING:
    from toolwire.formats._views import CallView, InvalidCallView, ResultView, ToolsView

__all__ = [
    "OBJECT",
    "buffered_events",
    "call_entry",
    "looks_buffered",
    "request_tools",
    "stream_body",
    "tool_result",
    "turn",
]

#: The ``object`` every server gives a completion and its chunks.
OBJECT: Final = "text_completion"

_NO_CALLS: Final = (
    "an openai-completions request carries a prompt, which has no shape for a tool call or its result: the model's "
    "chat template writes them into the prompt in the model's own dialect"
)


def looks_buffered(response: Any) -> bool:
    """Whether a buffered response has this format's shape: a ``text_completion``, or choices of ``text``."""
    if field(response, "object") == OBJECT:
        return True
    choices = field(response, "choices")
    if not isinstance(choices, (list, tuple)) or not choices:
        return False
    return field(choices[0], "text") is not None and field(choices[0], "message") is None


def buffered_events(response: Any) -> list[Any]:
    """The one chunk a ``text_completion`` stands for: a buffered completion has its chunks' shape.

    Raises:
        ShapeError: ``choices`` is not a list.
    """
    as_list(field(response, "choices"), "choices")
    return [as_dict(response)]


def call_entry(call: CallView, name: str) -> dict[str, Any]:
    """Refused: a completions turn is text, and a call is written into it in a dialect this format does not name.

    Raises:
        ValueError: Always, saying so.
    """
    raise ValueError(f"{_NO_CALLS}; write the call back with a chat format (openai-chat) instead")


def turn(result: ResultView, calls: list[CallView], own: bool) -> str:
    """The turn's text: what the next prompt carries after the one that produced it.

    Raises:
        ValueError: The turn has calls, which its text cannot be written with here (see ``call_entry``).
    """
    if calls:
        raise ValueError(f"{_NO_CALLS}; this turn has {len(calls)} call(s): write it back with a chat format instead")
    return result.text


def tool_result(call: InvalidCallView) -> dict[str, Any]:
    """Refused: a completions request has no message to answer a call with.

    Raises:
        ValueError: Always, saying so.
    """
    raise ValueError(f"{_NO_CALLS}; answer the call with a chat format (openai-chat) instead")


def request_tools(registry: ToolsView) -> list[dict[str, Any]]:
    """The tools as the chat template that writes them into the prompt takes them: OpenAI's function shape.

    A completions request has no ``tools`` field; the prompt carries them, rendered by the model's chat template
    (``apply_chat_template(tools=...)``), which takes this shape.
    """
    return registry.to_openai()


def stream_body(events: list[Any]) -> list[bytes]:
    """Each chunk as a server-sent event's data, then ``data: [DONE]``."""
    return [*(sse_event(event) for event in events), DONE]
