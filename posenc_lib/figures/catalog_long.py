"""The long-context half's other figures (notebooks 06, 07 and 09): published retrieval scores,
remapped distances, LongRoPE's factors, temperatures, dynamic NTK in each engine, the newer
biases, the stale KV cache and p-RoPE. Every number is computed by the library's functions.

"Kept" means one thing here as everywhere in the course: a frequency left unchanged by scaling.

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from posenc_lib import plots
from posenc_lib._checks import check_choice, check_int
from posenc_lib.attention_variants import kv_cache_numbers
from posenc_lib.bias import alibi_bias
from posenc_lib.bias_variants import cope_bias, cope_positions, fire_bias, kerple_bias, xpos_decay
from posenc_lib.engines import dynamic_ntk_table_factor
from posenc_lib.evidence import ruler_table, tokens
from posenc_lib.figures.catalog import _one_axes_figure
from posenc_lib.figures.registry import register
from posenc_lib.frequencies import inverse_frequencies, wavelengths
from posenc_lib.models import effective_logit_scale, rope_frequencies_from_config
from posenc_lib.presets import PRESETS
from posenc_lib.remapping import dual_chunk_distances, self_extend_distances
from posenc_lib.rope import apply_rope
from posenc_lib.rope_variants import p_rope_frequencies, rotary_dimension
from posenc_lib.scaling import dynamic_ntk_factor, ntk_inv_freq, rope_frequencies

__all__: list[str] = []

_TEMPERATURE_PRESETS = ("deepseek-v3", "deepseek-v3.2-exp", "gpt-oss-20b", "ministral-3-8b",
                        "llama-4-scout")


@register("ruler_scores", source="notebook 06",
    description="RULER's published scores of real models against the input length (not measured "
    "here).",
    look_for="Every model drops below the dashed threshold (Llama 2 7B's score at 4K) well "
    "before the length it claims (the stars): its effective length, the last point above the "
    "line, is 16K to 64K.")
def ruler_scores(*, figsize: tuple[float, float] = (7.6, 4.0)) -> Figure:
    """Notebook 06: score against length per model, its claimed length starred."""
    table = ruler_table()
    x = np.array([tokens(label) for label in table.lengths], dtype=float)
    fig, ax = plots.new_figure(figsize=figsize)
    lines = plots.draw_curves(ax, x, {row.model: row.scores for row in table.models},
        xlabel="Input length (tokens)", ylabel="RULER score (%)", xscale="log", marker="o",
        markersize=3, legend=False)
    for row in table.models:
        at = table.lengths.index(row.claimed)
        ax.plot(x[at], row.scores[at], marker="*", markersize=11, linestyle="none",
                color=lines[row.model].get_color(), label="_claimed")
    plots.draw_reference_lines(ax, horizontal={"threshold": table.threshold})
    ax.set_xticks(x, table.lengths)
    ax.minorticks_off()
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("Published RULER scores; stars: the claimed length", fontsize=10)
    return fig


@register("remapped_distances", source="notebook 06",
    description="The distance RoPE sees under Self-Extend and Dual Chunk Attention, against the "
    "true one.",
    look_for="Inside the window both follow the diagonal; past it Self-Extend climbs G times "
    "more slowly, in steps, and DCA falls back at every chunk, so a far key can look nearer "
    "than a closer one; neither reaches the trained length L.")
def remapped_distances(*, length: int = 32768, trained_length: int = 4096, group: int = 16,
        window: int = 1024, chunk_size: int = 3072, local_size: int = 256,
        figsize: tuple[float, float] = (7.0, 3.6)) -> Figure:
    """Notebook 06: ``self_extend_distances`` and ``dual_chunk_distances`` of the last query."""
    length = check_int("length", length, minimum=2)
    last, keys = length - 1, np.arange(length)
    true = last - keys
    seen = {"true distance": true,
            f"Self-Extend (G = {group}, w = {window})": self_extend_distances(last, keys,
                group=group, window=window),
            f"DCA (chunk {chunk_size}, local {local_size})": dual_chunk_distances(last, keys,
                chunk_size=chunk_size, local_size=local_size)}
    order = np.argsort(true)
    fig = _one_axes_figure(figsize, "Remapped distances stay below L",
        plots.draw_curves, true[order], {k: v[order] for k, v in seen.items()},
        xlabel="True distance i - j", ylabel="Distance RoPE sees")
    plots.draw_reference_lines(fig.axes[0], horizontal={f"L = {trained_length:,}":
        float(trained_length)})
    fig.axes[0].legend(fontsize=8, loc="upper left")
    return fig


@register("longrope_factors", source="notebook 06",
    description="LongRoPE's searched factors of Phi-3.5-mini: the short list and the long list.",
    look_for="The short factors stay below 3; the long ones rise from about 1 on the fast "
    "pairs past s = 32 (the context's growth) to about twice s on the slowest pairs.")
def longrope_factors(*, preset: str = "phi-3.5-mini",
        figsize: tuple[float, float] = (7.0, 3.4)) -> Figure:
    """Notebook 06: ``short_factor`` and ``long_factor`` per pair, with s = L' / L."""
    config = PRESETS[check_choice("preset", preset, [k for k, v in PRESETS.items()
        if (v.get("rope_scaling") or {}).get("long_factor")])]
    params = config["rope_scaling"]
    s = config["max_position_embeddings"] / config["original_max_position_embeddings"]
    factors = {"short_factor": params["short_factor"], "long_factor": params["long_factor"]}
    fig = _one_axes_figure(figsize, f"{preset}: LongRoPE's factor per pair (divides theta_i)",
        plots.draw_curves, np.arange(len(params["long_factor"])), factors, marker=".",
        xlabel="Pair index $i$", ylabel="Factor", yscale="log")
    plots.draw_reference_lines(fig.axes[0], horizontal={f"s = {s:g}": s, "1": 1.0})
    return fig


@register("attention_temperature", source="notebook 09",
    description="The factor on the attention logits beyond the rotation, by query position.",
    look_for="YaRN's factor is constant from the first token (DeepSeek-V3 and V3.2 1.874, "
    "gpt-oss 1.813); Ministral 3 and Llama 4's NoPE layers raise theirs in steps as the query "
    "moves past multiples of their length scale.")
def attention_temperature(*, presets: tuple[str, ...] = _TEMPERATURE_PRESETS,
        max_position: int = 1_000_000, figsize: tuple[float, float] = (7.2, 3.6)) -> Figure:
    """Notebook 09: ``effective_logit_scale`` per preset (Llama 4: its NoPE layers)."""
    positions = np.unique(np.geomspace(1, check_int("max_position", max_position, minimum=2),
        400).astype(np.int64))
    curves = {}
    for name in presets:
        nope = check_choice("presets", name, PRESETS) == "llama-4-scout"
        label = f"{name} (NoPE layers)" if nope else name
        curves[label] = effective_logit_scale(PRESETS[name], positions, nope_layer=nope)
    return _one_axes_figure(figsize, "Logit temperature by query position",
        plots.draw_curves, positions, curves, xlabel="Query position $m$",
        ylabel="Factor on the logits", xscale="log")


@register("dynamic_ntk_engines", source="notebook 06",
    description="Dynamic NTK's effective factor by current length in transformers, vLLM and "
    "SGLang.",
    look_for="transformers keeps s_eff = 1 up to L and climbs linearly to 57 at 8L; vLLM's "
    "table uses 1 at every length, SGLang's 57 at every length, short prompts included.")
def dynamic_ntk_engines(*, factor: float = 8.0, trained_length: int = 4096,
        figsize: tuple[float, float] = (7.0, 3.4)) -> Figure:
    """Notebook 06: ``dynamic_ntk_factor`` and ``dynamic_ntk_table_factor`` per engine."""
    longest = int(trained_length * factor)
    lengths = np.linspace(1, longest, 257).round().astype(int)
    curves = {"transformers (recomputed)": np.array([dynamic_ntk_factor(factor, trained_length,
                                                                int(n)) for n in lengths])}
    for engine in ("vLLM", "SGLang"):
        curves[f"{engine} (one table)"] = np.full(lengths.size,
            dynamic_ntk_table_factor(engine, factor))
    fig = _one_axes_figure(figsize, f"Dynamic NTK, factor {factor:g}: three engines",
        plots.draw_curves, lengths, curves, xlabel="Current length $l$ (tokens)",
        ylabel=r"$s_\mathrm{eff}$ (slowest pair divided by)")
    plots.draw_reference_lines(fig.axes[0], vertical={"L": float(trained_length)})
    fig.axes[0].legend(fontsize=8, loc="center right")
    return fig


@register("engine_frequencies", source="notebook 06",
    description="Each engine's frequency ratios for one dynamic-NTK config, on a short and a long "
    "input.",
    look_for="On the short prompt transformers keeps every pair (ratio 1) while SGLang "
    "already slows the slowest 57 times; at 8L the two agree; vLLM keeps every pair at both.")
def engine_frequencies(*, head_dim: int = 128, base: float = 10000.0, factor: float = 8.0,
        trained_length: int = 4096, figsize: tuple[float, float] = (9.0, 3.4)) -> Figure:
    """Notebook 06: theta'_i / theta_i per engine at l = L / 2 and l = factor * L."""
    theta = inverse_frequencies(head_dim, base)
    config = {"rope_type": "dynamic", "factor": factor,
              "original_max_position_embeddings": trained_length}
    fig, axes = plots.new_figure(1, 2, figsize=figsize, sharey=True)
    for ax, length in zip(axes, (trained_length // 2, int(trained_length * factor)),
                          strict=True):
        hf, _ = rope_frequencies(head_dim, base, config, seq_len=length)
        curves = {"transformers": hf / theta}
        for engine in ("vLLM", "SGLang"):
            table = ntk_inv_freq(head_dim, base, dynamic_ntk_table_factor(engine, factor))
            curves[engine] = table / theta
        plots.draw_curves(ax, np.arange(head_dim // 2), curves, xlabel="Pair index $i$",
            yscale="log", legend=False)
        ax.set_title(f"l = {length:,} tokens", fontsize=10)
    axes[0].set_ylabel(r"$\theta'_i/\theta_i$")
    axes[0].legend(fontsize=8, loc="lower left")
    return fig


@register("newer_biases", source="notebook 07",
    description="KERPLE, FIRE and CoPE beside ALiBi, and xPos's decay per rotary pair "
    "(illustrative).",
    look_for="ALiBi falls on a straight line; KERPLE's log kernel flattens with distance; "
    "FIRE's input is normalised, so its curve has the same range at any length; CoPE's counted "
    "positions give a ragged curve; xPos decays the fast pair 0 to under a third at 512 tokens "
    "and the slow pair 63 by less than a tenth at 4096.")
def newer_biases(*, length: int = 64, slope: float = 0.0625, seed: int = 0,
        figsize: tuple[float, float] = (10.0, 3.6)) -> Figure:
    """Notebook 07: the rows of ``alibi_bias``, ``kerple_bias``, ``fire_bias``, ``cope_bias``
    of the last query, and ``xpos_decay`` for pairs 0, 32 and 63 of d = 128."""
    length = check_int("length", length, minimum=2)
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, length, 16)) / 2                     # illustrative q, k
    counts = cope_positions(q @ k.T)
    rows = {f"ALiBi, m = {slope:g}": alibi_bias([slope], length)[0, -1],
            "KERPLE log (r1 1.5, r2 0.5)": kerple_bias(length, 1.5, 0.5)[-1],
            "FIRE (f(x) = -6x)": fire_bias(length, lambda x: -6.0 * x)[-1],
            "CoPE (random q, k, e)": cope_bias(q, counts,
                rng.normal(size=(length + 1, 16)) / 4)[-1]}
    fig, (left, right) = plots.new_figure(1, 2, figsize=figsize)
    plots.draw_curves(left, np.arange(length)[::-1], rows, xlabel="Tokens back from the last "
        "query", ylabel="Bias added to the score")
    left.legend(fontsize=8)
    decay = xpos_decay(128, np.arange(4097))
    plots.draw_curves(right, np.arange(4097), {f"pair {i}": decay[:, i] for i in (0, 32, 63)},
        xlabel="Distance n - m", ylabel="xPos factor", yscale="log")
    left.set_title("Additive biases, one head", fontsize=10)
    right.set_title("xPos: a decay per rotary pair", fontsize=10)
    return fig


@register("stale_kv_cache", source="notebook 09",
    description="How far cached keys are off once the frequencies change: dynamic NTK and "
    "LongRoPE.",
    look_for="Position 0 is exact (no rotation); beyond it the error climbs fast, and most "
    "cached keys are off by about their own length or more, for both switches.")
def stale_kv_cache(*, seed: int = 0, figsize: tuple[float, float] = (7.0, 3.4)) -> Figure:
    """Notebook 09: relative error of cached keys, dynamic NTK by 2 at 8192 and Phi-3.5-mini's
    LongRoPE at 4097 (random keys)."""
    rng = np.random.default_rng(seed)
    dynamic = {"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
               "max_position_embeddings": 4096,
               "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    cases = {"dynamic NTK by 2, at 8192": (dynamic, 4096, 8192),
             "LongRoPE (phi-3.5-mini), at 4097": (PRESETS["phi-3.5-mini"], 4096, 4097)}
    errors = {}
    for label, (config, cached, now) in cases.items():
        old, _ = rope_frequencies_from_config(config, seq_len=cached)
        new, _ = rope_frequencies_from_config(config, seq_len=now)
        raw = rng.normal(size=(cached, 2 * old.size))
        stale = apply_rope(raw, np.arange(cached), old, pairing="half")
        fresh = apply_rope(raw, np.arange(cached), new, pairing="half")
        errors[label] = np.linalg.norm(stale - fresh, axis=1) / np.linalg.norm(fresh, axis=1)
    return _one_axes_figure(figsize, "Cached keys after the frequencies change",
        plots.draw_curves, np.arange(4096), errors, xlabel="Position of the cached key",
        ylabel="Relative error of the key", linewidth=0.8)


@register("p_rope_partial", source="notebook 09",
    description="Partial rotary and p-RoPE with the same share of rotating dims: which "
    "wavelengths each keeps.",
    look_for="Partial rotary respaces its pairs over the whole range of wavelengths, so its "
    "slowest pair is nearly as slow as RoPE's; p-RoPE keeps RoPE's fastest pairs unchanged and "
    "drops the slowest quarter, all of whose wavelengths exceed the context L.")
def p_rope_partial(*, head_dim: int = 128, base: float = 10000.0, p: float = 0.75,
        context: int = 4096, figsize: tuple[float, float] = (7.0, 3.4)) -> Figure:
    """Notebook 09: wavelengths of RoPE, partial rotary ``p`` and p-RoPE ``p``."""
    plain = inverse_frequencies(head_dim, base)
    p_rope = p_rope_frequencies(head_dim, p, base)
    partial = inverse_frequencies(rotary_dimension(head_dim, p), base)
    curves = {"RoPE": (wavelengths(plain), "none"),
              f"partial rotary {p:g} (respaced)": (wavelengths(partial), "-"),
              f"p-RoPE {p:g} (kept, the rest dropped)": (wavelengths(p_rope[p_rope > 0]), "--")}
    fig, ax = plots.new_figure(figsize=figsize)
    for label, (values, linestyle) in curves.items():  # each its own pairs, the next colour
        plots.draw_curves(ax, np.arange(values.size), {label: values}, yscale="log",
            marker=".", linestyle=linestyle, legend=False, xlabel="Pair index $i$",
            ylabel=r"Wavelength $\lambda_i$")
    ax.legend(fontsize=8, loc="upper left")
    plots.draw_reference_lines(ax, horizontal={f"L = {context:,}": float(context)})
    ax.set_title(f"d = {head_dim}: partial rotary against p-RoPE", fontsize=10)
    return fig


@register("mla_cache", source="notebook 09",
    description="Numbers one attention layer caches per token: grouped-query heads and "
    "DeepSeek-V3's MLA.",
    look_for="MLA's latent plus its shared rotary key, 576 numbers, is smaller than any "
    "grouped-query cache here and about 71 times smaller than DeepSeek-V3's 128 full heads.")
def mla_cache(*, presets: tuple[str, ...] = ("llama-3.1-8b", "qwen3-8b", "gemma-3-27b",
        "gpt-oss-20b", "deepseek-v3"), figsize: tuple[float, float] = (7.4, 3.6)) -> Figure:
    """Notebook 09: ``kv_cache_numbers`` per preset; an MLA preset also as full heads."""
    labels, numbers = [], []
    for name in presets:
        config = PRESETS[check_choice("presets", name, PRESETS)]
        labels.append(name + (" (MLA)" if "kv_lora_rank" in config else ""))
        numbers.append(kv_cache_numbers(config))
        if "kv_lora_rank" in config:
            labels.append(f"{name} as full heads")
            numbers.append(kv_cache_numbers(config, full_heads=True))
    fig, ax = plots.new_figure(figsize=figsize)
    plots.draw_grouped_bars(ax, {"numbers per token and layer": numbers}, legend=False,
        ylabel="Numbers cached per token")
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(labels)), labels, rotation=20, ha="right", fontsize=8)
    for x, value in enumerate(numbers):
        ax.text(x, value * 1.15, f"{value:,}", ha="center", fontsize=8)
    ax.set_title("KV cache per token and layer", fontsize=10)
    return fig
