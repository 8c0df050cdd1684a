"""Shared fixtures of the Python module's tests. ctest runs them with Debian's python3 and
PYTHONPATH=<build>/python; ETDEM_CLI and ETDEM_SOURCE_DIR name the CLI binary and the source."""
import os
import subprocess

import pytest

SOURCE = os.environ.get("ETDEM_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
CLI = os.environ.get("ETDEM_CLI", os.path.join(SOURCE, "build", "release", "bin", "etdem"))


@pytest.fixture
def source():
    return SOURCE


@pytest.fixture
def cli():
    """Runs the etdem CLI; returns the CompletedProcess (text output)."""
    def run(*args):
        return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    return run
