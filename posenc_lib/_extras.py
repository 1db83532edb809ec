"""The error an optional layer raises when its extra is not installed: it names the extra and the
command that installs it (``pip install .`` gives the NumPy core only).

posenc_lib.plots and posenc_lib.figures need the ``plots`` extra (matplotlib), posenc_lib.widgets
the ``notebooks`` extra (ipywidgets too), the lab's model, training and grid
(posenc_lib.lab.model, .train, .experiments) the ``lab`` extra (JAX, optax, tqdm).
"""

from __future__ import annotations

EXTRAS = ("plots", "notebooks", "lab")
"""The extras a layer may ask for (pyproject.toml's optional dependencies)."""


def missing_extra(module: str, extra: str, error: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error to raise from ``error``, a third-party import of ``module`` that failed: it
    says which ``extra`` installs the missing module, and keeps ``error.name``.

    Raises
    ------
    ValueError
        If ``extra`` is not one of :data:`EXTRAS`.
    """
    if extra not in EXTRAS:
        raise ValueError(f"extra must be one of {', '.join(map(repr, EXTRAS))}; got {extra!r}")
    return ModuleNotFoundError(
        f"{module} needs {error.name}, which is not installed: install the {extra!r} extra, "
        f"pip install 'posenc_lib[{extra}]' (in a clone: pip install -e '.[{extra}]')",
        name=error.name)
