"""One story about each engine: the table in posenc_lib.engines, and the notebooks that show it.

Notebooks 06 and 09 render the table; outside it, no sentence of theirs that names vLLM or SGLang
states a formula, no code line that names them does arithmetic, and every code citation of 06,
08 and 09 gives a commit or a released version.
"""

from __future__ import annotations

import io
import re
import tokenize

import pytest

from posenc_lib.engines import ENGINE_FACTS, dynamic_ntk_table_factor, engine_table
from tools.notebook_cells import ROOT, load, source

NOTEBOOKS = {name: ROOT / "notebooks" / f"{name}.ipynb" for name in (
    "06_context_extension", "08_numerical_precision", "09_rope_in_todays_models")}
RENDERING = ("06_context_extension", "09_rope_in_todays_models")
PINNED = re.compile(r"commit [0-9a-f]{7,40}\b|\b\d+\.\d+\.\d+\b")
ENGINES = re.compile(r"\b(vLLM|SGLang)\b")


def test_every_fact_names_a_commit_or_a_version() -> None:
    for fact in ENGINE_FACTS:
        assert PINNED.search(fact.source), fact
        assert fact.source.count("`") % 2 == 0 and fact.computes.count("$") % 2 == 0, fact


def test_longrope_and_llama3_rows_for_transformers_and_vllm() -> None:
    for kind in ("longrope", "llama3", "dynamic", "yarn"):
        engines = {row.engine for row in engine_table([kind]).rows}
        assert {"transformers", "vLLM"} <= engines, kind
    vllm_long = next(r for r in ENGINE_FACTS if (r.rope_type, r.engine) == ("longrope", "vLLM"))
    assert "max_model_len" in vllm_long.computes and "phi3_long_rope" in vllm_long.source


def test_engine_table_markdown_has_one_row_per_fact() -> None:
    text = engine_table()._repr_markdown_()
    body = text.splitlines()[2:]
    assert len(body) == len(ENGINE_FACTS)
    assert all(line.count(" | ") == 3 for line in body)  # no cell breaks the table
    assert engine_table("llama3").rows == engine_table(["llama3"]).rows
    with pytest.raises(ValueError, match="rope_types.*'ntk'"):
        engine_table(["ntk"])


def test_dynamic_ntk_table_factor_by_the_closed_forms() -> None:
    for factor in (1.0, 2.0, 8.0, 16.0):
        assert dynamic_ntk_table_factor("vLLM", factor) == 1.0         # (Ls)/L - (s - 1)
        assert dynamic_ntk_table_factor("SGLang", factor) == factor**2 - factor + 1
    with pytest.raises(ValueError, match="engine.*'vLLM'"):
        dynamic_ntk_table_factor("vllm", 2.0)
    with pytest.raises(ValueError, match="factor"):
        dynamic_ntk_table_factor("SGLang", 0.5)


def _shown_tables(name: str) -> list[tuple[str, str]]:
    """(source, stored Markdown) of each code cell of the notebook that calls engine_table."""
    shown = []
    for cell in load(NOTEBOOKS[name])["cells"]:
        if cell["cell_type"] == "code" and "engine_table(" in source(cell):
            outputs = [o["data"]["text/markdown"] for o in cell.get("outputs", [])
                       if "text/markdown" in o.get("data", {})]
            assert len(outputs) == 1, f"{name}: the engine table cell shows no stored table"
            shown.append((source(cell), "".join(outputs[0])))
    return shown


@pytest.mark.parametrize("name", RENDERING)
def test_notebooks_show_the_librarys_table(name: str) -> None:
    shown = _shown_tables(name)
    assert shown, f"{name} does not render the engine table"
    for code, markdown in shown:
        call = code.strip().splitlines()[-1]
        expected = eval(call, {"engine_table": engine_table})._repr_markdown_()
        assert markdown == expected, f"{name}: the stored table is not the library's"


def _sentences(name: str) -> list[str]:
    """The markdown sentences of a notebook, one line each."""
    out = []
    for cell in load(NOTEBOOKS[name])["cells"]:
        if cell["cell_type"] == "markdown":
            text = " ".join(source(cell).split())
            out += re.split(r"(?<=[.;:])\s+(?=[A-Za-z*(`])", text)
    return out


@pytest.mark.parametrize("name", RENDERING)
def test_no_engine_formula_outside_the_table(name: str) -> None:
    for sentence in _sentences(name):
        if ENGINES.search(sentence):
            assert "$" not in sentence, f"{name}: an engine's formula outside the table: {sentence}"
            assert "static NTK" not in sentence and "base of the" not in sentence, sentence


@pytest.mark.parametrize("name", RENDERING)
def test_no_code_line_computes_an_engine_formula(name: str) -> None:
    arithmetic = {"+", "-", "*", "/", "**", "//"}
    for cell in load(NOTEBOOKS[name])["cells"]:
        if cell["cell_type"] != "code":
            continue
        tokens = list(tokenize.generate_tokens(io.StringIO(source(cell) + "\n").readline))
        for line in {t.start[0] for t in tokens}:
            on_line = [t for t in tokens if t.start[0] == line]
            names = {t.string.lower() for t in on_line if t.type == tokenize.NAME}
            if any("vllm" in n or "sglang" in n for n in names):
                ops = {t.string for t in on_line if t.type == tokenize.OP} & arithmetic
                assert not ops, f"{name}: engine arithmetic outside posenc_lib.engines: {line}"


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_every_code_citation_is_pinned(name: str) -> None:
    cited = [s for s in _sentences(name) if re.search(r"\.py`", s)]
    assert cited
    for sentence in cited:
        assert PINNED.search(sentence), f"{name}: a code citation without commit or version: " \
            f"{sentence[:160]}"
    text = " ".join(_sentences(name))
    assert "layers/rotary_embedding.py`" not in text  # the module is a package today
