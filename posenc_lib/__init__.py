"""posenc_lib: the small library behind the positional-encoding course.

The stable API, used by the notebooks and by other code::

    from posenc_lib import sinusoidal_encoding, rope_frequencies, apply_rope

Importing the package loads NumPy only. Pictures live in ``posenc_lib.plots`` (matplotlib),
explorers in ``posenc_lib.widgets`` (ipywidgets) and exercises in ``posenc_lib.exercises``;
import those explicitly.
"""

from __future__ import annotations

from posenc_lib.models import rope_frequencies_from_config
from posenc_lib.rope import apply_rope
from posenc_lib.scaling import rope_frequencies
from posenc_lib.sinusoidal import sinusoidal_encoding

__all__ = ["apply_rope", "rope_frequencies", "rope_frequencies_from_config", "sinusoidal_encoding"]
__version__ = "0.1.0"


def _after_guess(line: str, cell: str) -> object:
    """The cell magic ``%%after_guess NAME`` of the learner's copies: posenc_lib.predict's."""
    from posenc_lib.predict import after_guess

    return after_guess(line, cell)


def _register_magic() -> None:
    """Register ``%%after_guess`` in a running IPython (never importing IPython itself)."""
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        shell.register_magic_function(_after_guess, magic_kind="cell", magic_name="after_guess")


_register_magic()
