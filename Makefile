# nsys-analytics: every target sets itself up (a virtual environment in .venv) on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO := fixtures/profiles/gpt_train.sqlite

.PHONY: setup demo test test-shared bench sweep docs-images fixtures fixtures-x2 lint clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

## demo: the top kernels of a bundled real profile (an H200 training step)
demo: setup
	$(BIN)/nsys-analytics info $(DEMO)
	@echo
	$(BIN)/nsys-analytics kernels $(DEMO) --limit 10

## test: install and run the test suite
# On TEST_WORKERS pytest-xdist workers (2: this machine's cores; the suite takes about half the time of one). DuckDB's
# SQLite reader can, rarely, crash the process that reads many exports (a native fault, not a failing test; README.md,
# Fixtures and tests): a test whose worker crashed runs once more on a fresh worker (tests/worker_crashes.py), and a
# pytest killed by a signal (exit status above 128) is run once more, without the tests it had passed. A failing test
# still fails the target at once.
TEST_WORKERS ?= 2
PASSED := .pytest-passed
test: setup
	rm -f $(PASSED)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --record-passed $(PASSED) || { rc=$$?; [ $$rc -gt 128 ] || exit $$rc; \
	  echo "pytest was killed by signal $$((rc - 128)); running the suite once more without the $$(wc -l < $(PASSED)) tests it had passed" >&2; \
	  $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --skip-passed $(PASSED); }

## test-shared: also compare with the reference profiles in ../shared/profiles
test-shared: setup
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --shared-profiles

## bench: speed and memory on >= 1 M-kernel profiles, beside nsys 2022.4 (installed if possible)
bench: setup
	-bash bench/install_nsys_2022.sh
	$(BIN)/python bench/bench_kernels.py
	$(BIN)/python bench/bench_nvtx.py
	$(BIN)/python bench/bench_breakdown.py
	$(BIN)/python bench/bench_diagnose.py
	$(BIN)/python bench/bench_ncu.py
	$(BIN)/python bench/bench_visual.py
	$(BIN)/python bench/bench_render.py
	$(BIN)/python bench/bench_serve.py
	$(BIN)/python bench/bench_catalog.py
	$(BIN)/python bench/bench_ranks.py
	$(BIN)/python bench/bench_cache.py --scaling --runs 1
	$(BIN)/python bench/bench_cache_threshold.py
	$(BIN)/python bench/bench_heavy.py
	$(BIN)/python bench/bench_modules.py
	$(BIN)/python bench/bench_floor.py --sizes 1M,3M --runs 3
	$(BIN)/python bench/bench_floor.py --sizes 10M --runs 1

## docs-images: small PNGs of the fixture profiles in docs/images/ (a timeline, a breakdown plot, the HTML report)
docs-images: setup
	$(BIN)/python docs/make_images.py

## sweep: every command on every fixture and hostile file (exit codes, one-line errors, inputs untouched)
sweep: setup
	$(BIN)/python bench/sweep_inputs.py

## fixtures: re-profile the workloads (needs a GPU machine with Nsight Systems; see fixtures/README.md)
fixtures:
	bash fixtures/regenerate.sh

## fixtures-x2: the CUDA-graph, torch.compile and 2-GPU DDP fixtures (a machine with 2 GPUs; see fixtures/README.md)
fixtures-x2:
	bash fixtures/regenerate_x2.sh

clean:
	rm -rf $(VENV) bench-data .pytest_cache
