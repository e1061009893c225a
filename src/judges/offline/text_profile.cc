#include "judges/offline/text_profile.h"

#include <algorithm>
#include <cctype>

#include "core/text/stopwords.h"
#include "judges/offline/clause_lexicon.h"

namespace tala::judges::offline {

namespace {
// A sentence ends at . ! ? followed by a space or a capital (glued scraped text), or a newline.
bool EndsSentenceBetween(std::string_view text, size_t from, size_t to) {
  for (size_t i = from; i < to && i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') return true;
    if ((c == '.' || c == '!' || c == '?') && i + 1 < text.size()) {
      char n = text[i + 1];
      if (n == ' ' || (n >= 'A' && n <= 'Z')) return true;
    }
  }
  return false;
}

// "between 00:30 and 05:00", "5 or 6 days": a conjunction inside a range of numbers joins it,
// it does not start a clause. Not a list ("lines 1 and 4 run..."), whose clause reading (roles
// on each side of the verb) is what the structure checks were measured on.
// `before` holds the tokens already read (profiled: their text is moved out of `raw`).
bool JoinsNumbers(const std::vector<ProfiledToken>& before, const std::vector<text::Token>& raw,
                  size_t i) {
  if (i == 0 || i > before.size() || i + 1 >= raw.size() || !before[i - 1].number ||
      !raw[i + 1].number) {
    return false;
  }
  if (raw[i].text == "or") return true;
  size_t k = i - 1;  // back past the first number ("00:30" is two tokens)
  while (k > 0 && before[k].number) --k;
  return before[k].folded == "between";
}

// ", which is open from 8:00" says more of the noun before it: one segment with it, so a claim
// that joins the two ("the service centre is open from 8:00") finds its values together.
bool OpensRelativeClause(std::string_view folded) {
  return folded == "which" || folded == "who" || folded == "whose" || folded == "whom";
}

}  // namespace

// True when the text between two tokens holds a clause break: , ; : ( ) or a dash.
bool PunctuationBetween(std::string_view text, size_t from, size_t to) {
  for (size_t i = from; i < to && i < text.size(); ++i) {
    char c = text[i];
    // A colon between digits is a clock time or a ratio ("00:30", "3:1"), not a break.
    const bool in_number = c == ':' && i > 0 && i + 1 < text.size() &&
                           std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                           std::isdigit(static_cast<unsigned char>(text[i + 1]));
    if (c == ',' || c == ';' || (c == ':' && !in_number) || c == '(' || c == ')') return true;
  }
  return false;
}

TextProfile::TextProfile(std::string_view text, text::Stemmer& stemmer) {
  std::vector<text::Token> raw = text::Tokenize(text);
  tokens_.reserve(raw.size());
  int sentence = 0, segment = 0;
  size_t prev_start = 0;  // one past the previous token's first byte (the sentence scan's start)
  size_t prev_end = 0;    // the previous token's end (the clause scan's start)
  bool sentence_start = true;
  for (size_t i = 0; i < raw.size(); ++i) {
    text::Token& t = raw[i];
    if (!tokens_.empty()) {
      if (EndsSentenceBetween(text, prev_start, t.offset)) {
        ++sentence;
        ++segment;
        sentence_start = true;
      } else if ((PunctuationBetween(text, prev_end, t.offset) && !OpensRelativeClause(t.text)) ||
                 (IsSegmentConjunction(t.text) && !JoinsNumbers(tokens_, raw, i))) {
        ++segment;
      }
    }
    const size_t end = t.offset + t.text.size();
    ProfiledToken p;
    p.stop = text::IsStopWord(t.text);
    // The tokenizer splits "won't", "can't" and "don't" into "won"/"can"/"don" and "t": those
    // are negations only with the "t" ("won" is a verb everywhere else).
    const bool before_t = i + 1 < raw.size() && raw[i + 1].text == "t";
    p.negation = (text::IsNegation(t.text) && (t.text != "won" || before_t)) ||
                 ((t.text == "can" || t.text == "don" || t.text == "ain") && before_t);
    p.capitalised = t.capitalised && !sentence_start;
    p.raw_capitalised = t.capitalised;
    p.number = t.number;
    p.sentence = sentence;
    p.segment = segment;
    ReadQuantity(text, t, i + 1 < raw.size() ? &raw[i + 1] : nullptr, p.value, p.unit);
    p.stem = stemmer.Stem(t.text);
    p.folded = std::move(t.text);
    sentence_start = false;
    prev_start = t.offset + 1;
    prev_end = end;
    tokens_.push_back(std::move(p));
  }
  sentence_count_ = sentence + 1;
  segment_count_ = tokens_.empty() ? 0 : segment + 1;
  stems_.reserve(tokens_.size());
  folded_.reserve(tokens_.size());
  stem_sentences_.reserve(tokens_.size());
  for (const ProfiledToken& p : tokens_) {
    stems_.push_back(p.stem);
    folded_.push_back(p.folded);
    stem_sentences_.emplace_back(p.stem, p.sentence);
  }
  for (auto* v : {&stems_, &folded_}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  std::sort(stem_sentences_.begin(), stem_sentences_.end());
}

bool TextProfile::HasStem(std::string_view stem) const {
  return std::binary_search(stems_.begin(), stems_.end(), stem);
}

bool TextProfile::HasFolded(std::string_view folded) const {
  return std::binary_search(folded_.begin(), folded_.end(), folded);
}

bool TextProfile::HasStemIn(std::string_view stem, int first, int last) const {
  auto it =
      std::lower_bound(stem_sentences_.begin(), stem_sentences_.end(), std::make_pair(stem, first));
  return it != stem_sentences_.end() && it->first == stem && it->second <= last;
}

bool TextProfile::HasNegationIn(int first, int last) const {
  for (const ProfiledToken& p : tokens_) {
    if (p.negation && p.sentence >= first && p.sentence <= last) return true;
  }
  return false;
}

}  // namespace tala::judges::offline
