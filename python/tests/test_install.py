"""`pip install --no-build-isolation .` into a fresh virtualenv (made with
--system-site-packages, as docs/python.md says), offline: the installed package imports from the
virtualenv, scores like the build folder's, and registers the pytest plugin. The install reuses
this build folder, so it builds nothing new: found by itself when the folder is the source
tree's ./build, named by TALA_BUILD_DIR otherwise."""

import os
import subprocess
import sys

import tala

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("TALA_BINARY_DIR", os.path.join(SOURCE, "build"))
DEMO = os.path.join(SOURCE, "examples", "data", "interactions.jsonl")


def test_pip_install_into_a_virtualenv_works_offline(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env = {k: v for k, v in env.items() if k != "TALA_BUILD_DIR"}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    found_by_itself = os.path.realpath(BINARY) == os.path.realpath(os.path.join(SOURCE, "build"))
    if not found_by_itself:
        env["TALA_BUILD_DIR"] = os.path.abspath(BINARY)
    own_build = os.path.join(SOURCE, "build", "pip", "CMakeCache.txt")
    had_own_build = os.path.exists(own_build)
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation",
                              "--no-deps", os.path.abspath(SOURCE)],
                             capture_output=True, text=True, env=env, cwd=tmp_path)
    assert install.returncode == 0, install.stdout + install.stderr
    assert os.path.exists(own_build) == had_own_build  # no second build of the engine
    probe = ("import tala; print(tala.__file__); "
             f"print(repr(tala.evaluate({DEMO!r}, metrics=['faithfulness'], progress=False)"
             "['faithfulness']))")
    run = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True,
                         text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    where, mean = run.stdout.split()
    assert where.startswith(str(venv))
    assert float(mean) == tala.evaluate(DEMO, metrics=["faithfulness"],
                                        progress=False)["faithfulness"]
    stubs = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / \
        "site-packages" / "tala"
    assert (stubs / "__init__.pyi").exists() and (stubs / "py.typed").exists()
    plugin = subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "--help"],
                            capture_output=True, text=True, env=env, cwd=tmp_path)
    assert "--tala-judge" in plugin.stdout  # the pytest11 entry point is registered
