#include "core/text/stopwords.h"

#include <string>
#include <unordered_set>

namespace tala::text {

bool IsStopWord(std::string_view w) {
  // Our own list: articles, pronouns, auxiliaries, prepositions, conjunctions, question words.
  static const std::unordered_set<std::string_view> kStop = {
      "a",      "an",      "the",     "and",        "or",      "but",     "if",      "then",
      "so",     "than",    "as",      "of",         "at",      "by",      "for",     "with",
      "about",  "against", "between", "into",       "through", "during",  "before",  "after",
      "above",  "below",   "to",      "from",       "up",      "down",    "in",      "out",
      "on",     "off",     "over",    "under",      "again",   "further", "once",    "here",
      "there",  "when",    "where",   "why",        "how",     "all",     "any",     "both",
      "each",   "few",     "more",    "most",       "other",   "some",    "such",    "only",
      "own",    "same",    "too",     "very",       "s",       "t",       "can",     "will",
      "just",   "don",     "should",  "now",        "i",       "me",      "my",      "myself",
      "we",     "our",     "ours",    "you",        "your",    "he",      "him",     "his",
      "she",    "her",     "hers",    "it",         "its",     "they",    "them",    "their",
      "theirs", "what",    "which",   "who",        "whom",    "whose",   "this",    "that",
      "these",  "those",   "am",      "is",         "are",     "was",     "were",    "be",
      "been",   "being",   "have",    "has",        "had",     "having",  "do",      "does",
      "did",    "doing",   "would",   "could",      "also",    "may",     "might",   "must",
      "shall",  "within",  "without", "upon",       "via",     "per",     "yes",     "one's",
      "itself", "himself", "herself", "themselves", "while",   "whereas", "because", "known",
      "called", "named",   "became",  "become"};
  return kStop.count(w) > 0;
}

bool IsNegation(std::string_view w) {
  static const std::unordered_set<std::string_view> kNeg = {
      "not",    "no",   "never", "none",   "neither", "nor",     "nobody", "nothing",
      "cannot", "didn", "doesn", "isn",    "wasn",    "weren",   "aren",   "hasn",
      "haven",  "hadn", "won",   "wouldn", "couldn",  "shouldn", "without"};
  return kNeg.count(w) > 0;
}

}  // namespace tala::text
