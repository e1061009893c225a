#pragma once
// Binds gate, compare, calibrate, power and write_reports into the _tala module.

#include <pybind11/pybind11.h>

namespace tala::python {

void BindAnalyses(pybind11::module_& m);

}  // namespace tala::python
