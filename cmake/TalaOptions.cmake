# TALA_* build options, all prefixed so tala can be embedded in another CMake project.
string(COMPARE EQUAL "${CMAKE_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}" TALA_IS_TOP_LEVEL)
option(TALA_BUILD_TESTS "Build the GoogleTest suites" ${TALA_IS_TOP_LEVEL})
option(TALA_BUILD_BENCH "Build the benchmarks under bench/" ${TALA_IS_TOP_LEVEL})
option(TALA_WERROR "Treat warnings as errors on tala's own targets" ON)
set(TALA_SANITIZE "" CACHE STRING "Sanitizer for tala's targets: '', address, undefined or thread")
