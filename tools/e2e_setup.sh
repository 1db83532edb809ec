#!/usr/bin/env bash
# Set up what the tests need beyond the Python packages of pyproject.toml, from Debian:
# - `chromium` at /usr/bin/chromium for the end-to-end test (tests/e2e). Playwright (from the dev
#   extra) drives that binary through `executable_path`; `playwright install` is never run.
# - `bubblewrap` at /usr/bin/bwrap for nbgrader's grading kernel (tools/sandbox.py), which
#   tests/test_nbgrader.py and tests/test_grading_integrity.py run autograde in.
#
# Usage: bash tools/e2e_setup.sh       (as root, or with sudo available)
set -euo pipefail

CHROMIUM=/usr/bin/chromium
BWRAP=/usr/bin/bwrap

missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium fonts-dejavu-core)
[ -x "$BWRAP" ] || missing+=(bubblewrap)

if [ "${#missing[@]}" -eq 0 ]; then
    echo "e2e setup: $CHROMIUM and $BWRAP are present"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "e2e setup: ${missing[*]} missing and this user cannot install Debian packages" >&2
    echo "e2e setup: run as root: apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
fi

echo "e2e setup: installing Debian's ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"

for binary in "$CHROMIUM" "$BWRAP"; do
    if [ ! -x "$binary" ]; then
        echo "e2e setup: apt-get finished but $binary is still missing" >&2
        exit 1
    fi
done
"$CHROMIUM" --version
"$BWRAP" --version
