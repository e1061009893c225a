#pragma once
// The request a target gets for one golden row (or one turn of a conversation): the body
// template filled in, or by default {"question": ...} over HTTP (with "contexts" and "messages"
// when the row has given_contexts or a conversation so far) and the golden row itself for exec
// targets. Exec requests always carry the id their reply must echo. Shared by tala run's plain,
// conversation and simulated runs. Pure.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "tala/run.h"
#include "tala/status.h"
#include "tala/target_spec.h"
#include "targets/golden_rows.h"
#include "targets/reply_mapping.h"
#include "targets/target_runner.h"

namespace tala {

// The target's request body template (TargetSpec::body), parsed once; nullopt when none is
// given. kInvalidArgument when it is not JSON.
Result<std::optional<nlohmann::json>> BodyTemplate(const TargetSpec& spec);

// kInvalidArgument naming the placeholder and the row when the template names a field the row
// lacks.
Result<std::string> TargetRequest(const targets::GoldenRow& row, const TargetSpec& spec,
                                  const std::optional<nlohmann::json>& request_template);

// The call limits of `options` (in flight, timeout, retries with backoff, rate).
targets::RunnerOptions RunnerOptionsOf(const RunOptions& options);

// What the progress line shows of a run of target calls: `done` of `total` rows (or turns).
Progress TargetProgress(const targets::RunnerCounts& counts, int64_t done, int64_t total,
                        int64_t cache_hits);

// The target's reported tokens and cost of one answer, added to the report.
void CountUsage(RunReport& report, const targets::TargetAnswer& answer);

// A conversation with a target as it is played (golden conversations, simulated users): tala's
// transcript, each answer an ai message with its passages, and the target's history.
struct TargetDialogue {
  nlohmann::ordered_json transcript = nlohmann::ordered_json::array();
  nlohmann::ordered_json history = nlohmann::ordered_json::array();  // {"role", "content"}

  // The row the target gets for the user's next `message`: `golden` with it as user_input and
  // the conversation so far, the message last, as `messages`.
  targets::GoldenRow TurnRow(const targets::GoldenRow& golden, const std::string& message) const;
  // The user's message, and the target's answer to it when there is one (null: the call
  // failed), with the turn's reference when it is not null.
  void Add(const std::string& message, const targets::TargetAnswer* answer,
           const nlohmann::ordered_json& reference = nullptr);
  // The dataset row of the played conversation: `golden_row` without the target's outputs of an
  // earlier run (response, passages, latency, error, messages), the transcript as user_input
  // and the summed latency.
  nlohmann::ordered_json Row(nlohmann::ordered_json golden_row, double latency_ms) const;
};

}  // namespace tala
