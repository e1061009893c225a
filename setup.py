"""Installs the tala Python package: CMake builds the engine and its pybind11 module (target
tala_python) into a build folder, and the package (compiled module and pure-Python layer) is
copied from <build>/python/tala. TALA_BUILD_DIR reuses an existing build folder instead of
making one under build/pip."""

import os
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = os.environ.get("TALA_BUILD_DIR") or os.path.join(ROOT, "build", "pip")
# setuptools' own scratch (build/lib, egg-info) goes inside the CMake build folder, never into the
# source tree.
SCRATCH = os.path.join(BUILD_DIR, "setuptools")
os.makedirs(SCRATCH, exist_ok=True)


class BuildWithCMake(build_py):
    def run(self):
        build_dir = BUILD_DIR
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            subprocess.check_call([
                "cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
                "-DCMAKE_BUILD_TYPE=Release", "-DTALA_BUILD_PYTHON=ON",
                "-DTALA_BUILD_TESTS=OFF", "-DTALA_BUILD_BENCH=OFF",
                f"-DPython_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "tala_python"])
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
