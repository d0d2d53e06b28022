"""Tool schemas rewritten into a provider's subset: the lint's other half (``toolwire adapt``).

``adapt_tools(tools, target)`` answers each finding the lint of ``target`` makes with the rewrite of its construct:
a keyword the target refuses or ignores is lifted into the description in words (a weakening: the handler checks
calls against the original), ``oneOf`` becomes ``anyOf``, ``allOf`` branches merge, a ``$ref`` with siblings is
written out, objects are closed, and for OpenAI's strict mode every optional property becomes required and
nullable. What no rewrite can answer is reported. Only the copy sent to the provider changes: keep checking calls
against the original tools.
"""

from toolwire.schema.adapt._adapt import NOT_LOADABLE_RULE, AdaptedTool, AdaptReport, adapt_tools
from toolwire.schema.adapt._rewrites import Adaptation

__all__ = ["NOT_LOADABLE_RULE", "AdaptReport", "Adaptation", "AdaptedTool", "adapt_tools"]
