"""Case files: what a model must do with your tools, written once and judged on any model.

A case file (YAML or JSON, checked against the published ``case-file.schema.json``) lists cases: a prompt, the tools
offered and the expectation, with the semantics of ``docs/cases.md``: call sequences in five modes (``exact``,
``in_order``, ``unordered``, ``superset``, ``subset``; always received relative to expected), several acceptable
alternatives (``one_of``), parallel calls as sets, calls paired by maximum bipartite matching, ``no_tool_call``,
pinned arguments (exact values by JSON value, ``one_of``, ``regex``, type-only matchers, ``optional``), and the finish
reason. ``judge`` checks the contract first (the shape of the response, the schema validity of each call) and then the
expectation, and reports failures with stable codes (``FAILURE_CODES``) and diff-style messages. ``run_matrix`` (and
``toolwire matrix``, docs/matrix.md) runs a case file on several models (``ModelSpec``) with retries, repeats and a
response cache, and renders the case x model grid; ``compare_reports`` tells what changed between two runs. Nothing
here imports httpx until a run starts.

Example:
    >>> from toolwire.cases import EXAMPLES, load_cases, judge, turn_from_response
    >>> cases = load_cases(EXAMPLES / "support.yaml")
    >>> case = cases["opening hours"]
    >>> answer = {
    ...     "id": "chatcmpl-1", "object": "chat.completion", "model": "m",
    ...     "choices": [{"index": 0, "finish_reason": "stop",
    ...                  "message": {"role": "assistant", "content": "We are open 9 to 5, Monday to Friday."}}],
    ... }
    >>> turn = turn_from_response(answer, format="openai-chat", tools=case.tools, stream=False)
    >>> judge(case, [turn]).passed
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from toolwire.cases._judge import judge, portable_finish_reason
from toolwire.cases._load import SCHEMA_PATH, CaseFileError, CaseFileProblem, case_file_schema, load_cases
from toolwire.cases._match import max_matching
from toolwire.cases._model import (
    FAILURE_CODES,
    MATCHER_TYPES,
    MODES,
    Alternative,
    Case,
    CaseFile,
    CaseResult,
    Expectation,
    ExpectedCall,
    Failure,
    Matcher,
    Mode,
    Turn,
)
from toolwire.cases._spec import SPEC_FORMATS, ModelSpec, assign_labels, load_models, parse_spec
from toolwire.cases._turn import TURN_FORMATS, next_messages, tool_choice_for, turn_from_response
from toolwire.cases.report import (
    FAIL_ON,
    REPORT_FORMATS,
    CaseInfo,
    Cell,
    CellChange,
    Comparison,
    MatrixResult,
    RunRecord,
    compare_reports,
    load_report,
)
from toolwire.cases.run import (
    CacheMissError,
    ProgressBar,
    ResponseCache,
    RetryPolicy,
    RunProgress,
    arun_matrix,
    run_matrix,
)

#: The folder of the bundled example: ``support.yaml`` (four cases) and its tools, ``support_tools.yaml``.
EXAMPLES: Final = Path(__file__).with_name("examples")

__all__ = [
    "EXAMPLES",
    "FAILURE_CODES",
    "FAIL_ON",
    "MATCHER_TYPES",
    "MODES",
    "REPORT_FORMATS",
    "SCHEMA_PATH",
    "SPEC_FORMATS",
    "TURN_FORMATS",
    "Alternative",
    "CacheMissError",
    "Case",
    "CaseFile",
    "CaseFileError",
    "CaseFileProblem",
    "CaseInfo",
    "CaseResult",
    "Cell",
    "CellChange",
    "Comparison",
    "Expectation",
    "ExpectedCall",
    "Failure",
    "Matcher",
    "MatrixResult",
    "Mode",
    "ModelSpec",
    "ProgressBar",
    "ResponseCache",
    "RetryPolicy",
    "RunProgress",
    "RunRecord",
    "Turn",
    "arun_matrix",
    "assign_labels",
    "case_file_schema",
    "compare_reports",
    "judge",
    "load_cases",
    "load_models",
    "load_report",
    "max_matching",
    "next_messages",
    "parse_spec",
    "portable_finish_reason",
    "run_matrix",
    "tool_choice_for",
    "turn_from_response",
]
