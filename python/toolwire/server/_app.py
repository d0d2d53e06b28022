"""The ASGI application: routes, the answer to each request, and errors in each format's own shape.

``POST /v1/chat/completions``, ``POST /v1/responses`` and ``POST /v1/messages`` answer with the scripted model's turn
(buffered JSON, or SSE streamed event by event), with a recording replayed byte for byte, or with an error;
``POST /v1/completions`` (the legacy endpoint vLLM, SGLang and llama.cpp serve) with a scripted model's turn as text,
its calls written in the model's dialect;
``POST /v1beta/models/{model}:streamGenerateContent`` (Gemini) and ``POST /model/{modelId}/converse-stream`` (Bedrock)
replay recordings only, the model named in the path as those APIs name it; ``GET /v1/models`` lists what is served in
a shape both the OpenAI and the Anthropic SDKs read. Nothing a client sends
can stop the server: a body that is too large is a 413 and one that stalls a 408 (``_body``: both close the
connection), a body that is not JSON (malformed, too deep, a lone surrogate, invalid UTF-8, a number Python cannot
hold) or has a field of the wrong type is a 400 naming the field, an unknown model a 404, anything unexpected a 500
in the format's error shape.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from toolwire.formats import format_of
from toolwire.server import _anthropic, _chat, _completions, _responses
from toolwire.server._body import CLOSE, decode_body, read_body
from toolwire.server._limits import EndpointLimits
from toolwire.server._log import RequestLog
from toolwire.server._match import Turn, answer
from toolwire.server._quirks import rejected_keyword
from toolwire.server._replay import REPLAYED_FORMATS, SERVED_FORMATS, Replay
from toolwire.server._request import PARSERS, ParsedRequest, RequestError, ServedFormat, parse_completions
from toolwire.server._script import Script, ScriptedError
from toolwire.server._wire import CREATED, Context

__all__ = ["EndpointState", "build_app"]

_LOG: Final = logging.getLogger("toolwire.server")
# An unknown model's 404 lists the served ones, up to this many (recordings can be many).
_LISTED_MODELS: Final = 20
_OPENAI_TYPES: Final = {401: "authentication_error", 403: "permission_error", 429: "rate_limit_exceeded"}
_ANTHROPIC_TYPES: Final = {
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class EndpointState:
    """What the application serves.

    Attributes:
        script: The scripted models.
        replays: The served recordings, by model name (``recording:<format>/<name>``).
        references: The recordings the script's replies name, by recording name.
        requests: The log every request is added to.
        limits: What a request may cost.
    """

    script: Script
    replays: Mapping[str, Replay]
    references: Mapping[str, Replay]
    requests: RequestLog
    limits: EndpointLimits

    def model_names(self) -> list[str]:
        """Every model a request can name, scripted ones first."""
        return [*self.script.models, *self.replays]


_GEMINI_STATUSES: Final = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 408: "DEADLINE_EXCEEDED", 413: "INVALID_ARGUMENT"}
_BEDROCK_TYPES: Final = {404: "ResourceNotFoundException", 500: "InternalServerException"}
# The legacy completions endpoint: scripted models only, their calls written into the text in their dialect.
_COMPLETIONS: Final = format_of("openai-completions").endpoint
# Where a recording of each format is served.
_PATHS: Final = {**SERVED_FORMATS, **REPLAYED_FORMATS}


def _openai_error(status: int, message: str, param: str | None, code: str | None) -> dict[str, Any]:
    kind = _OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def _anthropic_error(status: int, message: str, param: str | None, code: str | None) -> dict[str, Any]:
    del param, code  # Anthropic's shape has neither; the message names the field.
    kind = _ANTHROPIC_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def _gemini_error(status: int, message: str, headers: Mapping[str, str] | None) -> Response:
    kind = _GEMINI_STATUSES.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
    return JSONResponse({"error": {"code": status, "message": message, "status": kind}}, status, headers)


def _bedrock_error(status: int, message: str, headers: Mapping[str, str] | None) -> Response:
    # botocore reads the error's type from this header, and its message from the body.
    kind = _BEDROCK_TYPES.get(status, "InternalServerException" if status >= 500 else "ValidationException")
    return JSONResponse({"message": message}, status, {**(headers or {}), "x-amzn-errortype": kind})


@dataclass(frozen=True)
class _Format:
    name: ServedFormat
    parse: Callable[[object], ParsedRequest]
    buffered: Callable[[Turn, Context], dict[str, Any]]
    streamed: Callable[[Turn, Context], list[bytes]]
    error: Callable[[int, str, str | None, str | None], dict[str, Any]]


_FORMATS: Final = {
    "openai-chat": _Format("openai-chat", PARSERS["openai-chat"], _chat.buffered, _chat.streamed, _openai_error),
    "openai-responses": _Format(
        "openai-responses", PARSERS["openai-responses"], _responses.buffered, _responses.streamed, _openai_error
    ),
    "anthropic-messages": _Format(
        "anthropic-messages", PARSERS["anthropic-messages"], _anthropic.buffered, _anthropic.streamed, _anthropic_error
    ),
    "openai-completions": _Format(
        "openai-completions", parse_completions, _completions.buffered, _completions.streamed, _openai_error
    ),
}


async def _paced(chunks: Sequence[bytes], delay: float) -> AsyncIterator[bytes]:
    """The chunks one write at a time, ``delay`` seconds before each (the ``delay`` quirk)."""
    for chunk in chunks:
        if delay:
            await asyncio.sleep(delay)
        yield chunk


def _event_stream(chunks: Sequence[bytes], delay: float = 0.0, status: int = 200, media: str = "") -> Response:
    return StreamingResponse(
        _paced(chunks, delay),
        status_code=status,
        media_type=media or "text/event-stream",
        headers={"cache-control": "no-cache"},
    )


def _elsewhere(replay: Replay, what: str, here: str) -> RequestError:
    return RequestError(
        400,
        f"model: {what} replays the {replay.format} recording {replay.name!r}, which is served on "
        f"{_PATHS[replay.format]}, not {here}",
        param="model",
    )


def _replay(replay: Replay, request: ParsedRequest, fmt: _Format, what: str) -> Response:
    if fmt.name == "openai-completions":
        raise RequestError(
            400, f"model: {what} replays a recording; {_COMPLETIONS} answers from scripted models only", param="model"
        )
    if replay.format != fmt.name:
        raise _elsewhere(replay, what, SERVED_FORMATS[fmt.name])
    if not request.stream:
        raise RequestError(
            400, f'stream: {what} replays the recorded stream {replay.name!r}; send "stream": true', param="stream"
        )
    return _event_stream(replay.chunks, status=replay.status, media=replay.content_type)


async def _respond(request: ParsedRequest, fmt: _Format, state: EndpointState) -> Response:
    model = state.script.models.get(request.model)
    if model is None:
        replay = state.replays.get(request.model)
        if replay is None:
            names = state.model_names()
            served = ", ".join(names[:_LISTED_MODELS])
            if len(names) > _LISTED_MODELS:
                served += f" and {len(names) - _LISTED_MODELS} more (GET /v1/models lists them all)"
            raise RequestError(
                404,
                f"model: the model {request.model!r} does not exist on this endpoint; served models: {served}",
                param="model",
                code="model_not_found",
            )
        return _replay(replay, request, fmt, f"the model {request.model!r}")
    refused = rejected_keyword(request.tools, model.quirks.reject_keywords)
    if refused is not None:
        position, name, keyword, pointer = refused
        raise RequestError(
            400,
            f"Invalid schema for function '{name}': '{keyword}' is not supported (at {pointer})",
            param=f"tools[{position}]",
            code="invalid_function_parameters",
        )
    outcome = answer(model, request)
    if isinstance(outcome, ScriptedError):
        return JSONResponse(fmt.error(outcome.status, outcome.message, None, None), status_code=outcome.status)
    if isinstance(outcome, str):
        return _replay(state.references[outcome], request, fmt, f"the model {request.model!r}")
    context = Context(request, model.quirks, model.chunking, model.dialect)
    if request.stream:
        return _event_stream(fmt.streamed(outcome, context), model.quirks.delay)
    if model.quirks.delay:
        await asyncio.sleep(model.quirks.delay)
    return JSONResponse(fmt.buffered(outcome, context))


def _refusal(error: RequestError, shape: Callable[[int, str, str | None, str | None], dict[str, Any]]) -> Response:
    # A body refused before it was read whole (413, 408) leaves its rest unread on the connection: close it.
    headers = CLOSE if error.status in (408, 413) else None
    return JSONResponse(shape(error.status, error.message, error.param, error.code), error.status, headers)


async def _received(http: Request, state: EndpointState) -> bytes:
    """The body within the limits, logged with the request (a refused body is logged without its bytes)."""
    try:
        raw = await read_body(http, state.limits)
    except (RequestError, ClientDisconnect):
        state.requests.add(http.method, http.url.path, b"", http.headers.items())
        raise
    state.requests.add(http.method, http.url.path, raw, http.headers.items())
    return raw


def _handler(fmt: _Format, state: EndpointState) -> Callable[[Request], Any]:
    async def handle(http: Request) -> Response:
        try:
            raw = await _received(http, state)
            return await _respond(fmt.parse(decode_body(raw, state.limits)), fmt, state)
        except ClientDisconnect:
            return Response(status_code=400)  # nobody is left to read it
        except RequestError as error:
            return _refusal(error, fmt.error)
        except Exception as error:  # The server must answer every request, even after a bug of ours.
            _LOG.exception("toolwire endpoint: %s %s failed", http.method, http.url.path)
            message = f"internal error of the toolwire endpoint: {type(error).__name__}: {error}"
            return JSONResponse(fmt.error(500, message, None, None), status_code=500)

    return handle


def _recorded(state: EndpointState, name: str, model: str) -> Replay:
    """The recording of format ``name`` that a replay-only route's ``model`` names."""
    path = REPLAYED_FORMATS[name]
    replay = state.replays.get(model)
    if replay is None:
        if model in state.script.models:
            raise RequestError(
                400,
                f"model: {model!r} is a scripted model, which answers on {', '.join(SERVED_FORMATS.values())}; "
                f"{path} replays recordings only",
            )
        names = [other for other, found in state.replays.items() if found.format == name]
        served = ", ".join(names[:_LISTED_MODELS]) or "none"
        if len(names) > _LISTED_MODELS:
            served += f" and {len(names) - _LISTED_MODELS} more"
        raise RequestError(404, f"model: no recording {model!r} on this endpoint; {name} recordings: {served}")
    if replay.format != name:
        raise _elsewhere(replay, f"the model {model!r}", path)
    return replay


def _replayer(
    name: str, error: Callable[[int, str, Mapping[str, str] | None], Response], state: EndpointState
) -> Callable[[Request], Any]:
    """The handler of a route that replays recordings of one format, the model named in the path."""

    async def handle(http: Request) -> Response:
        try:
            decode_body(await _received(http, state), state.limits)
            replay = _recorded(state, name, http.path_params["model"])
            if replay.array is not None and http.query_params.get("alt") != "sse":
                return _event_stream(replay.array, status=replay.status, media="application/json")
            return _event_stream(replay.chunks, status=replay.status, media=replay.content_type)
        except ClientDisconnect:
            return Response(status_code=400)
        except RequestError as refused:
            return error(refused.status, refused.message, CLOSE if refused.status in (408, 413) else None)
        except Exception as failure:  # The server must answer every request, even after a bug of ours.
            _LOG.exception("toolwire endpoint: %s %s failed", http.method, http.url.path)
            return error(500, f"internal error of the toolwire endpoint: {type(failure).__name__}: {failure}", None)

    return handle


def _model_entry(name: str) -> dict[str, Any]:
    # Both SDKs read this: OpenAI's Model (id, object, created, owned_by), Anthropic's ModelInfo (id, type,
    # display_name, created_at).
    return {
        "id": name,
        "object": "model",
        "created": CREATED,
        "owned_by": "toolwire",
        "type": "model",
        "display_name": name,
        "created_at": "2026-01-01T00:00:00Z",
    }


def build_app(state: EndpointState) -> Starlette:
    """The application serving ``state``.

    Args:
        state: The script, the recordings and the request log.

    Returns:
        A Starlette application.
    """
    routes = [Route(path, _handler(_FORMATS[name], state), methods=["POST"]) for name, path in SERVED_FORMATS.items()]
    routes += [
        Route(_COMPLETIONS, _handler(_FORMATS["openai-completions"], state), methods=["POST"]),
        Route(
            "/v1beta/models/{model:path}:streamGenerateContent",
            _replayer("gemini", _gemini_error, state),
            methods=["POST"],
        ),
        Route(
            "/model/{model:path}/converse-stream",
            _replayer("bedrock-converse", _bedrock_error, state),
            methods=["POST"],
        ),
    ]

    async def models(http: Request) -> Response:
        state.requests.add(http.method, http.url.path, b"", http.headers.items())
        names = state.model_names()
        entries = [_model_entry(name) for name in names]
        listing = {"object": "list", "data": entries, "has_more": False, "first_id": names[0], "last_id": names[-1]}
        return JSONResponse(listing)

    async def one_model(http: Request) -> Response:
        state.requests.add(http.method, http.url.path, b"", http.headers.items())
        name = http.path_params["name"]
        if name in state.model_names():
            return JSONResponse(_model_entry(name))
        message = f"model: the model {name!r} does not exist on this endpoint; GET /v1/models lists the served ones"
        return JSONResponse(_openai_error(404, message, "model", "model_not_found"), status_code=404)

    async def unknown(http: Request) -> Response:
        try:
            await _received(http, state)
        except ClientDisconnect:
            return Response(status_code=400)
        except RequestError as error:
            return _refusal(error, _openai_error)
        paths = (*SERVED_FORMATS.values(), _COMPLETIONS, *REPLAYED_FORMATS.values())
        served = ", ".join([*(f"POST {path}" for path in paths), "GET /v1/models"])
        message = f"no such endpoint: {http.method} {http.url.path}; this endpoint serves {served}"
        return JSONResponse(_openai_error(404, message, None, "unknown_url"), status_code=404)

    routes += [
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/models/{name:path}", one_model, methods=["GET"]),
        Route("/{path:path}", unknown, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
    ]
    return Starlette(routes=routes)
