# Mnemograph: `make run` starts everything on a laptop; `make test` runs the whole suite.
SHELL := /bin/bash
UV_VERSION := 0.13.8
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)

.PHONY: setup run serve mcp neo4j-start neo4j-stop neo4j-status test test-fast soak lint format docs bench clean
.PHONY: inspector
.PHONY: stack-images stack-up stack-down stack-clean test-stack

setup: $(VENV)/.synced tools/neo4j/target/build.stamp

$(UV):
	python3 -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen --python python3.11
	touch $@

# The `bench` dependency group (graphiti-core, the peer of `make bench`) on top of the locked
# environment: `make bench` runs it and `make lint` type-checks bench/ against it; `make setup`
# and the tests do without it. A later exact sync (a changed lock) removes it; this one follows.
$(VENV)/.synced-bench: $(VENV)/.synced
	$(UV) sync --frozen --python python3.11 --group bench
	touch $@

tools/neo4j/target/build.stamp: $(VENV)/.synced tools/neo4j/pom.xml $(wildcard tools/neo4j/src/main/java/dev/mnemograph/neo4j/*.java)
	$(BIN)/python -c "from service.config import load_settings; from service.stores.neo4j_local import LocalNeo4j; s = load_settings(); LocalNeo4j(s.neo4j, s.data_dir).build()"

run: setup  ## set up, start the local Neo4j, serve HTTP + MCP on 127.0.0.1:8080 (prints the data folder)
	$(BIN)/mnemograph serve

neo4j-start: setup
	$(BIN)/mnemograph neo4j start

neo4j-stop:
	$(BIN)/mnemograph neo4j stop

neo4j-status:
	$(BIN)/mnemograph neo4j status

INSPECTOR := tools/inspector/node_modules/.installed

inspector: $(INSPECTOR)  ## the pinned MCP Inspector CLI (npm ci into tools/inspector) for tests/e2e/test_inspector.py

$(INSPECTOR): tools/inspector/package.json tools/inspector/package-lock.json
	npm ci --prefix tools/inspector --no-audit --no-fund --loglevel=error
	touch $@

test: setup inspector  ## the whole suite against a real Neo4j started by the test session
	$(BIN)/pytest

test-fast: setup  ## unit and adapter tests only (no Neo4j, no model downloads): seconds
	$(BIN)/pytest tests/unit tests/adapters

soak: setup  ## long profiles: schemathesis (150 cases per operation), load (32 clients, 60 s), kill -9 under load (20 rounds), the concurrency model (8 clients, 60 s); injection, isolation
	MNEMO_TEST_PROFILE=soak $(BIN)/pytest -s tests/e2e/test_fuzz_openapi.py tests/e2e/test_load.py tests/e2e/test_crash_under_load.py tests/e2e/test_concurrency_model.py tests/e2e/test_injection.py tests/e2e/test_isolation_matrix.py

# The team stack (docker-compose.yml) on this machine, with podman and images built here
# (tools/stack; docs/deploy.md): STACK_ENV names its env file, test secrets by default.
STACK_ENV ?= tools/stack/test.env

stack-images:  ## build the stack's images here: Debian base, python:3.11-slim, Neo4j and Qdrant stand-ins, the Dockerfile
	tools/stack/build-images

stack-up: setup  ## build the images, start docker-compose.yml with STACK_ENV, return once /readyz is 200 (127.0.0.1:8090)
	STACK_ENV=$(STACK_ENV) tools/stack/up

stack-down:  ## stop the stack and remove its containers (volumes kept)
	STACK_ENV=$(STACK_ENV) tools/stack/down

stack-clean:  ## stop the stack and remove its volumes too: both stores' data and the backups
	STACK_ENV=$(STACK_ENV) tools/stack/down --volumes

test-stack: setup  ## end to end against the stack (tests/stack): up, HTTP + MCP with keys, export/import, restarts; down
	STACK_ENV=$(STACK_ENV) $(BIN)/pytest -s --durations=20 tests/stack

lint: setup $(VENV)/.synced-bench  ## ruff, pyright strict, and the import contracts of pyproject.toml (lint-imports)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pyright
	$(BIN)/lint-imports

format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

docs: setup  ## rewrite docs/reference/ (settings, MCP tools, HTTP routes) from the code
	$(BIN)/python -m devtools.docs_gen

SIZE ?= 10000
bench: setup $(VENV)/.synced-bench  ## latency, throughput and floor at SIZE memories (10000), then the peer (Graphiti; PEERS=0 skips it): bench/results/$(SIZE).json
	$(BIN)/python -m bench.perf --size $(SIZE) $(if $(filter 0,$(PEERS)),--no-peers)

clean:
	rm -rf $(VENV) $(TOOLS) tools/neo4j/target tools/inspector/node_modules .pytest_cache .ruff_cache

.PHONY: bench-quality
bench-quality: setup  ## long-conversation retrieval quality (SPLIT=tune|heldout|all), bench/results/
	$(BIN)/python -m bench.bench_conversation_quality --split $(or $(SPLIT),all)

.PHONY: bench-locomo locomo-path
bench-locomo: locomo-path setup  ## retrieval quality on LoCoMo (LOCOMO=path/to/locomo10.json), bench/results/locomo*.json
	$(BIN)/python -m bench.bench_locomo $(LOCOMO) $(if $(filter 1,$(GRID)),--grid)

locomo-path:
	$(if $(LOCOMO),,$(error LOCOMO=path/to/locomo10.json is required))

.PHONY: bench-replicas
bench-replicas: setup  ## throughput of 1 and 2 replicas on a Qdrant server, 8 clients: bench/results/replicas.json
	$(BIN)/python -m bench.replicas --size $(or $(REPLICA_SIZE),1000)
