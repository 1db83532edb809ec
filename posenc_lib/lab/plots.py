"""Pictures of the lab's results: data in, matplotlib Figure out (the line charts drawn into
``ax``; the image grids into ``figure`` when given one, else into a new Figure).

Notebook: 10_length_generalisation_lab.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import NDArray

from posenc_lib.lab.results import MULTIPLES, binned
from posenc_lib.lab.verdicts import t_interval

__all__ = ["plot_attention", "plot_extrapolation", "plot_learning_curves", "plot_offsets",
           "plot_position_curves", "plot_similarity"]


def _figure(ax: Axes) -> Figure:
    figure = ax.get_figure()
    assert isinstance(figure, Figure)
    return figure


def _sized(figure: Figure | None, size: tuple[float, float]) -> Figure:
    if figure is None:
        return Figure(figsize=size)
    figure.set_size_inches(*size)
    return figure


def plot_extrapolation(stats: Mapping[tuple[str, str], NDArray[Any]], task: str,
                       methods: Sequence[str], *, ax: Axes, title: str | None = None,
                       legend: bool = True) -> Figure:
    """Accuracy beyond the trained length against the length multiple: the seed mean as a
    line with its t 95% interval as a bar, each seed as a dot beside it; the title gives this
    panel's number of seeds.
    """
    figure = _figure(ax)
    counts = []
    for k, method in enumerate(methods):
        values = stats[(task, method)]  # (seeds, multiples)
        counts.append(len(values))
        shift = 2.0 ** (0.04 * (k - (len(methods) - 1) / 2))  # sideways, on the log axis
        (line,) = ax.plot(MULTIPLES, values.mean(0), marker="o", markersize=4, label=method)
        _, low, high = np.array([t_interval(column) for column in values.T]).T
        ax.vlines(np.array(MULTIPLES) * shift, low, high, color=line.get_color(), linewidth=2.5,
                  alpha=0.5)
        ax.scatter(np.tile(np.array(MULTIPLES) * shift, len(values)), values.ravel(), s=9,
                   color=line.get_color(), alpha=0.6, linewidths=0)
    ax.set_xscale("log", base=2)
    ax.set_xticks(MULTIPLES, [f"{m}x" for m in MULTIPLES])
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("evaluation length / trained length")
    ax.set_ylabel("accuracy on unseen positions")
    seeds = f"{min(counts)}" if min(counts) == max(counts) else f"{min(counts)}-{max(counts)}"
    ax.set_title(f"{title or task}\n{seeds} seed{'s' * (max(counts) != 1)}")
    if legend:
        heading = ("line: mean of the panel's seeds\nbar: its t 95% interval\n"
                   "dots: one seed each")
        ax.legend(fontsize="small", title=heading,
                  title_fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return figure


def plot_offsets(stats: Mapping[tuple[str, str], NDArray[Any]], task: str,
                 variants: Mapping[str, Mapping[str, str]], offsets: Sequence[int], *, ax: Axes,
                 legend: bool = True) -> Figure:
    """Accuracy against the first position of the sequence (a log axis, linear below 10^3 so
    that 0 shows): per variant the seed mean as a line with its t 95% interval as a band.

    Parameters
    ----------
    stats : mapping
        (task, variant) to (seeds, offsets), from :func:`posenc_lib.lab.results.offset_stats`.
    variants : mapping of str to mapping
        Variant name in ``stats`` to its formats, ``{"angles": ..., "rotation": ...}`` (the
        setup's ``variants``): the legend says them.
    offsets : sequence of int
    """
    figure = _figure(ax)
    x = np.asarray(offsets, dtype=float)
    counts = []
    for k, (variant, formats) in enumerate(variants.items()):
        label = f"angles {formats['angles']}, rotation {formats['rotation']}"
        values = stats[(task, variant)]  # (seeds, offsets)
        counts.append(len(values))
        # markers shrink and dashes change from line to line, so coinciding lines stay visible
        (line,) = ax.plot(x, values.mean(0), marker="osD^"[k % 4], markersize=8 - 2 * (k % 4),
                          label=label, linestyle=("-", "--", ":", "-.")[k % 4], alpha=0.85)
        if len(values) > 1:  # one seed has no interval
            _, low, high = np.array([t_interval(column) for column in values.T]).T
            ax.fill_between(x, low, high, color=line.get_color(), alpha=0.15, linewidth=0)
    ax.axvline(2.0**24, color="0.4", linewidth=0.8)  # float32's last exact integer
    ax.set_xscale("symlog", linthresh=1e3, linscale=0.4)
    ticks = [0, *(10**e for e in range(3, 1 + int(np.log10(max(x.max(), 1e3)))))]
    ax.set_xticks(ticks, ["0", *(f"$10^{{{e}}}$" for e in range(3, 3 + len(ticks) - 1))])
    ax.set_xlim(0, 2 * x.max())
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("first position of the sequence (grey: $2^{24}$)")
    ax.set_ylabel("accuracy at the trained length")
    seeds = f"{min(counts)}" if min(counts) == max(counts) else f"{min(counts)}-{max(counts)}"
    ax.set_title(f"{task}, {seeds} seed{'s' * (max(counts) != 1)}")
    if legend:  # below the panels, across the figure
        figure.legend(*ax.get_legend_handles_labels(), loc="outside lower center",
                      ncols=len(variants), fontsize="small",
                      title="line: mean of the seeds; band: its t 95% interval",
                      title_fontsize="small")
    return figure


def plot_learning_curves(runs: Mapping[str, Sequence[Mapping[str, Any]]], *, ax: Axes,
                         title: str = "") -> Figure:
    """Training loss against step, one colour per run and one thin line per seed.

    Parameters
    ----------
    runs : mapping of str to sequence of mappings
        Label to the seeds' logged losses, each ``{"step": [...], "loss": [...]}``.
    ax : Axes
    title : str
    """
    figure = _figure(ax)
    for label, seeds in runs.items():
        color = None
        for k, logged in enumerate(seeds):
            (line,) = ax.plot(logged["step"], logged["loss"], color=color, linewidth=1,
                              alpha=0.8, label=label if k == 0 else None)
            color = line.get_color()
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("training loss")
    ax.set_title(title)
    # lower left: early steps have a high loss, so no curve passes there
    ax.legend(fontsize="small", title="one line per seed", title_fontsize="small",
              loc="lower left")
    return figure


def plot_position_curves(curves: Mapping[str, Any], trained_length: int, *, ax: Axes,
                         title: str = "", legend: bool = True, width: int = 1) -> Figure:
    """Accuracy by position, one line per method, with the trained length dashed; with
    ``width`` > 1 the mean of each bin of ``width`` positions, drawn at the bin's middle."""
    figure = _figure(ax)
    for method, curve in curves.items():
        centres, means = binned(curve, width)
        ax.plot(centres, means, label=method, linewidth=1.2,
                marker="o" if width > 1 else None, markersize=2.5)
    ax.axvline(trained_length - 0.5, color="0.3", linestyle="--", linewidth=1)
    ax.set_xlabel("position" if width == 1 else f"position (mean of {width} per point)")
    ax.set_ylabel("accuracy")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title(title)
    if legend:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return figure


def plot_attention(maps: Mapping[str, NDArray[Any]], trained_length: int, *,
                   ncols: int = 4, figure: Figure | None = None) -> Figure:
    """Attention maps side by side, each with the trained length dashed and position ticks
    every trained length, on one linear colour scale of the weight (0 to 1), so a faint stripe
    looks faint."""
    nrows = -(-len(maps) // ncols)
    figure = _sized(figure, (2.6 * ncols + 0.8, 2.6 * nrows + 0.3))
    axes = figure.subplots(nrows, ncols, squeeze=False)
    for ax, (name, weights) in zip(axes.flat, maps.items(), strict=False):
        image = ax.imshow(np.asarray(weights), cmap="magma", vmin=0, vmax=1)
        ax.axhline(trained_length - 0.5, color="w", linestyle="--", linewidth=0.7)
        ax.axvline(trained_length - 0.5, color="w", linestyle="--", linewidth=0.7)
        ax.set_title(name, fontsize="small")
        ticks = np.arange(0, len(weights), trained_length)  # query and key positions
        ax.set_xticks(ticks, [str(t) for t in ticks], fontsize="x-small")
        ax.set_yticks(ticks, [str(t) for t in ticks], fontsize="x-small")
        ax.grid(False)
    for ax in axes.flat[len(maps):]:
        ax.set_visible(False)
    figure.colorbar(image, ax=list(axes.flat), shrink=0.8, label="attention weight")
    figure.suptitle("attention: query position down, key position across", fontsize="small")
    return figure


def plot_similarity(matrices: Mapping[str, NDArray[Any]], *,
                    figure: Figure | None = None) -> Figure:
    """Similarity matrices of position tables, side by side, on one colour scale.

    Parameters
    ----------
    matrices : mapping of str to ndarray, shape (n_positions, n_positions)
        Title to matrix (from :func:`posenc_lib.lab.results.cosine_similarity`).
    figure : Figure, optional
        An empty figure to draw in (e.g. ``plt.figure()``).
    """
    figure = _sized(figure, (3.4 * len(matrices), 3.4))
    axes = figure.subplots(1, len(matrices), squeeze=False)[0]
    for ax, (name, matrix) in zip(axes, matrices.items(), strict=True):
        image = ax.imshow(np.asarray(matrix), cmap="RdBu_r", vmin=-1, vmax=1)
        ax.grid(False)
        ax.set_title(name, fontsize="small")
        ax.set_xlabel("position")
        ax.set_ylabel("position")
    figure.colorbar(image, ax=list(axes), shrink=0.8, label="cosine similarity")
    return figure
