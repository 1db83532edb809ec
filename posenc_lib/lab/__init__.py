"""The lab: tiny decoder-only Transformers in JAX, trained on a laptop CPU, to test what the
course claims about position schemes.

Importing this package imports no JAX: ``tasks``, ``schemes`` and ``results`` (the committed
results) need NumPy only; ``model``, ``train``, ``offsets`` and ``experiments`` (the grid behind
``make experiments``) need JAX, optax and tqdm.

Notebook: 10_length_generalisation_lab.
"""

import os as _os

# One XLA thread per process: the models are tiny, and on a 2-core machine this avoids
# contention (20 ms instead of 26 ms per step). Set before JAX starts; a user's XLA_FLAGS wins.
_os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
