"""The breaking-change diff: what a change to a tool registry does, as typed changes with verdicts and evidence."""

from __future__ import annotations

from toolwire.schema.diff._diff import CHANGE_KINDS, Change, DiffReport, diff_tools
from toolwire.schema.diff._policy import FAIL_ON, Policy, load_policy_file, parse_policy

__all__ = [
    "CHANGE_KINDS",
    "FAIL_ON",
    "Change",
    "DiffReport",
    "Policy",
    "diff_tools",
    "load_policy_file",
    "parse_policy",
]
