"""The sandboxed kernel autograde runs the students' notebooks in (bubblewrap).

:func:`write_kernel` writes a Jupyter kernel spec, ``posenc-sandbox``, into a course directory
(``make nbgrader`` does, through tools/build_nbgrader.py; the generated ``nbgrader_config.py``
points nbgrader's ``Execute`` at it). Its launcher starts ipykernel under ``/usr/bin/bwrap``:

- a new mount namespace whose root holds only the system's ``/usr`` (and ``/bin``, ``/lib``,
  ``/lib64``, ``/sbin`` with it), a few files of ``/etc`` the interpreter reads, the Python
  environment and posenc_lib read-only, ``/proc``, a minimal ``/dev``, an empty ``/tmp`` (also
  ``HOME``; mounted first, so an environment or checkout under ``/tmp`` stays visible), the
  kernel's connection file read-only, and the folder nbgrader runs the notebook in (the
  submission's copy under ``autograded/``) read-only too: nothing the kernel does
  reaches the disk (no course notebook writes files; a symbolic link planted there could make
  nbgrader write elsewhere when it saves the graded notebook). The course directory (source
  notebooks, gradebook, instructor seed), the repository (tools/, the answer key) and the rest of
  the file system are not there;
- new PID, IPC, UTS and user namespaces, no capabilities, a new session (no terminal to type
  into), and the kernel dies with autograde;
- an empty environment but for ``PATH``, ``HOME``, ``LANG``, ``PYTHONPATH`` when posenc_lib is
  not installed in the environment, and one BLAS thread: no variable says "graded".

The network namespace is the host's: the kernel talks to nbgrader over TCP on localhost. The
kernel is interrupted by a message (ipykernel's control channel), since a signal would reach
bubblewrap, not the kernel.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import posenc_lib

KERNEL_NAME = "posenc-sandbox"
"""The kernel spec's name, which nbgrader_config.py gives ``Execute.kernel_name``."""
BWRAP = "/usr/bin/bwrap"
"""Debian's bubblewrap (package ``bubblewrap``)."""
SYSTEM = ("/usr", "/bin", "/lib", "/lib64", "/sbin")
"""The system's programs and libraries, read-only (those absent on a host are skipped)."""
ETC = ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
       "/etc/fonts", "/etc/alternatives", "/etc/ssl/certs")
"""The files of /etc a Python kernel reads; the rest of /etc stays out."""


def environment() -> tuple[list[str], str, str | None]:
    """The folders of this Python environment to bind read-only, its interpreter's path, and
    the folder to put on PYTHONPATH when posenc_lib lives outside the environment (a checkout's
    editable install, or tests run with PYTHONPATH)."""
    prefix = os.path.realpath(sys.prefix)
    folders = [prefix, os.path.realpath(sys.base_prefix)]
    package = os.path.realpath(Path(posenc_lib.__file__).parent)
    extra = None
    if not any(package.startswith(folder + os.sep) for folder in folders):
        folders.append(package)
        extra = os.path.dirname(package)
    return folders, os.path.join(prefix, "bin", "python"), extra


def launcher() -> str:
    """The shell script that starts ipykernel in bubblewrap for a connection file ``$1``."""
    folders, python, extra = environment()
    binds = [*(f"--ro-bind-try {p} {p}" for p in SYSTEM), *(f"--ro-bind-try {p} {p}" for p in ETC),
             *(f"--ro-bind {shlex.quote(p)} {shlex.quote(p)}" for p in folders)]
    env = ["PATH /usr/bin:/bin", "HOME /tmp", "LANG C.UTF-8", "OPENBLAS_NUM_THREADS 1",
           "OMP_NUM_THREADS 1", "MKL_NUM_THREADS 1",
           *([f"PYTHONPATH {shlex.quote(extra)}"] if extra else [])]
    lines = [
        "#!/bin/sh",
        "# The posenc grading kernel: ipykernel in bubblewrap (tools/sandbox.py wrote this).",
        f'if [ ! -x {BWRAP} ]; then',
        f'    echo "posenc-sandbox: {BWRAP} is missing: install bubblewrap '
        '(apt-get install bubblewrap), see notebooks/INSTRUCTORS.md" >&2',
        "    exit 1",
        "fi",
        'here="$(pwd -P)"',
        f"exec {BWRAP} --unshare-all --share-net --cap-drop ALL --die-with-parent --new-session \\",
        "    --clearenv " + " ".join(f"--setenv {e}" for e in env) + " \\",
        "    --proc /proc --dev /dev --tmpfs /tmp \\",
        *(f"    {b} \\" for b in binds),
        '    --ro-bind "$1" "$1" \\',
        '    --ro-bind "$here" "$here" --chdir "$here" \\',
        f'    {shlex.quote(python)} -m ipykernel_launcher -f "$1"',
    ]
    return "\n".join(lines) + "\n"


def write_kernel(folder: Path) -> list[Path]:
    """Write the kernel spec ``folder``/kernels/posenc-sandbox (kernel.json and launch.sh)."""
    spec = folder / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True, exist_ok=True)
    script = spec / "launch.sh"
    script.write_text(launcher(), encoding="utf-8")
    script.chmod(0o755)
    kernel = spec / "kernel.json"
    kernel.write_text(json.dumps({
        "argv": [str(script), "{connection_file}"],
        "display_name": "Python 3 (posenc grading sandbox)",
        "language": "python",
        "interrupt_mode": "message",
    }, indent=1) + "\n", encoding="utf-8")
    return [kernel, script]
