# Two commands set everything up on a fresh machine with Python 3.10+:
#   make course   execute the notebooks headlessly on the offline corpus and write figures/
#   make test     run the test suite
# Both create a local virtual environment in .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: course test lint clean-venv

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "bpe_course needs Python 3.10 or newer; found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	@touch $(STAMP)

course: $(STAMP)
	$(BIN)/python -m bpe_course course

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean-venv:
	rm -rf $(VENV)
