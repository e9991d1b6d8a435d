# Two entry points matter: `make run` and `make test` (see README).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# uv installs in seconds what takes pip half a minute; pip (which python3 -m venv brings)
# installs it into the project's virtual environment, so python3 is all a machine needs.
UV_VERSION := 0.13.9
UV := $(BIN)/uv
INSTALL := $(UV) pip install --quiet --python $(BIN)/python -c constraints.txt
# What `make test-quick` leaves out: tests needing a database server, Redis or a browser
# (markers assigned in tests/conftest.py).
QUICK := not (postgres or redis or browser)

.PHONY: run test test-quick lint typecheck bench system constraints clean

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

# The server's packages only: `make run` stays small and quick to install.
$(VENV)/.run: pyproject.toml constraints.txt | $(UV)
	$(INSTALL) -e .
	touch $@

# Everything the tests, linters and benchmarks need (and so the server's packages too).
$(VENV)/.dev: pyproject.toml constraints.txt | $(UV)
	$(INSTALL) -e '.[dev]'
	touch $@ $(VENV)/.run

# Debian packages the test suite needs (database servers, browser); no-op when present.
system:
	bash scripts/install-system-packages.sh

run: $(VENV)/.run
	$(BIN)/elgrande serve

test: system $(VENV)/.dev
	$(BIN)/ruff check elgrande tests
	$(BIN)/mypy
	$(BIN)/pytest -q

# No database server, Redis or browser, so no system packages: a few minutes.
test-quick: $(VENV)/.dev
	$(BIN)/ruff check elgrande tests
	$(BIN)/mypy
	$(BIN)/pytest -q -m '$(QUICK)'

lint: $(VENV)/.dev
	$(BIN)/ruff check elgrande tests

typecheck: $(VENV)/.dev
	$(BIN)/mypy

bench: $(VENV)/.dev
	$(BIN)/elgrande bench engine --players 4

# Re-pin constraints.txt after changing the dependencies in pyproject.toml; pass
# ARGS=--upgrade to take the newest releases too.
constraints: $(UV)
	UV=$(UV) bash scripts/refresh-constraints.sh $(ARGS)

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .mypy_cache .ruff_cache
