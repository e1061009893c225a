"""The sample outputs in README.md and docs/*.md are what the commands print: each fenced block
after a `<!-- sample: COMMAND -->` line is run and compared with the command's real output (the
block is the output's beginning, so a sample may stop early)."""

import glob
import os
import re
import shlex
import subprocess

import pytest

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY_DIR = os.environ.get("TALA_BINARY_DIR", os.path.join(SOURCE, "build"))
SAMPLE = re.compile(r"<!-- sample: (.+?) -->\n```\n(.*?)```\n", re.S)


def samples():
    found = []
    for page in ["README.md", *sorted(glob.glob("docs/*.md", root_dir=SOURCE))]:
        with open(os.path.join(SOURCE, page), encoding="utf-8") as f:
            found += SAMPLE.findall(f.read())
    return found


def test_the_docs_have_samples():
    assert len(samples()) >= 3


@pytest.mark.parametrize("command,expected", samples())
def test_a_readme_sample_is_what_the_command_prints(command, expected, tmp_path):
    argv = shlex.split(command)
    assert argv[0] == "tala", command
    argv[0] = os.path.join(BINARY_DIR, "tala")
    # Paths in the sample are the repository's; the results file goes to a scratch folder.
    argv = [os.path.join(SOURCE, a) if a.startswith("examples/") else a for a in argv]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(expected), (
        f"README sample of `{command}` differs from its output:\n{done.stdout}")
