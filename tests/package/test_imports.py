"""The package's import graph, read from the source: no cycles inside a package, no reach into another's privates.

Every import counts: at module level, inside functions (imported on first use) and under ``if TYPE_CHECKING:`` (a
type-only back edge is a cycle a reader must untangle all the same). A package's front (its ``__init__``) holds its
public names; its private modules (``_x.py``) serve the package itself and the packages inside it, and a module's
private names (``_x``) its own package only.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomllib

from tests.support.paths import REPO

ROOT = REPO / "python"
PACKAGE = ROOT / "toolwire"


@dataclass(frozen=True)
class Import:
    """One name or module a module imports."""

    importer: str
    module: str  # the module the import reads (a submodule when the name is one)
    name: str | None  # the name taken from it, None when the module itself is taken
    line: int


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def package_of(module: str) -> str:
    """The package a module belongs to (a package belongs to itself)."""
    return module if _is_package(module) else module.rpartition(".")[0]


def _absolute(importer: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = package_of(importer).split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(module: str) -> Iterator[Import]:
    """Every import of a package module by ``module``, and every private attribute read off an imported module."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    bound: dict[str, str] = {}  # local names bound to package modules, for `module._private` reads
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    yield Import(module, alias.name, None, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source not in MODULES:
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in MODULES:
                    bound[alias.asname or alias.name] = submodule
                    yield Import(module, submodule, None, node.lineno)
                else:
                    yield Import(module, source, alias.name, node.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            yield Import(module, bound[node.value.id], node.attr, node.lineno)


IMPORTS: list[Import] = [found for module in MODULES for found in imports_of(module)]


def _private(segment: str) -> bool:
    return segment.startswith("_") and not segment.startswith("__")


def _serves(owner: str, importer: str) -> bool:
    """Whether a package's privates serve the importer: the package itself, or a package inside it."""
    package = package_of(importer)
    return package == owner or package.startswith(owner + ".")


def cycles(modules: set[str], imports: list[Import] = IMPORTS) -> list[list[str]]:
    """The strongly connected components of more than one module among ``modules`` (Tarjan, iteratively)."""
    edges: dict[str, set[str]] = {module: set() for module in modules}
    for found in imports:
        if found.importer in modules and found.module in modules and found.module != found.importer:
            edges[found.importer].add(found.module)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(modules):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return components


# Every package, the top one (its front and every role below it) included.
PACKAGES = sorted(module for module in MODULES if _is_package(module))


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_inside_a_package(package: str) -> None:
    inside = {module for module in MODULES if module == package or module.startswith(package + ".")}
    assert cycles(inside) == []


def reaches(imports: list[Import]) -> list[str]:
    """The imports that take a private module or name their importer is not served by."""
    found_reaches = []
    for found in imports:
        segments = found.module.split(".")
        for position, segment in enumerate(segments):
            if _private(segment):
                if not _serves(".".join(segments[:position]), found.importer):
                    found_reaches.append(f"{found.importer}:{found.line} imports the module {found.module}")
                break
        if found.name is not None and _private(found.name) and package_of(found.module) != package_of(found.importer):
            found_reaches.append(f"{found.importer}:{found.line} takes {found.module}.{found.name}")
    return found_reaches


def test_no_module_takes_another_packages_private_modules_or_names() -> None:
    assert reaches(IMPORTS) == []


def test_a_reach_into_another_package_is_told_from_one_inside_a_package() -> None:
    imports = [
        Import("toolwire.cases.report._junit", "toolwire.contract._report", "_xml_text", 1),  # another kit
        Import("toolwire.schema.drift._drift", "toolwire.registry", "_python_tool", 2),  # the package above
        Import("toolwire.schema.history._replay", "toolwire.schema.history._report", "_add", 3),  # its own package
        Import("toolwire.schema.diff._diff", "toolwire.schema._findings", "Finding", 4),  # a shared module above
    ]
    assert reaches(imports) == [
        "toolwire.cases.report._junit:1 imports the module toolwire.contract._report",
        "toolwire.cases.report._junit:1 takes toolwire.contract._report._xml_text",
        "toolwire.schema.drift._drift:2 takes toolwire.registry._python_tool",
    ]


def test_the_graph_walker_sees_every_kind_of_import() -> None:
    """The checks above are only as good as the walk: it reads type-only and function-level imports too."""
    edges = {(found.importer, found.module) for found in IMPORTS}
    assert ("toolwire.schema.history._history", "toolwire.schema.history._migrations") in edges  # TYPE_CHECKING
    assert ("toolwire.schema.history._history", "toolwire.schema.history._replay") in edges  # inside a method


def test_cycles_are_found_through_any_number_of_modules() -> None:
    ring = [Import("a", "b", None, 1), Import("b", "c", None, 1), Import("c", "a", None, 1), Import("c", "d", None, 1)]
    assert cycles({"a", "b", "c", "d"}, ring) == [["a", "b", "c"]]
    assert cycles({"a", "b", "d"}, ring) == []


def test_the_all_extra_is_every_other_extra() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    everything = {requirement for name, listed in extras.items() if name != "all" for requirement in listed}
    assert sorted(extras["all"]) == sorted(everything)
