"""The release workflow (.github/workflows/release.yml), checked here for what can be checked without its CI host.

It is a valid GitHub Actions workflow (the schema check-jsonschema vendors), every ``run:`` script parses as bash,
and it builds what ``make wheel`` builds, tests on the CPython ``requires-python`` names, and publishes only a tag.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml

from tests.support.paths import REPO

WORKFLOW = REPO / ".github" / "workflows" / "release.yml"


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_valid_against_the_workflow_schema() -> None:
    checker = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
    assert checker is not None, "check-jsonschema checks the workflow: pip install -r requirements-dev.txt"
    done = subprocess.run(
        [checker, "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_run_script_parses_as_bash(workflow: dict[str, Any]) -> None:
    scripts = [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]
    assert len(scripts) == 3
    for script in scripts:
        # An expression is substituted before the shell sees the script: a word stands in for it.
        plain = re.sub(r"\$\{\{.*?\}\}", "EXPRESSION", script)
        done = subprocess.run(["bash", "-n"], input=plain, capture_output=True, text=True)
        assert done.returncode == 0, f"{done.stderr}\n{script}"


def steps_using(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [step for step in job["steps"] if step.get("uses", "").split("@")[0] == action]


def test_wheels_are_built_as_make_wheel_builds_them(workflow: dict[str, Any]) -> None:
    makefile = (REPO / "Makefile").read_text()
    (make_build,) = re.findall(r"maturin build ([^\n]*)", makefile)
    wheel = workflow["jobs"]["wheel"]
    (build,) = steps_using(wheel, "PyO3/maturin-action")
    assert {"--release", "--locked"} <= set(build["with"]["args"].split()) & set(make_build.split())
    assert f"--compatibility manylinux{build['with']['manylinux']}" in make_build
    runners = {platform["runner"].split("-")[0] for platform in wheel["strategy"]["matrix"]["platform"]}
    assert runners == {"ubuntu", "macos", "windows"}
    cargo = tomllib.loads((REPO / "Cargo.toml").read_text())
    assert "abi3" in cargo["features"]["default"]


def test_each_wheel_is_tested_on_the_oldest_cpython_it_claims(workflow: dict[str, Any]) -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    oldest = project["requires-python"].removeprefix(">=")
    wheel = workflow["jobs"]["wheel"]
    versions = [step["with"]["python-version"] for step in steps_using(wheel, "actions/setup-python")]
    assert versions[0] == oldest and len(versions) == 2
    (smoke,) = [step for step in wheel["steps"] if "tests/smoke" in step.get("run", "")]
    assert (REPO / "tests" / "smoke").is_dir()
    assert "pip install dist/toolwire-*.whl" in smoke["run"]


def test_only_a_tag_publishes(workflow: dict[str, Any]) -> None:
    publish = workflow["jobs"]["publish"]
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert set(publish["needs"]) == set(workflow["jobs"]) - {"publish"}
    assert publish["permissions"] == {"id-token": "write"}
    assert workflow["permissions"] == {"contents": "read"}
    assert steps_using(publish, "pypa/gh-action-pypi-publish")
