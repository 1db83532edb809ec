"""A rope type added to ROPE_TYPES enrols in nothing by itself: notebook 06's methods, the
figures and the explorers list theirs by name (posenc_lib.scaling.SCALING_METHODS).

tests/registry_probe.py reports, in a fresh process, every name the notebooks import from
posenc_lib (data as itself, functions by their defaults), every catalogue figure (defaults, a
digest of its artists, the PNG of the context-extension ones) and every explorer (defaults, its
controls' options and values); once as the package is, once with a made-up type ``made_up`` whose
required key ``alpha`` no default supplies. The two reports must be the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tools.notebook_cells import ROOT


def _reports() -> tuple[dict[str, Any], dict[str, Any]]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    runs = [subprocess.Popen([sys.executable, "-m", "tests.registry_probe", *flag], cwd=ROOT,
                             env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for flag in ((), ("--made-up",))]
    outputs = [run.communicate(timeout=600) for run in runs]
    for run, (_, errors) in zip(runs, outputs, strict=True):
        assert run.returncode == 0, errors
    plain, made_up = (json.loads(out) for out, _ in outputs)
    return plain, made_up


def _differences(plain: Any, made_up: Any, where: str = "") -> list[str]:
    if isinstance(plain, dict) and isinstance(made_up, dict):
        found = [f"{where}.{key}: only with made_up" for key in made_up.keys() - plain.keys()]
        found += [f"{where}.{key}: gone with made_up" for key in plain.keys() - made_up.keys()]
        for key in plain.keys() & made_up.keys():
            found += _differences(plain[key], made_up[key], f"{where}.{key}")
        return found
    return [] if plain == made_up else [f"{where}: {plain!r:.120} -> {made_up!r:.120}"]


def test_a_new_rope_type_changes_no_notebook_default_figure_or_explorer() -> None:
    plain, made_up = _reports()
    # the made-up type really is registered, and it really requires alpha
    assert not plain["registered"] and made_up["registered"]
    assert "alpha" in made_up["made_up_needs_alpha"] and "raised" in made_up[
        "made_up_needs_alpha"]
    # the probe saw what it should: notebook 06's methods, its figures and its explorer
    assert "posenc_lib.scaling.SCALING_METHODS" in plain["notebooks"]
    assert {"frequency_ratio", "unseen_by_method"} <= plain["figures"].keys()
    assert "method" in plain["explorers"]["ScalingExplorer"]["built"]["controls"]
    failed = [name for part in ("figures", "explorers") for name, seen in plain[part].items()
              if "raised" in json.dumps(seen)]
    assert not failed, f"these failed to build as the package is: {failed}"
    differences = [found for part in ("notebooks", "figures", "explorers")
                   for found in _differences(plain[part], made_up[part], part)]
    assert not differences, "a new rope type changed:\n" + "\n".join(sorted(differences))
