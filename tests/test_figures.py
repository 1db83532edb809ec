"""Tests of the figure registry: every figure builds, deterministically, with the right data.

The data checks compare what each figure draws with the formula written out independently in
this file (Python's math in loops, the source's own loop), not with values pasted from the code.
"""

from __future__ import annotations

import cmath
import inspect
import math
import re
from pathlib import Path

import matplotlib
import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

from posenc_lib import binary, rope, scaling, sinusoidal
from posenc_lib.figures import REGISTRY, build_figure, get_figure
from posenc_lib.figures.gallery import _gallery_markdown
from posenc_lib.figures.registry import _coerce_parameter, parse_parameter
from posenc_lib.frequencies import split_permutation
from posenc_lib.plots import course_style, save_figure
from tools.notebook_cells import ROOT, load, source

matplotlib.use("Agg")

FIGURES_DIR = Path(__file__).resolve().parents[1] / "figures"
NAMES = list(REGISTRY)
RMS_TOLERANCE = 1.0  # on the 0..255 scale; a stale or changed figure differs far more


def _pe(pos: float, j: int, d: int, base: float = 10000.0) -> float:
    """PE(pos, j) from the paper, written element by element."""
    i = j // 2
    angle = pos / base ** (2 * i / d)
    return math.sin(angle) if j % 2 == 0 else math.cos(angle)


def _pe_matrix(n: int, d: int, base: float = 10000.0) -> np.ndarray:
    return np.array([[_pe(p, j, d, base) for j in range(d)] for p in range(n)])


def _source_002_loop(max_time: int, dim: int) -> np.ndarray:
    """Write-up 002's loop, as the source computes it (exponent i/dim for even i)."""
    rows = []
    for time in range(max_time):
        row = []
        for i in range(dim):
            if i % 2 == 0:
                row.append(math.sin(time / 10000 ** (i / dim)))
            else:
                row.append(math.cos(time / 10000 ** ((i - 1) / dim)))
        rows.append(row)
    return np.array(rows)


def _lines(ax) -> dict[str, object]:
    return {
        line.get_label(): line for line in ax.get_lines() if not line.get_label().startswith("_")
    }


# --------------------------------------------------------------------------- the registry


def test_every_seed_figure_is_registered():
    sources = {spec.source for spec in REGISTRY.values()}
    expected = {
        "000 fig 1", "000 fig 2", "000 fig 3", "000 fig 4", "000 fig 5.1", "000 fig 5.2",
        "001 sine/cosine waves", "001 d_model=4 table", "001 binary table",
        "002 heatmap",
        "003 figure 2", "003 binary table", "003 figure 3",
    }  # fmt: skip
    assert expected <= sources
    course = [spec.name for spec in REGISTRY.values() if spec.source == "course"]
    assert set(course) == {"frequency_ratio", "rope_decay_bound", "unit_circle_rotation"}
    long_context = [spec for spec in REGISTRY.values() if spec.source.startswith("notebook")]
    assert {spec.source for spec in long_context} == {f"notebook 0{n}" for n in (6, 7, 8, 9)}
    assert len(long_context) >= 8  # issue 34: at least 8 figures of notebooks 06-09


@pytest.mark.parametrize("name", NAMES)
def test_entry_is_well_formed(name):
    spec = get_figure(name)
    assert spec.name == name and name.isidentifier()
    assert spec.source.split()[0] in {"000", "001", "002", "003", "course", "notebook"}
    if spec.source.startswith("notebook"):
        assert spec.look_for and "\n" not in spec.look_for, "what to look for, in one line"
    assert spec.description and "\n" not in spec.description and len(spec.description) <= 100
    assert spec.defaults, "every figure exposes parameters"
    for key, default in spec.defaults.items():
        assert isinstance(default, (bool, int, float, str, tuple)), key
    assert spec.command() == (
        f"python -m posenc_lib.figures build {name} --out figures --format svg,png"
    )


def test_get_figure_unknown_name_lists_known_ones():
    with pytest.raises(ValueError, match="unknown figure 'nope'.*division_term"):
        get_figure("nope")


def test_parameters_are_type_checked():
    with pytest.raises(ValueError, match="unknown parameter 'colour'"):
        build_figure("heatmap_002", colour="red")
    with pytest.raises(TypeError, match="heatmap_002.d_model must be int"):
        build_figure("heatmap_002", d_model=64.0)
    with pytest.raises(TypeError, match="d_model must be int"):
        build_figure("heatmap_002", d_model=True)
    with pytest.raises(TypeError, match="cmap must be str"):
        build_figure("heatmap_002", cmap=3)
    with pytest.raises(ValueError, match="base must be a finite number"):
        build_figure("heatmap_002", base=float("nan"))
    with pytest.raises(TypeError, match="positions must be a comma-separated tuple of int"):
        build_figure("theta_offsets", positions=(0.5, 1.5))
    assert _coerce_parameter(get_figure("division_term"), "base", 100) == 100.0
    assert _coerce_parameter(get_figure("theta_offsets"), "positions", [1, 2]) == (1, 2)


def test_invalid_values_are_rejected_by_the_math():
    with pytest.raises(ValueError, match="d_model"):
        build_figure("heatmap_000", d_model=7)
    with pytest.raises(ValueError, match="base"):
        build_figure("division_term", base=1.0)


@pytest.mark.parametrize(
    ("name", "key", "text", "expected"),
    [
        ("heatmap_002", "d_model", "256", 256),
        ("heatmap_002", "base", "1e4", 10000.0),
        ("heatmap_002", "cmap", "viridis", "viridis"),
        ("theta_offsets", "positions", "0, 10,20", (0, 10, 20)),
        ("heatmap_002", "figsize", "8,5", (8.0, 5.0)),
        ("embedding_schematic", "sentence", "a b c", "a b c"),
    ],
)
def test_parse_parameter(name, key, text, expected):
    value = parse_parameter(get_figure(name), key, text)
    assert value == expected and type(value) is type(expected)


def test_parse_bool():
    from posenc_lib.figures.registry import FigureSpec

    def fake(*, flag: bool = False) -> Figure:
        return Figure()

    spec = FigureSpec("fake", "course", "test", fake)
    assert parse_parameter(spec, "flag", "true") is True
    assert parse_parameter(spec, "flag", "No") is False
    with pytest.raises(TypeError, match="flag must be bool"):
        parse_parameter(spec, "flag", "maybe")


@pytest.mark.parametrize(
    ("name", "key", "text", "error"),
    [
        ("heatmap_002", "d_model", "abc", TypeError),
        ("heatmap_002", "d_model", "3.5", TypeError),
        ("heatmap_002", "base", "ten", TypeError),
        ("theta_offsets", "positions", "a,b", TypeError),
        ("theta_offsets", "positions", "", TypeError),
        ("heatmap_002", "nope", "1", ValueError),
    ],
)
def test_parse_parameter_rejects(name, key, text, error):
    with pytest.raises(error, match=key):
        parse_parameter(get_figure(name), key, text)


def test_register_rejects_bad_functions():
    from posenc_lib.figures.registry import register

    with pytest.raises(TypeError, match="keyword-only"):

        @register("bad_positional", source="course", description="x")
        def bad(d_model=4):  # pragma: no cover - never called
            return Figure()

    with pytest.raises(TypeError, match="must default"):

        @register("bad_default", source="course", description="x")
        def bad_default(*, d_model=None):  # pragma: no cover - never called
            return Figure()

    with pytest.raises(ValueError, match="name"):
        register("division_term", source="course", description="duplicate")
    assert "bad_positional" not in REGISTRY and "bad_default" not in REGISTRY


# ------------------------------------------- committed figures, and a second build, same bytes


def _rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((255.0 * (a - b)) ** 2)))


HEADERS = {"svg": b"<?xml", "png": b"\x89PNG", "pdf": b"%PDF"}


@pytest.mark.parametrize(("index", "name"), list(enumerate(NAMES)))
def test_committed_png_matches_the_code_and_a_rebuild_gives_the_same_bytes(tmp_path, index, name):
    """Every figure: built without pyplot, its committed PNG is what the code draws now, and a
    second build saves the same bytes in one format, rotating over svg, png and pdf from figure
    to figure (test_plots checks all three formats on one figure, in one process and in two);
    where the format is svg, the committed svg is those bytes too."""
    committed = FIGURES_DIR / f"{name}.png"
    assert committed.is_file(), f"{committed} is missing: run `make figures`"
    assert (FIGURES_DIR / f"{name}.svg").is_file(), f"{name}.svg is missing: run `make figures`"
    before = plt.get_fignums()
    with course_style():
        first = build_figure(name)
        assert isinstance(first, Figure)
        assert plt.get_fignums() == before, "registry figures must not go through pyplot"
        fresh = save_figure(first, tmp_path / f"{name}.png")
        old, new = mpimg.imread(committed), mpimg.imread(fresh)
        assert old.shape == new.shape, f"{name}.png has another size: run `make figures`"
        assert _rms(old, new) < RMS_TOLERANCE, f"{name}.png is stale: run `make figures`"
        fmt = ("svg", "png", "pdf")[index % 3]
        dpi = None if fmt == "svg" else 30  # an svg as `make figures` saves it, to compare below
        saved = save_figure(first, tmp_path / f"a.{fmt}", dpi=dpi).read_bytes()
        again = save_figure(build_figure(name), tmp_path / f"b.{fmt}", dpi=dpi).read_bytes()
    assert saved.lstrip().startswith(HEADERS[fmt])
    assert again == saved, f"{name}.{fmt} differs between two builds"
    if fmt == "svg":  # the committed svg is what the code draws now, to the byte
        committed_svg = (FIGURES_DIR / f"{name}.svg").read_bytes()
        assert saved == committed_svg, f"{name}.svg is stale: run `make figures`"


def test_rms_check_catches_a_changed_figure(tmp_path):
    with course_style():
        default = save_figure(build_figure("division_term"), tmp_path / "a.png", dpi=50)
        changed = save_figure(build_figure("division_term", base=100.0), tmp_path / "b.png", dpi=50)
    assert _rms(mpimg.imread(default), mpimg.imread(changed)) > 5 * RMS_TOLERANCE


def test_committed_gallery_is_current():
    readme = FIGURES_DIR / "README.md"
    assert readme.read_text(encoding="utf-8") == _gallery_markdown(out="figures")
    expected = {f"{name}.{fmt}" for name in NAMES for fmt in ("svg", "png")} | {"README.md"}
    assert {p.name for p in FIGURES_DIR.iterdir()} == expected


# --------------------------------------------------------------------------- data, figure by figure


def test_division_term_data():
    ax = build_figure("division_term").axes[0]
    (line,) = ax.get_lines()
    expected = [1.0 / 10000 ** (2 * i / 512) for i in range(256)]
    np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)
    np.testing.assert_array_equal(line.get_xdata(), np.arange(256))
    assert line.get_ydata()[0] == 1.0 and 0 < line.get_ydata()[-1] < 1e-3


def test_theta_offsets_data():
    ax = build_figure("theta_offsets").axes[0]
    lines = _lines(ax)
    assert list(lines) == [f"pos {p}" for p in range(5)]
    for p in range(5):
        expected = [p / 10000 ** (2 * i / 512) for i in range(256)]
        np.testing.assert_allclose(lines[f"pos {p}"].get_ydata(), expected, rtol=1e-12)
        assert lines[f"pos {p}"].get_ydata()[0] == p  # theta starts at pos


def test_even_sin_odd_cos_data():
    ax = build_figure("even_sin_odd_cos", positions=(0, 3, 9)).axes[0]
    lines = _lines(ax)
    for p in (0, 3, 9):
        sines = [math.sin(p / 10000 ** (2 * i / 512)) for i in range(256)]
        cosines = [math.cos(p / 10000 ** (2 * i / 512)) for i in range(256)]
        np.testing.assert_allclose(lines[f"pos {p}: sin"].get_ydata(), sines, atol=1e-12)
        np.testing.assert_allclose(lines[f"pos {p}: cos"].get_ydata(), cosines, atol=1e-12)


def test_value_by_dimension_data():
    # sine columns (j even) on the top axes, cosine columns (j odd) below, each at its own j
    expected = _pe_matrix(5, 512)
    for ax, first in zip(build_figure("value_by_dimension").axes, (0, 1), strict=True):
        lines = _lines(ax)
        for p in range(5):
            np.testing.assert_allclose(
                lines[f"pos {p}"].get_ydata(), expected[p, first::2], atol=1e-12
            )
            np.testing.assert_array_equal(lines[f"pos {p}"].get_xdata(), np.arange(first, 512, 2))


def test_heatmap_000_data():
    ax = build_figure("heatmap_000").axes[0]
    image = ax.images[0]
    assert image.get_array().shape == (100, 512)
    np.testing.assert_allclose(image.get_array(), _pe_matrix(100, 512), atol=1e-12)
    np.testing.assert_array_equal(image.get_array(), sinusoidal.sinusoidal_encoding(100, 512))
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Dimension", "Position")
    assert image.colorbar is not None


def test_heatmap_000_concat_layout_is_a_permutation():
    image = build_figure("heatmap_000", layout="concat", n_positions=20, d_model=16)
    data = image.axes[0].images[0].get_array()
    perm = split_permutation(16)
    np.testing.assert_allclose(data, _pe_matrix(20, 16)[:, perm], atol=1e-12)


def test_heatmap_002_data_matches_the_source_loop():
    ax = build_figure("heatmap_002").axes[0]
    image = ax.images[0]
    assert image.get_array().shape == (300, 100)
    np.testing.assert_allclose(image.get_array(), _source_002_loop(100, 300).T, atol=1e-12)
    np.testing.assert_array_equal(image.get_array(), sinusoidal.sinusoidal_encoding(100, 300).T)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Position", "Dimension")
    assert image.get_cmap().name == "coolwarm"
    assert image.colorbar is not None


def test_heatmap_002_parameters_change_the_picture():
    image = build_figure("heatmap_002", d_model=64, n_positions=30, cmap="viridis")
    data = image.axes[0].images[0]
    assert data.get_array().shape == (64, 30)
    assert data.get_cmap().name == "viridis"


def test_heatmap_003_data():
    ax = build_figure("heatmap_003").axes[0]
    image = ax.images[0]
    assert image.get_array().shape == (50, 128)  # one row per position vector p_t
    np.testing.assert_allclose(image.get_array(), _pe_matrix(50, 128), atol=1e-12)


def test_dot_product_matrix_is_symmetric_toeplitz():
    ax = build_figure("dot_product_matrix").axes[0]
    matrix = np.asarray(ax.images[0].get_array())
    n, d = 50, 128
    assert matrix.shape == (n, n)
    np.testing.assert_allclose(matrix, matrix.T, atol=1e-12)
    for k in range(-n + 1, n):
        diagonal = np.diagonal(matrix, offset=k)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-9)
    omegas = [10000 ** (-2 * i / d) for i in range(d // 2)]
    for k in (0, 1, 7, 49):
        # PE(t)·PE(t+k) = sum_i cos(omega_i k)
        assert matrix[0, k] == pytest.approx(sum(math.cos(w * k) for w in omegas), abs=1e-9)
    np.testing.assert_allclose(np.diag(matrix), d / 2)


def test_stacked_waves_data():
    ax = build_figure("stacked_waves").axes[0]
    x = np.linspace(0.0, 10.0, 501)
    waves = [line for line in ax.get_lines() if len(line.get_xdata()) == 501]
    markers = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert len(waves) == 4 and len(markers) == 4
    offsets = [tick for tick in ax.get_yticks()]
    for j in range(4):
        expected = [_pe(float(pos), j, 4) for pos in x]
        np.testing.assert_allclose(waves[j].get_ydata() - offsets[j], expected, atol=1e-12)
        np.testing.assert_array_equal(markers[j].get_xdata(), [0, 1, 2])
    # token 1 reads sin(1), cos(1), sin(0.01), cos(0.01) off the four waves (write-up 001)
    published = [0.84147098, 0.54030231, 0.00999983, 0.99995]
    for j, value in enumerate(published):
        assert markers[j].get_ydata()[1] - offsets[j] == pytest.approx(value, abs=1e-8)


def test_table_d_model_4_values_and_labels():
    ax = build_figure("table_d_model_4").axes[0]
    table = ax.tables[0]
    rows = [table[r, -1].get_text().get_text() for r in range(1, 5)]
    assert rows == ["pos 0", "pos 1", "pos 2", "pos 3"]  # the source's last row says "pos 4"
    published = [
        [0.0, 1.0, 0.0, 1.0],
        [0.84147098, 0.54030231, 0.00999983, 0.99995],
        [0.90929743, -0.41614684, 0.01999867, 0.99980001],
        [0.14112001, -0.9899925, 0.0299955, 0.99955003],
    ]
    for r in range(4):
        for c in range(4):
            assert float(table[r + 1, c].get_text().get_text()) == pytest.approx(
                published[r][c], abs=1e-8
            )
    headers = [table[0, c].get_text().get_text() for c in range(4)]
    assert headers == ["sin, i=0", "cos, i=0", "sin, i=1", "cos, i=1"]


def _digits(ax) -> np.ndarray:
    texts = [t.get_text() for t in ax.texts]
    return np.array([int(t) for t in texts]).reshape(-1, 4)


def test_binary_table_data():
    fig = build_figure("binary_table")
    (ax,) = fig.axes
    expected = np.array([[int(c) for c in format(p, "04b")] for p in range(16)])
    np.testing.assert_array_equal(_digits(ax), expected)
    np.testing.assert_array_equal(ax.images[0].get_array(), expected)
    np.testing.assert_array_equal(ax.images[0].get_array(), binary.binary_table(16, 4))


def test_binary_bit_rate_data():
    fig = build_figure("binary_bit_rate")
    assert len(fig.axes) == 2  # 0..7 and 8..15 side by side, as in write-up 003
    bits = np.vstack([_digits(ax) for ax in fig.axes])
    expected = np.array([[int(c) for c in format(p, "04b")] for p in range(16)])
    np.testing.assert_array_equal(bits, expected)
    periods = np.array([2 ** (k + 1) for k in (3, 2, 1, 0)])  # column j holds bit 3 - j
    colours = np.vstack([ax.images[0].get_array().filled(0.0) for ax in fig.axes])
    np.testing.assert_allclose(colours, expected / periods)
    labels = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert labels == [str(p) for p in range(8, 16)]


def test_frequency_ratio_data():
    ax = build_figure("frequency_ratio").axes[0]
    lines = {label: line.get_ydata() for label, line in _lines(ax).items()}
    assert set(lines) == {"default", "linear", "ntk", "dynamic (factor 1)", "yarn", "llama3"}
    d, s, length = 128, 8.0, 4096  # notebook 06's example
    pair = np.arange(d // 2)
    np.testing.assert_allclose(lines["default"], 1.0)
    np.testing.assert_allclose(lines["linear"], 1 / s)  # PI divides every pair by s
    # NTK-aware: theta'_i / theta_i = s^(-2i/(d-2))
    np.testing.assert_allclose(lines["ntk"], s ** (-2 * pair / (d - 2)), rtol=1e-12)
    # dynamic with factor 1 at l = sL: s_eff = l / L = s, so it is NTK-aware with s
    np.testing.assert_allclose(lines["dynamic (factor 1)"], lines["ntk"], rtol=1e-12)
    for method, extra in (("yarn", {}), ("llama3", {"low_freq_factor": 1.0,
                                                    "high_freq_factor": 4.0})):
        config = {"rope_type": method, "factor": s, "original_max_position_embeddings": length}
        expected = scaling.rope_frequencies(d, 10000.0, {**config, **extra})[0]
        np.testing.assert_allclose(lines[method], expected / 10000.0 ** (-2 * pair / d),
                                   rtol=1e-12)


def test_frequency_ratio_parameters():
    ax = build_figure("frequency_ratio", methods=("linear",), factor=8.0, head_dim=64).axes[0]
    (line,) = _lines(ax).values()
    assert len(line.get_ydata()) == 32
    np.testing.assert_allclose(line.get_ydata(), 1 / 8)


def _notebook_06_table() -> tuple[dict[str, str], dict[str, list[float]]]:
    """The running example and the printed ratio table of notebook 06, as stored."""
    cells = load(ROOT / "notebooks" / "06_context_extension.ipynb")["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    example = next(source(c) for c in code if source(c).startswith("d, base = "))
    d, base = re.search(r"^d, base = (\d+), ([\d.]+)", example, re.M).groups()  # type: ignore
    length = re.search(r"^L = (\d+)", example, re.M).group(1)  # type: ignore[union-attr]
    factor = re.search(r"^s = ([\d.]+)", example, re.M).group(1)  # type: ignore[union-attr]
    values = {"d": d, "base": base, "L": length, "s": factor}
    chart = next(c for c in code if "method_frequency_ratios(d, base, s, L" in source(c))
    printed = "".join("".join(o.get("text", "")) for o in chart["outputs"])
    table = {}
    for line in printed.splitlines()[1:]:
        label, numbers = line[:24].strip(), line[24:].split()
        table[label] = [float(x) for x in numbers]
    return values, table


def test_frequency_ratio_figure_equals_what_notebook_06_draws():
    parameters = inspect.signature(REGISTRY["frequency_ratio"].function).parameters
    values, table = _notebook_06_table()
    assert parameters["head_dim"].default == int(values["d"])
    assert parameters["base"].default == float(values["base"])
    assert parameters["factor"].default == float(values["s"])
    assert parameters["trained_length"].default == int(values["L"])
    lines = _lines(build_figure("frequency_ratio").axes[0])
    # notebook 06 prints the derived methods, and the figure draws exactly those (LongRoPE's
    # factors are searched per model: 06 teaches it with Phi-3.5-mini's real lists)
    assert set(table) == set(lines), set(lines)
    for label, printed in table.items():
        drawn = lines[label].get_ydata()[[0, 20, 40, 63]]
        np.testing.assert_allclose(drawn, printed, atol=5e-5, err_msg=label)


def _roformer_bound(m: int, d: int, base: float = 10000.0) -> float:
    theta = [base ** (-2 * k / d) for k in range(d // 2)]
    partial, total = 0j, 0.0
    for t in theta:
        partial += cmath.exp(1j * m * t)  # S_j = sum_{k<j} exp(i m theta_k)
        total += abs(partial)
    return total / (d / 2)


def test_rope_decay_bound_data():
    ax = build_figure("rope_decay_bound").axes[0]
    (line,) = ax.get_lines()
    y = line.get_ydata()
    assert len(y) == 1025
    assert y[0] == pytest.approx((64 + 1) / 2)  # S_j = j at distance 0
    for m in (1, 10, 100, 1000):
        assert y[m] == pytest.approx(_roformer_bound(m, 128), rel=1e-9)
    np.testing.assert_allclose(y, rope.rope_decay_bound(np.arange(1025), 128))
    assert np.any(np.diff(y) > 0), "the bound is not monotonic"


def test_unit_circle_rotation_data():
    ax = build_figure("unit_circle_rotation").axes[0]
    points = [line for line in ax.get_lines() if line.get_marker() == "o"]
    start, end = (line.get_xydata()[0] for line in points)
    np.testing.assert_allclose(start, [math.cos(0.5), math.sin(0.5)], atol=1e-12)
    np.testing.assert_allclose(end, [math.cos(1.5), math.sin(1.5)], atol=1e-12)
    moved = build_figure("unit_circle_rotation", offset=-1.0).axes[0]
    end = [line for line in moved.get_lines() if line.get_marker() == "o"][1].get_xydata()[0]
    np.testing.assert_allclose(end, [1.0, 0.0], atol=1e-12)


def test_embedding_schematic_data():
    ax = build_figure("embedding_schematic").axes[0]
    images = ax.images
    assert len(images) == 3 * 6  # e, p, w for each of the six words
    words = [t.get_text() for t in ax.texts if t.get_text().isalpha()]
    assert words == "the cat was chasing the mouse".split()
    expected = _pe_matrix(6, 16)
    for n in range(6):
        e, p, w = (images[3 * n + k].get_array().ravel() for k in range(3))
        np.testing.assert_allclose(p, expected[n], atol=1e-12)
        np.testing.assert_allclose(w, e + p, atol=1e-12)


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("binary_table", {"columns": 0}, "columns"),
        ("binary_bit_rate", {"columns": 20}, "columns"),
        ("stacked_waves", {"length": -1.0}, "length"),
        ("stacked_waves", {"n_tokens": 0}, "n_tokens"),
        ("table_d_model_4", {"digits": -1}, "digits"),
        ("frequency_ratio", {"factor": 0.5}, "factor"),
        ("frequency_ratio", {"methods": ("bogus",)}, "method"),
        ("frequency_ratio", {"trained_length": 0}, "trained_length"),
        ("rope_decay_bound", {"max_distance": 0}, "max_distance"),
        ("rope_decay_bound", {"head_dim": 7}, "head_dim"),
        ("embedding_schematic", {"sentence": "  "}, "sentence"),
        ("embedding_schematic", {"seed": -1}, "seed"),
        ("heatmap_002", {"cmap": "no_such_map"}, "no_such_map"),
        ("heatmap_000", {"layout": "spiral"}, "layout"),
        ("heatmap_003", {"n_positions": 0}, "n_positions"),
        ("binary_table", {"n_bits": 2}, "n_bits"),
        ("unit_circle_rotation", {"figsize": (0.0, 1.0)}, "figsize"),
    ],
)
def test_bad_parameter_values_name_the_parameter(name, params, match):
    with pytest.raises((ValueError, TypeError), match=match):
        build_figure(name, **params)
