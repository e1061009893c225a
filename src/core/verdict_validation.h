#pragma once
// Checks once, at the edge, that a sample's verdicts fit it (list lengths, chunk indices, vector
// sizes), so metrics can be total functions. Pure; thread-safe.

#include "tala/sample.h"
#include "tala/status.h"
#include "tala/verdicts.h"

namespace tala {

// Returns kDataError naming the field ("verdicts.chunk_relevant") and the row's file and line.
// Also fills GeneratedQuestion::cosine from `embeddings` where a cosine is absent and both
// vectors are given (which is why it takes the verdicts by reference).
Status ValidateVerdicts(const Sample& sample, Verdicts& verdicts, const std::string& file);

// Cosine of two vectors; nullopt when the sizes differ or a norm is zero.
std::optional<double> Cosine(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace tala
