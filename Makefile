# Two commands set everything up on a fresh machine with Python 3.10+:
#   make course   execute the notebooks headlessly on the offline corpus and write figures/
#   make test     run the test suite
#   make site     build the course as a static website (executed notebooks, search) into build/site/
#   make slides   export a reveal.js deck per notebook and a walkthrough into build/slides/ (offline)
# Both publish the student edition (no solutions); with TEACHER=1 (make site TEACHER=1), the
# teacher's notebooks into build/site-teacher/ and build/slides-teacher/.
# Each creates a local virtual environment in .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Workers of `make test`'s first pass (see the README): the course's machine has 2 cores.
TEST_WORKERS ?= 2
TEACHER ?=
TEACHER_FLAG := $(if $(TEACHER),--teacher)

.PHONY: course test lint site slides stubs guide clean-venv

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "bpe_course needs Python 3.10 or newer; found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	@touch $(STAMP)

course: $(STAMP)
	$(BIN)/python -m bpe_course course

test: $(STAMP)
	@# reveal.js for the slides' browser test (from npm, once); without it that test is skipped.
	$(BIN)/python -m bpe_course slides --fetch-only || echo "WARNING: no reveal.js (is npm installed?): the slides' browser test will be skipped" >&2
	@# Two passes, the second run even when the first fails: every test but those marked serial
	@# on $(TEST_WORKERS) workers (pytest-xdist), then the serial ones (the browser's) alone.
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup -m "not serial"; parallel=$$?; \
	$(BIN)/python -m pytest -m serial; serial=$$?; \
	test $$parallel -eq 0 && test $$serial -eq 0

$(VENV)/.installed-%: $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[$*]'
	@touch $@

site: $(VENV)/.installed-site
	$(BIN)/python -m bpe_course site $(TEACHER_FLAG)

slides: $(VENV)/.installed-slides
	$(BIN)/python -m bpe_course slides $(TEACHER_FLAG)

# The exercises' stubs (notebooks/exercises/), made from the package's solutions.
stubs: $(STAMP)
	$(BIN)/python -m bpe_course.course.exercises.stubs

# TEACHING.md's figures and tables, written from the stored results (notebooks/results/).
guide: $(STAMP)
	$(BIN)/python -m bpe_course.course.publish.guide

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

clean-venv:
	rm -rf $(VENV)
