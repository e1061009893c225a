#pragma once
// Writes Python rows (dicts) as JSON Lines for the engine's reader, one row a line, so a bad
// row's line is its index + 1. Done in C++ because json.dumps per row costs a quarter of the
// engine's own time on non-LLM metrics (bench/python_overhead.py).

#include <pybind11/pybind11.h>

#include <string>

namespace tala::python {

// TypeError when a row is not a dict; OSError when the file cannot be written. Values that are
// not JSON types (numpy scalars, dates) are written as Python's json.dumps(v, default=str) does.
void WriteRowsJsonl(const pybind11::iterable& rows, const std::string& path);

}  // namespace tala::python
