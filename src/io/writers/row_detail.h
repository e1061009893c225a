#pragma once
// The drill-down part of a results row: the row's texts ("inputs": question, response,
// reference, ranked chunks) and the judge's verdicts (claims with their support and supporting
// chunks, chunk relevance, reference-claim attribution, generated questions, entities), so a
// report can show why each score is what it is without running the judge again. Pure.

#include <string>

#include "tala/sample.h"
#include "tala/verdicts.h"

namespace tala::io {

// Appends `,"inputs":{...},"verdicts":{...}` to a results line being built.
void AppendRowDetail(std::string& out, const Sample& sample, const Verdicts& verdicts);

}  // namespace tala::io
