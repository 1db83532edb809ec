"""Interactive explorers of the notebooks, in notebook order: each a subclass of :class:`Explorer`
that owns its controls and artists and updates them in place.

Notebooks: 00_why_position to 11_figure_gallery (one explorer module per notebook).
"""

from __future__ import annotations

from posenc_lib._extras import missing_extra

try:
    import ipywidgets  # noqa: F401
    import matplotlib  # noqa: F401 - the extra's check: its modules import them below
except ModuleNotFoundError as error:
    raise missing_extra(__name__, "notebooks", error) from error

from posenc_lib.widgets._base import Explorer
from posenc_lib.widgets.attention import WordOrderExplorer
from posenc_lib.widgets.bias import RelativeBiasExplorer
from posenc_lib.widgets.binary import BinaryCountingExplorer
from posenc_lib.widgets.gallery import SourceHeatmapExplorer
from posenc_lib.widgets.lab import LabCurvesExplorer
from posenc_lib.widgets.models import ModelPairsExplorer
from posenc_lib.widgets.precision import AngleErrorExplorer
from posenc_lib.widgets.properties import SimilarityDecayExplorer
from posenc_lib.widgets.rope import RopeScoreExplorer
from posenc_lib.widgets.rotation import RotationExplorer
from posenc_lib.widgets.scaling import ScalingExplorer
from posenc_lib.widgets.sinusoidal import EncodingHeatmapExplorer, StackedWavesExplorer

EXPLORERS: tuple[type[Explorer], ...] = (
    WordOrderExplorer,  # 00
    BinaryCountingExplorer,  # 01
    EncodingHeatmapExplorer,  # 02
    StackedWavesExplorer,  # 02
    SimilarityDecayExplorer,  # 03
    RotationExplorer,  # 04
    RopeScoreExplorer,  # 05
    ScalingExplorer,  # 06
    RelativeBiasExplorer,  # 07
    AngleErrorExplorer,  # 08
    ModelPairsExplorer,  # 09
    LabCurvesExplorer,  # 10
    SourceHeatmapExplorer,  # 11
)
"""Every explorer of the course, in notebook order (the benchmark and the tests use it)."""

__all__ = ["EXPLORERS", "Explorer", *(explorer.__name__ for explorer in EXPLORERS)]
