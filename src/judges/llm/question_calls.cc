#include "judges/llm/question_calls.h"

#include <algorithm>

#include "judges/llm/question_replies.h"
#include "judges/llm/request_json.h"
#include "metrics/role_adherence.h"

namespace tala::judges::llm {

namespace {

using nlohmann::json;
using K = JudgeQuestion::Kind;

bool InCriteriaCall(const JudgeQuestion& q) {
  return q.kind == K::kVerdict || q.kind == K::kScore || q.kind == K::kChoice ||
         q.kind == K::kRanking;
}

size_t ContextCount(const Sample& s) {
  return s.retrieved_contexts ? s.retrieved_contexts->size() : 0;
}

std::string Joined(const std::optional<std::vector<std::string>>& texts) {
  std::string out;
  if (!texts) return out;
  for (size_t i = 0; i < texts->size(); ++i) out += (i ? "\n" : "") + (*texts)[i];
  return out;
}

// The row's texts, under the names the prompts use; absent fields are left out.
void AddMaterial(const Sample& s, Request& r, bool with_reference_contexts) {
  if (s.is_multi_turn()) {
    r["conversation"] = Transcript(s);
  } else if (s.user_input) {
    r["question"] = *s.user_input;
  }
  if (s.response) r["answer"] = *s.response;
  if (s.reference) r["reference"] = *s.reference;
  if (s.retrieved_contexts) {
    Request::array_t contexts;
    for (size_t i = 0; i < s.retrieved_contexts->size(); ++i) {
      contexts.push_back(Request{{"n", i + 1}, {"text", (*s.retrieved_contexts)[i]}});
    }
    r["contexts"] = std::move(contexts);
  }
  if (with_reference_contexts && s.reference_contexts)
    r["reference_contexts"] = *s.reference_contexts;
}

Request Criterion(const Sample& s, const JudgeQuestion& q) {
  Request c = {{"id", q.key}, {"type", JudgeQuestionKindName(q.kind)}};
  if (!q.definition.empty()) c["definition"] = q.definition;
  if (q.kind == K::kScore) {
    c["min"] = q.lo;
    c["max"] = q.hi;
    c["integer"] = q.integer;
    Request levels = Request::object();
    if (q.row_rubrics && s.rubrics) {
      for (const auto& [level, text] : *s.rubrics) levels[level] = text;
    }
    for (const auto& [level, text] : q.levels) levels[level] = text;
    if (!levels.empty()) c["levels"] = std::move(levels);
  }
  if (q.kind == K::kChoice) c["choices"] = q.choices;
  return c;
}

const char* RatingPrompt(const JudgeQuestion& q, int which) {
  if (q.definition == "answer_accuracy") {
    return which == 0 ? "rate_answer_accuracy_a" : "rate_answer_accuracy_b";
  }
  if (q.definition == "context_relevance") {
    return which == 0 ? "rate_context_relevance_a" : "rate_context_relevance_b";
  }
  return which == 0 ? "rate_response_groundedness_a" : "rate_response_groundedness_b";
}

ModelCall For(CallKind kind, const JudgeQuestion& q, const Request& user, const json& schema,
              const char* prompt = nullptr) {
  ModelCall call =
      ChatCall(kind, prompt ? prompt : CallKindName(kind),
               static_cast<TaskSet>(JudgeTask::kAnswerQuestions), Encode(user), schema);
  call.question_keys = {q.key};
  return call;
}

const json kString = JsonType("string");
const json kBool = JsonType("boolean");
const json kInt = JsonType("integer");

}  // namespace

namespace {

// The role the row gives its assistant (metrics/role_adherence.h): the first of its role fields
// that holds a text that is not blank.
std::optional<std::string> AssistantRole(const Sample& sample) {
  for (const char* field : metrics::kRoleFields) {
    for (const auto& [name, raw] : sample.metadata) {
      if (name != field) continue;
      const json value = json::parse(raw, nullptr, false);
      if (!value.is_string()) continue;
      const std::string& text = value.get_ref<const std::string&>();
      if (text.find_first_not_of(" \t\r\n") != std::string::npos) return text;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string Transcript(const Sample& s) {
  if (!s.is_multi_turn()) return s.user_input.value_or("");
  std::string out;
  for (const Message& m : s.messages) {
    const char* role = m.type == Message::Type::kHuman ? "user"
                       : m.type == Message::Type::kAi  ? "assistant"
                                                       : "tool";
    out += (out.empty() ? "" : "\n") + std::string(role) + ": " + m.content;
    for (const ToolCall& call : m.tool_calls) {
      out += " [" + call.name + "(";
      for (size_t i = 0; i < call.args.size(); ++i) {
        out += (i ? ", " : "") + call.args[i].first + "=" + call.args[i].second;
      }
      out += ")]";
    }
  }
  return out;
}

QuestionCalls::QuestionCalls(const Sample& sample, std::vector<JudgeQuestion> questions)
    : sample_(sample), questions_(std::move(questions)) {}

const JudgeQuestion* QuestionCalls::Find(const std::string& key) const {
  for (const JudgeQuestion& q : questions_) {
    if (q.key == key) return &q;
  }
  return nullptr;
}

ModelCall QuestionCalls::CriteriaCall(int vote) const {
  Request::array_t criteria;
  std::vector<std::string> keys;
  for (const JudgeQuestion& q : questions_) {
    if (!InCriteriaCall(q) || (q.kind == K::kRanking && ContextCount(sample_) == 0)) continue;
    if (vote > 0 && !(q.kind == K::kVerdict && q.votes > vote)) continue;
    criteria.push_back(Criterion(sample_, q));
    keys.push_back(q.key);
  }
  ModelCall call;
  if (keys.empty()) return call;
  Request user = {{"criteria", std::move(criteria)}};
  // A later round of verdicts is another request (and another cache entry) for the same
  // criteria: "round" says which, so the model is asked afresh instead of the cache replying.
  if (vote > 0) user["round"] = vote + 1;
  AddMaterial(sample_, user, /*with_reference_contexts=*/true);
  // The role the assistant was given, for the criterion that grades against it (only then: the
  // other criteria's requests, and their cache entries, stay as they were).
  for (const JudgeQuestion& q : questions_) {
    if (q.definition != metrics::kRoleAdherenceDefinition) continue;
    if (std::find(keys.begin(), keys.end(), q.key) == keys.end()) continue;
    if (auto role = AssistantRole(sample_)) user["role"] = *role;
  }
  json result =
      ObjectSchema({{"id", kString},
                    {"reason", kString},
                    {"verdict", Nullable("integer")},
                    {"score", Nullable("number")},
                    {"choice", Nullable("string")},
                    {"ranking", {{"type", json::array({"array", "null"})}, {"items", kInt}}}});
  call =
      ChatCall(CallKind::kCriteria, "criteria", static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
               Encode(user), ObjectSchema({{"results", ArrayOf(result)}}));
  call.question_keys = std::move(keys);
  call.vote = vote;
  return call;
}

std::vector<ModelCall> QuestionCalls::FirstCalls(Verdicts& verdicts) const {
  std::vector<ModelCall> calls;
  int rounds = 0;
  for (const JudgeQuestion& q : questions_) {
    if (InCriteriaCall(q)) rounds = std::max(rounds, q.kind == K::kVerdict ? q.votes : 1);
    if (q.kind == K::kRanking && ContextCount(sample_) == 0) {
      verdicts.answers[q.key].reason = "no retrieved contexts to rank";
    }
  }
  if (rounds > 0) {
    // Every round of verdicts in one request, as `n` choices; a server that gives fewer is asked
    // the remaining rounds one call each (FollowUpCalls).
    ModelCall call = CriteriaCall(0);
    call.choices = rounds;
    if (!call.question_keys.empty()) calls.push_back(std::move(call));
  }
  for (const JudgeQuestion& q : questions_) {
    const std::string reference = sample_.reference.value_or("");
    const std::string answer = sample_.response.value_or("");
    switch (q.kind) {
      case K::kRating: {
        for (int which = 0; which < 2; ++which) {
          Request user;
          if (q.definition == "answer_accuracy") {
            // The second template reads from the reference's side, with the roles swapped.
            user = which == 0 ? Request{{"question", sample_.user_input.value_or("")},
                                        {"answer", answer},
                                        {"reference", reference}}
                              : Request{{"question", sample_.user_input.value_or("")},
                                        {"trusted", reference},
                                        {"candidate", answer}};
          } else {
            if (q.definition == "context_relevance") {
              user["question"] = sample_.user_input.value_or("");
            } else {
              user["answer"] = answer;
            }
            user["contexts"] = Joined(sample_.retrieved_contexts);
          }
          ModelCall call = For(CallKind::kRating, q, user, ObjectSchema({{"rating", kInt}}),
                               RatingPrompt(q, which));
          call.template_ = which;
          calls.push_back(std::move(call));
        }
        break;
      }
      case K::kGoal: {
        Request user = {{"workflow", Transcript(sample_)}};
        if (sample_.reference) user["desired_outcome"] = reference;
        calls.push_back(For(CallKind::kGoal, q, user,
                            ObjectSchema({{"user_goal", kString},
                                          {"end_state", kString},
                                          {"reason", kString},
                                          {"verdict", kInt}})));
        break;
      }
      case K::kTopics: {
        Request user = {
            {"conversation", Transcript(sample_)},
            {"reference_topics", sample_.reference_topics.value_or(std::vector<std::string>{})}};
        json topic =
            ObjectSchema({{"topic", kString}, {"answered", kBool}, {"in_reference", kBool}});
        calls.push_back(
            For(CallKind::kTopics, q, user, ObjectSchema({{"topics", ArrayOf(topic)}})));
        break;
      }
      case K::kSqlEquivalence: {
        Request user = {{"schema", Joined(sample_.reference_contexts)},
                        {"response_sql", answer},
                        {"reference_sql", reference}};
        calls.push_back(For(CallKind::kSqlEquivalence, q, user,
                            ObjectSchema({{"response_explanation", kString},
                                          {"reference_explanation", kString},
                                          {"equivalent", kBool}})));
        break;
      }
      case K::kSummary: {
        Request user = {{"source", Joined(sample_.reference_contexts)}};
        calls.push_back(
            For(CallKind::kSummaryQuestions, q, user,
                ObjectSchema({{"keyphrases", ArrayOf(kString)}, {"questions", ArrayOf(kString)}})));
        break;
      }
      case K::kGEval: {
        // Only the criterion: the same request for every row, so the cache answers all but one.
        Request user = {{"criteria", q.definition}};
        calls.push_back(
            For(CallKind::kGEvalSteps, q, user, ObjectSchema({{"steps", ArrayOf(kString)}})));
        break;
      }
      default:
        break;
    }
  }
  return calls;
}

std::vector<ModelCall> QuestionCalls::FollowUpCalls() const {
  std::vector<ModelCall> calls;
  for (int vote : missing_rounds_) {
    ModelCall call = CriteriaCall(vote);
    if (!call.question_keys.empty()) calls.push_back(std::move(call));
  }
  for (const JudgeQuestion& q : questions_) {
    if (q.kind == K::kSummary) {
      auto it = summary_questions_.find(q.key);
      if (it == summary_questions_.end()) continue;
      Request user = {{"summary", sample_.response.value_or("")}, {"questions", it->second}};
      calls.push_back(
          For(CallKind::kSummaryAnswers, q, user, ObjectSchema({{"answers", ArrayOf(kBool)}})));
    } else if (q.kind == K::kGEval) {
      auto it = steps_.find(q.key);
      if (it == steps_.end()) continue;
      Request user = {{"criteria", q.definition}, {"steps", it->second}};
      AddMaterial(sample_, user, /*with_reference_contexts=*/false);
      ModelCall call =
          For(CallKind::kGEvalScore, q, user, ObjectSchema({{"reason", kString}, {"score", kInt}}));
      call.logprobs = true;  // for the probability-weighted score, where the server gives them
      calls.push_back(std::move(call));
    }
  }
  return calls;
}

Status QuestionCalls::Accept(const ModelCall& call, std::string_view reply, Verdicts& verdicts) {
  if (call.question_keys.empty()) return Internal("a question call without questions");
  const JudgeQuestion* q = Find(call.question_keys.front());
  if (q == nullptr) return Internal("a reply for a question the row did not ask");
  switch (call.kind) {
    case CallKind::kCriteria: {
      std::vector<const JudgeQuestion*> asked;
      for (const std::string& key : call.question_keys) asked.push_back(Find(key));
      std::vector<std::string> choices = {std::string(reply)};
      if (call.choices > 1) {
        TALA_ASSIGN_OR_RETURN(PackedReply packed, UnpackReply(reply));
        choices = std::move(packed.choices);
        if (choices.size() > static_cast<size_t>(call.choices)) choices.resize(call.choices);
      }
      // Parse every choice before keeping any, so a bad one leaves nothing half-taken.
      std::vector<std::vector<JudgedAnswer>> parsed;
      for (const std::string& choice : choices) {
        TALA_ASSIGN_OR_RETURN(auto answers, ParseCriteria(choice, asked, ContextCount(sample_)));
        parsed.push_back(std::move(answers));
      }
      for (size_t c = 0; c < parsed.size(); ++c) {
        const int vote = call.vote + static_cast<int>(c);
        for (size_t i = 0; i < asked.size(); ++i) {
          const JudgeQuestion& one = *asked[i];
          if (vote > 0 && !(one.kind == K::kVerdict && one.votes > vote)) continue;
          auto& rounds = votes_[one.key];
          rounds.resize(one.kind == K::kVerdict ? one.votes : 1);
          rounds[vote] = std::move(parsed[c][i]);
        }
      }
      for (int vote = call.vote + static_cast<int>(parsed.size()); vote < call.vote + call.choices;
           ++vote) {
        missing_rounds_.push_back(vote);  // the server gave fewer choices than asked
      }
      for (const JudgeQuestion* one : asked) {
        auto& rounds = votes_[one->key];
        if (std::any_of(rounds.begin(), rounds.end(), [](const auto& r) { return !r; })) continue;
        JudgedAnswer whole = *rounds.front();
        for (size_t r = 1; r < rounds.size(); ++r) whole.values.push_back(rounds[r]->values[0]);
        verdicts.answers[one->key] = std::move(whole);
      }
      break;
    }
    case CallKind::kRating: {
      TALA_ASSIGN_OR_RETURN(double rating, ParseRating(reply, *q));
      auto& both = ratings_[q->key];
      both[call.template_] = rating;
      if (both[0] && both[1]) verdicts.answers[q->key].values = {*both[0], *both[1]};
      break;
    }
    case CallKind::kGoal: {
      TALA_ASSIGN_OR_RETURN(verdicts.answers[q->key], ParseGoal(reply));
      break;
    }
    case CallKind::kTopics: {
      TALA_ASSIGN_OR_RETURN(verdicts.answers[q->key], ParseTopics(reply));
      break;
    }
    case CallKind::kSqlEquivalence: {
      TALA_ASSIGN_OR_RETURN(verdicts.answers[q->key], ParseSqlEquivalence(reply));
      break;
    }
    case CallKind::kSummaryQuestions: {
      TALA_ASSIGN_OR_RETURN(summary_questions_[q->key], ParseSummaryQuestions(reply));
      break;
    }
    case CallKind::kSummaryAnswers: {
      const std::vector<std::string>& asked = summary_questions_[q->key];
      TALA_ASSIGN_OR_RETURN(std::vector<bool> yes, ParseSummaryAnswers(reply, asked.size()));
      JudgedAnswer a;
      for (size_t i = 0; i < asked.size(); ++i)
        a.items.push_back({asked[i], {{"answered", yes[i]}}});
      verdicts.answers[q->key] = std::move(a);
      break;
    }
    case CallKind::kGEvalSteps: {
      TALA_ASSIGN_OR_RETURN(steps_[q->key], ParseGEvalSteps(reply));
      break;
    }
    case CallKind::kGEvalScore: {
      TALA_ASSIGN_OR_RETURN(PackedReply packed, UnpackReply(reply));
      TALA_ASSIGN_OR_RETURN(JudgedAnswer a, ParseGEvalScore(packed.choices[0], *q));
      // G-Eval's expected score: the score tokens the model weighed, by their probabilities.
      if (auto at = ScoreOffset(packed.choices[0])) {
        a.weighted = WeightedNumber(packed.number_tokens, *at, q->lo, q->hi);
      }
      verdicts.answers[q->key] = std::move(a);
      break;
    }
    default:
      return Internal("not a question call");
  }
  return OkStatus();
}

void QuestionCalls::Fail(const ModelCall& call, const std::string& reason, Verdicts& verdicts) {
  for (const std::string& key : call.question_keys) {
    verdicts.missing_reasons["answers." + key] = reason;
    verdicts.failed.insert("answers." + key);
    verdicts.answers.erase(key);
  }
}

}  // namespace tala::judges::llm
