"""What the benchmarks measure on: streams, bodies, schemas and sizes, seeded and checked against their ground truth.

- ``grid``: the Chat Completions stream grid (calls x size x mode), as chunk dicts and the openai SDK's objects;
- ``sse``: the grid as OpenAI's raw event-stream bytes;
- ``formats``: the grid as Anthropic Messages and OpenAI Responses event-stream bytes;
- ``validation``: calls as JSON text against the BFCL schemas, the recursive union, the grid's own schemas.

Who is measured on them is ``benches.contenders``.
"""
