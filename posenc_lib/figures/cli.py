"""Command line of the figure registry (``python -m posenc_lib.figures`` or ``posenc-figures``):
``list``, ``build`` and ``gallery``. Every argument is checked and every figure drawn before the
first file is written; bad input prints one message and exits with status 2.

Notebook: 11_figure_gallery.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import matplotlib

from posenc_lib.figures.gallery import write_gallery
from posenc_lib.figures.registry import REGISTRY, FigureSpec, parse_parameter
from posenc_lib.plots.style import SAVE_FORMATS, course_style, save_figure

__all__ = ["main"]

PROG = "posenc-figures"
FORMATS = tuple(suffix.lstrip(".") for suffix in SAVE_FORMATS)
DEFAULT_FORMATS = ("svg", "png")


class _UsageError(Exception):
    """Bad command-line input: reported on stderr with exit status 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG,
        description="Rebuild the figures of the positional-encoding course.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("list", help="show every figure: name, source, description")
    build = commands.add_parser("build", help="draw figures and save them")
    build.add_argument("names", nargs="*", metavar="NAME", help="figures to build (default: all)")
    build.add_argument("--out", default="figures", help="output directory (default: figures)")
    build.add_argument("--format", default=",".join(DEFAULT_FORMATS),
        help=f"comma-separated formats among {','.join(FORMATS)} (default: svg,png)")
    build.add_argument("--dpi", default=None, help="resolution in dots per inch (default: 100)")
    build.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE",
        help="change a parameter, e.g. --set d_model=256 or --set heatmap_002.cmap=viridis")
    gallery = commands.add_parser("gallery", help="write README.md, the gallery of --out")
    gallery.add_argument("--out", default="figures", help="figure directory (default: figures)")
    return parser


def _check_out(text: str) -> Path:
    out = Path(text)
    if out.exists() and not out.is_dir():
        raise _UsageError(f"--out must be a directory; {text!r} is an existing file")
    parent = next((parent for parent in out.parents if parent.exists()), None)
    if parent is not None and not parent.is_dir():
        raise _UsageError(f"--out {text!r} is inside {str(parent)!r}, which is a file")
    return out


def _check_formats(text: str) -> tuple[str, ...]:
    formats = [item.strip().lower().lstrip(".") for item in text.split(",") if item.strip()]
    if not formats:
        raise _UsageError(f"--format needs at least one of {', '.join(FORMATS)}")
    unknown = [item for item in formats if item not in FORMATS]
    if unknown:
        raise _UsageError(
            f"unsupported format {unknown[0]!r} in --format {text!r}; "
            f"supported: {', '.join(FORMATS)}"
        )
    return tuple(dict.fromkeys(formats))


def _check_dpi(text: str | None) -> int | None:
    if text is not None and not (text.isdecimal() and int(text) >= 1):
        raise _UsageError(f"--dpi must be a positive integer; got {text!r}")
    return None if text is None else int(text)


def _check_names(names: Sequence[str]) -> list[FigureSpec]:
    unknown = [name for name in names if name not in REGISTRY]
    if unknown:
        raise _UsageError(
            f"unknown figure {unknown[0]!r}; known figures: {', '.join(REGISTRY)} "
            f"(see '{PROG} list')"
        )
    return [REGISTRY[name] for name in dict.fromkeys(names or REGISTRY)]


def _check_settings(settings: Sequence[str],
        specs: Sequence[FigureSpec]) -> dict[str, dict[str, Any]]:
    params: dict[str, dict[str, Any]] = {spec.name: {} for spec in specs}
    for setting in settings:
        key, sep, text = setting.partition("=")
        key = key.strip()
        if not sep or not key:
            raise _UsageError(f"--set needs KEY=VALUE; got {setting!r}")
        parameter, chosen = _figures_setting(setting, key, specs)
        for spec in chosen:
            try:
                params[spec.name][parameter] = parse_parameter(spec, parameter, text)
            except (TypeError, ValueError) as err:
                raise _UsageError(f"--set {setting!r}: {err}") from None
    return params


def _figures_setting(setting: str, key: str,
        specs: Sequence[FigureSpec]) -> tuple[str, list[FigureSpec]]:
    target, dot, parameter = key.rpartition(".")
    if dot:
        if target not in {spec.name for spec in specs}:
            raise _UsageError(
                f"--set {setting!r}: figure {target!r} is not among the figures being built"
            )
        chosen = [spec for spec in specs if spec.name == target]
    else:
        chosen = [spec for spec in specs if parameter in spec.defaults]
    if not chosen or parameter not in chosen[0].defaults:
        where = f"figure {target}" if dot else "any of the selected figures"
        known = sorted({key for spec in (chosen or specs) for key in spec.defaults})
        raise _UsageError(f"--set {setting!r}: unknown parameter {parameter!r} for {where}; "
                          f"the parameters are: {', '.join(known)}")
    return parameter, chosen


def _draw_all(specs: list[FigureSpec],
        params: dict[str, dict[str, Any]]) -> list[tuple[FigureSpec, Any, float]]:
    drawn = []
    for spec in specs:
        start = time.perf_counter()
        try:
            figure = spec.build(**params[spec.name])
        except (TypeError, ValueError) as err:
            raise _UsageError(f"figure {spec.name}: {err}") from None
        drawn.append((spec, figure, time.perf_counter() - start))
    return drawn


def _build(args: argparse.Namespace, stdout: TextIO) -> int:
    started = time.perf_counter()
    # every argument checked, every figure drawn, before the first file is written
    out, formats, dpi = _check_out(args.out), _check_formats(args.format), _check_dpi(args.dpi)
    specs = _check_names(args.names)
    drawn = _draw_all(specs, _check_settings(args.settings, specs))
    out.mkdir(parents=True, exist_ok=True)
    width = max(len(spec.name) for spec in specs)
    n_files = 0
    with course_style():
        for index, (spec, figure, seconds) in enumerate(drawn, start=1):
            start = time.perf_counter()
            written = [save_figure(figure, out / f"{spec.name}.{fmt}", dpi=dpi) for fmt in formats]
            n_files += len(written)
            seconds += time.perf_counter() - start
            files = ", ".join(path.name for path in written)
            print(
                f"[{index:>{len(str(len(drawn)))}}/{len(drawn)}] {spec.name:<{width}}  "
                f"{files}  ({seconds:.2f} s)",
                file=stdout,
            )
    elapsed = time.perf_counter() - started
    print(
        f"built {len(drawn)} figure(s), {n_files} file(s) ({','.join(formats)}) "
        f"in {out}/ in {elapsed:.1f} s",
        file=stdout,
    )
    return 0


def _gallery(args: argparse.Namespace, stdout: TextIO) -> int:
    out = _check_out(args.out)
    missing = [name for name in REGISTRY if not (out / f"{name}.png").is_file()]
    if missing:
        raise _UsageError(
            f"gallery needs the PNG of every figure in {args.out}; missing: {', '.join(missing)} "
            f"(run '{PROG} build --out {args.out} --format svg,png' first)"
        )
    path = write_gallery(out)
    print(f"wrote {path} ({len(REGISTRY)} figures)", file=stdout)
    return 0


def _list(args: argparse.Namespace, stdout: TextIO) -> int:
    name_width = max(len(name) for name in REGISTRY)
    source_width = max(len(spec.source) for spec in REGISTRY.values())
    for spec in REGISTRY.values():
        print(f"{spec.name:<{name_width}}  {spec.source:<{source_width}}  {spec.description}",
              file=stdout)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return the exit status:
    0 on success, 2 on bad input (message on stderr, nothing written)."""
    matplotlib.use("Agg")
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    handlers = {"list": _list, "build": _build, "gallery": _gallery}
    try:
        return handlers[args.command](args, sys.stdout)
    except _UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
