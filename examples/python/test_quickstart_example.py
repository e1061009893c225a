"""The quickstart example runs and prints the summary `make demo` prints."""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_quickstart_prints_the_demo_summary():
    out = subprocess.run([sys.executable, os.path.join(HERE, "quickstart.py")], check=True,
                         capture_output=True, text=True).stdout
    # The diagnosis first, then the core metrics by stage.
    assert out.startswith("diagnosis: the retriever is the principal failure: ranking noise")
    assert "judge: offline   rows: 22 scored" in out
    assert re.search(r"\n  faithfulness +0\.7168 ", out), out
    assert "rows by diagnosis:" in out
