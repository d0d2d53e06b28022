"""The pytest-benchmark suites and ``report.py``, which writes docs/benchmarks.md.

``inputs/`` is what is measured (streams, bodies, schemas, sizes), ``contenders/`` who is measured on it (toolwire's
core and reference, hand-written loops, floors, the SDKs', LangChain's, the JSON Schema validators), and
``contenders.lineups`` which contenders race on which input. The ``test_bench_*.py`` files and ``report.py`` time
a lineup on its inputs and check every result against the input's ground truth.
"""
