#include "judges/offline/hedges.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "core/text/normalize.h"
#include "core/text/sentences.h"

namespace tala::judges::offline {

namespace {

// Phrases that decline to answer. A sentence holding one says nothing, unless a "but" after the
// phrase goes on to say something ("I'm not sure, but ...").
constexpr std::array<std::string_view, 18> kDeclines = {
    "i don't know",        "i do not know",       "not sure",        "cannot be determined",
    "can't be determined", "cannot determine",    "no information",  "not enough information",
    "unable to answer",    "unable to determine", "i cannot answer", "i can't answer",
    "not mentioned",       "does not say",        "doesn't say",     "no answer",
    "i'm not aware",       "i am not aware"};

// Hedges that open a sentence or a clause, removed with what follows them up to the claim.
constexpr std::array<std::string_view, 14> kOpeners = {"i think that ",
                                                       "i think ",
                                                       "i believe that ",
                                                       "i believe ",
                                                       "i guess ",
                                                       "i suppose ",
                                                       "in my opinion, ",
                                                       "as far as i know, ",
                                                       "if i remember correctly, ",
                                                       "it seems that ",
                                                       "i would say that ",
                                                       "i would say ",
                                                       "most likely, ",
                                                       "i'd say "};

// Hedging adverbs, removed where they stand as words.
constexpr std::array<std::string_view, 5> kAdverbs = {"probably", "perhaps", "possibly", "maybe",
                                                      "presumably"};

// A curly apostrophe (U+2019) as a straight one: "I’m not sure" is "I'm not sure".
std::string StraightApostrophes(std::string s) {
  for (size_t at = s.find("\xE2\x80\x99"); at != std::string::npos;
       at = s.find("\xE2\x80\x99", at + 1)) {
    s.replace(at, 3, "'");
  }
  return s;
}

// A letter or digit of any script (a byte of a multi-byte UTF-8 character counts: "東京" is
// words), or an apostrophe.
bool Alnum(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) != 0 || u >= 0x80;
}
bool WordChar(char c) { return Alnum(c) || c == '\''; }

// The sentence without its hedges; empty when it only declines.
std::string Committed(std::string sentence) {
  sentence = StraightApostrophes(std::move(sentence));
  std::string lower = text::AsciiLower(sentence);
  size_t decline = std::string::npos, decline_end = 0;
  for (std::string_view p : kDeclines) {
    const size_t at = lower.find(p);
    if (at != std::string::npos && at < decline) {
      decline = at;
      decline_end = at + p.size();
    }
  }
  if (decline != std::string::npos) {
    const size_t but = lower.find("but ", decline_end);
    if (but == std::string::npos || (but > 0 && WordChar(lower[but - 1]))) return {};
    sentence = sentence.substr(but + 4);
    lower = lower.substr(but + 4);
  }
  // Hedges that open the sentence, or a clause after a comma: "Probably, it is ...".
  for (bool removed = true; removed;) {
    removed = false;
    for (std::string_view p : kOpeners) {
      if (lower.compare(0, p.size(), p) == 0) {
        sentence.erase(0, p.size());
        lower.erase(0, p.size());
        removed = true;
      }
    }
  }
  for (std::string_view adverb : kAdverbs) {
    for (size_t at = lower.find(adverb); at != std::string::npos; at = lower.find(adverb, at)) {
      const size_t end = at + adverb.size();
      const bool word =
          (at == 0 || !WordChar(lower[at - 1])) && (end == lower.size() || !WordChar(lower[end]));
      if (!word) {
        at = end;
        continue;
      }
      // The adverb, a comma after it and one space.
      size_t cut = end;
      if (cut < lower.size() && lower[cut] == ',') ++cut;
      if (cut < lower.size() && lower[cut] == ' ') ++cut;
      sentence.erase(at, cut - at);
      lower.erase(at, cut - at);
    }
  }
  const size_t first = sentence.find_first_not_of(" ,");
  if (first == std::string::npos) return {};
  sentence.erase(0, first);
  // Nothing but punctuation left: the sentence was all hedge.
  if (std::none_of(sentence.begin(), sentence.end(), Alnum)) {
    return {};
  }
  return sentence;
}

}  // namespace

std::string CommittedText(std::string_view response) {
  std::string out;
  for (std::string& sentence : text::SplitSentences(response)) {
    std::string kept = Committed(std::move(sentence));
    if (kept.empty()) continue;
    if (!out.empty()) out += ' ';
    out += kept;
  }
  return out;
}

bool IsNoncommittal(std::string_view response) {
  const std::string lower = text::AsciiLower(StraightApostrophes(std::string(response)));
  const bool declines = std::any_of(kDeclines.begin(), kDeclines.end(), [&](std::string_view p) {
    return lower.find(p) != std::string::npos;
  });
  if (!declines) return false;
  // What is left may be courtesy alone ("Sorry!", "Thank you."): that claims nothing either.
  static constexpr std::array<std::string_view, 6> kCourtesy = {"sorry", "thanks", "thank",
                                                                "you",   "please", "unfortunately"};
  const std::string left = text::AsciiLower(CommittedText(response));
  size_t i = 0;
  while (i < left.size()) {
    while (i < left.size() && !Alnum(left[i])) ++i;
    size_t end = i;
    while (end < left.size() && WordChar(left[end])) ++end;
    if (end > i && std::find(kCourtesy.begin(), kCourtesy.end(),
                             std::string_view(left).substr(i, end - i)) == kCourtesy.end()) {
      return false;
    }
    i = end;
  }
  return true;
}

}  // namespace tala::judges::offline
