"""The rule that picks the notebooks `make test-baseline` runs with numpy's SIMD paths off
(tools/simd_notebooks.py): every notebook that computes in a narrow float, and only those."""

from __future__ import annotations

import pytest

from tools.notebook_cells import NOTEBOOKS
from tools.simd_notebooks import narrow_float_reasons, simd_notebooks


def _code(text: str) -> list[dict]:
    return [{"cell_type": "code", "source": text, "metadata": {}, "outputs": []}]


@pytest.mark.parametrize("code", [
    "import numpy as np\nx = np.sin(np.arange(8, dtype=np.float32))",
    "angles = positions.astype('float16') * theta",
    "import ml_dtypes\ny = x.astype(ml_dtypes.bfloat16)",
    "from posenc_lib.precision import round_to_bfloat16\nround_to_bfloat16(1.1)",
    "from posenc_lib.low_precision import tile_scaled_e4m3",
    "from posenc_lib.exercises import nb08",
    "%matplotlib inline\nfrom posenc_lib.rope import apply_rope",
])
def test_code_that_computes_in_a_narrow_float_needs_the_simd_off_run(code: str) -> None:
    assert narrow_float_reasons(_code(code))


@pytest.mark.parametrize("code", [
    # sinusoidal_encoding's docstring lists float16 and float32 among the dtypes it accepts:
    # called without one it computes in float64
    "from posenc_lib.sinusoidal import sinusoidal_encoding\npe = sinusoidal_encoding(8, 4)",
    "from posenc_lib.frequencies import inverse_frequencies, wavelengths",
    "from posenc_lib.exercises import nb00",
    "import numpy as np\nprint(np.sin(np.arange(4.0)))",
])
def test_float64_code_does_not(code: str) -> None:
    assert narrow_float_reasons(_code(code)) == []


def test_markdown_naming_a_format_is_not_code() -> None:
    cell = {"cell_type": "markdown", "source": "float16 keeps 11 bits", "metadata": {}}
    assert narrow_float_reasons([cell]) == []


def test_the_precision_notebook_is_among_them_and_some_notebooks_are_not() -> None:
    chosen = {path.name[:2] for path in simd_notebooks()}
    assert {"02", "08"} <= chosen  # 02's float32 frequencies, 08's every format
    assert chosen < {path.name[:2] for path in NOTEBOOKS}
