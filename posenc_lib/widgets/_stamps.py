"""An Agg canvas that rasterises each word once and stamps its pixels on later draws.

Notebooks: every explorer (00_why_position to 11_figure_gallery) draws on this canvas.

Text is most of what an explorer's Agg draw costs: FreeType lays out and rasterises every
glyph of every label each time a figure is drawn, about 0.1 ms per glyph at two device pixels
per CSS pixel. Yet the texts repeat: when a slider moves an axis range, the new tick labels
are mostly the strings the axis showed before ("0", "100", "200", ...) at new places, and a
title that reports a slider's value changes a number or two of its words.
:class:`StampRenderer` keeps the coverage (alpha) of each word it has drawn, keyed by the
word, its font, angle and alpha, and blends those pixels in the text's colour the next time:
a copy instead of a rasterisation.

A stamp sits on whole device pixels: the text's anchor is rounded to the nearest pixel,
where Matplotlib would place it at a fraction of one (at most half a device pixel away, a
quarter of a CSS pixel at the explorers' pixel ratio of 2). A text with a clip path goes to
Agg as usual.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from numpy.typing import NDArray

__all__ = ["Stamp", "StampCanvas", "StampRenderer"]

_PAD = 2  # device pixels around a text's extent, for antialiasing and rounding


@dataclass(frozen=True)
class Stamp:
    """The coverage of one drawn text, the pixel its anchor falls on, and its advance.

    Attributes
    ----------
    alpha : numpy.ndarray
        Coverage times the text's alpha, 0..255, rows from the top.
    row, col : int
        The anchor's pixel in ``alpha`` (the ``x, y`` given to Agg's ``draw_text``).
    advance : float
        How far the text moves the pen, in device pixels (its width in Agg's metrics).
    """

    alpha: NDArray[np.uint8]
    row: int
    col: int
    advance: float


def _rasterise(renderer: RendererAgg, gc: Any, s: str, prop: Any, angle: float,
               ismath: Any) -> Stamp:
    """Draw the text alone on a transparent scratch canvas and keep its coverage.

    The scratch canvas holds the text whichever way the anchor is defined and whatever the
    angle: it reaches the text's width plus height from the anchor on every side.
    """
    width, height, _ = renderer.get_text_width_height_descent(s, prop, ismath)
    reach = math.ceil(height) + (math.ceil(width) if angle % 360 else 0)
    size_x = math.ceil(width) + 2 * reach + 2 * _PAD
    size_y = 2 * reach + 2 * _PAD
    col, row = reach + _PAD, reach + _PAD  # Agg's text y runs down from the top
    scratch = RendererAgg(size_x, size_y, renderer.dpi)
    scratch_gc = scratch.new_gc()
    scratch_gc.copy_properties(gc)
    scratch_gc.set_clip_rectangle(None)
    scratch_gc.set_clip_path(None)
    RendererAgg.draw_text(scratch, scratch_gc, col, row, s, prop, angle, ismath)
    alpha = np.asarray(scratch.buffer_rgba())[..., 3]
    rows, cols = np.nonzero(np.any(alpha, axis=1))[0], np.nonzero(np.any(alpha, axis=0))[0]
    if rows.size == 0:  # nothing drawn (a blank string)
        return Stamp(np.zeros((0, 0), np.uint8), 0, 0, width)
    top, left = rows[0], cols[0]
    cropped = alpha[top : rows[-1] + 1, left : cols[-1] + 1].copy()
    return Stamp(cropped, row - top, col - left, width)


def _blend(buffer: NDArray[np.uint8], stamp: Stamp, top: int, left: int,
           clip: tuple[int, int, int, int], rgb: NDArray[np.float32]) -> None:
    r"""Blend ``rgb`` into ``buffer`` with the stamp's alpha, its top-left at (top, left).

    ``clip`` is (first row, first column, row after, column after) of what may change.

    Notes
    -----
    Over an existing pixel :math:`d` with coverage :math:`a = \alpha / 255`:
    :math:`d_{rgb} \leftarrow d_{rgb} + a\,(c - d_{rgb})` and
    :math:`d_{a} \leftarrow d_{a} + a\,(255 - d_{a})`, Agg's blending of plain RGBA.
    """
    row0, col0, row1, col1 = clip
    height, width = stamp.alpha.shape
    r0, c0 = max(top, row0), max(left, col0)
    r1, c1 = min(top + height, row1), min(left + width, col1)
    if r1 <= r0 or c1 <= c0:
        return
    a = stamp.alpha[r0 - top : r1 - top, c0 - left : c1 - left, None] * np.float32(1 / 255)
    target = buffer[r0:r1, c0:c1]
    pixels = target.astype(np.float32)
    pixels[..., :3] += a * (rgb - pixels[..., :3])
    pixels[..., 3:] += a * (255.0 - pixels[..., 3:])
    np.rint(pixels, out=pixels)
    target[...] = pixels


class StampRenderer(RendererAgg):
    """Agg's renderer, drawing each text from stamps once they have been rasterised.

    Horizontal plain text is stamped word by word, so a title whose numbers follow a slider
    rasterises only its new numbers: the pen moves by each word's advance plus a space's,
    which is how Agg lays out the whole line (its advances are additive; kerning across a
    space is the only difference, and DejaVu Sans has none). Rotated text and mathtext are
    stamped whole.

    Parameters
    ----------
    width, height : int
        Canvas size in device pixels.
    dpi : float
        Device pixels per inch.
    """

    max_stamps: int = 512
    """How many stamps are kept; the least recently drawn goes first."""

    def __init__(self, width: int, height: int, dpi: float) -> None:
        super().__init__(width, height, dpi)
        self.stamps: OrderedDict[Hashable, Stamp] = OrderedDict()

    def draw_text(self, gc: Any, x: float, y: float, s: str, prop: Any, angle: float,
                  ismath: Any = False, mtext: Any = None) -> None:
        if gc.get_clip_path()[0] is not None:
            super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
            return
        if ismath or angle % 360:
            self._draw_stamp(gc, x, y, s, prop, angle, ismath)
            return
        space = self._stamp(gc, " ", prop, 0, False).advance
        for word in s.split(" "):
            if word:
                x += self._draw_stamp(gc, x, y, word, prop, 0, False).advance
            x += space

    def _stamp(self, gc: Any, s: str, prop: Any, angle: float, ismath: Any) -> Stamp:
        """The stamp of this text, rasterised on first use."""
        key = (s, prop, angle, ismath, gc.get_alpha(), gc.get_antialiased())
        stamp = self.stamps.get(key)
        if stamp is None:
            stamp = self.stamps[key] = _rasterise(self, gc, s, prop, angle, ismath)
            if len(self.stamps) > self.max_stamps:
                self.stamps.popitem(last=False)
        else:
            self.stamps.move_to_end(key)
        return stamp

    def _draw_stamp(self, gc: Any, x: float, y: float, s: str, prop: Any, angle: float,
                    ismath: Any) -> Stamp:
        """Blend the text's stamp in the gc's colour with its anchor at (x, y); return it."""
        stamp = self._stamp(gc, s, prop, angle, ismath)
        buffer = np.asarray(self.buffer_rgba())
        clip = (0, 0, *buffer.shape[:2])
        rectangle = gc.get_clip_rectangle()
        if rectangle is not None:  # rows from the top, whole pixels
            x0, y0, x1, y1 = rectangle.extents
            clip = (max(0, round(self.height - y1)), max(0, round(x0)),
                    min(clip[2], round(self.height - y0)), min(clip[3], round(x1)))
        rgb = np.asarray(gc.get_rgb()[:3], dtype=np.float32) * 255
        # Agg's text y runs down from the top
        _blend(buffer, stamp, round(y) - stamp.row, round(x) - stamp.col, clip, rgb)
        return stamp


class StampCanvas(FigureCanvasAgg):
    """A ``FigureCanvasAgg`` whose renderer is a :class:`StampRenderer`."""

    def get_renderer(self) -> RendererAgg:
        key = (*self.get_width_height(physical=True), self.figure.dpi)
        if getattr(self, "_stamp_key", None) != key:
            self.renderer = StampRenderer(key[0], key[1], key[2])
            self._stamp_key = key
        return self.renderer
