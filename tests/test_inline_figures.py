"""The notebooks' inline figures: ``use_course_style`` in IPython shows each figure as a retina
PNG drawn once. Each check runs in a fresh interpreter with a real IPython shell, so the shell
and the style do not leak into other tests."""

from __future__ import annotations

import json
import subprocess
import sys

_SHOW = r"""
import base64, io, json
import matplotlib
matplotlib.use("agg")
import numpy as np
from IPython.core.interactiveshell import InteractiveShell
from matplotlib.figure import Figure
from PIL import Image
from posenc_lib.plots import use_course_style

shell = InteractiveShell.instance()
use_course_style()

def shown(fig):
    data, metadata = shell.display_formatter.format(fig)
    if "image/png" not in data:
        return None
    png = base64.b64decode(data["image/png"])
    return png, metadata.get("image/png", {})

def pixels(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))

out = {}
fig = Figure(figsize=(4, 3))
ax = fig.subplots()
ax.plot([0, 1, 4], label="a line")
ax.set(title="fits", xlabel="position $t$", ylabel="value")
ax.legend()
png, meta = shown(fig)
reference = io.BytesIO()
fig.savefig(reference, format="png", dpi=200)  # Pillow's writer, the whole figure
out["fits"] = {"same_pixels": bool(np.array_equal(pixels(png), pixels(reference.getvalue()))),
               "shape": list(pixels(png).shape), "meta": meta, "png_dpi": Image.open(
                   io.BytesIO(png)).info.get("dpi", [0])[0], "fig_dpi": fig.get_dpi()}

wide = Figure(figsize=(3, 2))
wide.subplots().set_title("a title far longer than this small figure is wide, on purpose")
png, meta = shown(wide)
out["wide"] = {"width": pixels(png).shape[1], "meta": meta}
out["empty"] = shown(Figure()) is None
print(json.dumps(out))
"""


def _run() -> dict:
    done = subprocess.run([sys.executable, "-c", _SHOW], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_inline_figures_show_what_matplotlib_draws_sharp_and_whole() -> None:
    out = _run()
    fits = out["fits"]
    # one draw shows exactly the pixels matplotlib's own writer gives the whole figure at 2x
    assert fits["same_pixels"]
    assert fits["shape"][:2] == [600, 800] and fits["fig_dpi"] == 100  # dpi restored after
    assert fits["meta"] == {"width": 400, "height": 300}  # shown at the figure's own size
    assert round(fits["png_dpi"]) == 200
    # a title wider than its figure is not cut off: the picture grows to hold it, as IPython's
    # tight bounding box does, and is still shown at half its pixels
    wide = out["wide"]
    assert wide["width"] > 2 * 300 and abs(2 * wide["meta"]["width"] - wide["width"]) <= 1
    assert out["empty"]  # an empty figure shows nothing, as in IPython
