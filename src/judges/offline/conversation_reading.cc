#include "judges/offline/conversation_reading.h"

#include <array>
#include <map>
#include <set>
#include <string_view>

#include "core/text/normalize.h"
#include "core/text/sentences.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "core/turn_question.h"

namespace tala::judges::offline {

namespace {

bool In(std::string_view word, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (w == word) return true;
  }
  return false;
}

bool FirstPerson(std::string_view w) { return In(w, {"i", "my", "me", "we", "our", "us", "mine"}); }
bool SecondPerson(std::string_view w) { return In(w, {"you", "your", "yours", "you're"}); }

// The kind of value a word names: a number, a weekday, a month; "" for none.
std::string_view ValueKind(const text::Token& t) {
  if (t.number) return "number";
  static constexpr std::array<std::string_view, 12> kNumbers = {"one",  "two", "three",  "four",
                                                                "five", "six", "seven",  "eight",
                                                                "nine", "ten", "eleven", "twelve"};
  for (std::string_view n : kNumbers) {
    if (t.text == n) return "number";
  }
  if (In(t.text, {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                  "weekend", "weekday"})) {
    return "day";
  }
  if (In(t.text, {"january", "february", "march", "april", "june", "july", "august", "september",
                  "october", "november", "december"})) {
    return "month";
  }
  return "";
}

// A value's canonical text: "2" and "two" are one value.
std::string ValueText(const std::string& word) {
  static const std::map<std::string, std::string> kWords = {
      {"one", "1"},  {"two", "2"},  {"three", "3"},   {"four", "4"},
      {"five", "5"}, {"six", "6"},  {"seven", "7"},   {"eight", "8"},
      {"nine", "9"}, {"ten", "10"}, {"eleven", "11"}, {"twelve", "12"}};
  auto it = kWords.find(word);
  return it != kWords.end() ? it->second : word;
}

struct Read {
  std::string text;
  std::set<std::string> stems;                          // content words, less values and persons
  std::map<std::string, std::set<std::string>> values;  // kind -> values
  bool first_person = false, second_person = false, question = false;
  std::string asks_kind;  // "number" for "how many", "day" for "when"/"what day"...
};

Read ReadSentence(const std::string& sentence, text::Stemmer& stemmer) {
  Read r;
  r.text = sentence;
  r.question = sentence.find('?') != std::string::npos;
  const std::vector<text::Token> tokens = text::Tokenize(sentence);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const text::Token& t = tokens[i];
    r.first_person = r.first_person || FirstPerson(t.text);
    r.second_person = r.second_person || SecondPerson(t.text);
    if (std::string_view kind = ValueKind(t); !kind.empty()) {
      r.values[std::string(kind)].insert(ValueText(t.text));
      continue;
    }
    const std::string next = i + 1 < tokens.size() ? tokens[i + 1].text : "";
    if (t.text == "how" && (next == "many" || next == "much")) r.asks_kind = "number";
    if (t.text == "when" || (In(t.text, {"what", "which"}) && In(next, {"day", "date"}))) {
      r.asks_kind = "day";
    }
    if (text::IsStopWord(t.text) || FirstPerson(t.text) || SecondPerson(t.text) ||
        t.text.size() < 3) {
      continue;
    }
    r.stems.insert(stemmer.Stem(t.text));
  }
  return r;
}

std::vector<std::string> Shared(const Read& a, const Read& b) {
  std::vector<std::string> out;
  for (const std::string& s : a.stems) {
    if (b.stems.count(s)) out.push_back(s);
  }
  return out;
}

std::string Quoted(const std::string& s) {
  constexpr size_t kMax = 90;
  return "\"" + (s.size() > kMax ? s.substr(0, kMax) + "..." : s) + "\"";
}

bool IsAsk(const std::string& question) {
  if (question.find('?') != std::string::npos) return true;
  static constexpr std::array<std::string_view, 18> kRequests = {
      "can you",      "could you", "would you", "will you", "please", "tell me",
      "show me",      "give me",   "help me",   "i need",   "i want", "i'd like",
      "i would like", "explain",   "list",      "find",     "book",   "check"};
  for (const std::string& sentence : text::SplitSentences(question)) {
    const std::string lower = text::AsciiLower(sentence);
    for (std::string_view r : kRequests) {
      if (lower.rfind(r, 0) == 0) return true;
    }
  }
  return false;
}

}  // namespace

RetentionReading ReadRetention(const std::vector<Message>& messages, size_t ai,
                               text::Stemmer& stemmer) {
  RetentionReading out;
  std::vector<Read> facts;
  for (size_t i = 0; i < ai && i < messages.size(); ++i) {
    if (messages[i].type != Message::Type::kHuman) continue;
    for (const std::string& sentence : text::SplitSentences(messages[i].content)) {
      Read r = ReadSentence(sentence, stemmer);
      if (r.question || !r.first_person || (r.stems.empty() && r.values.empty())) continue;
      facts.push_back(std::move(r));
    }
  }
  out.facts = static_cast<int>(facts.size());
  if (facts.empty()) {
    out.reason = "the user stated nothing about themselves before this answer";
    return out;
  }
  for (const std::string& sentence : text::SplitSentences(messages[ai].content)) {
    const Read answer = ReadSentence(sentence, stemmer);
    if (!answer.second_person) continue;  // about the user, or not about what they said
    for (const Read& fact : facts) {
      const std::vector<std::string> shared = Shared(answer, fact);
      if (answer.question) {
        // Asks again: what it asks is what the statement already says.
        const bool kind_given = !answer.asks_kind.empty() && fact.values.count(answer.asks_kind);
        const bool words_given =
            !answer.stems.empty() && 10 * shared.size() >= 6 * answer.stems.size();
        if (!shared.empty() && (kind_given || words_given)) {
          out.kept = false;
          out.reason = "asks again what the user said: " + Quoted(answer.text) + " after " +
                       Quoted(fact.text);
          return out;
        }
        continue;
      }
      if (shared.empty()) continue;
      for (const auto& [kind, values] : answer.values) {
        auto stated = fact.values.find(kind);
        if (stated == fact.values.end()) continue;
        for (const std::string& v : values) {
          if (stated->second.count(v)) continue;
          out.kept = false;
          out.reason = "contradicts what the user said: " + Quoted(answer.text) + " against " +
                       Quoted(fact.text);
          return out;
        }
      }
    }
  }
  out.reason = "keeps the user's " + std::to_string(facts.size()) + " statement" +
               (facts.size() == 1 ? "" : "s") +
               " (no other number, day or month of them; no "
               "question they answer)";
  return out;
}

std::vector<UserAsk> UserAsks(const std::vector<Message>& messages) {
  std::vector<UserAsk> out;
  int turn = 0;
  size_t last_ai = 0;
  bool any_ai = false;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (!IsAnswer(messages[i])) continue;
    ++turn;
    const TurnAsk q = ReadTurnAsk(messages, i);
    // Only the user's own words since the previous answer are a new ask.
    bool own = false;
    for (size_t j = any_ai ? last_ai + 1 : 0; j < i; ++j) {
      own = own || messages[j].type == Message::Type::kHuman;
    }
    if (own && IsAsk(q.alone)) {
      out.push_back(
          {turn, i, q.leans ? q.with_before : q.alone, q.leans ? q.alone : q.with_before});
    }
    last_ai = i;
    any_ai = true;
  }
  const TurnAsk tail = ReadTurnAsk(messages, messages.size());
  bool own_tail = false;
  for (size_t j = any_ai ? last_ai + 1 : 0; j < messages.size(); ++j) {
    own_tail = own_tail || messages[j].type == Message::Type::kHuman;
  }
  if (own_tail && IsAsk(tail.alone)) {
    out.push_back({turn + 1, messages.size(), tail.leans ? tail.with_before : tail.alone,
                   tail.leans ? tail.alone : tail.with_before});
  }
  return out;
}

}  // namespace tala::judges::offline
