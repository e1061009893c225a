#pragma once
// Conversions between the engine's types and the plain dicts the pure-Python layer shapes
// (python/tala/). Call with the GIL held.

#include <pybind11/pybind11.h>

#include "tala/evaluate.h"
#include "tala/sample.h"
#include "tala/status.h"

namespace tala::python {

// EvalOptions from the keyword options of tala.evaluate (their `tala eval` long names).
EvalOptions ToOptions(const pybind11::dict& options);
// {"code", "message", "text", "file", "line", "field"}.
pybind11::dict ErrorDict(const Status& status);
pybind11::dict SummaryDict(const RunSummary& summary);
// A sample with its Ragas field names; "metadata" maps each extra field to its raw JSON text.
pybind11::dict SampleDict(const Sample& sample);

}  // namespace tala::python
