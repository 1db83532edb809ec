"""posenc_lib.plots: the course style, deterministic saving and the drawing functions.

Notebooks: 00_why_position to 11_figure_gallery (every notebook imports its pictures from here).

Import it explicitly (``from posenc_lib import plots``); ``import posenc_lib`` stays free of
matplotlib, and no backend is selected here. Every ``draw_<thing>(ax, data..., **style)`` draws
data already computed with the math modules on the ``Axes`` ``ax`` and returns the artists it
created, so that an explorer can update them in place (``image.set_data``, ``line.set_ydata``,
``UnitCircle.update``). Parameters shared by the drawing functions, not repeated in each:

- ``xlabel``, ``ylabel`` (``position_label``, ``dimension_label``): axis labels; None leaves a
  label unchanged;
- ``legend``, ``colorbar``: bools that add a legend or a colorbar (then ``image.colorbar``);
  ``label``: a legend label (labels starting with "_" stay out of the legend);
- ``**style``: options of the matplotlib call that draws the data (``Axes.plot``, ``imshow``).

Modules by kind of picture: ``heatmaps`` (matrices as images), ``bars`` (bars, dots,
wavelengths, probes), ``curves`` (line charts), ``waves`` (sinusoids), ``circles`` (unit
circle, 2-D vectors), ``tables`` (numbers and bits in cells), ``schematic`` (embedding +
position vector) and ``style`` (course style, saving).
"""

from __future__ import annotations

from posenc_lib.plots.bars import (
    WavelengthChart,
    draw_dimension_range,
    draw_dot_rows,
    draw_grouped_bars,
    draw_probe,
    draw_wavelengths,
)
from posenc_lib.plots.circles import (
    UnitCircle,
    draw_circle_points,
    draw_unit_circle,
    draw_vectors_2d,
)
from posenc_lib.plots.curves import (
    OffsetCurve,
    draw_curves,
    draw_decay_bound,
    draw_error_curves,
    draw_frequency_ratios,
    draw_offset_curve,
    draw_reference_lines,
    for_log_axis,
)
from posenc_lib.plots.heatmaps import (
    AttentionMap,
    draw_attention_weights,
    draw_bias_matrix,
    draw_encoding_heatmap,
    draw_signed_matrix,
    draw_similarity_matrix,
    draw_unseen_angles,
)
from posenc_lib.plots.schematic import EmbeddingSchematic, draw_embedding_schematic
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
    BinaryTable,
    BitRows,
    draw_binary_table,
    draw_float32_bits,
    draw_value_table,
)
from posenc_lib.plots.waves import (
    PairWaves,
    StackedWaves,
    draw_angles,
    draw_division_term,
    draw_even_odd,
    draw_pair_waves,
    draw_stacked_waves,
    draw_values_by_dimension,
)

__all__ = [
    "SAVE_FORMATS", "AttentionMap", "BinaryTable", "BitRows", "EmbeddingSchematic",
    "OffsetCurve", "PairWaves", "StackedWaves", "UnitCircle", "WavelengthChart", "course_style",
    "draw_angles", "draw_attention_weights", "draw_bias_matrix", "draw_binary_table",
    "draw_circle_points", "draw_curves", "draw_decay_bound", "draw_dimension_range",
    "draw_division_term", "draw_dot_rows", "draw_embedding_schematic", "draw_encoding_heatmap",
    "draw_error_curves", "draw_even_odd", "draw_float32_bits", "draw_frequency_ratios",
    "draw_grouped_bars", "draw_offset_curve", "draw_pair_waves", "draw_probe",
    "draw_reference_lines", "draw_signed_matrix", "draw_similarity_matrix",
    "draw_stacked_waves", "draw_unit_circle", "draw_unseen_angles", "draw_value_table",
    "draw_values_by_dimension", "draw_vectors_2d", "draw_wavelengths", "figure_png",
    "for_log_axis", "freeze_layout", "new_figure", "save_figure", "use_course_style",
]
