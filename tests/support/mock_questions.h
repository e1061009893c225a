#pragma once
// The mock judge's answers to the metrics' own question prompts (criteria, ratings, agent goal,
// topics, SQL equivalence, summary questions and answers, G-Eval steps and scores): derived
// deterministically from the request by word overlap, as the other mock answers are.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tala::testing {

struct MockQuestionReply {
  std::string task;  // the prompt's name: "criteria", "rating", "agent_goal", ...
  nlohmann::json reply;
};
// nullopt when the request is not one of these prompts.
std::optional<MockQuestionReply> MockQuestionAnswer(const std::string& system,
                                                    const std::string& user);

}  // namespace tala::testing
