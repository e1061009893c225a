"""Shared by the tests: pytest run as a child process on a folder of test files, importing this
same tala, wherever it was found (for the tests of tala's pytest plugin); the mock judge on
127.0.0.1 (for the tests that call an LLM judge)."""

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


@pytest.fixture(scope="module")
def mock_judge():
    """The built tala-mock-judge on a free port of 127.0.0.1: its base URL."""
    source = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    binary = os.environ.get("TALA_BINARY_DIR", os.path.join(source, "build"))
    mock = subprocess.Popen([os.path.join(binary, "tala-mock-judge")], stdout=subprocess.PIPE,
                            text=True)
    try:
        yield mock.stdout.readline().strip()
    finally:
        mock.terminate()
        mock.wait()
