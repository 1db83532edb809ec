"""posenc_lib.plots: the course style, deterministic saving and the drawing functions.

Import it explicitly (``from posenc_lib import plots``); ``import posenc_lib`` stays free of
matplotlib. No backend is selected here: notebooks keep the inline backend, while the figure
command line and the tests select Agg.

Every ``draw_<thing>(ax, data..., **style)`` takes an ``Axes`` and data already computed with the
math modules, draws it and returns the artists it created, so that an explorer can keep them and
update them in place (``image.set_data``, ``line.set_ydata``, ``UnitCircle.update``).
"""

from __future__ import annotations

from posenc_lib.plots.binary import BinaryTable, draw_binary_table
from posenc_lib.plots.relative import UnitCircle, draw_similarity_matrix, draw_unit_circle
from posenc_lib.plots.rope import draw_decay_bound
from posenc_lib.plots.scaling import draw_frequency_ratios
from posenc_lib.plots.schematic import EmbeddingSchematic, draw_embedding_schematic
from posenc_lib.plots.sinusoidal import (
    StackedWaves,
    draw_angles,
    draw_division_term,
    draw_encoding_heatmap,
    draw_even_odd,
    draw_stacked_waves,
    draw_values_by_dimension,
)
from posenc_lib.plots.style import (
    COURSE_STYLE,
    SAVE_FORMATS,
    course_style,
    figure_png,
    freeze_layout,
    new_figure,
    save_figure,
    use_course_style,
)
from posenc_lib.plots.tables import draw_value_table

__all__ = [
    "COURSE_STYLE",
    "SAVE_FORMATS",
    "BinaryTable",
    "EmbeddingSchematic",
    "StackedWaves",
    "UnitCircle",
    "course_style",
    "draw_angles",
    "draw_binary_table",
    "draw_decay_bound",
    "draw_division_term",
    "draw_embedding_schematic",
    "draw_encoding_heatmap",
    "draw_even_odd",
    "draw_frequency_ratios",
    "draw_similarity_matrix",
    "draw_stacked_waves",
    "draw_unit_circle",
    "draw_value_table",
    "draw_values_by_dimension",
    "figure_png",
    "freeze_layout",
    "new_figure",
    "save_figure",
    "use_course_style",
]
