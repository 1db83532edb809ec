"""The lab: tiny decoder-only Transformers in JAX, trained on a laptop CPU, to test what the
course claims about position schemes.

Importing this package imports no JAX; the modules that need it are imported by name::

    from posenc_lib.lab import train          # JAX, optax and tqdm
    from posenc_lib.lab import results        # NumPy only: the committed results

Modules: ``tasks`` and ``schemes`` (NumPy), ``model`` and ``train`` (JAX), ``experiments``
(the grid behind ``make experiments``) and ``results`` (reading its JSON).

Notebook: 10_length_generalisation_lab.
"""

import os as _os

# The models are tiny: one XLA thread per process avoids contention on a 2-core machine
# (measured 20 ms instead of 26 ms per step). Set before JAX starts; a user's XLA_FLAGS wins.
_os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
