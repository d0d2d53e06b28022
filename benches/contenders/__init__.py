"""Who the benchmarks measure, one module per family, each contender a function of an input timed whole.

- ``core``: toolwire's compiled core and, through the same API, its pure-Python reference;
- ``loops``: what a careful user writes by hand (a join loop over dicts, orjson and an accumulator over bytes);
- ``floors``: what merely looking at the input costs (reading the fields, framing and decoding the lines), and the
  output any reassembler must build (the memory controls);
- ``sdks``: the openai and anthropic SDKs' own accumulators, from their objects and from bytes;
- ``langchain``: LangChain's ``AIMessageChunk`` addition;
- ``validators``: ``jsonschema-rs`` after ``orjson`` and ``jsonschema`` after ``json``.

``lineups`` says who races on which input (``CHUNKS``, ``BYTES``, ``FORMATS``, ``VALIDATION``), where a slow one
stops, and how each result is checked against the input's ground truth.
"""
