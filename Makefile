# cuegym — two commands for a new user:
#   make demo   sets up .venv/ and runs the main job on defaults
#   make test   sets up .venv/ and runs the fast test suite
#   make play   sets up .venv/ and starts the browser table (python -m cuegym.play)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow bench soak lint venv clean clean-cache clean-runs help play \
	reproduce-keglebillard reproduce-golfbillard

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch is pinned to the CPU build on this disk; an unpinned torch pulls a multi-GB CUDA build
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[rl,test,video,web]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) experiments/demo.py

play: $(STAMP)
	$(PY) -m cuegym.play $(PLAY_ARGS)

test: $(STAMP)
	$(PY) -m pytest -q -n 2

test-slow: $(STAMP)
	$(PY) -m pytest -q -n 2 -m slow

# the shipped issue-16 agents from nothing, one command each (experiments/reproduce.py;
# runs/reproduce_<game>/): keglebillard about 80 minutes on 2 quiet cores, golfbillard about
# 65 minutes
reproduce-keglebillard: $(STAMP)
	$(PY) experiments/reproduce.py --game keglebillard $(REPRODUCE_ARGS)

reproduce-golfbillard: $(STAMP)
	$(PY) experiments/reproduce.py --game golfbillard $(REPRODUCE_ARGS)

bench: $(STAMP)
	$(PY) experiments/bench_physics.py

soak: $(STAMP)
	$(PY) experiments/soak.py --shots 1000000

lint: $(STAMP)
	$(PY) -m ruff check .

# numba's cache does not see an edit to a jitted function that a cached kernel of another file
# calls (the caller keeps the old code): after editing a kernel, drop the cache.
clean-cache:
	find . -path ./$(VENV) -prune -o -name '*.nb[ic]' -type f -print | xargs -r rm -f

# the environment and caches only: runs/ holds trained models and tournaments (clean-runs)
clean: clean-cache
	rm -rf $(VENV) .pytest_cache build *.egg-info

clean-runs:
	rm -rf runs

help:
	@echo "make demo          set up .venv/ and run the main job on defaults (about 4 min)"
	@echo "make test          set up .venv/ and run the fast tests (2 workers)"
	@echo "make test-slow     the long tests (marked slow)"
	@echo "make play          the browser table (PLAY_ARGS='--port 9000')"
	@echo "make bench         the physics benchmark; make soak: a million-shot soak"
	@echo "make reproduce-keglebillard / reproduce-golfbillard   the shipped agents from nothing"
	@echo "make lint          ruff"
	@echo "make venv          only set up .venv/ (also the default target)"
	@echo "make clean-cache   drop numba's compiled kernels (after editing a kernel)"
	@echo "make clean         remove .venv/ and the caches (keeps runs/)"
	@echo "make clean-runs    remove runs/: every trained model, log and tournament there"
