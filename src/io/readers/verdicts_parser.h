#pragma once
// Parses the replay-verdict object of a row ("verdicts": {...}) into typed Verdicts.
// Checks types only; that the verdicts fit the sample is core/verdict_validation's job.

#include <simdjson.h>

#include "io/readers/json_fields.h"
#include "tala/verdicts.h"

namespace tala::io {

Result<Verdicts> ParseVerdicts(const FieldContext& ctx, simdjson::dom::element v);

}  // namespace tala::io
