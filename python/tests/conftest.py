"""Shared by the tests of tala's pytest plugin: pytest run as a child process on a folder of
test files, importing this same tala, wherever it was found."""

import os
import subprocess
import sys

import pytest

import tala


@pytest.fixture
def run_pytest():
    def run(folder, *options):
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tala.__file__)))
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "tala.pytest_plugin",
                               "-p", "no:cacheprovider", *options, str(folder)],
                              capture_output=True, text=True, cwd=folder, env=env)

    return run
