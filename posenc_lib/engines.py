"""How serving engines read a ``rope_scaling`` config: one table of facts, each with its source.

Every row names the engine, the ``rope_type``, what the engine computes from it and the code it
was read from (a file at a commit, or a released version). The engines' code was read, not run
(their wheels need CUDA and torch). Notebooks 06 and 09 render this table; no other cell states
what an engine computes.

Notebooks: 06_context_extension, 09_rope_in_todays_models.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from posenc_lib._checks import check_choice, check_float

__all__ = ["ENGINE_FACTS", "EngineFact", "EngineTable", "engine_table",
           "dynamic_ntk_table_factor"]

_TF = "transformers 5.23.0"
_VLLM_ROPE = "`vllm/model_executor/layers/rotary_embedding/"


class EngineFact(NamedTuple):
    """One engine's reading of one ``rope_type``: what it computes and where that was read."""

    rope_type: str
    engine: str
    computes: str
    source: str


ENGINE_FACTS: tuple[EngineFact, ...] = (
    EngineFact("dynamic", "transformers", (
        "factor recomputed from the current length $l$ once $l > L$: $s_\\text{eff} = "
        "\\text{factor}\\cdot l/L - (\\text{factor} - 1)$; keys already cached keep the base they "
        "were rotated with (issue #25104)"),
        f"{_TF}, `modeling_rope_utils.py` (`_compute_dynamic_ntk_parameters`)"),
    EngineFact("dynamic", "vLLM", (
        "one static table of $L\\cdot\\text{factor}$ positions, built with $s_\\text{eff} = "
        "(L\\cdot\\text{factor})/L - (\\text{factor} - 1) = 1$: the base is unchanged at every "
        "length. Until PR #41277 (April 2026) the first term carried one more factor, "
        "$\\text{factor}^2 - \\text{factor} + 1$, as SGLang's does"),
        f"{_VLLM_ROPE}dynamic_ntk_scaling_rope.py`, commit 3cfbaf33 (before: commit 50feac95)"),
    EngineFact("dynamic", "SGLang", (
        "one static table of $L\\cdot\\text{factor}$ positions, built with $s_\\text{eff} = "
        "\\text{factor}\\cdot(L\\cdot\\text{factor})/L - (\\text{factor} - 1) = "
        "\\text{factor}^2 - \\text{factor} + 1$: transformers' frequencies at "
        "$l = L\\cdot\\text{factor}$, used at every length, short prompts included"),
        "`rope_variant.py`, commit 0b1fd02d"),
    EngineFact("yarn", "transformers", (
        "the reference code's ramp over pair indices; `attention_factor` (default "
        "$0.1\\ln s + 1$) multiplied into $\\cos$ and $\\sin$"),
        f"{_TF}, `modeling_rope_utils.py` (`_compute_yarn_parameters`)"),
    EngineFact("yarn", "vLLM", (
        "the same ramp and factor, multiplied into a cached $\\cos$ and $\\sin$ of "
        "$\\lceil L\\cdot\\text{factor}\\rceil$ positions"),
        f"{_VLLM_ROPE}yarn_scaling_rope.py`, commit 0cd57848"),
    EngineFact("yarn", "SGLang", (
        "$0.1\\ln(\\text{factor}) + 1$ (or the ratio of the `mscale` and `mscale_all_dim` terms "
        "when both are given) times `attn_factor`, multiplied into the cached $\\cos$ and $\\sin$ "
        "of $L\\cdot\\text{factor}$ positions; a config's `attention_factor` is not read"),
        "`yarn.py`, commit 0b1fd02d"),
    EngineFact("longrope", "transformers", (
        "`short_factor` while the length is at most `original_max_position_embeddings` $L$, "
        "`long_factor` beyond, each with the factor $\\sqrt{1 + \\ln s/\\ln L}$ on $\\cos$ and "
        "$\\sin$; at the switch Phi-3's `prepare_inputs_for_generation` drops the cache and "
        "recomputes the whole prompt with the long factors"),
        f"{_TF}, `modeling_rope_utils.py` (`longrope_frequency_update`), `modeling_phi3.py`"),
    EngineFact("longrope", "vLLM", (
        "two tables built at load, the short factors over $L$ positions and the long ones over "
        "`max_position_embeddings`, both times $\\sqrt{1 + \\ln s/\\ln L}$; the long table "
        "serves every request, short prompts included, when the served `max_model_len` exceeds "
        "$L$ (chosen once, so no cached key goes stale), the short one otherwise. An older "
        "version switched a whole batch to the long table when any of its positions passed $L$"),
        f"{_VLLM_ROPE}phi3_long_rope_scaled_rope.py`, commit 63c2b7ab (older: "
        "`vllm/model_executor/layers/rotary_embedding.py`, commit d3a24513)"),
    EngineFact("llama3", "transformers", (
        "three bands by wavelength $\\lambda$: kept below $L/\\text{high\\_freq\\_factor}$, "
        "divided by `factor` above $L/\\text{low\\_freq\\_factor}$, a linear blend "
        "between; static"),
        f"{_TF}, `modeling_rope_utils.py` (`_compute_llama3_parameters`)"),
    EngineFact("llama3", "vLLM", (
        "the same three bands, in one static $\\cos$/$\\sin$ table of "
        "`max_position_embeddings` positions"),
        f"{_VLLM_ROPE}llama3_rope.py`, commit 045d7575"),
    EngineFact("factor vs `original_max_position_embeddings`", "transformers", (
        "some versions replaced `factor` by their ratio (issue #38224, fixed by PR #40320); "
        "this version passes `factor` as $s$"),
        f"{_TF}, `modeling_rope_utils.py`"),
    EngineFact("factor vs `original_max_position_embeddings`", "vLLM", (
        "`get_rope` hands `factor` to YaRN as $s$ and `original_max_position_embeddings` as $L$, "
        "both required; the ratio is never formed and `max_position_embeddings` does not enter "
        "the frequencies"),
        f"{_VLLM_ROPE}__init__.py`, commit 07b12f1b"),
    EngineFact("factor vs `original_max_position_embeddings`", "SGLang", (
        "the same, except that a missing `factor` becomes 1 and a missing "
        "`original_max_position_embeddings` becomes the model's maximum position, each with a "
        "logged warning"),
        "`factory.py`, commit 108c36c0"),
)
"""The engine facts, grouped by ``rope_type`` (the first column)."""


class EngineTable(NamedTuple):
    """Rows of :data:`ENGINE_FACTS`, shown as a Markdown table in a notebook."""

    rows: tuple[EngineFact, ...]

    def _repr_markdown_(self) -> str:
        lines = ["| `rope_type` | engine | what it computes | read from |", "|---|---|---|---|"]
        for row in self.rows:
            kind = row.rope_type if "`" in row.rope_type else f"`{row.rope_type}`"
            lines.append(f"| {kind} | {row.engine} | {row.computes} | {row.source} |")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return "\n".join(f"{row.rope_type.replace('`', '')} / {row.engine}: read from "
                         f"{row.source.replace('`', '')}" for row in self.rows)


def engine_table(rope_types: Iterable[str] | None = None) -> EngineTable:
    """Return the engine facts for some ``rope_type`` values (all of them for None).

    Parameters
    ----------
    rope_types : iterable of str, optional
        First-column values of :data:`ENGINE_FACTS` ("dynamic", "yarn", "longrope", ...).

    Returns
    -------
    table : EngineTable
        Its rows in the order of :data:`ENGINE_FACTS`; a notebook shows it as Markdown.

    Examples
    --------
    >>> [row.engine for row in engine_table(["llama3"]).rows]
    ['transformers', 'vLLM']
    """
    if rope_types is None:
        return EngineTable(ENGINE_FACTS)
    if isinstance(rope_types, str):
        rope_types = [rope_types]
    known = tuple(dict.fromkeys(row.rope_type for row in ENGINE_FACTS))
    wanted = [check_choice("rope_types", kind, known) for kind in rope_types]
    return EngineTable(tuple(row for row in ENGINE_FACTS if row.rope_type in wanted))


def dynamic_ntk_table_factor(engine: str, factor: float) -> float:
    """Return the ``s_eff`` an engine builds its one static dynamic-NTK table with.

    Parameters
    ----------
    engine : {"vLLM", "SGLang"}
    factor : float
        The config's ``factor`` >= 1.

    Returns
    -------
    s_eff : float
        The engine's formula as its code writes it, at its table length ``L * factor``.

    Notes
    -----
    vLLM (commit 3cfbaf33): ``(L s) / L - (s - 1) = 1``; SGLang (commit 0b1fd02d):
    ``s (L s) / L - (s - 1) = s**2 - s + 1``, transformers' ``s_eff`` at ``l = L s``.

    Examples
    --------
    >>> dynamic_ntk_table_factor("vLLM", 8.0), dynamic_ntk_table_factor("SGLang", 8.0)
    (1.0, 57.0)
    """
    check_choice("engine", engine, ("vLLM", "SGLang"))
    factor = check_float("factor", factor, at_least=1.0)
    table_over_trained = factor                  # (L s) / L: the table covers L s positions
    if engine == "vLLM":
        return table_over_trained - (factor - 1.0)               # (L s) / L - (s - 1)
    return factor * table_over_trained - (factor - 1.0)          # s (L s) / L - (s - 1)
