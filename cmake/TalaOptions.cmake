# TALA_* build options, all prefixed so tala can be embedded in another CMake project.
string(COMPARE EQUAL "${CMAKE_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}" TALA_IS_TOP_LEVEL)
option(TALA_BUILD_TESTS "Build the GoogleTest suites" ${TALA_IS_TOP_LEVEL})
option(TALA_BUILD_BENCH "Build the benchmarks under bench/" ${TALA_IS_TOP_LEVEL})
option(TALA_BUILD_PYTHON "Build the Python package (pybind11) into <build>/python/tala" OFF)
# Off by default: a user's or packager's plain CMake build, with their flags and compiler, must
# not fail on a new warning. `make` targets and .ci/run turn it on for our own builds.
option(TALA_WERROR "Treat warnings as errors on tala's own targets" OFF)
# The engine's and the CLI's sources compiled a dozen to a unit: the heavy headers (simdjson and
# its intrinsics, nlohmann-json, CLI11) are parsed once a batch, not once a file, which halves the
# first build (make demo). The make targets turn it on; the tests are compiled file by file.
option(TALA_UNITY "Compile tala's library and CLI sources in batches (unity build)" OFF)
set(TALA_SANITIZE "" CACHE STRING
    "Sanitizers for tala's targets, as -fsanitize= takes them: '', address, undefined, address,undefined or thread")
