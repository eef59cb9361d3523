#!/usr/bin/env bash
# Set up a virtual environment with the test extras and run the whole test suite.
# System tools the tests use (GNU Backgammon) are installed by .ci/run; tests that
# need one skip with a clear reason where it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip >/dev/null
.venv/bin/pip install -q -e '.[dev]'
.venv/bin/ruff check .
# Three workers, a test file each at a time (the files' module fixtures render footage once): on two cores
# this halves the suite's time, most tests waiting on servers and subprocesses. BGSCRIBE_TEST_WORKERS=0: one process.
.venv/bin/python -m pytest -n "${BGSCRIBE_TEST_WORKERS:-3}" --dist loadfile "$@"
