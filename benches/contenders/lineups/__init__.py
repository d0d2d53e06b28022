"""Who races on which input, one module per input (``chunks``: the grid's dicts and SDK objects; ``sse``: its raw
bytes; ``formats``: Anthropic Messages and OpenAI Responses bytes; ``validation``: calls as JSON text).

Each holds ``CONTENDERS`` (a benchmark's id, the family's function), ``prepare`` (what a contender needs before it
is timed), ``skip_reason`` (where a slow contender stops, one run over ~2 s) and ``check`` (a result against the
input's ground truth, so that a benchmark run with ``--benchmark-disable`` is a correctness test of every contender).
"""
