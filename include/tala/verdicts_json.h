#pragma once
// Verdicts written as JSON, in the replay format of a dataset row's "verdicts" field
// ({"response_claims": [{"text": ..., "supported": true}], "chunk_relevant": [...], ...}), for
// judges that live outside C++ (the Python package's custom judges). Thread-safe.

#include <string>
#include <string_view>

#include "tala/sample.h"
#include "tala/status.h"
#include "tala/verdicts.h"

namespace tala {

// Parses and checks the verdicts against the sample exactly as a replay row's are (types, list
// lengths, chunk indices). kDataError names `source`, the sample's line and the field.
Result<Verdicts> VerdictsFromJson(std::string_view json, const Sample& sample,
                                  const std::string& source);

}  // namespace tala
