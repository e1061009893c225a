#include "judges/offline/question_parts.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "core/text/sentences.h"
#include "judges/offline/answer_relevance.h"

namespace tala::judges::offline {

namespace {

std::string LowerWordAt(std::string_view text, size_t at) {
  std::string w;
  while (at < text.size() && std::isalpha(static_cast<unsigned char>(text[at]))) {
    w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[at++]))));
  }
  return w;
}

size_t WordsIn(std::string_view text) {
  size_t n = 0;
  bool in = false;
  for (char c : text) {
    const bool w = std::isalnum(static_cast<unsigned char>(c)) != 0;
    n += w && !in;
    in = w;
  }
  return n;
}

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == ',' || s.front() == ';')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == ',' || s.back() == ';')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<std::string> QuestionParts(std::string_view question) {
  static const std::unordered_set<std::string_view> kWh = {"what",  "when",  "where", "who", "whom",
                                                           "whose", "which", "why",   "how"};
  static const std::unordered_set<std::string_view> kAux = {
      "is",    "are",  "was",   "were",   "do",  "does", "did", "can",
      "could", "will", "would", "should", "has", "have", "may", "might"};
  // Each part as [begin, end) of the question; a part too short to ask on its own extends the
  // one before it, so it keeps the question's own words between them ("Tom and who?").
  std::vector<std::pair<size_t, size_t>> spans;
  size_t begin = 0;
  auto close = [&](size_t end, size_t next) {
    const std::string_view part = Trimmed(question.substr(begin, end - begin));
    if (!part.empty() && WordsIn(part) < 3 && !spans.empty()) {
      spans.back().second = end;
    } else if (!part.empty()) {
      spans.emplace_back(begin, end);
    }
    begin = next;
  };
  for (size_t i = 0; i < question.size(); ++i) {
    const char c = question[i];
    const bool mark = c == '?' || c == ';' || c == ',';
    if (!mark && c != ' ') continue;
    size_t j = i + 1;
    while (j < question.size() && question[j] == ' ') ++j;
    const size_t end = c == '?' ? i + 1 : i;  // a question mark stays with its part
    if (LowerWordAt(question, j) == "and" && j + 3 < question.size() && question[j + 3] == ' ') {
      size_t k = j + 3;
      while (k < question.size() && question[k] == ' ') ++k;
      if (kWh.count(LowerWordAt(question, k)) != 0) {
        close(end, k);
        i = k - 1;
        continue;
      }
    }
    if (mark && j > i + 1 && j < question.size()) {
      const std::string w = LowerWordAt(question, j);
      if (kWh.count(w) != 0 || (c == '?' && kAux.count(w) != 0)) {
        close(end, j);
        i = j - 1;
      }
    }
  }
  close(question.size(), question.size());
  std::vector<std::string> parts;
  for (auto [from, to] : spans) parts.emplace_back(Trimmed(question.substr(from, to - from)));
  if (parts.empty()) parts.emplace_back(question);
  return parts;
}

std::string PartsReading::Unanswered() const {
  for (size_t i = 0; i < parts.size() && i < scores.size(); ++i) {
    if (scores[i] < kPartAnswered) return parts[i];
  }
  return {};
}

Result<PartsReading> ReadParts(std::vector<std::string> parts, std::string_view response,
                               text::Stemmer& stemmer, const PartCosines& cosines) {
  PartsReading out;
  std::vector<std::string> sentences = text::SplitSentences(response);
  std::vector<TextProfile> profiles;
  profiles.reserve(sentences.size());
  for (const std::string& s : sentences) profiles.emplace_back(s, stemmer);
  double sum = 0;
  for (const std::string& part : parts) {
    const TextProfile question(part, stemmer);
    const std::string asked = AskedFor(question);
    double best = 0;
    for (size_t i = 0; i < sentences.size(); ++i) {
      TALA_ASSIGN_OR_RETURN(EncoderCosines c, cosines(sentences[i], part, asked));
      const double on_topic =
          OnTopicShare(question, std::vector<std::string>{sentences[i]}, stemmer);
      best = std::max(best, ResponseRelevance(ReadAnswer(question, profiles[i]), c, on_topic, 1));
    }
    out.scores.push_back(best);
    out.answered += best >= kPartAnswered ? 1 : 0;
    sum += best;
  }
  out.mean = parts.empty() ? 0.0 : sum / static_cast<double>(parts.size());
  out.parts = std::move(parts);
  return out;
}

}  // namespace tala::judges::offline
