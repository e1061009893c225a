#include "judges/llm/question_replies.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/judge_questions.h"
#include "judges/llm/reply_parser.h"

namespace tala::judges::llm {

namespace {

using nlohmann::json;

Status Bad(std::string message) { return {ErrorCode::kBadReply, std::move(message)}; }

Result<json> Object(std::string_view reply) {
  TALA_ASSIGN_OR_RETURN(std::string text, ExtractJsonObject(reply));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Bad("reply is not a JSON object: " + text.substr(0, 120));
  }
  return j;
}

Result<const json*> Member(const json& object, const std::string& where, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) return Bad(where + ": missing field \"" + name + "\"");
  return &*it;
}

Result<std::vector<std::string>> Strings(const json& object, const char* name) {
  TALA_ASSIGN_OR_RETURN(const json* list, Member(object, "reply", name));
  if (!list->is_array()) return Bad(std::string(name) + ": expected an array");
  std::vector<std::string> out;
  for (size_t i = 0; i < list->size(); ++i) {
    if (!(*list)[i].is_string()) {
      return Bad(std::string(name) + "[" + std::to_string(i) + "]: expected a string");
    }
    out.push_back((*list)[i].get<std::string>());
  }
  return out;
}

std::string Reason(const json& object, const char* name = "reason") {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// A whole number given as a number or as its digits ("1"), as models write enums.
Result<double> WholeNumber(const json& v, const std::string& where) {
  if (v.is_number_integer()) return static_cast<double>(v.get<int64_t>());
  if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()) return v.get<double>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (!s.empty() && s.size() < 4 && s.find_first_not_of("0123456789") == std::string::npos) {
      return std::stod(s);
    }
  }
  return Bad(where + ": expected a whole number, got " + v.dump().substr(0, 40));
}

Result<double> Verdict01(const json& v, const std::string& where) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  TALA_ASSIGN_OR_RETURN(double d, WholeNumber(v, where));
  if (d != 0 && d != 1) return Bad(where + ": a verdict is 0 or 1, got " + v.dump());
  return d;
}

Result<bool> Flag(const json& object, const std::string& where, const char* name) {
  TALA_ASSIGN_OR_RETURN(const json* v, Member(object, where, name));
  if (!v->is_boolean()) return Bad(where + "." + name + ": expected true or false");
  return v->get<bool>();
}

Result<JudgedAnswer> Criterion(const json& r, const std::string& where, const JudgeQuestion& q,
                               size_t contexts) {
  JudgedAnswer a;
  a.reason = Reason(r);
  using K = JudgeQuestion::Kind;
  if (q.kind == K::kVerdict) {
    TALA_ASSIGN_OR_RETURN(const json* v, Member(r, where, "verdict"));
    TALA_ASSIGN_OR_RETURN(double d, Verdict01(*v, where + ".verdict"));
    a.values.push_back(d);
  } else if (q.kind == K::kScore) {
    TALA_ASSIGN_OR_RETURN(const json* v, Member(r, where, "score"));
    double d = 0;
    if (q.integer) {
      TALA_ASSIGN_OR_RETURN(d, WholeNumber(*v, where + ".score"));
    } else if (v->is_number()) {
      d = v->get<double>();
    } else {
      return Bad(where + ".score: expected a number, got " + v->dump().substr(0, 40));
    }
    if (std::string problem = ScoreScaleProblem(q, d); !problem.empty()) {
      return Bad(where + ": " + problem);
    }
    a.values.push_back(d);
  } else if (q.kind == K::kChoice) {
    TALA_ASSIGN_OR_RETURN(const json* v, Member(r, where, "choice"));
    bool ok = v->is_string();
    if (ok) {
      ok = false;
      for (const std::string& c : q.choices) ok = ok || c == v->get_ref<const std::string&>();
    }
    if (!ok)
      return Bad(where + ".choice: " + v->dump().substr(0, 40) + " is not one of the choices");
    a.label = v->get<std::string>();
  } else if (q.kind == K::kRanking) {
    TALA_ASSIGN_OR_RETURN(const json* v, Member(r, where, "ranking"));
    if (!v->is_array() || v->size() != contexts) {
      return Bad(where + ".ranking: expected the " + std::to_string(contexts) +
                 " context numbers, each once");
    }
    std::set<int> seen;
    for (const json& n : *v) {
      if (!n.is_number_integer() || n.get<int>() < 1 || n.get<int>() > static_cast<int>(contexts) ||
          !seen.insert(n.get<int>()).second) {
        return Bad(where + ".ranking: " + n.dump() + " is not a context number given once");
      }
      a.values.push_back(n.get<int>() - 1);
    }
  }
  return a;
}

}  // namespace

std::string PackReply(const http::ChatReply& reply) {
  json choices = json::array({reply.text});
  for (const std::string& more : reply.more_choices) choices.push_back(more);
  json tokens = json::array();
  for (const http::NumberToken& t : reply.number_tokens) {
    json top = json::array();
    for (const auto& [token, logprob] : t.top) top.push_back({token, logprob});
    tokens.push_back({{"offset", t.offset}, {"token", t.token}, {"top", std::move(top)}});
  }
  return json{{"tala_reply", std::move(choices)}, {"number_tokens", std::move(tokens)}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

Result<PackedReply> UnpackReply(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("tala_reply") || !j["tala_reply"].is_array() ||
      j["tala_reply"].empty()) {
    return Bad("not a packed reply");
  }
  PackedReply out;
  for (const json& c : j["tala_reply"]) {
    if (!c.is_string()) return Bad("tala_reply: expected strings");
    out.choices.push_back(c.get<std::string>());
  }
  for (const json& t : j.value("number_tokens", json::array())) {
    http::NumberToken n;
    n.offset = t.value("offset", size_t{0});
    n.token = t.value("token", std::string());
    for (const json& alt : t.value("top", json::array())) {
      if (alt.is_array() && alt.size() == 2 && alt[0].is_string() && alt[1].is_number()) {
        n.top.emplace_back(alt[0].get<std::string>(), alt[1].get<double>());
      }
    }
    out.number_tokens.push_back(std::move(n));
  }
  return out;
}

std::optional<double> WeightedNumber(const std::vector<http::NumberToken>& tokens, size_t offset,
                                     double lo, double hi) {
  for (const http::NumberToken& t : tokens) {
    if (t.offset + t.token.size() <= offset || t.offset > offset) continue;
    double mass = 0, sum = 0;
    for (const auto& [token, logprob] : t.top) {
      size_t b = token.find_first_not_of(' ');
      if (b == std::string::npos || token.size() - b > 3 ||
          token.find_first_not_of("0123456789", b) != std::string::npos) {
        continue;
      }
      double v = std::stod(token.substr(b));
      if (v < lo || v > hi) continue;
      double p = std::exp(logprob);
      mass += p;
      sum += p * v;
    }
    if (mass > 0) return sum / mass;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<size_t> ScoreOffset(std::string_view text) {
  size_t key = text.rfind("\"score\"");
  if (key == std::string_view::npos) return std::nullopt;
  size_t colon = text.find(':', key);
  if (colon == std::string_view::npos) return std::nullopt;
  size_t value = text.find_first_not_of(" \t\n\"", colon + 1);
  if (value == std::string_view::npos) return std::nullopt;
  return value;
}

Result<std::vector<JudgedAnswer>> ParseCriteria(std::string_view reply,
                                                const std::vector<const JudgeQuestion*>& questions,
                                                size_t contexts) {
  TALA_ASSIGN_OR_RETURN(json j, Object(reply));
  TALA_ASSIGN_OR_RETURN(const json* results, Member(j, "reply", "results"));
  if (!results->is_array()) return Bad("results: expected an array");
  std::vector<std::optional<JudgedAnswer>> found(questions.size());
  for (size_t i = 0; i < results->size(); ++i) {
    const json& r = (*results)[i];
    std::string where = "results[" + std::to_string(i) + "]";
    if (!r.is_object()) return Bad(where + ": expected an object");
    TALA_ASSIGN_OR_RETURN(const json* id, Member(r, where, "id"));
    size_t k = 0;
    while (k < questions.size() &&
           !(id->is_string() && questions[k]->key == id->get<std::string>()))
      ++k;
    if (k == questions.size())
      return Bad(where + ".id: " + id->dump() + " is not a criterion asked");
    if (found[k]) return Bad(where + ".id: " + id->dump() + " is answered twice");
    TALA_ASSIGN_OR_RETURN(found[k], Criterion(r, where, *questions[k], contexts));
  }
  std::vector<JudgedAnswer> out;
  for (size_t k = 0; k < questions.size(); ++k) {
    if (!found[k]) return Bad("results: no result for \"" + questions[k]->key + "\"");
    out.push_back(std::move(*found[k]));
  }
  return out;
}

Result<double> ParseRating(std::string_view reply, const JudgeQuestion& question) {
  TALA_ASSIGN_OR_RETURN(json j, Object(reply));
  TALA_ASSIGN_OR_RETURN(const json* v, Member(j, "reply", "rating"));
  TALA_ASSIGN_OR_RETURN(double r, WholeNumber(*v, "rating"));
  if (std::string problem = RatingScaleProblem(question, r); !problem.empty()) return Bad(problem);
  return r;
}

Result<JudgedAnswer> ParseGoal(std::string_view reply) {
  TALA_ASSIGN_OR_RETURN(json j, Object(reply));
  TALA_ASSIGN_OR_RETURN(const json* v, Member(j, "reply", "verdict"));
  TALA_ASSIGN_OR_RETURN(double d, Verdict01(*v, "verdict"));
  JudgedAnswer a;
  a.values.push_back(d);
  a.reason = "goal: " + Reason(j, "user_goal") + "; end state: " + Reason(j, "end_state") +
             (Reason(j).empty() ? "" : "; " + Reason(j));
  return a;
}

Result<JudgedAnswer> ParseTopics(std::string_view reply) {
  TALA_ASSIGN_OR_RETURN(json j, Object(reply));
  TALA_ASSIGN_OR_RETURN(const json* topics, Member(j, "reply", "topics"));
  if (!topics->is_array()) return Bad("topics: expected an array");
  JudgedAnswer a;
  for (size_t i = 0; i < topics->size(); ++i) {
    const json& t = (*topics)[i];
    std::string where = "topics[" + std::to_string(i) + "]";
    if (!t.is_object()) return Bad(where + ": expected an object");
    TALA_ASSIGN_OR_RETURN(const json* text, Member(t, where, "topic"));
    if (!text->is_string()) return Bad(where + ".topic: expected a string");
    AnswerItem item{text->get<std::string>(), {}};
    TALA_ASSIGN_OR_RETURN(item.flags["answered"], Flag(t, where, "answered"));
    TALA_ASSIGN_OR_RETURN(item.flags["in_reference"], Flag(t, where, "in_reference"));
    a.items.push_back(std::move(item));
  }
  return a;
}

Result<JudgedAnswer> ParseSqlEquivalence(std::string_view reply) {
  TALA_ASSIGN_OR_RETURN(json j, Object(reply));
  TALA_ASSIGN_OR_RETURN(bool same, Flag(j, "reply", "equivalent"));
  JudgedAnswer a;
  a.values.push_back(same ? 1 : 0);
  a.reason = "response: " + Reason(j, "response_explanation") +
             "; reference: " + Reason(j, "reference_explanation");
  return a;
}

Result<std::vector<std::string>> ParseSummaryQuestions(std::string_view reply) {
  TALA_ASSIGN_OR_RETURN(json j, Object(reply));
  TALA_ASSIGN_OR_RETURN(std::vector<std::string> questions, Strings(j, "questions"));
  if (questions.empty()) return Bad("questions: expected at least one question");
  return questions;
}

Result<std::vector<bool>> ParseSummaryAnswers(std::string_view reply, size_t expected) {
  TALA_ASSIGN_OR_RETURN(json j, Object(reply));
  TALA_ASSIGN_OR_RETURN(const json* answers, Member(j, "reply", "answers"));
  if (!answers->is_array() || answers->size() != expected) {
    return Bad("answers: expected " + std::to_string(expected) + " answers, one per question");
  }
  std::vector<bool> out;
  for (size_t i = 0; i < answers->size(); ++i) {
    TALA_ASSIGN_OR_RETURN(double d, Verdict01((*answers)[i], "answers[" + std::to_string(i) + "]"));
    out.push_back(d == 1);
  }
  return out;
}

Result<std::vector<std::string>> ParseGEvalSteps(std::string_view reply) {
  TALA_ASSIGN_OR_RETURN(json j, Object(reply));
  TALA_ASSIGN_OR_RETURN(std::vector<std::string> steps, Strings(j, "steps"));
  if (steps.empty()) return Bad("steps: expected at least one step");
  return steps;
}

Result<JudgedAnswer> ParseGEvalScore(std::string_view reply, const JudgeQuestion& question) {
  TALA_ASSIGN_OR_RETURN(json j, Object(reply));
  TALA_ASSIGN_OR_RETURN(const json* v, Member(j, "reply", "score"));
  TALA_ASSIGN_OR_RETURN(double d, WholeNumber(*v, "score"));
  if (std::string problem = ScoreScaleProblem(question, d); !problem.empty()) return Bad(problem);
  JudgedAnswer a;
  a.values.push_back(d);
  a.reason = Reason(j);
  return a;
}

}  // namespace tala::judges::llm
