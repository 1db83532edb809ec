"""numpy's dispatched SIMD code paths can be switched off, and `make test-baseline` does so.

`make test-baseline` runs the statement tests and the notebooks that compute in a narrow float
(tools/simd_notebooks.py) with NPY_DISABLE_CPU_FEATURES set to every group this numpy
dispatches (and POSENC_EXPECT_NUMPY_BASELINE=1), so that a stored digit that depends on the
CPU's vector width fails there. numpy ignores a name it does not know with only a hidden
warning, so the tests below check through ``__cpu_features__`` that the switch really took
effect, in this process and in a fresh one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

_PROBE = (
    "import json; from numpy._core._multiarray_umath import __cpu_dispatch__ as d, "
    "__cpu_features__ as f; print(json.dumps({name: bool(f.get(name)) for name in d}))"
)


def _dispatched_groups_in_a_fresh_process(disabled: str | None) -> dict[str, bool]:
    environment = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    if disabled is not None:
        environment["NPY_DISABLE_CPU_FEATURES"] = disabled
    output = subprocess.run([sys.executable, "-c", _PROBE], env=environment, check=True,
                            capture_output=True, text=True).stdout
    return json.loads(output)


def test_disabling_every_dispatched_group_switches_each_one_off():
    if not __cpu_dispatch__:
        pytest.fail("this numpy dispatches no SIMD group: nothing to switch off")
    states = _dispatched_groups_in_a_fresh_process(" ".join(__cpu_dispatch__))
    assert not any(states.values()), f"still on after NPY_DISABLE_CPU_FEATURES: {states}"


def test_a_single_feature_name_is_not_enough():
    """Why the Makefile passes group names: on x86-64 'AVX2' alone leaves X86_V3 on."""
    if "X86_V3" not in __cpu_dispatch__ or not __cpu_features__.get("X86_V3"):
        pytest.skip("only meaningful on an x86-64 CPU with AVX2")
    assert _dispatched_groups_in_a_fresh_process("AVX2")["X86_V3"]


def test_the_groups_this_run_disables_are_off() -> None:
    """Every dispatched group named in NPY_DISABLE_CPU_FEATURES is off in this process; under
    `make test-baseline` that is every group this numpy dispatches."""
    listed = set(os.environ.get("NPY_DISABLE_CPU_FEATURES", "").replace(",", " ").split())
    disabled = listed & set(__cpu_dispatch__)
    if os.environ.get("POSENC_EXPECT_NUMPY_BASELINE") == "1":
        assert disabled == set(__cpu_dispatch__), f"make test-baseline leaves on: {disabled}"
    still_on = sorted(name for name in disabled if __cpu_features__.get(name))
    assert not still_on, f"NPY_DISABLE_CPU_FEATURES did not take effect for {still_on}"
