"""A throwaway JupyterLab server for the end-to-end test: start it, wait for it, stop it.

The server runs from the project's venv (the Python that runs pytest), on 127.0.0.1 with a free
port and no token, with ``--allow-root`` when running as root. Everything it would write to the
user's home goes to a temporary directory: HOME, the Jupyter config/data/runtime directories, the
JupyterLab user settings and workspaces. The news feed, the update check and the announcements
plugin are off, so no popup covers the notebook and the server fetches nothing from outside.

It is stopped by its own process id: it starts in a new session, so its process id is also its
process group id, and :func:`stop_lab` signals that group only.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

READY_TIMEOUT = 90.0
STOP_TIMEOUT = 15.0

# JupyterLab settings written as user settings in the temporary settings directory.
USER_SETTINGS: dict[str, dict[str, Any]] = {
    # No "Would you like to receive official Jupyter news?" toast, no update check.
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    # The copies of the notebooks are never written back, not even by the autosave timer.
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
}

# Plugins switched off through page_config.json, as `jupyter labextension disable` would.
DISABLED_PLUGINS = ["@jupyterlab/apputils-extension:announcements"]


class LabServerError(RuntimeError):
    """The JupyterLab server could not be started or did not answer in time."""


@dataclass
class LabServer:
    """A running JupyterLab server started by :func:`start_lab`."""

    process: subprocess.Popen[bytes]
    port: int
    root_dir: Path
    log_path: Path
    env: dict[str, str] = field(repr=False)
    cookies: http.cookiejar.CookieJar = field(default_factory=http.cookiejar.CookieJar, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _xsrf_token(self, timeout: float) -> str:
        """The ``_xsrf`` cookie the server sets on its pages (needed for POST/DELETE)."""
        for cookie in self.cookies:
            if cookie.name == "_xsrf" and cookie.value:
                return cookie.value
        self._open(urllib.request.Request(f"{self.url}/lab"), timeout).close()
        for cookie in self.cookies:
            if cookie.name == "_xsrf" and cookie.value:
                return cookie.value
        raise LabServerError(f"{self.url}/lab set no _xsrf cookie")

    def _open(self, request: urllib.request.Request, timeout: float) -> Any:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        return opener.open(request, timeout=timeout)

    def api(self, method: str, path: str, timeout: float = 10.0) -> Any:
        """Call the Jupyter REST API (no token is needed) and return the decoded JSON or None."""
        request = urllib.request.Request(f"{self.url}{path}", method=method)
        if method != "GET":
            request.add_header("X-XSRFToken", self._xsrf_token(timeout))
        with self._open(request, timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    def log_tail(self, n_lines: int = 60) -> str:
        """The last lines the server wrote to its log."""
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no server log)"
        return "\n".join(lines[-n_lines:])


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))


def lab_environment(home: Path) -> dict[str, str]:
    """Environment for the server and its kernels, with every user directory under ``home``.

    Also writes the JupyterLab configuration, page config and user settings there.
    """
    dirs = {
        "HOME": home,
        "JUPYTER_CONFIG_DIR": home / "jupyter-config",
        "JUPYTER_DATA_DIR": home / "jupyter-data",
        "JUPYTER_RUNTIME_DIR": home / "jupyter-runtime",
        "JUPYTERLAB_SETTINGS_DIR": home / "lab-user-settings",
        "JUPYTERLAB_WORKSPACES_DIR": home / "lab-workspaces",
        "IPYTHONDIR": home / "ipython",
        "MPLCONFIGDIR": home / "matplotlib",
        "XDG_CACHE_HOME": home / "cache",
        "XDG_CONFIG_HOME": home / "config",
        "XDG_DATA_HOME": home / "data",
    }
    for directory in dirs.values():
        directory.mkdir(parents=True, exist_ok=True)
    config_dir = dirs["JUPYTER_CONFIG_DIR"]
    _write_json(
        config_dir / "jupyter_server_config.json",
        {
            "LabApp": {
                "news_url": None,
                "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
            }
        },
    )
    _write_json(
        config_dir / "labconfig" / "page_config.json",
        {"disabledExtensions": {plugin: True for plugin in DISABLED_PLUGINS}},
    )
    for plugin, settings in USER_SETTINGS.items():
        _write_json(dirs["JUPYTERLAB_SETTINGS_DIR"] / f"{plugin}.jupyterlab-settings", settings)

    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("JUPYTER", "JPY_", "IPYTHON", "MPL"))
    }
    env.update({key: str(value) for key, value in dirs.items()})
    env["PYTHONUNBUFFERED"] = "1"
    # The venv's bin first, so the kernel and every tool come from the project's venv.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def lab_command(port: int, root_dir: Path) -> list[str]:
    """The command line that starts JupyterLab from the running (venv) Python."""
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root_dir}",
        # window.jupyterapp lets the test read the notebook model (output types, kernel status).
        "--LabApp.expose_app_in_browser=True",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    return command


def start_lab(root_dir: Path, home: Path, log_path: Path) -> LabServer:
    """Start JupyterLab serving ``root_dir``; the caller must call :func:`stop_lab`."""
    env = lab_environment(home)
    port = free_port()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            lab_command(port, root_dir),
            cwd=root_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return LabServer(process=process, port=port, root_dir=root_dir, log_path=log_path, env=env)


def wait_until_ready(server: LabServer, timeout: float = READY_TIMEOUT) -> float:
    """Wait until the REST API and the /lab page answer; return the seconds it took."""
    start = time.monotonic()
    last_error = "no answer yet"
    while time.monotonic() - start < timeout:
        code = server.process.poll()
        if code is not None:
            raise LabServerError(
                f"JupyterLab exited with code {code} before it was ready.\n{server.log_tail()}"
            )
        try:
            status = server.api("GET", "/api/status", timeout=5)
            with urllib.request.urlopen(f"{server.url}/lab", timeout=10) as response:
                page = response.read().decode("utf-8", errors="replace")
            if "jupyter-config-data" in page and isinstance(status, dict):
                return time.monotonic() - start
            last_error = "the /lab page has no jupyter-config-data"
        except (OSError, urllib.error.URLError, ValueError) as error:
            last_error = repr(error)
        time.sleep(0.25)
    raise LabServerError(
        f"JupyterLab did not answer on {server.url} within {timeout:.0f} s "
        f"(last error: {last_error}).\n{server.log_tail()}"
    )


def port_was_taken(server: LabServer) -> bool:
    """Whether the server exited because its port was already in use."""
    return server.process.poll() is not None and "already in use" in server.log_tail()


def shutdown_kernels(server: LabServer) -> None:
    """Ask the server to shut down every session's kernel (best effort, the server may be gone)."""
    try:
        for session in server.api("GET", "/api/sessions", timeout=5) or []:
            server.api("DELETE", f"/api/sessions/{session['id']}", timeout=10)
        for kernel in server.api("GET", "/api/kernels", timeout=5) or []:
            server.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=10)
    except (OSError, urllib.error.URLError, ValueError):
        pass


def stop_lab(server: LabServer) -> int | None:
    """Stop the server by its own process group: kernels first, then SIGTERM, then SIGKILL.

    Returns the server's exit code (None if it could not be reaped).
    """
    if server.process.poll() is None:
        shutdown_kernels(server)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if server.process.poll() is not None:
            break
        try:
            os.killpg(server.process.pid, sig)
        except ProcessLookupError:
            break
        try:
            server.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            continue
    # Whatever is left of the group (a stuck child) goes too; the group id is our child's pid.
    try:
        os.killpg(server.process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        return server.process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None


def shutdown_session(server: LabServer, path: str) -> int:
    """Shut down the kernel session of the document ``path``; return how many were shut down."""
    count = 0
    for session in server.api("GET", "/api/sessions", timeout=5) or []:
        if session.get("path") == path:
            server.api("DELETE", f"/api/sessions/{session['id']}", timeout=15)
            count += 1
    return count
