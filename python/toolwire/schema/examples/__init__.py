"""Prompt examples: the tool calls a rendered prompt shows the model, found and validated against the tools."""

from __future__ import annotations

from toolwire.schema.examples._examples import EXAMPLE_RULES, check_examples
from toolwire.schema.examples._find import Example, ExampleFinder

__all__ = [
    "EXAMPLE_RULES",
    "Example",
    "ExampleFinder",
    "check_examples",
]
