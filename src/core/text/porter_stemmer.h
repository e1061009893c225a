#pragma once
// The Porter stemmer as NLTK runs it by default (its NLTK_EXTENSIONS mode), which is what
// rouge_score, and so Ragas' ROUGE, stems with. It is Porter (1980) with documented changes:
//   - a table of irregular forms first (skies -> sky, dying -> die, lying -> lie, tying -> tie,
//     proceed/exceed/succeed and news kept whole, innings -> inning ...);
//   - words of one or two letters are returned as they are;
//   - step 1a: a four-letter word in "ies" keeps "ie" (ties -> tie);
//   - step 1b: "ied" becomes "ie" in a four-letter word (died -> die), "i" otherwise;
//   - step 1c: y -> i only after a consonant that is not the word's first letter (cry -> cri,
//     but say, by stay);
//   - step 2: Martin Porter's later rules (bli -> ble, logi -> log with the l kept in the stem)
//     and fulli -> ful; alli -> al is tried first and its result goes through step 2 again;
//   - a two-letter vowel-consonant stem counts as consonant-vowel-consonant (for step 1b's
//     "add an e" and step 5a).
// Input: one lower-case ASCII word (ROUGE's tokens). Pure and thread-safe.

#include <string>
#include <string_view>

namespace tala::text {

std::string PorterStemNltk(std::string_view word);

}  // namespace tala::text
