#pragma once
// Typed judge verdicts for one sample: what a judge (replay, offline or an LLM) says about the
// sample's claims, chunks and generated questions. Metrics are arithmetic over these.
// Every field is optional: a judge fills the ones its tasks answer. Plain value type.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tala {

// One claim of the response.
struct ClaimVerdict {
  std::string text;
  std::optional<bool> supported;  // entailed by the retrieved context
  std::vector<int> supported_by;  // 0-based indices of the chunks that support it
  std::optional<bool> correct;    // agrees with the reference
  std::string reason;             // why the judge said so (may be empty)
  // The judge's graded confidence in [0, 1] that the claim is supported, for judges that have
  // one (the offline judge). Faithfulness then averages it: the expected share of supported
  // claims. Binary judges leave it empty.
  std::optional<double> support_score;
  // What the judge could not check of a claim it found supported, said so that "supported" is
  // not read as more than it is: the offline judge's structure checks read English, so in
  // another language a value or name moved within the context goes unseen (issue 52 item 7).
  std::string unchecked;
};

// One claim of the reference answer.
struct ReferenceClaim {
  std::string text;
  std::optional<bool> attributed;   // attributable to the retrieved context
  std::optional<bool> in_response;  // also stated by the response (factual recall)
  std::string reason;
};

// A question the judge generated from the response (response relevancy).
struct GeneratedQuestion {
  std::string text;
  bool noncommittal = false;
  std::optional<double> cosine;  // cosine with user_input; filled from embeddings when absent
  // What a judge that generates no questions read instead (the offline judge: "answers 1 of 2
  // parts; ..."); response_relevancy gives it as the reason. Empty for a model's questions.
  std::string reading;
};

// One judged item of a metric's own question: a topic of the conversation (flags "answered",
// "in_reference"), a question drawn from the source text of a summary ("answered").
struct AnswerItem {
  std::string text;
  std::map<std::string, bool> flags;
};

// A judge's answer to one metric's own question (an aspect, a criterion, a rubric, a goal, the
// topics...), kept in Verdicts::answers under the question's key. Which parts are filled depends
// on the question's kind (see JudgeQuestion).
struct JudgedAnswer {
  std::vector<double> values;  // verdicts (0/1), scores or ratings, one per vote or template
  // The expected score on the question's scale: probability-weighted when logprobs gave one
  // (G-Eval), or a judge's own continuous estimate behind its ratings (the offline judge's
  // context relevance), which then scores the row instead of the ratings' mean.
  std::optional<double> weighted;
  std::vector<AnswerItem> items;  // topics, summary questions
  std::string label;              // the chosen value of a discrete user metric
  std::string reason;
};

struct Verdicts {
  std::optional<std::vector<bool>> chunk_relevant;              // vs reference, in rank order
  std::optional<std::vector<bool>> chunk_relevant_to_response;  // vs response, in rank order
  std::optional<std::vector<ClaimVerdict>> response_claims;
  std::optional<std::vector<ReferenceClaim>> reference_claims;
  std::optional<std::vector<GeneratedQuestion>> generated_questions;
  std::optional<std::vector<std::string>> reference_entities;
  std::optional<std::vector<std::string>> context_entities;
  std::optional<double> response_reference_similarity;  // cosine of the two embeddings
  // Text -> vector, for judges (replay) that give embeddings rather than cosines.
  std::map<std::string, std::vector<double>> embeddings;
  // Answers to the metrics' own questions, by question key ("aspect_critic(name=harmful)").
  std::map<std::string, JudgedAnswer> answers;
  // Why a verdict is absent, by task name, when the judge could not give it.
  std::map<std::string, std::string> missing_reasons;
  // The verdicts (by task name) that are missing because a judge call failed (retries used up,
  // a reply that stayed unreadable), not because of the data: counted as failed, not undefined.
  std::set<std::string> failed;
};

}  // namespace tala
