#include "core/turn_question.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "core/text/normalize.h"

namespace tala {

namespace {

// Words that make a question lean on the one before it: a reader needs that one to know what
// "it" or "that" is.
bool LeansOnWhatCameBefore(const std::string& question) {
  const std::string lower = text::AsciiLower(question);
  static constexpr std::array<std::string_view, 9> kOpeners = {
      "and ", "but ", "also", "so ", "then ", "or ", "what about", "how about", "what if"};
  for (std::string_view opener : kOpeners) {
    if (lower.rfind(opener, 0) == 0) return true;
  }
  // A question of three words or fewer ("And after that?", "What about Sundays?") says too
  // little alone. A longer one with a pronoun ("How often do they run?") reads better alone
  // than joined: the joined text asks both questions, and the answer addresses one (measured on
  // examples/data/conversations.jsonl; the LLM judges read the whole conversation anyway).
  size_t words = 0;
  bool in_word = false;
  for (char c : lower) {
    const bool letter = std::isalnum(static_cast<unsigned char>(c)) || c == '\'';
    if (letter && !in_word) ++words;
    in_word = letter;
  }
  return words <= 3;
}

std::string Trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\n\r") - b + 1);
}

constexpr std::array<std::string_view, 21> kCourtesy = {"thanks",       "thank you",
                                                        "thx",          "ok",
                                                        "okay",         "great",
                                                        "perfect",      "hi",
                                                        "hello",        "hey",
                                                        "cool",         "got it",
                                                        "thanks a lot", "thank you so much",
                                                        "bye",          "goodbye",
                                                        "never mind",   "no thanks",
                                                        "that's all",   "that is all",
                                                        "nevermind"};

bool IsCourtesy(const std::string& phrase) {
  return std::find(kCourtesy.begin(), kCourtesy.end(), text::AsciiLower(Trimmed(phrase))) !=
         kCourtesy.end();
}

// The message without the courtesy it opens with ("Thanks! Do they take my pass?" -> "Do they
// take my pass?"): a reader of the question needs none of it. A message of courtesy alone stays.
std::string WithoutOpeningCourtesy(const std::string& message) {
  std::string rest = message;
  while (true) {
    const size_t end = rest.find_first_of(".!,");
    if (end == std::string::npos) return rest;
    if (!IsCourtesy(rest.substr(0, end))) return rest;
    const std::string tail = Trimmed(rest.substr(end + 1));
    if (tail.empty()) return rest;
    rest = tail;
  }
}

}  // namespace

bool IsCourtesyOnly(const std::string& message) {
  std::string rest = Trimmed(message);
  while (!rest.empty()) {
    const size_t end = rest.find_first_of(".!,?");
    if (!IsCourtesy(rest.substr(0, end))) return false;
    if (end == std::string::npos) return true;
    rest = Trimmed(rest.substr(end + 1));
  }
  return true;
}

bool IsAnswer(const Message& m) {
  return m.type == Message::Type::kAi &&
         m.content.find_first_not_of(" \t\n\r") != std::string::npos;
}

size_t LastAnswer(const std::vector<Message>& messages) {
  for (size_t i = messages.size(); i-- > 0;) {
    if (IsAnswer(messages[i])) return i;
  }
  return messages.size();
}

bool LeansOnTheQuestionBefore(const std::string& message) {
  const std::string text = WithoutOpeningCourtesy(Trimmed(message));
  return !text.empty() && !IsCourtesyOnly(text) && LeansOnWhatCameBefore(text);
}

TurnAsk ReadTurnAsk(const std::vector<Message>& messages, size_t ai) {
  // The user's messages since the previous ai message; the one before them.
  size_t from = ai;
  while (from > 0 && messages[from - 1].type != Message::Type::kAi) --from;
  TurnAsk out;
  for (size_t i = from; i < ai; ++i) {
    if (messages[i].type != Message::Type::kHuman) continue;
    const std::string text = WithoutOpeningCourtesy(Trimmed(messages[i].content));
    if (!text.empty()) out.alone += (out.alone.empty() ? "" : " ") + text;
  }
  std::string before;
  for (size_t i = from; i-- > 0;) {
    if (messages[i].type == Message::Type::kHuman && !Trimmed(messages[i].content).empty()) {
      before = Trimmed(messages[i].content);
      break;
    }
  }
  if (out.alone.empty()) {  // an ai message after a tool's: the last question stands
    out.alone = before;
    return out;
  }
  if (before.empty()) return out;
  // Courtesy alone ("Thanks!") asks nothing of what came before.
  out.leans = !IsCourtesyOnly(out.alone) && LeansOnWhatCameBefore(out.alone);
  // Joined by a dash: read as one question (the question-part reading splits at "?" and ",").
  while (!before.empty() && (before.back() == '?' || before.back() == '.')) before.pop_back();
  out.with_before = before + " - " + out.alone;
  return out;
}

std::string TurnQuestion(const std::vector<Message>& messages, size_t ai) {
  TurnAsk ask = ReadTurnAsk(messages, ai);
  return ask.leans ? ask.with_before : ask.alone;
}

}  // namespace tala
