#pragma once
// Reads a target's reply (JSON) into the dataset fields, by the paths of a TargetSpec. Errors name
// the path that failed and what it held. Pure; thread-safe.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tala/status.h"
#include "tala/target_spec.h"

namespace tala::targets {

struct TargetAnswer {
  std::string response;
  std::vector<std::string> contexts;
  bool contexts_given = false;  // the reply had contexts (optional when the call gave them)
  std::optional<std::vector<std::string>> context_ids;
  std::optional<int64_t> prompt_tokens, completion_tokens;
  std::optional<double> cost_usd;
};

// kBadReply: not JSON, a path missing, or a value of the wrong type; a reply carrying an
// "error" string (and no response) is kBadReply with that text.
// `contexts_required` false (a call that gave the target its contexts): a reply without contexts
// is read, with contexts_given false.
Result<TargetAnswer> ReadReply(std::string_view body, const TargetSpec& spec,
                               bool contexts_required = true);

}  // namespace tala::targets
