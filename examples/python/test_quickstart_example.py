"""The quickstart example runs and prints the summary `make demo` prints."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_quickstart_prints_the_demo_summary():
    out = subprocess.run([sys.executable, os.path.join(HERE, "quickstart.py")], check=True,
                         capture_output=True, text=True).stdout
    assert "judge: offline   rows: 22 scored" in out
    assert "faithfulness              0.7168" in out
    assert "diagnosis (rows):" in out
