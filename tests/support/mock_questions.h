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
// nullopt when the request is not one of these prompts. A pairwise criterion (two answers A and
// B in the answer field, tala compare --pairwise) picks the answer that overlaps the question,
// reference and contexts more, or always A with `prefer_first` (a judge with position bias).
std::optional<MockQuestionReply> MockQuestionAnswer(const std::string& system,
                                                    const std::string& user,
                                                    bool prefer_first = false);

}  // namespace tala::testing
