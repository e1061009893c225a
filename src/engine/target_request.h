#pragma once
// The request a target gets for one golden row (or one turn of a conversation): the body
// template filled in, or by default {"question": ...} over HTTP (with "contexts" and "messages"
// when the row has given_contexts or a conversation so far) and the golden row itself for exec
// targets. Exec requests always carry the id their reply must echo. Shared by tala run's plain,
// conversation and simulated runs. Pure.

#include <nlohmann/json.hpp>
#include <string>

#include "tala/status.h"
#include "tala/target_spec.h"
#include "targets/golden_rows.h"

namespace tala {

// kInvalidArgument naming the placeholder and the row when the template names a field the row
// lacks.
Result<std::string> TargetRequest(const targets::GoldenRow& row, const TargetSpec& spec,
                                  const nlohmann::json* request_template);

}  // namespace tala
