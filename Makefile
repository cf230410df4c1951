# Every target bootstraps its own virtual environment on first use (and when pyproject.toml changes).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run check test test-fast bench demo clean messages

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

PLUGINS_STAMP := $(VENV)/.test-plugins
TEST_PLUGINS := $(wildcard tests/plugins/*/pyproject.toml)

$(PLUGINS_STAMP): $(STAMP) $(TEST_PLUGINS)  ## the tests' own rulesets (the fake), each a package found by its entry point
	$(BIN)/pip install --quiet $(foreach p,$(TEST_PLUGINS),-e $(dir $(p)))
	touch $(PLUGINS_STAMP)

NODE_STAMP := node_modules/.installed

$(NODE_STAMP): package.json package-lock.json  ## axe-core for the browser tests' accessibility checks
	@if command -v npm >/dev/null 2>&1; then npm ci --no-audit --no-fund --silent && touch $(NODE_STAMP); \
	else echo "npm is not installed: the browser tests' axe checks will skip (CI installs it)"; fi

run: $(STAMP)  ## the service on http://127.0.0.1:8000, embedded SQLite store in ./data
	$(BIN)/emissary serve

check: $(STAMP)  ## lint and import order (ruff check), format (ruff format) and types (mypy, with the pydantic plugin, on the files pyproject lists); fix with `ruff check --fix . && ruff format .`
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: check $(NODE_STAMP) $(PLUGINS_STAMP)  ## the checks, then the whole suite (PostgreSQL tests run when it is reachable, and always in CI)
	$(BIN)/pytest

test-fast: $(PLUGINS_STAMP)  ## domain tests only: no database
	$(BIN)/pytest tests/domain

bench: $(STAMP)  ## speed ratios, one `name: value` line per figure (ONLY=name: just that figure's group)
	$(BIN)/python tests/bench.py $(if $(ONLY),--only $(ONLY))

messages: $(STAMP)  ## extract every marked phrase into api/locale/messages.pot and merge it into each catalog
	$(BIN)/pybabel --quiet extract -F babel.cfg --add-comments=TRANSLATORS: -k _ -k N_ -k ngettext:1,2 -o api/locale/messages.pot --no-location --sort-output .
	$(BIN)/pybabel --quiet update -i api/locale/messages.pot -d api/locale --no-fuzzy-matching

demo: $(STAMP)
	$(BIN)/emissary demo

clean:
	rm -rf $(VENV) data .pytest_cache .hypothesis test-output .mypy_cache .ruff_cache
