"""Installs the tala Python package: CMake builds the engine and its pybind11 module (target
tala_python) into a build folder, and the package (compiled module and pure-Python layer) is
copied from <build>/python/tala.

The build folder: TALA_BUILD_DIR when set; else ./build when `make` made it for this source tree
with the Python module on (pip then only brings it up to date: nothing is built twice); else a
Release build of its own under build/pip. The build's progress goes to the terminal, which pip
would otherwise leave silent for minutes."""

import os
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def _reusable(build_dir):
    """Whether build_dir is a CMake build of this source tree with the Python module on."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            cache = f.read()
    except OSError:
        return False
    home = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache, re.M)
    python = re.search(r"^TALA_BUILD_PYTHON:BOOL=(ON|TRUE|1)$", cache, re.M)
    return bool(home and python and os.path.realpath(home.group(1)) == os.path.realpath(ROOT))


def _build_dir():
    if os.environ.get("TALA_BUILD_DIR"):
        return os.environ["TALA_BUILD_DIR"]
    made = os.path.join(ROOT, "build")
    return made if _reusable(made) else os.path.join(ROOT, "build", "pip")


def _terminal():
    """The terminal, when there is one: pip captures a build's output and shows none of it."""
    try:
        return open("/dev/tty", "w")
    except OSError:
        return None


BUILD_DIR = _build_dir()
# setuptools' own scratch (build/lib, egg-info) goes inside the CMake build folder, never into the
# source tree.
SCRATCH = os.path.join(BUILD_DIR, "setuptools")
os.makedirs(SCRATCH, exist_ok=True)


class BuildWithCMake(build_py):
    def run(self):
        build_dir = BUILD_DIR
        tty = _terminal()
        out = {"stdout": tty, "stderr": subprocess.STDOUT} if tty else {}
        try:
            if tty:
                tty.write(f"tala: building the engine's Python module in {build_dir}\n")
                tty.flush()
            if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
                subprocess.check_call([
                    "cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release", "-DTALA_BUILD_PYTHON=ON",
                    "-DTALA_BUILD_TESTS=OFF", "-DTALA_BUILD_BENCH=OFF",
                    f"-DPython_EXECUTABLE={sys.executable}"], **out)
            subprocess.check_call(["cmake", "--build", build_dir, "--target", "tala_python"],
                                  **out)
        finally:
            if tty:
                tty.close()
        source = os.path.join(build_dir, "python", "tala")
        target = os.path.join(self.build_lib, "tala")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True  # the package holds a compiled module: a platform wheel


setup(
    name="tala",
    version="0.1.0",
    description="Evaluate retrieval-augmented generation (RAG) systems: Ragas' metrics, "
                "computed by a C++ engine",
    packages=["tala"],
    package_dir={"tala": "python/tala"},
    python_requires=">=3.11",
    cmdclass={"build_py": BuildWithCMake},
    # pytest finds tala's plugin (the tala_gate and tala_judge fixtures, --tala-judge).
    entry_points={"pytest11": ["tala = tala.pytest_plugin"]},
    options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}},
    distclass=BinaryDistribution,
)
