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
# The rules engine the test suite runs: the pure one, the reference; the compiled one is
# compared with it step by step by tests/rules/test_compiled.py (docs/compiled-engine.md).
TEST_ENGINE ?= pure
PYTEST := ELGRANDE_ENGINE=$(TEST_ENGINE) $(BIN)/pytest

.PHONY: run test test-quick compiled lint typecheck bench system constraints messages clean

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

# The compiled rules engine (docs/compiled-engine.md): mypyc compiles elgrande/rules and the
# bots' search into build/compiled-engine/, two to three times as fast as the pure-Python
# source, which stays the reference and the fallback. A no-op while the build matches the
# sources; else about a minute of CPU. Needs a C compiler and Python's headers: it fails, and so `make test`,
# when it cannot be built.
compiled: $(VENV)/.dev
	$(BIN)/python scripts/build_compiled_engine.py

# Runs the compiled engine when a fresh build is there (left by `make test` or `make
# compiled`; never built here, so `make run` stays quick), else the pure one.
run: $(VENV)/.run
	@$(BIN)/python -c 'import elgrande.rules as r; print("rules engine:", r.ENGINE, "-", r.ENGINE_CHOICE.reason)'
	$(BIN)/elgrande serve

test: system $(VENV)/.dev compiled
	$(BIN)/ruff check elgrande tests
	$(BIN)/mypy
	$(PYTEST) -q

# No database server, Redis or browser, so no system packages: a few minutes.
test-quick: $(VENV)/.dev compiled
	$(BIN)/ruff check elgrande tests
	$(BIN)/mypy
	$(PYTEST) -q -m '$(QUICK)'

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

# The message catalogs (docs/i18n.md): extract every text into the templates (.pot) and
# merge them into each language's .po; translate what is new, then `make test` checks
# them. No .mo files: the server compiles the .po files in memory at start.
LOCALE := elgrande/locale
LANGUAGES := de fr
PYBABEL := $(BIN)/pybabel
messages: $(VENV)/.dev
	$(PYBABEL) -q extract -F $(LOCALE)/babel.cfg -k N_ -c TRANSLATORS: --add-location=file \
		--sort-by-file --no-wrap --project=elgrande -o $(LOCALE)/messages.pot .
	$(PYBABEL) -q extract -F $(LOCALE)/babel-js.cfg -k t -k ngettext:1,2 -c TRANSLATORS: \
		--add-location=file --sort-by-file --no-wrap --project=elgrande -o $(LOCALE)/js.pot .
	for domain in messages js; do for lang in $(LANGUAGES); do \
		if [ -f $(LOCALE)/$$lang/LC_MESSAGES/$$domain.po ]; then \
			$(PYBABEL) -q update -D $$domain -l $$lang -i $(LOCALE)/$$domain.pot -d $(LOCALE) \
				--no-wrap --ignore-obsolete --no-fuzzy-matching; \
		else \
			$(PYBABEL) -q init -D $$domain -l $$lang -i $(LOCALE)/$$domain.pot -d $(LOCALE) --no-wrap; \
		fi; done; done
	@# compiled into a scratch folder only, for its checks and counts of what is translated
	tmp=$$(mktemp -d) && cp -r $(addprefix $(LOCALE)/,$(LANGUAGES)) $$tmp && \
		$(PYBABEL) compile --statistics -D messages -d $$tmp && \
		$(PYBABEL) compile --statistics -D js -d $$tmp; status=$$?; rm -rf $$tmp; exit $$status

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .mypy_cache .ruff_cache build/compiled-engine
