# Every target builds .venv first when it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# One BLAS thread: the course's matrices are tiny, and on a 2-core machine a threaded BLAS
# spends more time waking threads than computing (stalls of a second were measured).
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1

.PHONY: venv lab test lint notebooks figures experiments student html bench e2e clean

venv: $(STAMP)

# constraints.txt pins the versions the stored notebook outputs and figures were made with.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

lint: $(STAMP)
	$(BIN)/ruff check posenc_lib tests tools benchmarks
	$(BIN)/mypy posenc_lib

test: lint
	$(BIN)/pytest

notebooks: $(STAMP)
	$(BIN)/python tools/run_notebooks.py

figures: $(STAMP)
	$(BIN)/python -m posenc_lib.figures build --out figures --format svg,png
	$(BIN)/python -m posenc_lib.figures gallery --out figures

# The lab's grid (notebook 10): every scheme x task x seed; writes results/lab_*.json and the
# figures results/lab_*.png that the notebook quotes. About 20-30 minutes on 2 cores.
experiments: $(STAMP)
	$(BIN)/python -m posenc_lib.lab.experiments --out results --figures results

student: $(STAMP)
	$(BIN)/python tools/build_student.py --out build/student

html: $(STAMP)
	$(BIN)/python tools/build_html.py --out build/html

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py --out build/bench.json

e2e: $(STAMP)
	bash tools/e2e_setup.sh
	$(BIN)/pytest tests/e2e -m e2e -v

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache .hypothesis
