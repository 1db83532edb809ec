"""Test-wide settings.

MPLBACKEND is deliberately not set here: nbval's kernels inherit this environment, and they
must keep the inline backend so that notebook outputs match the stored ones. Library tests draw
on ``matplotlib.figure.Figure`` objects, which need no backend.

Exercise checks record progress; the tests (and the notebook kernels nbval starts, which
inherit this environment) write it to a throw-away file, never to the user's own record.
"""

from __future__ import annotations

import os
import tempfile

from hypothesis import settings

# Hypothesis draws the same examples on every run ("deterministic"), so that a test run is a
# verdict on the code, not on the draw; HYPOTHESIS_PROFILE=explore searches afresh each time.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

# Tiny matrices: one BLAS thread is faster and steadier (kernels started by nbval inherit it).
for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")

# One throw-away file for the whole run: under pytest-xdist the controller makes it and the
# workers (and their notebook kernels) inherit its path, so the check below sees every worker.
if "PYTEST_XDIST_WORKER" not in os.environ:
    os.environ["POSENC_PROGRESS_FILE"] = os.path.join(
        tempfile.mkdtemp(prefix="posenc-progress-"), "progress.json"
    )


def pytest_sessionfinish(session: object, exitstatus: int) -> None:
    """Fail the run if executing the source notebooks recorded an exercise as passed (checked
    once, by the controller when pytest-xdist runs workers, after they have all finished).

    nbval runs every source notebook, solution cells included, in kernels that write progress
    to the throw-away file above. A check whose answer a solution cell computed must record
    nothing, so no real exercise key may be in that file at the end.
    """
    import json

    from posenc_lib.exercises import all_exercises

    path = os.environ["POSENC_PROGRESS_FILE"]
    if "PYTEST_XDIST_WORKER" in os.environ or not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as stream:
        recorded = set(json.load(stream).get("passed", []))
    earned = sorted(recorded & set(all_exercises()))
    if earned:
        print(f"\nERROR: running the notebooks recorded exercise passes: {earned}")
        session.exitstatus = 1  # type: ignore[attr-defined]
