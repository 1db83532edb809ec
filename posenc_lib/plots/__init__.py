"""posenc_lib.plots: the course style, deterministic saving and the drawing functions.

Every ``draw_<thing>(ax, data..., **style)`` draws data computed by the math modules on ``ax``
and returns the artists it made, which explorers update in place. ``xlabel`` and ``ylabel`` set
axis labels (None keeps one), ``legend`` and ``colorbar`` add one (``image.colorbar``), and
``**style`` goes to the matplotlib call that draws the data. ``import posenc_lib`` stays free of
matplotlib: import this package explicitly; it selects no backend.

Notebooks: 00_why_position to 11_figure_gallery.
"""

from __future__ import annotations

from posenc_lib._extras import missing_extra

try:
    import matplotlib  # noqa: F401 - the extra's check: its modules import them below
except ModuleNotFoundError as error:
    raise missing_extra(__name__, "plots", error) from error

from posenc_lib.plots.bars import (
    draw_dimension_range,
    draw_dot_rows,
    draw_grouped_bars,
    draw_probe,
    draw_wavelengths,
)
from posenc_lib.plots.beside import draw_yours_beside
from posenc_lib.plots.circles import (
    draw_circle_points,
    draw_unit_circle,
    draw_vectors_2d,
)
from posenc_lib.plots.curves import (
    draw_columns,
    draw_curves,
    draw_decay_bound,
    draw_error_curves,
    draw_frequency_ratios,
    draw_offset_curve,
    draw_reference_lines,
    for_log_axis,
)
from posenc_lib.plots.heatmaps import (
    draw_attention_weights,
    draw_bias_matrix,
    draw_encoding_heatmap,
    draw_signed_matrix,
    draw_similarity_matrix,
    draw_unseen_angles,
)
from posenc_lib.plots.schematic import draw_embedding_schematic
from posenc_lib.plots.style import (
    SAVE_FORMATS,
    course_style,
    figure_png,
    freeze_layout,
    new_figure,
    save_figure,
    use_course_style,
)
from posenc_lib.plots.tables import (
    draw_binary_table,
    draw_float32_bits,
    draw_value_table,
)
from posenc_lib.plots.waves import (
    draw_angles,
    draw_division_term,
    draw_even_odd,
    draw_pair_waves,
    draw_stacked_waves,
    draw_values_by_dimension,
)

__all__ = [
    "SAVE_FORMATS", "course_style", "draw_angles", "draw_attention_weights", "draw_bias_matrix",
    "draw_binary_table", "draw_circle_points", "draw_columns", "draw_curves", "draw_decay_bound",
    "draw_dimension_range", "draw_division_term", "draw_dot_rows", "draw_embedding_schematic",
    "draw_encoding_heatmap", "draw_error_curves", "draw_even_odd", "draw_float32_bits",
    "draw_frequency_ratios", "draw_grouped_bars", "draw_offset_curve", "draw_pair_waves",
    "draw_probe", "draw_reference_lines", "draw_signed_matrix", "draw_similarity_matrix",
    "draw_stacked_waves", "draw_unit_circle", "draw_unseen_angles", "draw_value_table",
    "draw_values_by_dimension", "draw_vectors_2d", "draw_wavelengths", "figure_png",
    "for_log_axis", "freeze_layout", "new_figure", "save_figure", "use_course_style",
    "draw_yours_beside",
]
