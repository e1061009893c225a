#pragma once
// Test data for tala testset: a user log made from real questions. Each HaluEval question
// (tests/data/testset/halueval_intents.jsonl) is an intent, asked about 50 times in the log
// with the noise real users add, from a seeded generator: typos (a swap, a dropped or doubled
// letter), casing, word order (the question's tail moved to the front), filler words before and
// after, a missing question mark. Its knowledge becomes a section of a Markdown document, four
// intents to a file; every 20th intent stays out of the documents, so the documents cannot
// answer it.

#include <simdjson.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace tala::testing {

struct LoggedIntent {
  std::string intent, question, knowledge, answer;
  bool answerable = true;
  std::string doc;                            // its document, when answerable
  size_t section_begin = 0, section_end = 0;  // its section's bytes in the document
};

struct IntentLog {
  std::vector<LoggedIntent> intents;
  std::string logs;                         // the log file (JSON Lines: id, user_input)
  std::string docs;                         // the documents' folder
  std::map<std::string, size_t> intent_of;  // a logged question -> its intent
  int64_t rows = 0;
};

inline std::vector<LoggedIntent> ReadIntents() {
  std::vector<LoggedIntent> out;
  simdjson::dom::parser parser;
  std::ifstream in(std::string(TALA_SOURCE_DIR) + "/tests/data/testset/halueval_intents.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    simdjson::dom::element e = parser.parse(line);
    LoggedIntent i;
    i.intent = std::string(std::string_view(e["intent"]));
    i.question = std::string(std::string_view(e["question"]));
    i.knowledge = std::string(std::string_view(e["knowledge"]));
    i.answer = std::string(std::string_view(e["answer"]));
    out.push_back(std::move(i));
  }
  return out;
}

// A logged phrasing of `question`.
inline std::string Phrase(std::string q, std::mt19937_64& rng) {
  auto chance = [&](double p) { return static_cast<double>(rng() >> 11) / 9007199254740992.0 < p; };
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  while (!q.empty() && q.front() == ' ') q.erase(0, 1);
  if (chance(0.3) && !q.empty() && q.back() == '?') q.pop_back();
  std::vector<std::string> words;
  for (size_t at = 0; at < q.size();) {
    size_t sp = q.find(' ', at);
    words.push_back(q.substr(at, sp == std::string::npos ? std::string::npos : sp - at));
    if (sp == std::string::npos) break;
    at = sp + 1;
  }
  if (chance(0.25) && words.size() > 5) {  // "what city, the Oberoi family ... office in"
    const size_t k = 2 + pick(2);
    std::vector<std::string> tail(words.end() - static_cast<long>(k), words.end());
    words.resize(words.size() - k);
    if (!tail.back().empty() && tail.back().back() == '?') tail.back().pop_back();
    tail.back() += ",";
    words.insert(words.begin(), tail.begin(), tail.end());
  }
  const int typos = chance(0.35) ? 1 : chance(0.15) ? 2 : 0;
  for (int t = 0; t < typos; ++t) {
    std::vector<size_t> long_words;
    for (size_t w = 0; w < words.size(); ++w) {
      bool letters = words[w].size() >= 5;
      for (char c : words[w]) letters = letters && std::isalpha(static_cast<unsigned char>(c));
      if (letters) long_words.push_back(w);
    }
    if (long_words.empty()) break;
    std::string& w = words[long_words[pick(long_words.size())]];
    const size_t at = 1 + pick(w.size() - 2);
    switch (pick(3)) {
      case 0:
        std::swap(w[at], w[at + 1 < w.size() ? at + 1 : at - 1]);
        break;
      case 1:
        w.erase(at, 1);
        break;
      default:
        w.insert(at, 1, w[at]);
        break;
    }
  }
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  if (chance(0.3)) {
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  static const char* kBefore[] = {
      "hey ",   "hi ", "quick question: ", "pls ", "can you tell me ", "i was wondering, ",
      "hello, "};
  static const char* kAfter[] = {" thanks", " thx", " please", " ??", " asap"};
  if (chance(0.4)) out = kBefore[pick(7)] + out;
  if (chance(0.25)) out += kAfter[pick(5)];
  return out;
}

// Another wording of a question (reword.h), or empty when it has none.
using Rewording = std::string (*)(const std::string& question, std::mt19937_64& rng);

// The log and documents of intents [first, last) of the file, seeded. `reworded` of the
// phrasings start from `reword(question)` instead of the question.
inline IntentLog MakeIntentLog(const TempDir& dir, size_t first, size_t last, uint64_t seed,
                               double reworded = 0, Rewording reword = nullptr) {
  IntentLog log;
  std::vector<LoggedIntent> all = ReadIntents();
  log.intents.assign(all.begin() + static_cast<long>(first), all.begin() + static_cast<long>(last));
  log.docs = dir.path() + "/docs";
  std::string file_text;
  int file_no = 0, in_file = 0;
  auto flush = [&]() {
    if (file_text.empty()) return;
    std::ofstream(log.docs + "/notes-" + std::to_string(file_no) + ".md") << file_text;
    file_text.clear();
    in_file = 0;
    ++file_no;
  };
  std::filesystem::create_directories(log.docs);
  for (size_t i = 0; i < log.intents.size(); ++i) {
    LoggedIntent& intent = log.intents[i];
    intent.answerable = (first + i) % 20 != 7;
    if (!intent.answerable) continue;
    if (file_text.empty()) file_text = "# Notes " + std::to_string(file_no) + "\n\n";
    intent.doc = "notes-" + std::to_string(file_no) + ".md";
    intent.section_begin = file_text.size();
    file_text += "## " + intent.intent + "\n\n" + intent.knowledge + "\n\n";
    intent.section_end = file_text.size();
    if (++in_file == 4) flush();
  }
  flush();
  std::mt19937_64 rng(seed);
  std::vector<std::pair<std::string, size_t>> rows;
  for (size_t i = 0; i < log.intents.size(); ++i) {
    const int n = 45 + static_cast<int>(rng() % 11);
    for (int k = 0; k < n; ++k) {
      std::string base = log.intents[i].question;
      if (reword && static_cast<double>(rng() >> 11) / 9007199254740992.0 < reworded) {
        std::string other = reword(base, rng);
        if (!other.empty()) base = std::move(other);
      }
      std::string q = Phrase(base, rng);
      log.intent_of.emplace(q, i);
      rows.emplace_back(std::move(q), i);
    }
  }
  std::shuffle(rows.begin(), rows.end(), rng);
  log.logs = dir.path() + "/logs.jsonl";
  std::ofstream out(log.logs);
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line = "{\"id\":\"log-" + std::to_string(r) + "\",\"user_input\":\"";
    for (char c : rows[r].first) {
      if (c == '"' || c == '\\') line += '\\';
      line += c;
    }
    out << line << "\"}\n";
  }
  log.rows = static_cast<int64_t>(rows.size());
  return log;
}

}  // namespace tala::testing
