"""Tests of posenc_lib.plots: the course style, deterministic atomic saving, draw_* functions."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import matplotlib
import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.table import Table

from posenc_lib import plots
from posenc_lib.plots import (
    course_style,
    draw_angles,
    draw_binary_table,
    draw_decay_bound,
    draw_division_term,
    draw_embedding_schematic,
    draw_encoding_heatmap,
    draw_even_odd,
    draw_frequency_ratios,
    draw_similarity_matrix,
    draw_stacked_waves,
    draw_unit_circle,
    draw_value_table,
    draw_values_by_dimension,
    new_figure,
    save_figure,
    use_course_style,
)

matplotlib.use("Agg")

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def ax():
    fig, axes = new_figure()
    return axes


def _sample_figure() -> Figure:
    fig, axes = new_figure(1, 2, figsize=(4.0, 2.0))
    axes[0].plot([0, 1, 2], [0, 1, 0], label="line")
    axes[0].set_title("Title with text")
    image = axes[1].imshow(np.arange(12.0).reshape(3, 4))
    fig.colorbar(image, ax=axes[1])
    axes[0].legend()
    return fig


# --------------------------------------------------------------------------- import rules


def _run(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, check=True
    )
    return result.stdout.strip()


def test_import_posenc_lib_does_not_import_matplotlib():
    assert _run("import sys, posenc_lib; print('matplotlib' in sys.modules)") == "False"


def test_import_plots_selects_no_backend_and_no_pyplot():
    out = _run(
        "import sys, matplotlib, posenc_lib.plots, posenc_lib.figures;"
        "print('matplotlib.pyplot' in sys.modules, matplotlib.rcParams._get_backend_or_none())"
    )
    assert out == "False None"


# --------------------------------------------------------------------------- style


def test_style_file_is_package_data():
    from posenc_lib.plots.style import _COURSE_STYLE

    assert _COURSE_STYLE.name == "course.mplstyle" and _COURSE_STYLE.is_file()


def test_course_style_context_sets_and_restores():
    before = dict(mpl.rcParams)
    with course_style():
        assert tuple(mpl.rcParams["figure.figsize"]) == (7.0, 4.0)
        assert mpl.rcParams["figure.dpi"] == 100
        colours = [c["color"].upper() for c in mpl.rcParams["axes.prop_cycle"]]
        assert ["#" + c.lstrip("#") for c in colours] == OKABE_ITO
        assert mpl.rcParams["svg.hashsalt"]
    assert dict(mpl.rcParams) == before


def test_use_course_style_changes_defaults():
    with mpl.rc_context():
        mpl.rcParams["figure.figsize"] = (1.0, 1.0)
        use_course_style()
        assert tuple(mpl.rcParams["figure.figsize"]) == (7.0, 4.0)
        assert mpl.rcParams["image.cmap"] == "viridis"


def test_new_figure_is_not_registered_with_pyplot():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    fig, axes = new_figure(2, 3, figsize=(3.0, 2.0))
    assert isinstance(fig, Figure)
    assert axes.shape == (2, 3)
    assert plt.get_fignums() == before


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"nrows": 0}, "nrows"),
        ({"ncols": 1.5}, "ncols"),
        ({"figsize": (3.0,)}, "figsize"),
        ({"figsize": (3.0, -1.0)}, "figsize"),
        ({"figsize": (3.0, float("nan"))}, "figsize"),
    ],
)
def test_new_figure_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        new_figure(**kwargs)


# --------------------------------------------------------------------------- save_figure


@pytest.mark.parametrize("fmt", ["svg", "png", "pdf"])
def test_save_twice_gives_identical_bytes(tmp_path, fmt):
    first = save_figure(_sample_figure(), tmp_path / f"a.{fmt}").read_bytes()
    second = save_figure(_sample_figure(), tmp_path / f"b.{fmt}").read_bytes()
    assert first == second
    assert len(first) > 500


def test_save_identical_across_processes(tmp_path):
    code = (
        "import sys; from posenc_lib.plots import course_style, new_figure, save_figure\n"
        "with course_style():\n"
        "    fig, ax = new_figure(figsize=(3.0, 2.0))\n"
        "    ax.plot([0, 1, 2], [1, 0, 1], label='a line'); ax.legend(); ax.set_title('T')\n"
        "    ax.imshow([[0.0, 1.0], [1.0, 0.0]], extent=(0, 1, 0, 1))\n"
        "    [save_figure(fig, sys.argv[1] + '.' + f) for f in ('svg', 'png', 'pdf')]"
    )
    for name in ("one", "two"):
        subprocess.run([sys.executable, "-c", code, str(tmp_path / name)], check=True, cwd=REPO)
    for fmt in ("svg", "png", "pdf"):
        one = (tmp_path / f"one.{fmt}").read_bytes()
        assert one == (tmp_path / f"two.{fmt}").read_bytes(), fmt


def test_metadata_is_stripped(tmp_path):
    fig = _sample_figure()
    svg = save_figure(fig, tmp_path / "f.svg").read_bytes()
    png = save_figure(fig, tmp_path / "f.png").read_bytes()
    pdf = save_figure(fig, tmp_path / "f.pdf").read_bytes()
    assert b"<dc:date>" not in svg
    assert b"Software" not in png
    for key in (b"/CreationDate", b"/Creator", b"/Producer"):
        assert key not in pdf


def test_format_follows_suffix_and_dpi(tmp_path):
    fig = _sample_figure()
    assert save_figure(fig, tmp_path / "f.svg").read_bytes().lstrip().startswith(b"<?xml")
    assert save_figure(fig, tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")
    png = save_figure(fig, tmp_path / "F.PNG", dpi=50)
    assert png.read_bytes().startswith(b"\x89PNG")
    image = mpl.image.imread(png)
    assert image.shape[:2] == (100, 200)  # (2 in x 50 dpi, 4 in x 50 dpi)


def test_save_returns_path_and_accepts_str(tmp_path):
    target = save_figure(_sample_figure(), str(tmp_path / "f.png"))
    assert target == tmp_path / "f.png"
    assert target.is_file()
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)


class _Exploding(Artist):
    def draw(self, renderer):
        raise RuntimeError("boom while drawing")


@pytest.mark.parametrize("fmt", ["svg", "png", "pdf"])
def test_failed_draw_leaves_target_untouched(tmp_path, fmt):
    target = tmp_path / f"f.{fmt}"
    target.write_bytes(b"previous content")
    fig = _sample_figure()
    fig.axes[0].add_artist(_Exploding())
    with pytest.raises(RuntimeError, match="boom"):
        save_figure(fig, target)
    assert target.read_bytes() == b"previous content"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_interrupted_savefig_midway_leaves_no_partial_file(tmp_path, monkeypatch):
    target = tmp_path / "f.svg"
    target.write_bytes(b"previous content")

    def half_written(self, stream, **kwargs):
        stream.write(b"<?xml version='1.0'?><svg")  # a truncated file
        raise KeyboardInterrupt

    monkeypatch.setattr(Figure, "savefig", half_written)
    with pytest.raises(KeyboardInterrupt):
        save_figure(_sample_figure(), target)
    assert target.read_bytes() == b"previous content"
    assert [p.name for p in tmp_path.iterdir()] == ["f.svg"]


def test_new_file_not_created_when_save_fails(tmp_path):
    fig = _sample_figure()
    fig.axes[0].add_artist(_Exploding())
    with pytest.raises(RuntimeError):
        save_figure(fig, tmp_path / "new.png")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (("not a figure", "x.png"), {}, TypeError, "fig"),
        ((None, 3), {}, TypeError, "path"),
        ((None, "x.jpg"), {}, ValueError, "path"),
        ((None, "x"), {}, ValueError, "path"),
        ((None, "missing_dir/x.png"), {}, ValueError, "path"),
        ((None, "x.png"), {"dpi": 0}, ValueError, "dpi"),
        ((None, "x.png"), {"dpi": True}, TypeError, "dpi"),
        ((None, "x.png"), {"dpi": float("inf")}, ValueError, "dpi"),
    ],
)
def test_save_figure_bad_input(tmp_path, monkeypatch, args, kwargs, error, match):
    monkeypatch.chdir(tmp_path)
    fig = _sample_figure() if args[0] is None else args[0]
    with pytest.raises(error, match=match):
        save_figure(fig, args[1], **kwargs)
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- draw_* functions


def test_encoding_heatmap_rows_and_transpose(ax):
    encoding = np.arange(24.0).reshape(4, 6) / 24
    image = draw_encoding_heatmap(ax, encoding)
    assert isinstance(image, AxesImage)
    np.testing.assert_array_equal(image.get_array(), encoding)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Dimension", "Position")
    assert image.colorbar is None

    fig, other = new_figure()
    image_t = draw_encoding_heatmap(other, encoding, transpose=True, cmap="coolwarm", colorbar=True)
    np.testing.assert_array_equal(image_t.get_array(), encoding.T)
    assert (other.get_xlabel(), other.get_ylabel()) == ("Position", "Dimension")
    assert image_t.get_cmap().name == "coolwarm"
    assert image_t.colorbar is not None
    assert image_t.get_clim() == (-1.0, 1.0)


def test_encoding_heatmap_updates_in_place(ax):
    image = draw_encoding_heatmap(ax, np.zeros((3, 4)))
    image.set_data(np.ones((3, 4)))
    np.testing.assert_array_equal(image.get_array(), np.ones((3, 4)))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"encoding": np.zeros(4)}, ValueError, "encoding"),
        ({"encoding": [[np.nan, 0.0]]}, ValueError, "encoding"),
        ({"encoding": [["a", "b"]]}, TypeError, "encoding"),
        ({"transpose": 1}, TypeError, "transpose"),
        ({"colorbar": "yes"}, TypeError, "colorbar"),
        ({"position_label": 3}, TypeError, "label"),
    ],
)
def test_encoding_heatmap_bad_input(ax, kwargs, error, match):
    arguments = {"encoding": np.zeros((2, 2)), **kwargs}
    with pytest.raises(error, match=match):
        draw_encoding_heatmap(ax, **arguments)


def test_draw_requires_axes():
    for function, data in (
        (draw_encoding_heatmap, np.zeros((2, 2))),
        (draw_division_term, np.ones(3)),
        (draw_angles, np.ones((2, 3))),
        (draw_even_odd, np.ones((2, 4))),
        (draw_values_by_dimension, np.ones((2, 4))),
        (draw_similarity_matrix, np.eye(2)),
    ):
        with pytest.raises(TypeError, match="ax"):
            function("not axes", data)


def test_division_term_line(ax):
    omega = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    line = draw_division_term(ax, omega)
    assert isinstance(line, Line2D)
    np.testing.assert_array_equal(line.get_xdata(), [0, 1, 2, 3])
    np.testing.assert_array_equal(line.get_ydata(), omega)
    with pytest.raises(ValueError, match="division_term"):
        draw_division_term(ax, np.ones((2, 2)))


def test_angles_one_line_per_position(ax):
    theta = np.outer([0, 3, 7], [1.0, 0.5, 0.25])
    lines = draw_angles(ax, theta, positions=[0, 3, 7])
    assert [line.get_label() for line in lines] == ["pos 0", "pos 3", "pos 7"]
    for line, row in zip(lines, theta, strict=True):
        np.testing.assert_array_equal(line.get_ydata(), row)
    assert ax.get_legend() is not None
    with pytest.raises(ValueError, match="positions"):
        draw_angles(ax, theta, positions=[0, 1])
    with pytest.raises(TypeError, match="positions"):
        draw_angles(ax, theta, positions="abc")


def test_even_odd_splits_sin_and_cos_columns(ax):
    rows = np.array([[0.1, 0.9, 0.2, 0.8, 0.3, 0.7]])
    sines, cosines = draw_even_odd(ax, rows, positions=[5])
    np.testing.assert_array_equal(sines[0].get_ydata(), [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(cosines[0].get_ydata(), [0.9, 0.8, 0.7])
    np.testing.assert_array_equal(sines[0].get_xdata(), [0, 1, 2])
    assert sines[0].get_color() == cosines[0].get_color()
    assert sines[0].get_linestyle() == "None"
    with pytest.raises(ValueError, match="even number of columns"):
        draw_even_odd(ax, np.ones((2, 3)))


def test_values_by_dimension(ax):
    rows = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, -0.5]])
    lines = draw_values_by_dimension(ax, rows)
    assert [line.get_label() for line in lines] == ["pos 0", "pos 1"]
    np.testing.assert_array_equal(lines[1].get_ydata(), rows[1])
    np.testing.assert_array_equal(lines[1].get_xdata(), [0, 1, 2])
    (cosines,) = draw_values_by_dimension(ax, rows[:1, :2], columns="cos", legend=False)
    assert (cosines.get_xdata().tolist(), cosines.get_ydata().tolist()) == ([1], [1.0])
    with pytest.raises(ValueError, match="columns"):
        draw_values_by_dimension(ax, rows, columns="odd")


def test_stacked_waves_offsets_and_tokens(ax):
    x = np.linspace(0.0, 4.0, 41)
    waves = np.stack([np.sin(x), np.cos(x), np.sin(x / 10)], axis=1)
    tokens = np.array([0, 1, 2])
    values = np.stack([np.sin(tokens), np.cos(tokens), np.sin(tokens / 10)], axis=1)
    art = draw_stacked_waves(
        ax,
        x,
        waves,
        token_positions=tokens,
        token_values=values,
        labels=["a", "b", "c"],
        spacing=3.0,
    )
    assert art.offsets == [0.0, 3.0, 6.0]
    for j in range(3):
        np.testing.assert_allclose(art.waves[j].get_ydata() - art.offsets[j], waves[:, j])
        np.testing.assert_allclose(art.tokens[j].get_ydata() - art.offsets[j], values[:, j])
        np.testing.assert_array_equal(art.tokens[j].get_xdata(), tokens)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"waves": np.zeros((5, 2))}, "waves"),
        ({"token_positions": [0, 1]}, "together"),
        ({"token_positions": [0, 1], "token_values": np.zeros((2, 3))}, "token_values"),
        ({"labels": ["only one"]}, "labels"),
        ({"spacing": 0.0}, "spacing"),
    ],
)
def test_stacked_waves_bad_input(ax, kwargs, match):
    arguments = {"x": np.arange(4.0), "waves": np.zeros((4, 2)), **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        draw_stacked_waves(ax, **arguments)


def test_value_table_cells(ax):
    values = np.array([[0.0, 1.0], [0.84147098, 0.54030231]])
    table = draw_value_table(
        ax, values, row_labels=["pos 0", "pos 1"], col_labels=["sin", "cos"], fmt="{:.4f}"
    )
    assert isinstance(table, Table)
    assert table[2, 0].get_text().get_text() == "0.8415"
    assert table[0, 1].get_text().get_text() == "cos"
    assert table[2, -1].get_text().get_text() == "pos 1"
    assert not ax.axison


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"row_labels": ["one"]}, "row_labels"),
        ({"col_labels": "ab"}, "col_labels"),
        ({"fmt": "{:.2f} {:.2f}"}, "fmt"),
        ({"fmt": 3}, "fmt"),
    ],
)
def test_value_table_bad_input(ax, kwargs, match):
    arguments = {"row_labels": ["r0", "r1"], "col_labels": ["a", "b"], **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        draw_value_table(ax, np.zeros((2, 2)), **arguments)


def test_binary_table_plain_and_by_rate(ax):
    bits = np.array([[int(c) for c in format(p, "03b")] for p in range(8)])
    art = draw_binary_table(ax, bits)
    np.testing.assert_array_equal(art.image.get_array(), bits)
    assert [t.get_text() for t in art.digits] == [str(b) for b in bits.ravel()]

    fig, other = new_figure()
    periods = np.array([8, 4, 2])
    rated = draw_binary_table(other, bits, periods=periods)
    data = rated.image.get_array()
    np.testing.assert_array_equal(np.ma.getmaskarray(data), bits == 0)
    np.testing.assert_allclose(data.filled(0.0), bits / periods)
    assert [t.get_text() for t in other.get_xticklabels()] == ["$2^2$", "$2^1$", "$2^0$"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"bits": [[0, 2]]}, "bits"),
        ({"bits": [0, 1]}, "bits"),
        ({"periods": [2]}, "periods"),
        ({"periods": [2, 0]}, "periods"),
        ({"row_labels": ["a", "b"]}, "row_labels"),
    ],
)
def test_binary_table_bad_input(ax, kwargs, match):
    arguments = {"bits": [[0, 1]], **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        draw_binary_table(ax, **arguments)


def test_similarity_matrix_image(ax):
    matrix = np.array([[2.0, 1.0], [1.0, 2.0]])
    image = draw_similarity_matrix(ax, matrix, cmap="magma")
    np.testing.assert_array_equal(image.get_array(), matrix)
    assert image.colorbar is not None
    assert image.get_cmap().name == "magma"
    with pytest.raises(ValueError, match="square"):
        draw_similarity_matrix(ax, np.zeros((2, 3)))


def test_unit_circle_points_and_update(ax):
    start = np.array([math.cos(0.5), math.sin(0.5)])
    end = np.array([math.cos(1.5), math.sin(1.5)])
    art = draw_unit_circle(ax, start, end)
    np.testing.assert_allclose(art.point.get_xydata()[0], start)
    np.testing.assert_allclose(art.rotated.get_xydata()[0], end)
    np.testing.assert_allclose(np.hypot(*art.circle.get_data()), 1.0)
    arc_x, arc_y = art.arc.get_data()
    arc_angles = np.arctan2(arc_y, arc_x)
    assert arc_angles[0] == pytest.approx(0.5) and arc_angles[-1] == pytest.approx(1.5)
    art.update([0.0, 1.0], None)
    np.testing.assert_allclose(art.point.get_xydata()[0], [0.0, 1.0])
    assert not art.rotated.get_visible()
    art.update([1.0, 0.0], [0.0, -1.0])
    assert art.rotated.get_visible()
    arc_x, arc_y = art.arc.get_data()
    assert np.arctan2(arc_y[-1], arc_x[-1]) == pytest.approx(-np.pi / 2)  # shortest turn: -90°
    with pytest.raises(ValueError, match="point"):
        art.update([1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="rotated"):
        draw_unit_circle(ax, [1.0, 0.0], [[0.0, 1.0]])


def test_frequency_ratios_lines(ax):
    ratios = {"linear": np.full(4, 0.25), "ntk": np.array([1.0, 0.6, 0.4, 0.25])}
    lines = draw_frequency_ratios(ax, ratios)
    assert list(lines) == ["linear", "ntk"]
    np.testing.assert_array_equal(lines["ntk"].get_ydata(), ratios["ntk"])
    assert lines["linear"].get_linestyle() != lines["ntk"].get_linestyle()
    assert ax.get_yscale() == "log"


def test_frequency_ratios_mark_one_over_s_and_avoid_yellow(ax):
    ratios = {f"m{k}": np.geomspace(1.0, 0.125, 8) ** (k / 7) for k in range(8)}
    lines = draw_frequency_ratios(ax, ratios, factor=8.0)
    ticks = dict(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels()), strict=True))
    assert ticks[0.125] == "1/s = 1/8" and ticks[1.0] == "1" and ticks[0.5] == "1/2"
    assert any(np.allclose(line.get_ydata(), 0.125) and line.get_linestyle() == ":"
               for line in ax.get_lines() if line not in lines.values())
    colors = {mpl.colors.to_hex(line.get_color()).upper() for line in lines.values()}
    assert "#F0E442" not in colors and len(colors) == 7  # seven colours, then the cycle repeats
    with pytest.raises(ValueError, match="factor"):
        draw_frequency_ratios(ax, ratios, factor=0.5)


@pytest.mark.parametrize(
    ("ratios", "error", "match"),
    [
        ({}, TypeError, "ratios"),
        ([1.0, 2.0], TypeError, "ratios"),
        ({"a": np.ones(3), "b": np.ones(4)}, ValueError, "same length"),
        ({"a": np.zeros(3)}, ValueError, "> 0"),
        ({"a": np.ones((2, 2))}, ValueError, "ratios"),
    ],
)
def test_frequency_ratios_bad_input(ax, ratios, error, match):
    with pytest.raises(error, match=match):
        draw_frequency_ratios(ax, ratios)


def test_decay_bound_line(ax):
    line = draw_decay_bound(ax, [0, 1, 2], [3.0, 2.0, 2.5])
    np.testing.assert_array_equal(line.get_xdata(), [0, 1, 2])
    with pytest.raises(ValueError, match="bound"):
        draw_decay_bound(ax, [0, 1, 2], [3.0, 2.0])


def test_embedding_schematic_columns(ax):
    embeddings = np.arange(8.0).reshape(2, 4) / 8
    encodings = np.ones((2, 4)) * 0.5
    art = draw_embedding_schematic(ax, embeddings, encodings, tokens=["the", "cat"])
    assert len(art.embeddings) == len(art.positions) == len(art.sums) == 2
    for n in range(2):
        np.testing.assert_array_equal(art.embeddings[n].get_array().ravel(), embeddings[n])
        np.testing.assert_array_equal(art.positions[n].get_array().ravel(), encodings[n])
        np.testing.assert_array_equal(
            art.sums[n].get_array().ravel(), embeddings[n] + encodings[n]
        )
    assert {"the", "cat", "+", "="} <= {t.get_text() for t in art.texts}
    with pytest.raises(ValueError, match="encodings"):
        draw_embedding_schematic(ax, embeddings, np.ones((3, 4)), tokens=["a", "b"])
    with pytest.raises(ValueError, match="tokens"):
        draw_embedding_schematic(ax, embeddings, encodings, tokens=["only"])


def test_freeze_layout_makes_saves_independent_of_history(tmp_path):
    def frozen() -> Figure:
        return plots.freeze_layout(_sample_figure())

    one = frozen()
    save_figure(one, tmp_path / "first.svg")
    after_svg = save_figure(one, tmp_path / "one.png").read_bytes()
    fresh = save_figure(frozen(), tmp_path / "two.png").read_bytes()
    assert after_svg == fresh
    with pytest.raises(TypeError, match="fig"):
        plots.freeze_layout("figure")


def test_figure_png_equals_the_saved_file(tmp_path):
    fig = plots.freeze_layout(_sample_figure())
    png = plots.figure_png(fig, dpi=40)
    assert png == save_figure(fig, tmp_path / "f.png", dpi=40).read_bytes()
    assert b"Software" not in png
    with pytest.raises(TypeError, match="fig"):
        plots.figure_png(None)
    with pytest.raises(ValueError, match="dpi"):
        plots.figure_png(fig, dpi=-1)


def test_draw_columns_draws_one_line_per_column_and_gaps_on_a_log_axis() -> None:
    """What a build step's beside draws for a curve result (notebooks 06, 07, 09)."""
    fig = Figure()
    ax = fig.add_subplot()
    values = np.array([[1.0, 2.0], [0.0, 3.0], [4.0, -1.0]])
    lines = plots.draw_columns(ax, [0, 1, 2], values, yscale="log", ylabel="theta")
    assert len(lines) == 2 and ax.get_yscale() == "log" and ax.get_ylabel() == "theta"
    assert ax.get_legend() is None                       # unlabelled: yours beside posenc_lib's
    ys = [line.get_ydata() for line in lines.values()]
    np.testing.assert_array_equal(ys[0], [1.0, np.nan, 4.0])  # 0 cannot sit on a log axis
    np.testing.assert_array_equal(ys[1], [2.0, 3.0, np.nan])
    single = plots.draw_columns(fig.add_subplot(), np.arange(4), np.arange(4.0))
    np.testing.assert_array_equal(next(iter(single.values())).get_ydata(), np.arange(4.0))
    with pytest.raises(ValueError, match=r"values must have shape \(3,\) or \(3, k\)"):
        plots.draw_columns(ax, [0, 1, 2], np.ones((4, 2)))
