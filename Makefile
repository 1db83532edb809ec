# Every target builds .venv first when it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: venv lab test lint notebooks figures student html bench e2e clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

lint: $(STAMP)
	$(BIN)/ruff check posenc_lib tests
	$(BIN)/mypy posenc_lib

test: lint
	$(BIN)/pytest

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache .hypothesis
