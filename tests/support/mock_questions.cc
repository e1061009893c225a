#include "support/mock_questions.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>
#include <vector>

#include "support/mock_text.h"

namespace tala::testing {

namespace {

using nlohmann::json;

// Question answers count three-letter words too ("can", "hot").
double Overlap(const std::string& text, const std::string& source) {
  return Coverage(text, source, 3);
}

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Contexts(const json& j) {
  std::string out;
  auto it = j.find("contexts");
  if (it == j.end()) return out;
  if (it->is_string()) return it->get<std::string>();
  for (const json& c : *it) out += (c.is_object() ? Str(c, "text") : c.dump()) + "\n";
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// tala compare --pairwise: the answer field is {"A": ..., "B": ...}; nullopt for other criteria.
std::optional<std::string> PairwiseChoice(const json& j, const json& criterion, bool prefer_first) {
  if (Str(criterion, "definition").find("two candidate answers to the question, A and B") ==
      std::string::npos) {
    return std::nullopt;
  }
  json pair = json::parse(Str(j, "answer"), nullptr, false);
  if (!pair.is_object() || !pair.contains("A") || !pair.contains("B")) return std::nullopt;
  if (prefer_first) return "A";
  const std::string material = Str(j, "question") + " " + Str(j, "reference") + " " + Contexts(j);
  const double a = Overlap(Str(pair, "A"), material), b = Overlap(Str(pair, "B"), material);
  return std::abs(a - b) < 0.02 ? "tie" : a > b ? "A" : "B";
}

json Criteria(const json& j, bool prefer_first) {
  std::string answer = Str(j, "answer");
  if (answer.empty()) answer = Str(j, "conversation");
  std::string material = Str(j, "question") + " " + Str(j, "reference") + " " + Contexts(j);
  double cover = Overlap(answer, material);
  json results = json::array();
  for (const json& c : j["criteria"]) {
    json r = {{"id", Str(c, "id")}, {"reason", "mock: word overlap " + std::to_string(cover)},
              {"verdict", nullptr}, {"score", nullptr},
              {"choice", nullptr},  {"ranking", nullptr}};
    std::string type = Str(c, "type");
    if (type == "verdict" && j.contains("role")) {
      // Role adherence: the final answer keeps to the role when it shares a word of it.
      std::string last = answer.substr(
          answer.rfind("assistant: ") == std::string::npos ? 0 : answer.rfind("assistant: "));
      const double in_role = Overlap(last, Str(j, "role"));
      r["verdict"] = in_role > 0 ? 1 : 0;
      r["reason"] = "mock: role overlap " + std::to_string(in_role);
    } else if (type == "verdict") {
      r["verdict"] = cover >= 0.5 ? 1 : 0;
    } else if (type == "score") {
      double lo = c.value("min", 0.0), hi = c.value("max", 1.0);
      r["score"] = std::round(lo + (hi - lo) * cover);
    } else if (auto pick = type == "choice" ? PairwiseChoice(j, c, prefer_first) : std::nullopt) {
      r["choice"] = *pick;
    } else if (type == "choice") {
      const json& choices = c["choices"];
      size_t i = static_cast<size_t>(std::round(cover * static_cast<double>(choices.size() - 1)));
      r["choice"] = choices[i];
    } else if (type == "ranking") {
      std::vector<std::pair<double, int>> order;
      for (const json& ctx : j["contexts"]) {
        order.emplace_back(-Overlap(Str(j, "question"), Str(ctx, "text")), ctx.value("n", 0));
      }
      std::stable_sort(order.begin(), order.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      json ranking = json::array();
      for (const auto& [_, n] : order) ranking.push_back(n);
      r["ranking"] = ranking;
    }
    results.push_back(r);
  }
  return {{"results", results}};
}

json Rating(const std::string& system, const json& j) {
  bool accuracy = system.find("{\"rating\": 4}") != std::string::npos ||
                  system.find("trusted") != std::string::npos;
  if (accuracy) {
    std::string answer = j.contains("candidate") ? Str(j, "candidate") : Str(j, "answer");
    std::string reference = j.contains("trusted") ? Str(j, "trusted") : Str(j, "reference");
    double c = Overlap(reference, answer);
    return {{"rating", c >= 0.8 ? 4 : c >= 0.3 ? 2 : 0}};
  }
  std::string text = j.contains("question") ? Str(j, "question") : Str(j, "answer");
  double c = Overlap(text, Contexts(j));
  return {{"rating", c >= 0.6 ? 2 : c >= 0.2 ? 1 : 0}};
}

json Goal(const json& j) {
  std::string workflow = Str(j, "workflow");
  std::vector<std::string> lines = Lines(workflow);
  std::string goal = lines.empty() ? "" : lines.front();
  std::string desired = j.contains("desired_outcome") ? Str(j, "desired_outcome") : goal;
  std::string end = lines.empty() ? "" : lines.back();
  bool reached = Overlap(desired, workflow) >= 0.5;
  return {
      {"user_goal", goal}, {"end_state", end}, {"reason", "mock"}, {"verdict", reached ? 1 : 0}};
}

json Topics(const json& j) {
  std::string refs;
  for (const json& t : j.value("reference_topics", json::array())) {
    if (t.is_string()) refs += t.get<std::string>() + " ";
  }
  json topics = json::array();
  std::vector<std::string> lines = Lines(Str(j, "conversation"));
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("user: ", 0) != 0) continue;
    std::string reply = i + 1 < lines.size() ? lines[i + 1] : "";
    bool refused = reply.find("only help") != std::string::npos ||
                   reply.find("cannot") != std::string::npos ||
                   reply.find("can't") != std::string::npos;
    std::string topic = lines[i].substr(6);
    topics.push_back(
        {{"topic", topic}, {"answered", !refused}, {"in_reference", Overlap(topic, refs) > 0}});
  }
  return {{"topics", topics}};
}

json Sql(const json& j) {
  auto norm = [](std::string s) {
    std::string out;
    for (char c : s) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!out.empty() && out.back() != ' ') out += ' ';
      } else {
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    }
    return out;
  };
  std::string a = norm(Str(j, "response_sql")), b = norm(Str(j, "reference_sql"));
  return {{"response_explanation", "mock"},
          {"reference_explanation", "mock"},
          {"equivalent", a == b || Words(a, 3) == Words(b, 3)}};
}

json SummaryQuestions(const json& j) {
  json questions = json::array();
  for (const std::string& s : Sentences(Str(j, "source"))) {
    if (questions.size() < 12) questions.push_back("Does the text say: " + s);
  }
  return {{"keyphrases", json::array()}, {"questions", questions}};
}

json SummaryAnswers(const json& j) {
  json answers = json::array();
  std::string summary = Str(j, "summary");
  for (const json& q : j["questions"]) {
    std::string text = q.is_string() ? q.get<std::string>() : "";
    if (text.rfind("Does the text say: ", 0) == 0) text = text.substr(19);
    answers.push_back(Overlap(text, summary) >= 0.5);
  }
  return {{"answers", answers}};
}

// A golden set's question: "Is it true that <the passage's first sentence>?" (both passages'
// for a multi-hop scenario), the sentences quoted verbatim; a vague one keeps four words.
json TestsetQuestion(const json& j) {
  std::string style = j["scenario"].is_object() ? Str(j["scenario"], "style") : "";
  std::vector<std::string> parts;
  json quotes = json::array();
  for (const json& p : j.value("passages", json::array())) {
    std::vector<std::string> sentences = Sentences(Str(p, "text"));
    if (sentences.empty()) continue;
    std::string sentence = sentences.front();
    quotes.push_back({{"context_id", Str(p, "id")}, {"text", sentence}});
    while (!sentence.empty() && std::ispunct(static_cast<unsigned char>(sentence.back()))) {
      sentence.pop_back();
    }
    if (!sentence.empty()) {
      sentence[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(sentence[0])));
    }
    if (style == "vague") {
      std::istringstream in(sentence);
      std::string word, few;
      for (int n = 0; n < 4 && in >> word; ++n) few += (n ? " " : "") + word;
      sentence = few;
    }
    parts.push_back(sentence);
  }
  std::string question = "Is it true that ";
  for (size_t i = 0; i < parts.size(); ++i) question += (i ? ", and that " : "") + parts[i];
  return {{"question", question + "?"}, {"quotes", quotes}};
}

// A golden set's reference: the passages' sentence that shares the most words with the
// question, quoted; answerable by how much it shares.
json TestsetReference(const json& j) {
  std::string question = Str(j, "question"), best, best_id;
  double best_overlap = 0;
  for (const json& p : j.value("passages", json::array())) {
    for (const std::string& sentence : Sentences(Str(p, "text"))) {
      double o = Overlap(question, sentence);
      if (o > best_overlap) {
        best_overlap = o;
        best = sentence;
        best_id = Str(p, "id");
      }
    }
  }
  if (best_overlap < 0.25) {
    return {{"answerable", "no"},
            {"reference", ""},
            {"context_ids", json::array()},
            {"quotes", json::array()}};
  }
  return {{"answerable", best_overlap >= 0.5 ? "yes" : "partly"},
          {"reference", best},
          {"context_ids", {best_id}},
          {"quotes", {{{"context_id", best_id}, {"text", best}}}}};
}

// A simulated user, deterministically: success when the assistant's last message holds every
// word of "success" (four letters or more), else the next fact not yet said with the goal, else
// a give-up.
json SimulatedUser(const json& j) {
  const json scenario = j.value("scenario", json::object());
  const json conversation = j.value("conversation", json::array());
  std::string last, said;
  for (const json& m : conversation) {
    if (Str(m, "role") == "assistant") last = Str(m, "content");
    if (Str(m, "role") == "user") said += Str(m, "content") + "\n";
  }
  auto lower = [](std::string t) {
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return t;
  };
  const std::string success = lower(Str(scenario, "success"));
  bool met = !success.empty();
  std::istringstream words(success);
  for (std::string w; words >> w;) {
    while (!w.empty() && std::ispunct(static_cast<unsigned char>(w.back()))) w.pop_back();
    if (w.size() >= 4 && lower(last).find(w) == std::string::npos) met = false;
  }
  if (met) return {{"status", "success"}, {"message", ""}};
  for (const json& f : scenario.value("facts", json::array())) {
    if (f.is_string() && said.find(f.get<std::string>()) == std::string::npos) {
      return {{"status", "continue"},
              {"message", f.get<std::string>() + " " + Str(scenario, "goal")}};
    }
  }
  return {{"status", "give_up"}, {"message", "Never mind, thank you."}};
}

}  // namespace

std::optional<MockQuestionReply> MockQuestionAnswer(const std::string& system,
                                                    const std::string& user, bool prefer_first) {
  json j = json::parse(user, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  if (j.contains("criteria") && j["criteria"].is_array())
    return {{"criteria", Criteria(j, prefer_first)}};
  if (j.contains("scenario") && j.contains("conversation")) {
    return {{"simulate_user", SimulatedUser(j)}};
  }
  if (j.contains("scenario") && j.contains("passages")) {
    return {{"testset_question", TestsetQuestion(j)}};
  }
  if (j.contains("question") && j.contains("passages")) {
    return {{"testset_reference", TestsetReference(j)}};
  }
  if (system.find("Reply with JSON only: {\"rating\"") != std::string::npos) {
    return {{"rating", Rating(system, j)}};
  }
  if (j.contains("workflow")) return {{"agent_goal", Goal(j)}};
  if (j.contains("reference_topics")) return {{"topics", Topics(j)}};
  if (j.contains("response_sql")) return {{"sql_equivalence", Sql(j)}};
  if (j.contains("source")) return {{"summary_questions", SummaryQuestions(j)}};
  if (j.contains("summary") && j.contains("questions")) {
    return {{"summary_answers", SummaryAnswers(j)}};
  }
  if (j.contains("criteria") && j.contains("steps")) {
    std::string answer = Str(j, "answer");
    double c = Overlap(answer, Str(j, "question") + " " + Str(j, "reference") + " " + Contexts(j));
    return {
        {"g_eval_score", {{"reason", "mock"}, {"score", 1 + static_cast<int>(std::round(9 * c))}}}};
  }
  if (j.contains("criteria")) {
    return {{"g_eval_steps",
             {{"steps",
               {"Read the question and the answer.", "Judge: " + Str(j, "criteria"),
                "Score from 1 to 10."}}}}};
  }
  return std::nullopt;
}

}  // namespace tala::testing
