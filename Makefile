# The one place commands are spelled out. `make help` lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash

VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export HYPOTHESIS_PROFILE ?= dev

.PHONY: help install build-dev build-prod format lint typecheck test-rust test-python test bench-smoke bench demo clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  %-12s %s\n", $$1, $$2}'

$(STAMP): requirements-dev.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP) ## create .venv with the build, test and benchmark dependencies

build-dev: install ## build the extension (dev profile) into .venv
	$(VENV)/bin/maturin develop --locked --quiet

build-prod: install ## build the extension (release profile) into .venv
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

typecheck: build-dev ## mypy strict on the package, stubtest on the extension
	$(VENV)/bin/mypy
	$(VENV)/bin/python -m mypy.stubtest toolwire._core

test-rust: ## cargo test of the core crate
	cargo test --locked -p toolwire-core

test-python: build-dev ## pytest (builds the extension first)
	$(PY) -m pytest

test: test-rust test-python ## cargo test, then build and pytest

bench-smoke: build-dev ## run the benchmarks once each, untimed, on the smallest inputs
	$(PY) -m pytest benches --benchmark-disable -q -p no:randomly -m "not slow"

bench: build-prod ## run the benchmarks for real on a release build
	$(PY) -m pytest benches --benchmark-only --benchmark-columns=min,median,mean,rounds --benchmark-sort=name

demo: build-dev ## reassemble the bundled recordings and print every call
	$(PY) -m toolwire demo recordings

clean: ## remove build products and the virtualenv
	cargo clean
	rm -rf $(VENV) .pytest_cache .hypothesis .benchmarks .mypy_cache .ruff_cache
	find python -name '*.so' -delete
