"""``toolwire.server``: a real local HTTP endpoint speaking the OpenAI and Anthropic wire formats.

It answers ``POST /v1/chat/completions`` (OpenAI Chat Completions), ``POST /v1/responses`` (OpenAI Responses) and
``POST /v1/messages`` (Anthropic Messages), streamed (SSE, really sent event by event) or buffered, the legacy
``POST /v1/completions`` that vLLM, SGLang and llama.cpp serve (``prompt`` in, ``choices[].text`` out: a model's calls
written into its text in the model's ``dialect``, as ``toolwire.dialects.render`` writes them), plus
``GET /v1/models``; the official SDKs are its clients. Models are scripted (rules matched on the request, replies
of text and calls), and each can switch on provider quirks (``QUIRKS``) so that a client is tested against the
deviations real providers send; recordings are replayed byte for byte. Gemini and Bedrock recordings are replayed on
those APIs' own paths, at the endpoint's root (``POST /v1beta/models/{model}:streamGenerateContent``, ``POST
/model/{modelId}/converse-stream``: a boto3 ``bedrock-runtime`` client with ``endpoint_url`` reads them), which serve
recordings only. Ids are derived from the request, so the same request always gets the same bytes. Use it in tests,
or to run an agent offline::

    from openai import OpenAI
    from toolwire.server import serve

    with serve() as url:  # the bundled script on a free port: "http://127.0.0.1:<port>/v1"
        client = OpenAI(base_url=url, api_key="test")
        stream = client.chat.completions.create(
            model="clean",  # or "quirk/repeat_id", "quirk/truncate", ...
            messages=[{"role": "user", "content": "What is the weather in Paris and in Tokyo?"}],
            tools=[...],  # with get_weather: two calls; other tools get synthesized arguments
            stream=True,
        )

``anthropic.Anthropic(base_url=url.removesuffix("/v1"), api_key="test")`` talks to the same endpoint.
``LocalEndpoint`` is the same with more to inspect (``requests``, the log of what was received, credentials
redacted); ``serve(recordings="recordings")`` adds every recording as the model ``recording:<format>/<name>``.
``EndpointLimits`` (``limits=``) bounds what a client may cost: body size (413) and JSON depth (400), the time to send
a request head and each piece of a body, connections, and the log. From a shell: ``toolwire serve [SCRIPT]
[--recordings DIR] [--host H] [--port P]`` and a flag per limit.

Scripts (``load_script``: YAML, JSON or a mapping; errors name the file and field path)::

    defaults:                          # optional, what every model starts from
      otherwise: auto
    models:
      clean:                           # the request's "model"
        quirks: {}                     # e.g. {repeat_id: true, delay: 0.05, calls_in_content: hermes}
        dialect: qwen3_coder           # how its calls are written on /v1/completions (toolwire.dialects.STYLES)
        chunking: {max_fragment: 8, seed: 0}   # text split into seeded fragments of 1..max_fragment characters
        rules:                         # first match wins
          - when: {user_contains: "Paris and in Tokyo", tools_offered: [get_weather]}
            reply:
              calls:
                - {name: get_weather, arguments: {city: Paris, unit: celsius}}
                - {name: get_weather, arguments: {city: Tokyo, unit: celsius}}
          - when: {last_message_contains: '"error"'}
            reply: {text: "Sorry, let me fix that."}
        otherwise: auto                # or a reply such as {text: "..."}

``when`` keys, all of which must hold: ``user_contains`` (case-insensitive substring of the last user message's
text), ``user_matches`` (a regular expression searched in it), ``last_message_contains`` (substring of the last
message of any role, tool results included: Chat ``role: tool``, Anthropic ``tool_result`` blocks,
Responses ``function_call_output``), ``tool_choice`` (``auto``, ``none``, ``required`` — Anthropic's ``any`` too —,
``named`` or a tool name), ``tools_offered`` (names that must all be offered) and ``last_role`` (``user``,
``assistant``, ``tool`` or ``system``). A reply is ``{text}``, ``{calls: [{name, arguments}], text?}`` (text first),
``{recording: "<format>/<name>"}`` or ``{error: {status, message}}``. ``otherwise: auto`` answers text when no tools
are offered or ``tool_choice`` is ``none`` or ``auto``, one call to the named tool when one is forced, and one call to
the first offered tool when any is required; its arguments are synthesized from the tool's schema (required
properties only, first enum value, ``"example"`` strings, minimum numbers, ...) and validated with
``toolwire.validate`` — a schema they cannot satisfy (a ``pattern``, say) is answered with HTTP 422 naming the
tool and the reason, so add a rule with explicit arguments for it.

Quirks: the chat renderer honours every quirk of ``QUIRKS``; Responses and Anthropic honour ``no_finish``,
``truncate``, ``prose_when_forced``, ``hallucinated_name``, ``trailing_data``, ``delay``, ``reject_keywords`` and
``calls_in_content`` (the calls written into the text in a dialect, no call) and ignore the chat-only ones; the
completions endpoint honours ``no_finish``, ``truncate``, ``delay`` and the content quirks (a model's dialect is
what it already writes its calls in there). A completions request offers no tools (its prompt carries them), so a
call there comes from a rule's reply; a model with calls and no dialect answers HTTP 422. Not supported: several choices (``n``), audio and images in answers.
"""

from __future__ import annotations

from toolwire.server._default import default_script
from toolwire.server._limits import EndpointLimits
from toolwire.server._log import RecordedRequest, RequestLog
from toolwire.server._quirks import QUIRKS, Quirks
from toolwire.server._run import LocalEndpoint, serve
from toolwire.server._script import (
    Chunking,
    Model,
    Reply,
    Rule,
    Script,
    ScriptedCall,
    ScriptedError,
    When,
    load_script,
)

__all__ = [
    "QUIRKS",
    "Chunking",
    "EndpointLimits",
    "LocalEndpoint",
    "Model",
    "Quirks",
    "RecordedRequest",
    "Reply",
    "RequestLog",
    "Rule",
    "Script",
    "ScriptedCall",
    "ScriptedError",
    "When",
    "default_script",
    "load_script",
    "serve",
]
