"""The word-order explorer: does a tiny self-attention notice the order of the words?

Notebook: 00_why_position.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import ipywidgets
import numpy as np
from numpy.typing import NDArray

from posenc_lib.attention import VOCAB, self_attention, word_order_model
from posenc_lib.plots import draw_attention_weights, draw_grouped_bars
from posenc_lib.scorecard import encode
from posenc_lib.widgets._base import Explorer
from posenc_lib.widgets._raster import PixelRaster

__all__ = ["WordOrderExplorer"]

ORDERS: tuple[str, ...] = ("the cat was chasing the mouse", "the mouse was chasing the cat",
    "mouse the chasing cat the was",)
ENCODINGS: tuple[str, ...] = ("none", "integer", "normalised")


class WordOrderExplorer(Explorer):
    """Attention weights of a reordered sentence, and one word's output in two orders.
    Controls: ``order``, ``encoding`` (what is added to every embedding coordinate: "none",
    "integer" or "normalised") and ``word``. Without position the bars match for every order.
    """

    words = ("cat", "mouse", "was", "chasing")

    def __init__(self, d_model: int = 8, seed: int = 0) -> None:
        super().__init__(figsize=(9.0, 3.8))
        self.table, self.w_q, self.w_k, self.w_v = word_order_model(d_model, seed)
        runs = {(o, e): self._run(o, e) for o in ORDERS for e in ENCODINGS}
        self.reference = {e: runs[ORDERS[0], e][0] for e in ENCODINGS}
        # one y range per encoding and word, wide enough for that word's bars in every order
        self.limits = {
            (e, w): 1.15 * max(
                float(np.abs(runs[o, e][0][o.split().index(w)]).max()) for o in ORDERS
            )
            for e in ENCODINGS
            for w in self.words
        }
        out, weights = runs[ORDERS[0], "none"]
        with self.style():
            left, right = self.figure.subplots(1, 2, width_ratios=[1.0, 1.3])
            self.attention = draw_attention_weights(left, weights, query_labels=ORDERS[0].split(),
                numbers=False, colorbar=True)
            left.set_title("attention weights (row: query)", fontsize=9, pad=42)
            self.bars = draw_grouped_bars(right, {"in this order": out[1],
                f"in '{ORDERS[0]}'": out[1]}, xlabel="Output dimension", ylabel="Value",
                legend=False)
            # under the axis, never over the bars (their heights change with every control)
            right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
            self.title = right.set_title("", fontsize=9, y=1.0)  # fixed y: drawn alone
        self.bar_axes = right
        self.raster = PixelRaster(self.attention.image)  # paints the weights without resampling
        self.changing = [*(self.raster if artist is self.attention.image else artist
            for artist in self.attention.artists()),
            *(patch for container in self.bars for patch in container.patches), self.title]
        # descriptions and options shown whole: no "position c..." and no cut-off order
        whole = {"style": {"description_width": "initial"}, "layout": {"width": "auto"}}
        self.add_control("order", ipywidgets.Dropdown(options=ORDERS, value=ORDERS[1],
            description="order", **whole))
        self.add_control("encoding", ipywidgets.Dropdown(options=ENCODINGS, value="none",
            description="position code", **whole))
        self.add_control("word", ipywidgets.Dropdown(options=self.words, value="cat",
            description="word", **whole))
        self.freeze_layout()  # the bars' tick labels are never wider than at the defaults
        self.refresh()

    def _run(self, order: str, encoding: str) -> tuple[NDArray[Any], NDArray[Any]]:
        words = order.split()
        x = self.table[[VOCAB.index(w) for w in words]]
        if encoding != "none":
            # x_p = e_p + code(p), the same number added to every coordinate
            x = x + encode(encoding, range(len(words)), sentence_length=len(words))
        return self_attention(x, self.w_q, self.w_k, self.w_v)

    def background_key(self) -> Hashable:
        return self.controls["encoding"].value, self.controls["word"].value  # the bars' y range

    def update(self, order: str, encoding: str, word: str) -> None:  # type: ignore[override]
        words = order.split()
        out, weights = self._run(order, encoding)
        self.attention.update(weights, words)
        mine = out[words.index(word)]
        theirs = self.reference[encoding][ORDERS[0].split().index(word)]
        for container, values in zip(self.bars, (mine, theirs), strict=True):
            for patch, value in zip(container.patches, values, strict=True):
                patch.set_height(float(value))
        self.bar_axes.set_ylim(-self.limits[encoding, word], self.limits[encoding, word])
        change = float(np.abs(mine - theirs).max())
        self.title.set_text(f"output of '{word}' ({encoding}): largest change {change:.3f}")
