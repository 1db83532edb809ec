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

.PHONY: venv lab study solution test test-baseline lint notebooks figures experiments student html nbgrader formgrader bench e2e clean

venv: $(STAMP)

# constraints.txt pins the versions the stored notebook outputs and figures were made with.
# JupyterLab's news and update pop-ups are switched off for this environment (they covered the
# explorers): tools/jupyterlab_overrides.json goes where JupyterLab reads its default settings.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings
$(STAMP): pyproject.toml constraints.txt tools/jupyterlab_overrides.json
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[notebooks,lab,tests,dev,distributed]'
	mkdir -p $(LAB_SETTINGS)
	cp tools/jupyterlab_overrides.json $(LAB_SETTINGS)/overrides.json
	touch $(STAMP)

# The lab serves the repository, so notebooks/ and the student copies (build/student, after
# `make student`) are both in its file browser; it opens on notebooks/. As root (Docker, many
# JupyterHubs) Jupyter refuses to start without --allow-root.
LAB_FLAGS := --ServerApp.root_dir=$(CURDIR) --LabApp.default_url=/lab/tree/notebooks
ifeq ($(shell id -u),0)
LAB_FLAGS += --allow-root
endif

lab: $(STAMP)
	$(BIN)/jupyter lab $(LAB_FLAGS)

# Self-study: your own copies of the notebooks in study/, without the worked solutions, made the
# first time and never overwritten (your work stays; `make clean` leaves study/ alone); JupyterLab
# opens there. `make solution EX=02.half_turns` prints one worked solution when you want it.
# Study mode is for study: nbgrader's JupyterLab extension (the Nbgrader menu, the Validate button,
# the Create Assignment and formgrader panels) and its four server extensions are switched off by
# a config directory written into study/.jupyter and put first on JUPYTER_CONFIG_PATH for this
# launch only. `make lab` (teachers, see notebooks/INSTRUCTORS.md) keeps them.
STUDY_DIR ?= study
STUDY_CONFIG = $(abspath $(STUDY_DIR))/.jupyter
NBGRADER_SERVER_EXTENSIONS := formgrader validate_assignment assignment_list course_list
STUDY_FLAGS := $(filter-out --ServerApp.root_dir=% --LabApp.default_url=%,$(LAB_FLAGS)) \
	--ServerApp.root_dir=$(abspath $(STUDY_DIR)) --LabApp.default_url=/lab/tree/00_why_position.ipynb
study: $(STAMP)
	$(BIN)/python tools/build_student.py --out $(STUDY_DIR) --keep
	mkdir -p $(STUDY_CONFIG)/labconfig
	printf '{"disabledExtensions": {"@jupyter/nbgrader": true}}\n' > $(STUDY_CONFIG)/labconfig/page_config.json
	printf '{"ServerApp": {"jpserver_extensions": {%s}}}\n' \
		"$$(printf '"nbgrader.server_extensions.%s": false, ' $(NBGRADER_SERVER_EXTENSIONS) | sed 's/, $$//')" \
		> $(STUDY_CONFIG)/jupyter_server_config.json
	JUPYTER_CONFIG_PATH=$(STUDY_CONFIG) $(BIN)/jupyter lab $(STUDY_FLAGS)

solution: $(STAMP)
	$(BIN)/python tools/solution.py $(EX)

lint: $(STAMP)
	$(BIN)/ruff check posenc_lib tests tools benchmarks
	$(BIN)/mypy posenc_lib benchmarks/run.py

# nbval's options live here, not in pyproject.toml, so that `pytest tests/test_models.py` runs
# one file alone; `make test` runs the library tests, the doctests and every notebook.
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with=tests/nbval_sanitize.cfg
# pytest-xdist spreads the tests over the machine's cores; --dist loadscope keeps each notebook
# (and each test module) in one worker, its cells in order, as nbval needs. WORKERS=0: one process.
WORKERS ?= auto
PARALLEL := -n $(WORKERS) --dist loadscope

test: lint
	$(BIN)/pytest $(PARALLEL) $(NBVAL) tests posenc_lib notebooks
	$(MAKE) --no-print-directory test-baseline

# The statement tests and the notebooks that compute in a narrow float (float32, float16,
# bfloat16, float8: tools/simd_notebooks.py reads their code to find them) again with numpy's
# dispatched SIMD code paths switched off, as on a CPU without AVX2 or AVX-512: no stored digit
# may depend on the CPU. Float64 digits at rounding level are found in the stored outputs by
# tests/test_cpu_independent_outputs.py without a run. The groups to switch off are the ones
# this numpy dispatches (NPY_DISABLE_CPU_FEATURES ignores names it does not know, with only a
# hidden warning); tests/test_cpu_paths.py checks that they are off. The explorers' pictures at
# load and the catalogue figures are drawn there too (tests/test_pictures_on_every_cpu.py): the
# same pixels as stored.
NPY_DISPATCHED = $(shell $(BIN)/python -c "from numpy._core._multiarray_umath import __cpu_dispatch__ as d; print(' '.join(d))")
test-baseline: $(STAMP)
	notebooks="$$($(BIN)/python -m tools.simd_notebooks)" && \
	NPY_DISABLE_CPU_FEATURES="$(NPY_DISPATCHED)" POSENC_EXPECT_NUMPY_BASELINE=1 \
		$(BIN)/pytest $(PARALLEL) $(NBVAL) tests/test_cpu_paths.py tests/test_statements*.py \
		tests/test_pictures_on_every_cpu.py $$notebooks

notebooks: $(STAMP)
	$(BIN)/python tools/run_notebooks.py

figures: $(STAMP)
	$(BIN)/python -m posenc_lib.figures build --out figures --format svg,png
	$(BIN)/python -m posenc_lib.figures gallery --out figures

# The lab's grid (notebook 10): every scheme x task x five seeds (ten on the cells near a
# cutoff), longer trainings, RoPE's extensions, PI's fine-tune beside its control (plain RoPE
# fine-tuned without interpolation) on every task, read at eight checkpoints from 10 to 300
# steps, and T5's last bucket;
# writes results/lab_*.json and the figures results/lab_*.png that the notebook quotes. JOBS
# models train at once, one process each (the results do not depend on it). Measured: 180 models
# in 36 min with JOBS=2 (50 CPU-minutes) on 2 cores shared with a test run, so about 25-30 min
# on 2 idle cores; the rerun gave the committed JSON files byte for byte (build/lab_timings.json).
# Issue 47's fine-tunes on the three tasks past copy_back add about 6.5 CPU minutes a task (ps,
# on the induction_once rerun, which also reproduced that task's committed entries exactly).
# To rerun part: python -m posenc_lib.lab.experiments --cells copy_back/rope [--seeds 5 6].
# A whole run also does the offset part (notebook 08: RoPE read at positions up to 10^8, angles
# and rotation in low precision; results/lab_offsets.*); --offsets runs only it: 20 models, 3.2
# CPU-minutes (/usr/bin/time, JOBS=2 on 2 cores shared with other runs: 9 min wall).
# SCHEDULER=tcp://host:8786 sends the same jobs to that Dask cluster instead (dask.distributed's
# executor; the distributed extra, with posenc_lib installed on every worker): same results.
# Then issue 47's robustness check, the headline cells with 4 layers (results/lab_scale.json;
# posenc_lib/lab/scale.py says why that size and what it costs).
JOBS ?= 2
SCHEDULER ?=
experiments: $(STAMP)
	$(BIN)/python -m posenc_lib.lab.experiments --jobs $(JOBS)$(if $(SCHEDULER), --scheduler $(SCHEDULER))
	$(BIN)/python -m posenc_lib.lab.scale --jobs $(JOBS)

# The student copies (notebooks without solutions) and the student site (offline HTML).
student: $(STAMP)
	$(BIN)/python tools/build_student.py --out build/student
	$(BIN)/python tools/build_html.py --student --out build/student-html

# The full course as an offline site, solutions included (for instructors).
html: $(STAMP)
	$(BIN)/python tools/build_html.py --out build/html

# nbgrader's course directory; then: cd build/nbgrader && nbgrader generate_assignment NN_name
# (with .venv/bin on the PATH: nbgrader calls alembic). See notebooks/INSTRUCTORS.md. Some
# exercises are posed with values drawn from the instructor seed: drawn at random by the first
# build into build/nbgrader/instructor_seed.txt and kept by later builds; SEED=n sets it. It also
# writes the sandboxed grading kernel (build/nbgrader/sandbox/, tools/sandbox.py: bubblewrap,
# installed by tools/e2e_setup.sh) and the config that makes autograde run in it and score the
# answers outside it (tools/grader.py).
SEED ?=
nbgrader: $(STAMP)
	$(BIN)/python tools/build_nbgrader.py --out build/nbgrader $(if $(SEED),--seed $(SEED))

# nbgrader's formgrader for the teacher (grade the written answers, read the submissions): a
# JupyterLab on the course directory that `make nbgrader` wrote, opened at /formgrader.
formgrader: $(STAMP)
	test -f build/nbgrader/nbgrader_config.py || $(MAKE) nbgrader
	cd build/nbgrader && PATH="$(CURDIR)/$(BIN):$$PATH" $(CURDIR)/$(BIN)/jupyter lab \
		$(filter --allow-root,$(LAB_FLAGS)) --ServerApp.root_dir=$(CURDIR)/build/nbgrader \
		--LabApp.default_url=/formgrader

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py --out build/bench.json

# Each xdist worker starts its own JupyterLab and Chromium (tests/e2e/conftest.py) and builds the
# static sites its tests need; the tests are spread one by one (--dist load). Not loadgroup:
# with pytest 9.2, xdist 3.8's xdist_group marks are silently ignored. WORKERS=0: one process.
e2e: $(STAMP)
	bash tools/e2e_setup.sh
	$(BIN)/pytest -n $(WORKERS) --dist load tests/e2e -m e2e -v --durations=15

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache .hypothesis
