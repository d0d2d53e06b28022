"""JUnit XML, the one way every report reaches a CI dashboard: suites, cases, their outcomes and the counts of them.

The schema commands, the contract checks and the case matrix each decide what a suite, a case and a failure are;
this module writes the document they describe, so that the counts always agree with the cases, every text is one
an XML parser accepts, and the three read alike in a dashboard.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Final, Literal

__all__ = ["JUnitDocument", "JUnitSuite", "xml_text"]

# Characters XML 1.0 cannot hold (controls other than tab and line ends, lone surrogates, U+FFFE/U+FFFF).
_NOT_XML: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_COUNTS: Final = ("tests", "failures", "skipped", "errors")


def xml_text(text: str) -> str:
    r"""Text an XML document can carry: a character XML forbids becomes its ``\u`` escape (four hex digits)."""
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class JUnitSuite:
    """One ``<testsuite>``: its cases, each with at most one outcome, and their counts."""

    def __init__(self, element: ET.Element) -> None:
        """Wrap a ``<testsuite>`` element (made by ``JUnitDocument.suite``)."""
        self.element = element
        self.counts = dict.fromkeys(_COUNTS, 0)
        self.seconds: float | None = None

    def case(self, classname: str, name: str, seconds: float | None = None) -> ET.Element:
        """A ``<testcase>`` that passes unless an outcome is added to it."""
        self.counts["tests"] += 1
        attributes = {"classname": xml_text(classname), "name": xml_text(name)}
        if seconds is not None:
            attributes["time"] = f"{seconds:.3f}"
            self.seconds = (self.seconds or 0.0) + seconds
        return ET.SubElement(self.element, "testcase", attributes)

    def fail(
        self, case: ET.Element, outcome: Literal["failure", "error"], message: str, kind: str, text: str | None
    ) -> None:
        """Mark a case failed (the checked thing is wrong) or in error (it could not be checked)."""
        self.counts["failures" if outcome == "failure" else "errors"] += 1
        element = ET.SubElement(case, outcome, message=xml_text(message), type=xml_text(kind))
        if text is not None:
            element.text = xml_text(text)

    def skip(self, case: ET.Element, message: str) -> None:
        """Mark a case skipped (it does not apply)."""
        self.counts["skipped"] += 1
        ET.SubElement(case, "skipped", message=xml_text(message))

    def output(self, case: ET.Element, text: str) -> None:
        """What a passing case has to say (a warning, a note, a flaky repeat): dashboards stay green and show it."""
        ET.SubElement(case, "system-out").text = xml_text(text)


class JUnitDocument:
    """A ``<testsuites>`` document, built suite by suite."""

    def __init__(self, name: str) -> None:
        """Start an empty document called ``name``."""
        self.root = ET.Element("testsuites", name=xml_text(name))
        self.suites: list[JUnitSuite] = []

    def suite(self, name: str, properties: Mapping[str, str] | None = None) -> JUnitSuite:
        """A new ``<testsuite>``, with ``properties`` (name to value) when given."""
        element = ET.SubElement(self.root, "testsuite", name=xml_text(name))
        if properties:
            listed = ET.SubElement(element, "properties")
            for key, value in properties.items():
                ET.SubElement(listed, "property", name=xml_text(key), value=xml_text(value))
        suite = JUnitSuite(element)
        self.suites.append(suite)
        return suite

    def render(self) -> str:
        """The document, indented, after its XML declaration (no line end after the last tag)."""
        for suite in self.suites:
            for key, value in suite.counts.items():
                suite.element.set(key, str(value))
            if suite.seconds is not None:
                suite.element.set("time", f"{suite.seconds:.3f}")
        for key in _COUNTS:
            self.root.set(key, str(sum(suite.counts[key] for suite in self.suites)))
        ET.indent(self.root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(self.root, encoding="unicode")
