"""Every fenced `sh` and `python` block of README.md and docs/*.md runs, so an example cannot rot.

A block runs in a scratch folder that holds `build` (this build) and `examples` (the repository's),
with `tala` on PATH, the package importable, and an OpenAI-compatible judge: the mock judge
(OPENAI_BASE_URL and OPENAI_API_KEY point at it), so `--judge openai:MODEL` examples run without a
key or a network. Shell blocks run under `bash -e`: an example whose command is meant to fail says
so (`|| echo "exit $?"`). Processes a block leaves in the background are stopped after it.

A block that cannot run here says why on the line before its fence:
`<!-- not run: REASON -->` (a full rebuild of the project, a paid API, a second machine)."""

import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("TALA_BINARY_DIR", os.path.join(SOURCE, "build"))
BLOCK = re.compile(r"(?:<!-- not run: (?P<why>.+?) -->\n)?[ ]*```(?P<lang>sh|python)\n"
                   r"(?P<code>.*?)```", re.S)
PAGES = ["README.md", *sorted(glob.glob("docs/*.md", root_dir=SOURCE))]
# The file names the docs use for "your data", each the demo data in the scratch folder.
DATA_NAMES = {"data.jsonl": "interactions.jsonl", "logs.jsonl": "interactions.jsonl",
              "rows.jsonl": "interactions.jsonl", "interactions.jsonl": "interactions.jsonl",
              "golden.jsonl": "golden.jsonl"}


def _digests(folder):
    """Each file under `folder` (links not followed) and its SHA-256."""
    out = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    out[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return out


def blocks(page):
    """(line, lang, code, why) of each block of a page, in order."""
    with open(os.path.join(SOURCE, page), encoding="utf-8") as f:
        text = f.read()
    return [(text.count("\n", 0, m.start("lang")) + 1, m.group("lang"),
             textwrap.dedent(m.group("code")), m.group("why")) for m in BLOCK.finditer(text)]


def test_the_docs_have_blocks_and_most_run():
    found = [b for page in PAGES for b in blocks(page)]
    runnable = [b for b in found if b[3] is None]
    assert len(found) >= 15 and len(runnable) >= len(found) // 2, (len(found), len(runnable))
    assert all(len(b[3]) > 10 for b in found if b[3] is not None), "a skipped block says why"


def run_block(lang, code, folder, env):
    argv = ["bash", "-e", "-c", code] if lang == "sh" else [sys.executable, "-c", code]
    # Output goes to a file, not a pipe: a server a block leaves in the background would hold a
    # pipe open after the block ends.
    log = folder / "output.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            exit_code = proc.wait(timeout=300)
        finally:
            try:
                os.killpg(proc.pid, signal.SIGTERM)  # what the block left running
            except ProcessLookupError:
                pass
    return exit_code, log.read_text(errors="replace")


# A page's blocks run in order in one folder, as a reader following the page would run them.
@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)])
def test_a_pages_blocks_run(page, tmp_path, mock_judge):
    os.symlink(os.path.abspath(BINARY), tmp_path / "build")
    os.symlink(os.path.abspath(os.path.join(SOURCE, "examples")), tmp_path / "examples")
    # Copies, not links: a block that writes "your data" (tala testset accept -o golden.jsonl)
    # must not write the repository's example files.
    for name, demo in DATA_NAMES.items():
        shutil.copyfile(os.path.join(SOURCE, "examples", "data", demo), tmp_path / name)
    examples_before = _digests(os.path.join(SOURCE, "examples"))
    env = dict(os.environ, PATH=os.path.abspath(BINARY) + os.pathsep + os.environ["PATH"],
               PYTHONPATH=os.path.join(os.path.abspath(BINARY), "python"),
               OPENAI_BASE_URL=mock_judge, OPENAI_API_KEY="docs-runner-key")
    ran = 0
    for line, lang, code, why in blocks(page):
        if why is not None:
            continue
        exit_code, output = run_block(lang, code, tmp_path, env)
        assert exit_code == 0, f"{page}:{line}: the block exited {exit_code}:\n{output[-4000:]}"
        changed = sorted(k for k, v in _digests(os.path.join(SOURCE, "examples")).items()
                         if examples_before.get(k) != v)
        assert not changed, f"{page}:{line}: the block changed the repository's examples: {changed}"
        ran += 1
    if ran == 0:
        pytest.skip(f"{page}: every block says why it does not run")
