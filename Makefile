# podium: two commands for a newcomer on a fresh Debian machine with Python 3.11:
#   make demo   create .venv, install podium (and build its native physics engine where g++ exists), run the
#               whole PCG pipeline (`podium pcg evaluate`) on the bundled example, print the leaderboard and the
#               report path (podium's simulation and embedded classifier replace the example's Unity stability and
#               ViT similarity files)
#   make test   install test dependencies (PyPI, npm oracle; bubblewrap, PostgreSQL, Chromium, Node.js, a C++
#               compiler and the training fonts via apt if missing: needs root or sudo; a real model server, built
#               once in about 8 minutes, see model-server; the native physics engine) and run every test
#   make test-loaded   the same with two busy processes beside it (BUSY=N for more), as on a shared host
#   make model-server   a CPU model server (llama.cpp + Gemma 3 270M) in .model-server/; make serve-model runs it
# Both share .venv and one NumPy (constraints.txt).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
ORACLE := .oracle/node_modules/chatgpt4pcg/package.json
PCG_ORACLES := .oracle/chatgpt4pcg-1.2.2/bin/python .oracle/llms4pcg-2.0.1/bin/python
MODEL_SERVER := .model-server/models/gemma3-270m-q4_k_m.gguf
SERVE_PORT ?= 8000
N_CTX ?= 6144
THREADS ?= 2
MAX_COMPLETION_TOKENS ?= 512
DEMO_DIR := demo-run
NATIVE_DIR := src/podium/tracks/pcg/rules/native
NATIVE_PHYSICS := $(NATIVE_DIR)/libpcgbox2d.so

.PHONY: demo test test-loaded install lint pytest oracle model-server serve-model bench bench-sim bench-classify bench-sandbox bench-dojo bench-model-server clean

PIP_INSTALL := $(BIN)/python -m pip install -q -c constraints.txt

$(BIN)/podium: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(PIP_INSTALL) -e .
	@touch $@

$(NATIVE_PHYSICS): $(NATIVE_DIR)/box2d_run.cpp $(NATIVE_DIR)/profile_clock.cpp $(NATIVE_DIR)/recipe.py scripts/build_pcg_physics.py $(BIN)/podium
	$(BIN)/python scripts/build_pcg_physics.py

# the native physics engine needs g++: without one, PCG simulate runs on pybox2d (same results, slower)
install: $(BIN)/podium
	@$(MAKE) --no-print-directory $(NATIVE_PHYSICS) || echo "podium: going on without the native physics engine"

$(VENV)/.test-deps: pyproject.toml constraints.txt $(BIN)/podium
	$(PIP_INSTALL) -e '.[test]'
	@touch $@

$(ORACLE):
	bash scripts/install-oracle.sh

oracle: $(ORACLE)

$(PCG_ORACLES):
	bash scripts/install-pcg-oracles.sh

$(MODEL_SERVER): scripts/install-model-server.sh
	bash scripts/install-system-deps.sh
	bash scripts/install-model-server.sh
	@touch $@

model-server: $(MODEL_SERVER)

# N_CTX fits the longest first prompt of the real 2024 entries (6,144 tokens fitted all eight); each completion is
# capped at MAX_COMPLETION_TOKENS where a request names none (scripts/serve_model.py; 0: no cap)
serve-model: $(MODEL_SERVER)
	.model-server/bin/python scripts/serve_model.py --max-completion-tokens $(MAX_COMPLETION_TOKENS) \
		--model $(MODEL_SERVER) --model_alias gemma3-270m --chat_format gemma --n_ctx $(N_CTX) \
		--n_threads $(THREADS) --n_threads_batch $(THREADS) --host 127.0.0.1 --port $(SERVE_PORT)

demo: install
	rm -rf $(DEMO_DIR) && cp -r examples/pcg-2023-unity $(DEMO_DIR)
	$(BIN)/podium pcg evaluate $(DEMO_DIR) --edition 2023

lint: $(VENV)/.test-deps
	$(BIN)/ruff check src tests benchmarks scripts tools
	$(BIN)/ruff format --check src tests benchmarks scripts tools
	$(BIN)/mypy

pytest: $(VENV)/.test-deps $(ORACLE) $(PCG_ORACLES) $(MODEL_SERVER)
	bash scripts/install-system-deps.sh
	bash scripts/install-fonts.sh
	$(MAKE) --no-print-directory $(NATIVE_PHYSICS)
	PODIUM_REQUIRE_NATIVE_PHYSICS=1 PODIUM_REQUIRE_ORACLE=1 PODIUM_REQUIRE_SANDBOX=1 PODIUM_REQUIRE_POSTGRES=1 PODIUM_REQUIRE_BROWSER=1 \
	PODIUM_REQUIRE_EXTRAS=1 PODIUM_REQUIRE_FONTS=1 PODIUM_REQUIRE_MODEL_SERVER=1 $(BIN)/pytest

test: lint pytest

# `make test` with BUSY (default 2) CPU-bound processes beside it for its whole run, as on a shared host: verdicts
# and tests must hold when the CPUs are contended (scripts/with-busy-cpus.sh starts and stops them)
BUSY ?= 2
test-loaded:
	bash scripts/with-busy-cpus.sh $(BUSY) $(MAKE) --no-print-directory test

bench: install
	$(BIN)/python benchmarks/bench_pcg_text_pipeline.py

bench-sim: install
	$(BIN)/python benchmarks/bench_pcg_simulate.py

bench-classify: $(VENV)/.test-deps
	$(BIN)/python benchmarks/bench_pcg_classify.py

bench-sandbox: install
	$(BIN)/python benchmarks/bench_sandbox.py

bench-dojo: install
	$(BIN)/python benchmarks/bench_dojo_judge.py

bench-model-server: install $(MODEL_SERVER)
	$(BIN)/python benchmarks/bench_model_server.py

clean:
	rm -rf $(VENV) .oracle .model-server $(DEMO_DIR) bench-run .pytest_cache .mypy_cache .ruff_cache build/pcg-box2d $(NATIVE_PHYSICS)
