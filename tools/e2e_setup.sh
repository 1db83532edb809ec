#!/usr/bin/env bash
# Set up what the end-to-end test (tests/e2e) needs beyond the Python packages of pyproject.toml:
# Debian's `chromium` package at /usr/bin/chromium. Playwright (from the dev extra) drives that
# binary through `executable_path`; `playwright install` is never run.
#
# Usage: bash tools/e2e_setup.sh       (as root, or with sudo available)
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
    echo "e2e setup: $CHROMIUM is present"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "e2e setup: $CHROMIUM is missing and this user cannot install Debian packages" >&2
    echo "e2e setup: run as root: apt-get update && apt-get install -y chromium" >&2
    exit 1
fi

echo "e2e setup: installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium fonts-dejavu-core

if [ ! -x "$CHROMIUM" ]; then
    echo "e2e setup: apt-get finished but $CHROMIUM is still missing" >&2
    exit 1
fi
"$CHROMIUM" --version
