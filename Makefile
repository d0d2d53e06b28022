# The one place commands are spelled out. `make help` lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash

VENV ?= .venv
PY := $(VENV)/bin/python
# Two stamps: building needs maturin alone (all `make demo` installs); testing, linting and benchmarking need the rest.
BUILD_STAMP := $(VENV)/.build-installed
STAMP := $(VENV)/.installed
DIST ?= dist
# The clean virtualenvs `wheel-check` installs the wheel into, one per interpreter of CHECK_PYTHONS (CI names every
# CPython from 3.10 it has): no dev dependency, no Rust on PATH, no source tree.
CHECK_VENV ?= target/wheel-check
CHECK_PYTHONS ?= python3
CLEAN_PATH := /usr/local/bin:/usr/bin:/bin
export HYPOTHESIS_PROFILE ?= dev
# `cargo test` runs in the environment `maturin develop` builds in (its PYO3_* variables and pyproject's
# pyo3/extension-module feature; `RUST_LOG=maturin=debug maturin develop` shows them), with both crates selected so
# that their features unify: it then reuses every crate the extension's build compiled and compiles only the core's
# tests. Should maturin's environment change, the cost is a second build, never a wrong result.
PY_MINOR = $$($(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
CARGO_TEST_ENV = PYO3_BUILD_EXTENSION_MODULE=1 PYO3_PYTHON=$(abspath $(PY)) PYTHON_SYS_EXECUTABLE=$(abspath $(PY)) \
	PYO3_ENVIRONMENT_SIGNATURE=cpython-$(PY_MINOR)-64bit \
	PYO3_CONFIG_FILE=$$(cd "$${CARGO_TARGET_DIR:-target}" && pwd)/maturin/pyo3-config-$$(rustc -vV | sed -n 's/^host: //p')-$(PY_MINOR)-abi3.txt

.PHONY: help install build-dev build-prod format lint typecheck test-rust test-python test bench-smoke bench wheel \
	wheel-check demo clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-12s %s\n", $$1, $$2}'

$(BUILD_STAMP): requirements-build.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-build.txt
	touch $(BUILD_STAMP)

$(STAMP): $(BUILD_STAMP) requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP) ## create .venv with the build, test and benchmark dependencies

build-dev: $(BUILD_STAMP) ## build the extension (dev profile) into .venv
	$(VENV)/bin/maturin develop --locked --quiet

build-prod: $(BUILD_STAMP) ## build the extension (release profile) into .venv
	$(VENV)/bin/maturin develop --locked --release --quiet

format: install ## format Python and Rust sources
	$(VENV)/bin/ruff format python tests benches
	$(VENV)/bin/ruff check --fix python tests benches
	cargo fmt --all

lint: install ## ruff, rustfmt --check and clippy -D warnings
	$(VENV)/bin/ruff check python tests benches
	$(VENV)/bin/ruff format --check python tests benches
	cargo fmt --all -- --check
	cargo clippy --locked --workspace --all-targets -- -D warnings

typecheck: install build-dev ## mypy strict on the package, stubtest on the extension
	$(VENV)/bin/mypy
	$(VENV)/bin/python -m mypy.stubtest toolwire._core

test-rust: build-dev ## cargo test, reusing every crate the extension's build compiled
	$(CARGO_TEST_ENV) cargo test --locked --workspace --features pyo3/extension-module

test-python: install build-dev ## pytest (builds the extension first)
	$(PY) -m pytest

test: test-rust test-python ## build, then cargo test and pytest

bench-smoke: install build-dev ## run the benchmarks once each, untimed, on the smallest inputs
	$(PY) -m pytest benches --benchmark-disable -q -p no:randomly -m "not slow"

bench: install build-prod ## run the benchmarks for real on a release build
	$(PY) -m pytest benches --benchmark-only --benchmark-columns=min,median,mean,rounds --benchmark-sort=name

wheel: install ## the release wheel (abi3, manylinux2014 through zig, stripped) and the sdist, into dist/
	rm -rf $(DIST)
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/maturin build --locked --release --zig --compatibility manylinux2014 \
		--out $(DIST)
	$(VENV)/bin/maturin sdist --out $(DIST)
	$(VENV)/bin/auditwheel show $(DIST)/toolwire-*.whl | tee $(DIST)/auditwheel.txt
	grep -q '"manylinux_2_17_x86_64"' $(DIST)/auditwheel.txt

wheel-check: ## install dist/'s wheel into clean venvs without Rust on PATH; toolwire --help and tests/smoke there
	env -i HOME="$$HOME" PATH=$(CLEAN_PATH) sh -c '! command -v cargo && ! command -v rustc'
	rm -rf $(CHECK_VENV)
	set -e; for python in $(CHECK_PYTHONS); do \
		venv=$(CHECK_VENV)/$$($$python -c 'import sys; print("cp%d%d" % sys.version_info[:2])'); \
		echo "::: the wheel on $$($$python --version) in $$venv"; \
		$$python -m venv $$venv; \
		$$venv/bin/python -m pip install --quiet $(DIST)/toolwire-*.whl; \
		$$venv/bin/python -m pip install --quiet $$(grep '^pytest==' requirements-dev.txt); \
		env -i HOME="$$HOME" PATH=$(CLEAN_PATH) $$venv/bin/toolwire --help > /dev/null; \
		env -i HOME="$$HOME" PATH=$(CLEAN_PATH) $$venv/bin/python -I -m pytest -q -p no:cacheprovider \
			--confcutdir tests/smoke tests/smoke; \
	done

demo: build-dev ## reassemble the bundled recordings and print every call
	$(PY) -m toolwire demo recordings

clean: ## remove build products and the virtualenv
	cargo clean
	rm -rf $(VENV) $(DIST) .pytest_cache .hypothesis .benchmarks .mypy_cache .ruff_cache
	find python -name '*.so' -delete
