#pragma once
// Test and bench support for tala testset's grouping: the questions of an intent log (with
// each one's true intent), and how a grouping's intents compare with the truth.

#include <simdjson.h>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "testset/intent_log.h"
#include "testset/question_groups.h"

namespace tala::testing {

struct LoggedQuestions {
  std::vector<std::string> questions;  // in log order
  std::vector<size_t> truth;           // each one's intent, an index into IntentLog::intents
};

inline LoggedQuestions ReadLoggedQuestions(const IntentLog& log) {
  LoggedQuestions out;
  std::ifstream in(log.logs);
  simdjson::dom::parser parser;
  for (std::string line; std::getline(in, line);) {
    out.questions.emplace_back(std::string_view(parser.parse(line)["user_input"]));
    out.truth.push_back(log.intent_of.at(out.questions.back()));
  }
  return out;
}

struct GroupTally {
  size_t groups = 0;
  int mixed = 0;                                 // groups holding two or more true intents
  int split = 0;                                 // true intents spread over two or more groups
  std::map<size_t, std::set<size_t>> groups_of;  // true intent -> its groups
  std::vector<size_t> intents_held;              // per group: how many true intents
};

inline GroupTally TallyGroups(const testset::Grouping& g, const std::vector<size_t>& truth) {
  GroupTally t;
  t.groups = g.intents.size();
  for (size_t c = 0; c < g.intents.size(); ++c) {
    std::set<size_t> held;
    for (size_t p : g.intents[c].phrasings) {
      for (size_t q : g.phrasings[p].questions) {
        held.insert(truth[q]);
        t.groups_of[truth[q]].insert(c);
      }
    }
    t.intents_held.push_back(held.size());
    t.mixed += held.size() > 1 ? 1 : 0;
  }
  for (const auto& [intent, groups] : t.groups_of) t.split += groups.size() > 1 ? 1 : 0;
  return t;
}

}  // namespace tala::testing
